"""What runs while PPO learns: the progress line or bar, and the run's callback (the self-play pool's snapshots,
periodic evaluations against the game's agents, checkpoints, training win rates per opponent, the divergence
check)."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat
from tqdm import tqdm

from agents.ppo import (
    PolicyActor,
    PPOAgent,
)
from experiments.checkpoint import (
    Segments,
    save_checkpoint,
)
from experiments.cli import on_terminal
from experiments.config import (
    TrainConfig,
)
from experiments.learner import diverged, finite
from experiments.matches import play_match
from experiments.pool import SelfPlayPool, snapshot
from experiments.progress import PROGRESS_EVERY, duration
from experiments.runs import (
    save_learning_curve,
    write_eval,
)
from experiments.stats import undecided
from experiments.warm_start import warm_start

EVAL_SEED = 1_000_003  # evaluation games use seeds from here (+ run seed): the same games at every evaluation


def evaluate(actor: PolicyActor, cfg: TrainConfig, games: int, timesteps: int, final: bool) -> list[dict[str, Any]]:
    """Seat-balanced games of the masked, deterministic policy against each of `cfg.eval_opponents` (with more than
    two seats: copies of the baseline in every seat but the policy's; `games` rounded up to a multiple of the seats)."""
    games = cfg.eval_games_played(games)
    rows = []
    for spec in cfg.eval_opponents:
        result = play_match(PPOAgent(actor), spec, games, seed=cfg.seed + EVAL_SEED, options=cfg.options,
                            workers=cfg.workers, game=cfg.game)  # fmt: skip
        rows.append({"timesteps": timesteps, "opponent": spec, "games": games, "final": final} | result)
    if cfg.progress_bar and not on_terminal():  # a terminal shows PPO's bar, which a line would break
        which = "final evaluation" if final else f"evaluation at {timesteps:,} timesteps"
        if undecided(cfg.game):
            rates = ", ".join(f"won {r['outright_win_rate']:.1%} against {r['opponent']} ({r['draws']:,} undecided)"
                              for r in rows)  # fmt: skip
        else:
            rates = ", ".join(f"{r['win_rate']:.1%} against {r['opponent']}" for r in rows)
        print(f"{which} ({games:,} games each): {rates}", flush=True)
    return rows


def tag(spec: str) -> str:
    """A TensorBoard-safe name for an agent spec."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)


class Progress(BaseCallback):
    """PPO's progress in timesteps: a bar on a terminal, else a plain line every `every` seconds, a first one as it
    starts and a last one saying what was done.

    Its pace counts from PPO's first step, so the evaluation made before it (the warm start's, at timestep 0) is not
    training time; the summary's `steps_per_s` counts from `started` (a `time.perf_counter()`), its updates and
    every evaluation included."""

    def __init__(self, total: int, started: float, terminal: bool, every: float = PROGRESS_EVERY) -> None:
        super().__init__()
        self.total, self.started, self.terminal, self.every = total, started, terminal, every
        self.first, self.stepping = 0, 0.0  # the timestep and the time of PPO's first step (0: none yet)
        self.next_line = started + every
        self.bar: Any = None

    def pace(self) -> float:
        """Timesteps a second since PPO's first step."""
        since = time.perf_counter() - self.stepping if self.stepping else 0.0
        return (self.model.num_timesteps - self.first) / since if since >= 1.0 else 0.0  # (a second, to be a pace)

    def line(self) -> str:
        t, pace = self.model.num_timesteps, self.pace()
        left = f", about {duration((self.total - t) / pace)} left" if pace > 0 and t < self.total else ""
        rate = f", {pace:,.0f} steps/s" if pace > 0 else ""
        return (f"PPO: {t:,} of {self.total:,} timesteps ({100 * min(t, self.total) / self.total:.0f}%){rate}, "
                f"{duration(time.perf_counter() - self.started)} so far{left}")  # fmt: skip

    def _on_training_start(self) -> None:
        self.first = self.model.num_timesteps
        if self.terminal:
            self.bar = tqdm(total=self.total, initial=self.first, desc="PPO", unit=" steps", unit_scale=True,
                            smoothing=0, dynamic_ncols=True)  # fmt: skip
            self.bar.start_t -= time.perf_counter() - self.started  # the same clock as the summary
        else:
            start = "starts" if self.first == 0 else f"goes on from timestep {self.first:,}"
            print(f"PPO {start}: {self.total:,} timesteps in all", flush=True)

    def _on_step(self) -> bool:
        if not self.stepping:
            self.stepping = time.perf_counter()
        if self.bar is not None:
            self.bar.update(min(self.model.num_timesteps, self.total) - self.bar.n)
        elif time.perf_counter() >= self.next_line:
            self.next_line = time.perf_counter() + self.every
            print(self.line(), flush=True)
        return True

    def _on_training_end(self) -> None:
        t = self.model.num_timesteps
        if self.bar is not None:
            self.bar.update(min(t, self.total) - self.bar.n)
            self.bar.close()
        rollout = getattr(self.model, "n_steps", 0) * getattr(self.model, "n_envs", 0)
        whole = f" ({self.total:,} asked, in whole rollouts of {rollout:,})" if t != self.total and rollout else ""
        rate = self.pace()
        pace = f" at {rate:,.0f} steps/s" if rate > 0 else ""
        print(f"PPO done: {t - self.first:,} timesteps trained{pace}, {t:,} in all{whole}, "
              f"{duration(time.perf_counter() - self.started)} since PPO began", flush=True)  # fmt: skip


