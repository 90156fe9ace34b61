"""Compiled random playouts of Bin'Fa: speed (decisions per second on one core) and invariant sweeps.

    python -m suntzu_env.binfa.playouts --games 2000                 # level 1, 2 players: decisions/s
    python -m suntzu_env.binfa.playouts --sweep --games 1000 --check # every level and player count

The invariants over a million games, every configuration spread by seed: `python -m suntzu_env.binfa.invariants`.

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from suntzu_env.binfa.engine import INVARIANTS, random_playouts

CONFIGS = ((2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (2, 3), (3, 2))  # (players, armies per player)


def play(
    games: int,
    seed: int = 0,
    level: int = 1,
    players: int = 2,
    armies: int = 1,
    *,
    random_deploy: bool = False,
    max_turns: int = 300,
    check: bool = False,
    patient: bool = False,
) -> np.ndarray:
    """Rows per game: winner (6 undecided), decisions, turns, first broken invariant (0 none), the decision
    after which it broke (-1 none)."""
    configuration = np.array([[level, players, armies, int(random_deploy), int(patient)]], dtype=np.int64)
    return random_playouts(games, seed, configuration, max_turns, check)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.playouts", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5, 6))
    parser.add_argument("--sweep", action="store_true", help="every level, player count and army count")
    parser.add_argument("--check", action="store_true", help="check the invariants after every decision")
    args = parser.parse_args(argv)
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    play(2, 0, args.level, args.players, check=args.check)  # compile (or load the cache) first
    runs = [(args.level, args.players, 1)]
    if args.sweep:
        runs = [(lv, p, a) for lv in (1, 2, 3, 4) for p, a in CONFIGS]
    broken = 0
    for level, players, armies in runs:
        for patient in (False, True) if args.check else (False,):
            start, cpu = time.perf_counter(), time.process_time()
            out = play(args.games, args.seed, level, players, armies, check=args.check, patient=patient)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            decisions = int(out[:, 1].sum())
            bad = np.flatnonzero(out[:, 3])
            broken += len(bad)
            print(
                f"level {level} players {players} armies {armies}{' patient' if patient else ''}: "
                f"{args.games} games, {decisions} decisions in {seconds:.2f} s = "
                f"{decisions / seconds:,.0f} decisions/s ({decisions / cpu:,.0f} per CPU second), "
                f"decided {(out[:, 0] < 6).mean():.1%}"
                + (f", invariants broken in {len(bad)} games" if args.check else "")
            )
            for g in bad[:3]:
                print(f"  game seed {args.seed + g}, decision {out[g, 4]}: {INVARIANTS[int(out[g, 3])]}")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
