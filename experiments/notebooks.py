"""What the notebooks (`notebooks/*.ipynb`) share: the trained agent they evaluate, for either game.

`evaluated(run, game, runs_dir)` is the agent: the run folder `run`; else the latest finished run under `runs_dir`
(of `game`, when one is named); else, on a fresh clone, the game's shipped agent (`ppo:pretrained/<game>`,
`suntzu_env.pretrained`). A run's game and options are read from its `config.json`, a shipped agent's from
`SHIPPED`. `short_run` trains a small run for the notebook that needs a run folder (its learning curves), and
`board_picture` draws either game's board.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from experiments.game import game_of
from experiments.runs import latest_run, read_config
from suntzu_env.core.games import DEFAULT as DEFAULT_GAME  # whose shipped agent plays when nothing names one
from suntzu_env.core.protocol import GameOptions, GameRules, TurnGame
from suntzu_env.pretrained import POLICY, SHIPPED, Shipped

NOTEBOOK_RUNS = "notebook"  # short runs made by a notebook: under runs/notebook/, which `latest_run` never picks


@dataclasses.dataclass(frozen=True)
class Evaluated:
    """The trained agent a notebook evaluates: its game, its spec, the options its games are played under, a
    short name for figures, and its run folder (None: a shipped agent)."""

    rules: GameRules[Any]
    spec: str
    options: GameOptions
    name: str
    run: Path | None


def shipped_policy(game: str) -> Shipped:
    """The shipped policy of `game` (ValueError for a game that ships none)."""
    for entry in SHIPPED.values():
        if entry.game == game and entry.role == POLICY:
            return entry
    raise ValueError(f"the game {game} ships no trained agent: train one (python -m experiments.train --game {game})")


def evaluated(run: str | Path = "", game: str = "", runs_dir: str | Path = "runs") -> Evaluated:
    """The run folder `run`; else the latest finished run under `runs_dir` (of `game` when named); else `game`'s
    shipped agent (the default game's when no game is named)."""
    if not run:
        try:
            run = latest_run(runs_dir, game or None)
        except FileNotFoundError:
            entry = shipped_policy(game or DEFAULT_GAME)
            rules = game_of(entry.game)
            return Evaluated(rules, entry.spec, rules.options(entry.options), f"pretrained/{entry.name}", None)
    cfg = read_config(run)
    if game and cfg.game != game:
        raise ValueError(f"{run} is a run of {cfg.game}, not of {game}")
    return Evaluated(cfg.rules, f"ppo:{run}", cfg.options, Path(run).name, Path(run))


def short_run(game: str, runs_dir: str | Path = "runs", steps: int = 16_384) -> Path:
    """A small training run of `game` (a short warm start, then `steps` learner decisions) under
    `runs_dir/notebook/`, made once: a finished one there is reused."""
    from experiments.train import main

    folder = Path(runs_dir) / NOTEBOOK_RUNS
    try:
        return latest_run(folder, game)
    except FileNotFoundError:
        pass
    every, games = max(steps // 2, 256), str(max(4, min(40, steps // 400)))  # 40 games of each kind by default
    main(["--game", game, "--runs-dir", str(folder), "--exp-name", "notebook", "--total-timesteps", str(steps),
          "--n-envs", "16", "--n-steps", "64", "--batch-size", "256", "--bc-games", games, "--dagger-rounds", "0",
          "--eval-every", str(every), "--eval-games", games, "--final-eval-games", games, "--workers", "1",
          "--no-progress-bar"])  # fmt: skip
    return latest_run(folder, game)


def board_picture(rules: GameRules[Any], game: TurnGame, size: int = 480) -> Any:
    """The board of a game in progress as a PIL image (`GameRules.picture`)."""
    image = rules.picture(game, size)
    if image is None:
        raise ValueError(f"{rules.name} draws no picture of its board")
    return image


__all__ = ["Evaluated", "board_picture", "evaluated", "shipped_policy", "short_run"]
