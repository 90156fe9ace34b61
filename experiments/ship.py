"""Copy a run's network into the package as a shipped agent: `python -m experiments.ship NAME RUN`.

NAME is one of `suntzu_env.pretrained.SHIPPED`; RUN is the run folder (or
model file) that the entry's recipe made. A policy's actor is read from the run's model as data
(`agents.ppo.load_ppo_agent`, for the entry's game), a value network from its `value.npz`
(`GameRules.value_learning.read`); only the network's float32 arrays are written, compressed, to
`suntzu_env/pretrained/<NAME>.npz`, whole or not at all. Run it when a recipe changes, then measure the agent
again and update its rates in `SHIPPED` and the docs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import tyro

from experiments.cli import ConfigError, parse, run_cli
from experiments.game import game_of
from experiments.runs import save_atomic
from suntzu_env.core.policy_net import CompiledNet
from suntzu_env.pretrained import POLICY, SHIPPED, Shipped

PROG = "python -m experiments.ship"


@dataclasses.dataclass
class ShipConfig:
    """Copy a run's network into the package as a shipped agent (see the module's docstring)."""

    name: tyro.conf.Positional[str]
    """the shipped agent: one of suntzu_env.pretrained.SHIPPED"""
    run: tyro.conf.Positional[Path]
    """the run folder (or model file) its recipe made"""

    def check(self) -> Shipped:
        if self.name not in SHIPPED:
            raise ConfigError(f"name must be one of {', '.join(SHIPPED)}, got {self.name!r}")
        if not self.run.exists():
            raise ConfigError(f"run {self.run} does not exist")
        return SHIPPED[self.name]


def network_of(entry: Shipped, run: Path) -> CompiledNet:
    """The network a shipped entry takes from `run`, read as data for the entry's game."""
    if entry.role == POLICY:
        from agents.ppo import load_ppo_agent

        return load_ppo_agent(run, game=game_of(entry.game)).actor.net
    learning = game_of(entry.game).value_learning
    if learning is None or learning.read is None:
        raise ConfigError(f"{entry.name}: its game reads no value network")
    return learning.read(run)


def ship(entry: Shipped, run: Path) -> Path:
    """Write the network of `run` to the entry's file in the package (float32 arrays, compressed); its path."""
    state = {
        name: value.astype(np.float32) if value.dtype.kind == "f" else value
        for name, value in network_of(entry, run).state().items()
    }
    return save_atomic(entry.file, lambda f: np.savez_compressed(f, **state))


def main(argv: Sequence[str] | None = None) -> Path:
    cfg = parse(ShipConfig, argv, PROG)

    def body() -> Path:
        entry = cfg.check()
        file = ship(entry, cfg.run)
        print(f"{entry.spec}: {file} ({file.stat().st_size:,} bytes) from {cfg.run}")
        return file

    return run_cli(PROG, body, ShipConfig)


if __name__ == "__main__":
    main()
