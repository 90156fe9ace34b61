"""Bin'Fa's invariants over many random games: `python -m suntzu_env.binfa.invariants --games 1000000`.

Game `seed` (`--seed` onwards) plays the configuration `CONFIGURATIONS[seed % len(CONFIGURATIONS)]`: every
level 1-4, player count 2-6 with its armies per player, deployment chosen or random (terrain and whirlpools
drawn from the seed), and uniformly random players, plain or patient (those never stop while they have
another answer: more fighting). Every game runs in compiled code (`engine.random_game`) to the default
`max_turns` (300, BD5), `engine.check_invariants` checked after the setup and after every decision: units
conserved per army until captured or lost, stacks consistent with their units and colours, tokens conserved
between store and armies, no unit on terrain, no surrounded stack left (encirclement applied whenever it
holds), eliminated armies off the board, pawns, two answers or more per decision, units in transit only
during a transfer, no stack taller than 12 units (BD31, rules v1.1).

The run prints a progress line, then a table per configuration (games, decisions, decided, undecided,
violations); it exits with 1 when an invariant breaks, naming the seed and the decision, and
`--replay SEED` replays that game through `Game.new(seed, ...)` and the same answers.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, NamedTuple

import numpy as np

from suntzu_env.binfa import engine
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.layout import STATE_DTYPE, STATE_SIZE
from suntzu_env.binfa.options import Options
from suntzu_env.binfa.playouts import CONFIGS

MAX_TURNS = Options().max_turns  # the default game length (BD5): games as long as users play them


class Configuration(NamedTuple):
    level: int
    players: int
    armies: int
    random_deploy: int
    patient: int

    def options(self) -> dict[str, Any]:
        """The `Game.new` keywords of this configuration."""
        return {
            "level": self.level,
            "players": self.players,
            "armies_per_player": self.armies,
            "deployment": "random" if self.random_deploy else "choose",
        }

    def label(self) -> str:
        deploy = "random" if self.random_deploy else "chosen"
        return f"{self.level} | {self.players} | {self.armies} | {deploy} | {'patient' if self.patient else 'plain'}"


CONFIGURATIONS: tuple[Configuration, ...] = tuple(
    Configuration(level, players, armies, deploy, patient)
    for level in (1, 2, 3, 4)
    for players, armies in CONFIGS
    for deploy in (0, 1)
    for patient in (0, 1)
)
TABLE = np.array(CONFIGURATIONS, dtype=np.int64)
COLUMNS = ("winner", "decisions", "turns", "invariant", "decision")  # a row per game


def configuration(seed: int) -> Configuration:
    """The configuration game `seed` plays."""
    return CONFIGURATIONS[seed % len(CONFIGURATIONS)]


def run_seeds(first: int, n: int, max_turns: int = MAX_TURNS) -> np.ndarray:
    """Rows (`COLUMNS`) of the checked games of seeds first..first+n-1."""
    return engine.random_playouts(n, first, TABLE, max_turns, True)


class Totals:
    """Games, decisions, decided and violations per configuration, and the broken games."""

    def __init__(self) -> None:
        k = len(CONFIGURATIONS)
        self.games = np.zeros(k, dtype=np.int64)
        self.decisions = np.zeros(k, dtype=np.int64)
        self.decided = np.zeros(k, dtype=np.int64)
        self.violations = np.zeros(k, dtype=np.int64)
        self.broken: list[tuple[int, int, int]] = []  # (seed, decision, invariant)

    def add(self, first: int, rows: np.ndarray) -> None:
        k = len(CONFIGURATIONS)
        which = (first + np.arange(len(rows))) % k
        self.games += np.bincount(which, minlength=k)
        self.decisions += np.bincount(which, weights=rows[:, 1], minlength=k).astype(np.int64)
        self.decided += np.bincount(which, weights=rows[:, 0] < 6, minlength=k).astype(np.int64)
        self.violations += np.bincount(which, weights=rows[:, 3] > 0, minlength=k).astype(np.int64)
        for g in np.flatnonzero(rows[:, 3]):
            self.broken.append((first + int(g), int(rows[g, 4]), int(rows[g, 3])))

    def table(self) -> str:
        lines = [
            "| level | players | armies | deployment | players' play | games | decisions | decided | undecided "
            "| violations |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for i, c in enumerate(CONFIGURATIONS):
            if self.games[i]:
                lines.append(
                    f"| {c.label()} | {self.games[i]:,} | {self.decisions[i]:,} | {self.decided[i]:,} "
                    f"| {self.games[i] - self.decided[i]:,} | {self.violations[i]:,} |"
                )
        g, d = int(self.games.sum()), int(self.decided.sum())
        lines.append(
            f"| all | | | | | {g:,} | {int(self.decisions.sum()):,} | {d:,} | {g - d:,} "
            f"| {int(self.violations.sum()):,} |"
        )
        return "\n".join(lines)


def _chunk(args: tuple[int, int, int]) -> tuple[int, np.ndarray, float]:
    first, n, max_turns = args
    start = time.process_time()
    rows = run_seeds(first, n, max_turns)
    return first, rows, time.process_time() - start


def replay(seed: int, max_turns: int = MAX_TURNS) -> tuple[Game, list[int], int, int]:
    """Game `seed` replayed through `Game.new(seed, ...)` and the random players' answers: the game at its
    end (or at the first broken invariant), the answers, the invariant's code (0 none) and the decision."""
    c = configuration(seed)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    legal = np.zeros(engine.LEGAL_CAPACITY, dtype=np.int32)
    spare = np.zeros(engine.LEGAL_CAPACITY, dtype=np.int32)
    actions = np.zeros(100_000, dtype=np.int64)
    _, steps, _, code, at = engine.random_game(
        s, seed, c.level, c.players, c.armies, c.random_deploy, max_turns, True, bool(c.patient), legal, spare, actions
    )
    answers = [int(a) for a in actions[: min(steps, len(actions))]]
    game = Game.new(seed, max_turns=max_turns, **c.options())
    for a in answers:
        game.apply(a)
    return game, answers, int(code), int(at)


