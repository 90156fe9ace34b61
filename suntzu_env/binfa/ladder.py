"""A ladder between Bin'Fa's compiled agents and its search: seat-balanced games, each seed played from every seat.

    python -m suntzu_env.binfa.ladder --games 2000                  # greedy against random, level 1, 2 players
    python -m suntzu_env.binfa.ladder --a greedy --b greedy --level 3
    python -m suntzu_env.binfa.ladder --a mcts --b heuristic --players 3 --games 300 --csv docs/binfa-ladder.csv
    python -m suntzu_env.binfa.ladder --a mcts --b heuristic --games 1000 --workers 16     # one process a core

With n players, games nk .. nk + n - 1 share a seed, `a` in seat 0, 1, ... in turn and copies of `b` in the other
seats. It prints the games `a` won, left undecided (stopped at max_turns, BD5, or everybody out at once, BD21) and
lost, side by side, and its outright win rate, won / games, with its Wilson 95% interval: an undecided game is no
part of a win (a seat's share is 1/n). The score (undecided = 1/n) follows it, the measure of the ladder's bars
(`suntzu_env.binfa.plugin.LADDER`). `--csv` writes the pairing's row into a file of rows (`CSV_FIELDS`), replacing
the row of the same pairing, level and players, whole or not at all.

`--progress FILE` keeps the games as they finish (a JSON file, written whole after each share of games): the same
command run again after a kill plays only the games still missing and ends with the uninterrupted ladder's result.
The file is read as data and checked field by field; one of another ladder (other agents, games, seed, level,
players or max_turns) is refused, naming the field.

    python -m suntzu_env.binfa.ladder --a mcts --b heuristic --players 3 --games 1002 --progress mcts-3p.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from suntzu_env.binfa import ENV_NAME
from suntzu_env.binfa.agents import AGENTS, WEIGHTS, play_games
from suntzu_env.binfa.layout import RULES_V1_1, RULES_VERSIONS, UNDECIDED
from suntzu_env.binfa.search import (
    AG_SEARCH,
    ROLLOUT_DECISIONS,
    SEARCH,
    SETTINGS,
    SearchTree,
    check_iterations,
    default_iterations,
    play_search_games,
)
from suntzu_env.core.checks import check_seed
from suntzu_env.core.files import write_atomic
from suntzu_env.core.files import write_row as write_file_row
from suntzu_env.core.stats import wilson

CSV_FIELDS = ("a", "b", "level", "players", "games", "wins", "undecided", "losses", "win_rate", "ci_low", "ci_high",
              "seat_share", "score", "first_seed", "last_seed", "rules", "environment")  # fmt: skip
AGENT_SPECS = f"{', '.join(AGENTS)}, {SEARCH} or {SEARCH}:<iterations>"
UNPLAYED = -1  # a progress file's entry of a game still to play
SHARE_GAMES = 50  # the most games of a share, kept in the progress file as it ends
PROGRESS_KEYS = ("what", "winners", "decisions")
MAX_PROGRESS_BYTES = 64 * 2**20
MAX_DECISIONS = 2**40  # more decisions than any game of max_turns < 2**31 can hold


def agent_id(spec: str, players: int = 2) -> tuple[int, int]:
    """A ladder agent's id (`AGENTS`' index, or `AG_SEARCH`) and the search's iterations in games of `players`
    players (`mcts`: `default_iterations`; 0 for the others); ValueError naming the spec otherwise."""
    if spec in AGENTS:
        return AGENTS.index(spec), 0
    name, colon, argument = spec.partition(":")
    if name == SEARCH:
        try:
            return AG_SEARCH, check_iterations(argument) if colon else default_iterations(players)
        except ValueError as error:
            raise ValueError(f"agent {spec!r:.40}: {error}") from None
    raise ValueError(f"unknown agent {spec!r:.40}: agents are {AGENT_SPECS}")


def ladder(
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    level: int = 1,
    max_turns: int = 300,
    weights: np.ndarray = WEIGHTS,
    players: int = 2,
    workers: int = 1,
    progress: str | Path | None = None,
) -> dict[str, Any]:
    """`a` against copies of `b` over `games` games of `players` players (a multiple of `players` is
    seat-balanced): the wins, undecided games and losses of `a`, its outright win rate (wins / games) with its
    Wilson 95% interval (`ci_low`, `ci_high`), and its score (wins + undecided / players, over games); `weights`
    as `agents.WEIGHTS` (the compiled agents'). `workers` processes play shares of the games at once: every game
    is the same whatever their number (its seeds are its own). With `progress`, a file keeps the finished games
    (`read_progress`): the games it holds are not played again, and it is rewritten whole after each share."""
    if not 2 <= players <= 6:
        raise ValueError(f"players must be 2..6, got {players!r:.20}")
    (a_id, a_iterations), (b_id, b_iterations) = agent_id(a, players), agent_id(b, players)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r:.20}")
    g = np.arange(games, dtype=np.int64)
    seeds = seed + g // players
    a_seat = g % players
    seat_agents = np.where(a_seat[:, None] == np.arange(players)[None, :], a_id, b_id).astype(np.int64)
    agent_seeds = (seed * 7919 + players * g[:, None] + np.arange(players)[None, :]).astype(np.int64)
    setup = (level, players, max_turns, max(a_iterations, b_iterations))
    what = {"a": a, "b": b, "games": games, "seed": seed, "level": level, "players": players, "max_turns": max_turns,
            "weights": weights_digest(weights), "rules": RULES_VERSIONS[RULES_V1_1]}  # fmt: skip
    out = np.full((games, 2), UNPLAYED, dtype=np.int64)
    if progress is not None and Path(progress).exists():
        out = read_progress(progress, what)
    shares = cut_shares(np.flatnonzero(out[:, 0] == UNPLAYED), workers)

    def keep(k: np.ndarray, rows: np.ndarray) -> None:
        out[k] = rows[:, :2]  # winner, decisions
        if progress is not None:
            write_progress(progress, what, out)

    if workers == 1:
        for k in shares:
            keep(k, play_share(seeds[k], seat_agents[k], agent_seeds[k], setup, weights))
    elif shares:
        with ProcessPoolExecutor(workers) as pool:
            parts = {pool.submit(play_share, seeds[k], seat_agents[k], agent_seeds[k], setup, weights): i
                     for i, k in enumerate(shares)}  # fmt: skip
            for part in as_completed(parts):
                keep(shares[parts[part]], part.result())
    wins = int((out[:, 0] == a_seat).sum())
    undecided = int((out[:, 0] == UNDECIDED).sum())
    losses = games - wins - undecided
    low, high = wilson(wins, games)
    return {
        "a": a,
        "b": b,
        "level": level,
        "players": players,
        "games": games,
        "wins": wins,
        "losses": losses,
        "undecided": undecided,
        "win_rate": wins / games,
        "ci_low": low,
        "ci_high": high,
        "seat_share": 1 / players,
        "score": (wins + undecided / players) / games,
        "first_seed": seed,
        "last_seed": int(seeds[-1]),
        "rules": RULES_VERSIONS[RULES_V1_1],
        "environment": ENV_NAME,
        "decisions": int(out[:, 1].sum()),
    }


def play_share(
    seeds: np.ndarray,
    seat_agents: np.ndarray,
    agent_seeds: np.ndarray,
    setup: tuple[int, int, int, int],
    weights: np.ndarray,
) -> np.ndarray:
    """The rows (winner first) of the games `seeds` with their seats' agents and generators' seeds, `setup` =
    (level, players, max_turns, the search's iterations: 0 when no seat searches)."""
    level, players, max_turns, iterations = setup
    if iterations:
        tree = SearchTree(iterations).arrays
        return play_search_games(seeds, seat_agents, agent_seeds, level, players, 0, max_turns, iterations,
                                 ROLLOUT_DECISIONS, SETTINGS, tree)  # fmt: skip
    return play_games(seeds, seat_agents, agent_seeds, level, players, 1, 0, max_turns, weights)


def cut_shares(games: np.ndarray, workers: int) -> list[np.ndarray]:
    """The games `games` (indices) in shares of at most `SHARE_GAMES`, at least four a worker where there are enough:
    each share is kept in the progress file as it ends."""
    size = max(1, min(SHARE_GAMES, -(-games.size // (4 * workers))))
    return [games[i : i + size] for i in range(0, games.size, size)]


def weights_digest(weights: np.ndarray) -> str:
    """A short digest of the compiled agents' weights, which a progress file's games were played with."""
    return hashlib.sha256(np.ascontiguousarray(weights, dtype=np.float64).tobytes()).hexdigest()[:16]


def write_progress(path: str | Path, what: dict[str, Any], out: np.ndarray) -> None:
    """The ladder `what` and its games so far (winner and decisions of each, `UNPLAYED` for a game still to play),
    written whole."""
    data = {"what": what, "winners": out[:, 0].tolist(), "decisions": out[:, 1].tolist()}
    write_atomic(path, json.dumps(data, separators=(",", ":")) + "\n")


def read_progress(path: str | Path, what: dict[str, Any]) -> np.ndarray:
    """The games kept in the progress file `path` of the ladder `what`, as `ladder` plays them (winner, decisions):
    read as data, every field checked; ValueError naming the file and the field otherwise."""
    path = Path(path)

    def bad(field: str, problem: str) -> ValueError:
        return ValueError(f"{path}: {field}: {problem}")

    if path.stat().st_size > MAX_PROGRESS_BYTES:
        raise bad("file", f"over {MAX_PROGRESS_BYTES:,} bytes: not a ladder's progress file")
    try:
        data = json.loads(path.read_bytes())
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # RecursionError: nested past Python's limit
        raise bad("file", f"not JSON ({str(error)[:60]})") from None
    if not isinstance(data, dict) or set(data) != set(PROGRESS_KEYS):
        raise bad("file", f"must be an object of {', '.join(PROGRESS_KEYS)}")
    if not isinstance(data["what"], dict) or set(data["what"]) != set(what):
        raise bad("what", f"must name {', '.join(what)}")
    for field, value in what.items():
        if data["what"][field] != value or type(data["what"][field]) is not type(value):
            raise bad(f"what.{field}", f"this file keeps the games of {field} {data['what'][field]!r:.40}, not "
                                       f"{value!r:.40}: give another --progress file for this ladder")  # fmt: skip
    games, players = what["games"], what["players"]
    allowed = {"winners": (f"{UNPLAYED} (to play), a seat 0..{players - 1} or {UNDECIDED} (undecided)",
                           lambda v: UNPLAYED <= v < players or v == UNDECIDED),
               "decisions": (f"{UNPLAYED} (to play) or a count up to {MAX_DECISIONS}",
                             lambda v: UNPLAYED <= v <= MAX_DECISIONS)}  # fmt: skip
    columns = []
    for field, (meaning, holds) in allowed.items():
        values = data[field]
        if not isinstance(values, list) or len(values) != games:
            raise bad(field, f"must be a list of {games} whole numbers")
        for i, v in enumerate(values):
            if type(v) is not int or not holds(v):
                raise bad(f"{field}[{i}]", f"must be {meaning}, got {v!r:.20}")
        columns.append(np.array(values, dtype=np.int64))
    out = np.stack(columns, axis=1)
    unplayed = out == UNPLAYED
    wrong = np.flatnonzero((unplayed[:, 0] != unplayed[:, 1]) | (~unplayed[:, 1] & (out[:, 1] < 1)))
    if wrong.size:
        raise bad(f"decisions[{wrong[0]}]", "a game played has a winner and at least one decision, a game to play "
                                            "neither")  # fmt: skip
    return out


def write_row(path: str | Path, row: dict[str, Any]) -> None:
    """Writes `row` (`CSV_FIELDS`) into the CSV file `path`, replacing the row of the same a, b, level and
    players, whole or not at all."""
    write_file_row(path, CSV_FIELDS, row, ("a", "b", "level", "players"), "a Bin'Fa ladder file")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.ladder", description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="greedy", help=f"one of {AGENT_SPECS}")
    parser.add_argument("--b", default="random", help=f"one of {AGENT_SPECS}; with more players, in every other seat")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--max-turns", type=int, default=300)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5, 6))
    parser.add_argument("--csv", help="a CSV file of ladder rows to write this pairing's row into")
    parser.add_argument("--workers", type=int, default=1, help="processes playing at once (the same games whatever)")
    parser.add_argument("--progress", help="a file keeping the games as they finish: the same command continues a "
                        "killed ladder from it")  # fmt: skip
    args = parser.parse_args(argv)
    if args.games < args.players or args.games % args.players:
        what = "an even number >= 2 (seat-balanced pairs)" if args.players == 2 else f"a multiple of {args.players}"
        print(f"error: --games must be {what}: every seed played from every seat", file=sys.stderr)
        return 2
    if args.max_turns < 1:
        print("error: --max-turns must be at least 1", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    try:
        check_seed(args.seed, "--seed")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for flag, path in (("--csv", args.csv), ("--progress", args.progress)):
        if path and not Path(path).parent.is_dir():
            print(f"error: {flag}: no folder {Path(path).parent}", file=sys.stderr)
            return 2
    for name in (args.a, args.b):
        try:
            agent_id(name)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    start = time.perf_counter()
    try:
        r = ladder(args.a, args.b, args.games, args.seed, args.level, args.max_turns, players=args.players,
                   workers=args.workers, progress=args.progress)  # fmt: skip
    except (OSError, ValueError) as error:
        print(f"error: --progress: {error}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    share = "" if args.players == 2 else f" (a seat's share {r['seat_share']:.0%})"
    print(
        f"{args.a} vs {args.b}, level {args.level}, {args.players} players, {r['games']} games: {r['wins']} won, "
        f"{r['undecided']} undecided, {r['losses']} lost; won {100 * r['win_rate']:.1f}% "
        f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] outright{share}, "
        f"score (undecided = {'½' if args.players == 2 else f'1/{args.players}'}) {r['score']:.1%} "
        f"({r['decisions']} decisions in {seconds:.1f} s)"
    )
    if args.csv:
        try:
            write_row(args.csv, r)
        except (OSError, ValueError) as error:
            print(f"error: --csv: {error}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
