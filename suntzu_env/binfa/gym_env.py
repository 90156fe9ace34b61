"""`BinFaGymEnv`: Bin'Fa for one learner, every other seat played inside `step` by an opponent.

The learner plays one seat of the game of `suntzu_env.binfa.binfa_v3` (whose docstring describes the
observation, from the learner's point of view, BD12, and the learning action space); the opponent answers
every decision of every other seat before `step` returns. Registered with Gymnasium as `"BinFa-v3"` when
`suntzu_env.binfa` is imported: `gymnasium.make("BinFa-v3", opponent="greedy", players=3)`.

- Observation: `Box(OBSERVATION_SIZE,)` float32 (`suntzu_env.binfa.observation`), the learner's own.
- Action: `Discrete(N_LEARN_ACTIONS)` (`suntzu_env.binfa.encoding`); `action_masks()` gives the legal ones
  as booleans (sb3-contrib's `MaskablePPO`), and every info holds `info["action_mask"]` (int8).
- `reset(seed=s)` seeds the environment's generator, which draws the seat (`seat="random"`), the game's seed
  and the opponent's; the opponent's decisions before the learner's first are made already.
- Rewards: +1 when the learner wins (B13), −1 when it is eliminated (B12); 0 otherwise (BD5).
- Episode end: terminated when the game ends or the learner is eliminated; truncated when `max_turns` turns
  are played (BD5). An illegal learner action ends the episode with −1 (`illegal_action="loss"`, default,
  `info["illegal_action"]`) or raises `ValueError` naming the decision (`"raise"`), changing nothing.

Arguments: `opponent`: "random" or "greedy" (compiled, `suntzu_env.binfa.agents`), or a callable
`(observation, action_mask) -> learning id` (or an object with such an `act`), asked for every other seat
with that seat's observation and mask; `seat`: "random" (drawn at each reset, `info["seat"]`) or a seat
0..players-1; `options` or its fields as keywords (`level`, `players`, ...); `illegal_action`;
`render_mode`: None or "ansi".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from suntzu_env.binfa import ENV_ID
from suntzu_env.binfa.agents import AGENTS, agent_action, new_scratch
from suntzu_env.binfa.binfa_v3 import RENDER_MODES, engine_action, observation_box
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.options import Options
from suntzu_env.core.checks import check_choice, check_reset
from suntzu_env.core.rng import rng_seed
from suntzu_env.core.turn_gym import LearnerEnv

Opponent = str | Callable[[np.ndarray, np.ndarray], Any] | Any


def check_opponent(opponent: Any) -> Any:
    if isinstance(opponent, str):
        return check_choice(opponent, "opponent", AGENTS)
    if callable(getattr(opponent, "act", None)) or callable(opponent):
        return opponent
    raise ValueError(
        "opponent must be 'random', 'greedy', a callable (observation, action_mask) -> action or an object "
        f"with .act(observation, action_mask); got {opponent!r:.60}"
    )


class BinFaGymEnv(LearnerEnv):
    """Bin'Fa for one learner against an opponent played inside `step`; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}
    illegal_note = "the episode ends"

    def __init__(
        self,
        opponent: Opponent = "random",
        seat: int | str = "random",
        options: Options | dict[str, Any] | None = None,
        illegal_action: str = "loss",
        render_mode: str | None = None,
        **fields: Any,
    ) -> None:
        self.rules = Options.of(options, **fields)
        if isinstance(seat, str) and seat.startswith("player_") and seat[7:].isdigit():
            seat = int(seat[7:])
        if seat != "random" and (
            not isinstance(seat, (int, np.integer)) or isinstance(seat, bool) or not 0 <= seat < self.rules.players
        ):
            raise ValueError(f"seat must be 'random' or a seat 0..{self.rules.players - 1}, got {seat!r:.40}")
        self._set_up(seat, illegal_action, render_mode, RENDER_MODES)
        self.opponent = check_opponent(opponent)
        self.observation_space = observation_box()
        self.action_space = spaces.Discrete(N_LEARN_ACTIONS)
        self.seat: int = 0
        self.game: Game | None = None
        self._rng_opponent = rng_seed(0)
        self._scratch = new_scratch()

    def set_opponent(self, opponent: Opponent) -> None:
        """Play against `opponent` from now on."""
        self.opponent = check_opponent(opponent)

    def _play_opponent(self) -> None:
        game = self.game
        assert game is not None
        while game.current_player is not None and game.current_player != self.seat:
            if self.seat in game.eliminated():
                return
            p = game.current_player
            if isinstance(self.opponent, str):
                kind = AGENTS.index(self.opponent)
                game.apply(int(agent_action(kind, *game.engine_view(), self._rng_opponent, self._scratch)))
                continue
            act = getattr(self.opponent, "act", None) or self.opponent
            choice = act(game.observation(p), game.learn_mask())
            try:
                game.apply(engine_action(game, choice))
            except ValueError as error:
                raise ValueError(f"the opponent (seat {p}) played an illegal action: {error}") from None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=check_reset(seed, options))
        rng = self.np_random
        players = self.rules.players
        self.seat = int(rng.integers(players)) if self.seat_choice == "random" else int(self.seat_choice)
        self.game = Game.new(int(rng.integers(2**63)), self.rules)
        self._rng_opponent = rng_seed(int(rng.integers(2**62)))
        self._done = False
        self._play_opponent()
        return self.game.observation(self.seat), {"seat": self.seat, "action_mask": self._mask()}

    def _observation(self) -> np.ndarray:
        assert self.game is not None
        return self.game.observation(self.seat)

    def _mask(self) -> np.ndarray:
        assert self.game is not None
        if self._done:
            return np.zeros(N_LEARN_ACTIONS, np.int8)
        return self.game.learn_mask(self.seat)

    def _checked_action(self, action: Any) -> int:
        assert self.game is not None
        return engine_action(self.game, action)

    def _outcome(self) -> tuple[float, bool, bool]:
        """-1 once the learner is eliminated (B12), +1 when it wins (B13); truncated at `max_turns` (BD5)."""
        game = self.game
        assert game is not None
        out = self.seat in game.eliminated()
        over = game.current_player is None
        reward = -1.0 if out else (1.0 if game.winner == self.seat else 0.0)
        truncated = over and not out and game.winner == "undecided" and game.turns >= self.rules.max_turns
        return reward, (out or over) and not truncated, truncated

    def _text(self) -> str | None:
        assert self.game is not None
        return self.game.render()


__all__ = ["ENV_ID", "BinFaGymEnv"]
