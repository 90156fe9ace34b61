"""`SunTzuGymEnv`: Sun Tzu as a single-agent Gymnasium environment, the opponent played inside `step`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from suntzu_env import ENV_ID
from suntzu_env.core.agent import Agent, Opponent
from suntzu_env.core.asking import hand_game
from suntzu_env.core.checks import check_choice, check_reset
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.episode import EnvSettings, render_modes
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.suntzu_v3 import EnvFace, observation_box

SEAT_CHOICES = ("blue", "red", "random")


def _check_opponent(opponent: Any) -> None:
    if not (isinstance(opponent, str) or callable(getattr(opponent, "act", None)) or callable(opponent)):
        raise ValueError(
            "opponent must be a callable (observation, action_mask) -> action, an object with "
            f".act(observation, action_mask), or an agent spec string such as 'random'; got {opponent!r}"
        )


def resolve_opponent(opponent: Opponent, seed: int) -> Agent | Callable[[np.ndarray, np.ndarray], int]:
    """A playable opponent: spec strings go through the registry, `suntzu_env.suntzu.players.make_agent(spec,
    seed=...)`."""
    if not isinstance(opponent, str):
        return opponent
    from suntzu_env.suntzu.players import make_agent  # lazy: the scripted agents load only when a spec names one

    return make_agent(opponent, seed=seed)


class SunTzuGymEnv(EnvFace, gymnasium.Env[np.ndarray, np.int64]):
    """Sun Tzu for one learner against a fixed opponent, whose moves are made inside `step`.

    ## Description

    The learner plays one seat of the game of `suntzu_env.suntzu.suntzu_v3` (the PettingZoo environment, whose
    docstring describes the game, the observation and every action); the opponent answers every decision
    of the other seat before `step` returns. Each observation is the learner's own, taken when it must act.
    Registered with Gymnasium as `"SunTzu-v3"` (`import suntzu_env` first, or name it
    `"suntzu_env:SunTzu-v3"`): `gymnasium.make("SunTzu-v3", opponent="greedy")`; `gymnasium.make_vec`
    gives the compiled `suntzu_env.suntzu.vec_env.SunTzuVectorEnv` (its vector entry point, the default mode), or
    Gymnasium's vector envs over this class with `vectorization_mode="sync"` or `"async"`.

    ## Action Space

    `Discrete(N_ACTIONS)`, the flat action space of `suntzu_env.suntzu.actions`. `action_masks()` returns the legal
    ones as booleans, as sb3-contrib's `MaskablePPO` expects (it works through `SubprocVecEnv` too); every
    `info` also holds them as `info["action_mask"]` (int8, as `Discrete.sample(mask=...)` takes them).

    ## Observation Space

    `Box(OBSERVATION_SIZE,)` float32: the flat vector of `suntzu_env.suntzu.observation` seen from the learner's
    seat (own features first, `my_seat` says which seat). It holds only what that seat may know (R9).

    ## Starting State

    `reset(seed=s)` seeds the environment's generator, which draws the seat (when `seat="random"`), the
    game's seed and the opponent's seed, so `reset(seed=s)` replays the same episode against a
    deterministic opponent. The opponent's moves before the learner's first decision are already made.
    `reset` takes no options (a key in `options` is ignored with a warning that names it).

    ## Rewards

    +1 for a win, −1 for a loss, 0 for a draw, at the end only (R6.5); plus, when `shaped_reward` is set,
    the potential-based term of `suntzu_env.suntzu.suntzu_v3` seen from the learner's seat, which adds up to zero over a
    game.

    ## Episode End

    Terminated at the end of the game (R6); never truncated. An illegal action of the learner also ends the
    episode by default (`illegal_action="loss"`): reward −1, `info["illegal_action"] = True`, and an
    `IllegalActionWarning` the first time; with `illegal_action="raise"` it raises `ValueError` instead.

    When the opponent fails (raises, or answers with an illegal action), `step` puts the game back as it
    was before the learner's action and raises: the episode goes on from the same decision of the learner,
    or is reset. An opponent failing inside `reset` leaves no game (`step` asks for a `reset`).

    ## Arguments

    `opponent`: a callable `(observation, action_mask) -> action`, an object with
    `.act(observation, action_mask)` (its `.reset(seed)`, if any, is called at every reset), or an agent spec
    string resolved at the first reset through `suntzu_env.suntzu.players.make_agent(spec, seed=...)` (the registry
    `agents.make_agent` is). It sees its own seat's
    observation and mask.
    `set_opponent` swaps it, e.g. from a training loop through `VecEnv.env_method("set_opponent", ...)`.

    `seat`: `"blue"`, `"red"` or `"random"` (drawn at each reset; `info["seat"]` says which).

    `options` (or its fields `variant`, `events`, `adjacency`), `render_mode`, `shaped_reward`,
    `illegal_action`: as for `suntzu_env.suntzu.suntzu_v3` (declared in `suntzu_env.suntzu.episode.EnvSettings`).

    ## Version History

    * v1: an illegal action ends the episode by default; `info["action_mask"]`; a failing opponent undoes
      the step; registered as SunTzu-v3.
    * v0: Initial release (suntzu-env 0.1.0).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": render_modes(), "render_fps": 2}  # "human": with pygame

    def __init__(
        self, opponent: Opponent = "random", seat: str = "random", options: Options | None = None, **kwargs: Any
    ) -> None:
        settings = EnvSettings.of(options, **kwargs)
        if settings.flat_observation:
            raise ValueError("flat_observation: SunTzuGymEnv's observation is already one Box vector; leave it False")
        check_choice(seat, "seat", SEAT_CHOICES)
        _check_opponent(opponent)
        self._set_up(settings)
        self.observation_space = observation_box()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.seat_choice = seat
        self.seat: str | None = None  # the learner's seat in the current episode
        self._opponent_spec: Opponent = opponent
        self._opponent: Any = None  # resolved from the spec at the next reset
        self._act: Callable[[np.ndarray, np.ndarray], Any] | None = None

    # ------------------------------------------------------------ opponent

    def set_opponent(self, opponent: Opponent) -> None:
        """Play against `opponent` from now on (meant for between episodes; specs resolve at the next reset)."""
        _check_opponent(opponent)
        self._opponent_spec = opponent
        self._opponent = self._act = None

    def _resolve_opponent(self, seed: int) -> None:
        if self._opponent is None:
            self._opponent = resolve_opponent(self._opponent_spec, seed)
        act = getattr(self._opponent, "act", None)
        self._act = act if callable(act) else self._opponent

    def _opponent_action(self, observation: np.ndarray, mask: np.ndarray) -> Any:
        if self._act is None:  # swapped in mid-episode
            self._resolve_opponent(int(self.np_random.integers(2**31)))
        action = self._act(observation, mask)
        return action.item() if isinstance(action, np.ndarray) and action.size == 1 else action

    def _play_opponent(self) -> None:
        """The opponent answers its decisions until the learner must act or the game ends."""
        episode = self.episode
        other = SEATS[1 - SEATS.index(self.seat)]
        while episode.game.current_player == other:
            game = episode.game
            hand_game(self._opponent, game, other)
            action = self._opponent_action(game.observation(other), game.legal_mask())
            try:
                episode.play(other, action)
            except ValueError as error:
                raise ValueError(f"the opponent ({other}) played an illegal action: {error}") from None

    # ------------------------------------------------------------ episode

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=check_reset(seed, options))
        rng = self.np_random
        side = int(rng.integers(2)) if self.seat_choice == "random" else SEATS.index(self.seat_choice)
        self.seat = SEATS[side]
        game_seed = int(rng.integers(2**63))
        opponent_seed = int(rng.integers(2**31))
        self._resolve_opponent(opponent_seed)
        if callable(getattr(self._opponent, "reset", None)) and callable(getattr(self._opponent, "act", None)):
            self._opponent.reset(opponent_seed)
        episode = self.episode
        episode.new_game(game_seed)
        try:
            self._play_opponent()
        except BaseException:
            episode.game = None  # no half-made episode: step() asks for a reset
            raise
        episode.restart_shaping()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"seat": self.seat, "action_mask": self._mask()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponent's until the learner must act or the game ends."""
        episode = self.episode
        if episode.game is None or episode.over:
            raise RuntimeError("step() needs a game in progress: call reset() first")
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action.item()
        info: dict[str, Any] = {"seat": self.seat}
        before = episode.snapshot()
        error = episode.attempt(self.seat, action)
        if error is None:
            try:
                self._play_opponent()
            except BaseException as failure:
                episode.restore(before)  # the learner's action is undone with the opponent's
                failure.add_note("SunTzuGymEnv: the learner's action was undone; the learner is to act again")
                raise
        reward = episode.settle(() if error is None else (self.seat,))[self.seat]
        if error is not None:
            info["illegal_action"] = True
            episode.warn_illegal(self.seat, error)
        if episode.over:
            info["winner"] = episode.game.winner
        info["action_mask"] = self._mask()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, episode.over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (all False once the game is over)."""
        if self.episode.game is None:
            raise RuntimeError("action_masks() before reset(): there is no game yet, call reset() first")
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        """The learner's int8 action mask (all zero once the game is over)."""
        return self.episode.mask(self.seat)

    def _observation(self) -> np.ndarray:
        return self.episode.game.observation(self.seat)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """The registered vector entry point: `SunTzuVectorEnv(num_envs, **kwargs)`, every game stepped at once in
    compiled code (`suntzu_env.suntzu.vec_env`, which needs Stable-Baselines3: the `train` extra)."""
    try:
        from suntzu_env.suntzu.vec_env import SunTzuVectorEnv
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"gymnasium.make_vec({ENV_ID!r}) plays through SunTzuVectorEnv, which needs {error.name} "
            '(pip install "suntzu-env[train]"); or pass vectorization_mode="sync" or "async"'
        ) from error
    return SunTzuVectorEnv(num_envs, **kwargs)


# the ids of earlier versions: making one raises, saying what changed
