"""Warlords (R8) and decisions D8, D9, D13, P1-P4, P11 (standard variant, round 1 unless said)."""

from __future__ import annotations

from helpers import PROVINCES
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
from helpers import single_battle
from helpers import sorted_warlords

# --- double_six, P4 ---------------------------------------------------------------------


def test_r8_p4_double_six_second_mark() -> None:
    """R8/P4: red, holding `double_six`, places a `6` where it has one mark; the second
    mark takes a second army and spends the card."""
    s = make_state("standard", red={"held": ["double_six"], "six_marks": [1, 0, 0, 0, 0], "marked_armies": 1})
    g = load(s)
    for province, card in zip(PROVINCES, TIES, strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "red", province="QIN")
    assert "place:6" in legal(g)
    for province, card in zip(PROVINCES, ["6", "3", "4", "5", "7"], strict=True):
        answer(g, "place", "red", f"place:{card}", province=province)
    d = expect_next_round(g, 2)
    assert d["red"]["six_marks"] == [2, 0, 0, 0, 0]
    assert d["red"]["marked_armies"] == 2
    assert d["red"]["armies"] == [4, 0, 0, 0, 0]  # 6 against 2
    assert d["red"]["reserve"] == 21 - 2 - 4
    assert sorted_warlords(d, "red") == {
        "held": [],
        "used": ["double_six"],
        "unchosen": ["counter_plague", "devastating_plague", "purge", "recycle_plague"],
    }


def red_qin_legal(red: dict) -> set[str]:
    """Red's legal answers at its QIN placement, blue having placed TIES."""
    g = load(make_state("standard", red=red))
    for province, card in zip(PROVINCES, TIES, strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "red", province="QIN")
    return legal(g)


def test_r4_1_p4_no_second_six_without_double_six() -> None:
    """R4.1/P4: without `double_six` a marked province takes no `6`."""
    assert "place:6" not in red_qin_legal({"six_marks": [1, 0, 0, 0, 0], "marked_armies": 1})


def test_p4_no_third_six_even_with_double_six() -> None:
    """P4: two marks already: no `6` there, even holding `double_six`."""
    red = {"held": ["double_six"], "six_marks": [2, 0, 0, 0, 0], "marked_armies": 2}
    assert "place:6" not in red_qin_legal(red)


def test_p4_double_six_not_spent_on_an_unmarked_province() -> None:
    """P4: a `6` revealed where red had no mark does not spend `double_six`."""
    s = make_state("standard", red={"held": ["double_six"], "six_marks": [1, 0, 0, 0, 0], "marked_armies": 1})
    d = expect_next_round(single_battle(s, "6", "6", at=1), 2)
    assert d["red"]["six_marks"] == [1, 1, 0, 0, 0]
    assert d["red"]["warlords"]["held"] == ["double_six"]


# --- window warlords: purge, march, reinforce; P1, P2, P3 -------------------------------


