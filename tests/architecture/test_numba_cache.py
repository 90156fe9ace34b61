"""The compiled code's cache is keyed on the package's whole source, so no checkout loads stale machine code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from numba import config

from suntzu_env.core.numba_cache import CACHE_FOLDER, PACKAGE, cache_folder, source_digest


def test_the_digest_changes_with_any_source_file(tmp_path: Path) -> None:
    tree = tmp_path / "pkg"
    shutil.copytree(PACKAGE / "engine", tree / "engine")
    (tree / "layout.py").write_text("STATE_SIZE = 1\n")
    before = source_digest(tree)
    assert source_digest(tree) == before  # the same files, the same digest
    (tree / "layout.py").write_text("STATE_SIZE = 2\n")  # a constant other modules compile in
    assert source_digest(tree) != before
    (tree / "layout.py").write_text("STATE_SIZE = 1\n")
    (tree / "engine" / "rng.py").rename(tree / "engine" / "rng2.py")  # a renamed file counts too
    assert source_digest(tree) != before


def test_importing_the_package_points_numba_at_this_sources_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert str(CACHE_FOLDER) == config.CACHE_DIR
    assert CACHE_FOLDER.name.endswith(source_digest())
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert cache_folder("abc") == tmp_path / "suntzu-env-abc"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder("abc") == tmp_path / "suntzu-env" / "numba-abc"
