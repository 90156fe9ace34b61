"""A round (R4) and the end of the game (R6): placement, recall, reveal order,
scoring, draw, and the result."""

from __future__ import annotations

import pytest
from suntzu_env import Game

from helpers import CARD_ORDER
from helpers import TIES
from helpers import answer
from helpers import choose
from helpers import expect
from helpers import expect_next_round
from helpers import legal
from helpers import load
from helpers import make_state
from helpers import place
from helpers import provinces
from helpers import reveal

# --- R4.1 placement ---------------------------------------------------------------------


def test_r4_1_placement_order_and_answers() -> None:
    """R4.1/R10: blue places QIN..WU, then red QIN..WU; one card per province from hand."""
    g = load(make_state())
    choose(g, "place", "blue", {f"place:{c}" for c in CARD_ORDER[:10]}, "place:2", province="QIN")
    expect(g, "place", "blue", province="CHU")
    assert "place:2" not in legal(g)  # the only `2` is on QIN now
    assert len(legal(g)) == 9
    for province, card in zip(["CHU", "JIN-YAN", "HAN-QI", "WU"], TIES[1:], strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "red", province="QIN")
    assert legal(g) == {f"place:{c}" for c in CARD_ORDER[:10]}


def test_r4_1_no_six_in_a_province_already_marked() -> None:
    """R4.1: a `6` may not go where the side already has a six-mark."""
    g = load(make_state(blue={"six_marks": [0, 1, 0, 0, 0], "marked_armies": 1}))
    assert "place:6" in legal(g)
    answer(g, "place", "blue", "place:2", province="QIN")
    expect(g, "place", "blue", province="CHU")
    assert "place:6" not in legal(g)
    g.apply("place:3")
    expect(g, "place", "blue", province="JIN-YAN")
    assert "place:6" in legal(g)


# --- R4.2 recall, D2 --------------------------------------------------------------------


def test_r4_2_recall_during_own_placement() -> None:
    """R4.2: a non-base card from hand buys back one set-aside army, any number of times."""
    s = make_state(
        "standard",
        blue={"set_aside": 3, "hand": ["1", "2", "3", "4", "5", "6", "7", "9", "+1", "P"]},
    )
    g = load(s)
    expect(g, "place", "blue", province="QIN")
    non_base = ["7", "9", "+1", "P"]
    assert legal(g) == {f"place:{c}" for c in ["1", "2", "3", "4", "5", "6", *non_base]} | {
        f"recall:{c}" for c in non_base
    }
    g.apply("recall:9")
    expect(g, "place", "blue", province="QIN")  # still the same decision
    d = g.to_dict()["blue"]
    assert (d["reserve"], d["set_aside"]) == (19, 2)
    assert "9" not in d["hand"]
    assert "place:9" not in legal(g) and "recall:9" not in legal(g)
    g.apply("place:2")
    expect(g, "place", "blue", province="CHU")
    g.apply("recall:7")
    g.apply("recall:+1")
    d = g.to_dict()["blue"]
    assert (d["reserve"], d["set_aside"]) == (21, 0)
    # With nothing set aside, no recall is offered.
    assert not any(a.startswith("recall:") for a in legal(g))


