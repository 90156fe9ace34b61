"""Bin'Fa golden playthroughs: whole games, decision by decision, checked in; every change of the engine
must replay them unchanged.

`tests/binfa/golden/binfa_playthroughs.json` holds games of every level and several player counts, played by
seeded random choice among the legal strings: for each decision the player, its legal answers and the one
taken, then the final position, the winner and the record. A deliberate change of the rules or of the
record format regenerates the file with

    python tests/binfa/test_binfa_golden.py --write

and the diff is reviewed as part of that change.

`golden/binfa_playthroughs_xorshift32.json` holds games dealt and thrown by the generator of the records made before
`suntzu_env.core.rng.GENERATOR` (their records name no generator), and `golden/binfa_playthroughs_v1.json` games of
rules v1 (`"rules_version": 1`); both were played under rules v1 and each still replays under them, decision by
decision, to its final position.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `python tests/binfa/test_binfa_golden.py --write` from a checkout
    sys.path.insert(0, str(ROOT))

from suntzu_env.binfa import Game  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "binfa_playthroughs.json"
OLDER = GOLDEN.with_name("binfa_playthroughs_xorshift32.json")  # games whose records name no generator
RULES_V1 = GOLDEN.with_name("binfa_playthroughs_v1.json")  # games of rules v1, of the one generator

CASES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("level1-2p", 11, {"level": 1, "players": 2, "max_turns": 40}),
    ("level2-3p", 12, {"level": 2, "players": 3, "max_turns": 30, "deployment": "random"}),
    ("level3-2p", 13, {"level": 3, "players": 2, "max_turns": 40, "deployment": "random"}),
    ("level4-2p", 14, {"level": 4, "players": 2, "max_turns": 40, "deployment": "random"}),
    ("level4-6p", 15, {"level": 4, "players": 6, "max_turns": 30, "deployment": "random"}),
    (
        "level3-2p-3armies",
        16,
        {"level": 3, "players": 2, "armies_per_player": 3, "max_turns": 30, "deployment": "random"},
    ),
)


def play(seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One game by seeded random choice, and everything the golden file keeps of it. Players never stop
    while they have another answer, so that games fight."""
    game = Game.new(seed, **options)
    chooser = random.Random(seed)
    steps: list[list[Any]] = []
    while not game.is_terminal:
        legal = game.legal_action_strings()
        action = chooser.choice([a for a in legal if a != "stop"] or legal)
        steps.append([game.current_player, len(legal), action])
        game.apply(action)
    return {"steps": steps, "final": game.to_dict(), "winner": game.winner, "record": game.record()}


def load() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(case):
    name, seed, options = case
    expected = load()[name]
    got = json.loads(json.dumps(play(seed, options)))
    for i, (a, b) in enumerate(zip(got["steps"], expected["steps"], strict=False)):
        assert a == b, f"{name}: decision {i} differs: {a} != {b}"
    assert got == expected
    assert Game.replay(expected["record"]).to_dict() == expected["final"]
    assert expected["record"]["rules_version"] == "1.1"


def replays_as_recorded(want: dict[str, Any]) -> Game:
    """The game of a golden record of rules v1, replayed decision by decision as its steps say."""
    assert want["record"]["rules_version"] == 1
    game = Game.replay({**want["record"], "actions": []})
    for i, (player, n_legal, action) in enumerate(want["steps"]):
        assert (game.current_player, len(game.legal_action_strings())) == (player, n_legal), f"decision {i}"
        game.apply(action)
    assert game.record() == want["record"] and game.rules_version == 1
    return game


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_a_record_of_rules_v1_replays_under_v1(name):
    """A record of rules 1 replays exactly, decision by decision, under rules v1 (stops before any throw, stacks
    over 12, whirlpool exits that cover), and its position names those rules."""
    want = json.loads(RULES_V1.read_text())[name]
    game = replays_as_recorded(want)
    assert game.to_dict() == {**want["final"], "rules_version": 1}


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_an_older_record_replays_under_the_generator_it_was_dealt_by(name):
    """A record that names no generator was set up and thrown by the older one; it replays exactly, decision by
    decision, and its position names that generator."""
    want = json.loads(OLDER.read_text())[name]
    assert "generator" not in want["record"]
    game = replays_as_recorded(want)
    assert game.to_dict() == {**want["final"], "generator": "xorshift32", "rules_version": 1}
    assert Game.replay(want["record"]).to_dict()["rng"] == want["final"]["rng"]


def write() -> None:
    data = {name: play(seed, options) for name, seed, options in CASES}
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    tmp = GOLDEN.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    tmp.replace(GOLDEN)
    print(f"wrote {GOLDEN}: " + ", ".join(f"{n} {len(d['steps'])} decisions" for n, d in data.items()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print("usage: python tests/binfa/test_binfa_golden.py --write")
