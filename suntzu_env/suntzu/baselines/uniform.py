"""`random`: uniform over the legal actions, from a seeded generator (the engine's xorshift, `engine.rng`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.batch import random_action


@njit(cache=True)
def random_act(obs: np.ndarray, mask: np.ndarray, rng: np.ndarray) -> int:
    """A legal action drawn uniformly with `rng` (an `engine.rng.rng_seed` state, advanced); obs is unread."""
    legal = 0
    for a in range(N_ACTIONS):
        if mask[a] != 0:
            legal += 1
    return random_action(rng, mask, legal)


@njit(cache=True)
def random_act_batch(obs: np.ndarray, masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """`random_act` for each row of masks (N, N_ACTIONS), in order from one generator, into out (N,)."""
    for i in range(masks.shape[0]):
        out[i] = random_act(obs[i], masks[i], rng)
