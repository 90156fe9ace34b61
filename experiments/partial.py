"""An evaluation's results folder in the making: filled aside, kept unit by unit, swapped in whole.

While `experiments.evaluate` plays, its results folder `<out>` does not exist yet (or is the old one, with
`--overwrite`); the work goes to `.<out name>.partial/` beside it:

| path                     | what                                                                          |
|--------------------------|-------------------------------------------------------------------------------|
| `progress/config.json`   | what is evaluated: agents, games, seed and the game's options                 |
| `progress/<p>-<seed>.json` | the rows of one finished unit of work (pairing p, from deck seed `seed`)    |

Each unit's file is written whole when the unit ends. At the end the results are written into the same
folder, `progress/` is removed and the folder is renamed to `<out>` (an old `<out>` is moved aside first,
then removed), so `<out>` holds a complete evaluation or is absent. A killed evaluation continues with
`--resume <out>`: the units already finished are read back, the others played, and the folder ends as an
uninterrupted evaluation's, file for file (but for the timing in `summary.json`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from experiments.cli import UserError
from experiments.runs import TEMPORARY, read_json, write_json

PARTIAL = ".partial"
OLD = ".old-"  # an <out> being replaced, moved aside: `.<name>.old-<pid>`
PROGRESS = "progress"
Key = tuple[int, int]  # (pairing, first deck seed) of a unit of work


def partial_folder(out: Path) -> Path:
    return out.with_name(f".{out.name}{PARTIAL}")


class Partial:
    """The folder of an evaluation in the making: its settings and its finished units."""

    def __init__(self, out: Path, what: dict[str, Any]) -> None:
        self.out, self.folder = out, partial_folder(out)
        self.progress = self.folder / PROGRESS
        self.what = what

    def start(self) -> None:
        """A fresh folder (an unfinished one of the same `out` is discarded)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.progress.mkdir(parents=True)
        write_json(self.progress / "config.json", self.what)

    @staticmethod
    def saved_config(out: Path) -> dict[str, Any]:
        """What the evaluation in progress into `out` evaluates (UserError when there is none)."""
        folder = partial_folder(out)
        if not (folder / PROGRESS).is_dir():
            if out.is_dir() and (out / "summary.json").is_file():
                raise UserError(f"--resume {out}: this evaluation is finished; nothing to resume")
            raise UserError(f"--resume {out}: no unfinished evaluation into this folder (no {folder})")
        what = read_json(folder / PROGRESS / "config.json")
        if not isinstance(what, dict):
            raise UserError(f"{folder / PROGRESS / 'config.json'}: expected a JSON object")
        return what

    def done(self) -> tuple[dict[Key, list[dict[str, Any]]], float]:
        """The rows of each finished unit (an unreadable unit file is played again) and the seconds they took."""
        done, seconds = {}, 0.0
        for path in sorted(self.progress.glob("*-*.json")):
            pairing, _, first = path.stem.partition("-")
            try:
                unit = json.loads(path.read_text())
                rows, elapsed = unit["rows"], float(unit["elapsed_s"])
                if not (isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)):
                    raise ValueError("no rows")
                done[int(pairing), int(first)] = rows
                seconds = max(seconds, elapsed)
            except (OSError, ValueError, KeyError, TypeError, RecursionError):
                print(f"{path} is unreadable: its games are played again")
        return done, seconds

    def save(self, pairing: int, rows: list[dict[str, Any]], elapsed_s: float) -> None:
        """Keep a finished unit's rows (written whole)."""
        write_json(self.progress / f"{pairing}-{rows[0]['seed']}.json", {"rows": rows, "elapsed_s": elapsed_s})

    def finish(self, overwrite: bool) -> Path:
        """The results written into the folder: it becomes `out`, whole (replacing an old one with `overwrite`)."""
        shutil.rmtree(self.progress)
        old = self.out.with_name(f".{self.out.name}{OLD}{os.getpid()}")
        if self.out.exists():
            if not overwrite:
                raise UserError(f"--out {self.out} appeared meanwhile: the results stay in {self.folder}")
            self.out.rename(old)
        self.folder.rename(self.out)
        shutil.rmtree(old, ignore_errors=True)
        return self.out


def stale_folders(parent: Path) -> list[str]:
    """What killed evaluations left in `parent`: unfinished ones (named, with how to continue them) and
    temporary folders of earlier versions or of a replaced folder (removed)."""
    notes = []
    if not parent.is_dir():
        return notes
    for path in sorted(parent.glob(f".*{PARTIAL}")):
        out = path.with_name(path.name[1 : -len(PARTIAL)])
        notes.append(f"note: {path} is an unfinished evaluation: continue it with --resume {out}, or delete it")
    for path in sorted([*parent.glob(f".*{TEMPORARY}*"), *parent.glob(f".*{OLD}*")]):
        pid = path.name.rpartition("-")[2]
        if path.is_dir() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            notes.append(f"removed {path}, left by a killed process")
    return notes


def _alive(pid: int) -> bool:
    """Whether a process `pid` runs (whose folder being made is then left alone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
