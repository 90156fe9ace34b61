"""Combine evaluations played in pieces into one results folder: every pairing's games counted together.

`python -m experiments.combine --results results/a results/b --out results/ladder`

A long pairing (`ismcts` plays about one game every three seconds per core) can be played as several
evaluations over consecutive deck seeds, on other days or machines; since each game depends only on its
deck seed and seats (`experiments.evaluate`), the pieces `--games 1000 --seed 0` and `--games 1000 --seed 500`
are exactly the games of `--games 2000 --seed 0`. Pieces may also hold different pairings: the combined folder
has every pairing met in any of them, with its statistics, the Bradley-Terry ratings fitted to all of them,
and the ladder, in the same files and report as `experiments.evaluate` writes. Folders played under other
options, or playing a game twice, are refused in one line.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.cli import ConfigError, UserError, parse, run_cli
from experiments.evaluate import SEATS, bradley_terry, ladder, publish, summarize
from experiments.game import GAME, describe_options, option_fields

PROG = "python -m experiments.combine"
OPTION_KEYS = tuple(option_fields(GAME.options()))  # the options fields a summary's config holds


@dataclass
class CombineConfig:
    """Combine evaluation results folders (the same options, no game twice) into one, with its report."""

    results: tuple[Path, ...]
    """two or more results folders of python -m experiments.evaluate"""
    out: Path
    """the combined results folder (it must not exist yet)"""

    def __post_init__(self) -> None:
        if len(self.results) < 2:
            raise ConfigError(f"results: needs at least two results folders, got {len(self.results)}")
        if len(set(self.results)) < len(self.results):
            raise ConfigError("results: a folder is named twice")
        if self.out.exists():
            raise ConfigError(f"out: {self.out} exists already; name a new folder")


def _result(winner: str, a_seat: str) -> int:
    return 0 if winner == "draw" else (1 if winner == a_seat else -1)


def read_results(folder: Path) -> tuple[dict[str, Any], list[tuple[str, str, list[dict[str, Any]]]], float]:
    """A results folder's config, its pairings as (a, b, games), each game as `play_games` gives it, and its
    playing time; UserError naming the folder and file that cannot be read."""
    try:
        summary = json.loads((folder / "summary.json").read_text())
        with open(folder / "games.csv", newline="") as f:
            games = list(csv.DictReader(f))
        with open(folder / "games.jsonl") as f:
            records = [json.loads(line)["record"] for line in f if line.strip()]
        config, pairings, seconds = summary["config"], summary["pairings"], float(summary["seconds"])
        if len(records) != len(games):
            raise ValueError(f"games.jsonl holds {len(records)} records for the {len(games)} games of games.csv")
        by_pairing: dict[str, list[dict[str, Any]]] = {}
        for game, record in zip(games, records, strict=True):
            a, _, b = game["pairing"].partition(" vs ")
            if {game[SEATS[0]], game[SEATS[1]]} != {a, b} or game["winner"] not in (*SEATS, "draw"):
                raise ValueError(f"games.csv: a row of {game['pairing']!r} with seats or winner out of place: {game}")
            a_seat = SEATS[0] if game[SEATS[0]] == a else SEATS[1]
            by_pairing.setdefault(game["pairing"], []).append({
                "seed": int(game["seed"]), "a_seat": a_seat, "result": _result(game["winner"], a_seat),
                "winner": game["winner"], "score": int(game["score"]), "decisions": int(game["decisions"]),
                "record": record,
            })  # fmt: skip
        out = [(p["a"], p["b"], by_pairing.pop(f"{p['a']} vs {p['b']}")) for p in pairings]
        if by_pairing:
            raise ValueError(f"games.csv holds games of a pairing summary.json lacks: {next(iter(by_pairing))}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        detail = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise UserError(f"--results {folder}: not a readable results folder of python -m experiments.evaluate "
                        f"({type(error).__name__}: {detail})") from None  # fmt: skip
    return config, out, seconds


def combine(folders: Sequence[Path]) -> dict[str, Any]:
    """The results of every pairing in `folders`, counted together (as `experiments.evaluate.round_robin`
    returns them, with `config["sources"]` naming the folders)."""
    options: dict[str, Any] | None = None
    labels: list[str] = []
    games: dict[frozenset[str], tuple[str, str, dict[tuple[int, str], dict[str, Any]]]] = {}
    seconds = 0.0
    for folder in folders:
        config, pairings, spent = read_results(folder)
        seconds += spent
        these = {k: config.get(k) for k in OPTION_KEYS}
        if options is None:
            options, first = these, folder
        elif these != options:
            raise UserError(f"--results {folder} was played under {describe_options(these)}, {first} under "
                            f"{describe_options(options)}: only games under the same options combine")  # fmt: skip
        for a, b, rows in pairings:
            labels += [label for label in (a, b) if label not in labels]
            key = frozenset((a, b))
            if key not in games:
                games[key] = (a, b, {})
            ours, _, kept = games[key]
            for row in rows:
                seen = row
                if a != ours:  # the pairing the other way round: the same games from the first agent's view
                    row = dict(row, a_seat=SEATS[1 - SEATS.index(row["a_seat"])], result=-row["result"])
                game = (row["seed"], row["a_seat"])
                if game in kept:
                    raise UserError(f"--results {folder}: its game of {a} vs {b} on deck seed {row['seed']} with "
                                    f"{a} as {seen['a_seat']} is counted already")  # fmt: skip
                kept[game] = row
    assert options is not None
    pairings, rows_by_pairing = [], []
    for a, b, kept in games.values():
        rows = [kept[game] for game in sorted(kept, key=lambda g: (g[0], SEATS.index(g[1])))]
        pairings.append({"a": a, "b": b, **summarize(rows)})
        rows_by_pairing.append(rows)
    counts = sorted({p["games"] for p in pairings})
    first_seed = min(p["first_seed"] for p in pairings)
    total = sum(p["games"] for p in pairings)
    return {
        "config": {
            "agents": labels,
            "labels": labels,
            "games_per_pairing": counts[0] if len(counts) == 1 else f"{counts[0]}-{counts[-1]}",
            "seed": first_seed,
            "game_seeds": [first_seed, max(p["last_seed"] for p in pairings)],
            **options,
            "sources": [str(folder) for folder in folders],
        },
        "pairings": pairings,
        "ratings": bradley_terry(labels, pairings),
        "ladder": ladder(pairings),
        "seconds": seconds,
        "games_per_second": total / seconds if seconds > 0 else None,
        "games": rows_by_pairing,
    }


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Combine the folders, write the combined one, print its report."""
    args = parse(CombineConfig, argv, PROG)
    results = combine(args.results)
    publish(results, args.out)
    return results


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), CombineConfig)


if __name__ == "__main__":
    main()
