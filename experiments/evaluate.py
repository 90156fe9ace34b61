"""Round-robin evaluation of agents over paired, seat-swapped games, with statistics.

`python -m experiments.evaluate --agents random greedy heuristic --games 2000 --seed 0`

| step      | what it does                                                                          |
|-----------|---------------------------------------------------------------------------------------|
| pairings  | every pair of the named agents (a round robin), in the order given                    |
| games     | per pairing, deck seeds `seed .. seed + games/2 - 1`, each played twice, seats swapped |
| players   | agents are reset before every game with a seed drawn from the game seed and the seat |
| counts    | wins, draws, losses of the first agent of the pairing, overall and per seat           |
| win rate  | (wins + draws / 2) / games, with a Wilson score 95% interval                          |
| ratings   | Bradley-Terry strengths fitted to all pairings, Elo scale, `heuristic` at 0 (`anchored`) |
| ladder    | each rung's bar over the rung below (`LADDER`), for the rungs that both play          |

Each side is given `game.observation(seat)` and `game.legal_mask()`: exactly what the environments hand an
agent. A pairing of agents that act in batches (the compiled baselines and trained policies:
`GAME.batchable`) is played many games at once in the game's batched environment, on every core
(`GAME.play_batched`); any other pairing (`ismcts`, say) game by game on the game itself
(`experiments.game.GAME`, a `suntzu_env.protocol.GameRules`) over worker processes (`--workers`). Both ways
play the same games, and the results do not depend on the number of workers. Every game of an evaluation is
played under the same options (`--variant`, `--events`, `--adjacency`).

The results folder (`--out`, default `results/<name>`) holds `summary.json` (configuration,
every pairing with its statistics, ratings, ladder, timing), `pairings.csv` (one row per pairing),
`games.csv` (every game: seed, seats, winner, final marker, decisions) and `heatmap.png` (the
win-rate matrix with its intervals).
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
import multiprocessing
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from agents import Agent, check_spec, make_agent, short_label, valid_specs
from agents.registry import POLICY_PREFIXES
from experiments.cli import ConfigError, UserError, parse, run_cli
from experiments.game import GAME, REPLAY_COMMAND, Borders, Variant, describe_options, option_fields, options_of
from experiments.partial import Partial, stale_folders
from experiments.runs import save_atomic, write_atomic, write_json
from suntzu_env.protocol import GameOptions, ask
from suntzu_env.stats import anchor_note, anchored, bradley_terry, wilson

SEATS: tuple[str, ...] = GAME.seats

LADDER: tuple[tuple[str, str, float], ...] = (
    ("greedy", "random", 0.80),
    ("heuristic", "greedy", 0.60),
    ("ismcts", "heuristic", 0.70),  # the search baseline at its default settings
)
SEEDS_PER_JOB = 25  # at most, deck seeds per unit of work played game by game (50 games)
UNITS_AT_LEAST = 16  # a pairing played game by game is cut into this many units where it has the seeds
BATCHED_SEEDS_PER_JOB = 250  # deck seeds per unit of work played in the batched environment (500 games)
BACKENDS = ("local", "ray")
Backend = Literal["local", "ray"]
AgentLike = str | Agent
OptionsLike = GameOptions | Mapping[str, Any] | None  # the game's options, a mapping of their fields, or defaults


# -------------------------------------------------------------------- playing


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed an agent is reset with for one game and seat: a fixed mix of both."""
    x = (game_seed * 2 + seat + 1) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    return x & 0x7FFFFFFFFFFFFFFF


def play_game(game_seed: int, *players: Agent, options: OptionsLike = None) -> dict:
    """One game: each seat's agent (in seat order) is asked with its own observation and the legal mask.

    Returns the winner (a seat or "draw"), the final marker (+ toward the first seat), the number of
    decisions the agents answered and the game's record (which `GAME.replay` plays again).
    """
    if len(players) != len(SEATS):
        raise ValueError(f"play_game needs one agent per seat {SEATS}, got {len(players)}")
    game = GAME.new(game_seed, GAME.options(options))
    by_seat = dict(zip(SEATS, players, strict=True))
    for side, agent in enumerate(players):
        agent.reset(agent_seed(game_seed, side))
    decisions = 0
    while (seat := game.current_player) is not None:
        game.apply(ask(by_seat[seat], game, seat))
        decisions += 1
    return {"winner": game.winner, "score": game.score, "decisions": decisions, "record": game.record()}


