"""Every registered game (`suntzu_env.core.games.names()`) and Duel (`tests/toy_game`, loaded from its folder the way
a command line names a game of one's own) passes the conformance suite the package ships (`suntzu_env.testing`),
check by check (the slowest marked `slow`: `python -m pytest -m slow`); a check that finds nothing to check in a
game (no OpenSpiel game, no turn limit) is skipped. That each check can fail is
`tests/architecture/test_conformance_checks.py`'s.
"""

from __future__ import annotations

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
