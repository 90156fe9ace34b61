"""The warm start: behaviour cloning of the game's teacher before PPO starts (`--bc-teacher`, `--bc-games`).

The teacher's decisions over `--bc-games` demonstration games (against the game's `teacher_opponents`, played by
`--workers` processes) teach the policy, their results the value network. Then each of `--dagger-rounds` rounds
(DAgger) has the policy play `--dagger-games` games and learn what the teacher answers in the positions the policy
itself reaches, which the teacher's own games rarely show. A teacher that weighs every move (a search's
`policy_target()`: its visits at the root) teaches those shares, not only the move it played. The figures go to
`warm_start.json`.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.ppo import PolicyActor, PPOAgent
from experiments.cli import on_terminal
from experiments.config import (
    TrainConfig,
)
from experiments.game import game_of
from experiments.matches import ignore_interrupts
from experiments.progress import Ticker
from suntzu_env.core.protocol import GameOptions, hand_game

WARM_START_FILE = "warm_start.json"  # the behaviour cloning's figures


BC_EXPLORE = 0.1  # share of the teacher's decisions replaced by a random legal action (labels stay the teacher's)


BC_GAMES_PER_JOB = 50


@dataclass(frozen=True)
class SparseRows:
    """Rows of `width` values kept as their non-zeros (float16): row i's are `columns`/`values`[starts[i] :
    starts[i + 1]]. `Decisions` keeps its observations so, and the teacher's shares of the actions, a few non-zeros
    among thousands of actions, in bytes instead of 8.5 kB a decision."""

    width: int
    starts: np.ndarray  # (n + 1,) int64
    columns: np.ndarray  # (non-zeros,) int32
    values: np.ndarray  # (non-zeros,) float16

    @staticmethod
    def one_hots(labels: np.ndarray, width: int) -> SparseRows:
        """Each label's one-hot row."""
        n = len(labels)
        return SparseRows(width, np.arange(n + 1, dtype=np.int64), np.asarray(labels, dtype=np.int32),
                          np.ones(n, dtype=np.float16))  # fmt: skip

    def dense(self, rows: np.ndarray, dtype: Any = np.float16) -> np.ndarray:
        """The rows `rows`, dense (len(rows), width) of `dtype`."""
        first = self.starts[rows]
        counts = self.starts[rows + 1] - first
        ends = np.cumsum(counts)
        picks = np.repeat(first - (ends - counts), counts) + np.arange(ends[-1] if len(ends) else 0)
        out = np.zeros((len(rows), self.width), dtype=dtype)
        out[np.repeat(np.arange(len(rows)), counts), self.columns[picks]] = self.values[picks]
        return out

    @staticmethod
    def concatenate(parts: Sequence[SparseRows]) -> SparseRows:
        """The rows of `parts`, in order."""
        shifts = np.cumsum([0, *(len(p.values) for p in parts[:-1])])
        shifted = (p.starts[1:] + shift for p, shift in zip(parts, shifts, strict=True))
        starts = np.concatenate([parts[0].starts[:1], *shifted])
        columns, values = (np.concatenate([getattr(p, name) for p in parts]) for name in ("columns", "values"))
        return SparseRows(parts[0].width, starts, columns, values)


