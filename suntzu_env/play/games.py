"""The games the app serves, found through the registry (`suntzu_env.core.games`): each one's face, title and path."""

from __future__ import annotations

import importlib
import re

from suntzu_env.core import games as registry
from suntzu_env.play.face import WebFace
from suntzu_env.play.textface import TextFace

SERVED_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")  # a game's name that can be a path (others are not served)


def served_games() -> list[str]:
    """The games the app serves and `--game` may name: every registered one whose name can be a page's path."""
    return [name for name in registry.names() if SERVED_NAME.fullmatch(name)]


def face_of(name: str) -> WebFace:
    """The face of the game registered as `name`: the one its plug-in names (`web`), else its text (`TextFace`)."""
    rules = registry.game(name)
    target = getattr(rules, "web", None)
    if target is None:
        return TextFace(rules)
    module, _, attribute = str(target).partition(":")
    face = getattr(importlib.import_module(module), attribute)
    if not isinstance(face, WebFace):
        raise TypeError(f"game {name!r}: its web {target!r} is not a suntzu_env.play.face.WebFace")
    return face


def title_of(name: str, load: bool = False) -> str:
    """A game's name for people: its plug-in's `title`, else its registered name. Its plug-in is read only when
    `load` (a game whose plug-in fails to load is named by its registered name)."""
    try:
        rules = registry.game(name) if load else next((r for r in registry.loaded() if registry.key(r) == name), None)
    except (ImportError, AttributeError, ValueError):
        rules = None
    return str(getattr(rules, "title", "") or name) if rules is not None else name


def prefix_of(name: str) -> str:
    """Where a game is served: the root for the registry's default game, else `/<name>`."""
    return "" if name == registry.DEFAULT else f"/{name}"
