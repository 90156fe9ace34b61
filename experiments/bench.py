"""End-to-end training speed against its limit: `python -m experiments.bench [train flags] [--timesteps N]`.

MaskablePPO learns exactly as `experiments.train` sets it up (the flags are the training's: network, PPO
settings, `--n-envs`, opponents, device, torch threads) on two environments in turn, in one process:

- the run's batched environment, with the run's opponent mix and the self-play pool full (`--pool-size`
  + 1 snapshots, as in a run past its start), and
- a zero-cost stub `VecEnv` of the same shapes (`suntzu_env.bench.StubVecEnv`: random observations and
  masks), whose speed is what MaskablePPO itself allows: no environment can be faster.

Each round times `--timesteps` learner steps on each, alternately (after one warm-up rollout each); the
report gives both rates per round and the median of our rate over the stub's. No warm start, evaluation or
files: only `learn`.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

import torch
from stable_baselines3.common.vec_env import VecMonitor

from agents.ppo import PolicyActor
from experiments.cli import parse, run_cli
from experiments.config import POOL, TrainConfig
from experiments.train import make_vec_env, new_model, torch_device
from suntzu_env.bench import StubVecEnv

PROG = "python -m experiments.bench"


@dataclasses.dataclass
class BenchConfig(TrainConfig):
    """Training steps/s on the run's batched environment against a zero-cost stub environment, side by side."""

    timesteps: int = 65_536
    """learner steps timed per environment per round"""
    rounds: int = 3
    """rounds, each timing both environments"""


def rates(cfg: BenchConfig) -> list[tuple[float, float]]:
    """(ours, stub) learner steps/s per round."""
    torch.set_num_threads(cfg.torch_threads)
    device = torch_device(cfg.device)
    venv, pool = make_vec_env(cfg)
    ours = new_model(cfg, venv, device)
    if POOL in cfg.opponent_weights:
        for t in range(cfg.pool_size + 1):
            pool.add(t, PolicyActor.from_policy(ours.policy))
    stub = new_model(cfg, VecMonitor(StubVecEnv(cfg.n_envs, seed=cfg.seed)), device)
    for model in (ours, stub):
        model.learn(cfg.rollout_size)  # warm-up: compiled code loaded, torch's first passes
    out = []
    for _ in range(cfg.rounds):
        pair = []
        for model in (ours, stub):
            start = time.perf_counter()
            model.learn(cfg.timesteps, reset_num_timesteps=False)
            pair.append(cfg.timesteps / (time.perf_counter() - start))
        out.append((pair[0], pair[1]))
    return out


def run(argv: list[str] | None = None) -> dict[str, Any]:
    cfg = parse(BenchConfig, argv, PROG)
    found = rates(cfg)
    print(f"MaskablePPO learn, {cfg.n_envs} envs x {cfg.n_steps} steps, batches of {cfg.batch_size}, "
          f"{cfg.n_epochs} epochs, net {list(cfg.net_arch)}, opponents {cfg.opponents}, "
          f"{torch_device(cfg.device)}:")  # fmt: skip
    for k, (ours, stub) in enumerate(found, 1):
        print(f"  round {k}: SunTzuVecEnv {ours:,.0f} steps/s, zero-cost stub {stub:,.0f} steps/s ({ours / stub:.0%})")
    ratio = statistics.median(ours / stub for ours, stub in found)
    print(f"median: {ratio:.0%} of the stub's steps/s")
    return {"rounds": found, "ratio": ratio}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return run_cli(PROG, lambda: run(argv), BenchConfig)


if __name__ == "__main__":
    main()
