"""The games the experiments can play, by name: `game("suntzu")`, `names()`, `register(name, plugin)`.

A game is one `suntzu_env.core.protocol.GameRules` value. It is found, in this order:

1. registered here: one line per game below, `"<name>": "<module>:<attribute>"`, imported on first use (so
   that naming a game never loads another's engine), or registered at run time with `register`;
2. an installed package's entry point in the group `suntzu_env.games` (`<name> = "<module>:<attribute>"`);
3. `load` only: a `<module>:<attribute>` itself, the way a command line's `--game` names a game of the user's
   own code that is not installed. Names read from files (a run's `config.json`, a results folder) go through
   `game`, which imports no module a file names.
"""

from __future__ import annotations

import importlib
import re
from importlib import metadata
from typing import Any

from suntzu_env.core.protocol import GameRules

DEFAULT = "suntzu"
"""the game the command lines play when none is named (and that every run folder without a `game` played)"""
ENTRY_POINTS = "suntzu_env.games"  # the entry-point group of installed games

_BUILT_IN: dict[str, str] = {
    "suntzu": "suntzu_env.suntzu.plugin:SUNTZU",
    "binfa": "suntzu_env.binfa.plugin:BINFA",
}
_LOADED: dict[str, GameRules[Any]] = {}
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


class UnknownGameError(ValueError):
    """A game name that is neither registered, installed nor (for `load`) a `module:attribute`."""


def register(name: str, plugin: GameRules[Any] | str) -> None:
    """Register a game under `name`: its `GameRules` value, or where to import it from (`module:attribute`)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a game's name must be a non-empty string, got {name!r}")
    if isinstance(plugin, str):
        _BUILT_IN[name] = plugin
        _LOADED.pop(name, None)
        return
    _LOADED[name] = _checked(plugin, name)


def names() -> tuple[str, ...]:
    """Every game known by name: registered here, registered at run time, installed (entry points)."""
    installed = [point.name for point in metadata.entry_points(group=ENTRY_POINTS)]
    return tuple(dict.fromkeys([*_BUILT_IN, *_LOADED, *installed]))


def game(name: str) -> GameRules[Any]:
    """The game registered or installed under `name` (`UnknownGameError` naming the known ones)."""
    if not isinstance(name, str):
        raise UnknownGameError(f"game: expected a game's name, got {name!r}")
    if name in _LOADED:
        return _LOADED[name]
    target = _BUILT_IN.get(name)
    if target is None:
        points = [point for point in metadata.entry_points(group=ENTRY_POINTS) if point.name == name]
        target = points[0].value if points else None
    if target is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(names())}")
    _LOADED[name] = _checked(_import(target), name)
    return _LOADED[name]


def load(name: str) -> GameRules[Any]:
    """`game(name)`, or the game at `<module>:<attribute>` (imported, then registered under that name)."""
    if name in _LOADED or name in _BUILT_IN or not _TARGET.fullmatch(name or ""):
        return game(name)
    try:
        plugin = _import(name)
    except (ImportError, AttributeError) as error:
        raise UnknownGameError(f"game {name!r}: cannot import it ({error})") from None
    _LOADED[name] = _checked(plugin, name)
    return _LOADED[name]


def key(plugin: GameRules[Any]) -> str:
    """The name a loaded game is known by (what a run's config keeps)."""
    for name, value in _LOADED.items():
        if value is plugin:
            return name
    raise UnknownGameError(f"{plugin!r} is not a registered game")


def loaded() -> tuple[GameRules[Any], ...]:
    """The games imported so far (whose `user_errors` a command line reports as one line)."""
    return tuple(_LOADED.values())


def _import(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _checked(plugin: Any, name: str) -> GameRules[Any]:
    if not isinstance(plugin, GameRules):
        members = {*GameRules.__annotations__, *(m for m in vars(GameRules) if not m.startswith("_"))}
        missing = sorted(m for m in members if not hasattr(plugin, m))
        raise UnknownGameError(f"game {name!r}: {plugin!r} is not a GameRules (it lacks {', '.join(missing)})")
    return plugin