class RunCallback(BaseCallback):
    """Self-play pool, periodic evaluations, checkpoints, training win rates per opponent, divergence check."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, eval_rows: list[dict[str, Any]], pool: SelfPlayPool,
                 segments: Segments) -> None:  # fmt: skip
        super().__init__()
        self.cfg, self.run_dir, self.pool, self.segments = cfg, run_dir, pool, segments
        self.results: dict[str, list[float]] = defaultdict(list)
        self.eval_rows = eval_rows
        self.next_eval = self.next_checkpoint = 0

    def _on_training_start(self) -> None:
        t = self.model.num_timesteps
        cfg = self.cfg
        self.next_eval = (t // cfg.eval_every + 1) * cfg.eval_every if cfg.eval_every else cfg.total_timesteps + 1
        every = cfg.checkpoint_interval
        self.next_checkpoint = (t // every + 1) * every if every else cfg.total_timesteps + 1
        for key, value in (warm_start(self.run_dir) or {}).items() if t == 0 else ():
            self.logger.record(f"bc/{key}", value)
        warm_started = t == 0 and cfg.bc_games and cfg.eval_every
        if warm_started and not any(r["timesteps"] == 0 for r in self.eval_rows):  # where PPO starts from
            self.record_eval(evaluate(PolicyActor.from_policy(self.model.policy), cfg, cfg.eval_games, t, False))
        for fmt in self.logger.output_formats:
            if isinstance(fmt, TensorBoardOutputFormat):
                table = "\n".join(f"|{k}|{v}|" for k, v in cfg.to_dict().items())
                fmt.writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}", t)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "winner" in info:
                points = 1.0 if info["winner"] == info["seat"] else 0.5 if info["winner"] == "draw" else 0.0
                self.results[info.get("opponent", "?")].append(points)
        return True

    def _on_rollout_end(self) -> None:
        """Runs after each rollout, before its update."""
        t, cfg = self.model.num_timesteps, self.cfg
        if cfg.restart_optimizer and cfg.restarted(t) and not cfg.restarted(t - cfg.rollout_size):
            self.model.policy.optimizer.state.clear()  # the update of the restarted learning rate starts it anew
        for spec, results in self.results.items():
            self.logger.record(f"rollout/win_rate_vs_{tag(spec)}", float(np.mean(results)))
        self.results.clear()

    def _on_rollout_start(self) -> None:
        """Runs after each PPO update (and before the first rollout)."""
        t, cfg = self.model.num_timesteps, self.cfg
        if t == 0:
            return
        if not finite(self.model):
            raise diverged(self.model, self.run_dir)
        self.pool.follow(t)  # --restart-opponents' mix from the restart on
        taken = any(steps == t for steps, _ in self.pool.snapshots)  # resuming where it was taken
        if ((t // cfg.rollout_size) % cfg.pool_every == 0 or not self.pool.snapshots) and not taken:
            snapshot(self.model, cfg, self.run_dir, self.pool)  # (nothing without the pool in the mix)
        if t >= self.next_eval:
            self.next_eval += cfg.eval_every * ((t - self.next_eval) // cfg.eval_every + 1)
            self.record_eval(evaluate(PolicyActor.from_policy(self.model.policy), cfg, cfg.eval_games, t, False))
        if t >= self.next_checkpoint:
            every = cfg.checkpoint_interval
            self.next_checkpoint += every * ((t - self.next_checkpoint) // every + 1)
            save_checkpoint(self.model, self.run_dir, self.pool, self.segments)

    def record_eval(self, rows: list[dict[str, Any]]) -> None:
        model = getattr(self, "model", None)  # set once training started; a run left only its final evaluation
        if model is not None and getattr(model, "_logger", None) is not None:
            prefix = "final" if rows and rows[0]["final"] else "eval"
            for row in rows:
                self.logger.record(f"{prefix}/win_rate_vs_{tag(row['opponent'])}", row["win_rate"])
        self.eval_rows.extend(rows)
        write_eval(self.run_dir, self.eval_rows)
        save_learning_curve(self.run_dir, outright=undecided(self.cfg.game))
