"""R11: records are loaded only as states the engine can be in, whatever is done to them.

Real records are taken at every kind of decision of random games (both variants, events on and off,
placements made out of turn too), at the start of rounds and at the end. Hypothesis then mutates one to
three places of one of them (integers pushed to extremes or nudged, values of the wrong type, keys
deleted or added, list entries swapped, dropped or repeated, names swapped for other names, a value
copied from another real record) and `Game.from_dict` must either

- refuse it with a `RecordError` (a `ValueError`) whose message names a field of the record, or
- load a game that passes the record checks again (its own record loads back to the same state), that
  draws and observes, and that plays to its end with random legal answers, every invariant holding and
  every decision offering at least two answers (R10) after every step.

Any other exception, or a crash of the process, is a failure. The README's test command runs 500 mutated records
with a fixed seed, the slow tests `FUZZ_EXAMPLES` (10,000);
`SUNTZU_FUZZ_EXAMPLES=200000 python -m pytest -m slow tests/suntzu/game/test_records_fuzz.py` runs a longer
campaign (add `--hypothesis-show-statistics` for the share of records refused and loaded, per situation).
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env import Game
from suntzu_env.suntzu import engine
from suntzu_env.suntzu import records
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.layout import DEC_KIND
from suntzu_env.suntzu.layout import DEC_SIDE
from suntzu_env.suntzu.layout import DK_PLACE
from suntzu_env.suntzu.layout import FIELDS
from suntzu_env.suntzu.layout import PH_WARLORDS
from suntzu_env.suntzu.layout import PHASE
from suntzu_env.suntzu.layout import PHASE_NAMES
from suntzu_env.suntzu.records import RECORD_CARDS
from suntzu_env.suntzu.records import RecordError
from suntzu_env.suntzu.rules import EVENTS
from suntzu_env.suntzu.rules import PROVINCES
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.rules import WARLORD_NAMES

FUZZ_EXAMPLES = int(os.environ.get("SUNTZU_FUZZ_EXAMPLES", "10000"))
FIRST_CHECK_EXAMPLES = 500  # in the README's test command; the slow tests run `FUZZ_EXAMPLES`
# Steps after loading at which the game's own record must load back to it (every step: -1).
CLOSURE_STEPS = int(os.environ.get("SUNTZU_FUZZ_CLOSURE_STEPS", "4"))
CONFIGS = [("standard", True), ("standard", False), ("beginner", True), ("beginner", False)]
GAMES_PER_CONFIG = 60
PER_KIND = 40  # records kept per (configuration, situation)
MAX_STEPS = 3000  # a game has a few hundred decisions at most

Record = dict[str, Any]
Path = tuple[Any, ...]


# ---------------------------------------------------------------- real records


def situation(g: Game) -> str:
    """The kind of the pending decision, the setup and war_chariot warlord choices told apart."""
    d = g.decision
    if d is None:
        return "over"
    if d["kind"] == "warlord":
        return "warlord:setup" if g.state[PHASE] == PH_WARLORDS else "warlord:chariot"
    return "round_start" if records.at_round_start(g.state) else d["kind"]


@cache
def corpus() -> dict[str, tuple[Record, ...]]:
    """Real records by situation, from random games; `PER_KIND` at most per configuration and situation.

    Shared by every example: mutations work on copies."""
    found: dict[tuple[str, bool, str], list[Record]] = {}
    for variant, events in CONFIGS:
        for seed in range(GAMES_PER_CONFIG):
            rng = random.Random(seed)
            g = Game.new(seed, variant, events)
            while True:
                kind = situation(g)
                bucket = found.setdefault((variant, events, kind), [])
                if len(bucket) < PER_KIND and rng.random() < 0.5:
                    bucket.append(g.to_dict())
                if g.is_terminal:
                    break
                early = g.placement_mask("red")
                if g.current_player == "blue" and early.sum() >= 2 and rng.random() < 0.2:
                    g.apply_for("red", int(rng.choice(np.flatnonzero(early))))  # R4.1: red places out of turn
                else:
                    g.apply(rng.choice(g.legal_actions()))
    by_kind: dict[str, list[Record]] = {}
    for (_, _, kind), bucket in sorted(found.items()):
        by_kind.setdefault(kind, []).extend(bucket)
    return {kind: tuple(bucket) for kind, bucket in by_kind.items()}


def test_corpus_covers_every_situation() -> None:
    """The records come from every decision kind, the start of rounds and the end of games."""
    kinds = set(corpus())
    expected = {"warlord:setup", "warlord:chariot", "round_start", "over"}
    expected |= {"place", "window", "target", "reveal", "reactive", "source", "shortfall", "keep"}
    assert kinds == expected


def test_every_real_record_loads_back_to_its_state() -> None:
    """No false refusal: a record of any state reached in play loads back to that very state."""
    for variant, events in CONFIGS:
        for seed in range(20):
            rng = random.Random(seed)
            g = Game.new(seed, variant, events)
            while True:
                h = Game.from_dict(g.to_dict())
                if "engine" in g.to_dict():
                    assert np.array_equal(h.state, g.state), (variant, events, seed, g.decision)
                assert h.to_dict() == g.to_dict()
                if g.is_terminal:
                    break
                g.apply(rng.choice(g.legal_actions()))


# ---------------------------------------------------------------- mutations


class Draw:
    """The choices a mutation makes, from Hypothesis or from a seeded generator."""

    def __init__(self, integers: Callable[[int, int], int], choice: Callable[[list[Any]], Any] | None = None) -> None:
        self.integers = integers
        self._choice = choice

    def choice(self, items: Any) -> Any:
        items = list(items)
        if self._choice is not None:
            return self._choice(items)
        return items[self.integers(0, len(items) - 1)]


EXTREME_INTS = [-(2**63), -(2**31), -1048577, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15, 16, 21, 22]
EXTREME_INTS += [48, 255, 1048576, 2**31 - 1, 2**31, 2**63]
NAMES = [*RECORD_CARDS, *EVENTS, *SEATS, *PHASE_NAMES, *PROVINCES, *WARLORD_NAMES, "draw", "standard", "beginner"]
ODD_VALUES: list[Any] = [None, True, False, 1.5, float("nan"), "x", "", [], {}, [0], {"a": 1}, -0.0, 10**30]


def paths(node: Any) -> list[Path]:
    """Every place in a JSON tree (not the root)."""
    out: list[Path] = []
    stack: list[tuple[Any, Path]] = [(node, ())]
    while stack:
        node, prefix = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            out.append((*prefix, k))
            if isinstance(v, (dict, list)):
                stack.append((v, (*prefix, k)))
    return out


def get(node: Any, path: Path) -> Any:
    for part in path:
        node = node[part]
    return node


def mutate(record: Record, draw: Draw, donors: list[Record]) -> str:
    """Change one place of `record` in place; returns what was done (for failure messages)."""
    places = paths(record)
    path = draw.choice(places)
    parent = get(record, path[:-1])
    key = path[-1]
    value = parent[key]
    op = draw.choice(["int", "nudge", "odd", "name", "delete", "add", "swap", "repeat", "splice", "splice"])
    if op == "int":
        parent[key] = draw.choice(EXTREME_INTS)
    elif op == "nudge" and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = value + draw.choice([-3, -2, -1, 1, 2, 3])
    elif op == "odd":
        parent[key] = copy.deepcopy(draw.choice(ODD_VALUES))
    elif op == "name":
        parent[key] = draw.choice(NAMES)
    elif op == "delete":
        del parent[key]
    elif op == "add":
        if isinstance(parent, dict):
            parent[draw.choice(["bogus", "engine", "seed", "start", *records.SIDE_KEYS])] = draw.choice(EXTREME_INTS)
        else:
            parent.insert(draw.integers(0, len(parent)), copy.deepcopy(value))
    elif op == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = draw.integers(0, len(parent) - 1)
        parent[key], parent[other] = parent[other], parent[key]
    elif op == "swap" and isinstance(parent, dict) and len(parent) > 1:
        other = draw.choice(list(parent))
        parent[key], parent[other] = parent[other], parent[key]
    elif op == "repeat" and isinstance(value, list):
        value.append(copy.deepcopy(value[draw.integers(0, len(value) - 1)]) if value else 0)
    else:  # splice: the same place in another real record
        donor = draw.choice(donors)
        try:
            parent[key] = copy.deepcopy(get(donor, path))
        except (KeyError, IndexError, TypeError):
            op = "delete"
            del parent[key]
    return f"{op} at {'.'.join(map(str, path))}"


def mutated(draw: Draw) -> tuple[Record, list[str]]:
    """A real record with one to three mutations, different from the record it came from."""
    kind = draw.choice(sorted(corpus()))
    donors = list(corpus()[kind])
    record = json.loads(json.dumps(draw.choice(donors)))
    done = [f"from a {kind!r} record"]
    for _ in range(draw.integers(1, 3)):
        for _ in range(10):  # a mutation that changes nothing (a swap of equal values...) is tried again
            before = json.dumps(record)  # tells 1, 1.0 and true apart
            what = mutate(record, draw, donors)
            if json.dumps(record) != before:
                done.append(what)
                break
        if not isinstance(record, dict) or not record:
            break
    return record, done


# ---------------------------------------------------------------- the property


FIELD_NAMES = {f.name for f in FIELDS} | set(records.RECORD_KEYS) | set(records.SIDE_KEYS) | {"engine", "record"}
FIELD_NAMES |= {"held", "used", "unchosen", "face_up", "deck", "variant", "events", "adjacency", "state", "version"}
FIELD_NAMES |= {"battle_results", "outcome", "margin"}


def names_a_field(error: RecordError) -> bool:
    """The message reads `bad game record: <field>: <problem>`, the field a path of known keys (an
    unknown key names itself last)."""
    match = re.match(r"bad game record: ([^:]+): (.+)", str(error))
    if not match or match.group(1) != error.field:
        return False
    parts = [p for p in re.split(r"[.\[\]]", error.field) if p and not p.isdigit()]
    if match.group(2) == "unknown key":
        parts = parts[:-1]
    return all(p in FIELD_NAMES or p in SEATS for p in parts)


def play_out(g: Game, seed: int) -> None:
    """Play to the end with random legal answers, checking the invariants and R10 after every step."""
    rng = random.Random(seed)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for step in range(MAX_STEPS):
        code = engine.check_invariants(g.state)
        assert code == 0, f"invariant broken: {engine.INVARIANTS[code]}"
        if step < CLOSURE_STEPS or CLOSURE_STEPS < 0:
            assert_loads_back(g)
        if g.is_terminal:
            assert g.legal_actions() == [] and g.winner is not None
            return
        n = engine.legal_mask(g.state.copy(), mask)
        assert n >= 2 and n == len(g.legal_actions()), f"{n} legal answers at {g.decision}"
        early = g.placement_mask("red")
        if g.state[DEC_KIND] == DK_PLACE and g.state[DEC_SIDE] == 0 and early.any() and rng.random() < 0.3:
            g.apply_for("red", int(rng.choice(np.flatnonzero(early))))
        else:
            g.apply(rng.choice(g.legal_actions()))
    raise AssertionError(f"no end after {MAX_STEPS} steps")


def assert_loads_back(g: Game) -> None:
    """The game's record loads back to the same game: what play reaches, the checks accept."""
    record = g.to_dict()
    try:
        again = Game.from_dict(record)
    except RecordError as error:
        raise AssertionError(f"a state reached in play is refused: {error}") from None
    assert again.to_dict() == record
    if "engine" in record:
        assert np.array_equal(again.state, g.state)


