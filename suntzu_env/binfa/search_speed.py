"""The time the search `mcts` takes per decision, on one core: its decisions in games against `heuristic`.

    python -m suntzu_env.binfa.search_speed --games 4                        # level 1, 2 players, the default budget
    python -m suntzu_env.binfa.search_speed --games 2 --level 4 --players 3 --iterations 400

Each decision the search makes after deployment is timed alone, in CPU seconds of this process (`time.process_time`,
so a busy machine's other work is not counted), and the mean, median, 99th percentile and slowest are printed in
milliseconds. Measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from suntzu_env.binfa.agents import AG_HEURISTIC, agent_action, new_scratch
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.layout import DEC_KIND, DK_DEPLOY
from suntzu_env.binfa.search import (
    SEARCH_ITERATIONS,
    SEARCH_ITERATIONS_MANY,
    SearchTree,
    check_iterations,
    default_iterations,
    search,
)
from suntzu_env.core.rng import rng_seed


def decision_times(games: int, iterations: int, level: int = 1, players: int = 2, seed: int = 0) -> np.ndarray:
    """CPU seconds of each decision the search made after deployment in `games` games against `heuristic`
    (the search in seat `g % players` of game g, seed `seed + g`)."""
    tree = SearchTree(iterations)
    scratch = new_scratch()
    times: list[float] = []
    for g in range(games):
        game = Game.new(seed + g, {"level": level, "players": players})
        rng = rng_seed(seed + g)
        mine = g % players
        while not game.is_terminal:
            s, legal, n = game._s, game._legal, game._n
            if game.current_player == mine and s[DEC_KIND] != DK_DEPLOY:
                start = time.process_time()
                a = search(s, legal, n, rng, iterations, tree)
                times.append(time.process_time() - start)
            else:
                a = int(agent_action(AG_HEURISTIC, s, legal, n, rng, scratch))
            game.apply(a)
    return np.array(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.search_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument(
        "--iterations",
        help=f"the search's budget per decision (default: {SEARCH_ITERATIONS} with 2 players, "
        f"{SEARCH_ITERATIONS_MANY} with more)",
    )
    parser.add_argument("--level", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5, 6))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.seed < 2**62:
        print("error: --seed must be 0..2**62-1", file=sys.stderr)
        return 2
    try:
        iterations = default_iterations(args.players) if args.iterations is None else check_iterations(args.iterations)
    except ValueError as error:
        print(f"error: --iterations: {error}", file=sys.stderr)
        return 2
    decision_times(1, iterations, args.level, args.players, args.seed)  # compile (or load the cache) first
    ms = 1000 * decision_times(args.games, iterations, args.level, args.players, args.seed)
    print(
        f"mcts:{iterations}, level {args.level}, {args.players} players, {args.games} games, {len(ms)} decisions: "
        f"{ms.mean():.1f} ms a decision on average, median {np.median(ms):.1f}, 99th percentile "
        f"{np.percentile(ms, 99):.1f}, slowest {ms.max():.1f} (CPU time, one core)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
