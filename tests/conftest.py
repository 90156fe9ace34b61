"""Shared test fixtures."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The real training command on the smoke budget (SUNTZU_TRAIN_SMOKE=1, seconds: every stage runs on two
# environments and a tiny network), evaluated against two baselines.
TINY_RUN = ("--eval-opponents", "random", "greedy", "--timestamp", "test", "--no-progress-bar")


def command_env(**extra: str) -> dict[str, str]:
    """The environment of a command run from the repository root: this checkout first on the import path."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, SUNTZU_TRAIN_SMOKE="1", **extra)


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "experiments.train", *args]


def run_module(module: str, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` from the repository root on the smoke budget, its output captured."""
    cmd = [sys.executable, "-m", module, *args]
    out = subprocess.run(cmd, cwd=ROOT, env=command_env(), capture_output=True, text=True, timeout=timeout)
    if check:
        assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}"
    return out


def exit_of(module: str, *args: str, command_line: bool = False, timeout: float = 300) -> tuple[int | str | None, str]:
    """The exit status and stderr of the command `python -m MODULE ARGS` that must exit: its `main` called in this
    process (quicker: no new imports), or with `command_line` the real command line."""
    if command_line:
        out = run_module(module, *args, check=False, timeout=timeout)
        return out.returncode, out.stderr
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), pytest.raises(SystemExit) as exit_:
        importlib.import_module(module).main(list(args))
    return exit_.value.code, stderr.getvalue()


def run_train(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m experiments.train ARGS` from the repository root on the smoke budget, its output captured."""
    return run_module("experiments.train", *args, timeout=timeout)


def train_here(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """`python -m experiments.train ARGV` in this process (quicker than a new one); what it printed."""
    from experiments import train

    capsys.readouterr()
    train.main(list(argv))
    return capsys.readouterr().out


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a finished tiny training run (made once per test session)."""
    runs = tmp_path_factory.mktemp("runs")
    run_train(*TINY_RUN, "--runs-dir", str(runs))
    (run,) = runs.iterdir()
    return run


def require(module: str) -> Any:
    """Import an optional client library (the `clients` extra): skipped where it is not installed, except in
    CI (`CI` set), which installs the extra and must not pass by skipping."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.fixture(scope="module")
def browser() -> Any:
    """The real browser the page tests drive (`play_helpers.launch_browser`: skipped without one)."""
    from play_helpers import launch_browser

    with launch_browser() as b:
        yield b


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    """Where the page tests leave their screenshots (`play_helpers.screenshot_folder`)."""
    from play_helpers import screenshot_folder

    return screenshot_folder(tmp_path)
