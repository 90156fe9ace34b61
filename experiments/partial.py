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
uninterrupted evaluation's, file for file (but for the timing in `summary.json`). What is read back is data,
checked before it counts: `config.json` as the command line's flags, each unit file as its unit's games
(`experiments.matches.check_unit`, which replays each record to its row); a bad file is one line naming it and
the field, and changes nothing. A new evaluation stopped before it finished a unit (a model refused by its
worker, say) removes its folder: there is nothing to resume.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.cli import UserError
from experiments.matches import BadGame, Job, check_unit, parse_json
from experiments.runs import write_json
from suntzu_env.core.files import TEMPORARY

PARTIAL = ".partial"
OLD = ".old-"  # an <out> being replaced, moved aside: `.<name>.old-<pid>`
PROGRESS = "progress"
UNIT_KEYS = ("rows", "elapsed_s")  # a unit file's fields
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

    def discard(self) -> None:
        """Remove the folder (a new evaluation that stopped before it finished a unit: nothing to resume)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    @staticmethod
    def saved_config(out: Path) -> dict[str, Any]:
        """What the evaluation in progress into `out` evaluates (UserError when there is none)."""
        folder = partial_folder(out)
        if not (folder / PROGRESS).is_dir():
            if out.is_dir() and (out / "summary.json").is_file():
                raise UserError(f"--resume {out}: this evaluation is finished; nothing to resume")
            raise UserError(f"--resume {out}: no unfinished evaluation into this folder (no {folder})")
        path = folder / PROGRESS / "config.json"
        try:
            what = parse_json(path.read_bytes())
        except BadGame as bad:
            raise UserError(f"--resume {out}: {path}: {bad}") from None
        except OSError as error:
            raise UserError(f"--resume {out}: {path} is unreadable ({error.strerror or error})") from None
        if not isinstance(what, dict):
            raise UserError(f"--resume {out}: {path}: (the file): expected a JSON object")
        if not isinstance(what.get("overwrite", False), bool):
            raise UserError(f"--resume {out}: {path}: overwrite: expected true or false, got {what['overwrite']!r:.60}")
        return what

    def done(self, jobs: Sequence[Job]) -> tuple[dict[Key, list[dict[str, Any]]], float]:
        """The rows of each finished unit of `jobs` (the evaluation's units of work) and the seconds they took.

        Each unit file is read as data and checked as its job's games (`check_unit`: every field, each record
        replayed to its row); a file that is not is a UserError naming it and the field, and nothing is changed.
        """
        planned = {f"{job.pairing}-{job.first_seed}": job for job in jobs}
        done, seconds = {}, 0.0
        for path in sorted(self.progress.glob("*-*.json")):
            try:
                rows, elapsed = self._unit(path, planned.get(path.stem))
            except BadGame as bad:
                raise UserError(f"--resume {self.out}: {path}: {bad} (delete the file to play its games again)"
                                ) from None  # fmt: skip
            except OSError as error:
                raise UserError(f"--resume {self.out}: {path} is unreadable ({error.strerror or error})") from None
            done[rows[0]["pairing"], rows[0]["seed"]] = rows
            seconds = max(seconds, elapsed)
        return done, seconds

    @staticmethod
    def _unit(path: Path, job: Job | None) -> tuple[list[dict[str, Any]], float]:
        """A unit file's rows, checked as `job`'s games, and its seconds (BadGame: what is wrong)."""
        if job is None:
            raise BadGame("(the file)", "not a unit of this evaluation (<pairing>-<first deck seed>.json of its plan)")
        unit = parse_json(path.read_bytes())
        if not isinstance(unit, dict):
            raise BadGame("(the file)", f"expected a JSON object {{\"rows\": [...], \"elapsed_s\": ...}}, got "
                          f"{type(unit).__name__}")  # fmt: skip
        for key in unit:
            if key not in UNIT_KEYS:
                raise BadGame(str(key)[:60], f"not a field of a unit ({', '.join(UNIT_KEYS)})")
        for key in UNIT_KEYS:
            if key not in unit:
                raise BadGame(key, "missing")
        elapsed = unit["elapsed_s"]
        if isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or not 0 <= elapsed < math.inf:
            raise BadGame("elapsed_s", f"expected a number of seconds >= 0, got {elapsed!r:.60}")
        return check_unit(job, unit["rows"]), float(elapsed)

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
