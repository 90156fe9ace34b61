"""The scripted baselines as `Agent`s: `RandomAgent`, `GreedyAgent`, `HeuristicAgent`, thin wrappers over the
compiled functions of `suntzu_env.suntzu.baselines`, and the checks every compiled baseline's input passes first."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from suntzu_env.core.agent import Agent, AgentKind
from suntzu_env.core.rng import rng_seed
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.baselines import (
    DEFAULT_PARAMS,
    HeuristicParams,
    greedy_act,
    heuristic_act,
    heuristic_params_array,
    random_act,
)
from suntzu_env.suntzu.observation import OBSERVATION_SIZE


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
    """Uniform over the legal actions, from its own seeded generator (`suntzu_env.suntzu.baselines.random_act`)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = generator(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = generator(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs, mask = checked(observation, action_mask)
        return int(random_act(obs, mask, self._rng))


class GreedyAgent:
    """A one-step rule, with no look-ahead and no saving of cards (see `suntzu_env.suntzu.baselines.greedy`).

    Its strongest cards go where the coming scoring pays most and the margin can still change; it
    recalls only in round 9, keeps its strongest drawn card, uses a window warlord as soon as it gains
    something now and pays from the reserve first. Deterministic: the seed is kept but never read.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs, mask = checked(observation, action_mask)
        return int(greedy_act(obs, mask))


class HeuristicAgent:
    """A strategy written from the rules (docs/rules.md), deciding from the observation alone.

    It values provinces by their coming scorings, plans each round's placement as the best expected
    assignment of its hand, saves high cards and Plagues for the scoring rounds, recalls leftovers, and
    uses warlords when the gain now clears a bar (the ideas in full: `suntzu_env.suntzu.baselines.heuristic`).
    `params` (`HeuristicParams`) holds its knobs; the defaults are the agent of the registry.
    Deterministic: the seed is kept but never read.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, params: HeuristicParams = DEFAULT_PARAMS) -> None:
        self.seed = seed
        self.params = params
        self.params_array = heuristic_params_array(params)  # checked here, read by the compiled code

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs, mask = checked(observation, action_mask)
        return int(heuristic_act(obs, mask, self.params_array))


def _kind(name: str, agent: Callable[[int | None], Agent]) -> AgentKind:
    return AgentKind(name, lambda argument, seed: agent(seed))


BASELINE_KINDS: tuple[AgentKind, ...] = (
    _kind("random", RandomAgent),
    _kind("greedy", GreedyAgent),
    _kind("heuristic", HeuristicAgent),
)

__all__ = ["BASELINE_KINDS", "GreedyAgent", "HeuristicAgent", "RandomAgent", "checked", "generator"]
