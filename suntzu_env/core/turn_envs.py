"""Environments made from any game's turn games (`suntzu_env.core.protocol.TurnGame`), for a game without its own.

`TurnAECEnv` is a PettingZoo AEC environment over `GameRules.new`; `TurnVecEnv` is the batched learner
environment training asks for (a Stable-Baselines3 `VecEnv`): its games are stepped one after another in
Python, each against an opponent drawn from the mix, so a game with no compiled batch trains all the same,
only slower. Sun Tzu has compiled ones (`suntzu_v3`, `vec_env`) and uses neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from suntzu_env.core.aec import AgentSpaces, dead_step, start_agents
from suntzu_env.core.asking import ask
from suntzu_env.core.policy_net import seated_state
from suntzu_env.core.turn_limit import render_modes, text_of, truncated

OBSERVATION, MASK = "observation", "action_mask"


def observation_and_action_spaces(rules: Any) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation space (the game's `observation_bounds`) and the action space of a game's environments."""
    low, high = rules.observation_bounds()
    box = spaces.Box(np.asarray(low, np.float32), np.asarray(high, np.float32), dtype=np.float32)
    return box, spaces.Discrete(rules.n_actions)


class TurnAECEnv(AgentSpaces, AECEnv):
    """A game's PettingZoo AEC environment: each seat observes `{"observation", "action_mask"}` (its mask all
    zero while another seat is asked), and is rewarded its result (+1, -1, 0) when the game ends: terminated when
    its rules end it, truncated when a turn limit stops it (`suntzu_env.core.turn_limit`). Render mode "ansi": the
    game's text (its `render_text()` or `__str__`), where it has one."""

    def __init__(self, rules: Any, options: Any, render_mode: str | None = None) -> None:
        super().__init__()
        self.rules, self.options, self.render_mode = rules, options, render_mode
        modes = render_modes(rules, options)
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r:.40}")
        self.metadata = {"name": f"{rules.name}_turn", "render_modes": modes, "is_parallelizable": False}
        self.possible_agents = list(rules.seats_of(options))
        box, actions = observation_and_action_spaces(rules)
        mask = spaces.Box(0, 1, (rules.n_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({OBSERVATION: box, MASK: mask}) for a in self.possible_agents}
        self.action_spaces = {a: actions for a in self.possible_agents}
        self.game: Any = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.game = self.rules.new(seed, self.options)
        start_agents(self, self.possible_agents)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.game.current_player

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        asked = agent == self.game.current_player
        mask = self.game.legal_mask() if asked else np.zeros(self.rules.n_actions, dtype=np.int8)
        return {OBSERVATION: np.asarray(self.game.observation(agent), dtype=np.float32),
                MASK: np.asarray(mask, dtype=np.int8)}  # fmt: skip

    def step(self, action: Any) -> None:
        if dead_step(self, action):
            return
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(int(action))
        self.rewards = {a: 0.0 for a in self.agents}
        if self.game.is_terminal:
            self.rewards = {a: float(r) for a, r in self.game.returns().items()}
            ended = self.truncations if truncated(self.game) else self.terminations
            ended.update(dict.fromkeys(self.agents, True))
        else:
            self.agent_selection = self.game.current_player
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return text_of(self.game)

    def close(self) -> None:
        pass


class TurnVecEnv:
    """`n_envs` learner games against opponents, as Stable-Baselines3's `VecEnv` (made on first use, so that this
    module imports without it). See `make_turn_vec_env`."""


def make_turn_vec_env(rules: Any, n_envs: int, opponents: Any, seed: int | None, options: Any) -> Any:
    """The batched learner environment of a game without a compiled one (see the module's docstring).

    Each game draws its learner's seat and its opponent (from the mix `set_opponents` gave) from the env's
    generator, seeded with `seed`; `get_state` keeps the opponents' slots (a policy's network included) and the
    mix, and `set_state` restores them with new games.
    """
    from suntzu_env.core.vec_shell import PER_ENV, BatchedVecEnv

    class _TurnVecEnv(BatchedVecEnv, TurnVecEnv):
        def __init__(self) -> None:
            box, actions = observation_and_action_spaces(rules)
            self.render_mode = None
            super().__init__(n_envs, box, actions)
            self.rules, self.options = rules, options
            self._rng = np.random.default_rng(seed)
            self._slots: list[tuple[Any, str, Any]] = []  # (key: a spec or the agent, name, agent)
            self._mix = np.ones(1)
            self._games: list[Any] = [None] * n_envs
            self._seats = [""] * n_envs
            self._opponents = [0] * n_envs
            self._actions: np.ndarray | None = None
            self.set_opponents(opponents)

        # ---------------------------------------------------------------- opponents
        def _slot(self, opponent: Any) -> int:
            for k, (key, _, _) in enumerate(self._slots):
                if key is opponent or (isinstance(opponent, str) and key == opponent):
                    return k
            if isinstance(opponent, str):
                agent, name = rules.make_agent(opponent, seed=int(self._rng.integers(2**31))), opponent
            else:
                agent, name = opponent, str(getattr(opponent, "name", type(opponent).__name__))
            self._slots.append((opponent, name, agent))
            return len(self._slots) - 1

        def set_opponents(self, opponents: Any) -> None:
            mix = opponents if isinstance(opponents, Mapping) else {opponents: 1.0}
            weights: dict[int, float] = {}
            for opponent, weight in mix.items():
                k = self._slot(opponent)
                weights[k] = weights.get(k, 0.0) + float(weight)
            self._mix = np.array([weights.get(k, 0.0) for k in range(len(self._slots))])
            self._mix /= self._mix.sum()

        set_opponent = set_opponents

        def opponent_slot(self, opponent: Any) -> int:
            for k, (key, _, _) in enumerate(self._slots):
                if key is opponent or (isinstance(opponent, str) and key == opponent):
                    return k
            raise ValueError(f"{opponent!r} is not one of this env's opponents")

        # ---------------------------------------------------------------- games
        def _start(self, i: int) -> np.ndarray:
            """A new game in env i, stepped to the learner's first decision; its learner's observation."""
            while True:
                seed = int(self._rng.integers(2**31))
                game = rules.new(seed, options)
                seats = rules.seats_of(options)
                self._seats[i] = seats[int(self._rng.integers(len(seats)))]
                self._opponents[i] = int(self._rng.choice(len(self._slots), p=self._mix))
                self._slots[self._opponents[i]][2].reset(seed)
                self._games[i] = game
                self._reply(i)
                if not game.is_terminal:
                    return game.observation(self._seats[i])

        def _reply(self, i: int) -> None:
            game, opponent = self._games[i], self._slots[self._opponents[i]][2]
            while (seat := game.current_player) is not None and seat != self._seats[i]:
                game.apply(int(ask(opponent, game, seat)))

        def reset(self) -> np.ndarray:
            return np.stack([self._start(i) for i in range(self.num_envs)]).astype(np.float32)

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> Any:
            assert self._actions is not None
            obs, rewards = [], np.zeros(self.num_envs, dtype=np.float32)
            dones, infos = np.zeros(self.num_envs, dtype=bool), [{} for _ in range(self.num_envs)]
            for i, action in enumerate(self._actions.tolist()):
                game, seat = self._games[i], self._seats[i]
                game.apply(int(action))
                self._reply(i)
                if game.is_terminal:
                    rewards[i], dones[i] = game.returns()[seat], True
                    infos[i] = {"seat": seat, "winner": game.winner, "opponent": self._slots[self._opponents[i]][1],
                                "terminal_observation": game.observation(seat),
                                "TimeLimit.truncated": truncated(game)}  # fmt: skip
                    obs.append(self._start(i))
                else:
                    obs.append(game.observation(seat))
            self._actions = None
            return np.stack(obs).astype(np.float32), rewards, dones, infos

        def action_masks(self) -> np.ndarray:
            return np.stack([game.legal_mask() for game in self._games]).astype(bool)

        # ---------------------------------------------------------------- saving and restoring
        def get_state(self) -> dict[str, np.ndarray]:
            out = {
                "mix": self._mix.copy(),
                "slot_names": np.array([name for _, name, _ in self._slots], dtype=str),
                "slot_specs": np.array([k if isinstance(k, str) else "" for k, _, _ in self._slots], dtype=str),
            }
            for k, (_, _, agent) in enumerate(self._slots):
                actor = getattr(agent, "actor", None)
                if actor is not None:
                    out |= seated_state(actor.net, getattr(agent, "deterministic", True), f"slot{k}_")
            return out

        def set_state(self, state: Mapping[str, np.ndarray], opponents: Mapping[int, Any] | None = None) -> None:
            given = dict(opponents or {})
            slots = []
            for k, (name, spec) in enumerate(zip(state["slot_names"], state["slot_specs"], strict=True)):
                if k in given:
                    slots.append((given[k], str(name), given[k]))
                elif str(spec):
                    slots.append(
                        (str(spec), str(spec), rules.make_agent(str(spec), seed=int(self._rng.integers(2**31))))
                    )
                else:
                    raise ValueError(f"set_state: opponent slot {k} ({name}) needs its agent")
            self._slots, self._mix = slots, np.asarray(state["mix"], dtype=np.float64)
            self.reset()

        # ---------------------------------------------------------------- the rest of SB3's VecEnv
        def seed(self, seed: int | None = None) -> Sequence[int | None]:
            self._rng = np.random.default_rng(seed)
            return [seed] * self.num_envs

        def env_values(self, name: str) -> list[Any] | None:
            if name not in PER_ENV:
                return None
            return list(self._seats) if name == "seat" else [self._slots[k][1] for k in self._opponents]

    return _TurnVecEnv()