def test_r4_2_d2_recall_not_at_the_draw() -> None:
    """R4.2/D2: recall is offered at the side's own placements (and army-source decisions,
    none here), not at its draw.

    Blue recalls twice (1 army stays set aside), plays its `+1`, and at the draw is
    asked only which card to keep. The recalled cards have left the game.
    """
    s = make_state(
        "standard",
        blue={
            "set_aside": 3,
            "hand": ["1", "2", "3", "4", "5", "6", "7", "9", "+1", "P"],
            "deck": ["8", "10"],
        },
        red={"set_aside": 2, "hand": ["1", "2", "3", "4", "5", "6", "+1", "-1"]},
    )
    g = load(s)
    answer(g, "place", "blue", "recall:9", province="QIN")
    answer(g, "place", "blue", "place:2", province="QIN")
    answer(g, "place", "blue", "recall:7", province="CHU")
    for province, card in [("CHU", "3"), ("JIN-YAN", "4"), ("HAN-QI", "5")]:
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "blue", province="WU")
    assert {"recall:+1", "recall:P"} <= legal(g)
    g.apply("place:+1")
    # Red's turn: red's own recalls are offered, none of blue's.
    expect(g, "place", "red", province="QIN")
    assert {a for a in legal(g) if a.startswith("recall:")} == {"recall:+1", "recall:-1"}
    place_rest = ["2", "3", "4", "5", "+1"]
    for province, card in zip(["QIN", "CHU", "JIN-YAN", "HAN-QI", "WU"], place_rest, strict=True):
        answer(g, "place", "red", f"place:{card}", province=province)
    # Draw: blue still has an army set aside and a `P` in hand, yet only keeps are offered.
    choose(g, "keep", "blue", {"keep:8", "keep:10"}, "keep:10")
    d = expect_next_round(g, 2)
    assert d["blue"]["hand"] == ["1", "2", "3", "4", "5", "6", "10", "P"]
    assert d["blue"]["deck"] == ["8"]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (20, 1)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (19, 2)


# --- R4.3 reveal order, D3, R4.4 --------------------------------------------------------

# Blue (reserve 2, WU 19) wins QIN by 2 and JIN-YAN by 2; red holds CHU 10, HAN-QI 11.
# QIN and JIN-YAN are neighbours, so the second win takes its armies from the first.
ORDER_BLUE = ["4", "7", "5", "8", "9"]
ORDER_RED = ["2", "7", "3", "8", "9"]


def order_state(round_: int) -> dict:
    """The order-sensitive position shared by the R4.3/R4.4 tests."""
    return make_state(
        round_=round_,
        blue={"reserve": 2, "armies": [0, 0, 0, 0, 19]},
        red={"reserve": 0, "armies": [0, 10, 0, 11, 0]},
    )


def test_r4_3_round_one_board_order_no_privilege() -> None:
    """R4.3/R4.4: round 1 reveals QIN first though blue has fewer armies; nobody
    gains the privilege.

    QIN first: 2 from reserve to QIN; JIN-YAN then takes QIN's 2 (its only blue neighbour).
    """
    g = load(order_state(1))
    place(g, ORDER_BLUE, ORDER_RED)
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 2, 0, 19]
    assert d["blue"]["reserve"] == 0
    assert d["privilege"] is None


def test_r4_3_r4_4_fewer_armies_chooses_the_order() -> None:
    """R4.3/R4.4: from round 2 blue (19 on the board against 21) picks each province.

    JIN-YAN first: 2 from reserve to JIN-YAN; QIN then takes JIN-YAN's 2.
    """
    g = load(order_state(2))
    place(g, ORDER_BLUE, ORDER_RED)
    expect(g, "reveal", "blue")
    assert legal(g) == provinces("QIN", "CHU", "JIN-YAN", "HAN-QI", "WU")
    reveal(g, "blue", ["JIN-YAN", "QIN", "CHU", "HAN-QI", "WU"])
    d = expect_next_round(g, 3)
    assert d["blue"]["armies"] == [2, 0, 0, 0, 19]
    assert d["privilege"] == "blue"


def test_r4_3_six_mark_boxes_do_not_count() -> None:
    """R4.3: blue has 2 armies on the board and 3 in six-mark boxes, red 3: blue holds it."""
    s = make_state(
        round_=2,
        blue={"armies": [2, 0, 0, 0, 0], "six_marks": [0, 1, 1, 1, 0], "marked_armies": 3},
        red={"armies": [0, 3, 0, 0, 0]},
    )
    g = load(s)
    place(g, TIES, TIES)
    expect(g, "reveal", "blue")