@dataclass(frozen=True)
class Job:
    """A unit of work: a run of deck seeds of one pairing, each played with agent a in each of `a_seats` in turn,
    game by game or (`batched`) many at once in the batched environment."""

    pairing: int
    a: AgentLike
    b: AgentLike
    first_seed: int
    n_seeds: int
    options: GameOptions
    a_seats: tuple[str, ...] = SEATS
    batched: bool = False

    @property
    def games(self) -> int:
        return self.n_seeds * len(self.a_seats)


_AGENTS: dict[tuple[str, int], Agent] = {}  # per process: agents built from specs, reused across jobs


def _agent(spec: AgentLike, slot: int) -> Agent:
    """The agent of a spec (one instance per slot, so a spec may play itself) or the object given."""
    if not isinstance(spec, str):
        return spec
    if (spec, slot) not in _AGENTS:
        _AGENTS[spec, slot] = make_agent(spec)
    return _AGENTS[spec, slot]


def run_job(job: Job, on_game: Callable[[], None] | None = None) -> tuple[int, list[dict[str, Any]]]:
    """The rows of a job's games in (seed, seat) order, with its pairing; `on_game()` as each batched game ends."""
    if job.batched:
        a, b = _loaded(job.a, 0), _loaded(job.b, 1)
        count = (lambda k, out: on_game()) if on_game is not None else None
        return job.pairing, _play_batched(job.pairing, a, b, job.first_seed, job.n_seeds, job.a_seats, job.options,
                                          count)  # fmt: skip
    a, b = _agent(job.a, 0), _agent(job.b, 1)
    rows = []
    for seed in range(job.first_seed, job.first_seed + job.n_seeds):
        for a_seat in job.a_seats:
            blue, red = (a, b) if a_seat == SEATS[0] else (b, a)
            out = play_game(seed, blue, red, options=job.options)
            result = 0 if out["winner"] == "draw" else (1 if out["winner"] == a_seat else -1)
            rows.append({"pairing": job.pairing, "seed": seed, "a_seat": a_seat, "result": result, **out})
    return job.pairing, rows


