"""The environment names of rules v1, kept only to say what replaced them.

`suntzu_env.suntzu_v1` and the Gymnasium id `"SunTzu-v1"` played rules v1. Any change of play bumps an
environment's version, so rules v1.1 plays as `suntzu_env.suntzu_v2` and `"SunTzu-v2"`; importing or making
the old names raises `RetiredEnvironmentError` with `RETIRED_MESSAGE`.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

RETIRED_MODULE = "suntzu_env.suntzu_v1"
RETIRED_ENV_ID = "SunTzu-v1"
RETIRED_MESSAGE = (
    "suntzu_v1 and SunTzu-v1 played rules v1 and were replaced by suntzu_v2 and SunTzu-v2 (rules v1.1, "
    "docs/rules.md 'What changed in v1.1'): a side with nothing to take but a recall is now asked "
    "recall:<card> or pass (D14), a recall of P discards the recycled copy first (D15), and reinforce is "
    "offered with an empty reserve when a recall can supply the army (D16); use "
    "`from suntzu_env import env, parallel_env` or gymnasium.make('SunTzu-v2')"
)


class RetiredEnvironmentError(ImportError):
    """An environment name of rules v1 was asked for (an ImportError, so `import` reports it as such)."""


class _RetiredModuleFinder(importlib.abc.MetaPathFinder):
    """Answers `import suntzu_env.suntzu_v1` with `RETIRED_MESSAGE` instead of "No module named"."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname == RETIRED_MODULE:
            raise RetiredEnvironmentError(RETIRED_MESSAGE)


def install() -> None:
    """Put the finder in front of the import system once (done when `suntzu_env` is imported)."""
    if not any(isinstance(f, _RetiredModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _RetiredModuleFinder())


def retired_env(**_: Any) -> Any:
    """The entry point registered for `"SunTzu-v1"`: it only raises `RETIRED_MESSAGE`."""
    raise RetiredEnvironmentError(RETIRED_MESSAGE)
