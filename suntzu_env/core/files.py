"""Files written whole or not at all, for every part of the package and the experiments: a temporary file beside
the target, flushed to disk, then renamed over it (a killed process leaves at most a temporary, never half a file).
Tables of results (a ladder's, best responses') are CSV files of rows keyed by some of their fields, a row replaced
by the next one of the same key (`read_rows`, `write_row`)."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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


def read_rows(path: str | Path, fields: Sequence[str], what: str) -> list[dict[str, str]]:
    """The rows of the CSV file `path` whose header is `fields` (none where there is no such file); ValueError
    naming `what` the file should be otherwise."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) == tuple(fields):
                return list(reader)
    except (OSError, UnicodeDecodeError, csv.Error):
        pass
    raise ValueError(f"{path}: not {what} (a CSV file whose header is {','.join(fields)})")


def write_row(path: str | Path, fields: Sequence[str], row: Mapping[str, Any], key: Sequence[str], what: str) -> None:
    """Write `row` into the CSV file `path` of `fields` (`read_rows`), replacing the row of the same `key` fields;
    the file whole or not at all."""
    rows = [r for r in read_rows(path, fields, what) if tuple(r[k] for k in key) != tuple(str(row[k]) for k in key)]
    rows.append({k: str(row[k]) for k in fields})
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(path, text.getvalue())
