"""Train a MaskablePPO agent on a game: `python -m experiments.train [--game NAME] [--help]`.

The game is `--game` (a registered name, default `suntzu_env.games.DEFAULT`; `--help` with it shows its option
flags), reached only through its `suntzu_env.protocol.GameRules`; every game of a run, for demonstrations,
training and evaluation, is played under the run's options, which its `config.json` keeps with its game.

1. **Warm start** (`--bc-games`, 0 to skip): the policy imitates the game's teacher's decisions
   (behaviour cloning on its games) and the value network learns their results.
2. **PPO**: the learner plays `--n-envs` games at once in the game's batched environment (a compiled
   game steps the games, the scripted opponents and the observations in compiled code), in alternate seats,
   against an opponent drawn per game from a mix of scripted baselines and frozen snapshots of itself (the
   self-play pool, `--opponents`), whose networks play inside the compiled step too.
3. **Evaluation**: every `--eval-every` timesteps, and at the end with more games, the masked,
   deterministic policy plays seat-balanced games against each baseline; the results go to `eval.csv`,
   TensorBoard and `learning_curve.png`.

Everything is written to `runs/<run name>/` (see `experiments.runs`), every file whole or not at all; the
final model plays as `ppo:runs/<run name>` wherever the game's agents are named (its `make_agent`,
`experiments.evaluate`). A run killed at any moment continues with `--resume runs/<run name>`: from its
newest readable checkpoint (the warm start is the first), or from the start when it had none yet.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import re
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from tqdm import tqdm, trange

from agents.ppo import (
    CHECKPOINT_DIR,
    MODEL_FILE,
    PolicyActor,
    PPOAgent,
    checkpoint_steps,
    checkpoints,
    describe_error,
)
from experiments.checkpoint import (
    ENV_PREFIX,
    STATE_SUFFIX,
    env_state,
    random_state,
    read_state,
    save_state,
    set_random_state,
    state_path,
)
from experiments.checkpoint import segments as checkpoint_segments
from experiments.cli import UserError, flag, parse, run_cli
from experiments.config import (
    POOL,
    SMOKE_VARIABLE,
    TrainConfig,
    fixed_on_resume,
    smoke,
    train_config_class,
)
from experiments.game import DEFAULT, game_flag, game_of
from experiments.matches import ignore_interrupts, play_match
from experiments.runs import (
    TEMPORARY,
    read_config,
    read_eval,
    remove_temporaries,
    save_atomic,
    save_learning_curve,
    write_eval,
    write_json,
)
from experiments.versions import library_versions
from suntzu_env.protocol import GameOptions, GameRules

PROG = "python -m experiments.train"
POOL_DIR = "pool"
WARM_START_FILE = "warm_start.json"  # the behaviour cloning's figures
EVAL_SEED = 1_000_003  # evaluation games use seeds from here (+ run seed): the same games at every evaluation
PROGRESS_EVERY = 60.0  # seconds between PPO's plain progress lines when the output is not a terminal


# -------------------------------------------------------------------- opponents


class SelfPlayPool:
    """The run's opponent mix in its batched environment, with the self-play pool's frozen snapshots in it.

    The scripted opponents keep their weights; the pool's weight is shared evenly by its snapshots, each a
    `PPOAgent` whose network the environment plays inside its compiled step (sampling, with `--pool-deterministic`
    off, from each game's opponent generator). The pool keeps the first snapshot and the `pool_size` latest.
    """

    def __init__(self, env: Any, cfg: TrainConfig) -> None:
        self.env, self.cfg = env, cfg
        self.weights = cfg.opponent_weights
        self.snapshots: list[tuple[int, PPOAgent]] = []
        if POOL not in self.weights:
            env.set_opponents(self.weights)

    def agent(self, timesteps: int, actor: PolicyActor) -> PPOAgent:
        """The pool's agent of the snapshot taken at `timesteps`."""
        seed = (self.cfg.seed * 1_000_003 + timesteps) % 2**31
        return PPOAgent(actor, self.cfg.pool_deterministic, seed=seed, name=POOL)

    def add(self, timesteps: int, actor: PolicyActor) -> None:
        """Add a frozen actor (from the next games on)."""
        self.snapshots.append((timesteps, self.agent(timesteps, actor)))
        if len(self.snapshots) > self.cfg.pool_size + 1:
            del self.snapshots[1]
        share = self.weights[POOL] / len(self.snapshots)
        mix: dict[Any, float] = {spec: w for spec, w in self.weights.items() if spec != POOL}
        self.env.set_opponents(mix | {agent: share for _, agent in self.snapshots})

    def state(self) -> dict[str, np.ndarray]:
        """The environment's state with which of its opponent slots hold the pool's snapshots (a checkpoint's)."""
        out = {ENV_PREFIX + key: value for key, value in self.env.get_state().items()}
        out["pool_steps"] = np.array([t for t, _ in self.snapshots], dtype=np.int64)
        out["pool_slots"] = np.array([self.env.opponent_slot(agent) for _, agent in self.snapshots], dtype=np.int64)
        return out

    def restore(self, state: dict[str, np.ndarray]) -> None:
        """Continue from a checkpoint's `state`: the environment's games and slots, the pool's snapshots (their
        networks read from the environment's slots, which keep them)."""
        env = env_state(state)
        snapshots = []
        for t, k in zip(state["pool_steps"].tolist(), state["pool_slots"].tolist(), strict=True):
            n = sum(1 for key in env if key.startswith(f"slot{k}_w"))
            activation = str(env[f"slot{k}_net"][0])
            actor = PolicyActor([env[f"slot{k}_w{i}"] for i in range(n)], [env[f"slot{k}_b{i}"] for i in range(n)],
                                activation)  # fmt: skip
            snapshots.append((t, k, self.agent(t, actor)))
        self.env.set_state(env, {k: agent for _, k, agent in snapshots})
        self.snapshots = [(t, agent) for t, _, agent in snapshots]


def make_vec_env(cfg: TrainConfig) -> tuple[VecEnv, SelfPlayPool]:
    """The batched environment of the run (under SB3's `VecMonitor`, for episode statistics) and its pool."""
    scripted = [spec for spec in cfg.opponent_weights if spec != POOL]
    first = scripted[0] if scripted else cfg.rules.scripted_agents[0]
    env = cfg.rules.batched_env(cfg.n_envs, first, seed=cfg.seed, options=cfg.options,
                                shaped_reward=cfg.shaped_reward)  # fmt: skip
    return VecMonitor(env), SelfPlayPool(env, cfg)


# -------------------------------------------------------------------- the self-play pool on disk


def pool_files(run_dir: Path) -> list[tuple[int, Path]]:
    """The pool's snapshot files, `(timesteps, path)`, oldest first."""
    found = []
    for path in (run_dir / POOL_DIR).glob("snapshot_*.npz"):
        steps = path.stem.split("_")[1]
        if steps.isdigit():
            found.append((int(steps), path))
    return sorted(found)


def prune_pool(run_dir: Path, pool_size: int) -> None:
    """Keep on disk what the pool keeps in memory: the first snapshot and the `pool_size` latest."""
    files = pool_files(run_dir)
    for _, path in files[1:-pool_size]:
        path.unlink(missing_ok=True)


def snapshot(model: MaskablePPO, cfg: TrainConfig, run_dir: Path, pool: SelfPlayPool) -> None:
    """Freeze the current policy into the self-play pool (and `pool/`, for resuming)."""
    if POOL not in cfg.opponent_weights:
        return
    actor = PolicyActor.from_policy(model.policy)
    (run_dir / POOL_DIR).mkdir(exist_ok=True)
    save_atomic(run_dir / POOL_DIR / f"snapshot_{model.num_timesteps}.npz", lambda f: np.savez(f, **actor.state()))
    prune_pool(run_dir, cfg.pool_size)
    pool.add(model.num_timesteps, actor)


def write_pool(run_dir: Path, pool: SelfPlayPool, upto: int) -> None:
    """`pool/` as the pool is in memory after a resume from a checkpoint: snapshots past it (an abandoned
    future) deleted, the pool's own written again where they were pruned since."""
    for t, path in pool_files(run_dir):
        if t > upto:
            path.unlink()
    (run_dir / POOL_DIR).mkdir(exist_ok=True)
    for t, agent in pool.snapshots:
        path = run_dir / POOL_DIR / f"snapshot_{t}.npz"
        if not path.is_file():
            save_atomic(path, lambda f, actor=agent.actor: np.savez(f, **actor.state()))


def restore_pool(model: MaskablePPO, cfg: TrainConfig, run_dir: Path, pool: SelfPlayPool) -> None:
    """Refill the pool from `pool/` with the snapshots taken up to the model's timesteps; none: snapshot now.

    Snapshots past the model's timesteps belong to an abandoned future and are deleted, unreadable ones too.
    """
    if POOL not in cfg.opponent_weights:
        return
    restored = 0
    for t, path in pool_files(run_dir):
        if t > model.num_timesteps:
            path.unlink()
            continue
        try:
            with np.load(path) as data:
                actor = PolicyActor.from_state(dict(data))
        except Exception as error:  # a damaged file: the pool does without it
            print(f"pool snapshot {path} is unreadable ({describe_error(error)}): deleted")
            path.unlink()
            continue
        pool.add(t, actor)
        restored += 1
    if not restored:
        snapshot(model, cfg, run_dir, pool)
    prune_pool(run_dir, cfg.pool_size)


# -------------------------------------------------------------------- behaviour cloning warm start

BC_EXPLORE = 0.1  # share of the teacher's decisions replaced by a random legal action (labels stay the teacher's)
BC_GAMES_PER_JOB = 50


def _demo_job(job: tuple[str, str, int, int, GameOptions]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games `first .. first + n - 1`: the teacher's observations, masks, actions and final results.

    The teacher plays the game's `teacher_opponents` in turn (None: itself, both seats recorded)."""
    game_name, teacher_spec, first, n, options = job
    rules = game_of(game_name)
    seats, against = rules.seats, rules.teacher_opponents
    teacher, twin = rules.make_agent(teacher_spec), rules.make_agent(teacher_spec)
    opponents = {spec: rules.make_agent(spec) for spec in against if spec is not None}
    rng = np.random.default_rng(first)
    obs, masks, actions, results = [], [], [], []
    for seed in range(first, first + n):
        game = rules.new(seed, options)
        opp_spec = against[seed % len(against)]
        seat = seed // len(against) % 2  # the teacher's seat (its twin's when it plays itself)
        players = [teacher, twin] if opp_spec is None else [teacher, opponents[opp_spec]]
        if seat:
            players.reverse()
        recorded = {0, 1} if opp_spec is None else {seat}
        for side, player in enumerate(players):
            player.reset(seed * 2 + side)
        start = len(actions)
        sides = []
        while (name := game.current_player) is not None:
            side = seats.index(name)
            o, m = game.observation(name), game.legal_mask()
            a = players[side].act(o, m)
            if side in recorded:
                obs.append(o.astype(np.float16))
                masks.append(m.astype(bool))
                actions.append(a)
                sides.append(side)
                if rng.random() < BC_EXPLORE:
                    a = int(rng.choice(np.flatnonzero(m)))
            game.apply(a)
        returns = game.returns()
        results.extend(returns[seats[side]] for side in sides)
        assert len(results) == len(actions) == start + len(sides)
    return np.array(obs), np.array(masks), np.array(actions, dtype=np.int64), np.array(results, dtype=np.float32)


def demonstrations(cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The teacher's decisions over `cfg.bc_games` games, played by `cfg.workers` processes."""
    first = cfg.seed * 1_000_003 + 7
    jobs = [(cfg.game, cfg.bc_teacher, first + i, min(BC_GAMES_PER_JOB, cfg.bc_games - i), cfg.options)
            for i in range(0, cfg.bc_games, BC_GAMES_PER_JOB)]  # fmt: skip
    bar = tqdm(total=cfg.bc_games, desc=f"demonstrations ({cfg.bc_teacher})", unit="game",
               disable=not (cfg.progress_bar and on_terminal()))  # fmt: skip
    if cfg.workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(cfg.workers, initializer=ignore_interrupts) as pool:
            parts = []
            for part, job in zip(pool.imap(_demo_job, jobs), jobs, strict=True):
                parts.append(part)
                bar.update(job[3])
    else:
        parts = []
        for job in jobs:
            parts.append(_demo_job(job))
            bar.update(job[3])
    bar.close()
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))  # type: ignore[return-value]


def behaviour_cloning(model: MaskablePPO, cfg: TrainConfig) -> dict[str, float]:
    """Fit the policy to the teacher's actions (masked cross-entropy) and the value to its results."""
    start = time.perf_counter()
    obs, masks, actions, results = demonstrations(cfg)
    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = np.random.default_rng(cfg.seed)
    n = len(actions)
    if cfg.progress_bar and not on_terminal():
        epochs = f"{cfg.bc_epochs} epoch{'s' if cfg.bc_epochs != 1 else ''}"
        print(f"behaviour cloning: {cfg.bc_games:,} games of {cfg.bc_teacher}, then {epochs}", flush=True)
    for _ in trange(cfg.bc_epochs, desc="behaviour cloning", unit="epoch",
                    disable=not (cfg.progress_bar and on_terminal())):  # fmt: skip
        order = rng.permutation(n)
        losses, hits = [], 0
        for i in range(0, n, cfg.batch_size):
            idx = order[i : i + cfg.batch_size]
            o = torch.as_tensor(obs[idx], dtype=torch.float32, device=policy.device)
            a = torch.as_tensor(actions[idx], device=policy.device)
            dist = policy.get_distribution(o, action_masks=masks[idx])
            target = torch.as_tensor(results[idx], device=policy.device)
            value_loss = torch.nn.functional.mse_loss(policy.predict_values(o).flatten(), target)
            loss = -dist.log_prob(a).mean() + cfg.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
            hits += int((dist.distribution.logits.argmax(1) == a).sum())
    policy.set_training_mode(False)
    return {"decisions": n, "loss": float(np.mean(losses)), "train_accuracy": hits / n,
            "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip


# -------------------------------------------------------------------- evaluation


def evaluate(actor: PolicyActor, cfg: TrainConfig, games: int, timesteps: int, final: bool) -> list[dict[str, Any]]:
    """Seat-balanced games of the masked, deterministic policy against each of `cfg.eval_opponents`."""
    rows = []
    for spec in cfg.eval_opponents:
        result = play_match(PPOAgent(actor), spec, games, seed=cfg.seed + EVAL_SEED, options=cfg.options,
                            workers=cfg.workers, game=cfg.game)  # fmt: skip
        rows.append({"timesteps": timesteps, "opponent": spec, "games": games, "final": final} | result)
    return rows


def previous_segments(run_dir: Path) -> list[dict[str, Any]]:
    """The segments of a finished run's `summary.json` (training on past its final model); [] if unreadable."""
    try:
        value = json.loads((run_dir / "summary.json").read_text()).get("segments")
    except (OSError, ValueError, AttributeError, RecursionError):
        return []
    return value if isinstance(value, list) and all(isinstance(s, dict) for s in value) else []


def tag(spec: str) -> str:
    """A TensorBoard-safe name for an agent spec."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)


def finite(model: MaskablePPO) -> bool:
    """Whether every weight of the policy and value networks is a finite number."""
    return all(bool(torch.isfinite(p).all()) for p in model.policy.parameters())


def diverged(model: MaskablePPO, run_dir: Path) -> UserError:
    saved = checkpoints(run_dir)
    last = f"; its last checkpoint is {saved[-1]}" if saved else ""
    return UserError(f"training diverged at {model.num_timesteps:,} timesteps (the network's weights are no longer "
                     f"finite numbers): lower {flag('learning_rate')} or {flag('max_grad_norm')}{last}")  # fmt: skip


def warm_start(run_dir: Path) -> dict[str, Any] | None:
    """The behaviour cloning's figures (None: no warm start, or its file is unreadable)."""
    try:
        return json.loads((run_dir / WARM_START_FILE).read_text())
    except (OSError, ValueError):
        return None


def save_checkpoint(model: MaskablePPO, run_dir: Path, pool: SelfPlayPool, segments: Segments) -> Path:
    """`checkpoints/ppo_<timesteps>_steps.zip` with its state file (`experiments.checkpoint`), each written
    whole, the state first. Reads the run's state and changes none of it."""
    (run_dir / CHECKPOINT_DIR).mkdir(exist_ok=True)
    path = run_dir / CHECKPOINT_DIR / f"ppo_{model.num_timesteps}_steps.zip"
    monitor = model.get_env()
    arrays = random_state() | pool.state()
    if isinstance(monitor, VecMonitor):
        arrays |= {"monitor_returns": monitor.episode_returns.copy(), "monitor_lengths": monitor.episode_lengths.copy(),
                   "monitor_count": np.array(monitor.episode_count)}  # fmt: skip
    save_state(path, arrays, segments.upto(model.num_timesteps))
    return save_atomic(path, model.save)


@dataclasses.dataclass
class Segments:
    """The run's segments: the earlier ones (as its checkpoint recorded them) and this process's."""

    earlier: list[dict[str, Any]]
    resumed_from: str | None
    start_steps: int
    start_time: float = dataclasses.field(default_factory=time.perf_counter)

    def current(self, timesteps: int) -> dict[str, Any]:
        return {"resumed_from": self.resumed_from, "from_timesteps": self.start_steps, "to_timesteps": timesteps,
                "wall_s": round(time.perf_counter() - self.start_time, 1)}  # fmt: skip

    def upto(self, timesteps: int) -> list[dict[str, Any]]:
        return [*self.earlier, self.current(timesteps)]


def on_terminal() -> bool:
    """Whether the output goes to a terminal (else to a file: nohup, a cluster's log), where a bar can redraw."""
    return sys.stdout.isatty() and sys.stderr.isatty()


class Progress(BaseCallback):
    """PPO's progress in timesteps: a bar on a terminal, else a plain line every `every` seconds (and at the end).

    Its rate is the summary's `steps_per_s`: the timesteps trained since `started` (a `time.perf_counter()`)
    over the time since then, PPO's updates and periodic evaluations included."""

    def __init__(self, total: int, started: float, terminal: bool, every: float = PROGRESS_EVERY) -> None:
        super().__init__()
        self.total, self.started, self.terminal, self.every = total, started, terminal, every
        self.first, self.stepping = 0, started
        self.next_line = started + every
        self.bar: Any = None

    def rate(self) -> float:
        elapsed = time.perf_counter() - self.started
        return (self.model.num_timesteps - self.first) / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        t, rate = self.model.num_timesteps, self.rate()
        since = time.perf_counter() - self.stepping  # the time left at the pace since the first step (no compiling)
        pace = (t - self.first) / since if since > 0 else 0.0
        left = f", about {_duration((self.total - t) / pace)} left" if pace > 0 and t < self.total else ""
        return (f"PPO: {t:,} of {self.total:,} timesteps ({100 * t / self.total:.0f}%), {rate:,.0f} steps/s, "
                f"{_duration(time.perf_counter() - self.started)} so far{left}")  # fmt: skip

    def _on_training_start(self) -> None:
        self.first, self.stepping = self.model.num_timesteps, time.perf_counter()
        if self.terminal:
            self.bar = tqdm(total=self.total, initial=self.first, desc="PPO", unit=" steps", unit_scale=True,
                            smoothing=0, dynamic_ncols=True)  # fmt: skip
            self.bar.start_t -= time.perf_counter() - self.started  # the same clock as the summary
        else:
            print(self.line(), flush=True)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.model.num_timesteps - self.bar.n)
        elif time.perf_counter() >= self.next_line:
            self.next_line = time.perf_counter() + self.every
            print(self.line(), flush=True)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.update(self.model.num_timesteps - self.bar.n)
            self.bar.close()
        else:
            print(self.line(), flush=True)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min" if seconds < 5400 else \
        f"{seconds / 3600:.1f} h"  # fmt: skip


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
        taken = any(steps == t for steps, _ in self.pool.snapshots)  # resuming where it was taken
        if (t // cfg.rollout_size) % cfg.pool_every == 0 and not taken:
            snapshot(self.model, cfg, self.run_dir, self.pool)
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
        save_learning_curve(self.run_dir)


# -------------------------------------------------------------------- the run folder


@dataclasses.dataclass
class Start:
    """Where a run starts: its config and folder, the checkpoint it continues (None: from scratch), and
    whether this command made the folder (then a failure before the warm start is saved removes it)."""

    cfg: TrainConfig
    run_dir: Path
    checkpoint: Path | None = None
    made_folder: bool = False


def ppo_settings(cfg: TrainConfig) -> dict[str, Any]:
    """MaskablePPO's arguments from the config (all but the network, which a checkpoint holds)."""
    lr = cfg.learning_rate
    return {
        "learning_rate": LinearSchedule(lr, 0.0, 1.0) if cfg.anneal_lr else lr,  # a class: the model pickles
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "max_grad_norm": cfg.max_grad_norm,
        "target_kl": cfg.target_kl,
    }


def new_model(cfg: TrainConfig, venv: VecEnv, device: torch.device, tensorboard_log: str | None = None) -> MaskablePPO:
    """The run's MaskablePPO, untrained: its network, its settings, seeded with the run's seed (seed= seeds
    random, numpy, torch and the environments)."""
    return MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": list(cfg.net_arch)},
                       tensorboard_log=tensorboard_log, seed=cfg.seed, device=device, **ppo_settings(cfg))  # fmt: skip


def make_run_folder(cfg: TrainConfig) -> Path:
    """A new run folder with its `config.json` and `versions.json`: made aside, then renamed into place whole."""
    run_dir = cfg.run_dir
    if run_dir.exists():
        raise UserError(f"{run_dir} exists already: continue it with {flag('resume')} {run_dir}, or start another "
                        f"run with a different {flag('exp_name')} or {flag('timestamp')}")  # fmt: skip
    staging = run_dir.with_name(f".{run_dir.name}{TEMPORARY}{os.getpid()}")
    try:
        staging.mkdir(parents=True)
        write_json(staging / "config.json", cfg.to_dict())
        write_json(staging / "versions.json", library_versions())
        staging.rename(run_dir)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"cannot make the run folder {run_dir}: {error.strerror or error}") from None
    return run_dir


