"""The notebooks run clean from top to bottom, on a tiny training run and a few games."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from nbclient import NotebookClient

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_notebooks_are_there() -> None:
    assert {p.stem for p in NOTEBOOKS} >= {"win_rates", "training", "replay"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_clean(path: Path, tiny_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    book = nbformat.read(path, as_version=4)
    assert "parameters" in book.cells[1].metadata.get("tags", []), "the second cell holds the parameters"
    for name, value in {"RUN": str(tiny_run), "GAMES": "4", "WORKERS": "1", "SEED": "3"}.items():
        monkeypatch.setenv(f"SUNTZU_NB_{name}", value)  # the kernel inherits them
    client = NotebookClient(
        book, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for cell in book.cells for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    pictures = [o for cell in book.cells for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    assert pictures, "every notebook draws at least one picture"