def check_record(record: Record, seed: int) -> str:
    """The property for one record: refused by name, or a game that is sound to its end."""
    try:
        g = Game.from_dict(record)
    except RecordError as error:
        assert names_a_field(error), f"the message names no field: {error}"
        return "refused"
    for seat in (None, "blue", "red"):
        assert g.render(seat)
    for seat in SEATS:
        assert g.observation(seat).shape == g.observation(seat).shape
    play_out(g, seed)
    return "loaded"


def check_a_mutated_record(data: st.DataObject) -> None:
    """R11: a mutated real record is refused with a RecordError naming its field, or plays soundly."""
    draw = Draw(lambda lo, hi: data.draw(st.integers(lo, hi)), lambda items: data.draw(st.sampled_from(items)))
    record, done = mutated(draw)
    try:
        outcome = check_record(record, seed=len(done))
    except AssertionError as error:
        raise AssertionError(f"{'; '.join(done)}: {error}") from None
    event(f"{outcome} ({done[0]})")
    event(outcome)


FUZZ = {"derandomize": True, "deadline": None, "database": None, "suppress_health_check": list(HealthCheck)}


@settings(max_examples=FIRST_CHECK_EXAMPLES, **FUZZ)
@given(data=st.data())
def test_mutated_records_are_refused_by_name_or_play_soundly(data: st.DataObject) -> None:
    """R11, a first check: `FIRST_CHECK_EXAMPLES` mutated records."""
    check_a_mutated_record(data)