def clear_run(run_dir: Path) -> None:
    """Everything of a run but its config and versions: it starts over."""
    for path in run_dir.iterdir():
        if path.name not in ("config.json", "versions.json"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def resume_target(resume: str) -> tuple[Path, Path | None]:
    """The run folder `--resume` names, and the checkpoint it names (None: the newest)."""
    path = Path(resume)
    if not path.exists() and path.suffix != ".zip" and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if path.is_dir():
        run_dir, upto = path, None
    elif path.is_file():
        run_dir, upto = (path.parent.parent if path.parent.name == CHECKPOINT_DIR else path.parent), path
        if not (upto.name == MODEL_FILE or (upto.parent.name == CHECKPOINT_DIR and upto.stem.startswith("ppo_"))):
            raise UserError(f"{flag('resume')} {resume}: expected a run folder, its {MODEL_FILE} or one of its "
                            f"{CHECKPOINT_DIR}/ppo_<timesteps>_steps.zip")  # fmt: skip
    else:
        raise UserError(f"{flag('resume')} {resume}: no such run folder or checkpoint")
    if not (run_dir / "config.json").is_file():
        raise UserError(f"{flag('resume')} {resume}: {run_dir} is not a run folder (it has no config.json)")
    return run_dir, upto


def start_files(run_dir: Path, upto: Path | None) -> list[Path]:
    """The files a resume may start from, the one to try first first (not past `upto`)."""
    final = [run_dir / MODEL_FILE] if (run_dir / MODEL_FILE).is_file() else []
    saved = list(reversed(checkpoints(run_dir)))
    if upto is None or upto.name == MODEL_FILE:
        return final + saved
    return [p for p in saved if checkpoint_steps(p) <= checkpoint_steps(upto)]


UNREADABLE = ".unreadable"  # appended to the name of a checkpoint file a resume could not read, moved aside


def readable_start(
    run_dir: Path, upto: Path | None, rules: GameRules[Any]
) -> tuple[tuple[Path, int] | None, list[tuple[Path, str]]]:
    """The newest readable file to resume from and its timesteps (None: none), and the unreadable ones newer
    than it, each with what is wrong (a checkpoint is read with its state file)."""
    unreadable = []
    for path in start_files(run_dir, upto):
        try:
            model = MaskablePPO.load(path, device="cpu")
            if path.name != MODEL_FILE and state_path(path).is_file():
                read_state(path)
        except Exception as error:  # a damaged zip or state file fails in many ways
            unreadable.append((path, describe_error(error)))
            continue
        try:
            rules.check_spaces(model.observation_space, model.action_space, path)
        except ValueError as error:
            raise UserError(f"{flag('resume')}: {error}") from None
        return (path, model.num_timesteps), unreadable
    return None, unreadable


def prepare_resume(argv: list[str] | None, resume: str) -> Start:
    """The run to resume, its config (the saved one updated by the flags given) and its starting checkpoint.

    Unreadable checkpoints newer than the one it starts from are moved aside (`<name>.unreadable`), never
    deleted; with none readable it refuses and changes nothing. Files of an abandoned future (past a checkpoint
    named by `--resume`) are deleted; a run stopped before its warm start was saved starts over.
    """
    run_dir, upto = resume_target(resume)
    saved = read_config(run_dir, game_flag(argv))
    cfg = parse(type(saved), argv, PROG, default=dataclasses.replace(saved, resume=resume))
    kept = fixed_on_resume(saved.game)
    fixed = [name for name in kept if getattr(cfg, name) != getattr(saved, name)]
    if fixed:
        name = fixed[0]
        raise UserError(f"a resumed run keeps its {flag(name)} ({_show(getattr(saved, name))}), got "
                        f"{_show(getattr(cfg, name))}; these stay as the run began: "
                        f"{', '.join(flag(n) for n in kept)}")  # fmt: skip
    torch_device(cfg.device)  # refused before anything in the folder changes
    summary = run_dir / "summary.json"
    found, unreadable = readable_start(run_dir, upto, cfg.rules)
    if found is None and unreadable:
        names = "; ".join(f"{p.relative_to(run_dir)} ({why})" for p, why in unreadable)
        raise UserError(f"{flag('resume')} {resume}: no readable checkpoint to resume from, nothing changed "
                        f"(unreadable: {names})")  # fmt: skip
    check_models(cfg, fresh=found is None)  # every check before the first change to the folder
    if found is not None and found[0].name == MODEL_FILE and cfg.total_timesteps <= found[1] and summary.is_file():
        raise UserError(f"{run_dir} is finished at {found[1]:,} timesteps: give a larger {flag('total_timesteps')} "
                        "to train on")  # fmt: skip
    removed = remove_temporaries(run_dir)
    for state in (run_dir / CHECKPOINT_DIR).glob(f"ppo_*_steps{STATE_SUFFIX}"):  # a checkpoint's write cut short
        if not state.with_name(state.name.replace(STATE_SUFFIX, ".zip")).is_file():
            state.unlink()
            removed += 1
    if removed:
        print(f"removed {removed} half-written files")
    if found is None:
        print(f"{run_dir} was stopped before its warm start was saved: the run starts over from its saved config")
        clear_run(run_dir)
        return Start(cfg, run_dir)
    path, t = found
    for bad, why in unreadable:
        aside = [bad.with_name(bad.name + UNREADABLE)]
        if bad.name != MODEL_FILE and state_path(bad).is_file():
            aside.append(state_path(bad).with_name(state_path(bad).name + UNREADABLE))
            state_path(bad).replace(aside[-1])
        bad.replace(aside[0])
        print(f"{bad.relative_to(run_dir)} is unreadable ({why}): moved aside as {aside[0].relative_to(run_dir)}")
    if unreadable:
        print(f"resuming from {path.relative_to(run_dir)}, the newest readable checkpoint ({t:,} timesteps)")
    stale = [p for p in checkpoints(run_dir) if checkpoint_steps(p) > t]  # an abandoned future
    stale += [state_path(p) for p in stale if state_path(p).is_file()]
    if path.name != MODEL_FILE:
        stale += [p for p in (run_dir / MODEL_FILE, summary) if p.is_file()]
    elif cfg.total_timesteps > t:  # training on past the final model: it becomes a checkpoint again
        (run_dir / CHECKPOINT_DIR).mkdir(exist_ok=True)
        path = path.replace(run_dir / CHECKPOINT_DIR / f"ppo_{t}_steps.zip")
        state_path(path).unlink(missing_ok=True)  # (its earlier state, if any, is not this model's)
    for p in stale:
        p.unlink()
    if stale:
        names = ", ".join(str(p.relative_to(run_dir)) for p in stale)
        print(f"removed {names}: the run goes on from {t:,} timesteps")
    _compare_versions(run_dir)
    return Start(cfg, run_dir, path)


def _show(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _compare_versions(run_dir: Path) -> None:
    """Say so when the libraries differ from those the run began with (its results then differ too)."""
    try:
        then = json.loads((run_dir / "versions.json").read_text())
    except (OSError, ValueError):
        return
    now = library_versions()
    changed = [f"{k} {then.get(k)} -> {v}" for k, v in now.items() if then.get(k) != v]
    if changed:
        print(f"note: library versions differ from the run's start ({', '.join(changed)})")


def check_models(cfg: TrainConfig, fresh: bool) -> None:
    """Load every trained agent the run names once, before anything starts: a bad path is refused up front."""
    named = [("opponents", s) for s in cfg.opponent_weights if s != POOL]
    named += [("eval_opponents", s) for s in cfg.eval_opponents]
    named += [("bc_teacher", cfg.bc_teacher)] if fresh and cfg.bc_games else []
    for field, spec in named:
        if cfg.rules.trained_model(spec) is not None:
            try:
                cfg.rules.make_agent(spec)
            except cfg.rules.user_errors as error:
                raise UserError(f"{flag(field)}: {error}") from None


# -------------------------------------------------------------------- training


def torch_device(name: str) -> torch.device:
    """`--device`: "auto" is the GPU where torch sees one, else the CPU; a named device must be there."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise UserError(f"{flag('device')} {name}: torch sees no CUDA GPU here (use auto or cpu)")
    return device


def train(cfg: TrainConfig, run_dir: Path, checkpoint: Path | None = None) -> dict[str, Any]:
    """Train (or resume) a run in its folder (made by `make_run_folder`); returns the summary.

    The order of the writes keeps every moment resumable: the warm start is saved as `ppo_0_steps.zip` before
    PPO starts, checkpoints follow, `model.zip` is saved when training ends and `summary.json` last.
    """
    start_time = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    write_json(run_dir / "config.json", cfg.to_dict())
    venv, pool = make_vec_env(cfg)
    device = torch_device(cfg.device)
    state = None
    try:
        if checkpoint is None:
            model = new_model(cfg, venv, device, tensorboard_log=str(run_dir / "tb"))
            segments = Segments([], None, 0, start_time)
            if cfg.bc_games:
                bc = behaviour_cloning(model, cfg)
                write_json(run_dir / WARM_START_FILE, bc)
                print(f"behaviour cloning of {cfg.bc_teacher}: {bc['decisions']:,} decisions, train accuracy "
                      f"{bc['train_accuracy']:.3f}, {bc['seconds']:.0f} s")  # fmt: skip
            save_checkpoint(model, run_dir, pool, segments)  # the warm start: from here on the run resumes
        else:
            model = MaskablePPO.load(checkpoint, env=venv, device=device, tensorboard_log=str(run_dir / "tb"),
                                     force_reset=False, **ppo_settings(cfg))  # fmt: skip
            state = read_state(checkpoint) if state_path(checkpoint).is_file() else None
            if state is None:  # the final model (or an earlier version's checkpoint): new games and generators
                model.set_random_seed((cfg.seed + model.num_timesteps) % 2**32)
                segments = Segments(previous_segments(run_dir), str(checkpoint), model.num_timesteps, start_time)
                if checkpoint.name != MODEL_FILE and model.num_timesteps < cfg.total_timesteps:
                    restore_pool(model, cfg, run_dir, pool)
                    model._last_obs, model._last_episode_starts = venv.reset(), np.ones(venv.num_envs, dtype=bool)
                    save_checkpoint(model, run_dir, pool, segments)  # from here on it resumes exactly
                else:
                    model._last_obs = None
            else:  # a checkpoint: exactly where the run was
                pool.restore(state)
                if "monitor_count" in state:
                    venv.episode_returns[:] = state["monitor_returns"]
                    venv.episode_lengths[:] = state["monitor_lengths"]
                    venv.episode_count = int(state["monitor_count"])
                set_random_state(state)
                write_pool(run_dir, pool, model.num_timesteps)
                segments = Segments(checkpoint_segments(state), str(checkpoint), model.num_timesteps, start_time)
        start_steps = model.num_timesteps
        eval_rows = [r for r in read_eval(run_dir) if r["timesteps"] <= start_steps and not r["final"]]
        write_eval(run_dir, eval_rows)
        callback = RunCallback(cfg, run_dir, eval_rows, pool, segments)
        ppo_start = time.perf_counter()
        if start_steps < cfg.total_timesteps:
            if not pool.snapshots:  # from the warm start: the first snapshot is taken now
                restore_pool(model, cfg, run_dir, pool)
            first = start_steps == 0 and not (run_dir / "tb" / "ppo_1").exists()  # one TensorBoard curve a run
            try:
                progress = [Progress(cfg.total_timesteps, ppo_start, on_terminal())] if cfg.progress_bar else []
                model.learn(cfg.total_timesteps - start_steps, callback=[*progress, callback], tb_log_name="ppo",
                            reset_num_timesteps=first)  # fmt: skip
            except ValueError:  # non-finite weights make non-finite action probabilities, which torch refuses
                if not finite(model):
                    raise diverged(model, run_dir) from None
                raise
            if not finite(model):
                raise diverged(model, run_dir)
        ppo_s = time.perf_counter() - ppo_start
        if checkpoint is None or checkpoint.name != MODEL_FILE:
            save_atomic(run_dir / MODEL_FILE, model.save)
    finally:
        venv.close()
    t = model.num_timesteps
    final = []
    if cfg.final_eval_games:
        final = evaluate(PolicyActor.from_policy(model.policy), cfg, cfg.final_eval_games, t, True)
        callback.record_eval(final)
        if getattr(model, "_logger", None) is not None:
            model.logger.dump(t)
    every = segments.upto(t)
    summary = {
        "timesteps": t,  # the whole run's, over every segment
        "wall_s": round(sum(segment["wall_s"] for segment in every), 1),
        "ppo_s": round(ppo_s, 1),  # this segment's PPO and its periodic evaluations
        "steps_per_s": round((t - start_steps) / ppo_s, 1) if t > start_steps else None,  # this segment's
        "resumed_from": str(checkpoint) if checkpoint else None,
        "segments": every,  # each start of the run: what it resumed from, its timesteps and seconds
        "behaviour_cloning": warm_start(run_dir),
        "final_eval": {r["opponent"]: {k: r[k] for k in ("games", "win_rate", "ci_low", "ci_high")} for r in final},
        "versions": library_versions(),
    }
    write_json(run_dir / "summary.json", summary)  # last: the run is finished
    return summary


# -------------------------------------------------------------------- main


@dataclasses.dataclass
class _ResumeFlag:
    resume: str | None = None


def resume_flag(argv: list[str] | None) -> str | None:
    """The `--resume` of a command line, read before the rest (whose defaults then come from that run)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        found, _ = tyro.cli(_ResumeFlag, args=args, return_unknown_args=True, add_help=False, console_outputs=False)
    except SystemExit:  # a malformed --resume: the full parse reports it
        return None
    return found.resume or None


def configure(argv: list[str] | None) -> Start:
    """The run this command line asks for: a new one (its folder made) or one to resume."""
    resume = resume_flag(argv)
    if resume is not None:
        return prepare_resume(argv, resume)
    game = game_flag(argv) or DEFAULT
    config_class = train_config_class(game)
    default = config_class(**smoke(game)) if os.environ.get(SMOKE_VARIABLE, "") not in ("", "0") else None
    cfg = parse(config_class, argv, PROG, default=default)
    torch_device(cfg.device)  # a device torch cannot use is refused before the run folder is made
    check_models(cfg, fresh=True)
    for stale in cfg.run_dir.parent.glob(f".{cfg.run_dir.name}{TEMPORARY}*"):  # a folder a killed run was making
        shutil.rmtree(stale, ignore_errors=True)
    return Start(cfg, make_run_folder(cfg), made_folder=True)


def run(argv: list[str] | None = None) -> dict[str, Any]:
    start = configure(argv)
    cfg, run_dir = start.cfg, start.run_dir
    how = f" (resuming from {start.checkpoint})" if start.checkpoint else ""
    print(f"run folder: {run_dir}{how}", flush=True)
    notice = cfg.rules.compile_notice()
    if notice:
        print(notice, flush=True)
    try:
        summary = train(cfg, run_dir, start.checkpoint)
    except BaseException as error:
        removed = start.made_folder and not checkpoints(run_dir)  # nothing to resume: leave nothing half-made
        if removed:
            shutil.rmtree(run_dir, ignore_errors=True)
        if not isinstance(error, UserError):  # (a user error says it all in one line)
            print(f"stopped before the warm start was saved: {run_dir} removed" if removed else
                  f"stopped; continue with: {PROG} {flag('resume')} {run_dir}", file=sys.stderr)  # fmt: skip
        raise
    steps = f", PPO at {summary['steps_per_s']:,.0f} steps/s (periodic evaluations included)" \
        if summary["steps_per_s"] else ""  # fmt: skip
    print(f"{summary['timesteps']:,} timesteps; {summary['wall_s']:.0f} s in all{steps}")
    for spec, r in summary["final_eval"].items():
        print(
            f"  vs {spec:<10} win rate {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}], {r['games']} games"
        )
    spec = f"ppo:{run_dir}"
    try:
        cfg.rules.check_agent(spec)
        print(f"play it: {spec}")
    except ValueError:  # a game whose agents do not play trained policies
        pass
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), TrainConfig)


if __name__ == "__main__":
    main()
