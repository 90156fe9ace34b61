"""Golden playthroughs: whole games, checked in, that every change of the engine must replay unchanged.

`tests/suntzu/game/golden/playthroughs.json` holds games of both variants, with and without events, on the declared
map and on another one: some played by seeded random choice, some by the scripted agents. For each game
it holds every decision's legal answers and the answer taken (action strings), the R11 record at the
start of every round, the final record, the winner and the replay record. A refactor that changes any
of it fails here. A deliberate change of the rules or of the record format regenerates the file with

    python tests/suntzu/game/test_golden.py --write

and the diff is reviewed as part of that change.

`golden/playthroughs_xorshift32.json` holds the same games as dealt by the generator of the records made before
`suntzu_env.core.rng.GENERATOR` (their records name no generator): each still replays decision by decision, legal
answers included, to its final record.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # `python tests/suntzu/game/test_golden.py --write` from a checkout
    sys.path.insert(0, str(ROOT))

from agents import make_agent  # noqa: E402
from suntzu_env import Game  # noqa: E402
from suntzu_env.suntzu.records import read_rules  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "playthroughs.json"
OLDER = GOLDEN.with_name("playthroughs_xorshift32.json")  # games whose records name no generator
RING = (("QIN", "CHU"), ("CHU", "JIN-YAN"), ("JIN-YAN", "HAN-QI"), ("HAN-QI", "WU"), ("WU", "QIN"))

# (name, seed, options, players): players are "random" (seeded choice among the legal strings) or two agent specs.
CASES: tuple[tuple[str, int, dict[str, Any], tuple[str, str]], ...] = (
    ("standard-random", 11, {"variant": "standard", "events": False}, ("random", "random")),
    ("standard-events-random", 12, {"variant": "standard", "events": True}, ("random", "random")),
    ("beginner-random", 13, {"variant": "beginner", "events": False}, ("random", "random")),
    ("beginner-events-random", 14, {"variant": "beginner", "events": True}, ("random", "random")),
    ("standard-events-random-2", 15, {"variant": "standard", "events": True}, ("random", "random")),
    ("ring-map-random", 16, {"variant": "standard", "events": True, "adjacency": RING}, ("random", "random")),
    ("standard-heuristic-greedy", 21, {"variant": "standard", "events": False}, ("heuristic", "greedy")),
    ("standard-events-greedy-heuristic", 22, {"variant": "standard", "events": True}, ("greedy", "heuristic")),
    ("beginner-heuristic-heuristic", 23, {"variant": "beginner", "events": True}, ("heuristic", "heuristic")),
)


def play(seed: int, options: dict[str, Any], players: tuple[str, str]) -> dict[str, Any]:
    """Play one game and write down everything the golden file keeps of it."""
    game = Game.new(seed, **options)
    chooser = random.Random(seed)
    agents = None
    if players != ("random", "random"):
        agents = {
            seat: make_agent(spec, seed=seed + i)
            for i, (seat, spec) in enumerate(zip(("blue", "red"), players, strict=True))
        }
    steps: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = [game.to_dict()]
    while not game.is_terminal:
        seat = game.current_player
        legal = game.legal_action_strings()
        if agents is None:
            action = chooser.choice(legal)
        else:
            action = game.action_to_string(agents[seat].act(game.observation(seat), game.legal_mask()))
        before = game.round
        game.apply(action)
        steps.append({"player": seat, "legal": legal, "action": action})
        if game.round != before and not game.is_terminal:
            rounds.append(game.to_dict())
    return {
        "steps": steps,
        "round_records": rounds,
        "final_record": game.to_dict(),
        "winner": game.winner,
        "score": game.score,
        "record": game.record(),
    }


def golden_games() -> list[dict[str, Any]]:
    games = []
    for name, seed, options, players in CASES:
        shown = (
            {**options, "adjacency": [list(pair) for pair in options["adjacency"]]}
            if "adjacency" in options
            else options
        )
        games.append(
            {"name": name, "seed": seed, "options": shown, "players": list(players), **play(seed, options, players)}
        )
    return games


@pytest.fixture(scope="module")
def golden() -> dict[str, dict[str, Any]]:
    return {game["name"]: game for game in json.loads(GOLDEN.read_text())}


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_golden_playthrough(case: tuple[str, int, dict[str, Any], tuple[str, str]], golden: dict[str, Any]) -> None:
    name, seed, options, players = case
    want = golden[name]
    got = play(seed, options, players)
    for i, (a, b) in enumerate(zip(got["steps"], want["steps"], strict=False)):
        assert a == b, f"{name}: decision {i} differs"
    assert len(got["steps"]) == len(want["steps"]), name
    for i, (a, b) in enumerate(zip(got["round_records"], want["round_records"], strict=True)):
        assert a == b, f"{name}: record at the start of round {i + 1} differs"
    assert got["final_record"] == want["final_record"]
    assert (got["winner"], got["score"], got["record"]) == (want["winner"], want["score"], want["record"])
    assert Game.replay(want["record"]).to_dict() == want["final_record"]


@pytest.mark.parametrize("name", [case[0] for case in CASES])
def test_an_older_record_replays_under_the_generator_it_was_dealt_by(name: str) -> None:
    """A record that names no generator was dealt by the older one; it replays exactly, decision by decision."""
    want = {game["name"]: game for game in json.loads(OLDER.read_text())}[name]
    assert "generator" not in want["record"]
    game = Game.replay({**want["record"], "actions": []})
    assert game.to_dict() == want["round_records"][0]
    for i, step in enumerate(want["steps"]):
        assert (game.current_player, game.legal_action_strings()) == (step["player"], step["legal"]), f"decision {i}"
        game.apply(step["action"])
    assert game.to_dict() == want["final_record"]
    assert game.record() == want["record"]  # and its record still names no generator
    assert Game.new(want["seed"], **read_rules(want["record"]["rules"])).to_dict() != want["round_records"][0]


def test_golden_games_cover_the_variants_and_the_ends(golden: dict[str, Any]) -> None:
    """Both variants, with and without events, games won by each side, games ended early at +-9."""
    assert {game["winner"] for game in golden.values()} >= {"blue", "red"}
    assert {(game["options"]["variant"], game["options"]["events"]) for game in golden.values()} == {
        (variant, events) for variant in ("standard", "beginner") for events in (False, True)
    }
    assert any(len(game["round_records"]) < 9 for game in golden.values())


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/suntzu/game/test_golden.py --write   (regenerates golden/playthroughs.json)")
    GOLDEN.parent.mkdir(exist_ok=True)
    tmp = GOLDEN.with_suffix(".tmp")
    tmp.write_text(json.dumps(golden_games(), indent=1) + "\n")
    tmp.replace(GOLDEN)
    print(f"wrote {GOLDEN}")
