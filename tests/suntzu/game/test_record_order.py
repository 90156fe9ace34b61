"""R4.1, R11: a game's record keeps what each seat did in the rules' order (blue's placements of a round, then
red's) however the seats' simultaneous placements were interleaved with `apply_for`, so that `Game.replay`
rebuilds the very game.

Hypothesis plays whole games in which, at every placement, the seat not asked places its own next card first
with a probability drawn per game (from 0.1 to 1: red places all its cards before blue's first);
the other answers are random legal ones. The suite counts the placement phases with a placement out of turn
and needs at least `INTERLEAVINGS` (10,000) of them.
"""

from __future__ import annotations

import os
import random

import numpy as np
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env import Game
from suntzu_env.suntzu.rules import SEATS

INTERLEAVINGS = int(os.environ.get("SUNTZU_INTERLEAVINGS", "10000"))
GAMES = max(1, INTERLEAVINGS // 6)  # about 7 interleaved placement phases a game
CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]


def play(seed: int, lean: float, variant: str, events: bool) -> tuple[Game, int]:
    """A random game with placements out of turn; how many placement phases had one."""
    rng = random.Random(seed)
    g = Game.new(seed, variant, events)
    phases, last = 0, None
    while (asked := g.current_player) is not None:
        other = SEATS[1 - SEATS.index(asked)]
        if g.decision["kind"] == "place" and rng.random() < lean:
            mask = g.placement_mask(other)
            if mask.any():
                g.apply_for(other, rng.choice(np.flatnonzero(mask).tolist()))
                phases += last != g.round
                last = g.round
                continue
        g.apply_for(asked, rng.choice(g.legal_actions()))
    return g, phases


def test_the_record_replays_the_game_however_placements_interleave() -> None:
    counted: list[int] = []

    @settings(max_examples=GAMES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(seed=st.integers(0, 2**40), lean=st.floats(0.1, 1.0), config=st.sampled_from(CONFIGS))
    def one_game(seed: int, lean: float, config: tuple[str, bool]) -> None:
        g, phases = play(seed, lean, *config)
        replayed = Game.replay(g.record())
        assert replayed.to_dict() == g.to_dict()
        assert replayed.record() == g.record()
        counted.append(phases)

    one_game()
    assert sum(counted) >= INTERLEAVINGS, f"only {sum(counted)} interleaved placement phases in {len(counted)} games"
