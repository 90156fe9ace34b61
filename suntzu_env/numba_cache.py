"""Where numba keeps the compiled code: one folder per version of the package's source.

numba's `cache=True` checks only the source file of each compiled function, so a function whose file did not
change but which reads constants from one that did (the state layout, the observation pieces, the tables)
would load stale machine code: wrong observations, or a crash, after a `git pull`. Importing `suntzu_env`
points numba's cache at a folder named by a digest of every source file of the package, so after any change
everything compiles afresh once, and a checkout never loads code compiled from another.

The folder lies under `$NUMBA_CACHE_DIR` when that is set, else under `$XDG_CACHE_HOME/suntzu-env` (default
`~/.cache/suntzu-env`); folders of other versions are removed when a new one is made.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from numba import config

PACKAGE = Path(__file__).resolve().parent
PREFIX = "numba-"


def source_digest(root: Path = PACKAGE) -> str:
    """A digest of the names and contents of every Python source file under `root`."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_folder(digest: str) -> Path:
    """The cache folder of the source version `digest`."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base) / f"suntzu-env-{digest}"
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "suntzu-env" / f"{PREFIX}{digest}"


def use_source_keyed_cache() -> Path:
    """Point numba's cache at this source version's folder (before any compiled function is defined)."""
    folder = cache_folder(source_digest())
    if not folder.exists() and folder.parent.name == "suntzu-env":
        for old in folder.parent.glob(f"{PREFIX}*"):
            shutil.rmtree(old, ignore_errors=True)
    config.CACHE_DIR = str(folder)
    return folder


def compiled_before(module: str = "*", folder: Path | None = None) -> bool:
    """Whether compiled code of this source version's `module` (`vec_core`: the batched environment) is in its
    cache folder already; if not, its first use compiles it (a minute or so), which a command says first."""
    folder = CACHE_FOLDER if folder is None else folder
    return folder.is_dir() and next(folder.rglob(f"{module}.*.nbi"), None) is not None


CACHE_FOLDER = use_source_keyed_cache()
