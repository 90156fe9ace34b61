"""One battle (R5): values, Plague, army movement, shortfall, six-marks, costs, order.

Each scenario is a round-1 state (reveals in board order) where four of the five
battles are inert ties, so only the province under test changes.
"""

from __future__ import annotations

import pytest

from helpers import ADJACENT
from helpers import PROVINCES
from helpers import answer
from helpers import choose
from helpers import expect
from helpers import expect_next_round
from helpers import legal
from helpers import load
from helpers import make_state
from helpers import place
from helpers import provinces
from helpers import single_battle

# --- R5.1 values ------------------------------------------------------------------------

# (blue card, red card, blue armies at WU, red armies at WU) after a battle at an empty WU.
VALUE_CASES = [
    ("5", "9", 0, 4),  # rulebook example, case 1
    ("9", "5", 4, 0),
    ("7", "7", 0, 0),  # equal values: nothing happens
    ("10", "2", 8, 0),
    ("+1", "7", 1, 0),  # 8 against 7
    ("7", "+1", 0, 1),
    ("-1", "7", 0, 1),  # 6 against 7
    ("8", "-1", 1, 0),  # 8 against 7
    ("-1", "1", 0, 1),  # 0 against 1
    ("+1", "+1", 0, 0),  # same relative card: a tie
    ("-1", "-1", 0, 0),
    ("-1", "+1", 0, 1),  # -1 counts as 0, +1 wins by 1
    ("+1", "-1", 1, 0),
]


@pytest.mark.parametrize(("blue_card", "red_card", "blue_wu", "red_wu"), VALUE_CASES)
def test_r5_1_card_values(blue_card: str, red_card: str, blue_wu: int, red_wu: int) -> None:
    """R5.1: number, +k and -1 values, and relative cards facing each other; R11: the result in the record."""
    d = expect_next_round(single_battle(make_state(), blue_card, red_card))
    assert d["blue"]["armies"] == [0, 0, 0, 0, blue_wu]
    assert d["red"]["armies"] == [0, 0, 0, 0, red_wu]
    assert d["battle_results"][4] == {"outcome": "combat", "margin": blue_wu - red_wu}  # WU was empty (R5.3)
    assert d["blue"]["reserve"] == 21 - blue_wu
    assert d["red"]["reserve"] == 21 - red_wu


# (blue card, red card, blue WU, red WU, blue cost, red cost), standard variant, WU empty.
COST_CASES = [
    ("+3", "+1", 2, 0, 2, 0),  # two bonus cards: the larger wins by the difference
    ("+2", "+3", 0, 1, 1, 2),
    ("+3", "+2", 1, 0, 2, 1),
    ("-1", "+3", 0, 3, 0, 2),  # -1 counts as 0
    ("+2", "9", 2, 0, 1, 0),  # 11 against 9
    ("+2", "+2", 0, 0, 1, 1),  # R5.6: a tie still costs
    ("+3", "+3", 0, 0, 2, 2),
]


@pytest.mark.parametrize(("blue_card", "red_card", "blue_wu", "red_wu", "blue_cost", "red_cost"), COST_CASES)
def test_r5_1_r5_6_d5_bonus_cards_and_costs(
    blue_card: str, red_card: str, blue_wu: int, red_wu: int, blue_cost: int, red_cost: int
) -> None:
    """R5.1 bonus against bonus; R5.6: `+2` costs 1 army, `+3` 2, on a tie too.

    A payer that now holds WU chooses each army's source (reserve or WU): it answers
    `reserve`; a payer with nothing on the board pays from reserve with no decision.
    """
    s = make_state("standard")
    g = single_battle(s, blue_card, red_card)
    asked = {"blue": 0, "red": 0}
    while g.decision is not None and g.decision["kind"] == "source":
        assert legal(g) == {"reserve", "province:WU"}
        asked[g.decision["player"]] += 1
        g.apply("reserve")
    assert asked == {"blue": blue_cost if blue_wu else 0, "red": red_cost if red_wu else 0}
    d = expect_next_round(g)
    for color, wu, cost in (("blue", blue_wu, blue_cost), ("red", red_wu, red_cost)):
        assert d[color]["armies"] == [0, 0, 0, 0, wu]
        assert d[color]["set_aside"] == cost
        assert d[color]["reserve"] == 21 - wu - cost


