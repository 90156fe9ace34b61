"""The seam between a game and the experiments: what training, evaluation and the notebooks ask of a game.

`experiments.train`, `experiments.evaluate` and the notebooks drive a game only through these protocols, so a
second game plugs in by providing a `GameRules` value (Sun Tzu's is `suntzu_env.SUNTZU`) and naming it in
`experiments/game.py`. Nothing here imports a game.

A game is turn-based, with two or more named seats, a flat discrete action space (`n_actions` ids, each with
a string) and a flat float32 observation of `observation_size` per seat. Simultaneous decisions are asked one
seat at a time. All its randomness comes from the seed it is made with, so seed, options and actions (its
`record()`) replay it exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

O = TypeVar("O", bound="GameOptions")


@runtime_checkable
class GameOptions(Protocol):
    """The validated rules one game is played under (a variant, a map, ...), as a frozen value."""

    def as_dict(self) -> dict[str, Any]:
        """The fields, JSON-ready once lists stand for tuples."""
        ...


@runtime_checkable
class TurnGame(Protocol):
    """One game in progress: who is asked, what they may answer, what each seat sees, how it ended."""

    @property
    def current_player(self) -> str | None:
        """The seat asked now; None once the game is over."""
        ...

    def legal_mask(self) -> np.ndarray:
        """The int8 mask over all `n_actions` of the pending decision (all zero once the game is over)."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal action ids of the pending decision."""
        ...

    def apply(self, action: int | str) -> None:
        """Answer the pending decision with an action id or string; an illegal one raises ValueError."""
        ...

    def observation(self, seat: str) -> np.ndarray:
        """What `seat` may see now, as a float32 vector of `observation_size`."""
        ...

    def returns(self) -> dict[str, float]:
        """Each seat's result: +1 win, -1 loss, 0 draw (0 for all while the game goes on)."""
        ...

    @property
    def winner(self) -> str | None:
        """The winning seat, "draw", or None while the game goes on."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    @property
    def score(self) -> int:
        """The margin of the result, + toward the first seat (what results tables show beside the winner)."""
        ...

    @property
    def round(self) -> int:
        """The round (turn) being played, for people reading along; 0 before the first."""
        ...

    def record(self) -> dict[str, Any]:
        """The game as JSON (its seed, options and action strings): `GameRules.replay` rebuilds it."""
        ...


@runtime_checkable
class LearnerEnv(Protocol):
    """The unwrapped single-learner Gymnasium environment of `GameRules.learner_env`."""

    seat_choice: str
    """the learner's seat in the next episode: one of `seats`, or "random" """

    def set_opponent(self, opponent: Any) -> None:
        """Play against `opponent` (an agent, a callable `(observation, mask) -> action` or an agent spec)."""
        ...

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (sb3-contrib's `MaskablePPO` reads them)."""
        ...


@runtime_checkable
class GameRules(Protocol[O]):
    """A game as the experiments see it: its facts, its options, and how to start, replay and wrap games."""

    name: str
    """short name, part of run names (`<name>-<options label>__...`)"""
    seats: tuple[str, ...]
    """seat names in seat order; the first is the one `score` counts toward"""
    n_actions: int
    observation_size: int
    options_type: type[O]

    def options(self, options: O | Mapping[str, Any] | None = None, **fields: Any) -> O:
        """Validated options from a value, a mapping of fields or defaults, with `fields` on top.

        A wrong type raises TypeError, a value not allowed ValueError naming the field and what it allows.
        """
        ...

    def label(self, options: O) -> str:
        """A short name of the options, fit for a folder name (`standard-events`)."""
        ...

    def new(self, seed: int, options: O | None = None) -> TurnGame:
        """A new game set up from `seed` under `options` (None: the defaults)."""
        ...

    def replay(self, record: dict[str, Any]) -> TurnGame:
        """The game a `TurnGame.record()` describes, replayed; a bad record raises ValueError naming the key."""
        ...

    def action_string(self, action: int) -> str:
        """The string of an action id (as records and logs show it)."""
        ...

    def learner_env(self, options: O | None = None, *, shaped_reward: float = 0.0) -> Any:
        """A Gymnasium environment for one learner against an opponent played inside `step`; its `unwrapped`
        is a `LearnerEnv`."""
        ...

    def env(self, options: O | None = None, *, render_mode: str | None = None) -> Any:
        """The PettingZoo AEC environment of the game (its `unwrapped.game` is the `TurnGame` played)."""
        ...

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: O | None = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        """`n_envs` learner games stepped at once: a Stable-Baselines3 `VecEnv` with `action_masks()` and
        `set_opponents(opponents)`; `opponents` is one opponent or a mapping opponent -> weight (drawn per game).
        An episode's last info holds "seat", "winner" and "opponent" (its name)."""
        ...

    def batchable(self, agent: Any) -> bool:
        """Whether `play_batched` can play `agent` (a spec or an agent object)."""
        ...

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[int, str, int, int]],
        options: O | None = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Each game `(deck seed, a's seat, a's seed, b's seed)` of a against b, many at once: per game, in order,
        `{"winner", "score", "decisions", "record"}`, the same as playing it alone with agents reset to those
        seeds; `on_game(k, result)` as game k ends."""
        ...


def hand_game(agent: Any, game: TurnGame, seat: str) -> None:
    """Hand `game` to an agent that searches (it has `observe_game(game, seat)`) before it is asked to act.

    Such an agent must use the game only through what `seat` may know (Sun Tzu's agents: through
    `Game.sample_determinization`); every other agent acts from its observation and mask alone.
    """
    observe = getattr(agent, "observe_game", None)
    if observe is not None:
        observe(game, seat)


def ask(agent: Any, game: TurnGame, seat: str) -> int:
    """`agent`'s action for `seat` in `game`: the game handed over if the agent searches, then `act`."""
    hand_game(agent, game, seat)
    return agent.act(game.observation(seat), game.legal_mask())
