"""The agent protocol and its types, declared once for the whole package: `Agent` (what every player of Sun Tzu
implements), `Policy` and `Opponent` (what an environment plays against) and `AgentKind` (a kind of player that
specs name, as `suntzu_env.core.players` registers them).

The scripted agents (`suntzu_env.suntzu.baselines.players`), the search and the learned ones (`agents`), the opponent
inside `SunTzuGymEnv` and `SunTzuVecEnv`, and the evaluation and play front-ends all speak it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

MODEL_FILE = "model.zip"  # a training run folder's final model
CHECKPOINT_DIR = "checkpoints"  # a run folder's checkpoints, `ppo_<timesteps>_steps.zip`


@runtime_checkable
class Agent(Protocol):
    """A player: maps what its side observes (R9) and the legal-action mask to an action id.

    `act` receives the float32 vector of `suntzu_env.suntzu.observation` and the int8 mask of
    `Game.legal_mask()` (at least two legal actions, R10) and must return a legal action id.
    `reset(seed)` starts a new game; a seed makes the agent's own randomness reproducible,
    None keeps its current random stream.

    An agent that searches (`ismcts`) also has `observe_game(game, seat)`: whoever asks it to act hands it
    the current `Game` first (`suntzu_env.core.protocol.ask` does both). It must use that game only through
    `game.sample_determinization(seat, ...)` (`suntzu_env.suntzu.determinize`), which shows nothing the seat may
    not know (R9). A search that the batched environment can play as an opponent also has `act_in_state(state, seat,
    mask, rng)`: the move for `seat` in a game's engine state, drawn from that game's generator (`rng`, advanced in
    place), reading the state only through determinizations.

    An agent that decides for many games at once also has `act_batch(observations[M, D], masks[M, A]) ->
    actions[M]`; the batched environment asks it once per opponent round.

    An agent that weighs every move before it plays one (a search) may also have `policy_target() -> (A,) float32`:
    how much it thought of each action at its last decision (the search's visits at its root), summing to 1;
    a warm start learns those shares where the teacher gives them (`experiments.warm_start`).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


Policy = Callable[[np.ndarray, np.ndarray], Any]
"""A policy as a function: `(observation, mask) -> action`, or in a batched environment
`(observations[M, D], masks[M, A]) -> actions[M]`."""

Opponent = str | Agent | Policy
"""What an environment plays against: an agent spec (`make_agent`), an `Agent` (or any object with `act` or
`act_batch`), or a `Policy`."""


@dataclass(frozen=True)
class AgentKind:
    """A kind of player that specs name: `name` alone (when `bare`) and/or `name:<argument>` (when `argument`
    describes one, e.g. "<path-to-model>").

    `make(argument, seed)` builds the agent (argument None for the bare name); `check(argument)` raises
    ValueError, saying why, for an argument `make` would refuse, without loading anything. `batched`: its
    agents have `act_batch` and do not search the game, so batched play can play them. `load(argument, seed,
    rules)`: a kind of trained model that any game can play, loaded for `rules`' observation and action sizes
    (a model of another game refused); the games other than Sun Tzu name only such kinds besides their own
    agents.
    """

    name: str
    make: Callable[[str | None, int | None], Agent]
    argument: str | None = None
    bare: bool = True
    check: Callable[[str], None] | None = None
    batched: bool = False
    load: Callable[[str, int | None, Any], Agent] | None = None


def searches_states(agent: Any) -> bool:
    """Whether `agent` searches the game itself but can be asked from a batched env's engine state:
    `act_in_state(state, seat, mask, rng)` (see `Agent`)."""
    return callable(getattr(agent, "act_in_state", None))


class ModelError(ValueError):
    """A path that holds no loadable model (missing, unreadable, or made for another game layout)."""


class IncompatibleModelError(ModelError):
    """A model trained for other observation or action spaces than this version's."""


__all__ = ["Agent", "AgentKind", "IncompatibleModelError", "ModelError", "Opponent", "Policy", "searches_states"]
