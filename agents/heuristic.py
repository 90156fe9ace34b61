"""`HeuristicAgent`: the compiled `heuristic` baseline (`suntzu_env.baselines.heuristic`) as an `Agent`."""

from __future__ import annotations

import numpy as np

from agents.base import checked
from suntzu_env.baselines import DEFAULT_PARAMS, HeuristicParams, heuristic_act, heuristic_params_array


class HeuristicAgent:
    """A strategy written from the rules (docs/rules.md), deciding from the observation alone.

    It values provinces by their coming scorings, plans each round's placement as the best expected
    assignment of its hand, saves high cards and Plagues for the scoring rounds, recalls leftovers, and
    uses warlords when the gain now clears a bar (the ideas in full: `suntzu_env.baselines.heuristic`).
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


__all__ = ["DEFAULT_PARAMS", "HeuristicAgent", "HeuristicParams"]
