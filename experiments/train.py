"""Train a MaskablePPO agent on Sun Tzu: `python -m experiments.train [--help]`.

1. **Warm start** (`--bc-games`, 0 to skip): the policy imitates the `heuristic` baseline's decisions
   (behaviour cloning on its games) and the value network learns their results.
2. **PPO**: the learner plays `SunTzuGymEnv`, in alternate seats, against an opponent drawn per episode from
   a mix of scripted baselines and frozen snapshots of itself (the self-play pool, `--opponents`).
3. **Evaluation**: every `--eval-every` timesteps, and at the end with more games, the masked,
   deterministic policy plays seat-balanced games against each baseline; the results go to `eval.csv`,
   TensorBoard and `learning_curve.png`.

Everything is written to `runs/<run name>/` (see `experiments.runs`); the final model plays as
`ppo:runs/<run name>` wherever agents are named (`agents.make_agent`, `experiments.evaluate`).
"""

from __future__ import annotations

import json
import multiprocessing
import re
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import TensorBoardOutputFormat
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from tqdm import tqdm, trange

from agents import make_agent
from agents.ppo import CHECKPOINT_DIR, MODEL_FILE, PolicyActor, PPOAgent, resolve_model_path
from experiments.config import POOL, TrainConfig, parse_config
from experiments.evaluate import play_match
from experiments.runs import read_eval, save_learning_curve, write_eval
from suntzu_env import Game, SunTzuGymEnv
from suntzu_env.rules import SEATS

POOL_DIR = "pool"
EVAL_SEED = 1_000_003  # evaluation games use seeds from here (+ run seed): the same games at every evaluation


# -------------------------------------------------------------------- opponents


class OpponentMix(gym.Wrapper):
    """Draws each episode's opponent from the mix, alternates the learner's seat, and names the opponent
    in `info["opponent"]` on the episode's last step.

    `pool` draws one of the learner's frozen snapshots, uniformly; `add_snapshot` grows that pool (called
    through `VecEnv.env_method`, so it works in subprocesses too).
    """

    def __init__(
        self,
        env: gym.Env,
        weights: dict[str, float],
        seed: int,
        pool_size: int = 10,
        pool_deterministic: bool = False,
    ) -> None:
        super().__init__(env)
        self.specs = list(weights)
        self.probs = np.array([weights[s] for s in self.specs])
        self.rng = np.random.default_rng(seed)
        self.first_seat = seed % 2  # half the environments start as blue, half as red
        self.agents = {spec: make_agent(spec, seed=seed + i) for i, spec in enumerate(self.specs) if spec != POOL}
        self.pool: list[tuple[int, PolicyActor]] = []
        self.pool_size = pool_size
        self.pool_deterministic = pool_deterministic
        self.current = self.specs[0]
        self.episodes = 0

    def add_snapshot(self, timesteps: int, actor: PolicyActor) -> None:
        """Add a frozen actor; keep the first snapshot and the `pool_size` latest."""
        self.pool.append((timesteps, actor))
        if len(self.pool) > self.pool_size + 1:
            del self.pool[1]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.rng = np.random.default_rng([seed, 1])
        self.current = self.specs[self.rng.choice(len(self.specs), p=self.probs)]
        if self.current == POOL:
            if not self.pool:
                raise RuntimeError("the self-play pool is empty: add a snapshot before the first reset")
            _, actor = self.pool[self.rng.integers(len(self.pool))]
            opponent: Any = PPOAgent(actor, self.pool_deterministic, seed=int(self.rng.integers(2**31)), name=POOL)
        else:
            opponent = self.agents[self.current]
        env: Any = self.env.unwrapped
        env.set_opponent(opponent)
        env.seat_choice = SEATS[(self.episodes + self.first_seat) % 2]
        self.episodes += 1
        return self.env.reset(seed=seed, options=options)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info["opponent"] = self.current
        return obs, float(reward), terminated, truncated, info


def make_env(cfg: TrainConfig, rank: int) -> Callable[[], gym.Env]:
    def thunk() -> gym.Env:
        env = SunTzuGymEnv(variant=cfg.variant, events=cfg.events, shaped_reward=cfg.shaped_reward)
        env = OpponentMix(
            env, cfg.opponent_weights, cfg.seed * 10_007 + 101 * rank, cfg.pool_size, cfg.pool_deterministic
        )
        return Monitor(env)

    return thunk


