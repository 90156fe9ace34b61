"""Gymnasium and PettingZoo Parallel environments made from any game's turn games, for a game without its own.

`LearnerEnv` is what every game's one-learner env shares (Bin'Fa's `BinFaGymEnv` is one). `TurnLearnerEnv`, made
from any game's turn games, is `GamePlugin.learner_env`'s default: one learner seat, every other seat played inside
`step` by an opponent (one of the game's agents by name, an agent object, or a callable `(observation, mask) ->
action`).

- Observation: the learner's `observation(seat)`, a `Box` of the game's `observation_bounds`; action:
  `Discrete(n_actions)`; `action_masks()` gives the legal ones as booleans, every info `info["action_mask"]` (int8).
- `reset(seed=s)` seeds the env's generator, which draws the learner's seat (`seat="random"`, `info["seat"]`), the
  game's seed and the opponent's; the opponent's decisions before the learner's first are made already.
- Reward: the learner's result when the game ends (+1, -1, 0), 0 before. Terminated when the game ends by its
  rules; truncated when a turn limit stops it (`suntzu_env.core.turn_limit`), rewarded 0.
- An illegal action ends the episode with -1 (`illegal_action="loss"`, `info["illegal_action"]`, warned once) or
  raises ValueError and changes nothing (`"raise"`).
- `render_mode` "ansi": the game's text (`render_text()` or its own `__str__`), where it has one.

`turn_parallel_env` is PettingZoo's `turn_based_aec_to_parallel` over the game's AEC env: each `step` takes every
live agent's action and plays the one asked.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from suntzu_env.core.asking import ask
from suntzu_env.core.checks import IllegalActionWarning, check_choice, check_reset
from suntzu_env.core.turn_envs import observation_and_action_spaces
from suntzu_env.core.turn_limit import render_modes, text_of, truncated

ILLEGAL_ACTIONS = ("loss", "raise")


class _Callable:
    """A callable `(observation, mask) -> action` as an agent."""

    def __init__(self, act: Callable[[np.ndarray, np.ndarray], Any]) -> None:
        self.act = act

    def reset(self, seed: int | None = None) -> None:
        pass


def opponent_agent(rules: Any, opponent: Any, seed: int | None = None) -> Any:
    """An agent from an opponent: a spec of the game's agents, an agent (`act`), or a callable (observation,
    mask) -> action. ValueError names the valid ones otherwise."""
    if isinstance(opponent, str):
        return rules.make_agent(opponent, seed)
    if callable(getattr(opponent, "act", None)):
        return opponent
    if callable(opponent):
        return _Callable(opponent)
    raise ValueError(
        f"opponent must be one of {rules.valid_agents()}, an agent with act(observation, mask) or a callable "
        f"(observation, mask) -> action; got {opponent!r:.60}"
    )


class LearnerEnv(gymnasium.Env[np.ndarray, np.int64]):
    """What a game's one-learner Gymnasium env does the same way, written once: its checked arguments, `step` (an
    illegal action raised or ending the episode with -1, warned once; the learner's action, then the opponent's
    until the learner is asked again or its episode ends), `action_masks` and `render`. A game's env sets the
    spaces and writes `reset` (which sets `seat`, `game` and clears `_done`) and the hooks below."""

    illegal_note = "the episode ends with -1"
    """how a warned illegal action under `illegal_action="loss"` ends, after the action's message"""

    def _set_up(self, seat: Any, illegal_action: str, render_mode: str | None, render_modes: Sequence[str]) -> None:
        """The arguments every such env checks, and no game yet."""
        self.seat_choice = seat
        self.illegal_action = check_choice(illegal_action, "illegal_action", ILLEGAL_ACTIONS)
        if render_mode is not None:
            check_choice(render_mode, "render_mode", tuple(render_modes))
        self.render_mode = render_mode
        self.game: Any = None
        self._done = True
        self._warned = False

    # ------------------------------------------------------------ the game's hooks
    def _observation(self) -> np.ndarray:
        """The learner's observation."""
        raise NotImplementedError

    def _mask(self) -> np.ndarray:
        """The learner's legal actions (int8), all zero once its episode is over."""
        raise NotImplementedError

    def _checked_action(self, action: Any) -> int:
        """The game's action for the learner's `action`; ValueError naming the legal ones (nothing changes)."""
        raise NotImplementedError

    def _play_opponent(self) -> None:
        """The other seats' decisions until the learner is asked again or its episode ends."""
        raise NotImplementedError

    def _outcome(self) -> tuple[float, bool, bool]:
        """After the opponent played: the learner's reward, whether its episode is terminated, truncated."""
        raise NotImplementedError

    def _text(self) -> str | None:
        """The game as text (render mode "ansi")."""
        raise NotImplementedError

    # ------------------------------------------------------------ the env
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the other seats' until the learner is asked again or its episode ends."""
        if self.game is None or self._done:
            raise RuntimeError("step() needs a game in progress: call reset() first")
        info: dict[str, Any] = {"seat": self.seat}
        try:
            checked = self._checked_action(action)
        except ValueError as error:
            if self.illegal_action == "raise":
                raise
            self._done = True
            if not self._warned:
                self._warned = True
                message = f"{error}. With illegal_action='loss' {self.illegal_note}"
                warnings.warn(message, IllegalActionWarning, stacklevel=2)
            return self._observation(), -1.0, True, False, {**info, "illegal_action": True, "action_mask": self._mask()}
        self.game.apply(checked)
        self._play_opponent()
        reward, terminated, cut = self._outcome()
        if terminated or cut:
            self._done = True
            info["winner"] = self.game.winner
        info["action_mask"] = self._mask()
        return self._observation(), reward, terminated, cut, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False once its episode is over)."""
        if self.game is None:
            raise RuntimeError("action_masks() before reset(): there is no game yet, call reset() first")
        return self._mask().astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return self._text()


class TurnLearnerEnv(LearnerEnv):
    """A game for one learner against an opponent played inside `step`; see the module docstring."""

    def __init__(
        self,
        rules: Any,
        options: Any = None,
        *,
        opponent: Any = None,
        seat: str = "random",
        illegal_action: str = "loss",
        render_mode: str | None = None,
    ) -> None:
        self.rules, self.options = rules, rules.options(options)
        self.seats = tuple(rules.seats_of(self.options))
        self.metadata = {"render_modes": render_modes(rules, self.options), "render_fps": 1}
        if seat != "random" and seat not in self.seats:
            raise ValueError(f"seat must be 'random' or one of {self.seats}, got {seat!r:.40}")
        self._set_up(seat, illegal_action, render_mode, self.metadata["render_modes"])
        self.observation_space, self.action_space = observation_and_action_spaces(rules)
        self.opponent = opponent_agent(rules, rules.scripted_agents[0] if opponent is None else opponent)
        self.seat = self.seats[0]

    def set_opponent(self, opponent: Any) -> None:
        """Play against `opponent` from the next decision on (an agent spec, an agent or a callable)."""
        self.opponent = opponent_agent(self.rules, opponent)

    def _observation(self) -> np.ndarray:
        return np.asarray(self.game.observation(self.seat), dtype=np.float32)

    def _mask(self) -> np.ndarray:
        if self._done or self.game.current_player != self.seat:
            return np.zeros(self.rules.n_actions, np.int8)
        return np.asarray(self.game.legal_mask(), np.int8)

    def _checked_action(self, action: Any) -> int:
        legal = self.game.legal_actions()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or int(action) not in legal:
            raise ValueError(f"illegal action {action!r:.40} for {self.seat}; legal: {legal}")
        return int(action)

    def _play_opponent(self) -> None:
        while (seat := self.game.current_player) is not None and seat != self.seat:
            self.game.apply(int(ask(self.opponent, self.game, seat)))

    def _outcome(self) -> tuple[float, bool, bool]:
        if self.game.current_player is not None:
            return 0.0, False, False
        cut = truncated(self.game)
        return float(self.game.returns()[self.seat]), not cut, cut

    def _text(self) -> str | None:
        return text_of(self.game)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=check_reset(seed, options))
        rng = self.np_random
        while True:
            self.seat = self.seats[int(rng.integers(len(self.seats)))] if self.seat_choice == "random" else (
                self.seat_choice)  # fmt: skip
            self.game = self.rules.new(int(rng.integers(2**63)), self.options)
            self.opponent.reset(int(rng.integers(2**63)))
            self._play_opponent()
            if self.game.current_player is not None:  # a game over before the learner's first decision: another
                break
        self._done = False
        return self._observation(), {"seat": self.seat, "action_mask": self._mask()}


def turn_parallel_env(aec: Any) -> Any:
    """PettingZoo's Parallel environment over a game's AEC env (`turn_based_aec_to_parallel`)."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(aec)
