"""The compiled code's cache is keyed, part by part, on the sources each part may read: the core and the game's own
folder. So no checkout loads stale machine code, and editing one game leaves the other's compiled code valid."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from numba import config
from suntzu_env.core.numba_cache import CACHE_FOLDER
from suntzu_env.core.numba_cache import PACKAGE
from suntzu_env.core.numba_cache import PartCacheLocator
from suntzu_env.core.numba_cache import cache_folder
from suntzu_env.core.numba_cache import part_digest
from suntzu_env.core.numba_cache import part_of
from suntzu_env.core.numba_cache import source_digest


def test_the_digest_changes_with_any_source_file(tmp_path: Path) -> None:
    tree = tmp_path / "pkg"
    shutil.copytree(PACKAGE / "suntzu" / "engine", tree / "engine")
    (tree / "layout.py").write_text("STATE_SIZE = 1\n")
    before = source_digest(tree)
    assert source_digest(tree) == before  # the same files, the same digest
    (tree / "layout.py").write_text("STATE_SIZE = 2\n")  # a constant other modules compile in
    assert source_digest(tree) != before
    (tree / "layout.py").write_text("STATE_SIZE = 1\n")
    (tree / "engine" / "board.py").rename(tree / "engine" / "board2.py")  # a renamed file counts too
    assert source_digest(tree) != before


def _package_copy(tmp_path: Path) -> Path:
    package = tmp_path / "suntzu_env"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "static"))
    return package


def test_editing_one_game_leaves_the_other_games_key(tmp_path: Path) -> None:
    """A change in Bin'Fa's folder changes Bin'Fa's key only; one in the app's, or in a game's face in the app (its
    `web/`), changes no game's; one in the core changes every key."""
    package = _package_copy(tmp_path)
    parts = ("core", "suntzu", "binfa")
    before = {part: part_digest.__wrapped__(part, package) for part in parts}
    assert len(set(before.values())) == 3

    def keys() -> dict[str, str]:
        return {part: part_digest.__wrapped__(part, package) for part in parts}

    (package / "binfa" / "engine.py").write_text((package / "binfa" / "engine.py").read_text() + "\n# edited\n")
    after = keys()
    assert after["binfa"] != before["binfa"] and after["suntzu"] == before["suntzu"] and after["core"] == before["core"]
    (package / "play" / "app.py").write_text((package / "play" / "app.py").read_text() + "\n# edited\n")
    assert keys() == after
    (package / "suntzu" / "web" / "view.py").write_text((package / "suntzu" / "web" / "view.py").read_text() + "#\n")
    assert keys() == after
    (package / "core" / "rng.py").write_text((package / "core" / "rng.py").read_text() + "\n# edited\n")
    assert all(keys()[part] != after[part] for part in parts)


def test_each_part_compiles_into_its_own_folder() -> None:
    """A game's compiled functions are cached in its own folder; the core's, and code outside the package, in the
    core's, which is numba's CACHE_DIR."""
    from suntzu_env.binfa import engine as binfa_engine
    from suntzu_env.core import rng
    from suntzu_env.suntzu.engine import board

    assert part_of(board.__file__) == "suntzu" and part_of(binfa_engine.__file__) == "binfa"
    assert part_of(rng.__file__) == "core" and part_of(__file__) == "core"
    for module, part in ((board, "suntzu"), (binfa_engine, "binfa"), (rng, "core")):
        function = next(f for f in vars(module).values() if hasattr(f, "_cache") and f.__module__ == module.__name__)
        locator = function._cache._impl.locator
        assert isinstance(locator, PartCacheLocator)
        assert Path(locator.get_cache_path()).parent == cache_folder(part_digest(part), part)
    assert str(CACHE_FOLDER) == config.CACHE_DIR
    assert cache_folder(part_digest("core")) == CACHE_FOLDER


def test_the_cache_folders_lie_under_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert cache_folder("abc") == tmp_path / "suntzu-env-abc"
    assert cache_folder("abc", "binfa") == tmp_path / "suntzu-env-binfa-abc"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder("abc") == tmp_path / "suntzu-env" / "numba-abc"
    assert cache_folder("abc", "suntzu") == tmp_path / "suntzu-env" / "numba-suntzu-abc"
