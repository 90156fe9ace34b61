"""Shared test fixtures."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The real training command with a budget of seconds: every part runs (behaviour cloning, the self-play
# pool, periodic and final evaluations, checkpoints), on two environments and a tiny network.
TINY_RUN = (
    "--total-timesteps", "512", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
    "--net-arch", "32", "32", "--bc-games", "6", "--bc-epochs", "1", "--eval-every", "256", "--eval-games", "2",
    "--final-eval-games", "4", "--eval-opponents", "random", "greedy", "--checkpoint-every", "256",
    "--pool-every", "1", "--workers", "1", "--exp-name", "smoke", "--timestamp", "test", "--no-progress-bar",
)  # fmt: skip


def run_train(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m experiments.train ARGS` from the repository root, its output captured."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "experiments.train", *args]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}"
    return out


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