@dataclass(frozen=True)
class Decisions:
    """Decisions to learn from, kept small: each observation as its non-zero values (float16, as they are learnt)
    and their columns, each mask as bits: a position of a wide board, mostly zeros, takes a kilobyte or two instead of
    nine (a warm start keeps hundreds of thousands); `batch` gives back exactly the dense observations and masks."""

    width: int  # the observation's size
    n_actions: int  # the mask's size
    starts: np.ndarray  # (n + 1,) int64: observation i's non-zeros are `columns`/`values`[starts[i] : starts[i + 1]]
    columns: np.ndarray  # (non-zeros,) int32
    values: np.ndarray  # (non-zeros,) float16
    masks: np.ndarray  # (n, bytes) uint8: the masks, eight actions a byte (`np.packbits`)
    actions: np.ndarray  # (n,) int64: the labels
    results: np.ndarray  # (n,) float32: the deciding seat's return in that game
    remaining: np.ndarray  # (n,) int32: the deciding seat's decisions after this one in that game
    targets: SparseRows | None = None  # (n rows of n_actions): the teacher's shares of the actions, if it gives them

    JOINED: ClassVar[tuple[str, ...]] = ("masks", "actions", "results", "remaining")
    """the fields after the observations', in order, that `concatenate` joins part by part"""

    @property
    def size(self) -> int:
        return len(self.actions)

    @property
    def observations(self) -> SparseRows:
        """The observations' non-zeros as sparse rows (views, no copy)."""
        return SparseRows(self.width, self.starts, self.columns, self.values)

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observations (float32) and masks (bool) of `rows`, dense."""
        obs = self.observations.dense(rows, np.float32)
        masks = np.unpackbits(self.masks[rows], axis=1, count=self.n_actions).view(bool)
        return obs, masks

    def value_targets(self, rows: np.ndarray, gamma: float) -> np.ndarray:
        """What the value network learns for `rows`: each result discounted by `gamma` once for each of the
        seat's decisions left before it, as PPO discounts (`--gamma`; 1: the results themselves)."""
        if gamma == 1.0:
            return self.results[rows]
        return (self.results[rows] * np.float64(gamma) ** self.remaining[rows]).astype(np.float32)

    def shares(self) -> SparseRows:
        """The teacher's shares of the actions, a row per decision: its `targets`, or each label's one-hot."""
        return self.targets if self.targets is not None else SparseRows.one_hots(self.actions, self.n_actions)

    def shares_of(self, rows: np.ndarray) -> np.ndarray:
        """The teacher's shares of the actions at `rows`, dense float16 (len(rows), n_actions)."""
        return self.shares().dense(rows)

    @staticmethod
    def concatenate(parts: Sequence[Decisions]) -> Decisions:
        """The decisions of `parts`, in order (the teacher's shares kept where any part has them)."""
        obs = SparseRows.concatenate([p.observations for p in parts])
        shared = any(p.targets is not None for p in parts)
        targets = SparseRows.concatenate([p.shares() for p in parts]) if shared else None
        joined = (np.concatenate([getattr(p, name) for p in parts]) for name in Decisions.JOINED)
        return Decisions(parts[0].width, parts[0].n_actions, obs.starts, obs.columns, obs.values, *joined, targets)