# --- R5.2 Plague ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blue_card", "red_card", "blue_wu", "red_wu", "blue_after", "red_after", "reveals"),
    [
        ("P", "9", 5, 0, 3, 0, 1),  # floor(5/2) = 2 removed; the 9 has no effect
        ("9", "P", 0, 3, 0, 2, 1),  # floor(3/2) = 1 removed; the 9 has no effect
        ("P", "P", 5, 0, 3, 0, 2),  # two Plagues act as one (5 -> 3, not 5 -> 3 -> 2)
        ("P", "10", 1, 0, 1, 0, 1),  # floor(1/2) = 0
        ("P", "10", 0, 0, 0, 0, 1),  # empty province: nothing
    ],
)
def test_r5_2_plague(
    blue_card: str,
    red_card: str,
    blue_wu: int,
    red_wu: int,
    blue_after: int,
    red_after: int,
    reveals: int,
) -> None:
    """R5.2: no combat; floor(n/2) of the armies go back to their owner's reserve."""
    s = make_state(blue={"armies": [0, 0, 0, 0, blue_wu]}, red={"armies": [0, 0, 0, 0, red_wu]})
    d = expect_next_round(single_battle(s, blue_card, red_card))
    assert d["blue"]["armies"] == [0, 0, 0, 0, blue_after]
    assert d["red"]["armies"] == [0, 0, 0, 0, red_after]
    assert d["blue"]["reserve"] == 21 - blue_after
    assert d["red"]["reserve"] == 21 - red_after
    assert d["plague_reveals"] == reveals
    assert d["battle_results"][4] == {"outcome": "plague", "margin": 0}  # R11: no combat


def test_r5_2_d5_r5_5_six_facing_plague_makes_no_mark() -> None:
    """R5.2/D5/R5.5: a `6` revealed against a Plague makes no mark (its effects are cancelled)
    but counts as revealed (R7.4); the Plague halves blue's WU 4 -> 2 (reserve 17 -> 19)."""
    s = make_state(blue={"armies": [0, 0, 0, 0, 4]})
    d = expect_next_round(single_battle(s, "P", "6"))
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]
    assert d["blue"]["reserve"] == 17 + 2
    assert d["red"]["six_marks"] == [0, 0, 0, 0, 0]
    assert d["red"]["marked_armies"] == 0
    assert d["red"]["reserve"] == 21
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]
    assert d["red"]["sixes_revealed"] == 1
    assert d["blue"]["plagues_revealed"] == 1


def test_r5_2_d5_bonus_against_plague_costs_nothing() -> None:
    """R5.2/D5/R5.6: a `+3` revealed against a Plague has no value and costs nothing."""
    d = expect_next_round(single_battle(make_state("standard"), "+3", "P"))
    assert d["blue"]["armies"] == [0, 0, 0, 0, 0]
    assert d["blue"]["set_aside"] == 0
    assert d["blue"]["reserve"] == 21
    assert d["red"]["reserve"] == 21


# --- R5.3 army movement -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("blue_wu", "red_wu", "blue_after", "red_after"),
    [
        pytest.param(0, 0, 0, 4, id="case1-empty"),
        pytest.param(0, 2, 0, 6, id="case1-held-by-red"),
        pytest.param(6, 0, 2, 0, id="case2-blue-more-than-4"),
        pytest.param(4, 0, 0, 0, id="case3-blue-exactly-4"),
        pytest.param(3, 0, 0, 1, id="case4-blue-has-3"),
    ],
)
def test_r5_3_rulebook_wu_example(blue_wu: int, red_wu: int, blue_after: int, red_after: int) -> None:
    """R5.3, the rulebook's example: at WU blue plays 5, red 9, a difference of 4 for red."""
    s = make_state(blue={"armies": [0, 0, 0, 0, blue_wu]}, red={"armies": [0, 0, 0, 0, red_wu]})
    d = expect_next_round(single_battle(s, "5", "9"))
    assert d["blue"]["armies"] == [0, 0, 0, 0, blue_after]
    assert d["red"]["armies"] == [0, 0, 0, 0, red_after]
    # Removed armies go back to their owner's reserve; added ones come from it.
    assert d["blue"]["reserve"] == 21 - blue_after
    assert d["red"]["reserve"] == 21 - red_after