def make_vec_env(cfg: TrainConfig) -> VecEnv:
    thunks = [make_env(cfg, rank) for rank in range(cfg.n_envs)]
    return SubprocVecEnv(thunks) if cfg.vec_env == "subproc" else DummyVecEnv(thunks)


def snapshot(model: MaskablePPO, cfg: TrainConfig, run_dir: Path) -> None:
    """Freeze the current policy into every environment's self-play pool (and `pool/`, for resuming)."""
    if POOL not in cfg.opponent_weights:
        return
    actor = PolicyActor.from_policy(model.policy)
    (run_dir / POOL_DIR).mkdir(exist_ok=True)
    np.savez(run_dir / POOL_DIR / f"snapshot_{model.num_timesteps}.npz", **actor.state())
    model.get_env().env_method("add_snapshot", model.num_timesteps, actor)  # type: ignore[union-attr]


def restore_pool(model: MaskablePPO, cfg: TrainConfig, run_dir: Path) -> None:
    """Refill the pool from `pool/` with the snapshots taken up to the model's timesteps; none: snapshot now."""
    if POOL not in cfg.opponent_weights:
        return
    steps = sorted(int(p.stem.split("_")[1]) for p in (run_dir / POOL_DIR).glob("snapshot_*.npz"))
    for t in steps:  # resuming from an earlier checkpoint: later snapshots belong to the abandoned future
        if t > model.num_timesteps:
            (run_dir / POOL_DIR / f"snapshot_{t}.npz").unlink()
    steps = [t for t in steps if t <= model.num_timesteps]
    if not steps:
        snapshot(model, cfg, run_dir)
    for t in steps:
        with np.load(run_dir / POOL_DIR / f"snapshot_{t}.npz") as data:
            model.get_env().env_method("add_snapshot", t, PolicyActor.from_state(dict(data)))  # type: ignore[union-attr]


# -------------------------------------------------------------------- behaviour cloning warm start

BC_OPPONENTS = ("random", "greedy", None)  # the teacher's opponents in turn; None: itself (both seats recorded)
BC_EXPLORE = 0.1  # share of the teacher's decisions replaced by a random legal action (labels stay the teacher's)
BC_GAMES_PER_JOB = 50


