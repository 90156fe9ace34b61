"""Players by name, for any game: the kinds installed distributions declare, and a game's registry over them.

A spec is a kind's name (`random`, `heuristic`, `ismcts`) or a kind's name and an argument after a colon
(`ismcts:200`, `ppo:runs/x`). A game's scripted players are its built-in kinds (`Players(kinds)`); every
other kind is an `AgentKind` that an installed distribution declares as an entry point of the group
`suntzu_env.agents` (this project's `pyproject.toml` declares `ismcts`, `ppo` and `rllib`, from
`agents.registry`). The entry points are read from the installed metadata when a spec first needs them, so the
package never imports the players built on top of it; a reinstall (`pip install -e .`) is what makes a newly
declared kind known.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Iterable

from suntzu_env.core.agent import Agent, AgentKind

ENTRY_POINT_GROUP = "suntzu_env.agents"


@functools.cache
def _installed() -> tuple[AgentKind, ...]:
    """The kinds installed distributions declare as entry points of `suntzu_env.agents`, by name."""
    kinds = []
    for point in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        kind = point.load()
        if not isinstance(kind, AgentKind) or kind.name != point.name:
            raise TypeError(f"entry point {point.name} = {point.value!r} ({ENTRY_POINT_GROUP}) is not the AgentKind "
                            f"{point.name!r}")  # fmt: skip
        kinds.append(kind)
    return tuple(kinds)


class Players:
    """A game's players by name: its built-in kinds first, then the installed kinds."""

    def __init__(self, builtin: Iterable[AgentKind]) -> None:
        self.builtin = tuple(builtin)

    def kinds(self) -> dict[str, AgentKind]:
        """Every kind of player by name: the built-in ones first, then the installed kinds."""
        kinds = {kind.name: kind for kind in self.builtin}
        for kind in _installed():
            kinds.setdefault(kind.name, kind)
        return kinds

    def names(self) -> tuple[str, ...]:
        """The specs that are a name alone: the built-in ones, then the installed kinds'."""
        return tuple(name for name, kind in self.kinds().items() if kind.bare)

    def valid_specs(self) -> str:
        """The accepted agent specs, for error messages and `--help`."""
        kinds = self.kinds().values()
        specs = [kind.name for kind in kinds if kind.bare] + [f"{k.name}:{k.argument}" for k in kinds if k.argument]
        return ", ".join(specs[:-1]) + f", or {specs[-1]}" if len(specs) > 1 else specs[0]

    def kind(self, spec: str) -> AgentKind:
        """The kind `spec` names; ValueError unless it names one (without loading any model)."""
        if not isinstance(spec, str):
            raise ValueError(f"agent spec must be a string, got {spec!r}; valid: {self.valid_specs()}")
        name, colon, argument = spec.partition(":")
        kind = self.kinds().get(name)
        if kind is None or not (kind.argument is not None and (argument or kind.check) if colon else kind.bare):
            raise ValueError(f"unknown agent {spec!r}; valid: {self.valid_specs()}")
        if colon and kind.check is not None:
            try:
                kind.check(argument)
            except ValueError as error:
                raise ValueError(f"agent {spec!r}: {error}; valid: {self.valid_specs()}") from None
        return kind

    def check_spec(self, spec: str) -> None:
        """Raise ValueError unless `spec` names an agent (without loading any model)."""
        self.kind(spec)

    def make_agent(self, spec: str, seed: int | None = None) -> Agent:
        """Build the agent named by `spec` (see `valid_specs()`), seeded with `seed`."""
        kind = self.kind(spec)
        _, colon, argument = spec.partition(":")
        return kind.make(argument if colon else None, seed)


def trained_kinds() -> dict[str, AgentKind]:
    """The installed kinds of trained model any game can play (`AgentKind.load`: `ppo`), by name."""
    return {kind.name: kind for kind in _installed() if kind.load is not None and kind.argument is not None}


def trained_spec(spec: str) -> tuple[AgentKind, str] | None:
    """The kind and the argument of a spec `<kind>:<argument>` of `trained_kinds()`; None for any other spec."""
    name, colon, argument = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    kind = trained_kinds().get(name)
    return (kind, argument) if colon and argument and kind is not None else None


def short_label(spec: str, width: int = 28) -> str:
    """A spec short enough for a header, a title or a table column; for reading only, never as a key.

    A model's path (`ppo:`, `rllib:`) is named by its run folder (`ppo:runs/x/model.zip` reads `ppo:x`, a
    checkpoint `ppo:x/ppo_256_steps`); what is still longer than `width` loses its middle to an ellipsis."""
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in ("ppo", "rllib") and rest:
        parts = [p for p in rest.replace("\\", "/").split("/") if p not in ("", ".")]
        if len(parts) >= 2 and parts[-1] in ("model.zip", "checkpoint"):
            parts = parts[:-1]
        if len(parts) >= 3 and parts[-2] == "checkpoints":
            name = f"{parts[-3]}/{parts[-1].removesuffix('.zip')}"
        else:
            name = parts[-1] if parts else rest
        spec = f"{prefix}:{name}"
    if len(spec) <= width:
        return spec
    head = (width - 1) // 2
    return f"{spec[:head]}…{spec[len(spec) - (width - 1 - head) :]}"


def model_path(spec: str) -> str | None:
    """The file a spec plays from (`ppo:<path>`, `rllib:<checkpoint>`: a kind whose agents are loaded from an
    argument and played in batches), or None for any other spec."""
    name, colon, argument = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    kind = {k.name: k for k in _installed()}.get(name)
    return argument if colon and kind is not None and kind.batched and not kind.bare else None


__all__ = [
    "ENTRY_POINT_GROUP",
    "Players",
    "model_path",
    "short_label",
    "trained_kinds",
    "trained_spec",
]
