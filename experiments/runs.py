"""Reading run folders back: config, periodic evaluations, learning curves.

A run folder `runs/<name>/` written by `experiments.train` holds:

| path                      | what                                                                  |
|---------------------------|-----------------------------------------------------------------------|
| `config.json`             | the resolved `TrainConfig` (`python -m experiments.train --help`)     |
| `model.zip`               | the final MaskablePPO model (`ppo:runs/<name>` in `agents.make_agent`) |
| `checkpoints/`            | `ppo_<timesteps>_steps.zip`, resumable with `--resume`                |
| `pool/`                   | `snapshot_<timesteps>.npz`, the self-play pool's frozen actors         |
| `eval.csv`                | win rate against each baseline over timesteps, with 95% intervals     |
| `learning_curve.png`      | `eval.csv` as a figure                                                |
| `summary.json`            | wall time, steps per second, the final evaluation                     |
| `tb/`                     | TensorBoard logs (`tensorboard --logdir runs`)                        |
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from experiments.config import TrainConfig

EVAL_FIELDS = ("timesteps", "opponent", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "final")


def read_config(run_dir: str | Path) -> TrainConfig:
    from experiments.config import TrainConfig

    return TrainConfig.from_dict(json.loads((Path(run_dir) / "config.json").read_text()))


def read_eval(run_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of `eval.csv`, typed (empty when there are none yet)."""
    path = Path(run_dir) / "eval.csv"
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key in ("timesteps", "games", "wins", "draws", "losses"):
            row[key] = int(row[key])
        for key in ("win_rate", "ci_low", "ci_high"):
            row[key] = float(row[key])
        row["final"] = row["final"] == "True"
    return rows


def write_eval(run_dir: str | Path, rows: list[dict[str, Any]]) -> None:
    with (Path(run_dir) / "eval.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        writer.writerows({k: row[k] for k in EVAL_FIELDS} for row in rows)


def latest_run(runs_dir: str | Path = "runs") -> Path:
    """The most recent run folder (by name's timestamp, then modification time) that holds a final model."""
    runs = [p.parent for p in Path(runs_dir).glob("*/model.zip")]
    if not runs:
        raise FileNotFoundError(f"no finished run in {runs_dir}/: train one with `python -m experiments.train`")
    return max(runs, key=lambda p: (p.name.rsplit("__", 1)[-1], p.stat().st_mtime))


def plot_learning_curve(rows: list[dict[str, Any]], ax: Axes | None = None, title: str | None = None) -> Axes:
    """Win rate against each opponent over timesteps, 95% intervals shaded; the final evaluation as dots."""
    import matplotlib.pyplot as plt

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
    ax.set_ylabel("win rate (draw = ½)")
    ax.set_title(title or "evaluation against the baselines (dots: final)")
    if opponents:
        ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def save_learning_curve(run_dir: str | Path) -> Path:
    """`learning_curve.png` from `eval.csv` (no pyplot: safe in a training process)."""
    from matplotlib.figure import Figure

    run_dir = Path(run_dir)
    fig = Figure(figsize=(7, 4), layout="tight")
    plot_learning_curve(read_eval(run_dir), fig.subplots(), title=run_dir.name)
    out = run_dir / "learning_curve.png"
    fig.savefig(out, dpi=110)
    return out
