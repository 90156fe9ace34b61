"""Where the modules of earlier versions now live, so that every old import path keeps working.

The games were once one package: Sun Tzu's modules sat at the top of `suntzu_env` beside the game-free core.
Each game now has its own subpackage (`suntzu_env.suntzu`, `suntzu_env.binfa`) and the core its own
(`suntzu_env.core`). `import suntzu_env.game`, `from suntzu_env.vec_env import SunTzuVecEnv` or
`python -m suntzu_env.bench` still work: the finder installed when `suntzu_env` is imported answers an old name
with the module at its new place (the same module object, so `suntzu_env.game.Game is suntzu_env.suntzu.game.Game`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import CodeType, ModuleType
from typing import Any

_CORE = ("agent", "asking", "formats", "games", "npz", "numba_cache", "policy_net", "protocol", "retired",
         "saved_arrays", "stats", "threads", "turn_envs", "user_folders")  # fmt: skip
_SUNTZU = ("actions", "baselines", "bench", "demo", "determinize", "engine", "episode", "game", "gym_env", "layout",
           "observation", "older_rules", "openspiel", "options", "players", "records", "render", "rules",
           "suntzu_v3", "tables", "values", "vec", "vec_core", "vec_env")  # fmt: skip

MOVED: dict[str, str] = {
    **{f"suntzu_env.{name}": f"suntzu_env.core.{name}" for name in _CORE},
    **{f"suntzu_env.{name}": f"suntzu_env.suntzu.{name}" for name in _SUNTZU},
    "suntzu_env.suntzu_game": "suntzu_env.suntzu.plugin",
    "suntzu_env.engine.rng": "suntzu_env.core.rng",
    # each game's part of the app moved into the game's folder (`web/`); the app keeps what every game shares
    "suntzu_env.play.binfa": "suntzu_env.binfa.web.live",
    "suntzu_env.play.chronicle": "suntzu_env.suntzu.web.chronicle",
    "suntzu_env.play.explain": "suntzu_env.suntzu.web.explain",
    "suntzu_env.play.sessions": "suntzu_env.suntzu.web.live",
    "suntzu_env.play.text": "suntzu_env.suntzu.web.text",
    "suntzu_env.play.view": "suntzu_env.suntzu.web.view",
}
"""old module -> its place now; a submodule of a moved package (`suntzu_env.engine.board`) moved with it"""


def new_name(fullname: str) -> str | None:
    """Where the module once named `fullname` lives now, or None if it did not move."""
    if fullname in MOVED:
        return MOVED[fullname]
    parent = fullname.rpartition(".")[0]
    while parent and parent != "suntzu_env":
        if parent in MOVED:
            return f"{MOVED[parent]}.{fullname[len(parent) + 1 :]}"
        parent = parent.rpartition(".")[0]
    return None


class _MovedLoader(importlib.abc.Loader):
    """Hands back the module at its new place under the old name (and, for `python -m`, its code)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran at its new place."""

    def get_code(self, fullname: str) -> CodeType | None:
        spec = importlib.util.find_spec(self.target)
        loader = spec.loader if spec is not None else None
        return loader.get_code(self.target) if isinstance(loader, importlib.abc.InspectLoader) else None


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        moved = new_name(fullname) if fullname.startswith("suntzu_env.") else None
        if moved is None:
            return None
        spec = importlib.util.find_spec(moved)
        if spec is None:
            return None
        is_package = spec.submodule_search_locations is not None
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader(moved), origin=spec.origin, is_package=is_package)


def install() -> None:
    """Put the finder in front of the import system once (done when `suntzu_env` is imported), so that an old
    name is never found again as a second copy of the file at its new place."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