@pytest.mark.slow
@settings(max_examples=FUZZ_EXAMPLES, **FUZZ)
@given(data=st.data())
def test_many_mutated_records_are_refused_by_name_or_play_soundly(data: st.DataObject) -> None:
    """R11, the whole check: `FUZZ_EXAMPLES` mutated records."""
    check_a_mutated_record(data)


# ---------------------------------------------------------------- edges named in the issue


@pytest.mark.parametrize("field", ["decision_kind", "march_from", "place_province", "task_len", "tasks"])
@pytest.mark.parametrize("value", [1048576, -2, 11, 2**31])
def test_engine_fields_out_of_range_are_named(field: str, value: int) -> None:
    """Values the compiled engine would index with are refused before it sees them, by field."""
    g = Game.new(3, "standard", True)
    g.apply(g.legal_actions()[0])
    record = g.to_dict()
    record["engine"][field][0] = value
    with pytest.raises(RecordError, match=rf"engine\.{field}"):
        Game.from_dict(record)


def test_from_dict_keeps_its_own_copy() -> None:
    """Changing the dict after loading changes neither the game nor its replay."""
    g = Game.new(5, "standard", True)
    rng = random.Random(5)
    for _ in range(30):
        g.apply(rng.choice(g.legal_actions()))
    record = g.to_dict()
    h = Game.from_dict(record)
    h.apply(h.legal_actions()[0])
    record["engine"]["decision_kind"][0] = 1048576
    record["blue"]["reserve"] = 99
    replayed = Game.replay(h.record())
    assert replayed.to_dict() == h.to_dict()
    start = h.record()["start"]
    start["round"] = 99  # nor does changing what record() returned
    assert Game.replay(h.record()).to_dict() == h.to_dict()


