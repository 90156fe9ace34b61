"""`GreedyAgent`: the compiled `greedy` baseline (`suntzu_env.baselines.greedy`) as an `Agent`."""

from __future__ import annotations

import numpy as np

from agents.base import checked
from suntzu_env.baselines import greedy_act


class GreedyAgent:
    """A one-step rule, with no look-ahead and no saving of cards (see `suntzu_env.baselines.greedy`).

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
