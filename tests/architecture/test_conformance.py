"""Every registered game (`suntzu_env.core.games.names()`) and Duel (`tests/toy_game`, loaded from its folder the way
a command line names a game of one's own) passes the conformance suite the package ships (`suntzu_env.testing`),
check by check (the slowest marked `slow`: `python -m pytest -m slow`); a check that finds nothing to check in a
game (no OpenSpiel game, no turn limit) is skipped. That each check can fail is
`tests/architecture/test_conformance_checks.py`'s.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest
from suntzu_env.core import games
from suntzu_env.testing import CHECKS
from suntzu_env.testing import NotApplicable

TOY = "toy_game:DUEL"
games.load(TOY)
NAMES = games.names()


SLOW = ("ecosystem", "more_seats", "seeding", "another_process")  # checkers, batched envs, a second process


@pytest.mark.parametrize("check", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in CHECKS])
@pytest.mark.parametrize("name", NAMES)
def test_the_game_conforms(name: str, check: str) -> None:
    try:
        CHECKS[check](games.load(name))
    except NotApplicable as why:
        pytest.skip(str(why))


# Each game's OpenSpiel game under options beside its defaults (which the suite's `openspiel` check plays): Sun
# Tzu's variants with and without events; Bin'Fa with 2 to 6 players, every level, both deployments, 3 armies each,
# short games (max_turns) keeping the test quick.
OPENSPIEL_OPTIONS = {
    "suntzu": [{"variant": "standard", "events": False}, {"variant": "beginner", "events": True}],
    "binfa": [
        {"players": 2, "level": 1, "max_turns": 8},
        {"players": 3, "level": 2, "max_turns": 6, "seed": 4},
        {"players": 4, "level": 3, "max_turns": 6, "deployment": "random", "seed": 5},
        {"players": 5, "level": 1, "max_turns": 5, "deployment": "random", "seed": 8},
        {"players": 6, "level": 4, "max_turns": 4, "deployment": "random", "seed": 6},
        {"players": 2, "level": 3, "armies_per_player": 3, "max_turns": 4, "seed": 2},
    ],
}


@pytest.mark.parametrize(("name", "params"), [(n, p) for n, ps in OPENSPIEL_OPTIONS.items() for p in ps])
def test_openspiel_random_simulation_under_other_options(name: str, params: dict[str, Any]) -> None:
    """OpenSpiel's random simulation test (legal actions, chance, returns, tensors, strings, clones, serialization)
    on the game's OpenSpiel game made with `params`."""
    # CI installs the test extra, which holds the openspiel one: there this test must run
    pyspiel = importlib.import_module("pyspiel") if os.environ.get("CI") else pytest.importorskip("pyspiel")
    games.load(name).openspiel_game()  # registers the game's `python_<name>` with OpenSpiel
    game = pyspiel.load_game(f"python_{name}", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
