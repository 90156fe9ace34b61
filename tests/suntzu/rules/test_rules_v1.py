"""Rules v1: the nine changes from v0 (see "Changes in v1" in docs/rules.md), one scenario each
and their edges.

Every scenario starts from a hand-written start-of-round record (R11). Round 1 reveals in board
order, so `single_battle` leaves one real battle (WU unless said) and four inert ties. Expected
values are worked out from the rules; the arithmetic is in the comments.
"""

from __future__ import annotations

import pytest

from helpers import BASE_CARDS
from helpers import PROVINCES
from helpers import TIES
from helpers import State
from helpers import answer
from helpers import battle_cards
from helpers import choose
from helpers import expect
from helpers import expect_next_round
from helpers import legal
from helpers import load
from helpers import make_state
from helpers import place
from helpers import provinces
from helpers import reveal
from helpers import single_battle
from helpers import sorted_warlords
from helpers import warlord_picks
from helpers import with_hands

# --- R5.2 / D5: an active Plague cancels all effects of the opposing card ----------------


@pytest.mark.parametrize(("blue_card", "red_card"), [("+3", "P"), ("P", "+2")])
def test_r5_2_d5_r5_6_bonus_facing_plague_costs_nothing_no_decision(blue_card: str, red_card: str) -> None:
    """R5.2/D5/R5.6: a `+3` (`+2`) facing a Plague costs nothing. Both reserves are empty and
    both sides hold provinces, so any cost would have asked where its army comes from: no
    payment decision at all; the round ends with every count unchanged."""
    s = make_state(
        "standard",
        blue={"reserve": 0, "armies": [10, 11, 0, 0, 0]},
        red={"reserve": 0, "armies": [0, 0, 10, 11, 0]},
    )
    d = expect_next_round(single_battle(s, blue_card, red_card))
    assert d["blue"]["armies"] == [10, 11, 0, 0, 0]
    assert d["red"]["armies"] == [0, 0, 10, 11, 0]
    for color in ("blue", "red"):
        assert (d[color]["reserve"], d[color]["set_aside"]) == (0, 0)
    plague_side = "red" if red_card == "P" else "blue"
    assert d[plague_side]["plagues_revealed"] == 1
    assert d["plague_reveals"] == 1


def test_r5_2_d5_r8_countered_plague_does_not_cancel_the_cost() -> None:
    """R5.2/D5/R8: red counters its own Plague: it is a 0, not an active Plague, so blue's `+3`
    is worth 0 + 3 = 3, wins WU by 3 (reserve 21 -> 18) and pays its 2 armies (18 -> 16)."""
    s = make_state("standard", red={"held": ["counter_plague"]})
    g = single_battle(s, "+3", "P")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    for _ in range(2):
        answer(g, "source", "blue", "reserve")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 3]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (16, 2)
    assert d["red"]["plagues_revealed"] == 1  # a countered Plague was still revealed


def test_r5_2_r5_5_r8_six_facing_countered_plague_marks() -> None:
    """R5.2/R5.5/R8: red counters blue's Plague (now 0): red's `6` marks WU (reserve 21 -> 20),
    then wins by 6 against blue's 4 there: blue removes its 4 (reserve 17 -> 21), red adds
    6 - 4 = 2 (20 -> 18)."""
    s = make_state("standard", blue={"armies": [0, 0, 0, 0, 4]}, red={"held": ["counter_plague"]})
    g = single_battle(s, "P", "6")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    d = expect_next_round(g)
    assert d["red"]["six_marks"] == [0, 0, 0, 0, 1]
    assert d["red"]["marked_armies"] == 1
    assert d["red"]["armies"] == [0, 0, 0, 0, 2]
    assert d["red"]["reserve"] == 18
    assert d["blue"]["armies"] == [0, 0, 0, 0, 0]
    assert d["blue"]["reserve"] == 21
    assert d["red"]["sixes_revealed"] == 1