def test_r5_3_blue_wins_against_a_smaller_red_holding() -> None:
    """R5.3: blue wins QIN by 4 where red holds 2: red removes 2, blue adds 2."""
    s = make_state(red={"armies": [2, 0, 0, 0, 0]})
    d = expect_next_round(single_battle(s, "9", "5", at=0))
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]
    assert d["red"]["reserve"] == 21
    assert d["blue"]["armies"] == [2, 0, 0, 0, 0]
    assert d["blue"]["reserve"] == 19


# --- R5.4 shortfall, D1 adjacency, P9 -------------------------------------------------


def test_r5_4_shortfall_from_adjacent_one_army_at_a_time() -> None:
    """R5.4: reserve first, then adjacent provinces (CHU, HAN-QI for WU), one army each."""
    s = make_state(red={"reserve": 1, "armies": [15, 2, 0, 3, 0]})
    g = single_battle(s, "5", "9")  # red must add 4 at WU
    answer(g, "shortfall", "red", "province:CHU")
    assert legal(g) == provinces("CHU", "HAN-QI")  # QIN is not adjacent to WU
    answer(g, "shortfall", "red", "province:CHU")
    # CHU is now empty: the last army comes from HAN-QI with no decision.
    d = expect_next_round(g)
    assert d["red"]["armies"] == [15, 0, 0, 2, 4]
    assert d["red"]["reserve"] == 0


def test_r5_4_shortfall_first_decision_lists_adjacent_only() -> None:
    """R5.4/R10: the shortfall decision offers the adjacent provinces holding armies."""
    s = make_state(red={"reserve": 1, "armies": [15, 2, 0, 3, 0]})
    g = single_battle(s, "5", "9")
    expect(g, "shortfall", "red")
    assert legal(g) == provinces("CHU", "HAN-QI")


def test_r5_4_shortfall_falls_back_to_other_provinces() -> None:
    """R5.4: when the adjacent provinces are empty, any other province may give."""
    s = make_state(red={"reserve": 0, "armies": [10, 1, 10, 0, 0]})
    g = single_battle(s, "4", "7")  # red must add 3 at WU
    # The first army comes from CHU, the only adjacent province with armies.
    answer(g, "shortfall", "red", "province:QIN")
    assert legal(g) == provinces("QIN", "JIN-YAN")
    answer(g, "shortfall", "red", "province:JIN-YAN")
    d = expect_next_round(g)
    assert d["red"]["armies"] == [9, 0, 9, 0, 3]
    assert d["red"]["reserve"] == 0


def test_r5_4_shortfall_places_what_it_can() -> None:
    """R5.4: with no army left anywhere, the side places what it has."""
    s = make_state("standard", red={"reserve": 2, "set_aside": 19})
    d = expect_next_round(single_battle(s, "5", "9"))  # red should add 4
    assert d["red"]["armies"] == [0, 0, 0, 0, 2]
    assert d["red"]["reserve"] == 0
    assert d["red"]["set_aside"] == 19


def test_p9_shortfall_never_takes_from_the_reinforced_province() -> None:
    """P9: red holds WU 3, wins WU by 4 with an empty reserve: CHU's 2 (neighbour), then
    QIN's 1 (other province) come with no decision, WU itself is never offered; the 4th
    army is not placed."""
    s = make_state("standard", red={"reserve": 0, "set_aside": 15, "armies": [1, 2, 0, 0, 3]})
    d = expect_next_round(single_battle(s, "5", "9"))
    assert d["red"]["armies"] == [0, 0, 0, 0, 6]
    assert d["red"]["reserve"] == 0
    assert d["red"]["set_aside"] == 15


