"""The agent protocol: what every player of Sun Tzu implements, declared once for the whole package.

The scripted agents (`agents`), the learned ones (`agents.ppo`), the opponent inside `SunTzuGymEnv` and
the evaluation and play front-ends all speak it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """A player: maps what its side observes (R9) and the legal-action mask to an action id.

    `act` receives the float32 vector of `suntzu_env.observation` and the int8 mask of
    `Game.legal_mask()` (at least two legal actions, R10) and must return a legal action id.
    `reset(seed)` starts a new game; a seed makes the agent's own randomness reproducible,
    None keeps its current random stream.

    An agent that searches (`ismcts`) also has `observe_game(game, seat)`: whoever asks it to act hands it
    the current `Game` first (`suntzu_env.protocol.ask` does both). It must use that game only through
    `game.sample_determinization(seat, ...)` (`suntzu_env.determinize`), which shows nothing the seat may
    not know (R9).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


__all__ = ["Agent"]
