"""The `Game` API: illegal actions, bad records, round trips, record and replay (R10, R11)."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import Game
from suntzu_env.core import checks
from suntzu_env.suntzu import options

from helpers import State
from helpers import load
from helpers import make_state
from helpers import place


def random_actions(g: Game, seed: int, n: int) -> list[str]:
    """Apply up to `n` random legal actions; return them."""
    rng = random.Random(seed)
    played: list[str] = []
    while not g.is_terminal and len(played) < n:
        action = rng.choice(g.legal_action_strings())
        g.apply(action)
        played.append(action)
    return played


# --- illegal actions --------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["keep:7", "place:+2", "province:WU", "nonsense", "place:11"])
def test_illegal_action_string_is_refused(bad: str) -> None:
    """R10: an illegal action raises ValueError naming the decision and listing the legal
    action strings; the game is unchanged."""
    g = Game.new(seed=0, variant="beginner")
    random_actions(g, 0, 3)
    before = g.to_dict()
    legal = g.legal_action_strings()
    with pytest.raises(ValueError) as err:
        g.apply(bad)
    message = str(err.value)
    assert g.decision is not None and g.decision["kind"] in message
    assert all(s in message for s in legal)
    assert g.to_dict() == before
    assert g.legal_action_strings() == legal


def test_illegal_action_int_is_refused() -> None:
    """R10: an integer action that is not legal now is refused the same way."""
    g = Game.new(seed=1, variant="standard")
    legal = g.legal_actions()
    bad = g.string_to_action("place:1")  # a real action, but the decision is a warlord choice
    assert bad not in legal
    before = g.to_dict()
    with pytest.raises(ValueError) as err:
        g.apply(bad)
    assert "warlord" in str(err.value)
    assert all(s in str(err.value) for s in g.legal_action_strings())
    assert g.to_dict() == before


def test_apply_accepts_int_and_string_alike() -> None:
    """R10: `apply` takes an action id or its string, to the same effect."""
    a = Game.new(seed=4, variant="beginner")
    b = Game.new(seed=4, variant="beginner")
    for _ in range(12):
        action = a.legal_actions()[-1]
        a.apply(action)
        b.apply(b.action_to_string(action))
        assert a.to_dict() == b.to_dict()


def test_no_action_after_the_end() -> None:
    """R6: a finished game refuses every action."""
    g = Game.new(seed=0, variant="beginner")
    random_actions(g, 0, 10_000)
    assert g.is_terminal
    assert g.legal_actions() == []
    with pytest.raises(ValueError):
        g.apply("place:1")


# --- bad records ------------------------------------------------------------------------


def good_record() -> State:
    """A valid start-of-round record, set up by hand (armies on the board in round 1)."""
    return make_state("standard", blue={"armies": [2, 0, 0, 0, 0]}, red={"held": ["purge"]})


@pytest.mark.parametrize(
    "key",
    [
        "rules", "round", "score", "province_values", "privilege", "plague_reveals",
        "events", "blue", "red", "phase", "winner",
    ],
)  # fmt: skip
def test_missing_top_key_is_named(key: str) -> None:
    """R11: a missing key is an error naming the key."""
    d = good_record()
    del d[key]
    with pytest.raises(ValueError, match=key):
        Game.from_dict(d, hand_made=True)


@pytest.mark.parametrize(
    "key",
    [
        "reserve", "set_aside", "marked_armies", "armies", "six_marks", "hand", "deck", "sixes_revealed",
        "plagues_revealed", "warlords",
    ],
)  # fmt: skip
def test_missing_side_key_is_named(key: str) -> None:
    """R11: a missing key inside a side is named too."""
    d = good_record()
    del d["red"][key]
    with pytest.raises(ValueError, match=key):
        Game.from_dict(d, hand_made=True)


@pytest.mark.parametrize("path", [(), ("blue",), ("rules",), ("events",), ("red", "warlords")])
def test_unknown_key_is_an_error(path: tuple[str, ...]) -> None:
    """R11: an unknown key is an error naming it."""
    d = good_record()
    node = d
    for part in path:
        node = node[part]
    node["bogus_key"] = 1
    with pytest.raises(ValueError, match="bogus_key"):
        Game.from_dict(d, hand_made=True)


@pytest.mark.parametrize(
    ("color", "field", "delta"),
    [("blue", "reserve", 1), ("red", "set_aside", 1), ("blue", "marked_armies", -1), ("red", "reserve", -1)],
)
def test_broken_i1_is_an_error(color: str, field: str, delta: int) -> None:
    """R11/R1.3: counts that break I1 (the sum must be 21) are refused."""
    d = good_record()
    d["blue"]["six_marks"] = [1, 0, 0, 0, 0]
    d["blue"]["sixes_revealed"] = 1
    d["blue"]["marked_armies"] = 1
    d["blue"]["reserve"] -= 1
    Game.from_dict(copy.deepcopy(d), hand_made=True)  # still valid
    d[color][field] += delta
    with pytest.raises(ValueError):
        Game.from_dict(d, hand_made=True)


def test_broken_i1_through_armies_is_an_error() -> None:
    """R11/R1.3: one army too many on the board breaks I1."""
    d = good_record()
    d["blue"]["armies"][3] = 1
    with pytest.raises(ValueError):
        Game.from_dict(d, hand_made=True)


def test_from_dict_does_not_change_its_argument() -> None:
    """R11: loading a record leaves the caller's dict as it was."""
    d = good_record()
    keep = copy.deepcopy(d)
    Game.from_dict(d, hand_made=True)
    assert d == keep