class DecisionLog:
    """Decisions recorded one at a time (`add`), then made into `Decisions` with their results."""

    def __init__(self, width: int, n_actions: int) -> None:
        self.width, self.n_actions = width, n_actions
        self.columns: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[int] = []
        self.targets: list[np.ndarray | None] = []

    def __len__(self) -> int:
        return len(self.actions)

    def add(self, observation: np.ndarray, mask: np.ndarray, action: int, target: np.ndarray | None = None) -> None:
        """One decision: the label `action`, and the teacher's shares of the actions where it gives them."""
        o = np.asarray(observation).astype(np.float16)
        found = np.flatnonzero(o)
        self.columns.append(found.astype(np.int32))
        self.values.append(o[found])
        self.masks.append(np.packbits(np.asarray(mask, dtype=bool)))
        self.actions.append(action)
        self.targets.append(None if target is None else np.asarray(target, dtype=np.float16))

    def decisions(self, results: Sequence[float], remaining: Sequence[int] | None = None) -> Decisions:
        """The decisions recorded, `results[i]` the result of the i-th one's seat and `remaining[i]` how many
        decisions that seat made after it in its game (None: none counted); the teacher's shares where it gave any,
        its labels' one-hots for the decisions it gave none."""
        plain = Decisions(
            self.width,
            self.n_actions,
            np.cumsum([0, *(len(c) for c in self.columns)], dtype=np.int64),
            np.concatenate(self.columns) if self.columns else np.zeros(0, dtype=np.int32),
            np.concatenate(self.values) if self.values else np.zeros(0, dtype=np.float16),
            np.array(self.masks, dtype=np.uint8).reshape(len(self.masks), (self.n_actions + 7) // 8),
            np.array(self.actions, dtype=np.int64),
            np.array(results, dtype=np.float32),
            np.zeros(len(self.actions), dtype=np.int32) if remaining is None else np.array(remaining, dtype=np.int32),
        )
        given = [i for i, t in enumerate(self.targets) if t is not None]
        if not given:
            return plain
        columns, values = [], []
        for action, target in zip(self.actions, self.targets, strict=True):
            found = np.array([action]) if target is None else np.flatnonzero(target)
            columns.append(found.astype(np.int32))
            values.append(np.ones(1, dtype=np.float16) if target is None else target[found])
        starts = np.cumsum([0, *(len(c) for c in columns)], dtype=np.int64)
        targets = SparseRows(self.n_actions, starts, np.concatenate(columns), np.concatenate(values))
        return dataclasses.replace(plain, targets=targets)


def target_of(teacher: Any) -> np.ndarray | None:
    """The teacher's shares of the actions at its last decision (`policy_target()`), None for a teacher without."""
    target = getattr(teacher, "policy_target", None)
    return np.asarray(target(), dtype=np.float32) if callable(target) else None


def _other_seats(rules: Any, teacher_spec: str, seats: tuple[str, ...], against: Any) -> dict[Any, list[Any]]:
    """The agents of the other seats for each of the teacher's opponents (`teacher_opponents`; None: the teacher's
    twins), made once for a job's games."""
    return {spec: [rules.make_agent(teacher_spec if spec is None else spec) for _ in seats[1:]]
            for spec in dict.fromkeys(against)}  # fmt: skip


def _demo_job(job: tuple[str, str, int, int, GameOptions]) -> Decisions:
    """Games `first .. first + n - 1`: the teacher's decisions (observations, masks, actions, final results).

    The teacher plays the game's `teacher_opponents` in turn (None: itself, every seat recorded), in one seat with
    copies of the opponent in the others."""
    game_name, teacher_spec, first, n, options = job
    rules = game_of(game_name)
    seats, against = tuple(rules.seats_of(options)), rules.teacher_opponents
    teacher = rules.make_agent(teacher_spec)
    opponents = _other_seats(rules, teacher_spec, seats, against)
    rng = np.random.default_rng(first)
    log, results, remaining = DecisionLog(rules.observation_size, rules.n_actions), [], []
    for seed in range(first, first + n):
        game = rules.new(seed, options)
        opp_spec = against[seed % len(against)]
        seat = seed // len(against) % len(seats)  # the teacher's seat (a twin's when it plays itself)
        others = opponents[opp_spec]
        players = [*others[:seat], teacher, *others[seat:]]
        recorded = set(range(len(seats))) if opp_spec is None else {seat}
        for side, player in enumerate(players):
            player.reset(seed * len(seats) + side)
        start = len(log)
        sides = []
        while (name := game.current_player) is not None:
            side = seats.index(name)
            o, m = game.observation(name), game.legal_mask()
            hand_game(players[side], game, name)  # an agent that reads the position (`observe_game`) gets it
            a = players[side].act(o, m)
            if side in recorded:
                log.add(o, m, a, target_of(players[side]))
                sides.append(side)
                if rng.random() < BC_EXPLORE:
                    a = int(rng.choice(np.flatnonzero(m)))
            game.apply(a)
        returns = game.returns()
        results.extend(returns[seats[side]] for side in sides)
        remaining.extend(_decisions_after(sides))
        assert len(results) == len(remaining) == len(log) == start + len(sides)
    return log.decisions(results, remaining)


def _decisions_after(sides: Sequence[int]) -> list[int]:
    """For each decision of a game, by the side that made it in order, how many that side made after it."""
    later: dict[int, int] = {}
    counts = []
    for side in reversed(sides):
        counts.append(later.get(side, 0))
        later[side] = counts[-1] + 1
    return counts[::-1]


def _student_job(job: tuple[str, str, dict[str, np.ndarray], int, int, GameOptions]) -> tuple[Decisions, int]:
    """Games `first .. first + n - 1` of a DAgger round: the student (a policy's net, playing its argmax) in one seat
    against the game's `teacher_opponents` in turn; the teacher's answers in the student's positions (as decisions,
    with the student's results), and how many of the student's own answers were the teacher's."""
    game_name, teacher_spec, net_state, first, n, options = job
    rules = game_of(game_name)
    seats, against = tuple(rules.seats_of(options)), rules.teacher_opponents
    student = PPOAgent(PolicyActor.from_state(net_state), deterministic=True, name="student")
    teacher = rules.make_agent(teacher_spec)
    opponents = _other_seats(rules, teacher_spec, seats, against)
    log, results, remaining = DecisionLog(rules.observation_size, rules.n_actions), [], []
    agreed = 0
    for seed in range(first, first + n):
        game = rules.new(seed, options)
        opp_spec = against[seed % len(against)]
        seat = seed // len(against) % len(seats)
        others = opponents[opp_spec]
        players = [*others[:seat], student, *others[seat:]]
        for side, player in enumerate(players):
            player.reset(seed * len(seats) + side)
        teacher.reset(seed)
        start = len(log)
        while (name := game.current_player) is not None:
            side = seats.index(name)
            o, m = game.observation(name), game.legal_mask()
            if side == seat:
                hand_game(teacher, game, name)
                label = teacher.act(o, m)
                a = student.act(o, m)
                agreed += int(a == label)
                log.add(o, m, label, target_of(teacher))
            else:
                hand_game(players[side], game, name)
                a = players[side].act(o, m)
            game.apply(a)
        results.extend([game.returns()[seats[seat]]] * (len(log) - start))
        remaining.extend(_decisions_after([seat] * (len(log) - start)))
    return log.decisions(results, remaining), agreed


def _played(cfg: TrainConfig, work: Any, job_of: Any, first: int, games: int, desc: str,
            per_job: int = BC_GAMES_PER_JOB) -> list[Any]:  # fmt: skip
    """The parts `work(job)` returns for `games` games from seed `first` on, `per_job` per job, played by
    `cfg.workers` processes (`job_of(first, n)` is a job)."""
    counts = [min(per_job, games - i) for i in range(0, games, per_job)]
    jobs = [job_of(first + i, n) for i, n in zip(range(0, games, per_job), counts, strict=True)]
    bar = Ticker(games, desc, "game", cfg.progress_bar, on_terminal())
    parts = []
    if cfg.workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(cfg.workers, initializer=ignore_interrupts) as pool:
            for part, count in zip(pool.imap(work, jobs), counts, strict=True):
                parts.append(part)
                bar.update(count)
    else:
        for job, count in zip(jobs, counts, strict=True):
            parts.append(work(job))
            bar.update(count)
    bar.close()
    return parts


def _distribution_and_values(policy: Any, obs: torch.Tensor, masks: np.ndarray) -> tuple[Any, torch.Tensor]:
    """The masked action distribution and the values of `obs`, from one pass through the networks (a board
    network computes its cells once for both)."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    dist = policy._get_action_dist_from_latent(latent_pi)
    dist.apply_masking(masks)
    return dist, policy.value_net(latent_vf)


def _fit(policy: Any, optimizer: torch.optim.Optimizer, cfg: TrainConfig, data: Decisions,
         order: np.ndarray) -> dict[str, float]:  # fmt: skip
    """One pass over `data`'s decisions in `order`, in minibatches: the policy learns the actions (masked
    cross-entropy), the value network the results, discounted as PPO will (`Decisions.value_targets`)."""
    batch = cfg.bc_batch_size or cfg.batch_size
    losses, hits = [], 0
    for i in range(0, len(order), batch):
        idx = order[i : i + batch]
        obs, masks = data.batch(idx)
        o = torch.as_tensor(obs, device=policy.device)
        a = torch.as_tensor(data.actions[idx], device=policy.device)
        dist, values = _distribution_and_values(policy, o, masks)
        target = torch.as_tensor(data.value_targets(idx, cfg.gamma), device=policy.device)
        value_loss = torch.nn.functional.mse_loss(values.flatten(), target)
        if data.targets is None or not cfg.bc_shares:
            policy_loss = -dist.log_prob(a).mean()
        else:  # cross-entropy to the teacher's shares (masked actions have none: their log-probabilities drop out)
            shares = torch.as_tensor(data.shares_of(idx).astype(np.float32), device=policy.device)
            log_probs = dist.distribution.logits.clamp(min=-1e4)
            policy_loss = -(shares * log_probs).sum(1).mean()
        loss = policy_loss + cfg.vf_coef * value_loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
        hits += int((dist.distribution.logits.argmax(1) == a).sum())
    return {"loss": float(np.mean(losses)), "train_accuracy": hits / max(1, len(order))}


DAGGER_LR = 5e-4  # a DAgger round's learning rate (the cloning's is 1e-3)


def behaviour_cloning(model: MaskablePPO, cfg: TrainConfig) -> dict[str, Any]:
    """Fit the policy to the teacher's actions (masked cross-entropy) and the value to its results; then each of
    `cfg.dagger_rounds` rounds plays the policy, adds the teacher's answers in the positions it reached, and passes
    once over the new decisions and as many drawn from the earlier ones."""
    start = time.perf_counter()
    first = cfg.seed * 1_000_003 + 7
    if cfg.progress_bar and not on_terminal():
        epochs = f"{cfg.bc_epochs} epoch{'s' if cfg.bc_epochs != 1 else ''}" if cfg.bc_epochs else "no epoch"
        rounds = f", {cfg.dagger_rounds} DAgger rounds of {cfg.dagger_games:,} games labelled by {cfg.labeller}" \
            if cfg.dagger_rounds else ""  # fmt: skip
        print(f"behaviour cloning: {cfg.bc_games:,} games of {cfg.bc_teacher}, then {epochs}{rounds}", flush=True)
    parts = _played(cfg, _demo_job, lambda f, n: (cfg.game, cfg.bc_teacher, f, n, cfg.options), first, cfg.bc_games,
                    f"demonstrations ({cfg.bc_teacher})")  # fmt: skip
    data = Decisions.concatenate(parts)
    del parts
    policy = model.policy
    policy.set_training_mode(True)
    rng = np.random.default_rng(cfg.seed)
    n = data.size
    fit: dict[str, float] = {}
    if cfg.bc_epochs:  # 0: the demonstrations only join the DAgger rounds' passes
        optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)  # one for all the epochs
        label = f"behaviour cloning on {n:,} decisions"
        ticker = Ticker(cfg.bc_epochs, label, "epoch", cfg.progress_bar, on_terminal())
        for _ in range(cfg.bc_epochs):
            fit = _fit(policy, optimizer, cfg, data, rng.permutation(n))
            ticker.update(1)
        ticker.close()
    figures: dict[str, Any] = {"decisions": n, **fit}
    rounds = []
    for r in range(cfg.dagger_rounds):
        began = time.perf_counter()
        policy.set_training_mode(False)
        state = PolicyActor.from_policy(policy).state()
        round_first = first + cfg.bc_games + r * cfg.dagger_games
        job_of = lambda f, k, state=state: (cfg.game, cfg.labeller, state, f, k, cfg.options)  # noqa: E731
        per_job = -(-cfg.dagger_games // (2 * cfg.workers))  # the student's games, split evenly over the workers
        parts = _played(cfg, _student_job, job_of, round_first, cfg.dagger_games, f"DAgger round {r + 1}", per_job)
        agreed = sum(part[1] for part in parts)
        old = data.size
        data = Decisions.concatenate([data, *(part[0] for part in parts)])
        del parts
        fresh = np.arange(old, data.size)
        order = rng.permutation(np.concatenate([fresh, rng.choice(old, size=min(old, len(fresh)), replace=False)]))
        policy.set_training_mode(True)
        fit = _fit(policy, torch.optim.Adam(policy.parameters(), lr=DAGGER_LR), cfg, data, order)
        rounds.append({"round": r + 1, "decisions": len(fresh), "agreement": round(agreed / max(1, len(fresh)), 4),
                       **fit, "seconds": round(time.perf_counter() - began, 1)})  # fmt: skip
        if cfg.progress_bar and not on_terminal():
            print(f"DAgger round {r + 1}: {len(fresh):,} decisions, the policy agreed with {cfg.labeller} on "
                  f"{rounds[-1]['agreement']:.3f}", flush=True)  # fmt: skip
    policy.set_training_mode(False)
    if rounds:
        figures["dagger"] = rounds
    figures["seconds"] = round(time.perf_counter() - start, 1)
    return figures


def warm_start(run_dir: Path) -> dict[str, Any] | None:
    """The behaviour cloning's figures (None: no warm start, or its file is unreadable)."""
    try:
        return json.loads((run_dir / WARM_START_FILE).read_text())
    except (OSError, ValueError):
        return None
