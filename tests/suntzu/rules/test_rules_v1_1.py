"""Rules v1.1: the three changes from v1 (see "What changed in v1.1" in docs/rules.md), and how a
record of rules v1 replays.

Every scenario starts from a hand-written start-of-round record (R11). Round 1 reveals in board
order and nobody holds the privilege (R4.3). Expected values are worked out from the rules; the
arithmetic is in the comments.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from suntzu_env import Game
from suntzu_env.suntzu.baselines.heuristic import DEFAULT_PARAMS_ARRAY
from suntzu_env.suntzu.baselines.heuristic import heuristic_act
from suntzu_env.suntzu.rules import RULES_VERSION

from helpers import BASE_CARDS
from helpers import PROVINCES
from helpers import TIES
from helpers import State
from helpers import answer
from helpers import battle_cards
from helpers import canonical
from helpers import choose
from helpers import expect
from helpers import expect_next_round
from helpers import load
from helpers import make_state
from helpers import place
from helpers import provinces
from helpers import single_battle


def issue_state(**blue: object) -> State:
    """Standard, round 1: blue's 18 armies all in QIN, reserve 0, 3 set aside; red holds nothing on the board."""
    return make_state("standard", blue={"armies": [18, 0, 0, 0, 0], "set_aside": 3, "reserve": 0, **blue})


# --- R4.2 / R5.4 / D14: nothing to take, but a recall is possible -------------------------


def test_d14_r5_4_shortfall_with_nothing_to_take_asks_recall_or_pass() -> None:
    """D14/R5.4: blue's `9` beats red's `5` in QIN by 4 (R5.3: QIN is blue's, blue adds 4). The reserve is
    empty and blue has no other province, so v1 dropped the 4 armies; v1.1 asks blue. Each recall moves a
    set-aside army to the reserve, which is placed at once: `recall:+1` (QIN 18 -> 19, set aside 3 -> 2),
    `recall:10` (QIN 20, set aside 1); then no non-base card is left in hand, so the last 2 are dropped."""
    g = single_battle(issue_state(), "9", "5", at=0, blue_extra=["10", "+1"])
    choose(g, "shortfall", "blue", {"recall:10", "recall:+1", "pass"}, "recall:+1", province="QIN")
    choose(g, "shortfall", "blue", {"recall:10", "pass"}, "recall:10", province="QIN")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [20, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 1)
    assert d["blue"]["hand"] == [*BASE_CARDS]  # the `9`, `7` (a tie) and the two recalled cards are gone


def test_d14_pass_leaves_the_missing_armies_unplaced() -> None:
    """D14: `pass` leaves the 4 armies unplaced (QIN stays 18) and keeps the cards and the set-aside pool."""
    g = single_battle(issue_state(), "9", "5", at=0, blue_extra=["10", "+1"])
    answer(g, "shortfall", "blue", "pass", province="QIN")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [18, 0, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 3)
    assert d["blue"]["hand"] == canonical([*BASE_CARDS, "10", "+1"])


def test_d14_p10_no_card_to_recall_still_drops() -> None:
    """D14/P10: with only base cards in hand nothing can be recalled, so nothing is asked: the 4 armies
    are dropped as in v1 (QIN stays 18, 3 set aside)."""
    d = expect_next_round(single_battle(issue_state(), "9", "5", at=0), 2)
    assert d["blue"]["armies"] == [18, 0, 0, 0, 0]
    assert d["blue"]["set_aside"] == 3


def no_army_state(round_: int = 1, red_armies: tuple[int, ...] = (0, 0, 0, 0, 0)) -> State:
    """Standard: blue has no army in reserve or on the board: 13 set aside, 8 in its six-mark boxes
    (two marks in each province but WU)."""
    blue = {"reserve": 0, "set_aside": 13, "marked_armies": 8, "six_marks": [2, 2, 2, 2, 0]}
    return make_state("standard", round_=round_, blue=blue, red={"armies": list(red_armies)})


@pytest.mark.parametrize(("action", "marked", "set_aside"), [("recall:10", 9, 12), ("pass", 8, 13)])
def test_d14_r5_5_six_mark_with_nothing_to_take_asks_recall_or_pass(action: str, marked: int, set_aside: int) -> None:
    """D14/R5.5: blue's `6` loses to red's `7` at WU (red adds 1 there) and marks WU. Blue has no army in
    reserve or on the board, so v1 made the mark with no army; v1.1 asks `recall:10` or `pass`. The recall
    brings a set-aside army to the reserve and the mark takes it (set aside 13 -> 12, marked 8 -> 9);
    `pass` makes the mark with no army (8 armies in 9 marks). The mark is made either way."""
    g = single_battle(no_army_state(), "6", "7", blue_extra=["10"])
    choose(g, "source", "blue", {"recall:10", "pass"}, action, province="WU")
    d = expect_next_round(g, 2)
    assert d["blue"]["six_marks"] == [2, 2, 2, 2, 1]
    assert (d["blue"]["reserve"], d["blue"]["marked_armies"], d["blue"]["set_aside"]) == (0, marked, set_aside)
    assert ("10" in d["blue"]["hand"]) == (action == "pass")
    assert d["red"]["armies"] == [0, 0, 0, 0, 1]


