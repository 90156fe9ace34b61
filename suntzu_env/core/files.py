"""Files written whole or not at all, for every part of the package and the experiments: a temporary file beside
the target, flushed to disk, then renamed over it (a killed process leaves at most a temporary, never half a file)."""

from __future__ import annotations

import os
from pathlib import Path

TEMPORARY = ".tmp-"  # part of the name of a file being written: `.<name>.tmp-<pid>`


def in_progress(path: Path) -> Path:
    """The name this process gives `path` (a file or a folder) while writing it, beside it: `.<name>.tmp-<pid>`."""
    return path.with_name(f".{path.name}{TEMPORARY}{os.getpid()}")


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write `data` to `path` whole or not at all: a temporary file beside it, flushed to disk, then renamed."""
    path = Path(path)
    temporary = in_progress(path)
    try:
        with temporary.open("wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)
    return path


def sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (where the system allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