def test_r5_2_d5_r4_6_one_facing_plague_draws_two_keeps_one() -> None:
    """R5.2/D5/R4.6: blue's `1` faces a Plague: it does not count as played, so blue draws 2
    (`7`, `8`) and keeps 1, not 3 and 2; the `7` goes under the `9`."""
    s = make_state(blue={"deck": ["7", "8", "9"]})
    g = single_battle(s, "1", "P")
    choose(g, "keep", "blue", {"keep:7", "keep:8"}, "keep:8")
    d = expect_next_round(g)
    assert d["blue"]["hand"] == [*BASE_CARDS, "8"]
    assert d["blue"]["deck"] == ["9", "7"]


def test_r5_2_r4_6_one_facing_countered_plague_draws_three_keeps_two() -> None:
    """R5.2/R4.6/R8: against a countered Plague (0) blue's `1` wins WU by 1 and counts as
    played: blue draws 3 (`7`, `8`, `9`) and keeps 2; the `8` goes to the bottom."""
    s = make_state("standard", blue={"deck": ["7", "8", "9"]}, red={"held": ["counter_plague"]})
    g = single_battle(s, "1", "P")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    choose(g, "keep", "blue", {"keep:7", "keep:8", "keep:9"}, "keep:9")
    answer(g, "keep", "blue", "keep:7")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["hand"] == [*BASE_CARDS, "7", "9"]
    assert d["blue"]["deck"] == ["8"]


@pytest.mark.parametrize(("card", "event", "paid"), [("9", "champion", 1), ("10", "hero", 2)])
def test_r5_2_r7_2_r7_3_champion_and_hero_pay_facing_a_plague(card: str, event: str, paid: int) -> None:
    """R5.2/R7.2/R7.3: events look at the cards: a `9` (`10`) facing a Plague did not win, so
    blue sets aside 1 (2) army from its reserve (21 -> 20 (19)); pandemic is turned up and
    stays (1 copy of 4 revealed)."""
    s = make_state(events=[event, "pandemic"])
    d = expect_next_round(single_battle(s, card, "P"))
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (21 - paid, paid)
    assert d["events"] == {"face_up": "pandemic", "deck": []}


def test_r5_2_d8_double_six_spent_though_its_mark_is_cancelled() -> None:
    """R5.2/D8/P4: red places its `6` in WU, already marked, with `double_six`; blue's Plague
    cancels the second mark, yet `double_six` is spent and the `6` counts as revealed (1 -> 2)."""
    s = make_state(
        "standard",
        red={"held": ["double_six"], "six_marks": [0, 0, 0, 0, 1], "marked_armies": 1, "sixes_revealed": 1},
    )
    d = expect_next_round(single_battle(s, "P", "6"))
    assert d["red"]["six_marks"] == [0, 0, 0, 0, 1]
    assert (d["red"]["marked_armies"], d["red"]["reserve"]) == (1, 20)
    assert d["red"]["sixes_revealed"] == 2
    assert sorted_warlords(d, "red")["held"] == []
    assert sorted_warlords(d, "red")["used"] == ["double_six"]


# --- R7.4: war_chariot on a side's third revealed `6`, optional -------------------------

RED_PICKS = {"warlord:purge", "warlord:devastating_plague", "warlord:counter_plague", "warlord:recycle_plague"}


