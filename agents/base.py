"""The agent protocol, the random baseline, and the checks every compiled baseline's input passes first."""

from __future__ import annotations

import random

import numpy as np

from suntzu_env.actions import N_ACTIONS
from suntzu_env.agent import Agent as Agent  # declared once, in the package
from suntzu_env.baselines import random_act
from suntzu_env.engine.rng import rng_seed
from suntzu_env.observation import OBSERVATION_SIZE


def checked(observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The observation as float32 and the mask as int8, contiguous; ValueError unless they fit the game."""
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    mask = np.ascontiguousarray(action_mask, dtype=np.int8)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"observation must have shape ({OBSERVATION_SIZE},), got {obs.shape}")
    if mask.shape != (N_ACTIONS,) or not mask.any():
        raise ValueError(f"action_mask must have shape ({N_ACTIONS},) with a legal action, got shape {mask.shape}")
    return obs, mask


def generator(seed: int | None) -> np.ndarray:
    """A compiled generator's state (`engine.rng`) from a seed; None draws one from the system's entropy."""
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a whole number or None, got {seed!r}")
    return rng_seed(int(seed) % (1 << 63))


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator (`suntzu_env.baselines.random_act`)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = generator(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = generator(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs, mask = checked(observation, action_mask)
        return int(random_act(obs, mask, self._rng))
