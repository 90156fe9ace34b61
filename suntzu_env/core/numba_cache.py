"""Where numba keeps the compiled code: one folder per part of the package (the core, each game) and per version
of the sources that part compiles from.

numba's `cache=True` checks only the source file of each compiled function, so a function whose file did not
change but which reads constants from one that did (the state layout, the observation pieces, the tables)
would load stale machine code: wrong observations, or a crash, after a `git pull`. Importing `suntzu_env`
points numba's cache, for each compiled function of the package, at a folder named by the part its file lies in
and a digest of the sources that part may read: the core's files (`suntzu_env/core/` and the package's own
top-level files) and, for a game, its own folder (`suntzu_env/binfa/`). So after a change everything that may
read it compiles afresh once, a checkout never loads code compiled from another, and editing one game's files
(or the app's) leaves every other game's compiled code valid.

The folders lie under `$NUMBA_CACHE_DIR` when that is set, else under `$XDG_CACHE_HOME/suntzu-env` (default
`~/.cache/suntzu-env`); a part's folders of other versions are removed when a new one is made. Compiled code
outside the package (a game of the user's own) is kept in the core's folder.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

from numba import config
from numba.core.caching import CacheImpl, UserProvidedCacheLocator

PACKAGE = Path(__file__).resolve().parent.parent
CORE = "core"
PREFIX = "numba-"


APP_FOLDER = "web"  # a game's face in the app: no compiled code reads it, so it is no part of the game's key


def source_digest(*roots: Path, files: tuple[Path, ...] = ()) -> str:
    """A digest of the names and contents of every Python source file under `roots` (but their `APP_FOLDER`s),
    and of `files`."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if path.relative_to(root).parts[0] == APP_FOLDER:
                continue
            name = f"{root.name}/{path.relative_to(root).as_posix()}"
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    for path in sorted(files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def part_of(py_file: str | Path, package: Path = PACKAGE) -> str:
    """The part of the package a source file belongs to: a game's folder name (`suntzu`, `binfa`, `play`), or
    `core` for the core and the package's top-level files."""
    try:
        relative = Path(py_file).resolve().relative_to(package)
    except ValueError:
        return CORE
    return relative.parts[0] if len(relative.parts) > 1 and relative.parts[0] != CORE else CORE


@functools.cache
def part_digest(part: str, package: Path = PACKAGE) -> str:
    """The digest of what the compiled code of `part` may read: the core, and the part's own folder."""
    core = (package / CORE,)
    top = tuple(package.glob("*.py"))
    return source_digest(*core, *(() if part == CORE else (package / part,)), files=top)


def cache_folder(digest: str, part: str = CORE) -> Path:
    """The cache folder of the source version `digest` of `part`."""
    name = digest if part == CORE else f"{part}-{digest}"
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base) / f"suntzu-env-{name}"
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "suntzu-env" / f"{PREFIX}{name}"


def part_folder(part: str) -> Path:
    """This source version's cache folder of `part`, made on first use (older versions of `part` removed)."""
    folder = cache_folder(part_digest(part), part)
    if not folder.exists() and folder.parent.name == "suntzu-env":
        stem = PREFIX if part == CORE else f"{PREFIX}{part}-"
        for old in folder.parent.glob(f"{stem}*"):
            if part == CORE and old.name.count("-") > 1:
                continue  # another part's folder
            shutil.rmtree(old, ignore_errors=True)
    return folder


class PartCacheLocator(UserProvidedCacheLocator):
    """numba's cache locator for the package's compiled functions: each part's folder (`part_folder`)."""

    def __init__(self, py_func: object, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = str(part_folder(part_of(py_file)) / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func: object, py_file: str) -> PartCacheLocator | None:
        if part_of(py_file) == CORE and not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None  # outside the package: numba's own locators (the core's folder, below)
        return super().from_function(py_func, py_file)


def use_part_keyed_cache() -> Path:
    """Point numba's cache at each part's folder (before any compiled function is defined); returns the core's."""
    if PartCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, PartCacheLocator)
    folder = part_folder(CORE)
    config.CACHE_DIR = str(folder)
    return folder


def compiled_before(module: str = "*", part: str = CORE) -> bool:
    """Whether compiled code of this source version's `module` of `part` (`vec_core` of `suntzu`: Sun Tzu's
    batched environment) is in its cache folder already; if not, its first use compiles it (a minute or so), which
    a command says first."""
    folder = part_folder(part)
    return folder.is_dir() and next(folder.rglob(f"{module}.*.nbi"), None) is not None


CACHE_FOLDER = use_part_keyed_cache()
