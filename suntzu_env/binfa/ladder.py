"""A ladder between Bin'Fa's compiled agents: seat-balanced games, each seed played from both seats.

    python -m suntzu_env.binfa.ladder --games 2000                  # greedy against random, level 1, 2 players
    python -m suntzu_env.binfa.ladder --a greedy --b greedy --level 3

Game 2k and 2k + 1 share a seed, with the seats swapped. It prints the games `a` won, left undecided (stopped at
max_turns, BD5, or everybody out at once, BD21) and lost, side by side, and its outright win rate, won / games,
with its Wilson 95% interval: an undecided game is no part of a win. The score (undecided = ½) follows it,
the measure of the ladder's bars (`suntzu_env.binfa.plugin.LADDER`).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from suntzu_env.binfa.agents import AGENTS, WEIGHTS, play_games
from suntzu_env.binfa.layout import UNDECIDED
from suntzu_env.core.stats import wilson


def ladder(
    a: str, b: str, games: int, seed: int = 0, level: int = 1, max_turns: int = 300, weights: np.ndarray = WEIGHTS
) -> dict[str, float]:
    """`a` against `b` over `games` two-player games (an even number is seat-balanced): the wins, undecided games
    and losses of `a`, its outright win rate (wins / games) with its Wilson 95% interval (`ci_low`, `ci_high`),
    and its score (wins + undecided / 2, over games); `weights` as `agents.WEIGHTS`."""
    for name in (a, b):
        if name not in AGENTS:
            raise ValueError(f"unknown agent {name!r}: agents are {', '.join(AGENTS)}")
    g = np.arange(games, dtype=np.int64)
    seeds = seed + g // 2
    a_seat = g % 2
    seat_agents = np.where(a_seat[:, None] == np.arange(2)[None, :], AGENTS.index(a), AGENTS.index(b))
    agent_seeds = np.stack([seed * 7919 + 2 * g, seed * 7919 + 2 * g + 1], axis=1).astype(np.int64)
    out = play_games(seeds, seat_agents.astype(np.int64), agent_seeds, level, 2, 1, 0, max_turns, weights)
    wins = int((out[:, 0] == a_seat).sum())
    undecided = int((out[:, 0] == UNDECIDED).sum())
    losses = games - wins - undecided
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "losses": losses,
        "undecided": undecided,
        "win_rate": wins / games,
        "ci_low": low,
        "ci_high": high,
        "score": (wins + undecided / 2) / games,
        "decisions": int(out[:, 1].sum()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.ladder", description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="greedy", help=f"one of {', '.join(AGENTS)}")
    parser.add_argument("--b", default="random", help=f"one of {', '.join(AGENTS)}")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--max-turns", type=int, default=300)
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        print("error: --games must be an even number >= 2 (seat-balanced pairs)", file=sys.stderr)
        return 2
    if args.a not in AGENTS or args.b not in AGENTS:
        print(f"error: agents are {', '.join(AGENTS)}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    r = ladder(args.a, args.b, args.games, args.seed, args.level, args.max_turns)
    seconds = time.perf_counter() - start
    print(
        f"{args.a} vs {args.b}, level {args.level}, 2 players, {r['games']} games: {r['wins']} won, "
        f"{r['undecided']} undecided, {r['losses']} lost; won {100 * r['win_rate']:.1f}% "
        f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] outright, score (undecided = ½) {r['score']:.1%} "
        f"({r['decisions']} decisions in {seconds:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
