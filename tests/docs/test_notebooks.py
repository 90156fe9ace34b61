"""The notebooks run clean from top to bottom for either game: on a tiny training run of Sun Tzu and of Bin'Fa, and
on a fresh clone (no run: the shipped agents, and a short run made by the training notebook)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from conftest import TINY_RUN
from conftest import run_train

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TINY = {"GAMES": "4", "WORKERS": "1", "SEED": "3", "SHORT_STEPS": "512"}  # a few games, a short run of seconds


def test_the_notebooks_are_there() -> None:
    assert {p.stem for p in NOTEBOOKS} >= {"win_rates", "training", "replay"}


@pytest.fixture(scope="module")
def tiny_binfa_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny training run of Bin'Fa."""
    runs = tmp_path_factory.mktemp("binfa-runs")
    run_train("--game", "binfa", *TINY_RUN, "--runs-dir", str(runs))
    (run,) = runs.iterdir()
    return run


def execute(path: Path, monkeypatch: pytest.MonkeyPatch, **variables: str) -> nbformat.NotebookNode:
    """The notebook run from top to bottom with these `SUNTZU_NB_*` variables (the kernel inherits them); it
    shows no error and draws at least one picture."""
    book = nbformat.read(path, as_version=4)
    assert "parameters" in book.cells[1].metadata.get("tags", []), "the second cell holds the parameters"
    for name, value in (TINY | variables).items():
        monkeypatch.setenv(f"SUNTZU_NB_{name}", value)
    client = NotebookClient(
        book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for cell in book.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    pictures = [o for cell in book.cells for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    assert pictures, "every notebook draws at least one picture"
    return book


def printed(book: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for cell in book.cells for o in cell.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_clean_on_a_sun_tzu_run(path: Path, tiny_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = execute(path, monkeypatch, RUN=str(tiny_run))
    assert "suntzu" in printed(book)
    if path.stem == "win_rates":  # the exploitability table, read from docs/exploitability.csv
        assert "heuristic rating     +0: its best response wins  26.6% [24.0, 29.4] of 1000 games" in printed(book)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_reads_the_game_from_a_bin_fa_run(
    path: Path, tiny_binfa_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = execute(path, monkeypatch, RUN=str(tiny_binfa_run))  # no SUNTZU_NB_GAME: the run's config.json names it
    assert "binfa" in printed(book)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["suntzu", "binfa"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_a_fresh_clone(path: Path, game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = execute(path, monkeypatch, RUNS=str(tmp_path), GAME=game)  # no finished run there
    text = printed(book)
    if path.stem == "training":  # a short run, made under runs/notebook/
        (run,) = (tmp_path / "notebook").iterdir()
        assert run.name.startswith(f"{game}-") and f"{game}:" in text
    else:  # the game's shipped agent
        assert f"ppo:pretrained/{game}" in text
