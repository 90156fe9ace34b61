"""The README's test command is a first check of minutes: the slow tests are marked and left out of it, and both CI
and the README's "Development" section run them, so the suite as a whole still runs."""

from __future__ import annotations

import shlex
import tomllib

from conftest import ROOT


def test_a_plain_pytest_leaves_the_slow_tests_out() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    options = shlex.split(config["addopts"])
    assert options[options.index("-m") + 1] == "not slow"
    assert any(marker.startswith("slow:") for marker in config["markers"])


def test_ci_and_the_readme_run_the_slow_tests_too() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    readme_command = ci.index('bash -eo pipefail -c "$tests"')
    assert ci.index("python -m pytest -m slow") > readme_command  # after the README's test command
    development = (ROOT / "README.md").read_text().split("## Development", 1)[1]
    assert "python -m pytest -m slow" in development
    assert "python -m pytest -m slow" in (ROOT / "docs" / "development.md").read_text()


def test_the_readme_runs_the_tests_on_every_core_and_at_most_eight_workers() -> None:
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("```", 2)[1]
    assert "python -m pytest -n auto" in quick_start
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.startswith("pytest-xdist") for r in project["project"]["optional-dependencies"]["test"])
    options = shlex.split(project["tool"]["pytest"]["ini_options"]["addopts"])
    assert options[options.index("--maxprocesses") + 1] == "8"