@pytest.mark.parametrize("at", range(5), ids=PROVINCES)
def test_d1_r1_4_adjacency_seen_through_shortfall(at: int) -> None:
    """D1/R1.4: a shortfall at each province draws on exactly its declared neighbours."""
    armies = [5, 5, 5, 6]
    armies.insert(at, 0)
    s = make_state(red={"reserve": 0, "armies": armies})
    g = single_battle(s, "4", "5", at=at)  # red must add 1 with an empty reserve
    expect(g, "shortfall", "red")
    neighbours = ADJACENT[PROVINCES[at]]
    assert legal(g) == provinces(*neighbours)
    source = min(neighbours, key=PROVINCES.index)
    g.apply(f"province:{source}")
    d = expect_next_round(g)
    expected = list(armies)
    expected[PROVINCES.index(source)] -= 1
    expected[at] = 1
    assert d["red"]["armies"] == expected


# --- R5.5 six-marks ---------------------------------------------------------------------


def test_r5_5_sixes_mark_both_sides_from_reserve() -> None:
    """R5.5: each revealed `6` puts one army of its side in the province's six-mark box."""
    d = expect_next_round(single_battle(make_state(), "6", "6", at=0))
    for color in ("blue", "red"):
        assert d[color]["six_marks"] == [1, 0, 0, 0, 0]
        assert d[color]["marked_armies"] == 1
        assert d[color]["reserve"] == 20
        assert d[color]["armies"] == [0, 0, 0, 0, 0]


def test_r5_5_mark_from_a_province_when_reserve_is_empty() -> None:
    """R5.5/R10: with an empty reserve the marking army comes from a province of red's choice."""
    s = make_state(red={"reserve": 0, "armies": [0, 10, 0, 11, 0]})
    g = single_battle(s, "6", "6", at=0)
    choose(g, "source", "red", provinces("CHU", "HAN-QI"), "province:HAN-QI")
    d = expect_next_round(g)
    assert d["red"]["armies"] == [0, 10, 0, 10, 0]
    assert d["red"]["six_marks"] == [1, 0, 0, 0, 0]
    assert d["red"]["marked_armies"] == 1
    assert d["blue"]["reserve"] == 20


def test_r5_5_mark_with_no_army() -> None:
    """R5.5: with no army anywhere the mark is made with no army (P10)."""
    s = make_state("standard", red={"reserve": 0, "set_aside": 21})
    d = expect_next_round(single_battle(s, "6", "6", at=0))
    assert d["red"]["six_marks"] == [1, 0, 0, 0, 0]
    assert d["red"]["marked_armies"] == 0
    assert d["red"]["set_aside"] == 21


def test_r5_7_r5_5_mark_before_army_movement() -> None:
    """R5.7: the mark takes its army before the movement, so the shortfall is 2, not 1.

    Red (reserve 3, CHU 5, QIN 13) wins WU by 4 with a `6`: the mark takes 1 from reserve,
    the movement 2 from reserve and 2 from CHU (its only neighbour of WU with armies).
    """
    s = make_state(red={"reserve": 3, "armies": [13, 5, 0, 0, 0]})
    d = expect_next_round(single_battle(s, "2", "6"))
    assert d["red"]["armies"] == [13, 3, 0, 0, 4]
    assert d["red"]["reserve"] == 0
    assert d["red"]["six_marks"] == [0, 0, 0, 0, 1]
    assert d["red"]["marked_armies"] == 1


# --- R5.6 costs, P10 --------------------------------------------------------------------


def test_r5_6_cost_from_a_province_of_choice() -> None:
    """R5.6: blue wins WU by 2 with `+2` and pays its army from WU."""
    g = single_battle(make_state("standard"), "+2", "5")
    answer(g, "source", "blue", "province:WU")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["reserve"] == 19
    assert d["blue"]["set_aside"] == 1


def test_r5_6_plus_three_costs_two_chosen_one_at_a_time() -> None:
    """R5.6: `+3` sets aside 2 armies, each from reserve or a province."""
    g = single_battle(make_state("standard"), "+3", "5")  # 8 against 5: blue adds 3
    answer(g, "source", "blue", "reserve")
    answer(g, "source", "blue", "province:WU")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]
    assert d["blue"]["reserve"] == 17
    assert d["blue"]["set_aside"] == 2


