"""What a training checkpoint holds besides the learner: everything else the run's future depends on.

A checkpoint `checkpoints/ppo_<timesteps>_steps.zip` (the learner and its optimizer, SB3's format, read as data
by `agents.ppo.read_model`) has a state file beside it, `ppo_<timesteps>_steps.state.npz` (arrays only, read as
data by `suntzu_env.core.npz.read_npz`), written first: a checkpoint whose zip is there has its state. The state holds:

- the random generators of the training process: numpy's global one, torch's (CPU and every CUDA device's)
  and Python's `random`;
- the batched environment's games in progress, their generators and its opponent slots (`SunTzuVecEnv.get_state`),
  with the episode counters of its monitor;
- which of the environment's opponent slots are the self-play pool's snapshots, and when each was taken;
- the run's segments so far (each start and the checkpoint it resumed from, with their timesteps and seconds).

Resuming from a checkpoint with its state continues exactly the run that wrote it: the same weights and the
same evaluations as a run never stopped, bit for bit (on the same machine and library versions).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import torch
from stable_baselines3.common.vec_env import VecMonitor

from agents.ppo import CHECKPOINT_DIR
from experiments.runs import save_atomic
from suntzu_env.core.npz import read_npz

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

STATE_SUFFIX = ".state.npz"
ENV_PREFIX = "env."  # the environment's arrays in the state file
RNG_KEYS = ("numpy_keys", "numpy_pos", "numpy_gauss", "torch", "python", "python_gauss")


def state_path(checkpoint: Path) -> Path:
    """`ppo_<timesteps>_steps.state.npz` beside `ppo_<timesteps>_steps.zip`."""
    return checkpoint.with_name(checkpoint.stem + STATE_SUFFIX)


def random_state() -> dict[str, np.ndarray]:
    """The process's global random generators, as arrays."""
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    assert kind == "MT19937"
    version, internal, gauss_next = random.getstate()
    out = {
        "numpy_keys": np.asarray(keys, dtype=np.uint32).copy(),
        "numpy_pos": np.array(pos, dtype=np.int64),
        "numpy_gauss": np.array([has_gauss, gauss], dtype=np.float64),
        "torch": torch.get_rng_state().numpy().copy(),
        "python": np.array([version, *internal], dtype=np.int64),
        "python_gauss": np.array([] if gauss_next is None else [gauss_next], dtype=np.float64),
    }
    if torch.cuda.is_available():
        for i, cuda in enumerate(torch.cuda.get_rng_state_all()):
            out[f"cuda{i}"] = cuda.numpy().copy()
    return out


def set_random_state(state: dict[str, np.ndarray]) -> None:
    """Put the global random generators back where `random_state` read them."""
    keys, pos, (has_gauss, gauss) = state["numpy_keys"], int(state["numpy_pos"]), state["numpy_gauss"]
    np.random.set_state(("MT19937", keys.astype(np.uint32), pos, int(has_gauss), float(gauss)))
    torch.set_rng_state(torch.from_numpy(state["torch"].astype(np.uint8)))
    python = [int(x) for x in state["python"]]
    gauss_next = [float(x) for x in state["python_gauss"]]
    random.setstate((python[0], tuple(python[1:626]), gauss_next[0] if gauss_next else None))
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            if f"cuda{i}" in state:
                torch.cuda.set_rng_state(torch.from_numpy(state[f"cuda{i}"].astype(np.uint8)), i)


def save_state(checkpoint: Path, arrays: dict[str, np.ndarray], segments: list[dict[str, Any]]) -> Path:
    """Write a checkpoint's state file whole (before its zip)."""
    everything = dict(arrays) | {"segments": np.array(json.dumps(segments))}
    return save_atomic(state_path(checkpoint), lambda f: np.savez(f, **everything))


def read_state(checkpoint: Path) -> dict[str, np.ndarray]:
    """A checkpoint's state, read as data (`suntzu_env.core.npz.read_npz`): OSError/ValueError/KeyError when it is
    missing or damaged, `UnsafeFileError` when it holds more than data."""
    state = read_npz(state_path(checkpoint))
    for key in (*RNG_KEYS, "segments", "pool_steps", "pool_slots"):
        if key not in state:
            raise KeyError(f"no {key!r} in {state_path(checkpoint).name}")
    if state["numpy_keys"].shape != (624,) or state["python"].shape != (626,):
        raise ValueError(f"{state_path(checkpoint).name}: its random generators' states are damaged")
    segments(state)
    return state


def segments(state: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The run's segments up to a checkpoint (each a dict), from its state."""
    value = json.loads(str(state["segments"]))
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        raise ValueError("the segments of a checkpoint's state must be a list of objects")
    return value


def env_state(state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The environment's part of a state."""
    return {key[len(ENV_PREFIX) :]: value for key, value in state.items() if key.startswith(ENV_PREFIX)}


class SavesState(Protocol):
    """What a checkpoint keeps of a part of the run (the self-play pool): its arrays by name."""

    def state(self) -> dict[str, np.ndarray]: ...


def save_checkpoint(model: MaskablePPO, run_dir: Path, pool: SavesState, segments: Segments) -> Path:
    """`checkpoints/ppo_<timesteps>_steps.zip` with its state file (`experiments.checkpoint`), each written
    whole, the state first. Reads the run's state and changes none of it."""
    (run_dir / CHECKPOINT_DIR).mkdir(exist_ok=True)
    path = run_dir / CHECKPOINT_DIR / f"ppo_{model.num_timesteps}_steps.zip"
    monitor = model.get_env()
    arrays = random_state() | pool.state()
    if isinstance(monitor, VecMonitor):
        arrays |= {"monitor_returns": monitor.episode_returns.copy(), "monitor_lengths": monitor.episode_lengths.copy(),
                   "monitor_count": np.array(monitor.episode_count)}  # fmt: skip
    save_state(path, arrays, segments.upto(model.num_timesteps))
    return save_atomic(path, model.save)


@dataclasses.dataclass
class Segments:
    """The run's segments: the earlier ones (as its checkpoint recorded them) and this process's."""

    earlier: list[dict[str, Any]]
    resumed_from: str | None
    start_steps: int
    start_time: float = dataclasses.field(default_factory=time.perf_counter)

    def current(self, timesteps: int) -> dict[str, Any]:
        return {"resumed_from": self.resumed_from, "from_timesteps": self.start_steps, "to_timesteps": timesteps,
                "wall_s": round(time.perf_counter() - self.start_time, 1)}  # fmt: skip

    def upto(self, timesteps: int) -> list[dict[str, Any]]:
        return [*self.earlier, self.current(timesteps)]