def _replay_main(seed: int, max_turns: int) -> int:
    c = configuration(seed)
    game, answers, code, at = replay(seed, max_turns)
    keywords = ", ".join(f"{k}={v!r}" for k, v in c.options().items())
    print(f"game = Game.new({seed}, {keywords}, max_turns={max_turns})")
    print(f"answers ({'patient' if c.patient else 'plain'} random players, {len(answers)}): {answers}")
    again = int(engine.check_invariants(game.state, np.zeros(engine.LEGAL_CAPACITY, dtype=np.int32)))
    if code:
        print(f"invariant broken after decision {at}: {engine.INVARIANTS[code]}")
        print(f"the Game API's replay there: {engine.INVARIANTS.get(again, 'invariants hold')}")
        print(game.render())
        return 1
    print(f"invariants hold through {len(answers)} decisions; winner {game.winner}, turns {game.turns}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.invariants", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games to play (seeds --seed onwards)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed")
    parser.add_argument("--workers", type=int, default=1, help="processes playing at once")
    parser.add_argument("--chunk", type=int, default=1000, help="games per task of a worker")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS, help="turns before a game ends undecided")
    parser.add_argument(
        "--seconds", type=float, help="begin no chunk after this many seconds; the table counts the games played"
    )
    parser.add_argument("--replay", type=int, metavar="SEED", help="replay game SEED through the Game API")
    args = parser.parse_args(argv)
    for name, low in (("games", 1), ("workers", 1), ("chunk", 1), ("seed", 0), ("max_turns", 1)):
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} must be at least {low}, got {getattr(args, name)}")
    if args.replay is not None:
        return _replay_main(args.replay, args.max_turns)
    tasks = [
        (first, min(args.chunk, args.seed + args.games - first), args.max_turns)
        for first in range(args.seed, args.seed + args.games, args.chunk)
    ]
    start = time.perf_counter()
    run_seeds(args.seed, 1, args.max_turns)  # compile (or load the cache) once, before the workers start
    print(f"compiled in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    totals = Totals()
    start = time.perf_counter()
    cpu = 0.0
    last = 0.0
    done: dict[int, tuple[np.ndarray, float]] = {}  # finished chunks, counted in seed order
    counted = 0
    with ProcessPoolExecutor(args.workers) as pool:
        running: set[Future[tuple[int, np.ndarray, float]]] = set()
        submitted = 0
        while counted < len(tasks):
            while (
                submitted < len(tasks)
                and len(running) < 2 * args.workers
                and (args.seconds is None or time.perf_counter() - start < args.seconds)
            ):
                running.add(pool.submit(_chunk, tasks[submitted]))
                submitted += 1
            if not running:
                break  # out of time: every chunk begun is counted
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                first, rows, seconds = future.result()
                done[first] = (rows, seconds)
            while counted < len(tasks) and tasks[counted][0] in done:
                rows, seconds = done.pop(tasks[counted][0])
                totals.add(tasks[counted][0], rows)
                cpu += seconds
                counted += 1
            now = time.perf_counter() - start
            if now - last >= 10 or counted == len(tasks):
                last = now
                games, decisions = int(totals.games.sum()), int(totals.decisions.sum())
                print(
                    f"{games:,}/{args.games:,} games, {decisions:,} decisions, {now:,.0f} s "
                    f"({decisions / max(cpu, 1e-9):,.0f} checked decisions per CPU second), "
                    f"violations {len(totals.broken)}",
                    file=sys.stderr,
                    flush=True,
                )
    wall = time.perf_counter() - start
    games = int(totals.games.sum())
    if games < args.games:
        print(f"out of time (--seconds {args.seconds:g}): {games:,} of {args.games:,} games played")
    print(totals.table())
    decisions = int(totals.decisions.sum())
    print(
        f"{games:,} games (seeds {args.seed}..{args.seed + games - 1}), {decisions:,} "
        f"decisions, max_turns {args.max_turns}, {args.workers} workers: {wall:,.0f} s wall, {cpu:,.0f} CPU s"
    )
    for seed, at, code in totals.broken[:20]:
        c = configuration(seed)
        keywords = ", ".join(f"{k}={v!r}" for k, v in c.options().items())
        print(
            f"VIOLATION game seed {seed} after decision {at}: {engine.INVARIANTS[code]}\n"
            f"  Game.new({seed}, {keywords}, max_turns={args.max_turns}), "
            f"{'patient' if c.patient else 'plain'} random players; "
            f"replay: python -m suntzu_env.binfa.invariants --replay {seed} --max-turns {args.max_turns}"
        )
    return 1 if totals.broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