def _demo_job(job: tuple[str, int, int, str, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games `first .. first + n - 1`: the teacher's observations, masks, actions and final results."""
    teacher_spec, first, n, variant, events = job
    teacher, twin = make_agent(teacher_spec), make_agent(teacher_spec)
    opponents = {spec: make_agent(spec) for spec in BC_OPPONENTS if spec is not None}
    rng = np.random.default_rng(first)
    obs, masks, actions, results = [], [], [], []
    for seed in range(first, first + n):
        game = Game.new(seed, variant=variant, events=events)
        opp_spec = BC_OPPONENTS[seed % len(BC_OPPONENTS)]
        seat = seed // len(BC_OPPONENTS) % 2  # the teacher's seat (its twin's when it plays itself)
        players = [teacher, twin] if opp_spec is None else [teacher, opponents[opp_spec]]
        if seat:
            players.reverse()
        recorded = {0, 1} if opp_spec is None else {seat}
        for side, player in enumerate(players):
            player.reset(seed * 2 + side)
        start = len(actions)
        sides = []
        while (name := game.current_player) is not None:
            side = SEATS.index(name)
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
        results.extend(returns[SEATS[side]] for side in sides)
        assert len(results) == len(actions) == start + len(sides)
    return np.array(obs), np.array(masks), np.array(actions, dtype=np.int64), np.array(results, dtype=np.float32)


def demonstrations(cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The teacher's decisions over `cfg.bc_games` games, played by `cfg.workers` processes."""
    first = cfg.seed * 1_000_003 + 7
    jobs = [(cfg.bc_teacher, first + i, min(BC_GAMES_PER_JOB, cfg.bc_games - i), cfg.variant, cfg.events)
            for i in range(0, cfg.bc_games, BC_GAMES_PER_JOB)]  # fmt: skip
    bar = tqdm(total=cfg.bc_games, desc=f"demonstrations ({cfg.bc_teacher})", unit="game", disable=not cfg.progress_bar)
    if cfg.workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(cfg.workers) as pool:
            parts = []
            for part, job in zip(pool.imap(_demo_job, jobs), jobs, strict=True):
                parts.append(part)
                bar.update(job[2])
    else:
        parts = []
        for job in jobs:
            parts.append(_demo_job(job))
            bar.update(job[2])
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
    for _ in trange(cfg.bc_epochs, desc="behaviour cloning", unit="epoch", disable=not cfg.progress_bar):
        order = rng.permutation(n)
        losses, hits = [], 0
        for i in range(0, n, cfg.batch_size):
            idx = order[i : i + cfg.batch_size]
            o = torch.as_tensor(obs[idx], dtype=torch.float32)
            a = torch.as_tensor(actions[idx])
            dist = policy.get_distribution(o, action_masks=masks[idx])
            value_loss = torch.nn.functional.mse_loss(policy.predict_values(o).flatten(), torch.as_tensor(results[idx]))
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
        result = play_match(PPOAgent(actor), spec, games, seed=cfg.seed + EVAL_SEED, variant=cfg.variant,
                            events=cfg.events, workers=cfg.workers)  # fmt: skip
        rows.append({"timesteps": timesteps, "opponent": spec, "games": games, "final": final} | result)
    return rows


def tag(spec: str) -> str:
    """A TensorBoard-safe name for an agent spec."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)


class RunCallback(BaseCallback):
    """Self-play pool, periodic evaluations, checkpoints, and training win rates per opponent."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, bc: dict[str, float] | None = None) -> None:
        super().__init__()
        self.cfg, self.run_dir, self.bc = cfg, run_dir, bc or {}
        self.results: dict[str, list[float]] = defaultdict(list)
        self.eval_rows = read_eval(run_dir)
        self.next_eval = self.next_checkpoint = 0

    def _on_training_start(self) -> None:
        t = self.model.num_timesteps
        cfg = self.cfg
        self.eval_rows = [r for r in self.eval_rows if r["timesteps"] <= t and not r["final"]]
        write_eval(self.run_dir, self.eval_rows)
        self.next_eval = (t // cfg.eval_every + 1) * cfg.eval_every if cfg.eval_every else cfg.total_timesteps + 1
        every = cfg.checkpoint_every
        self.next_checkpoint = (t // every + 1) * every if every else cfg.total_timesteps + 1
        for key, value in self.bc.items():
            self.logger.record(f"bc/{key}", value)
        if self.bc and cfg.eval_every:  # where PPO starts from
            self.record_eval(evaluate(PolicyActor.from_policy(self.model.policy), cfg, cfg.eval_games, t, False))
        for fmt in self.logger.output_formats:
            if isinstance(fmt, TensorBoardOutputFormat):
                table = "\n".join(f"|{k}|{v}|" for k, v in cfg.to_dict().items())
                fmt.writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}", t)

    def snapshot(self) -> None:
        snapshot(self.model, self.cfg, self.run_dir)

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
        if (t // cfg.rollout_size) % cfg.pool_every == 0:
            self.snapshot()
        if t >= self.next_eval:
            self.next_eval += cfg.eval_every * ((t - self.next_eval) // cfg.eval_every + 1)
            self.record_eval(evaluate(PolicyActor.from_policy(self.model.policy), cfg, cfg.eval_games, t, False))
        if t >= self.next_checkpoint:
            every = cfg.checkpoint_every
            self.next_checkpoint += every * ((t - self.next_checkpoint) // every + 1)
            (self.run_dir / CHECKPOINT_DIR).mkdir(exist_ok=True)
            self.model.save(self.run_dir / CHECKPOINT_DIR / f"ppo_{t}_steps.zip")

    def record_eval(self, rows: list[dict[str, Any]]) -> None:
        prefix = "final" if rows and rows[0]["final"] else "eval"
        for row in rows:
            self.logger.record(f"{prefix}/win_rate_vs_{tag(row['opponent'])}", row["win_rate"])
        self.eval_rows.extend(rows)
        write_eval(self.run_dir, self.eval_rows)
        save_learning_curve(self.run_dir)


# -------------------------------------------------------------------- main


def resume_config(given: dict[str, Any]) -> tuple[TrainConfig, Path, Path]:
    """The saved config of the run to resume, updated by the flags given; its folder and checkpoint."""
    checkpoint = resolve_model_path(given["resume"])
    run_dir = checkpoint.parent.parent if checkpoint.parent.name == CHECKPOINT_DIR else checkpoint.parent
    if not (run_dir / "config.json").is_file():
        raise FileNotFoundError(f"--resume {given['resume']}: no config.json in the run folder {run_dir}")
    saved = json.loads((run_dir / "config.json").read_text())
    overrides = {k: v for k, v in given.items() if k not in ("timestamp", "runs_dir", "exp_name", "seed")}
    cfg = TrainConfig.from_dict(saved | overrides)
    return cfg, run_dir, checkpoint


def train(cfg: TrainConfig, run_dir: Path, checkpoint: Path | None = None) -> dict[str, Any]:
    """Train (or resume) a run in `run_dir`; returns the summary written to `summary.json`."""
    start = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(cfg.to_dict(), indent=2) + "\n")
    venv = make_vec_env(cfg)
    if checkpoint is None:  # seed= seeds random, numpy, torch and the environments
        lr = cfg.learning_rate
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            learning_rate=LinearSchedule(lr, 0.0, 1.0) if cfg.anneal_lr else lr,  # a class: the model pickles
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef,
            max_grad_norm=cfg.max_grad_norm,
            target_kl=cfg.target_kl,
            policy_kwargs={"net_arch": list(cfg.net_arch)},
            tensorboard_log=str(run_dir / "tb"),
            seed=cfg.seed,
            device="cpu",
        )
    else:
        model = MaskablePPO.load(checkpoint, env=venv, device="cpu", tensorboard_log=str(run_dir / "tb"))
        model.set_random_seed(cfg.seed + model.num_timesteps)
    bc: dict[str, float] = {}
    if checkpoint is None and cfg.bc_games:
        bc = behaviour_cloning(model, cfg)
        print(f"behaviour cloning of {cfg.bc_teacher}: {bc['decisions']:,} decisions, train accuracy "
              f"{bc['train_accuracy']:.3f}, {bc['seconds']:.0f} s")  # fmt: skip
    start_steps = model.num_timesteps
    restore_pool(model, cfg, run_dir)
    callback = RunCallback(cfg, run_dir, bc)
    ppo_start = time.perf_counter()
    model.learn(
        max(cfg.total_timesteps - start_steps, 0),
        callback=callback,
        tb_log_name="ppo",
        reset_num_timesteps=checkpoint is None,
        progress_bar=cfg.progress_bar,
    )
    ppo_s = time.perf_counter() - ppo_start
    model.save(run_dir / MODEL_FILE)
    venv.close()
    t = model.num_timesteps
    final = []
    if cfg.final_eval_games:
        final = evaluate(PolicyActor.from_policy(model.policy), cfg, cfg.final_eval_games, t, True)
        callback.record_eval(final)
        model.logger.dump(t)
    summary = {
        "timesteps": t,
        "wall_s": round(time.perf_counter() - start, 1),
        "ppo_s": round(ppo_s, 1),  # PPO and its periodic evaluations
        "steps_per_s": round((t - start_steps) / ppo_s, 1),
        "resumed_from": str(checkpoint) if checkpoint else None,
        "behaviour_cloning": bc or None,
        "final_eval": {r["opponent"]: {k: r[k] for k in ("games", "win_rate", "ci_low", "ci_high")} for r in final},
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    cfg, given = parse_config(TrainConfig, argv, prog="python -m experiments.train")
    checkpoint = None
    run_dir = cfg.run_dir
    if cfg.resume is not None:
        cfg, run_dir, checkpoint = resume_config(given)
    print(f"run folder: {run_dir}" + (f" (resuming from {checkpoint})" if checkpoint else ""))
    summary = train(cfg, run_dir, checkpoint)
    print(f"{summary['timesteps']:,} timesteps; {summary['wall_s']:.0f} s in all, PPO at {summary['steps_per_s']:,.0f} "
          "steps/s (periodic evaluations included)")  # fmt: skip
    for spec, r in summary["final_eval"].items():
        print(
            f"  vs {spec:<10} win rate {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}], {r['games']} games"
        )
    print(f"play it: ppo:{run_dir}")
    return summary


if __name__ == "__main__":
    main()