def plan_jobs(
    pairings: Sequence[tuple[AgentLike, AgentLike]],
    seeds: int,
    seed: int,
    options: GameOptions,
    a_seats: tuple[str, ...],
    batched: bool = True,
) -> list[Job]:
    """The units of work of an evaluation, whatever plays them (in this process, worker processes or Ray tasks).

    A pairing the batched environment plays (`GAME.batchable`, unless `batched` is False) is cut into runs of
    `BATCHED_SEEDS_PER_JOB` deck seeds, any other into `UNITS_AT_LEAST` runs or more (of 1 to `SEEDS_PER_JOB`
    seeds: a small evaluation still spreads over the workers, and its progress shows as it goes). The cut
    depends only on the number of seeds, and each game's seeds only on its deck seed and seat, so every way of
    playing the jobs gives the same games (and a resumed evaluation the same units).
    """
    jobs = []
    for i, (a, b) in enumerate(pairings):
        in_batch = batched and GAME.batchable(a) and GAME.batchable(b)
        step = BATCHED_SEEDS_PER_JOB if in_batch else max(1, min(SEEDS_PER_JOB, seeds // UNITS_AT_LEAST))
        for start in range(0, seeds, step):
            jobs.append(Job(i, a, b, seed + start, min(step, seeds - start), options, a_seats, in_batch))
    return jobs


def play_games(
    pairings: Sequence[tuple[AgentLike, AgentLike]],
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
    mirrored: bool = True,
    batched: bool = True,
    backend: Backend = "local",
    address: str | None = None,
    done: Mapping[tuple[int, int], list[dict[str, Any]]] | None = None,
    on_job: Callable[[int, list[dict[str, Any]]], None] | None = None,
) -> list[list[dict[str, Any]]]:
    """Every game of every pairing, per pairing in (seed, seat) order, whatever the worker count or backend.

    Mirrored (the default), `games` is even and each deck seed is played twice, a as blue then as red;
    otherwise each of `games` deck seeds is played once, a as blue. `options`: the game's options (an
    options value or a mapping of its fields, such as `{"variant": "beginner"}`; None: the defaults).

    The games are cut into jobs (`plan_jobs`). A pairing of agents the game's batched environment plays
    (`GAME.batchable`: the compiled baselines and policies) is played there, many games at once, unless
    `batched` is False; the others game by game. Both ways play the same games (a policy network computes each
    row alike, one row or many).

    `backend` "local": batched jobs in this process on every core, the others over `workers` processes.
    "ray": every job as a Ray task (`experiments.cluster`), on the cluster at `address` or on a local one of
    `workers` CPUs started for the call (or the one this process has already joined); the same results, bit for
    bit.

    `done`: the rows of units of work already played, by (pairing, first deck seed), which are not played
    again; `on_job(pairing, rows)` is called as each other unit ends (to keep it, for a resume).
    """
    if mirrored:
        check_games(games)
    elif not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be a whole number >= 1, got {games!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    options = GAME.options(options)
    for a, b in pairings:
        for agent in (a, b):
            if isinstance(agent, str):
                check_spec(agent)
    seeds, a_seats = (games // 2, SEATS) if mirrored else (games, SEATS[:1])
    jobs = plan_jobs(pairings, seeds, seed, options, a_seats, batched)
    results: list[list[dict[str, Any]]] = [[] for _ in pairings]
    bar = _progress_bar(len(pairings) * games, progress)
    done = done or {}
    for job in jobs:
        rows = done.get((job.pairing, job.first_seed))
        if rows is not None and len(rows) == job.games:
            results[job.pairing].extend(rows)
            bar.update(len(rows))
    jobs = [job for job in jobs if len(done.get((job.pairing, job.first_seed), ())) != job.games]
    collect = _collector(results, on_job)
    try:
        if backend == "ray":
            from experiments.cluster import run_jobs  # lazy: Ray only when asked for

            for i, rows in run_jobs(jobs, address=address, num_cpus=workers):
                collect(i, rows)
                bar.update(len(rows))
        elif jobs:
            _play_locally(jobs, workers, collect, bar)
    finally:
        bar.close()
    for rows in results:
        rows.sort(key=lambda r: (r["seed"], SEATS.index(r["a_seat"])))
    return results


def _collector(
    results: list[list[dict[str, Any]]], on_job: Callable[[int, list[dict[str, Any]]], None] | None
) -> Callable[[int, list[dict[str, Any]]], None]:
    def collect(i: int, rows: list[dict[str, Any]]) -> None:
        results[i].extend(rows)
        if on_job is not None:
            on_job(i, rows)

    return collect


def _play_locally(
    jobs: Sequence[Job], workers: int, collect: Callable[[int, list[dict[str, Any]]], None], bar: Any
) -> None:
    """Batched jobs in this process (the batched environment uses every core), the others over worker processes."""
    for job in jobs:
        if job.batched:
            collect(*run_job(job, on_game=lambda: bar.update(1)))
    by_game = [job for job in jobs if not job.batched]
    if workers <= 1 or len(by_game) <= 1:
        for i, rows in map(run_job, by_game):
            collect(i, rows)
            bar.update(len(rows))
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with context.Pool(min(workers, len(by_game)), initializer=ignore_interrupts) as pool:
        for i, rows in pool.imap_unordered(run_job, by_game):
            collect(i, rows)
            bar.update(len(rows))


def _loaded(agent: AgentLike, slot: int) -> AgentLike:
    """A trained policy's spec (`ppo:`, `rllib:`) as its loaded agent (loaded once per process); others stay names."""
    return _agent(agent, slot) if isinstance(agent, str) and agent.startswith(POLICY_PREFIXES) else agent


def _play_batched(
    pairing: int,
    a: AgentLike,
    b: AgentLike,
    first_seed: int,
    seeds: int,
    a_seats: Sequence[str],
    options: GameOptions,
    on_game: Callable[[int, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Games of one pairing in the batched environment, each agent seeded per game as `play_game` does."""
    order = [(s, seat) for s in range(first_seed, first_seed + seeds) for seat in a_seats]
    games = [(s, seat, agent_seed(s, SEATS.index(seat)), agent_seed(s, 1 - SEATS.index(seat))) for s, seat in order]
    played = GAME.play_batched(a, b, games, options, on_game=on_game)
    rows = []
    for (s, a_seat), out in zip(order, played, strict=True):
        result = 0 if out["winner"] == "draw" else (1 if out["winner"] == a_seat else -1)
        rows.append({"pairing": pairing, "seed": s, "a_seat": a_seat, "result": result, **out})
    return rows


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which stops the pool (no traceback from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, smoothing=0.1, dynamic_ncols=True)


def check_games(games: int) -> None:
    if not isinstance(games, int) or isinstance(games, bool) or games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each deck seed is played in both seats), got {games!r}")


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts from agent a's view: overall, per seat, per seed pair; win rate (draws half) and Wilson CI."""
    out: dict[str, Any] = {"games": len(rows)}
    for prefix, subset in (("", rows), *((f"{seat}_", [r for r in rows if r["a_seat"] == seat]) for seat in SEATS)):
        out[f"{prefix}wins"] = sum(1 for r in subset if r["result"] == 1)
        out[f"{prefix}draws"] = sum(1 for r in subset if r["result"] == 0)
        out[f"{prefix}losses"] = sum(1 for r in subset if r["result"] == -1)
    n = len(rows)
    points = out["wins"] + 0.5 * out["draws"]
    out["win_rate"] = points / n if n else 0.0
    out["ci_low"], out["ci_high"] = wilson(points, n)
    for seat in SEATS:
        m = out[f"{seat}_wins"] + out[f"{seat}_draws"] + out[f"{seat}_losses"]
        out[f"{seat}_win_rate"] = (out[f"{seat}_wins"] + 0.5 * out[f"{seat}_draws"]) / m if m else 0.0
    by_seed: dict[int, int] = {}
    for r in rows:
        by_seed[r["seed"]] = by_seed.get(r["seed"], 0) + r["result"]
    out["pairs_won_both"] = sum(1 for v in by_seed.values() if v == 2)
    out["pairs_lost_both"] = sum(1 for v in by_seed.values() if v == -2)
    out["pairs_split"] = len(by_seed) - out["pairs_won_both"] - out["pairs_lost_both"]
    out["first_seed"] = min(by_seed) if by_seed else None
    out["last_seed"] = max(by_seed) if by_seed else None
    return out


def play_match(
    agent_a: AgentLike,
    agent_b: AgentLike,
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, Any]:
    """Play `games` seat-balanced games of a against b and summarize them from a's view.

    Deck seeds `seed .. seed + games/2 - 1` are each played twice, a as blue then as red. Agents are
    specs (`make_agent` names) or `Agent` objects (distinct objects for a and b); objects are copied
    into the worker processes when `workers > 1`. Returns `wins`, `draws`, `losses`, `games`,
    `win_rate` (draws count as half a win), the Wilson 95% interval `ci_low`/`ci_high`, the same
    counts per seat of a (`blue_wins`, ..., `red_win_rate`) and per deck seed (`pairs_won_both`,
    `pairs_split`, `pairs_lost_both`).
    """
    (rows,) = play_games([(agent_a, agent_b)], games, seed, options, workers, progress)
    return summarize(rows)


def seat_advantage(
    specs: Sequence[AgentLike],
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """How often the first seat (blue) wins when both seats are played by the same agent, one entry per agent.

    Each agent plays itself on deck seeds `seed .. seed + games - 1`, once each: with one agent in both
    seats, swapping the seats would replay the very same game. Returns `games`, `blue_wins`, `draws`,
    `red_wins`, `blue_win_rate` (draws count half) and its Wilson 95% interval `ci_low`/`ci_high`.
    """
    first, second = SEATS
    out = []
    for rows in play_games([(s, s) for s in specs], games, seed, options, workers, progress, mirrored=False):
        wins = sum(r["winner"] == first for r in rows)
        draws = sum(r["winner"] == "draw" for r in rows)
        points = wins + 0.5 * draws
        low, high = wilson(points, len(rows))
        out.append({"games": len(rows), f"{first}_wins": wins, "draws": draws,
                    f"{second}_wins": len(rows) - wins - draws, f"{first}_win_rate": points / len(rows),
                    "ci_low": low, "ci_high": high})  # fmt: skip
    return out


# -------------------------------------------------------------------- the round robin


def labels_for(specs: Sequence[str]) -> list[str]:
    """Display names: the specs, numbered when one is given twice (`random`, `random#2`)."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return out


def round_robin(
    specs: Sequence[str],
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
    backend: Backend = "local",
    address: str | None = None,
    done: Mapping[tuple[int, int], list[dict[str, Any]]] | None = None,
    on_job: Callable[[int, list[dict[str, Any]]], None] | None = None,
    earlier_seconds: float = 0.0,
) -> dict[str, Any]:
    """Every pair of agents over the same deck seeds, under the same options; statistics, ratings, the ladder.

    `backend` and `address` choose where the games are played (`play_games`); the results are the same.
    `done` and `on_job` resume an evaluation (`play_games`); `earlier_seconds`: the time its units took before."""
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {list(specs)}")
    labels = labels_for(specs)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    options = GAME.options(options)
    start = time.perf_counter()
    games_by_pairing = play_games([(specs[i], specs[j]) for i, j in pairs], games, seed, options, workers, progress,
                                  backend=backend, address=address, done=done, on_job=on_job)  # fmt: skip
    seconds = earlier_seconds + time.perf_counter() - start
    pairings = []
    for (i, j), rows in zip(pairs, games_by_pairing, strict=True):
        pairings.append({"a": labels[i], "b": labels[j], **summarize(rows)})
    ratings = bradley_terry(labels, pairings)
    total = len(pairs) * games
    return {
        "config": {
            "agents": list(specs),
            "labels": labels,
            "games_per_pairing": games,
            "seed": seed,
            "game_seeds": [seed, seed + games // 2 - 1],
            "game": GAME.name,
            **option_fields(options),
            "workers": workers,
            "backend": backend,
        },
        "pairings": pairings,
        "ratings": ratings,
        "ladder": ladder(pairings),
        "seconds": seconds,
        "games_per_second": total / seconds if seconds > 0 else None,
        "games": games_by_pairing,
    }


def oriented(pairings: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any] | None:
    """The statistics of a against b, from a's view, whichever way the pairing was played."""
    for p in pairings:
        if p["a"] == a and p["b"] == b:
            return p
        if p["a"] == b and p["b"] == a:
            flipped = dict(p, a=a, b=b, wins=p["losses"], losses=p["wins"], win_rate=1 - p["win_rate"])
            flipped["ci_low"], flipped["ci_high"] = 1 - p["ci_high"], 1 - p["ci_low"]
            return flipped
    return None


def ladder(pairings: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ladder bars that apply to the agents played."""
    out = []
    for a, b, bar in LADDER:
        p = oriented(pairings, a, b)
        if p is not None:
            keep = ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high")
            out.append({"a": a, "b": b, "bar": bar, **{k: p[k] for k in keep}, "passed": p["win_rate"] >= bar})
    return out


# -------------------------------------------------------------------- output


def write_results(
    results: dict[str, Any], out_dir: str | Path, partial: Partial | None = None, overwrite: bool = False
) -> Path:
    """summary.json, pairings.csv, games.csv, games.jsonl (each game's record, in games.csv's order) and
    heatmap.png in `out_dir`.

    The folder is filled aside (in `partial`'s folder, or a new one) and renamed into place whole, so that it
    appears complete or not at all; an existing `out_dir` is replaced only with `overwrite` (FileExistsError).
    """
    out = Path(out_dir)
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists already")
    if partial is None:
        partial = Partial(out, {})
        partial.start()
    folder = partial.folder
    try:
        summary = {k: v for k, v in results.items() if k != "games"}
        write_json(folder / "summary.json", summary)
        write_atomic(folder / "pairings.csv", _csv(list(results["pairings"][0]), results["pairings"]))
        games = []
        for pairing, rows in zip(results["pairings"], results["games"], strict=True):
            for r in rows:
                blue, red = (pairing["a"], pairing["b"]) if r["a_seat"] == SEATS[0] else (pairing["b"], pairing["a"])
                games.append(
                    {
                        "pairing": f"{pairing['a']} vs {pairing['b']}",
                        "seed": r["seed"],
                        SEATS[0]: blue,
                        SEATS[1]: red,
                        "winner": r["winner"],
                        "score": r["score"],
                        "decisions": r["decisions"],
                    }
                )
        write_atomic(folder / "games.csv", _csv(["pairing", "seed", *SEATS, "winner", "score", "decisions"], games))
        records = [json.dumps({"record": r["record"]}) for rows in results["games"] for r in rows]
        write_atomic(folder / "games.jsonl", "".join(line + "\n" for line in records))  # GAME.replay reads each
        plot_heatmap(results, folder / "heatmap.png")
    except BaseException:
        if partial.what == {}:  # nothing to resume: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return partial.finish(overwrite)


def _csv(fields: list[str], rows: Sequence[dict[str, Any]]) -> str:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue()


def plot_heatmap(results: dict[str, Any], path: str | Path) -> None:
    """Row agent's win rate against the column agent, annotated with its Wilson 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = results["config"]["labels"]
    n = len(labels)
    rate = np.full((n, n), np.nan)
    text = [[""] * n for _ in range(n)]
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            p = oriented(results["pairings"], a, b) if i != j else None
            if p is not None:
                rate[i, j] = p["win_rate"]
                text[i][j] = f"{100 * p['win_rate']:.1f}%\n[{100 * p['ci_low']:.1f}, {100 * p['ci_high']:.1f}]"
    fig, ax = plt.subplots(figsize=(1.9 * n + 2.5, 1.5 * n + 1.8))
    image = ax.imshow(np.ma.masked_invalid(rate), cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_facecolor("0.85")
    for i in range(n):
        for j in range(n):
            if text[i][j]:
                dark = abs(rate[i, j] - 0.5) > 0.3
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=9, color="white" if dark else "black")
    shown = [short_label(label) for label in labels]
    ax.set_xticks(range(n), shown, rotation=30, ha="right")
    ax.set_yticks(range(n), shown)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    cfg = results["config"]
    ax.set_title(f"win rate (draws half), Wilson 95%\n{cfg['games_per_pairing']} games per pairing, seed {cfg['seed']}")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    save_atomic(path, lambda f: fig.savefig(f, format="png", dpi=120))
    plt.close(fig)


def report(results: dict[str, Any]) -> str:
    """The printed summary: pairings, ratings, the ladder."""
    cfg = results["config"]
    shown = {label: short_label(label, 24) for label in cfg["labels"]}
    names = [f"{shown[p['a']]} vs {shown[p['b']]}" for p in results["pairings"]]
    width = max([28, *map(len, names)])
    lines = [
        f"round robin: {len(cfg['labels'])} agents, {cfg['games_per_pairing']} games per pairing "
        f"(deck seeds {cfg['game_seeds'][0]}..{cfg['game_seeds'][1]}, both seats), {describe_options(cfg)}",
        f"{'pairing':<{width}} {'W':>5} {'D':>4} {'L':>5}  {'win rate':>8}  {'95% CI':<16} "
        + " ".join(f"{'as ' + seat:>7}" for seat in SEATS),
    ]
    for name, p in zip(names, results["pairings"], strict=True):
        lines.append(
            f"{name:<{width}} {p['wins']:>5} {p['draws']:>4} {p['losses']:>5}  "
            f"{100 * p['win_rate']:>7.1f}%  [{100 * p['ci_low']:5.1f}, {100 * p['ci_high']:5.1f}]   "
            + " ".join(f"{100 * p[f'{seat}_win_rate']:>6.1f}%" for seat in SEATS)
        )
    ratings = anchored(results["ratings"])  # a results folder written before the anchor was heuristic reads the same
    ranked = sorted(ratings.items(), key=lambda kv: -kv[1])
    lines.append(f"ratings (Bradley-Terry, Elo scale, {anchor_note(ratings)}): "
                 + ", ".join(f"{shown.get(k, k)} {v:+.0f}" for k, v in ranked))  # fmt: skip
    if any(shown[label] != label for label in cfg["labels"]):
        lines.append("agents: " + "; ".join(f"{shown[label]} = {label}" for label in cfg["labels"]
                                            if shown[label] != label))  # fmt: skip
    for rung in results["ladder"]:
        verdict = "PASS" if rung["passed"] else "FAIL"
        lines.append(
            f"ladder: {rung['a']} beats {rung['b']} {100 * rung['win_rate']:.1f}% "
            f"[{100 * rung['ci_low']:.1f}, {100 * rung['ci_high']:.1f}] over {rung['games']} games "
            f"(bar {100 * rung['bar']:.0f}%): {verdict}"
        )
    rate = results["games_per_second"]
    pace = f"{rate:.0f} games/s" if rate >= 10 else f"{rate:.2g} games/s"  # search agents play under one a second
    lines.append(f"time: {results['seconds']:.1f} s" + (f" ({pace})" if rate else ""))
    return "\n".join(lines)


# -------------------------------------------------------------------- command line

PROG = "python -m experiments.evaluate"


@dataclass
class EvaluateConfig:
    """Round-robin evaluation of agents over paired, seat-swapped games: win rates with Wilson 95% intervals,
    Bradley-Terry ratings, the baseline ladder, and a results folder."""

    agents: tuple[str, ...] = ("random", "greedy", "heuristic")
    """two or more of random, greedy, heuristic, ismcts[:<iterations>], ppo:<path-to-model>, rllib:<checkpoint>
    (twice: self-play)"""
    games: int = 2000
    """games per pairing, even: games/2 deck seeds, each played in both seats"""
    seed: int = 0
    """first deck seed, in [0, 2**62): the games use seeds seed .. seed + games/2 - 1"""
    variant: Variant = "standard"
    """rules variant"""
    events: bool = False
    """play with the event cards (R7)"""
    adjacency: Borders = None
    """the map: its borders as PROVINCE:PROVINCE pairs, e.g. QIN:CHU CHU:WU (None: the rules' map)"""
    workers: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    """worker processes for the pairings played game by game, one per core by default (batched pairings use every
    core); with --backend ray, the CPUs of the local Ray cluster started for the run (not with --address)"""
    backend: Backend = "local"
    """where the games are played: local (this machine's processes) or ray (Ray tasks: pip install -e ".[ray]");
    the same results either way"""
    address: str | None = None
    """with --backend ray: the address of a running Ray cluster to play on, e.g. 10.0.0.5:6379 or auto (None: start
    a local one)"""
    out: Path | None = None
    """results folder (None: results/<name>)"""
    name: str | None = None
    """results folder's name under results/ (None: the agents, games, seed and time)"""
    progress: bool = True
    """show a progress bar"""
    resume: Path | None = None
    """continue a killed evaluation: its results folder (as --out named it); the games it finished are kept, the
    others played, and the folder ends as an uninterrupted evaluation's; the other flags come from its start"""
    overwrite: bool = False
    """replace an existing --out folder (once the new results are complete)"""

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise ConfigError(f"agents: needs at least two agents, got {' '.join(self.agents) or 'none'}; "
                              f"valid: {valid_specs()}")  # fmt: skip
        for spec in self.agents:
            try:
                check_spec(spec)
            except ValueError as error:
                raise ConfigError(f"agents: {error}") from None
        try:
            check_games(self.games)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if not 0 <= self.seed < 2**62:
            raise ConfigError(f"seed must be in [0, 2**62), got {self.seed}")
        if self.workers < 1:
            raise ConfigError(f"workers must be at least 1, got {self.workers}")
        if self.address is not None and self.backend != "ray":
            raise ConfigError(f"address: a Ray cluster's address is used only with --backend ray, got --backend "
                              f"{self.backend}")  # fmt: skip
        if self.address is not None and not self.address.strip():
            raise ConfigError("address: expected HOST:PORT of a running Ray cluster, or auto; got an empty one")
        if self.name is not None and (not self.name or "/" in self.name or os.sep in self.name or
                                      self.name in (".", "..")):  # fmt: skip
            raise ConfigError(f"name must be a folder name (no '/'), got {self.name!r}")
        self.options  # noqa: B018  # checks the game's options

    @property
    def options(self) -> GameOptions:
        """The game's options (variant, events, map): every game of the evaluation is played under them."""
        return options_of(self)


def load_agents(specs: Sequence[str], options: GameOptions | None = None) -> None:
    """Load each trained agent (`ppo:`, `rllib:`) now, once: a bad model is refused before any game, and workers
    inherit it.

    A trained agent whose run was played under other options than `options` (another map, say) is named.
    """
    for spec in dict.fromkeys(specs):
        if spec.startswith(POLICY_PREFIXES):
            _AGENTS[spec, 0] = make_agent(spec)
            _AGENTS[spec, 1] = copy.deepcopy(_AGENTS[spec, 0])
        if spec.startswith("ppo:"):
            trained = trained_options(spec[len("ppo:") :])
            if options is not None and trained is not None and GAME.label(trained) != GAME.label(options):
                print(f"note: {spec} was trained under {describe_options(option_fields(trained))}; "
                      f"these games are played under {describe_options(option_fields(options))}")  # fmt: skip


def trained_options(path: str) -> GameOptions | None:
    """The options a trained model's run was played under (None: no run folder with a readable config beside it)."""
    from experiments.runs import read_config

    model = Path(path)
    for folder in (model, model.parent, model.parent.parent):
        if (folder / "config.json").is_file():
            try:
                return read_config(folder).options
            except UserError:
                return None
    return None


WHAT = ("agents", "games", "seed", "variant", "events", "adjacency")  # what an evaluation is: kept on --resume


@dataclass
class _ResumeFlag:
    resume: Path | None = None


def configure(argv: Sequence[str] | None) -> tuple[EvaluateConfig, Path, Partial]:
    """The evaluation a command line asks for, its results folder and the folder it is made in: a new one, or
    (`--resume`) the unfinished one, whose settings the flags given must agree with."""
    import tyro

    try:
        flags, _ = tyro.cli(_ResumeFlag, args=list(sys.argv[1:] if argv is None else argv), return_unknown_args=True,
                            add_help=False, console_outputs=False)  # fmt: skip
        resume = flags.resume
    except SystemExit:  # a malformed --resume: the full parse reports it
        resume = None
    if resume is None:
        args = parse(EvaluateConfig, argv, PROG)
        out = args.out or Path("results") / (args.name or "_".join(
            ["-".join(label.replace(":", "").replace("/", "-").replace("#", "") for label in labels_for(args.agents)),
             f"{args.games}g", f"s{args.seed}", datetime.now().strftime("%Y%m%d-%H%M%S")]
        ))  # fmt: skip
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out}: a file is there, not a folder")
        if out.exists() and not args.overwrite:
            raise UserError(f"--out {out} exists already: give another --out, --overwrite to replace it, or "
                            f"--resume {out} to continue an unfinished evaluation into it")  # fmt: skip
        what = {name: _plain(getattr(args, name)) for name in WHAT} | {"overwrite": args.overwrite}
        return args, out, Partial(out, what)
    saved = Partial.saved_config(resume)
    try:
        fields = {name: tuple(v) if isinstance(v, list) and name == "agents" else v for name, v in saved.items()
                  if name in WHAT}  # fmt: skip
        if "adjacency" in fields and fields["adjacency"] is not None:
            fields["adjacency"] = tuple(fields["adjacency"])
        default = EvaluateConfig(**fields, resume=resume, out=resume)
    except (TypeError, ValueError, ConfigError) as error:
        raise UserError(f"--resume {resume}: its saved settings are unusable ({error})") from None
    args = parse(EvaluateConfig, argv, PROG, default=default)
    for name in WHAT:
        if _plain(getattr(args, name)) != _plain(getattr(default, name)):
            raise UserError(f"a resumed evaluation keeps its --{name} ({_plain(getattr(default, name))}), got "
                            f"{_plain(getattr(args, name))}")  # fmt: skip
    if args.out != resume:
        raise UserError(f"--resume {resume} writes to that folder; leave --out out (got --out {args.out})")
    args.overwrite = args.overwrite or bool(saved.get("overwrite"))
    return args, resume, Partial(resume, saved)


def _plain(value: Any) -> Any:
    """A setting as JSON keeps it (tuples as lists)."""
    return json.loads(json.dumps(value))


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the round robin, print the report, write the results folder; returns the results."""
    args, out, partial = configure(argv)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: a file is there, not a folder")
    try:  # before the games: a folder that cannot be made is said at once
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out}: cannot make its folder ({error.strerror or error})") from None
    load_agents(args.agents, args.options)
    if args.backend == "ray":
        from experiments.cluster import require_ray

        require_ray()  # before the games: a missing Ray is said at once
    if args.resume is None:
        try:
            partial.start()
        except OSError as error:
            raise UserError(f"--out {out}: cannot make {partial.folder} ({error.strerror or error})") from None
        for note in stale_folders(out.parent):
            if not note.startswith(f"note: {partial.folder} "):
                print(note)
        done, earlier = {}, 0.0
    else:
        done, earlier = partial.done()
        print(f"resuming {out}: {sum(map(len, done.values()))} games already played")
    start = time.perf_counter()

    def keep(pairing: int, rows: list[dict[str, Any]]) -> None:
        partial.save(pairing, rows, earlier + time.perf_counter() - start)

    results = round_robin(args.agents, args.games, args.seed, args.options, args.workers, progress=args.progress,
                          backend=args.backend, address=args.address, done=done, on_job=keep,
                          earlier_seconds=earlier)  # fmt: skip
    publish(results, out, partial, args.overwrite)
    return results


def publish(results: dict[str, Any], out: Path, partial: Partial | None = None, overwrite: bool = False) -> Path:
    """Write the results folder, print the report and where the folder is; UserError when it cannot be written."""
    try:
        out = write_results(results, out, partial, overwrite)
    except OSError as error:
        raise UserError(f"--out {out}: cannot write the results ({error.strerror or error})") from None
    print(report(results))
    print(f"results: {out}")
    print(f"replay its games in the browser: {REPLAY_COMMAND.format(out=out)}")
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), EvaluateConfig)


if __name__ == "__main__":
    main()