# --- round trips, clone, record and replay ----------------------------------------------


def test_round_trip_at_start_of_round() -> None:
    """R11: to_dict/from_dict round trip at a start-of-round state reached by play."""
    g = load(make_state(blue={"armies": [0, 1, 0, 0, 0]}, red={"armies": [0, 0, 0, 2, 0]}))
    cards = ["2", "3", "4", "5", "7"]
    place(g, cards, cards)
    d = g.to_dict()
    assert d["round"] == 2 and "engine" not in d
    h = Game.from_dict(d, hand_made=True)  # the game began from a scenario
    assert h.to_dict() == d
    assert h.legal_action_strings() == g.legal_action_strings()
    assert h.decision == g.decision


def test_clone_is_independent() -> None:
    """A clone plays on without touching the original."""
    g = Game.new(seed=3)
    random_actions(g, 3, 20)
    before = g.to_dict()
    c = g.clone()
    assert c.to_dict() == before
    random_actions(c, 4, 30)
    assert g.to_dict() == before


@pytest.mark.parametrize(("variant", "events"), [("standard", True), ("beginner", False)])
def test_record_replay_reproduces_a_game(variant: str, events: bool) -> None:
    """R3.5/R11: `Game.replay(g.record())` reproduces the game, finished or not."""
    for n in (0, 25, 10_000):
        g = Game.new(seed=9, variant=variant, events=events)
        random_actions(g, n, n)
        r = Game.replay(g.record())
        assert r.to_dict() == g.to_dict()
        assert r.winner == g.winner
        assert r.is_terminal == g.is_terminal


def test_str_is_text() -> None:
    """`str(g)` gives a readable text of the state."""
    text = str(Game.new(seed=0))
    assert isinstance(text, str) and text


# --- arguments are checked before they reach the engine ---------------------------------


def test_numpy_integer_seed_is_the_same_seed() -> None:
    """R3.5: a numpy integer seed is accepted and gives the game of the same Python int."""
    assert Game.new(np.int64(5), "standard", True).to_dict() == Game.new(5, "standard", True).to_dict()
    assert Game.new(np.uint32(7)).to_dict() == Game.new(7).to_dict()


