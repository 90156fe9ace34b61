"""The warm start: behaviour cloning of the game's teacher before PPO starts (`--bc-teacher`, `--bc-games`).

The teacher's decisions over `--bc-games` demonstration games (against the game's `teacher_opponents`, played by
`--workers` processes) teach the policy, their results the value network; the figures go to `warm_start.json`.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from tqdm import tqdm, trange

from experiments.cli import on_terminal
from experiments.config import (
    TrainConfig,
)
from experiments.game import game_of
from experiments.matches import ignore_interrupts
from suntzu_env.protocol import GameOptions, hand_game

WARM_START_FILE = "warm_start.json"  # the behaviour cloning's figures


BC_EXPLORE = 0.1  # share of the teacher's decisions replaced by a random legal action (labels stay the teacher's)


BC_GAMES_PER_JOB = 50


def _demo_job(job: tuple[str, str, int, int, GameOptions]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games `first .. first + n - 1`: the teacher's observations, masks, actions and final results.

    The teacher plays the game's `teacher_opponents` in turn (None: itself, every seat recorded), in one seat with
    copies of the opponent in the others."""
    game_name, teacher_spec, first, n, options = job
    rules = game_of(game_name)
    seats, against = tuple(rules.seats_of(options)), rules.teacher_opponents
    teacher = rules.make_agent(teacher_spec)
    twins = [rules.make_agent(teacher_spec) for _ in seats[1:]]
    opponents = {spec: [rules.make_agent(spec) for _ in seats[1:]] for spec in against if spec is not None}
    rng = np.random.default_rng(first)
    obs, masks, actions, results = [], [], [], []
    for seed in range(first, first + n):
        game = rules.new(seed, options)
        opp_spec = against[seed % len(against)]
        seat = seed // len(against) % len(seats)  # the teacher's seat (a twin's when it plays itself)
        others = twins if opp_spec is None else opponents[opp_spec]
        players = [*others[:seat], teacher, *others[seat:]]
        recorded = set(range(len(seats))) if opp_spec is None else {seat}
        for side, player in enumerate(players):
            player.reset(seed * len(seats) + side)
        start = len(actions)
        sides = []
        while (name := game.current_player) is not None:
            side = seats.index(name)
            o, m = game.observation(name), game.legal_mask()
            hand_game(players[side], game, name)  # an agent that reads the position (`observe_game`) gets it
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


def warm_start(run_dir: Path) -> dict[str, Any] | None:
    """The behaviour cloning's figures (None: no warm start, or its file is unreadable)."""
    try:
        return json.loads((run_dir / WARM_START_FILE).read_text())
    except (OSError, ValueError):
        return None
