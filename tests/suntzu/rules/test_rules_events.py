"""Event cards (R7), the game-ending event (R6.3), and decisions D6, D7, P5-P8, P12."""

from __future__ import annotations

from typing import Any

import pytest
from suntzu_env import Game

from helpers import answer
from helpers import choose
from helpers import expect_next_round
from helpers import load
from helpers import make_state
from helpers import place
from helpers import provinces
from helpers import single_battle
from helpers import warlord_picks
from helpers import with_hands


def test_r7_turned_up_card_whose_condition_holds_applies_at_once() -> None:
    """R7/P5: champion applies, pandemic is turned up with all four Plague copies already
    revealed (R7.1) and applies at once; hero is turned up and stays (no `10` lost here)."""
    s = make_state(
        events=["champion", "pandemic", "hero"],
        blue={"plagues_revealed": 2},
        red={"plagues_revealed": 2},
    )
    d = expect_next_round(single_battle(s, "9", "10"), 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (19, 2)  # champion + pandemic
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (19, 1)  # 1 to WU, pandemic
    assert d["events"] == {"face_up": "hero", "deck": []}


# --- R7.1 pandemic, D6 ------------------------------------------------------------------


def test_r7_1_d6_two_plagues_in_one_battle_reveal_the_last_two_copies() -> None:
    """R7.1/D6: each side had revealed one copy; both reveal their second in one battle: all
    four copies revealed, pandemic. R5.2: the two Plagues act as one on the armies (4 -> 2)."""
    s = make_state(
        events=["pandemic", "hero"],
        blue={"armies": [0, 0, 0, 0, 4], "plagues_revealed": 1},
        red={"plagues_revealed": 1},
    )
    d = expect_next_round(single_battle(s, "P", "P"), 2)
    assert d["plague_reveals"] == 4
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (2, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 2]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (18, 1)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_1_three_copies_are_not_enough() -> None:
    """R7.1: the third Plague copy revealed leaves pandemic face up."""
    s = make_state(events=["pandemic", "hero"], blue={"plagues_revealed": 1}, red={"plagues_revealed": 1})
    d = expect_next_round(single_battle(s, "3", "P"), 2)
    assert d["plague_reveals"] == 3
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (1, 2)
    assert d["events"] == {"face_up": "pandemic", "deck": ["hero"]}
    assert d["blue"]["set_aside"] == 0 and d["red"]["set_aside"] == 0


def test_r7_1_pandemic_from_a_province_when_reserve_is_empty() -> None:
    """R7.1/R10: blue's reserve is empty: it chooses the province its army leaves."""
    s = make_state(
        events=["pandemic", "hero"],
        blue={"reserve": 0, "armies": [10, 11, 0, 0, 0], "plagues_revealed": 2},
        red={"plagues_revealed": 1},
    )
    g = single_battle(s, "3", "P")
    choose(g, "source", "blue", provinces("QIN", "CHU"), "province:CHU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [10, 10, 0, 0, 0]
    assert d["blue"]["set_aside"] == 1
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)


# --- R7.2 champion, R7.3 hero -----------------------------------------------------------


@pytest.mark.parametrize(
    ("blue_card", "red_card", "blue_paid", "red_paid"),
    [
        ("9", "10", 1, 0),  # a loss
        ("9", "P", 1, 0),  # a Plague: not a win
        ("+1", "9", 0, 1),  # red's 9 loses to 10
        ("9", "3", 0, 0),  # a win: nothing
    ],
)
def test_r7_2_champion(blue_card: str, red_card: str, blue_paid: int, red_paid: int) -> None:
    """R7.2 (R5.2: events look at the cards, so a `9` facing a Plague did not win): a side
    that reveals a `9` and does not win the battle sets aside 1 army."""
    s = make_state(events=["champion", "hero"])
    d = expect_next_round(single_battle(s, blue_card, red_card), 2)
    assert d["blue"]["set_aside"] == blue_paid
    assert d["red"]["set_aside"] == red_paid
    applied = blue_paid or red_paid
    want = {"face_up": "hero", "deck": []} if applied else {"face_up": "champion", "deck": ["hero"]}
    assert d["events"] == want


def test_r7_2_r10_champion_tie_both_pay_blue_first() -> None:
    """R7.2/R10: 9 against 9: both pay; each chooses its source, blue first, then red."""
    s = make_state(events=["champion", "hero"], blue={"armies": [2, 0, 0, 0, 0]}, red={"armies": [0, 2, 0, 0, 0]})
    g = single_battle(s, "9", "9")
    choose(g, "source", "blue", {"reserve", "province:QIN"}, "province:QIN")
    choose(g, "source", "red", {"reserve", "province:CHU"}, "reserve")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [1, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (19, 1)
    assert d["red"]["armies"] == [0, 2, 0, 0, 0]
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (18, 1)


def test_r7_3_hero_two_armies_each_chosen() -> None:
    """R7.3: blue's `10` loses to `+1` (11): red adds 1 at WU, blue (WU 3 -> 2) sets aside 2."""
    s = make_state(events=["hero", "champion"], blue={"armies": [0, 0, 0, 0, 3]})
    g = single_battle(s, "10", "+1")
    answer(g, "source", "blue", "province:WU")
    answer(g, "source", "blue", "reserve")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [0, 0, 0, 0, 1]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (18, 2)
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]
    assert d["events"] == {"face_up": "champion", "deck": []}


def test_r7_3_hero_tie_both_pay_two() -> None:
    """R7.3: 10 against 10: both sides set aside 2 armies."""
    s = make_state(events=["hero", "champion"])
    d = expect_next_round(single_battle(s, "10", "10"), 2)
    for color in ("blue", "red"):
        assert (d[color]["reserve"], d[color]["set_aside"]) == (19, 2)


# --- R7.4 war_chariot, P7, P8 -----------------------------------------------------------


def test_r7_4_war_chariot_red_chooses_a_second_warlord() -> None:
    """R7.4: red's third revealed `6`: red may pick one of its four set-aside warlords, or pass."""
    s = make_state(
        "standard",
        events=["war_chariot", "hero"],
        red={"held": ["double_six"], "six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    g = single_battle(s, "6", "6", at=2)
    picks = warlord_picks("purge", "devastating_plague", "counter_plague", "recycle_plague") | {"pass"}
    choose(g, "warlord", "red", picks, "warlord:counter_plague")
    d = expect_next_round(g, 2)
    assert sorted(d["red"]["warlords"]["held"]) == ["counter_plague", "double_six"]
    assert sorted(d["red"]["warlords"]["unchosen"]) == [
        "devastating_plague",
        "purge",
        "recycle_plague",
    ]
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_r7_4_p8_blue_cannot_take_head_start_and_uses_its_pick_next_window() -> None:
    """R7.4: blue's third `6`: blue may not pick `head_start`. P8: the `reinforce` picked
    during JIN-YAN's battle is offered at the after-battles window of the same round."""
    s = make_state(
        "standard",
        events=["war_chariot", "hero"],
        blue={
            "held": ["feint"],
            "six_marks": [1, 1, 0, 0, 0],
            "marked_armies": 2,
            "sixes_revealed": 2,
            "armies": [1, 0, 0, 0, 0],
        },
    )
    g = single_battle(s, "6", "6", at=2)
    picks = {"warlord:march", "warlord:recycle_minus_one", "warlord:reinforce", "pass"}
    choose(g, "warlord", "blue", picks, "warlord:reinforce")
    answer(g, "window", "blue", "use", warlord="reinforce")  # the only target: QIN
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [2, 0, 0, 0, 0]
    assert d["blue"]["reserve"] == 21 - 3 - 2
    warlords = {k: sorted(v) for k, v in d["blue"]["warlords"].items()}
    assert warlords == {
        "held": ["feint"],
        "used": ["reinforce"],
        "unchosen": ["head_start", "march", "recycle_minus_one"],
    }
    assert d["red"]["six_marks"] == [0, 0, 1, 0, 0]


def test_p8_war_chariot_choice_after_the_step_payments() -> None:
    """P8: blue's Plague meets red's third `6` at JIN-YAN (no mark, R5.2, but it counts,
    R7.4) and is the fourth Plague copy (R7.1): war_chariot applies, pandemic is turned up
    and its payments (blue, then red) are made, then red picks its warlord; red's `purge`
    is offered at the next window (blue holds QIN and WU)."""
    s = make_state(
        "standard",
        events=["war_chariot", "pandemic", "hero"],
        blue={"reserve": 0, "set_aside": 17, "armies": [2, 0, 0, 0, 2], "plagues_revealed": 1},
        red={
            "reserve": 0,
            "set_aside": 14,
            "armies": [0, 2, 0, 3, 0],
            "six_marks": [1, 1, 0, 0, 0],
            "marked_armies": 2,
            "sixes_revealed": 2,
            "plagues_revealed": 2,
            "held": ["double_six"],
        },
    )
    g = single_battle(s, "P", "6", at=2)
    # Pandemic payments, blue first, from provinces (both reserves are empty).
    choose(g, "source", "blue", provinces("QIN", "WU"), "province:WU")
    choose(g, "source", "red", provinces("CHU", "HAN-QI"), "province:CHU")
    # Then the war_chariot choice.
    answer(g, "warlord", "red", "warlord:purge")
    answer(g, "window", "red", "pass", warlord="purge")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [2, 0, 0, 0, 1]
    assert d["blue"]["set_aside"] == 18
    assert d["red"]["armies"] == [0, 1, 0, 3, 0]
    assert (d["red"]["set_aside"], d["red"]["marked_armies"]) == (15, 2)
    assert d["red"]["six_marks"] == [1, 1, 0, 0, 0]
    assert d["red"]["sixes_revealed"] == 3
    assert sorted(d["red"]["warlords"]["held"]) == ["double_six", "purge"]
    assert d["events"] == {"face_up": "hero", "deck": []}
    assert d["plague_reveals"] == 4


def test_p7_war_chariot_in_beginner_is_removed() -> None:
    """P7/R7.4: beginner variant: red's third `6`: war_chariot is removed with no effect, hero
    turned up."""
    s = make_state(
        events=["war_chariot", "hero"],
        red={"six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    d = expect_next_round(single_battle(s, "6", "6", at=2), 2)
    assert d["events"] == {"face_up": "hero", "deck": []}
    assert d["red"]["warlords"] == {"held": [], "used": [], "unchosen": []}
    assert d["red"]["six_marks"] == [1, 1, 1, 0, 0]


def test_p5_war_chariot_looks_at_sixes_already_revealed() -> None:
    """P5/R7.4: war_chariot, turned up after champion, finds red's 3 sixes revealed at once."""
    s = make_state(
        "standard",
        events=["champion", "war_chariot", "hero"],
        red={"held": ["double_six"], "six_marks": [1, 1, 1, 0, 0], "marked_armies": 3, "sixes_revealed": 3},
    )
    g = single_battle(s, "9", "10")
    answer(g, "warlord", "red", "warlord:recycle_plague")
    d = expect_next_round(g, 2)
    assert d["blue"]["set_aside"] == 1
    assert sorted(d["red"]["warlords"]["held"]) == ["double_six", "recycle_plague"]
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_p5_champion_turned_up_sees_the_battle_in_progress() -> None:
    """P5: pandemic applies on the 4th Plague copy; champion, turned up in the same event step,
    sees blue's `9` that did not win against the Plague; hero is turned up and stays."""
    s = make_state(
        events=["pandemic", "champion", "hero"],
        blue={"plagues_revealed": 2},
        red={"plagues_revealed": 1},
    )
    d = expect_next_round(single_battle(s, "9", "P"), 2)
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (19, 2)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


# --- R7.5 light_infantry, D7, P12 -------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "blue_after", "blue_reserve", "margin"),
    [(2, 2, 19, -1), (-2, 4, 17, 1)],
)
def test_r7_5_p12_light_infantry_behind_wins_by_one(
    score: int, blue_after: int, blue_reserve: int, margin: int
) -> None:
    """R7.5/P12: both reveal `1` at WU (blue holds 3): the side behind wins by 1 (R11: margin toward blue)."""
    s = make_state(score=score, events=["light_infantry", "hero"], blue={"armies": [0, 0, 0, 0, 3]})
    d = expect_next_round(single_battle(s, "1", "1"), 2)
    assert d["battle_results"][4] == {"outcome": "light_infantry", "margin": margin}
    assert d["blue"]["armies"] == [0, 0, 0, 0, blue_after]
    assert d["blue"]["reserve"] == blue_reserve
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_p12_light_infantry_follows_shortfall() -> None:
    """P12: red (behind, empty reserve) adds its 1 army from a neighbour of WU, its choice."""
    s = make_state(score=2, events=["light_infantry", "hero"], red={"reserve": 0, "armies": [0, 10, 0, 11, 0]})
    g = single_battle(s, "1", "1")
    choose(g, "shortfall", "red", provinces("CHU", "HAN-QI"), "province:HAN-QI")
    d = expect_next_round(g, 2)
    assert d["red"]["armies"] == [0, 10, 0, 10, 1]


def test_d7_light_infantry_at_zero_is_removed_with_no_effect() -> None:
    """D7: with the marker at 0 nobody is behind: light_infantry is removed with no effect
    (blue keeps WU 3) and hero is turned up."""
    s = make_state(events=["light_infantry", "hero"], blue={"armies": [0, 0, 0, 0, 3]})
    d = expect_next_round(single_battle(s, "1", "1"), 2)
    assert d["battle_results"][4] == {"outcome": "light_infantry", "margin": 0}
    assert d["blue"]["armies"] == [0, 0, 0, 0, 3]
    assert d["red"]["armies"] == [0, 0, 0, 0, 0]
    assert d["events"] == {"face_up": "hero", "deck": []}


# --- R6.3 the last event, P6, P7 --------------------------------------------------------

# QIN: blue 9 loses to red 10 (champion); WU would give red 6 if it were fought.
LAST_BLUE = ["9", "3", "4", "5", "2"]
LAST_RED = ["10", "3", "4", "5", "8"]


def last_event_game(**kwargs: Any) -> Game:
    """Load a state whose only event card is champion and place LAST_BLUE/LAST_RED."""
    s = with_hands(make_state(events=["champion"], **kwargs), LAST_BLUE, LAST_RED)
    g = load(s)
    place(g, LAST_BLUE, LAST_RED)
    return g


def test_r6_3_last_event_ends_the_game_at_once() -> None:
    """R6.3: the last event ends the game after QIN: no more battles, no round-3 scoring;
    the marker (+2) decides."""
    g = last_event_game(round_=3, score=2, values=[[4, 1, 4], [2, 3, 2], [1, 2, 4], [1, 3, 5], [1, 4, 3]])
    assert g.is_terminal
    assert g.winner == "blue"
    d = g.to_dict()
    assert d["score"] == 2  # red's QIN would have scored 4 at round 3
    assert d["red"]["armies"] == [1, 0, 0, 0, 0]  # WU was not fought
    assert d["blue"]["set_aside"] == 1
    assert g.returns() == {"blue": 1.0, "red": -1.0}


def test_p6_r6_4_last_event_payment_counts_for_the_tie_break() -> None:
    """P6/R6.4: champion's payment is made before the end: reserves 20 against 20, a draw
    (without the payment blue would have 21 and win)."""
    g = last_event_game()
    assert g.is_terminal
    assert g.winner == "draw"
    d = g.to_dict()
    assert (d["blue"]["reserve"], d["red"]["reserve"]) == (20, 20)
    assert g.returns() == {"blue": 0.0, "red": 0.0}


def test_p6_no_warlord_for_a_final_war_chariot() -> None:
    """P6/R6.3: a final war_chariot (red's third `6`) ends the game with no warlord choice."""
    s = make_state(
        "standard",
        score=1,
        events=["war_chariot"],
        red={"held": ["double_six"], "six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    g = single_battle(s, "6", "6", at=2)
    assert g.is_terminal
    assert g.winner == "blue"
    assert g.to_dict()["red"]["warlords"]["held"] == ["double_six"]


def test_p7_r6_3_beginner_war_chariot_counts_as_the_last_event() -> None:
    """P7/R6.3/R6.4: in the beginner variant a final war_chariot (red's third `6`) still ends
    the game; WU (blue 8 against 5) is not fought; at 0, blue's reserve 20 beats red's 18."""
    blue = ["2", "3", "6", "4", "8"]
    red = ["2", "3", "6", "4", "5"]
    s = make_state(
        events=["war_chariot"],
        red={"six_marks": [1, 1, 0, 0, 0], "marked_armies": 2, "sixes_revealed": 2},
    )
    g = load(with_hands(s, blue, red))
    place(g, blue, red)
    assert g.is_terminal
    assert g.winner == "blue"
    d = g.to_dict()
    assert d["blue"]["armies"] == [0, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["red"]["reserve"]) == (20, 18)


def test_p10_pandemic_with_nothing_to_pay() -> None:
    """P10: blue has no army in reserve or on the board: its pandemic payment is skipped."""
    s = make_state(
        "standard",
        events=["pandemic", "hero"],
        blue={"reserve": 0, "set_aside": 21, "plagues_revealed": 2},
        red={"plagues_revealed": 1},
    )
    d = expect_next_round(single_battle(s, "3", "P"), 2)
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 21)
    assert (d["red"]["reserve"], d["red"]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_p10_champion_with_nothing_to_pay() -> None:
    """P10: blue's `9` loses with no army anywhere: nothing is paid, champion is spent."""
    s = make_state("standard", events=["champion", "hero"], blue={"reserve": 0, "set_aside": 21})
    d = expect_next_round(single_battle(s, "9", "10"), 2)
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 21)
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]
    assert d["events"] == {"face_up": "hero", "deck": []}