@pytest.mark.parametrize(
    ("kwargs", "error", "named"),
    [
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": 2**63}, ValueError, "seed"),
        ({"seed": 1.0}, TypeError, "seed"),
        ({"seed": True}, TypeError, "seed"),
        ({"seed": "5"}, TypeError, "seed"),
        ({"seed": None}, TypeError, "seed"),
        ({"variant": "expert"}, ValueError, "variant"),
        ({"variant": 0}, TypeError, "variant"),
        ({"events": "false"}, TypeError, "events"),
        ({"events": 1}, TypeError, "events"),
        ({"events": None}, TypeError, "events"),
        ({"adjacency": [("QIN", "ROME")]}, ValueError, "adjacency"),
        ({"adjacency": [("QIN", "QIN")]}, ValueError, "adjacency"),
        ({"adjacency": [("QIN", "CHU", "WU")]}, ValueError, "adjacency"),
        ({"adjacency": 5}, TypeError, "adjacency"),
        ({"adjacency": "QIN-CHU"}, TypeError, "adjacency"),
        ({"adjacency": [("QIN", 3)]}, TypeError, "adjacency"),
    ],
)
def test_bad_new_game_arguments_are_refused_by_name(kwargs: dict, error: type, named: str) -> None:
    """A wrong type is a TypeError, a bad value a ValueError, each naming the argument."""
    with pytest.raises(error, match=named):
        Game.new(**kwargs)


def test_new_game_accepts_numpy_bools_and_a_map() -> None:
    """`events` may be a numpy bool; `adjacency` any sequence of pairs."""
    assert Game.new(1, events=np.True_).to_dict()["rules"]["events"] is True
    g = Game.new(1, adjacency=[["QIN", "CHU"], ("CHU", "WU")])
    assert g.to_dict()["rules"]["adjacency"] == [["QIN", "CHU"], ["CHU", "WU"]]


def test_observation_buffer_is_checked() -> None:
    """`observation(seat, out=)` fills a float32 vector of the right size, and refuses anything else
    before the compiled encoder could write out of bounds."""
    g = Game.new(0)
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    assert g.observation("red", out=out) is out
    assert np.array_equal(out, g.observation("red"))
    with pytest.raises(ValueError, match="shape"):
        g.observation("blue", out=np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        g.observation("blue", out=np.zeros((1, OBSERVATION_SIZE), dtype=np.float32))
    with pytest.raises(TypeError, match="float32"):
        g.observation("blue", out=np.zeros(OBSERVATION_SIZE, dtype=np.float64))
    with pytest.raises(TypeError, match="numpy array"):
        g.observation("blue", out=[0.0] * OBSERVATION_SIZE)  # type: ignore[arg-type]
    frozen = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        g.observation("blue", out=frozen)


def test_option_checks() -> None:
    """`suntzu_env.suntzu.options`, shared by every entry point: finite numbers, known keys, seeds."""
    assert checks.check_seed(np.int32(3)) == 3 and type(checks.check_seed(np.int32(3))) is int
    assert checks.check_seed(None, optional=True) is None
    assert checks.check_number(np.float32(0.5), "x", low=0) == 0.5
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="x must"):
            checks.check_number(bad, "x", low=0)
    with pytest.raises(TypeError, match="x must be a number"):
        checks.check_number(True, "x")
    with pytest.raises(TypeError, match="x must be an integer"):
        checks.check_number(2.0, "x", integer=True)
    assert checks.check_keys(None, "options", ("a",)) == {}
    with pytest.raises(ValueError, match="unknown key 'b'"):
        checks.check_keys({"b": 1}, "options", ("a",))
    with pytest.raises(TypeError, match="options must be a dict"):
        checks.check_keys([("a", 1)], "options", ("a",))
    assert options.check_seat("red") == 1


# ---------------------------------------------------------------- options and the public face


