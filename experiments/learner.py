"""The learner: MaskablePPO's settings and network from a run's config, its torch device, its health."""

from __future__ import annotations

import ctypes
import dataclasses
import sys
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import VecEnv

from agents.cell_policy import CellPolicy
from agents.ppo import (
    checkpoints,
    load_model,
)
from experiments.cli import UserError, flag
from experiments.config import (
    TrainConfig,
)
from suntzu_env.core.agent import ModelError


@dataclasses.dataclass(frozen=True)
class RestartedSchedule:
    """A learning rate decayed linearly twice: from `first` to 0 over the share `restart` of the run, then from
    `second` to 0 by its end. SB3 calls it with the share of the run still to come, 1 down to 0 (a class: the
    model pickles it)."""

    first: float
    second: float
    restart: float

    def __call__(self, progress_remaining: float) -> float:
        done = 1.0 - progress_remaining
        if done < self.restart:
            return self.first * (1.0 - done / self.restart)
        return self.second * max(0.0, 1.0 - (done - self.restart) / (1.0 - self.restart))


def learning_rate(cfg: TrainConfig) -> Any:
    """`--learning-rate` as MaskablePPO takes it: a number, or with `--anneal-lr` a schedule decaying it to 0 (twice
    with `--restart-at`)."""
    lr = cfg.learning_rate
    if not cfg.anneal_lr:
        return lr
    if cfg.restart_at:
        return RestartedSchedule(lr, cfg.restart_learning_rate, cfg.restart_at)
    return LinearSchedule(lr, 0.0, 1.0)


def ppo_settings(cfg: TrainConfig) -> dict[str, Any]:
    """MaskablePPO's arguments from the config (all but the network, which a checkpoint holds)."""
    return {
        "learning_rate": learning_rate(cfg),
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "max_grad_norm": cfg.max_grad_norm,
        "target_kl": cfg.target_kl,
    }


def policy_of(cfg: TrainConfig) -> tuple[Any, dict[str, Any]]:
    """The policy class and its arguments of the run's `--network`: an MLP, or the game's cell network."""
    if cfg.network == "cells":
        cells = {"width": cfg.cell_width, "layers": cfg.cell_layers}
        return CellPolicy, {"cells": cells, "layout": cfg.rules.cell_layout}
    return "MlpPolicy", {"net_arch": list(cfg.net_arch)}


def new_model(cfg: TrainConfig, venv: VecEnv, device: torch.device, tensorboard_log: str | None = None) -> MaskablePPO:
    """The run's MaskablePPO, untrained: its network, its settings, seeded with the run's seed (seed= seeds
    random, numpy, torch and the environments)."""
    policy, policy_kwargs = policy_of(cfg)
    return MaskablePPO(policy, venv, policy_kwargs=policy_kwargs, tensorboard_log=tensorboard_log, seed=cfg.seed,
                       device=device, **ppo_settings(cfg))  # fmt: skip


def network_words(policy_kwargs: dict[str, Any] | None) -> str:
    """A network in its flags' words: `--network cells --cell-width W --cell-layers L` or `--network mlp --net-arch
    A B`."""
    kwargs = policy_kwargs or {}
    cells = kwargs.get("cells")
    if isinstance(cells, dict):
        return f"--network cells --cell-width {cells.get('width')} --cell-layers {cells.get('layers')}"
    arch = kwargs.get("net_arch", [64, 64])  # SB3's default
    return f"--network mlp --net-arch {' '.join(map(str, arch)) if isinstance(arch, list) else arch}"


def initial_model(cfg: TrainConfig) -> MaskablePPO:
    """`--init-from`'s trained model, read as data: UserError (one line) unless it is a readable model of the run's
    game with the run's network."""
    try:
        model, _ = load_model(cfg.init_from, cfg.rules)
    except ModelError as error:
        raise UserError(f"{flag('init_from')}: {error}") from None
    have, want = network_words(model.policy_kwargs), network_words(policy_of(cfg)[1])
    if have != want:
        raise UserError(f"{flag('init_from')}: {cfg.init_from} has the network {have}; this run's is {want} (give "
                        "the same network flags)")  # fmt: skip
    return model


def start_from(model: MaskablePPO, cfg: TrainConfig) -> None:
    """Give the run's new `model` the networks of `--init-from` (its weights; the optimizer starts anew)."""
    model.policy.load_state_dict(initial_model(cfg).policy.state_dict())


def torch_device(name: str) -> torch.device:
    """`--device`: "auto" is the GPU where torch sees one, else the CPU; a named device must be there."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise UserError(f"{flag('device')} {name}: torch sees no CUDA GPU here (use auto or cpu)")
    return device


# glibc's mallopt parameters: how many blocks it may map apart from the heap, and how much freed memory at the
# heap's top it keeps before giving it back.
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
KEPT_FREE_MEMORY = 1 << 30


def prepare_torch(threads: int) -> None:
    """torch on `threads` CPU threads, and (with glibc) the memory a minibatch frees kept for the next one.

    A board network's minibatch allocates blocks of tens of MB; glibc maps each such block fresh and unmaps it
    when freed, so every pass pays the kernel for zeroed pages again (a third of an update's time). Kept in
    the heap instead, the blocks are reused; the process's peak memory is the same."""
    torch.set_num_threads(threads)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None)
            if hasattr(libc, "mallopt"):
                libc.mallopt(M_MMAP_MAX, 0)
                libc.mallopt(M_TRIM_THRESHOLD, KEPT_FREE_MEMORY)
        except OSError:  # not glibc: its own allocator decides
            pass


def finite(model: MaskablePPO) -> bool:
    """Whether every weight of the policy and value networks is a finite number."""
    return all(bool(torch.isfinite(p).all()) for p in model.policy.parameters())


def diverged(model: MaskablePPO, run_dir: Path) -> UserError:
    saved = checkpoints(run_dir)
    last = f"; its last checkpoint is {saved[-1]}" if saved else ""
    return UserError(f"training diverged at {model.num_timesteps:,} timesteps (the network's weights are no longer "
                     f"finite numbers): lower {flag('learning_rate')} or {flag('max_grad_norm')}{last}")  # fmt: skip
