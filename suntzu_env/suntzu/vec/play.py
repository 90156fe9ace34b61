"""Batched play of seeded games between two agents that act in batches (evaluation's fast path): agent `a` in the
learner's seat of a `SunTzuVecEnv`, agent `b` its opponent."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from suntzu_env.core.agent import Policy
from suntzu_env.core.checks import is_integer
from suntzu_env.suntzu import vec_core as core
from suntzu_env.suntzu.engine import rng_seed
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.players import agent_kind, make_agent
from suntzu_env.suntzu.vec.env import SunTzuVecEnv
from suntzu_env.suntzu.vec.slots import describe


def batchable(agent: Any) -> bool:
    """Whether `play_batched` can play `agent`: a compiled baseline's spec, the spec of a batched kind (`ppo:`,
    `rllib:`: `AgentKind.batched`), or an object with `act_batch` that does not search the game itself."""
    if isinstance(agent, str):
        if agent in core.COMPILED_AGENTS:
            return True
        try:
            return agent_kind(agent).batched
        except ValueError:
            return False
    return callable(getattr(agent, "act_batch", None)) and not callable(getattr(agent, "observe_game", None))


def play_batched(
    a: Any,
    b: Any,
    games: Sequence[tuple[int, str, int, int]],
    options: Options | Mapping[str, Any] | None = None,
    n_envs: int = 512,
    on_game: Callable[[int, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play each game `(deck seed, a's seat, a's seed, b's seed)` of agent `a` against agent `b`, many at once.

    `a` and `b` are what `batchable` accepts; a seed seeds that agent's generator for that game as
    `Agent.reset(seed)` does, so a compiled baseline plays here exactly the games it plays one at a time.
    Returns, in the order given, `{"winner", "score", "decisions", "record"}` per game (`winner` a seat or
    "draw", `score` the final marker + toward blue); `on_game(k, result)` is called as game k ends.
    """
    for agent in (a, b):
        if not batchable(agent):
            raise ValueError(f"play_batched plays compiled baselines, ppo: specs and objects with act_batch, "
                             f"not {describe(agent)!r}")  # fmt: skip
    out: list[dict[str, Any]] = [{} for _ in games]
    if not games:
        return out
    if not is_integer(n_envs) or isinstance(n_envs, bool) or n_envs < 1:
        raise ValueError(f"n_envs must be an integer >= 1, got {n_envs!r}")
    n = min(int(n_envs), len(games))
    env = SunTzuVecEnv(n, opponents=b, seed=0, options=options, illegal_action="raise")
    act = _BatchedPlayer(a, n)
    queue = list(enumerate(games))[::-1]
    playing = np.full(n, -1, dtype=np.int64)

    def start(envs: list[int]) -> np.ndarray:
        jobs = [queue.pop() for _ in envs]
        for i, (k, (_, _, a_seed, _)) in zip(envs, jobs, strict=True):
            playing[i] = k
            act.reset(i, a_seed)
        return env.play_games([g[0] for _, g in jobs], [g[1] for _, g in jobs],
                              [g[3] for _, g in jobs], envs)  # fmt: skip

    env.reset()
    env.sit_out(range(n))
    obs = start(list(range(n)))
    while (playing >= 0).any():
        obs, _, dones, infos = env.step(act(obs, env._masks))
        free = []
        for i in np.flatnonzero(dones).tolist():
            info, k = infos[i], int(playing[i])
            record = env.last_record(i)
            result = {"winner": info["winner"], "score": info["score"], "decisions": len(record["actions"]),
                      "record": record}  # fmt: skip
            out[k] = result
            if on_game is not None:
                on_game(k, result)
            playing[i] = -1
            free.append(i)
        if free:
            env.sit_out(free)
            if queue:
                obs = start(free[: len(queue)])
    return out


class _BatchedPlayer:
    """Agent `a` in the learner's seat of every env: `(obs, masks) -> actions`, with `reset(env, seed)` per game."""

    def __init__(self, agent: Any, n: int) -> None:
        self.compiled = core.COMPILED_AGENTS.index(agent) if isinstance(agent, str) and agent in core.COMPILED_AGENTS \
            else -1  # fmt: skip
        self.rngs = np.zeros((n, 1), dtype=np.int64)
        self.actions = np.zeros(n, dtype=np.int64)
        if self.compiled < 0:
            if isinstance(agent, str):
                agent = make_agent(agent)
            self.policy: Policy = agent.act_batch

    def reset(self, i: int, seed: int) -> None:
        self.rngs[i] = rng_seed(int(seed) % (1 << 63))

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.compiled >= 0:
            core.baseline_actions(self.compiled, obs, masks, self.rngs, self.actions)
            return self.actions
        return np.asarray(self.policy(obs, masks.astype(bool)), dtype=np.int64)


__all__ = ["batchable", "play_batched"]
