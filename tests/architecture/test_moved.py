"""The import paths of earlier versions keep working after the games moved into folders of their own: each old name
is the module at its new place (the same object, so classes and `isinstance` agree), submodules of a moved package
included, and the command lines `python -m suntzu_env.bench` and `python -m suntzu_env.demo` run."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from suntzu_env.core.moved import MOVED
from suntzu_env.core.moved import new_name


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_at_its_new_place(old: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(MOVED[old])


def test_old_names_of_classes_and_submodules_agree() -> None:
    import suntzu_env.engine.board as old_board
    import suntzu_env.suntzu.engine.board as board
    from suntzu_env.game import Game as OldGame
    from suntzu_env.suntzu.game import Game
    from suntzu_env.suntzu.vec_env import SunTzuVecEnv
    from suntzu_env.vec_env import SunTzuVecEnv as OldVecEnv

    assert old_board is board and OldGame is Game and OldVecEnv is SunTzuVecEnv
    import suntzu_env

    assert suntzu_env.Game is Game and suntzu_env.engine is importlib.import_module("suntzu_env.suntzu.engine")
    assert new_name("suntzu_env.vec.env") == "suntzu_env.suntzu.vec.env"
    assert new_name("suntzu_env.engine.rng") == "suntzu_env.core.rng"  # the generator is the core's now
    assert new_name("suntzu_env.binfa.engine") is None and new_name("suntzu_env.suntzu.game") is None


@pytest.mark.parametrize("module", ["suntzu_env.bench", "suntzu_env.demo"])
def test_the_old_command_lines_run(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:")


def test_an_unknown_name_is_still_missing() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("suntzu_env.no_such_module")