def test_new_game_takes_options_keywords_or_positions_alike() -> None:
    """`Game.new(seed, Options(...))`, the keyword form and the older positional form make the same game."""
    rules = options.Options(variant="beginner", events=True)
    a = Game.new(4, rules)
    assert a.options == rules
    assert Game.new(4, variant="beginner", events=True).to_dict() == a.to_dict()
    assert Game.new(4, "beginner", True).to_dict() == a.to_dict()
    assert Game.new(4, options.Options(), variant="beginner", events=True).to_dict() == a.to_dict()  # fields on top
    with pytest.raises(TypeError, match="once each"):
        Game.new(4, "beginner", variant="standard")
    with pytest.raises(TypeError, match="variant"):
        Game.new(4, options.Options(), variant=1)


def test_options_travel_through_records() -> None:
    """A game loaded from a record or replayed knows the rules it is played under."""
    borders = (("QIN", "CHU"), ("CHU", "WU"), ("WU", "HAN-QI"), ("HAN-QI", "JIN-YAN"))
    g = Game.new(2, events=True, adjacency=borders)
    random_actions(g, 1, 30)
    for other in (Game.from_dict(g.to_dict()), Game.replay(g.record()), g.clone()):
        assert other.options.events is True and other.options.variant == "standard"
        assert other.options == g.options == options.Options(events=True, adjacency=borders[::-1])
    assert Game.from_dict(Game.new(0).to_dict()).options == options.Options()


@pytest.mark.parametrize(("round_", "scoring"), [(1, 3), (3, 3), (4, 6), (6, 6), (7, 9), (9, 9)])
def test_next_scoring_round(round_: int, scoring: int) -> None:
    """R4.5: the scorings are at the end of rounds 3, 6 and 9."""
    assert load(make_state(round_=round_)).next_scoring_round == scoring


@pytest.mark.parametrize(
    ("round_", "score", "expected"),
    [
        (1, 0, 1 + 1 - 2),  # round 3's column: QIN 1, JIN-YAN 1 for blue; WU 2 for red
        (4, 1, 1 + 2 + 4 - 3),  # round 6's column: QIN 2, JIN-YAN 4; WU 3
        (9, -2, -2 + 4 + 3 - 4),  # round 9's column: QIN 4, JIN-YAN 3; WU 4
        (4, 8, 9),  # 8 + 3 is past the track's end (R4.5: the marker stops at 9)
        (4, -9, -6),
    ],
)
def test_projected_score_is_the_next_scoring_made_now(round_: int, score: int, expected: int) -> None:
    """R4.5: each side scores the values (at the next scoring round) of the provinces it holds; the marker
    moves by the difference and stays within [-9, 9]. Values: the displays of `helpers.DISPLAYS`."""
    state = make_state(round_=round_, score=score, blue={"armies": (2, 0, 1, 0, 0)}, red={"armies": (0, 0, 0, 0, 3)})
    assert load(state).projected_score() == expected


def test_fields_are_a_copy_by_name() -> None:
    """`fields()` names the state's parts; changing the copy changes nothing in the game."""
    g = Game.new(3)
    random_actions(g, 2, 20)
    f = g.fields()
    assert int(f["round"][0]) == g.round and int(f["score"][0]) == g.score
    assert f["armies"].tolist() == g.to_dict()["blue"]["armies"] + g.to_dict()["red"]["armies"]
    before = g.to_dict()
    f["score"][0] = 5
    f["armies"][:] = 7
    assert g.to_dict() == before


def test_equal_options_are_the_same_game() -> None:
    """A map is the same map in any order of its pairs; the declared map (D1) given in full is the default."""
    from suntzu_env.suntzu.rules import ADJACENCY

    assert options.Options(adjacency=ADJACENCY[::-1]) == options.Options()
    ring = [("QIN", "CHU"), ("CHU", "WU"), ("WU", "HAN-QI"), ("HAN-QI", "JIN-YAN"), ("JIN-YAN", "QIN")]
    assert options.Options(adjacency=[pair[::-1] for pair in ring]) == options.Options(adjacency=ring + ring[:1])
