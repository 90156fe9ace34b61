"""A round robin: every pair of agents over the same deck seeds, with statistics, ratings and the game's ladder."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from experiments.game import DEFAULT, GameLike, game_name, game_of, seats_of
from experiments.matches import Backend, OptionsLike, play_games
from experiments.stats import bradley_terry, headline_field, ladder, summarize


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
    game: GameLike = DEFAULT,
) -> dict[str, Any]:
    """Every pair of agents over the same deck seeds of `game`, under the same options; statistics, ratings, the
    game's ladder. With more than two seats each pair (a, b), a named first, plays a in one seat and copies of b in
    the others; there are no ratings or ladder then (both compare two seats).

    `backend` and `address` choose where the games are played (`play_games`); the results are the same.
    `done` and `on_job` resume an evaluation (`play_games`); `earlier_seconds`: the time its units took before."""
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {list(specs)}")
    labels = labels_for(specs)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    rules = game_of(game)
    options = rules.options(options)
    seats = seats_of(rules, options)
    start = time.perf_counter()
    games_by_pairing = play_games([(specs[i], specs[j]) for i, j in pairs], games, seed, options, workers, progress,
                                  backend=backend, address=address, done=done, on_job=on_job, game=game)  # fmt: skip
    seconds = earlier_seconds + time.perf_counter() - start
    pairings = []
    for (i, j), rows in zip(pairs, games_by_pairing, strict=True):
        pairings.append({"a": labels[i], "b": labels[j], **summarize(rows, seats)})
    ratings, rungs = rated(labels, pairings, len(seats), game)
    total = len(pairs) * games
    return {
        "config": {
            "agents": list(specs),
            "labels": labels,
            "games_per_pairing": games,
            "seed": seed,
            "game_seeds": [seed, seed + games // len(seats) - 1],
            "game": game_name(game),
            **rules.option_fields(options),
            "workers": workers,
            "backend": backend,
        },
        **results(game, pairings, ratings, rungs, seconds, total, games_by_pairing),
    }


def results(
    game: GameLike,
    pairings: list[dict[str, Any]],
    ratings: Any,
    rungs: Any,
    seconds: float,
    total: int,
    games_by_pairing: Any,
) -> dict[str, Any]:
    """A round robin's results after its config, as an evaluation and a combination of evaluations write them."""
    return {
        "pairings": pairings,
        "headline": headline_field(game),
        "ratings": ratings,
        "ladder": rungs,
        "seconds": seconds,
        "games_per_second": total / seconds if seconds > 0 else None,
        "games": games_by_pairing,
    }


def rated(
    labels: Sequence[str], pairings: Sequence[dict[str, Any]], seats: int, game: GameLike = DEFAULT
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The ratings and ladder of the pairings of a game of `seats` seats: with two, Bradley-Terry and the game's
    ladder; with more (a against copies of b) none."""
    if seats != 2:
        return {}, []
    return bradley_terry(labels, pairings, game=game), ladder(pairings, game)
