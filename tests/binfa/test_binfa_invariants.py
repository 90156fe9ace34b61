"""Bin'Fa invariants in random play: hundreds of compiled games across levels and player counts, the state
checked after every decision (`suntzu_env.binfa.engine.INVARIANTS`): units conserved per army until
captured or lost, stacks consistent with their units and colours, tokens conserved between store and
armies, no unit on terrain, no surrounded stack left (encirclement applied whenever it holds), eliminated
armies off the board, pawns, and two answers or more per decision.

A larger sweep (a million games) runs with `python -m suntzu_env.binfa.playouts --sweep --check --games N`.
"""

from __future__ import annotations

import pytest

from suntzu_env.binfa.engine import INVARIANTS
from suntzu_env.binfa.playouts import CONFIGS, play


@pytest.mark.parametrize("level", [1, 2, 3, 4])
@pytest.mark.parametrize(("players", "armies"), CONFIGS)
def test_invariants_random_play(level: int, players: int, armies: int):
    for patient in (False, True):
        out = play(6, 100 * level + players, level, players, armies, check=True, patient=patient, max_turns=120)
        broken = [INVARIANTS[int(c)] for c in out[:, 3] if c]
        assert not broken, broken[0]
        assert (out[:, 1] > 0).all()


def test_patient_games_end():
    """Sanity of the sweep: patient random players do capture and eliminate (some games are decided)."""
    out = play(20, 7, 1, 2, 1, check=True, patient=True, max_turns=400)
    assert (out[:, 3] == 0).all()
    assert (out[:, 0] < 6).any()
