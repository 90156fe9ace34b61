"""Trained agents shipped inside the package: each game plays one without a training run.

A shipped agent is a network's plain arrays (`<name>.npz` beside this file: an actor's or a value network's
float32 weights, `CompiledNet.state()`), read as data like every model (`suntzu_env.core.npz.read_net_file`). It is
named `pretrained/<name>` wherever a model's path goes: `ppo:pretrained/suntzu` and `ppo:pretrained/binfa` play the
trained policies, `ismcts-value:pretrained/suntzu-value` the search with the shipped value network. `SHIPPED`
(read from `shipped.json`) says what each is: its game, the environment version and options it learned on, the
recipe of the run it was copied from, and the win rates it is documented (and tested) at. `python -m
experiments.ship <name> <run folder>` copies a run's network into the package when a recipe changes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

PREFIX = "pretrained/"  # a shipped agent's path: pretrained/<name>
FOLDER = Path(__file__).resolve().parent
CATALOG = "shipped.json"  # what each shipped network is (beside the networks: data, not code)
POLICY, VALUE = "policy", "value"  # what a shipped network is: an actor (ppo:) or a value network (ismcts-value:)


@dataclasses.dataclass(frozen=True)
class Shipped:
    """A shipped network: its `name` (`pretrained/<name>`), its game (a registered name), whether it is a `POLICY`
    or a `VALUE` network, the environment version and options it learned on, the command whose run it comes from,
    and its documented win rates, (opponent, win rate, games) each."""

    name: str
    game: str
    role: str
    environment: str
    options: dict[str, Any]
    recipe: str
    rates: tuple[tuple[str, float, int], ...]

    @property
    def spec(self) -> str:
        """The agent spec that plays it."""
        return f"{'ppo' if self.role == POLICY else 'ismcts-value'}:{PREFIX}{self.name}"

    @property
    def file(self) -> Path:
        return FOLDER / f"{self.name}.npz"


def _catalog() -> dict[str, Shipped]:
    """The shipped networks by name, as `CATALOG` describes them."""
    entries = json.loads((FOLDER / CATALOG).read_text())
    return {
        name: Shipped(name=name, **{**fields, "rates": tuple((o, float(r), int(n)) for o, r, n in fields["rates"])})
        for name, fields in entries.items()
    }


SHIPPED: dict[str, Shipped] = _catalog()


def shipped(path: object) -> Shipped | None:
    """The shipped network a model path names (`pretrained/<name>`), or None for any other path."""
    if not isinstance(path, str) or not path.startswith(PREFIX):
        return None
    return SHIPPED.get(path[len(PREFIX) :])


def shipped_specs(game: str) -> list[str]:
    """The specs of every shipped agent of `game`, policies first."""
    entries = sorted((e for e in SHIPPED.values() if e.game == game), key=lambda e: e.role != POLICY)
    return [entry.spec for entry in entries]


__all__ = ["CATALOG", "POLICY", "PREFIX", "SHIPPED", "VALUE", "Shipped", "shipped", "shipped_specs"]