# --- R4.2 / D15: a recall discards the recycled Plague copy first --------------------------


def pandemic_state(red_hand: list[str]) -> State:
    """Standard, events pandemic then hero; blue has revealed both its Plagues, red one (it came back
    as `P*` through `recycle_plague`); red has 1 army set aside."""
    return make_state(
        "standard",
        events=["pandemic", "hero"],
        blue={"plagues_revealed": 2, "hand": [*BASE_CARDS, "7"]},
        red={"plagues_revealed": 1, "used": ["recycle_plague"], "hand": red_hand, "set_aside": 1},
    )


def test_d15_recall_discards_the_recycled_copy_so_the_fourth_plague_can_come() -> None:
    """D15/R7.1: red holds `P` (never revealed) and `P*`. `recall:P` discards the `P*` (reserve 20 -> 21,
    set aside 1 -> 0); red then places its never-revealed `P` at WU: the fourth copy (2 + 2), so pandemic
    applies: each side sets aside 1 (blue 21 -> 20 | 0 -> 1; red 21 -> 20 | 0 -> 1); hero turns up."""
    g = load(pandemic_state([*BASE_CARDS, "7", "P", "P*"]))
    blue, red = battle_cards("3", "P")  # ties 2, 4, 5, 7 elsewhere
    for province, card in zip(PROVINCES, blue, strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    expect(g, "place", "red", province="QIN")
    g.apply("recall:P")
    d = g.to_dict()
    assert d["red"]["hand"] == [*BASE_CARDS, "7", "P"]
    assert (d["red"]["reserve"], d["red"]["set_aside"], d["red"]["plagues_revealed"]) == (21, 0, 1)
    for province, card in zip(PROVINCES, red, strict=True):
        answer(g, "place", "red", f"place:{card}", province=province)
    d = expect_next_round(g, 2)
    assert (d["blue"]["plagues_revealed"], d["red"]["plagues_revealed"]) == (2, 2)
    for color in ("blue", "red"):
        assert (d[color]["reserve"], d[color]["set_aside"]) == (20, 1)
    assert d["events"] == {"face_up": "hero", "deck": []}


def test_d15_single_copy_recall_is_unchanged() -> None:
    """D15: with only the `P*` in hand, `recall:P` discards it (there is no other copy)."""
    g = load(pandemic_state([*BASE_CARDS, "7", "P*"]))
    place_blue = battle_cards("3", "P")[0]
    for province, card in zip(PROVINCES, place_blue, strict=True):
        answer(g, "place", "blue", f"place:{card}", province=province)
    g.apply("recall:P")
    assert g.to_dict()["red"]["hand"] == [*BASE_CARDS, "7"]


# --- R8 reinforce / D16: offered with an empty reserve when a recall can supply the army ----


def reinforce_state(set_aside: int) -> State:
    """Standard, round 1: blue holds `reinforce`, 19 armies in QIN and 1 in CHU, reserve 0."""
    armies = [21 - set_aside - 1, 1, 0, 0, 0]
    hand = [*BASE_CARDS, "7", "10", "+1"]
    return make_state(
        "standard", blue={"held": ["reinforce"], "armies": armies, "reserve": 0, "set_aside": set_aside, "hand": hand}
    )


def test_d16_reinforce_with_an_empty_reserve_recalls_first() -> None:
    """D16/R8: blue's reserve is empty but 1 army is set aside and `10`, `+1` are in hand, so `reinforce`
    is offered; after `use` blue recalls first (`recall:+1`: set aside 1 -> 0, reserve 0 -> 1), then names
    the province: CHU 1 -> 2, reserve 1 -> 0."""
    g = load(reinforce_state(1))
    place(g, TIES, TIES)
    answer(g, "window", "blue", "use", warlord="reinforce")
    choose(g, "target", "blue", {"recall:10", "recall:+1"}, "recall:+1")
    choose(g, "target", "blue", provinces("QIN", "CHU"), "province:CHU")
    d = expect_next_round(g, 2)
    assert d["blue"]["armies"] == [19, 2, 0, 0, 0]
    assert (d["blue"]["reserve"], d["blue"]["set_aside"]) == (0, 0)
    assert d["blue"]["hand"] == [*BASE_CARDS, "10"]
    assert d["blue"]["warlords"]["used"] == ["reinforce"]


def test_d16_p2_reinforce_not_offered_without_a_recall() -> None:
    """D16/P2: with an empty reserve and nothing set aside no recall can supply the army: not offered."""
    g = load(reinforce_state(0))
    place(g, TIES, TIES)
    assert expect_next_round(g, 2)["blue"]["warlords"]["held"] == ["reinforce"]


# --- the heuristic values the new choices --------------------------------------------------


def heuristic_answer(g: Game) -> str:
    seat = g.current_player
    assert seat is not None
    action = heuristic_act(g.observation(seat), g.legal_mask(), DEFAULT_PARAMS_ARRAY)
    return Game.action_to_string(int(action))


def test_d14_heuristic_recalls_for_a_contested_province_and_passes_a_payment() -> None:
    """D14: in round 9 a card left in hand is worth nothing, so the heuristic recalls to place an army
    where it decides the scoring: blue reveals WU first, where its `9` beats red's `5` by 4 and red holds 3
    (red removes 3, blue adds 1 with no army to take: `recall:10` or `pass`; it recalls). A payment with
    nothing to take is
    passed (a six-mark here, R5.5): a recall would only move the card's army into a mark box."""
    g = single_battle(no_army_state(9, (0, 0, 0, 0, 3)), "9", "5", blue_extra=["10"])
    answer(g, "reveal", "blue", "province:WU")  # R4.3: blue, with fewer armies in provinces (0 < 3), orders
    expect(g, "shortfall", "blue", province="WU")
    assert heuristic_answer(g) == "recall:10"
    g = single_battle(no_army_state(9), "6", "7", blue_extra=["10"])
    expect(g, "source", "blue", province="WU")
    assert heuristic_answer(g) == "pass"


# --- records carry the rules version; a v1 record replays only where v1.1 plays the same ----


def test_records_carry_the_rules_version() -> None:
    g = Game.new(3, variant="beginner")
    assert g.record()["rules"]["version"] == RULES_VERSION == "1.1"
    assert g.to_dict()["rules"]["version"] == RULES_VERSION
    assert Game.from_dict(g.to_dict()).to_dict() == g.to_dict()


def test_v1_record_replays_where_the_rules_agree() -> None:
    """A record of rules v1 (no version, or "1") whose game never met D14-D16 replays to the same game."""
    g = Game.new(5, variant="beginner")
    rng = np.random.default_rng(0)
    while not g.is_terminal and len(g.record()["actions"]) < 30:
        g.apply(int(rng.choice(g.legal_actions())))
    record = g.record()
    for version in (None, "1"):
        old = copy.deepcopy(record)
        if version is None:
            del old["rules"]["version"]
        else:
            old["rules"]["version"] = version
        assert Game.replay(old).to_dict() == g.to_dict()


def test_v1_record_refused_where_v1_1_differs() -> None:
    """D14: a v1 record reaching the shortfall v1 dropped is refused, naming the action and the rule;
    the same record marked v1.1 replays."""
    g = single_battle(issue_state(), "9", "5", at=0, blue_extra=["10", "+1"])
    g.apply("pass")
    record = g.record()
    Game.replay(record, hand_made=True)
    record["start"]["rules"].pop("version", None)
    record["rules"]["version"] = "1"
    with pytest.raises(ValueError, match=r"record\.actions\[10\].*D14"):
        Game.replay(record, hand_made=True)
    record["actions"] = record["actions"][:10]  # the game as v1 would end it here: refused too
    with pytest.raises(ValueError, match=r"record\.actions: .*D14"):
        Game.replay(record, hand_made=True)


def test_unknown_rules_version_names_the_field() -> None:
    record = Game.new(1).record()
    record["rules"]["version"] = "2"
    with pytest.raises(ValueError, match=r"record\.rules\.version"):
        Game.replay(record)


# --- the environments' version follows the rules: suntzu_v3, SunTzu-v3 ----------------------


def test_v1_environment_names_raise_saying_what_changed() -> None:
    """PettingZoo's convention: a change of play bumps the version; the old names say what changed."""
    import importlib
    import warnings

    import gymnasium
    import suntzu_env
    from suntzu_env import RetiredEnvironmentError
    from suntzu_env import env
    from suntzu_env import parallel_env

    changed = r"rules v1.*D14.*D15.*D16.*SunTzu-v3"
    with pytest.raises(RetiredEnvironmentError, match=changed):
        importlib.import_module("suntzu_env.suntzu_v1")
    with pytest.raises(ImportError, match=changed):
        exec("from suntzu_env import suntzu_v1", {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium also warns that v1 is out of date
        with pytest.raises(RetiredEnvironmentError, match=changed):
            gymnasium.make("SunTzu-v1")
    assert suntzu_env.ENV_ID == "SunTzu-v3"
    assert env().metadata["name"] == parallel_env().metadata["name"] == "suntzu_v3"
