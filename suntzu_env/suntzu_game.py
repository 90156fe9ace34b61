"""`SUNTZU`: Sun Tzu as a `suntzu_env.protocol.GameRules`, the value the experiments play it through."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from suntzu_env.actions import N_ACTIONS, action_to_string
from suntzu_env.game import Game
from suntzu_env.observation import OBSERVATION_SIZE
from suntzu_env.options import Options
from suntzu_env.rules import ADJACENCY, SEATS, adjacency_masks


class SunTzuRules:
    """Sun Tzu's facts, `Options` and constructors, as `GameRules` declares them (adapts `Game`'s public API).

    One `Options` value reaches `Game.new` and the environments, as their keywords (`**options.as_dict()`)
    until they take it whole (`options=options`).
    """

    name = "suntzu"
    seats: tuple[str, ...] = SEATS
    n_actions = N_ACTIONS
    observation_size = OBSERVATION_SIZE
    options_type = Options

    def options(self, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        return Options.of(options, **fields)

    def label(self, options: Options) -> str:
        """`standard`, `beginner-events`, ...; a map other than the declared one adds `-map<6 hex digits>`."""
        label = options.variant + ("-events" if options.events else "")
        if options.adjacency is not None:
            masks = adjacency_masks(options.adjacency)
            if masks != adjacency_masks(ADJACENCY):
                label += "-map" + hashlib.sha1(repr(masks).encode()).hexdigest()[:6]
        return label

    def new(self, seed: int, options: Options | None = None) -> Game:
        return Game.new(seed, **Options.of(options).as_dict())

    def replay(self, record: dict[str, Any]) -> Game:
        return Game.replay(record)

    def action_string(self, action: int) -> str:
        return action_to_string(action)

    def learner_env(self, options: Options | None = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.gym_env import SunTzuGymEnv

        return SunTzuGymEnv(**Options.of(options).as_dict(), shaped_reward=shaped_reward)

    def env(self, options: Options | None = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.suntzu_v2 import env

        return env(**Options.of(options).as_dict(), render_mode=render_mode)

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: Options | None = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        from suntzu_env.vec_env import SunTzuVecEnv  # lazy: imports Stable-Baselines3

        return SunTzuVecEnv(n_envs, opponents, seed=seed, options=Options.of(options), shaped_reward=shaped_reward)

    def batchable(self, agent: Any) -> bool:
        from suntzu_env.vec_env import batchable

        return batchable(agent)

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[int, str, int, int]],
        options: Options | None = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        from suntzu_env.vec_env import play_batched

        return play_batched(a, b, games, Options.of(options), on_game=on_game)

    def __repr__(self) -> str:
        return "SUNTZU"


SUNTZU = SunTzuRules()
