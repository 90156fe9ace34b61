"""Batches and random playouts: the same engine over an (N, S) array of states and whole games."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.core.rng import rng_below, rng_seed
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.drive import init_state, step
from suntzu_env.suntzu.layout import DEC_KIND, DK_NONE, SCORE, STATE_DTYPE, STATE_SIZE, WINNER


@njit(cache=True)
def step_batch(states: np.ndarray, actions: np.ndarray, masks: np.ndarray) -> None:
    """`step` over a batch: row i of `states` takes `actions[i]` (games already over are skipped)."""
    for i in range(states.shape[0]):
        if states[i, DEC_KIND] != DK_NONE:
            step(states[i], actions[i], masks[i])


@njit(cache=True, inline="always")
def random_action(rng: np.ndarray, mask: np.ndarray, n_legal: int) -> int:
    """A uniformly random legal action."""
    pick = rng_below(rng, n_legal)
    seen = -1
    for a in range(N_ACTIONS):
        seen += mask[a] != 0
        if seen == pick:
            return a
    return -1


@njit(cache=True)
def random_playouts(n_games: int, seed: int, variant: int, events: int, adj: np.ndarray) -> np.ndarray:
    """Play `n_games` uniformly random games (seeds seed..seed+n-1); rows: winner, decisions, score."""
    out = np.zeros((n_games, 3), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    rng = rng_seed(seed ^ 0x5DEECE66D)
    for g in range(n_games):
        n = init_state(s, seed + g, variant, events, adj, mask)
        steps = 0
        while n > 0:
            n = step(s, random_action(rng, mask, n), mask)
            steps += 1
        out[g, 0] = s[WINNER]
        out[g, 1] = steps
        out[g, 2] = s[SCORE]
    return out
