"""A demo game between two random players: `python -m suntzu_env.demo [--seed N] [--variant V] [--events]`."""

from __future__ import annotations

import argparse
import random

from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.rules import VARIANTS


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="game seed (also seeds the random players)")
    parser.add_argument("--variant", choices=VARIANTS, default="standard", help="rules variant")
    parser.add_argument("--events", action="store_true", help="play with the event cards")
    args = parser.parse_args(argv)
    game = Game.new(args.seed, variant=args.variant, events=args.events)
    rng = random.Random(args.seed)
    while not game.is_terminal:
        game.apply(rng.choice(game.legal_actions()))
    print(game)
    print(f"{len(game.record()['actions'])} decisions; winner: {game.winner}; returns: {game.returns()}")


if __name__ == "__main__":
    main()
