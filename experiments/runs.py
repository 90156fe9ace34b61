"""Run folders: writing their files so that none is ever half-written, and reading them back.

A run folder `runs/<name>/` written by `experiments.train` holds:

| path                 | what                                                                        |
|----------------------|-----------------------------------------------------------------------------|
| `config.json`        | the resolved `TrainConfig` (`python -m experiments.train --help`)           |
| `versions.json`      | python and the libraries the run began with (`experiments.versions`)       |
| `checkpoints/`       | `ppo_<timesteps>_steps.zip` + `.state.npz`: `--resume` continues exactly; `ppo_0`: warm start |
| `warm_start.json`    | the behaviour cloning's figures                                             |
| `pool/`              | `snapshot_<timesteps>.npz`, the self-play pool's actors (`--pool-size` + 1) |
| `eval.csv`           | win rate against each baseline over timesteps, with 95% intervals           |
| `learning_curve.png` | `eval.csv` as a figure                                                      |
| `model.zip`          | the final model (`ppo:runs/<name>` in `agents.make_agent`)                  |
| `summary.json`       | written last: the whole run's timesteps, wall time, segments, final evaluation |
| `tb/`                | TensorBoard logs (`tensorboard --logdir runs`)                              |

Every file but TensorBoard's is written whole or not at all (`write_atomic`: a temporary file, then a
rename), so a run killed at any moment leaves the files of its last good state. A folder appears whole too:
`config.json` and `versions.json` are in it from the start. A run is finished once `summary.json` exists.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from experiments.cli import UserError
from suntzu_env.core.files import TEMPORARY, write_atomic

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from experiments.config import TrainConfig

log = logging.getLogger(__name__)
EVAL_FIELDS = ("timesteps", "opponent", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "final",
               "outright_win_rate", "outright_ci_low", "outright_ci_high")  # fmt: skip
"""`eval.csv`'s columns: `win_rate` is the score (a draw or an undecided game counts as half a win with two seats),
`outright_win_rate` the games won over those played; each with its Wilson 95% interval"""
# -------------------------------------------------------------------- writing whole files


def save_atomic(path: str | Path, save: Callable[[IO[bytes]], Any]) -> Path:
    """`write_atomic` of what `save(buffer)` writes: `model.save`, `np.savez`, `figure.savefig`."""
    buffer = io.BytesIO()
    save(buffer)
    return write_atomic(path, buffer.getvalue())


def write_json(path: str | Path, value: Any) -> Path:
    return write_atomic(path, json.dumps(value, indent=2) + "\n")


def remove_unfinished(run_dir: Path) -> None:
    """Delete the hidden folders (`.<name>.tmp-<pid>`) killed runs left while making `run_dir`."""
    for stale in run_dir.parent.glob(f".{run_dir.name}{TEMPORARY}*"):
        shutil.rmtree(stale, ignore_errors=True)


def remove_temporaries(folder: str | Path) -> int:
    """Delete the temporary files a killed process left in `folder` and below; returns how many."""
    removed = 0
    for path in Path(folder).rglob(f".*{TEMPORARY}*"):
        if path.is_file():
            path.unlink(missing_ok=True)
            removed += 1
    return removed


# -------------------------------------------------------------------- reading


def read_json(path: str | Path) -> Any:
    """The JSON in a file; a missing or unreadable file is a `UserError` naming it."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path} does not exist") from None
    except (OSError, ValueError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors, as is a
        raise UserError(f"{path} is unreadable ({error})") from None  # number longer than Python converts
    except RecursionError:  # a document nested deeper than the parser goes
        raise UserError(f"{path} is unreadable (nested too deep)") from None


def read_config(run_dir: str | Path, game: str | None = None) -> TrainConfig:
    """The `TrainConfig` a run folder was trained with (`game`: a `--game` the command line names, which a run of
    a game of one's own code, `<module>:<attribute>`, needs named again)."""
    from experiments.config import ConfigError, TrainConfig

    path = Path(run_dir) / "config.json"
    try:
        return TrainConfig.from_dict(read_json(path), game)
    except ConfigError as error:
        raise UserError(f"{path}: {error}") from None


def read_eval(run_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of `eval.csv`, typed (empty when there are none yet); unreadable rows are skipped, with a warning. The
    outright rate of a file written before it had that column is worked out from its counts."""
    path = Path(run_dir) / "eval.csv"
    if not path.is_file():
        return []
    try:
        with path.open(newline="") as f:
            raw = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        log.warning("%s is unreadable (%s): its evaluations are left out", path, error)
        return []
    rows = []
    for row in raw:
        try:
            for key in ("timesteps", "games", "wins", "draws", "losses"):
                row[key] = int(row[key])
            for key in ("win_rate", "ci_low", "ci_high"):
                row[key] = float(row[key])
            if row["final"] not in ("True", "False") or not row["opponent"]:
                raise ValueError(row["final"])
            row["final"] = row["final"] == "True"
            if row.get("outright_win_rate") in (None, ""):
                row |= _outright(row)
            for key in ("outright_win_rate", "outright_ci_low", "outright_ci_high"):
                row[key] = float(row[key])
        except (KeyError, TypeError, ValueError):
            continue
        rows.append(row)
    if len(rows) < len(raw):
        log.warning("%s: %d unreadable rows left out", path, len(raw) - len(rows))
    return rows


def write_eval(run_dir: str | Path, rows: list[dict[str, Any]]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=EVAL_FIELDS)
    writer.writeheader()
    for row in rows:
        full = row if "outright_win_rate" in row else row | _outright(row)  # a row of a file written before
        writer.writerow({k: full[k] for k in EVAL_FIELDS})
    write_atomic(Path(run_dir) / "eval.csv", text.getvalue())


def latest_run(runs_dir: str | Path = "runs", game: str | None = None) -> Path:
    """The most recent finished run folder (by name's timestamp, then modification time): one with `summary.json`;
    with `game`, the most recent of that game (its `config.json`'s)."""
    runs = [p.parent for p in Path(runs_dir).glob("*/summary.json") if (p.parent / "model.zip").is_file()]
    if game is not None:
        runs = [run for run in runs if _game_of_run(run) == game]
    if not runs:
        of = "" if game is None else f" of {game}"
        raise FileNotFoundError(f"no finished run{of} in {runs_dir}/: train one with `python -m experiments.train`")
    return max(runs, key=lambda p: (p.name.rsplit("__", 1)[-1], p.stat().st_mtime))


def _game_of_run(run: Path) -> str | None:
    """The game a run folder's `config.json` names (None: unreadable)."""
    from experiments.game import DEFAULT

    try:
        game = read_json(run / "config.json").get("game", DEFAULT)
    except (UserError, OSError, ValueError, AttributeError):
        return None
    return game if isinstance(game, str) else None


def plot_learning_curve(
    rows: list[dict[str, Any]], ax: Axes | None = None, title: str | None = None, outright: bool = False
) -> Axes:
    """Win rate against each opponent over timesteps, 95% intervals shaded; the final evaluation as dots. With
    `outright` (a game whose unfinished games are undecided, not tied), the games won outright over those played."""
    import matplotlib.pyplot as plt

    if outright:
        rows = [row | {k: row[f"outright_{k}"] for k in ("win_rate", "ci_low", "ci_high")} for row in rows]

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    opponents = list(dict.fromkeys(row["opponent"] for row in rows))
    for i, opp in enumerate(opponents):
        color = f"C{i}"
        periodic = [r for r in rows if r["opponent"] == opp and not r["final"]]
        final = [r for r in rows if r["opponent"] == opp and r["final"]]
        if periodic:
            x = [r["timesteps"] for r in periodic]
            ax.plot(x, [r["win_rate"] for r in periodic], color=color, marker=".", label=f"vs {opp}")
            ax.fill_between(
                x, [r["ci_low"] for r in periodic], [r["ci_high"] for r in periodic], color=color, alpha=0.2
            )
        for r in final:
            ax.errorbar(
                r["timesteps"],
                r["win_rate"],
                yerr=[[r["win_rate"] - r["ci_low"]], [r["ci_high"] - r["win_rate"]]],
                color=color,
                marker="o",
                capsize=3,
                label=None if periodic else f"vs {opp}",
            )
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("timesteps (learner decisions)")
    ax.set_ylabel("games won outright" if outright else "win rate (draw = ½)")
    ax.set_title(title or "evaluation against the baselines (dots: final)")
    if opponents:
        ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def _outright(row: dict[str, Any]) -> dict[str, Any]:
    """An evaluation row's outright rate and interval: the games won over those played."""
    from suntzu_env.core.stats import wilson

    games = row["games"]
    low, high = wilson(row["wins"], games)
    rate = row["wins"] / games if games else 0.0
    return {"outright_win_rate": rate, "outright_ci_low": low, "outright_ci_high": high}


def save_learning_curve(run_dir: str | Path, outright: bool = False) -> Path:
    """`learning_curve.png` from `eval.csv` (no pyplot: safe in a training process); `outright` as in
    `plot_learning_curve`."""
    from matplotlib.figure import Figure

    run_dir = Path(run_dir)
    fig = Figure(figsize=(7, 4), layout="tight")
    plot_learning_curve(read_eval(run_dir), fig.subplots(), title=run_dir.name, outright=outright)
    return save_atomic(run_dir / "learning_curve.png", lambda f: fig.savefig(f, format="png", dpi=110))
