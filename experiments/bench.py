"""End-to-end training speed against its limit: `python -m experiments.bench [train flags] [--timesteps N]`.

MaskablePPO learns exactly as `experiments.train` sets it up (the flags are the training's: network, PPO
settings, `--n-envs`, opponents, device, torch threads) on two environments in turn, in one process:

- the run's batched environment, with the run's opponent mix and the self-play pool full (`--pool-size`
  + 1 snapshots, as in a run past its start), and
- `StubVecEnv`, a zero-cost `VecEnv` replaying observations and action masks recorded from the game's own
  environment under random legal play (so the policy sees positions with as many legal actions as in the
  game), whose speed is what MaskablePPO itself allows: no environment can be faster.

Each round times `--timesteps` learner steps on each, alternately (after one warm-up rollout each); the
report gives both rates per round and the median of our rate over the stub's. No warm start, evaluation or
files: only `learn`.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from contextlib import nullcontext
from typing import Any

import numpy as np
from gymnasium import spaces
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from agents.ppo import PolicyActor
from experiments.cli import parse, run_cli
from experiments.config import POOL, TrainConfig, train_config_class
from experiments.game import DEFAULT, game_flag
from experiments.train import make_vec_env, new_model, prepare_torch, torch_device
from suntzu_env.core.threads import competing_process
from suntzu_env.core.vec_shell import BatchedVecEnv

PROG = "python -m experiments.bench"
STUB_FRAMES = 16  # the stub cycles through this many recorded observations and masks


def recorded_frames(venv: VecEnv, frames: int = STUB_FRAMES, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`frames` batches of observations and action masks of `venv`, from its reset on, every env playing a
    uniformly random legal action at each step."""
    rng = np.random.default_rng(seed)
    # copied as they come: a batched env may hand out the same buffers again at a later step
    obs, masks = [np.array(venv.reset(), np.float32)], [get_action_masks(venv).astype(bool)]
    while len(obs) < frames:
        chosen = np.argmax(rng.random(masks[-1].shape) * masks[-1], axis=1)
        obs.append(np.array(venv.step(chosen)[0], np.float32))
        masks.append(get_action_masks(venv).astype(bool))
    return np.stack(obs), np.stack(masks)


class StubVecEnv(BatchedVecEnv):
    """A zero-cost `VecEnv` cycling through the batches of observations and masks `frames` (as
    `recorded_frames`: frames x envs x ...) of the given spaces, with an episode end, rewarded +1, with
    probability 1/`episode_length` per step. MaskablePPO's own speed on it is the limit for any environment of
    those spaces and masks."""

    def __init__(self, observation_space: spaces.Box, action_space: spaces.Discrete,
                 frames: tuple[np.ndarray, np.ndarray], seed: int = 0, episode_length: int = 70) -> None:  # fmt: skip
        self._obs, self._masks = frames
        self.render_mode = None
        super().__init__(self._obs.shape[1], observation_space, action_space)
        self._rng = np.random.default_rng(seed)
        self._end = 1.0 / episode_length
        self._k = 0

    def reset(self) -> np.ndarray:
        return self._obs[0].copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._k = (self._k + 1) % len(self._obs)

    def step_wait(self) -> Any:
        dones = self._rng.random(self.num_envs) < self._end
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = self._obs[self._k, i].copy()
        return self._obs[self._k].copy(), dones.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self._masks[self._k]


@dataclasses.dataclass
class BenchConfig(TrainConfig):
    """Training steps/s on the run's batched environment against a zero-cost stub environment, side by side."""

    timesteps: int = 65_536
    """learner steps timed per environment per round"""
    rounds: int = 3
    """rounds, each timing both environments"""
    contention: bool = False
    """time each environment twice a round: quiet, then beside a competing busy process (one Python loop)"""


def rates(cfg: BenchConfig) -> list[tuple[float, ...]]:
    """(ours, stub) learner steps/s per round; with `contention`, (ours, stub, ours busy, stub busy)."""
    prepare_torch(cfg.torch_threads)
    device = torch_device(cfg.device)
    venv, pool = make_vec_env(cfg)
    ours = new_model(cfg, venv, device)
    if POOL in cfg.opponent_weights:
        for t in range(cfg.pool_size + 1):
            pool.add(t, PolicyActor.from_policy(ours.policy))
    frames = recorded_frames(venv, STUB_FRAMES, cfg.seed)
    stub = new_model(cfg, VecMonitor(StubVecEnv(venv.observation_space, venv.action_space, frames, cfg.seed)), device)
    for model in (ours, stub):
        model.learn(cfg.rollout_size)  # warm-up: compiled code loaded, torch's first passes
    out = []
    for _ in range(cfg.rounds):
        found = []
        for busy in (False, True) if cfg.contention else (False,):
            with competing_process() if busy else nullcontext():
                for model in (ours, stub):
                    start = time.perf_counter()
                    model.learn(cfg.timesteps, reset_num_timesteps=False)
                    found.append(cfg.timesteps / (time.perf_counter() - start))
        out.append(tuple(found))
    return out


def network(cfg: TrainConfig) -> str:
    """The policy's network as the run's flags set it: `net [256, 256]` or `cells 32 wide, 2 layers`."""
    if cfg.network == "cells":
        return f"cells {cfg.cell_width} wide, {cfg.cell_layers} layers"
    return f"net {list(cfg.net_arch)}"


def run(argv: list[str] | None = None) -> dict[str, Any]:
    cfg = parse(train_config_class(game_flag(argv) or DEFAULT, BenchConfig), argv, PROG)
    found = rates(cfg)
    print(f"MaskablePPO learn, {cfg.n_envs} envs x {cfg.n_steps} steps, batches of {cfg.batch_size}, "
          f"{cfg.n_epochs} epochs, {network(cfg)}, opponents {cfg.opponents}, "
          f"{torch_device(cfg.device)}:")  # fmt: skip
    for k, (ours, stub, *busy) in enumerate(found, 1):
        print(f"  round {k}: the game's env {ours:,.0f} steps/s, zero-cost stub {stub:,.0f} steps/s "
              f"({ours / stub:.0%})")  # fmt: skip
        if busy:
            print(f"           beside a busy process: the game's env {busy[0]:,.0f} steps/s ({busy[0] / ours:.0%} of "
                  f"quiet), stub {busy[1]:,.0f} steps/s ({busy[1] / stub:.0%} of quiet)")  # fmt: skip
    ratio = statistics.median(r[0] / r[1] for r in found)
    print(f"median: {ratio:.0%} of the stub's steps/s")
    result: dict[str, Any] = {"rounds": found, "ratio": ratio}
    if cfg.contention:
        result["busy_over_quiet"] = statistics.median(r[2] / r[0] for r in found)
        print(f"median beside a busy process: {result['busy_over_quiet']:.0%} of the quiet steps/s")
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return run_cli(PROG, lambda: run(argv), BenchConfig)


if __name__ == "__main__":
    main()