def test_r8_d13_purge_before_battles() -> None:
    """R8/D13: `purge` removes 1 blue army from a province (blue's QIN or WU, not red's CHU),
    back to blue's reserve (17 -> 18); used once."""
    s = make_state("standard", blue={"armies": [3, 0, 0, 0, 1]}, red={"held": ["purge"], "armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "red", "use", warlord="purge")
    choose(g, "target", "red", provinces("QIN", "WU"), "province:QIN")
    d = expect_next_round(g, 2)  # no second offer after the battles
    assert d["blue"]["armies"] == [2, 0, 0, 0, 1]
    assert d["blue"]["reserve"] == 18
    assert d["red"]["armies"] == [0, 2, 0, 0, 0]
    assert d["red"]["warlords"]["held"] == []
    assert d["red"]["warlords"]["used"] == ["purge"]


def test_r8_purge_passed_is_offered_again_after_battles() -> None:
    """R8/D13: a window warlord passed before the battles is offered after them: blue's WU
    1 -> 0, blue's reserve 17 -> 18."""
    s = make_state("standard", blue={"armies": [3, 0, 0, 0, 1]}, red={"held": ["purge"], "armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "red", "pass", warlord="purge")
    answer(g, "window", "red", "use", warlord="purge")
    answer(g, "target", "red", "province:WU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [3, 0, 0, 0, 0]
    assert d["blue"]["reserve"] == 18
    assert d["red"]["armies"] == [0, 2, 0, 0, 0]


def test_r8_p2_purge_not_offered_in_round_seven() -> None:
    """R8/P2: window warlords act in rounds 1-6 only: round 7 goes straight to the reveals."""
    s = make_state(
        "standard", round_=7, blue={"armies": [3, 0, 0, 0, 0]}, red={"held": ["purge"], "armies": [0, 2, 0, 0, 0]}
    )
    g = load(s)
    place(g, TIES, TIES)
    expect(g, "reveal", "red")  # red has fewer armies


def test_p2_purge_not_offered_without_a_target() -> None:
    """P2/D13: with no army on the board `purge` has no target and is not offered."""
    g = load(make_state("standard", red={"held": ["purge"]}))
    place(g, TIES, TIES)
    d = expect_next_round(g, 2)
    assert d["red"]["warlords"]["held"] == ["purge"]


def test_r8_p3_d1_march_source_then_destination() -> None:
    """R8/P3/D1: `march` names a source, then an adjacent destination, empty or blue's.

    Blue holds QIN 3 and HAN-QI 1, red CHU 2: from HAN-QI the destinations are JIN-YAN and
    WU (CHU is red's; QIN does not border HAN-QI).
    """
    s = make_state("standard", blue={"held": ["march"], "armies": [3, 0, 0, 1, 0]}, red={"armies": [0, 2, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "blue", "use", warlord="march")
    choose(g, "target", "blue", provinces("QIN", "HAN-QI"), "province:HAN-QI")
    choose(g, "target", "blue", provinces("JIN-YAN", "WU"), "province:WU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [3, 0, 0, 0, 1]
    assert d["blue"]["reserve"] == 17
    assert d["blue"]["warlords"]["used"] == ["march"]


def test_p2_march_not_offered_when_hemmed_in() -> None:
    """P2: blue's only army (QIN) borders only red provinces: no `march` decision."""
    s = make_state("standard", blue={"held": ["march"], "armies": [1, 0, 0, 0, 0]}, red={"armies": [0, 1, 1, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    assert expect_next_round(g, 2)["blue"]["warlords"]["held"] == ["march"]


def test_r8_march_after_battles_before_scoring() -> None:
    """R8: the after-battles window precedes scoring: at round 3 blue marches QIN -> CHU and
    scores both (3 + 2) against red's WU (1): the marker moves 4."""
    values = [[3, 2, 3], [2, 3, 2], [1, 2, 4], [1, 3, 5], [1, 4, 3]]
    s = make_state(
        "standard",
        round_=3,
        values=values,
        blue={"held": ["march"], "armies": [2, 0, 0, 0, 0]},
        red={"armies": [0, 0, 0, 0, 2]},
    )
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "blue", "pass", warlord="march")
    answer(g, "window", "blue", "use", warlord="march")
    expect(g, "target", "blue")  # the source is QIN with no decision
    assert legal(g) == provinces("CHU", "JIN-YAN")
    g.apply("province:CHU")
    d = expect_next_round(g, 4)
    assert d["blue"]["armies"] == [1, 1, 0, 0, 0]
    assert d["score"] == 4


def test_r8_reinforce() -> None:
    """R8: `reinforce` moves 1 army from blue's reserve to a province blue holds."""
    s = make_state("standard", blue={"held": ["reinforce"], "armies": [2, 1, 0, 0, 0]})
    g = load(s)
    place(g, TIES, TIES)
    answer(g, "window", "blue", "use", warlord="reinforce")
    choose(g, "target", "blue", provinces("QIN", "CHU"), "province:CHU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [2, 2, 0, 0, 0]
    assert d["blue"]["reserve"] == 17


def test_p2_reinforce_needs_a_reserve_and_a_province() -> None:
    """P2/D16: `reinforce` is not offered with an empty reserve and nothing to recall (no army set
    aside here), nor with no blue province."""
    for blue in ({"armies": [21, 0, 0, 0, 0]}, {"armies": [0, 0, 0, 0, 0]}):
        g = load(make_state("standard", blue={"held": ["reinforce"], **blue}))
        place(g, TIES, TIES)
        assert expect_next_round(g, 2)["blue"]["warlords"]["held"] == ["reinforce"]


def test_p1_one_warlord_at_a_time_blue_first() -> None:
    """P1: blue holding `march` and `reinforce` is asked about each in R0's order, then red
    about `purge`; the same again after the battles."""
    s = make_state(
        "standard",
        blue={"held": ["march", "reinforce"], "armies": [2, 0, 0, 0, 0]},
        red={"held": ["purge"], "armies": [0, 0, 0, 0, 2]},
    )
    g = load(s)
    place(g, TIES, TIES)
    for _ in range(2):  # before the battles, then after them
        answer(g, "window", "blue", "pass", warlord="march")
        answer(g, "window", "blue", "pass", warlord="reinforce")
        answer(g, "window", "red", "pass", warlord="purge")
    d = expect_next_round(g, 2)
    assert sorted(d["blue"]["warlords"]["held"]) == ["march", "reinforce"]
    assert d["red"]["warlords"]["held"] == ["purge"]


# --- reactive warlords: feint (D8), devastating_plague, counter_plague, recycle (P11) ----


def feint_state() -> dict:
    """Blue holds `feint`."""
    return make_state("standard", blue={"held": ["feint"]})


def test_r8_d8_feint_counts_blue_card_as_six() -> None:
    """R8/D8: blue's `10` counts as 6 against red's `1`: blue wins by 5, not 9."""
    g = single_battle(feint_state(), "10", "1")
    answer(g, "reactive", "blue", "use", warlord="feint", province="WU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 5]
    assert d["blue"]["warlords"]["used"] == ["feint"]


def test_r8_feint_passed() -> None:
    """R8: passing keeps the `10` at 10 (wins by 9) and keeps `feint`."""
    g = single_battle(feint_state(), "10", "1")
    answer(g, "reactive", "blue", "pass", warlord="feint", province="WU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 9]
    assert d["blue"]["warlords"]["held"] == ["feint"]


def test_r5_5_r8_feint_six_does_not_mark() -> None:
    """R5.5/R8: a `7` counted as 6 ties red's `6`; red's 6 marks, blue's 7 does not."""
    g = single_battle(feint_state(), "7", "6")
    answer(g, "reactive", "blue", "use", warlord="feint")
    d = expect_next_round(g, 2)
    assert d["blue"]["six_marks"] == [0, 0, 0, 0, 0]
    assert d["blue"]["marked_armies"] == 0
    assert d["red"]["six_marks"] == [0, 0, 0, 0, 1]
    assert d["blue"]["armies"] == [0, 0, 0, 0, 0]
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]


def test_p2_feint_not_offered_against_a_relative_card() -> None:
    """P2: against `+1` the outcome is the same either way: no decision (red wins by 1)."""
    d = expect_next_round(single_battle(feint_state(), "10", "+1"), 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["warlords"]["held"] == ["feint"]


def test_d8_feint_only_on_blue_card() -> None:
    """D8: red's `9` cannot be feinted: blue's `1` loses by 8 with no decision."""
    d = expect_next_round(single_battle(feint_state(), "1", "9"), 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 8]


def test_p2_feint_offered_against_a_plague() -> None:
    """P2: `feint` is offered when blue's 7..10 meets a Plague."""
    g = single_battle(feint_state(), "9", "P")
    answer(g, "reactive", "blue", "pass", warlord="feint")
    expect_next_round(g, 2)


def devastating_state(blue_wu: int) -> dict:
    """Red holds `devastating_plague`; blue holds WU with `blue_wu` armies."""
    return make_state("standard", blue={"armies": [0, 0, 0, 0, blue_wu]}, red={"held": ["devastating_plague"]})


def test_r8_devastating_plague() -> None:
    """R8: the Plague removes n - 1 = 4 of blue's 5 armies instead of 2."""
    g = single_battle(devastating_state(5), "P", "3")
    answer(g, "reactive", "red", "use", warlord="devastating_plague")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["reserve"] == 20


def test_r8_devastating_plague_passed() -> None:
    """R8: passing leaves the Plague at floor(5/2) = 2."""
    g = single_battle(devastating_state(5), "P", "3")
    answer(g, "reactive", "red", "pass", warlord="devastating_plague")
    assert expect_next_round(g, 2)["blue"]["armies"] == [0, 0, 0, 0, 3]


def test_p2_devastating_plague_needs_three_armies() -> None:
    """P2: with 2 armies n - 1 equals floor(n/2): not offered."""
    d = expect_next_round(single_battle(devastating_state(2), "P", "3"), 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert d["red"]["warlords"]["held"] == ["devastating_plague"]


def counter_state() -> dict:
    """Red holds `counter_plague`."""
    return make_state("standard", red={"held": ["counter_plague"]})


def test_r8_counter_plague() -> None:
    """R8: blue's Plague counts as 0 against red's `5`: red wins by 5."""
    g = single_battle(counter_state(), "P", "5")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    d = expect_next_round(g, 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 5]
    assert d["red"]["reserve"] == 16


def test_r8_p2_d9_counter_plague_offered_on_red_own_plague() -> None:
    """R8/P2/D9: offered when exactly one Plague is revealed, red's own included: 0 against 3."""
    g = single_battle(counter_state(), "3", "P")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    assert expect_next_round(g, 2)["blue"]["armies"] == [0, 0, 0, 0, 3]


def test_r8_p11_recycle_plague() -> None:
    """R8/P11: after red's Plague, `recycle_plague` puts it under the deck and the top
    card (`8`) leaves the game: red then draws `9` and `10`, not `8` nor the Plague, which
    stays at the bottom written `P*` (a copy already revealed, R7.1/R11)."""
    s = make_state("standard", red={"held": ["recycle_plague"], "deck": ["8", "9", "10"]})
    g = single_battle(s, "3", "P")
    answer(g, "reactive", "red", "use", warlord="recycle_plague")
    choose(g, "keep", "red", {"keep:9", "keep:10"}, "keep:10")
    d = expect_next_round(g, 2)
    assert d["red"]["deck"] == ["P*", "9"]
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "10"]
    assert d["red"]["plagues_revealed"] == 1
    assert sorted_warlords(d, "red")["used"] == ["recycle_plague"]


def test_d6_recycled_plague_does_not_count_again() -> None:
    """D6/R7.1/R8: a recycled Plague, drawn back (`P*`) and revealed again, is a Plague reveal
    (`plague_reveals` 1 -> 2) but not a new copy (red's copies stay at 1)."""
    s = make_state("standard", red={"held": ["recycle_plague"], "deck": ["8", "9"]})
    g = single_battle(s, "3", "P")
    answer(g, "reactive", "red", "use", warlord="recycle_plague")
    choose(g, "keep", "red", {"keep:9", "keep:P"}, "keep:P")
    d = expect_next_round(g, 2)
    assert d["red"]["deck"] == ["9"]
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "P*"]
    assert d["plague_reveals"] == 1
    assert d["red"]["plagues_revealed"] == 1
    place(g, ["2", "3", "4", "5", "1"], ["2", "3", "4", "5", "P"])
    d = expect_next_round(g, 3)  # recycle_plague is spent: no decision this time
    assert d["plague_reveals"] == 2
    assert d["red"]["plagues_revealed"] == 1
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6", "9"]
    assert d["red"]["deck"] == []


def test_d8_recycle_not_offered_into_an_empty_deck() -> None:
    """D8: with an empty deck the recycle would discard its own card: it is not offered; the
    Plague leaves the game and red keeps `recycle_plague`."""
    s = make_state("standard", red={"held": ["recycle_plague"]})
    d = expect_next_round(single_battle(s, "3", "P"), 2)
    assert d["red"]["hand"] == ["1", "2", "3", "4", "5", "6"]
    assert d["red"]["deck"] == []
    assert d["red"]["warlords"]["held"] == ["recycle_plague"]
    assert d["red"]["plagues_revealed"] == 1


def test_r8_recycle_minus_one() -> None:
    """R8: as `recycle_plague`, for blue's `-1` (6 against 7: red wins by 1)."""
    s = make_state("standard", blue={"held": ["recycle_minus_one"], "deck": ["9", "10"]})
    g = single_battle(s, "-1", "7")
    answer(g, "reactive", "blue", "use", warlord="recycle_minus_one")
    choose(g, "keep", "blue", {"keep:10", "keep:-1"}, "keep:10")
    d = expect_next_round(g, 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]
    assert d["blue"]["hand"] == ["1", "2", "3", "4", "5", "6", "10"]
    assert d["blue"]["deck"] == ["-1"]


def test_p2_recycle_offered_after_every_battle_with_its_card() -> None:
    """P2/D8: `recycle_minus_one` is offered even where the `-1` tied (against red's `-1`);
    blue's deck is not empty (D8)."""
    s = make_state("standard", blue={"held": ["recycle_minus_one"], "deck": ["9"]})
    g = single_battle(s, "-1", "-1")
    answer(g, "reactive", "blue", "pass", warlord="recycle_minus_one")
    expect_next_round(g, 2)


def test_p1_red_reactive_warlords_counter_before_devastating() -> None:
    """P1: red holding `devastating_plague` and `counter_plague` (after war_chariot), both
    able to act on blue's Plague at WU (5 armies), is asked about `counter_plague` first
    (it decides whether the Plague acts at all), then `devastating_plague`: 5 - 4 = 1 left."""
    s = make_state(
        "standard",
        blue={"armies": [0, 0, 0, 0, 5]},
        red={"held": ["devastating_plague", "counter_plague"]},
    )
    g = single_battle(s, "P", "3")
    answer(g, "reactive", "red", "pass", warlord="counter_plague")
    answer(g, "reactive", "red", "use", warlord="devastating_plague")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]


def test_p1_counter_plague_used_cancels_the_devastating_question() -> None:
    """P1/P2: once `counter_plague` turns the Plague into 0, no Plague acts, so
    `devastating_plague` is not offered: blue's P (0) vs red's 3: red wins by 3 against 5."""
    s = make_state(
        "standard",
        blue={"armies": [0, 0, 0, 0, 5]},
        red={"held": ["devastating_plague", "counter_plague"]},
    )
    g = single_battle(s, "P", "3")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]


def test_r10_r8_feint_then_counter_plague_blue_first() -> None:
    """R10/R8: blue's `feint` and red's `counter_plague` act on the same battle: blue is
    asked first. Both used: blue's 9 counts 6, red's Plague 0: blue wins WU by 6."""
    s = make_state("standard", blue={"held": ["feint"]}, red={"held": ["counter_plague"]})
    g = single_battle(s, "9", "P")
    answer(g, "reactive", "blue", "use", warlord="feint")
    answer(g, "reactive", "red", "use", warlord="counter_plague")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 6]
    assert d["blue"]["six_marks"] == [0, 0, 0, 0, 0]