def test_record_of_wrong_type_is_a_type_error() -> None:
    """A record that is not a dict at all is a TypeError (as Python does); inside one, ValueError."""
    for bad in (None, 3, "record", [1, 2]):
        with pytest.raises(TypeError):
            Game.from_dict(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            Game.replay(bad)  # type: ignore[arg-type]


def test_raw_state_is_checked_too() -> None:
    """`Game(state)` takes a state vector only when the engine could be in it."""
    g = Game.new(1, "standard", True)
    for _ in range(9):
        g.apply(g.legal_actions()[-1])
    assert Game(g.state.copy()).to_dict() == g.to_dict()
    bad = g.state.copy()
    bad[FIELDS[-5].offset] = 1048576  # decision_kind
    with pytest.raises(RecordError):
        Game(bad)
    with pytest.raises(TypeError):
        Game(g.state.astype(np.int64))
    with pytest.raises(ValueError):
        Game(g.state[:-1].copy())


def test_a_decision_with_fewer_than_two_answers_is_refused() -> None:
    """R10/I2: a record whose pending decision the engine would have answered itself is refused."""
    g = Game.new(2, "standard", False)
    g.apply("warlord:march")
    record = g.to_dict()
    record["red"]["warlords"] = {"held": [], "used": [], "unchosen": list(WARLORD_NAMES[5:])}
    record["engine"]["decision_side"] = [0]  # blue asked again, with march already held
    with pytest.raises(RecordError):
        Game.from_dict(record)


def test_every_engine_field_has_a_declared_range() -> None:
    """A field added to the layout cannot travel in records unchecked: each needs its range here."""
    assert set(records.ENGINE_RANGES) == {f.name for f in records.ENGINE_FIELDS}


def test_five_warlords_held_is_refused() -> None:
    """R3.3, R7.4: one warlord at setup and at most one from war_chariot; holding all five is refused."""
    record = Game.new(0, "standard", True).to_dict()
    record["engine"]["decision_side"] = [0]
    record["blue"]["warlords"] = {"held": list(WARLORD_NAMES[:5]), "used": [], "unchosen": []}
    with pytest.raises(RecordError, match=r"blue\.warlords"):
        Game.from_dict(record)
    start = Game.new(0, "standard", False)
    for _ in range(2):
        start.apply(start.legal_action_strings()[0])
    record = start.to_dict()
    assert "engine" not in record
    record["red"]["warlords"] = {"held": list(WARLORD_NAMES[5:]), "used": [], "unchosen": []}
    with pytest.raises(RecordError, match=r"red\.warlords"):
        Game.from_dict(record)


# ---------------------------------------------------------------- six-marks (R5.5, P4)


def played_record(variant: str, until: Callable[[Game], bool], events: bool = False, seed: int = 11) -> Record:
    """The record of a random game of `variant` at its first decision where `until` holds."""
    rng = random.Random(5)
    for s in range(seed, seed + 20):
        g = Game.new(s, variant, events)
        while g.current_player is not None and not until(g):
            g.apply(rng.choice(g.legal_actions()))
        if g.current_player is not None:
            return g.to_dict()
    raise AssertionError("no game got there")


def round_start(round_: int) -> Callable[[Game], bool]:
    return lambda g: g.round == round_ and "engine" not in g.to_dict()


def marked_record(variant: str = "standard", round_: int = 2) -> Record:
    """A real record at the start of a round, with one six-mark given to each side by hand (as a revealed `6`
    of round 1 leaves it): the base the cases below break."""
    record = played_record(variant, round_start(round_))
    for seat in SEATS:
        record[seat]["six_marks"] = [0] * len(PROVINCES)
        record[seat]["reserve"] += record[seat]["marked_armies"]
        record[seat]["marked_armies"] = 0
        record[seat]["sixes_revealed"] = 1
    record["blue"]["six_marks"][0] = record["red"]["six_marks"][1] = 1
    return record


def test_a_record_with_single_six_marks_loads() -> None:
    """The base of the cases below is a position the rules reach: it loads."""
    Game.from_dict(marked_record())


def red_warlords(held: list[str], used: list[str]) -> dict[str, list[str]]:
    unchosen = [w for w in WARLORD_NAMES[5:] if w not in held + used]
    return {"held": held, "used": used, "unchosen": unchosen}


@pytest.mark.parametrize(
    ("seat", "marks", "warlords", "message"),
    [
        ("blue", [2, 0, 0, 0, 0], None, r"blue\.six_marks\[0\]: two six-marks in .*only red's double_six"),
        (
            "red",
            [0, 2, 0, 0, 0],
            (["double_six"], []),
            r"red\.six_marks\[1\]: two .* double_six is unspent",
        ),
        ("red", [0, 2, 0, 0, 0], (["purge"], []), r"red\.six_marks\[1\]: .* while double_six is unspent"),
        ("red", [2, 2, 0, 0, 0], ([], ["double_six"]), r"red\.six_marks\[1\]: two six-marks in a second province"),
    ],
)
def test_six_marks_beyond_what_the_rules_allow_are_refused(
    seat: str, marks: list[int], warlords: tuple[list[str], list[str]] | None, message: str
) -> None:
    """P4: one six-mark a province; red's double_six allows one second mark, and placing that `6` spends it."""
    record = marked_record()
    record[seat]["six_marks"] = marks
    record[seat]["sixes_revealed"] = sum(marks)
    if warlords is not None:
        record["red"]["warlords"] = red_warlords(*warlords)
    with pytest.raises(RecordError, match=message):
        Game.from_dict(record)


def test_red_may_have_a_second_six_mark_once_double_six_is_spent() -> None:
    record = marked_record(round_=3)  # two `6`s take two rounds (R7.4)
    record["red"]["six_marks"] = [0, 2, 0, 0, 0]
    record["red"]["sixes_revealed"] = 2
    record["red"]["warlords"] = red_warlords([], ["double_six"])
    Game.from_dict(record)


def test_without_warlords_no_second_six_mark() -> None:
    record = marked_record("beginner")
    record["red"]["six_marks"] = [0, 2, 0, 0, 0]
    record["red"]["sixes_revealed"] = 2
    with pytest.raises(RecordError, match=r"red\.six_marks\[1\]: two six-marks .* only red's double_six"):
        Game.from_dict(record)


# ---------------------------------------------------------------- history: what the round says has happened


def test_the_marker_moves_only_at_scorings() -> None:
    """R4.5: before round 3's scoring the marker stands where setup left it (0 in the beginner variant)."""
    record = played_record("beginner", round_start(2))
    assert record["score"] == 0
    record["score"] = 2
    with pytest.raises(RecordError, match=r"^bad game record: score: 2 before the first scoring"):
        Game.from_dict(record)
    Game.from_dict(record, hand_made=True)  # a scenario may set the marker anywhere


def test_head_start_moves_the_marker_by_one() -> None:
    """R3.3: with head_start spent, the marker stands at +1 until the first scoring, not at 0."""
    record = played_record("standard", lambda g: g.round == 2 and g.to_dict()["score"] == 1, seed=0)
    assert "head_start" in record["blue"]["warlords"]["used"]
    record["score"] = 0
    with pytest.raises(RecordError, match=r"^bad game record: score: 0 before the first scoring .* stands at 1"):
        Game.from_dict(record)


def test_a_marker_at_nine_ends_the_game() -> None:
    """R6.1: a scoring that leaves the marker at +-9 ends the game, so no game goes on with it there."""
    record = played_record("beginner", round_start(4))
    record["score"] = -9
    with pytest.raises(RecordError, match=r"^bad game record: score: -9 while the game goes on"):
        Game.from_dict(record)


def test_one_six_a_round() -> None:
    """R7.4: a side reveals its one `6` at most once a round: 2 are too many at the start of round 2."""
    record = played_record("beginner", round_start(2))
    record["blue"]["sixes_revealed"] = 2
    with pytest.raises(RecordError, match=r"^bad game record: blue\.sixes_revealed: 2: one `6` a round, at most 1"):
        Game.from_dict(record)


def test_each_plague_copy_once_a_round() -> None:
    """R7.1: two copies a side, so at most 4 Plague reveals in round 1."""
    record = played_record("beginner", round_start(2))
    record["plague_reveals"] = 5
    with pytest.raises(RecordError, match=r"^bad game record: plague_reveals: 5: .* at most 4"):
        Game.from_dict(record)


def test_the_deck_shrinks_by_one_or_two_cards_a_round() -> None:
    """R3.2, R4.6: the beginner deck holds 8 cards after setup, so 6 or 7 at the start of round 2."""
    record = played_record("beginner", round_start(2))
    assert len(record["red"]["deck"]) in (6, 7)
    record["red"]["hand"] += record["red"]["deck"][:3]
    record["red"]["deck"] = record["red"]["deck"][3:]
    with pytest.raises(RecordError, match=r"^bad game record: red\.deck: [34] cards after 1 draws: expected 6\.\.7"):
        Game.from_dict(record)


def test_no_army_on_the_board_before_the_first_battle() -> None:
    """R3.2: the provinces are empty at setup; only a window or a battle brings armies there."""
    record = played_record("beginner", round_start(1))
    record["blue"]["armies"][0] = 1
    record["blue"]["reserve"] -= 1
    with pytest.raises(RecordError, match=r"^bad game record: blue\.armies\[0\]: armies in a province before"):
        Game.from_dict(record)


@pytest.mark.parametrize("change", ["recall without a card", "card without a recall"])
def test_before_the_first_battle_only_a_recall_discards(change: str) -> None:
    """R3.2, R4.2: 3 armies set aside at setup (standard); each recall brings one back and discards a card."""
    record = played_record("standard", lambda g: g.to_dict()["phase"] == "placement")
    assert record["round"] == 1 and record["red"]["set_aside"] == 3 and "engine" not in record
    if change == "recall without a card":
        record["red"]["set_aside"] -= 1
        record["red"]["reserve"] += 1
    else:
        record["red"]["hand"].remove(next(c for c in record["red"]["hand"] if c not in "123456"))
    with pytest.raises(RecordError, match=r"^bad game record: red\.set_aside: .* only a recall discards a card"):
        Game.from_dict(record)


def test_every_event_in_play_before_the_first_battle() -> None:
    """R3.4: events are applied in battles (R7): in round 1's placement all five are in play."""
    record = played_record("beginner", round_start(1), events=True)
    record["events"]["deck"] = record["events"]["deck"][1:]
    with pytest.raises(RecordError, match=r"^bad game record: events\.deck: every event card is in play"):
        Game.from_dict(record)


def test_a_second_warlord_only_from_war_chariot() -> None:
    """R3.3, R7.4: one warlord at setup; a second only through war_chariot (not in play here: no events)."""
    record = played_record("standard", round_start(2))
    warlords = record["red"]["warlords"]
    warlords["held"].append(warlords["unchosen"].pop())
    with pytest.raises(RecordError, match=r"^bad game record: red\.warlords: two warlords chosen: .*war_chariot"):
        Game.from_dict(record)


def test_a_warlord_is_spent_only_once_it_could_act() -> None:
    """R8: before round 1's window no warlord but head_start (at setup) can have acted."""
    record = played_record("standard", lambda g: g.to_dict()["phase"] == "placement")
    record["red"]["warlords"] = red_warlords([], ["purge"])
    with pytest.raises(RecordError, match=r"^bad game record: red\.warlords\.used: purge is spent before it could act"):
        Game.from_dict(record)


def test_double_six_is_spent_by_a_second_six() -> None:
    """P4: double_six is spent when red's `6` is revealed where its first one marked: two `6`s at least."""
    record = marked_record()
    record["red"]["warlords"] = red_warlords([], ["double_six"])
    with pytest.raises(RecordError, match=r"^bad game record: red\.warlords\.used: double_six is spent by a second"):
        Game.from_dict(record)


@pytest.mark.parametrize("event", ["pandemic", "war_chariot"])
def test_an_event_leaves_play_only_once_its_condition_held(event: str) -> None:
    """R7.1, R7.4: at round 2's start nobody has revealed four Plague copies or three `6`s."""
    record = played_record("beginner", round_start(2), events=True)
    events = record["events"]
    if events["face_up"] == event:
        events["face_up"] = events["deck"].pop(0)
    elif event in events["deck"]:
        events["deck"].remove(event)
    with pytest.raises(RecordError, match=rf"^bad game record: events\.deck: {event} has left play, but its"):
        Game.from_dict(record)