def test_r5_7_r5_6_cost_after_army_movement() -> None:
    """R5.7: the cost comes after the movement, once the reserve went into WU.

    Blue (reserve 2, QIN 1) wins WU by 2 with `+2`: the movement empties the reserve,
    so the cost is taken from QIN or WU, and `reserve` is no longer an answer.
    """
    s = make_state("standard", blue={"reserve": 2, "set_aside": 18, "armies": [1, 0, 0, 0, 0]})
    g = single_battle(s, "+2", "5")
    choose(g, "source", "blue", provinces("QIN", "WU"), "province:QIN")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]
    assert d["blue"]["reserve"] == 0
    assert d["blue"]["set_aside"] == 19


def test_p10_cost_with_too_few_armies_is_skipped() -> None:
    """P10: `+3` against `+3` (a tie, both pay): blue, with a single army left (in reserve),
    pays that one and the second is skipped; red pays 2 from its reserve (21 -> 19)."""
    s = make_state("standard", blue={"reserve": 1, "set_aside": 20})
    d = expect_next_round(single_battle(s, "+3", "+3"))
    assert d["blue"]["reserve"] == 0
    assert d["blue"]["set_aside"] == 21
    assert d["blue"]["armies"] == [0, 0, 0, 0, 0]
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (19, 2)


# --- R5.7 order: costs before events, events before recycling ---------------------------


def test_r5_7_costs_before_events() -> None:
    """R5.7: red's `+2` cost is paid before blue's `champion` payment, though blue is asked
    first when both pay at one moment (R10).

    Red's `+2` (11) beats blue's `9` at WU by 2: red's reserve 19 -> 17, WU 2. Cost: red
    chooses reserve, CHU or WU; it pays from reserve (17 -> 16). Then champion: blue's `9`
    did not win; blue chooses reserve or QIN and pays from QIN (2 -> 1).
    """
    s = make_state(
        "standard",
        events=["champion", "hero"],
        blue={"armies": [2, 0, 0, 0, 0]},
        red={"armies": [0, 2, 0, 0, 0]},
    )
    g = single_battle(s, "9", "+2")
    choose(g, "source", "red", {"reserve"} | provinces("CHU", "WU"), "reserve")
    choose(g, "source", "blue", {"reserve", "province:QIN"}, "province:QIN")
    d = expect_next_round(g)
    assert d["red"]["armies"] == [0, 2, 0, 0, 2]
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (16, 1)
    assert d["blue"]["armies"] == [1, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (19, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r5_7_events_before_recycle() -> None:
    """R5.7: the event step (pandemic's payment: red's Plague is the 4th copy, R7.1) comes
    before `recycle_plague`."""
    s = make_state(
        "standard",
        events=["pandemic", "hero"],
        blue={"reserve": 0, "set_aside": 17, "armies": [2, 2, 0, 0, 0], "plagues_revealed": 2},
        red={"held": ["recycle_plague"], "deck": ["8"], "plagues_revealed": 1},
    )
    g = single_battle(s, "3", "P")
    answer(g, "source", "blue", "province:CHU")
    answer(g, "reactive", "red", "use", warlord="recycle_plague")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [2, 1, 0, 0, 0]
    assert d["blue"]["set_aside"] == 18
    assert d["red"]["set_aside"] == 1
    # The recycled Plague went under the deck; the `8` on top left the game; the draw
    # then brought the Plague back to hand (the only card left, kept without a decision),
    # written `P*`: a copy already revealed (R7.1, R11).
    assert d["red"]["deck"] == []
    assert "P*" in d["red"]["hand"]
    assert "P" not in d["red"]["hand"]
    assert "8" not in d["red"]["hand"]
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (2, 2)


def test_r5_1_equal_numbers_change_nothing() -> None:
    """R5.1: equal values in all five provinces: nothing happens anywhere."""
    s = make_state(blue={"armies": [1, 0, 2, 0, 0]}, red={"armies": [0, 3, 0, 4, 0]})
    g = load(s)
    cards = ["2", "3", "4", "5", "7"]
    place(g, cards, cards)
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [1, 0, 2, 0, 0]
    assert d["red"]["armies"] == [0, 3, 0, 4, 0]
    assert d["blue"]["reserve"] == 18
    assert d["red"]["reserve"] == 14
