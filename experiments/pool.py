"""The self-play pool: the run's opponent mix in its batched environment, with frozen snapshots of the learner.

The pool keeps the first snapshot and the `--pool-size` latest, in memory (as opponents the batched environment
plays) and on disk (`pool/snapshot_<timesteps>.npz`, for a resume: read back as data, `read_snapshot`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from agents.ppo import (
    PolicyActor,
    PPOAgent,
    describe_error,
)
from experiments.checkpoint import (
    ENV_PREFIX,
    env_state,
)
from experiments.cli import ConfigError
from experiments.config import (
    POOL,
    TrainConfig,
)
from experiments.runs import (
    save_atomic,
)
from suntzu_env.core.npz import UnsafeFileError, read_net_file
from suntzu_env.core.policy_net import seated_net

POOL_DIR = "pool"


class SelfPlayPool:
    """The run's opponent mix in its batched environment, with the self-play pool's frozen snapshots in it.

    The scripted opponents keep their weights; the pool's weight is shared evenly by its snapshots, each a
    `PPOAgent` whose network the environment plays inside its compiled step (sampling, with `--pool-deterministic`
    off, from each game's opponent generator). The pool keeps the first snapshot and the `pool_size` latest.
    """

    def __init__(self, env: Any, cfg: TrainConfig) -> None:
        self.env, self.cfg = env, cfg
        self.weights = cfg.opponent_weights
        self.restarted = False  # playing --restart-opponents' mix
        self.snapshots: list[tuple[int, PPOAgent]] = []
        if POOL not in self.weights:
            env.set_opponents(self.weights)

    def follow(self, timesteps: int, env_too: bool = True) -> None:
        """Take up the mix of a rollout starting at `timesteps` (`--restart-opponents'` from the restart on), from
        the next games on; `env_too` False: the environment has it already (restored from a checkpoint). Leaving
        the mix, the pool's snapshots leave it too; a mix with the pool but no snapshot yet waits for `snapshot`."""
        restarted = self.cfg.restarted(timesteps)
        if restarted == self.restarted:
            return
        self.restarted, self.weights = restarted, self.cfg.opponent_weights_at(timesteps)
        if POOL not in self.weights:
            self.snapshots = []
            if env_too:
                self.env.set_opponents(self.weights)
        elif self.snapshots and env_too:
            self._share()

    def agent(self, timesteps: int, actor: PolicyActor) -> PPOAgent:
        """The pool's agent of the snapshot taken at `timesteps`."""
        seed = (self.cfg.seed * 1_000_003 + timesteps) % 2**31
        return PPOAgent(actor, self.cfg.pool_deterministic, seed=seed, name=POOL)

    def add(self, timesteps: int, actor: PolicyActor) -> None:
        """Add a frozen actor (from the next games on)."""
        self.snapshots.append((timesteps, self.agent(timesteps, actor)))
        if len(self.snapshots) > self.cfg.pool_size + 1:
            del self.snapshots[1]
        self._share()

    def _share(self) -> None:
        """Play the mix with the pool's weight shared evenly by its snapshots."""
        share = self.weights[POOL] / len(self.snapshots)
        mix: dict[Any, float] = {spec: w for spec, w in self.weights.items() if spec != POOL}
        self.env.set_opponents(mix | {agent: share for _, agent in self.snapshots})

    def state(self) -> dict[str, np.ndarray]:
        """The environment's state with which of its opponent slots hold the pool's snapshots (a checkpoint's)."""
        out = {ENV_PREFIX + key: value for key, value in self.env.get_state().items()}
        out["pool_steps"] = np.array([t for t, _ in self.snapshots], dtype=np.int64)
        out["pool_slots"] = np.array([self.env.opponent_slot(agent) for _, agent in self.snapshots], dtype=np.int64)
        return out

    def restore(self, state: dict[str, np.ndarray]) -> None:
        """Continue from a checkpoint's `state`: the environment's games and slots, the pool's snapshots (their
        networks read from the environment's slots, which keep them)."""
        env = env_state(state)
        snapshots = []
        for t, k in zip(state["pool_steps"].tolist(), state["pool_slots"].tolist(), strict=True):
            actor = PolicyActor.of(seated_net(env, f"slot{k}_")[0])
            snapshots.append((t, k, self.agent(t, actor)))
        self.env.set_state(env, {k: agent for _, k, agent in snapshots})
        self.snapshots = [(t, agent) for t, _, agent in snapshots]


def make_vec_env(cfg: TrainConfig) -> tuple[VecEnv, SelfPlayPool]:
    """The batched environment of the run (under SB3's `VecMonitor`, for episode statistics) and its pool."""
    scripted = [spec for spec in cfg.opponent_weights if spec != POOL]
    first = scripted[0] if scripted else cfg.rules.scripted_agents[0]
    try:  # an opponent the batched env cannot play (a search, which reads the game itself) is the user's choice
        env = cfg.rules.batched_env(cfg.n_envs, first, seed=cfg.seed, options=cfg.options,
                                    shaped_reward=cfg.shaped_reward)  # fmt: skip
        return VecMonitor(env), SelfPlayPool(env, cfg)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def pool_files(run_dir: Path) -> list[tuple[int, Path]]:
    """The pool's snapshot files, `(timesteps, path)`, oldest first."""
    found = []
    for path in (run_dir / POOL_DIR).glob("snapshot_*.npz"):
        steps = path.stem.split("_")[1]
        if steps.isdigit():
            found.append((int(steps), path))
    return sorted(found)


def read_snapshot(path: Path) -> PolicyActor:
    """A pool snapshot's frozen actor, read as data (`suntzu_env.core.npz.read_net_file`; `UnsafeFileError` naming
    the file when it holds more than data)."""
    try:
        return PolicyActor.of(read_net_file(path))
    except UnsafeFileError as error:
        raise UnsafeFileError(f"pool snapshot {path} is not a network's arrays ({error})") from None


def check_pool(run_dir: Path) -> None:
    """Refuse a run folder whose pool holds a snapshot that is more than data (`UnsafeFileError`, naming it),
    before a resume changes anything; a merely damaged one is left for `restore_pool` to delete."""
    for _, path in pool_files(run_dir):
        try:
            read_snapshot(path)
        except UnsafeFileError:
            raise
        except Exception:  # damaged: the pool does without it when it is restored
            continue


def prune_pool(run_dir: Path, pool_size: int) -> None:
    """Keep on disk what the pool keeps in memory: the first snapshot and the `pool_size` latest."""
    files = pool_files(run_dir)
    for _, path in files[1:-pool_size]:
        path.unlink(missing_ok=True)


def snapshot(model: MaskablePPO, cfg: TrainConfig, run_dir: Path, pool: SelfPlayPool) -> None:
    """Freeze the current policy into the self-play pool (and `pool/`, for resuming)."""
    if POOL not in pool.weights:
        return
    actor = PolicyActor.from_policy(model.policy)
    (run_dir / POOL_DIR).mkdir(exist_ok=True)
    save_atomic(run_dir / POOL_DIR / f"snapshot_{model.num_timesteps}.npz", lambda f: np.savez(f, **actor.state()))
    prune_pool(run_dir, cfg.pool_size)
    pool.add(model.num_timesteps, actor)


def write_pool(run_dir: Path, pool: SelfPlayPool, upto: int) -> None:
    """`pool/` as the pool is in memory after a resume from a checkpoint: snapshots past it (an abandoned
    future) deleted, the pool's own written again where they were pruned since."""
    for t, path in pool_files(run_dir):
        if t > upto:
            path.unlink()
    (run_dir / POOL_DIR).mkdir(exist_ok=True)
    for t, agent in pool.snapshots:
        path = run_dir / POOL_DIR / f"snapshot_{t}.npz"
        if not path.is_file():
            save_atomic(path, lambda f, actor=agent.actor: np.savez(f, **actor.state()))


def restore_pool(model: MaskablePPO, cfg: TrainConfig, run_dir: Path, pool: SelfPlayPool) -> None:
    """Refill the pool from `pool/` with the snapshots taken up to the model's timesteps; none: snapshot now.

    Snapshots past the model's timesteps belong to an abandoned future and are deleted, unreadable ones too.
    """
    pool.follow(model.num_timesteps)
    if POOL not in pool.weights:
        return
    restored = 0
    for t, path in pool_files(run_dir):
        if t > model.num_timesteps:
            path.unlink()
            continue
        try:
            actor = read_snapshot(path)
        except UnsafeFileError:
            raise
        except Exception as error:  # a damaged file: the pool does without it
            print(f"pool snapshot {path} is unreadable ({describe_error(error)}): deleted")
            path.unlink()
            continue
        pool.add(t, actor)
        restored += 1
    if not restored:
        snapshot(model, cfg, run_dir, pool)
    prune_pool(run_dir, cfg.pool_size)