@pytest.mark.parametrize("holder", ["blue", "red"])
def test_r4_3_tie_keeps_the_last_holder(holder: str) -> None:
    """R4.3: equal armies on the board: the last holder keeps the privilege."""
    s = make_state(round_=2, privilege=holder, blue={"armies": [2, 0, 0, 0, 0]}, red={"armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    expect(g, "reveal", holder)
    reveal(g, holder, ["QIN", "CHU", "JIN-YAN", "HAN-QI", "WU"])
    assert expect_next_round(g, 3)["privilege"] == holder


def test_r4_3_tie_with_no_holder_uses_board_order() -> None:
    """R4.3: equal armies and no holder yet: board order, no decision, still no holder."""
    s = make_state(round_=2, blue={"armies": [2, 0, 0, 0, 0]}, red={"armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    assert expect_next_round(g, 3)["privilege"] is None


def test_d3_r4_3_holder_sees_each_result_and_keeps_the_privilege() -> None:
    """D3/R4.3: after WU's battle blue sees its result; though blue now has more armies
    than red, blue still chooses the next province (the count is made once, before the
    battles)."""
    s = make_state(round_=2, blue={"armies": [1, 0, 0, 0, 0]}, red={"armies": [0, 3, 0, 0, 0]})
    g = load(s)
    place(g, ["2", "3", "4", "5", "10"], TIES)
    answer(g, "reveal", "blue", "province:WU")
    # WU is fought (10 against 7: blue adds 3) before the next choice is asked.
    assert g.to_dict()["blue"]["armies"] == [1, 0, 0, 0, 3]
    expect(g, "reveal", "blue")
    assert legal(g) == provinces("QIN", "CHU", "JIN-YAN", "HAN-QI")


def test_r4_3_privilege_counted_after_the_window() -> None:
    """R4.3: blue (2 against 3) would hold the privilege, but the count comes after the
    window: its `reinforce` makes 3 against 3, a tie, so red, the last holder, keeps it."""
    s = make_state(
        "standard",
        round_=2,
        privilege="red",
        blue={"armies": [2, 0, 0, 0, 0], "held": ["reinforce"]},
        red={"armies": [0, 3, 0, 0, 0]},
    )
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "blue", "use", warlord="reinforce")  # the only target is QIN
    assert g.to_dict()["blue"]["armies"] == [3, 0, 0, 0, 0]
    expect(g, "reveal", "red")
    reveal(g, "red", ["QIN", "CHU", "JIN-YAN", "HAN-QI", "WU"])
    assert expect_next_round(g, 3)["privilege"] == "red"


# --- R4.5 scoring, D4 -------------------------------------------------------------------


def test_r4_5_rulebook_scoring_example() -> None:
    """R4.5, the rulebook's example: after round 3 red scores 2+1=3, blue 3+2+1=6;
    the marker moves 3 toward blue."""
    values = [[3, 1, 5], [2, 3, 2], [1, 2, 4], [2, 5, 2], [1, 4, 3]]
    s = make_state(
        round_=3,
        values=values,
        blue={"armies": [1, 1, 2, 0, 0]},
        red={"armies": [0, 0, 0, 2, 2], "six_marks": [1, 0, 0, 0, 0], "marked_armies": 1},
    )
    g = load(s)
    place(g, TIES, TIES)
    d = expect_next_round(g, 4)
    assert d["score"] == 3


@pytest.mark.parametrize(("round_", "score"), [(2, 0), (5, 0), (6, 3 - 5)])
def test_r4_5_scoring_rounds_and_columns(round_: int, score: int) -> None:
    """R4.5: only rounds 3, 6, 9 score; round 6 uses each display's second value.

    Blue holds QIN (1,3,5), red JIN-YAN (2,5,2): round 6 gives 3 - 5.
    """
    values = [[1, 3, 5], [2, 3, 2], [2, 5, 2], [4, 1, 4], [3, 1, 5]]
    s = make_state(round_=round_, values=values, blue={"armies": [1, 0, 0, 0, 0]}, red={"armies": [0, 0, 1, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    assert expect_next_round(g, round_ + 1)["score"] == score


def finished(g: Game, winner: str) -> dict:
    """Assert the game is over with `winner`; return its record."""
    assert g.is_terminal
    assert g.decision is None
    assert g.current_player is None
    assert g.winner == winner
    d = g.to_dict()
    assert d["winner"] == winner
    return d


def test_r4_5_r6_2_round_nine_uses_third_value() -> None:
    """R4.5/R6.2: round 9 scores the third values (5 - 2 = +3 from -1): blue wins."""
    values = [[1, 3, 5], [2, 3, 2], [2, 5, 2], [4, 1, 4], [3, 1, 5]]
    s = make_state(round_=9, score=-1, values=values, blue={"armies": [1, 0, 0, 0, 0]}, red={"armies": [0, 0, 1, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    d = finished(g, "blue")
    assert d["score"] == 2
    assert g.returns() == {"blue": 1.0, "red": -1.0}


def test_r6_2_red_half_wins_after_round_nine() -> None:
    """R6.2: marker at +1, red scores 2 more than blue at round 9: -1, red wins, even
    with fewer armies in reserve."""
    values = [[1, 3, 5], [2, 3, 2], [2, 5, 2], [4, 1, 4], [3, 1, 5]]
    s = make_state(
        round_=9,
        score=1,
        values=values,
        blue={"armies": [0, 1, 0, 0, 0]},  # CHU: 2 at round 9
        red={"armies": [0, 0, 0, 5, 0]},  # HAN-QI: 4 at round 9
    )
    g = load(s)
    place(g, TIES, TIES)
    reveal(g, "blue", ["QIN", "CHU", "JIN-YAN", "HAN-QI", "WU"])  # blue has fewer armies
    d = finished(g, "red")
    assert d["score"] == -1
    assert g.returns() == {"blue": -1.0, "red": 1.0}


def test_r6_1_d4_blue_reaches_nine_after_round_three() -> None:
    """R6.1/D4: +6, then blue 4+3 against red 1+1: 11 clamps to 9 and blue wins at once."""
    values = [[4, 1, 4], [3, 1, 5], [1, 2, 4], [1, 3, 5], [1, 4, 3]]
    s = make_state(round_=3, score=6, values=values, blue={"armies": [1, 1, 0, 0, 0]}, red={"armies": [0, 0, 0, 1, 1]})
    g = load(s)
    place(g, TIES, TIES)
    d = finished(g, "blue")
    assert d["score"] == 9
    assert g.returns() == {"blue": 1.0, "red": -1.0}


def test_r6_1_d4_red_reaches_minus_nine_after_round_six() -> None:
    """R6.1/D4: -4, then blue 1+1 against red 3+4 (second values): -9, red wins."""
    values = [[4, 1, 4], [3, 1, 5], [1, 2, 4], [1, 3, 5], [1, 4, 3]]
    s = make_state(round_=6, score=-4, values=values, blue={"armies": [1, 1, 0, 0, 0]}, red={"armies": [0, 0, 0, 1, 1]})
    g = load(s)
    place(g, TIES, TIES)
    d = finished(g, "red")
    assert d["score"] == -9


def test_d4_clamp_at_minus_nine_after_round_nine() -> None:
    """D4: -8 and red outscores blue by 5 at round 9: the marker stops at -9."""
    values = [[4, 1, 4], [3, 1, 5], [1, 2, 4], [1, 3, 5], [1, 4, 3]]
    s = make_state(round_=9, score=-8, values=values, blue={"armies": [0, 0, 0, 0, 0]}, red={"armies": [0, 1, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    reveal(g, "blue", ["QIN", "CHU", "JIN-YAN", "HAN-QI", "WU"])
    assert finished(g, "red")["score"] == -9


def test_r6_1_eight_does_not_end_the_game() -> None:
    """R6.1: +6 and blue outscores red by 2 at round 3: +8, the game goes on."""
    values = [[4, 1, 4], [2, 3, 2], [1, 2, 4], [1, 3, 5], [1, 4, 3]]
    s = make_state(round_=3, score=6, values=values, blue={"armies": [1, 0, 0, 0, 0]}, red={"armies": [0, 1, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    d = expect_next_round(g, 4)
    assert d["score"] == 8
    assert d["winner"] is None
    assert not g.is_terminal


@pytest.mark.parametrize(("red_marks", "winner"), [(1, "blue"), (0, "draw")])
def test_r6_4_r6_5_marker_at_zero(red_marks: int, winner: str) -> None:
    """R6.4/R6.5: marker at 0 after round 9: more armies in reserve wins, else a draw."""
    values = [[1, 2, 4], [2, 3, 4], [1, 4, 3], [2, 3, 2], [3, 1, 5]]  # QIN and CHU: 4 at round 9
    s = make_state(
        round_=9,
        values=values,
        blue={"armies": [1, 0, 0, 0, 0]},
        red={
            "armies": [0, 1, 0, 0, 0],
            "six_marks": [0, 0, 0, 0, red_marks],
            "marked_armies": red_marks,
        },
    )
    g = load(s)
    place(g, TIES, TIES)
    d = finished(g, winner)
    assert d["score"] == 0
    assert d["blue"]["reserve"] == 20
    assert d["red"]["reserve"] == 20 - red_marks
    want = {"blue": 1.0, "red": -1.0} if winner == "blue" else {"blue": 0.0, "red": 0.0}
    assert g.returns() == want


def test_r6_5_no_reward_before_the_end() -> None:
    """R6.5: rewards come at the end only."""
    g = load(make_state(score=5))
    assert not g.is_terminal
    assert g.winner is None
    assert g.returns() == {"blue": 0.0, "red": 0.0}


# --- R4.6 draw --------------------------------------------------------------------------


def test_r4_6_draw_two_keep_one() -> None:
    """R4.6: base cards come back, others leave; draw 2, keep 1, the other to the bottom.
    Red draws two `+1`: one kind, so it keeps one with no decision."""
    s = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "10", "+1", "-1", "P"], "deck": ["7", "8", "9"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"], "deck": ["+1", "+1"]},
    )
    g = load(s)
    cards = ["2", "3", "4", "5", "10"]
    place(g, cards, cards)
    choose(g, "keep", "blue", {"keep:7", "keep:8"}, "keep:8")
    d = expect_next_round(g, 2)
    assert d["blue"]["hand"] == ["1", "2", "3", "4", "5", "6", "8", "+1", "-1", "P"]
    assert d["blue"]["deck"] == ["9", "7"]
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "+1"]
    assert d["red"]["deck"] == ["+1"]


def test_r4_6_r10_played_one_draws_three_keeps_two_blue_first() -> None:
    """R4.6/R10: both played their `1`: each draws 3 and keeps 2, blue first, then red."""
    s = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "+1", "-1", "P"], "deck": ["7", "8", "9", "10"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "7", "8", "9"], "deck": ["+1", "+1", "-1"]},
    )
    g = load(s)
    cards = ["1", "2", "3", "4", "5"]
    place(g, cards, cards)
    choose(g, "keep", "blue", {"keep:7", "keep:8", "keep:9"}, "keep:9")
    choose(g, "keep", "blue", {"keep:7", "keep:8"}, "keep:7")
    expect(g, "keep", "red")
    assert legal(g) == {"keep:+1", "keep:-1"}
    g.apply("keep:-1")  # then only `+1` is left to choose from: kept with no decision
    d = expect_next_round(g, 2)
    assert d["blue"]["hand"] == ["1", "2", "3", "4", "5", "6", "7", "9", "+1", "-1", "P"]
    assert d["blue"]["deck"] == ["10", "8"]
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "+1", "-1"]
    assert d["red"]["deck"] == ["+1"]


def test_r4_6_short_deck_keeps_all_without_a_decision() -> None:
    """R4.6: fewer cards than the draw: draw them all, keep up to the allowance, no decision.
    Blue played its `1` (it loses QIN to red's `2`): it draws its 2 cards and keeps both; red
    draws its 1 card and keeps it."""
    s = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "9", "10"], "deck": ["7", "8"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "7", "8", "10", "P"], "deck": ["9"]},
    )
    g = load(s)
    place(g, ["1", "3", "4", "5", "10"], ["2", "3", "4", "5", "10"])
    d = expect_next_round(g, 2)
    assert d["red"]["armies"] == [1, 0, 0, 0, 0]
    assert d["blue"]["hand"] == ["1", "2", "3", "4", "5", "6", "7", "8", "9"]
    assert d["blue"]["deck"] == []
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "P"]
    assert d["red"]["deck"] == []