def test_r7_4_third_six_in_only_two_marked_provinces() -> None:
    """R7.4: red (double-marked QIN, 2 sixes) reveals its third `6` in CHU: two marked
    provinces only (v0's condition fails), three sixes revealed: red may pick a warlord."""
    s = make_state(
        "standard",
        events=["war_chariot", "hero"],
        red={"held": ["double_six"], "six_marks": [2, 0, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    g = single_battle(s, "6", "6", at=1)
    choose(g, "warlord", "red", RED_PICKS | {"pass"}, "warlord:devastating_plague")
    d = expect_next_round(g)
    assert sorted_warlords(d, "red")["held"] == ["devastating_plague", "double_six"]
    assert d["red"]["six_marks"] == [2, 1, 0, 0, 0]
    assert (d["red"]["marked_armies"], d["red"]["reserve"]) == (3, 18)
    assert (d["red"]["sixes_revealed"], d["blue"]["sixes_revealed"]) == (3, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_4_chariot_choice_may_be_passed() -> None:
    """R7.4: the choice is optional: red passes, keeps its one warlord, and the card is still
    removed. Red's earlier two sixes left no mark (they met Plagues): sixes count, not marks.
    WU: blue's 7 beats red's 6 by 1; red's 6 marks from reserve (21 -> 20)."""
    # round 4: two `6`s revealed in rounds 1-3 (at most one a round)
    s = make_state(
        "standard", round_=4, events=["war_chariot", "hero"], red={"held": ["recycle_plague"], "sixes_revealed": 2}
    )
    g = single_battle(s, "7", "6")
    picks = warlord_picks("double_six", "purge", "devastating_plague", "counter_plague") | {"pass"}
    choose(g, "warlord", "red", picks, "pass")
    d = expect_next_round(g, 5)
    assert sorted_warlords(d, "red") == {
        "held": ["recycle_plague"],
        "used": [],
        "unchosen": ["counter_plague", "devastating_plague", "double_six", "purge"],
    }
    assert d["events"] == {"face_up": "hero", "deck": []}
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert (d["red"]["six_marks"], d["red"]["reserve"], d["red"]["sixes_revealed"]) == ([0, 0, 0, 0, 1], 20, 3)


def test_r7_4_r5_2_six_facing_plague_counts_for_the_chariot() -> None:
    """R7.4/R5.2: red's third `6` faces blue's Plague: no mark, but it counts. Blue's WU 2 is
    halved (2 -> 1, reserve 19 -> 20)."""
    s = make_state(
        "standard",
        events=["war_chariot", "hero"],
        blue={"armies": [0, 0, 0, 0, 2]},
        red={"held": ["double_six"], "six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    g = single_battle(s, "P", "6")
    answer(g, "warlord", "red", "warlord:counter_plague")
    d = expect_next_round(g)
    assert d["red"]["six_marks"] == [1, 1, 0, 0, 0]
    assert (d["red"]["marked_armies"], d["red"]["reserve"], d["red"]["sixes_revealed"]) == (2, 19, 3)
    assert sorted_warlords(d, "red")["held"] == ["counter_plague", "double_six"]
    assert (d["blue"]["armies"], d["blue"]["reserve"]) == ([0, 0, 0, 0, 1], 20)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_4_r10_both_third_sixes_both_choose_blue_first() -> None:
    """R7.4/R10: both sides reveal their third `6` at JIN-YAN: blue chooses (not `head_start`),
    then red; blue takes `recycle_minus_one`, red passes. Both mark JIN-YAN (21-2-1 = 18)."""
    marks = {"six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2}
    s = make_state(
        "standard",
        events=["war_chariot", "hero"],
        blue={"held": ["feint"], **marks},
        red={"held": ["double_six"], **marks},
    )
    g = single_battle(s, "6", "6", at=2)
    picks = {"warlord:march", "warlord:recycle_minus_one", "warlord:reinforce", "pass"}
    choose(g, "warlord", "blue", picks, "warlord:recycle_minus_one")
    choose(g, "warlord", "red", RED_PICKS | {"pass"}, "pass")
    d = expect_next_round(g)
    assert sorted_warlords(d, "blue")["held"] == ["feint", "recycle_minus_one"]
    assert sorted_warlords(d, "red")["held"] == ["double_six"]
    for color in ("blue", "red"):
        assert d[color]["six_marks"] == [1, 1, 1, 0, 0]
        assert (d[color]["marked_armies"], d[color]["reserve"], d[color]["sixes_revealed"]) == (3, 18, 3)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_4_p5_chariot_turned_up_when_a_side_already_has_three_sixes() -> None:
    """R7/R7.4/P5: red has revealed 3 sixes (one mark only). Champion applies (blue's 9 loses
    to 10 at WU: red adds 1, 20 -> 19; blue pays 1, 21 -> 20); war_chariot is turned up, its
    condition already holds: red chooses at once; hero is turned up and stays."""
    s = make_state(
        "standard",
        round_=4,  # three `6`s revealed in rounds 1-3
        events=["champion", "war_chariot", "hero"],
        red={"held": ["double_six"], "six_marks": [1, 0, 0, 0, 0], "marked_armies": 1, "sixes_revealed": 3},
    )
    g = single_battle(s, "9", "10")
    choose(g, "warlord", "red", RED_PICKS | {"pass"}, "warlord:recycle_plague")
    d = expect_next_round(g, 5)
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (20, 1)
    assert (d["red"]["armies"], d["red"]["reserve"]) == ([0, 0, 0, 0, 1], 19)
    assert sorted_warlords(d, "red")["held"] == ["double_six", "recycle_plague"]
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_4_r8_feinted_seven_is_not_a_six() -> None:
    """R7.4/R8: blue (2 sixes revealed) feints its `7` into a 6: it ties red's `6` but is not a
    revealed `6`, so war_chariot stays face up; red's real `6` marks WU (21 -> 20)."""
    s = make_state("standard", round_=4, events=["war_chariot", "hero"], blue={"held": ["feint"], "sixes_revealed": 2})
    g = single_battle(s, "7", "6")
    answer(g, "reactive", "blue", "use", warlord="feint")
    d = expect_next_round(g, 5)
    assert (d["blue"]["sixes_revealed"], d["red"]["sixes_revealed"]) == (2, 1)
    assert d["blue"]["six_marks"] == [0, 0, 0, 0, 0]
    assert (d["red"]["six_marks"], d["red"]["reserve"]) == ([0, 0, 0, 0, 1], 20)
    assert d["events"] == {"face_up": "war_chariot", "deck": ["hero"]}


# --- R7.1 / D6 / P14: pandemic when all four Plague copies were revealed ----------------


def pandemic_state(blue_copies: int, red_copies: int, red_hand: list[str], **red: object) -> State:
    """Standard, events pandemic then hero; red has used `recycle_plague` (its `P*` exists)."""
    s = make_state(
        "standard",
        events=["pandemic", "hero"],
        blue={"plagues_revealed": blue_copies, "hand": [*BASE_CARDS, "7"]},
        red={"plagues_revealed": red_copies, "used": ["recycle_plague"], "hand": red_hand, **red},
    )
    return s


def test_r7_1_d6_recycled_copy_revealed_again_is_not_the_fourth() -> None:
    """R7.1/D6: blue has revealed 1 copy, red both (one came back as `P*`): 3 of 4. Red reveals
    its `P*` at WU: a 4th Plague reveal (3 -> 4) but the same card: pandemic stays face up."""
    s = pandemic_state(1, 2, [*BASE_CARDS, "7", "P*"])
    g = load(s)
    blue, red = battle_cards("3", "P")  # ties 2, 4, 5, 7; red's `place:P` can only be its `P*`
    place(g, blue, red)
    d = expect_next_round(g)
    assert d["plague_reveals"] == 4
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (1, 2)
    assert d["events"] == {"face_up": "pandemic", "deck": ["hero"]}
    assert (d["blue"]["set_aside"], d["red"]["set_aside"]) == (0, 0)
    assert d["red"]["hand"] == list(BASE_CARDS)  # the `P*` and the `7` left the game
    assert d["red"]["deck"] == []


def test_r7_1_p14_never_revealed_copy_is_placed_first() -> None:
    """R7.1/P14: red holds its never-revealed `P` and its recycled `P*`; `place:P` uses the
    never-revealed one: 2 + 2 copies, pandemic: each side sets aside 1 (21 -> 20). The `P*`
    stays in red's hand."""
    s = pandemic_state(2, 1, [*BASE_CARDS, "7", "P", "P*"])
    g = load(s)
    blue, red = battle_cards("3", "P")
    place(g, blue, red)
    d = expect_next_round(g)
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (2, 2)
    assert d["plague_reveals"] == 4
    for color in ("blue", "red"):
        assert (d[color]["reserve"], d[color]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}
    assert d["red"]["hand"] == [*BASE_CARDS, "P*"]


def test_r4_2_d15_recall_discards_the_recycled_copy_first() -> None:
    """R4.2/D15 (v1.1; P14 in v1 discarded the never-revealed copy): with both copies in hand,
    `recall:P` discards the `P*`: the never-revealed `P` stays; a discard is not a reveal (R7.1), so
    red's count stays 1."""
    s = pandemic_state(2, 1, [*BASE_CARDS, "7", "P", "P*"], set_aside=1)
    g = load(s)
    for province, card in zip(PROVINCES, TIES, strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "red", province="QIN")
    assert {"recall:7", "recall:P"} <= legal(g)
    g.apply("recall:P")
    d = g.to_dict()
    assert d["red"]["hand"] == [*BASE_CARDS, "7", "P"]
    assert (d["red"]["reserve"], d["red"]["set_aside"], d["red"]["plagues_revealed"]) == (21, 0, 1)


def test_r4_6_p14_keep_takes_the_never_revealed_copy_first() -> None:
    """R4.6/P14: red draws `P*` and `P` (one kind, so no decision): it keeps the never-revealed
    `P`; the `P*` goes to the bottom, under the `8`."""
    s = make_state(
        "standard",
        red={"plagues_revealed": 1, "used": ["recycle_plague"], "hand": [*BASE_CARDS, "7"], "deck": ["P*", "P", "8"]},
    )
    g = load(s)
    place(g, TIES, TIES)
    d = expect_next_round(g)
    assert d["red"]["hand"] == [*BASE_CARDS, "P"]
    assert d["red"]["deck"] == ["8", "P*"]


# --- R7.5 / D7: light_infantry at marker 0 is removed with no effect --------------------


def test_d7_r7_light_infantry_at_zero_next_event_applies_at_once() -> None:
    """D7/R7: both reveal `1` at WU with the marker at 0: light_infantry is removed with no
    effect (blue keeps WU 3); pandemic is turned up, all four copies were revealed already, so
    it applies at once: blue 18 -> 17, red 21 -> 20, 1 set aside each; hero is turned up."""
    s = make_state(
        events=["light_infantry", "pandemic", "hero"],
        blue={"armies": [0, 0, 0, 0, 3], "plagues_revealed": 2},
        red={"plagues_revealed": 2},
    )
    d = expect_next_round(single_battle(s, "1", "1"))
    assert d["blue"]["armies"] == [0, 0, 0, 0, 3]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (17, 1)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_d7_r6_3_r6_4_light_infantry_last_card_at_zero_ends_the_game() -> None:
    """D7/R6.3/R6.4: the last event, light_infantry, is met at QIN with the marker at 0: it is
    applied (with no effect), so the game ends at once; WU (red's 10 against 2) is not fought.
    Marker 0: reserves 21 against 20 (red holds CHU 1): blue wins."""
    blue = ["1", "3", "4", "5", "2"]
    red = ["1", "3", "4", "5", "10"]
    s = make_state(events=["light_infantry"], red={"armies": [0, 1, 0, 0, 0]})
    g = load(with_hands(s, blue, red))
    place(g, blue, red)
    assert g.is_terminal
    assert g.winner == "blue"
    d = g.to_dict()
    assert d["score"] == 0
    assert d["red"]["armies"] == [0, 1, 0, 0, 0]
    assert (d["blue"]["reserve"], d["red"]["reserve"]) == (21, 20)


# --- D9: counter_plague counters one Plague ---------------------------------------------


def test_d9_counter_plague_not_offered_against_two_plagues() -> None:
    """D9: both sides reveal a Plague: countering one leaves the other acting, so no decision;
    the Plagues halve blue's WU 4 -> 2 and red keeps `counter_plague`."""
    s = make_state("standard", blue={"armies": [0, 0, 0, 0, 4]}, red={"held": ["counter_plague"]})
    d = expect_next_round(single_battle(s, "P", "P"))
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]
    assert d["red"]["warlords"]["held"] == ["counter_plague"]


# --- R4.3: the privilege is counted after the window before battles ---------------------


@pytest.mark.parametrize(("purge", "holder"), [("use", "blue"), ("pass", "red")])
def test_r4_3_purge_in_the_window_changes_the_holder(purge: str, holder: str) -> None:
    """R4.3/R8: round 2, blue 3 on the board against red 2, blue the last holder. Red passing:
    red has fewer and holds it. Red purging blue's QIN (its only target): 2 against 2, a tie,
    so blue, the last holder, keeps it."""
    s = make_state(
        "standard",
        round_=2,
        privilege="blue",
        blue={"armies": [3, 0, 0, 0, 0]},
        red={"held": ["purge"], "armies": [0, 2, 0, 0, 0]},
    )
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "red", purge, warlord="purge")
    expect(g, "reveal", holder)
    reveal(g, holder, PROVINCES)
    if purge == "pass":
        answer(g, "window", "red", "pass", warlord="purge")
    d = expect_next_round(g, 3)
    assert d["privilege"] == holder
    assert d["blue"]["armies"] == ([2, 0, 0, 0, 0] if purge == "use" else [3, 0, 0, 0, 0])


def test_r4_3_round_one_board_order_after_the_window() -> None:
    """R4.3: round 1 reveals in board order and nobody gains the privilege, even when a
    `reinforce` in the window changes the armies (blue 2 -> 3 against red 3)."""
    s = make_state("standard", blue={"held": ["reinforce"], "armies": [2, 0, 0, 0, 0]}, red={"armies": [0, 3, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "blue", "use", warlord="reinforce")  # QIN, the only target
    d = expect_next_round(g)
    assert d["privilege"] is None
    assert d["blue"]["armies"] == [3, 0, 0, 0, 0]


# --- R4.2 / D2: recall at army-source decisions, and before the tie-break ---------------


def test_r4_2_d2_r5_6_recall_at_a_cost_decision_gives_reserve() -> None:
    """R4.2/D2/R5.6: blue's `+2` (7 against 5) wins WU by 2: its reserve 2 goes to WU (2 -> 4).
    The cost finds the reserve empty: QIN, WU or `recall:9`. Recalling (set aside 2 -> 1,
    reserve 0 -> 1) asks again, now with `reserve`: the army goes back (set aside 1 -> 2)."""
    s = make_state("standard", blue={"reserve": 2, "set_aside": 2, "armies": [15, 0, 0, 0, 2]})
    g = single_battle(s, "+2", "5", blue_extra=["9"])
    choose(g, "source", "blue", provinces("QIN", "WU") | {"recall:9"}, "recall:9")
    choose(g, "source", "blue", {"reserve"} | provinces("QIN", "WU"), "reserve")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [15, 0, 0, 0, 4]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 2)
    assert "9" not in d["blue"]["hand"]


def test_r4_2_d2_r5_4_recall_at_a_shortfall() -> None:
    """R4.2/D2/R5.4: red wins WU by 4 (9 against 5) with an empty reserve. Each recall puts an
    army in the reserve, which goes first, with no further question; with nothing more to
    recall the last two come from CHU and HAN-QI (WU's neighbours): CHU 2 -> 1, HAN-QI 2 -> 1."""
    s = make_state("standard", red={"reserve": 0, "set_aside": 2, "armies": [15, 2, 0, 2, 0]})
    g = single_battle(s, "5", "9", red_extra=["10", "+1"])
    choose(g, "shortfall", "red", provinces("CHU", "HAN-QI") | {"recall:10", "recall:+1"}, "recall:10")
    expect(g, "shortfall", "red")  # the second army
    assert legal(g) == provinces("CHU", "HAN-QI") | {"recall:+1"}
    g.apply("recall:+1")
    choose(g, "shortfall", "red", provinces("CHU", "HAN-QI"), "province:CHU")
    answer(g, "shortfall", "red", "province:HAN-QI")
    d = expect_next_round(g)
    assert d["red"]["armies"] == [15, 1, 0, 1, 4]
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (0, 0)


def test_r4_2_d2_r5_5_recall_at_a_six_mark() -> None:
    """R4.2/D2/R5.5: red's `6` marks QIN with an empty reserve: CHU, HAN-QI or `recall:9`; the
    recalled army goes to the reserve and the mark takes it from there (set aside 1 -> 0)."""
    s = make_state("standard", red={"reserve": 0, "set_aside": 1, "armies": [0, 10, 0, 10, 0]})
    g = single_battle(s, "6", "6", at=0, red_extra=["9"])
    choose(g, "source", "red", provinces("CHU", "HAN-QI") | {"recall:9"}, "recall:9")
    d = expect_next_round(g)
    assert d["red"]["armies"] == [0, 10, 0, 10, 0]
    assert (d["red"]["reserve"], d["red"]["set_aside"], d["red"]["marked_armies"]) == (0, 0, 1)
    assert d["red"]["six_marks"] == [1, 0, 0, 0, 0]


def test_r4_2_d2_r7_1_recall_at_a_pandemic_payment() -> None:
    """R4.2/D2/R7.1: red's Plague is the 4th copy; blue's reserve is empty: QIN or `recall:+1`;
    the recalled army is the one set aside (blue's set aside 1 -> 0 -> 1), red pays from its
    reserve (21 -> 20)."""
    s = make_state(
        "standard",
        events=["pandemic", "hero"],
        blue={"reserve": 0, "set_aside": 1, "armies": [20, 0, 0, 0, 0], "plagues_revealed": 2},
        red={"plagues_revealed": 1},
    )
    g = single_battle(s, "3", "P", blue_extra=["+1"])
    choose(g, "source", "blue", {"province:QIN", "recall:+1"}, "recall:+1")
    d = expect_next_round(g)
    assert d["blue"]["armies"] == [20, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 1)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


@pytest.mark.parametrize(("score", "winner", "recalled"), [(0, "blue", 2), (1, "blue", 0), (-1, "red", 0)])
def test_r4_2_d2_r6_4_p15_automatic_recall_before_the_tie_break(score: int, winner: str, recalled: int) -> None:
    """R4.2/D2/R6.4/P15: round 9, nobody on the board, so the marker ends where it starts.
    At 0, blue (reserve 19, 2 set aside, `9`, `+1`, `P` in hand after placing) recalls 2 at
    once, discarding `9` and `+1` (canonical order) and keeping `P`: 21 against red's 20
    (red has no card to recall), blue wins; without the recall red's 20 would beat 19.
    Away from 0 the marker decides and nothing is recalled."""
    s = make_state(
        "standard",
        round_=9,
        score=score,
        blue={"reserve": 19, "set_aside": 2, "hand": [*BASE_CARDS, "7", "9", "+1", "P"]},
        red={"reserve": 20, "set_aside": 1, "hand": [*BASE_CARDS, "7"]},
    )
    g = load(s)
    place(g, TIES, TIES)
    assert g.is_terminal
    assert g.winner == winner
    d = g.to_dict()
    assert d["score"] == score
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (19 + recalled, 2 - recalled)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert "P" in d["blue"]["hand"]
    assert ("9" in d["blue"]["hand"], "+1" in d["blue"]["hand"]) == (not recalled, not recalled)


# --- R8 purge / D13: a blue army only ---------------------------------------------------


def test_d13_purge_not_offered_with_only_red_armies() -> None:
    """D13/P2: `purge` removes a blue army only: with red's CHU 2 alone on the board it has no
    target and is not offered, before or after the battles."""
    s = make_state("standard", red={"held": ["purge"], "armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    d = expect_next_round(g)
    assert d["red"]["warlords"]["held"] == ["purge"]
    assert d["red"]["armies"] == [0, 2, 0, 0, 0]


# --- D8: no recycle into an empty deck --------------------------------------------------


def test_d8_recycle_minus_one_not_offered_with_an_empty_deck() -> None:
    """D8: blue's `-1` (6 against 7: red wins WU by 1) with an empty deck: no decision; the
    `-1` leaves the game and blue keeps `recycle_minus_one`."""
    s = make_state("standard", blue={"held": ["recycle_minus_one"]})
    d = expect_next_round(single_battle(s, "-1", "7"))
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["warlords"]["held"] == ["recycle_minus_one"]
    assert d["blue"]["hand"] == list(BASE_CARDS)
    assert d["blue"]["deck"] == []
