"""Games of an evaluation's results folder (`python -m experiments.evaluate`), as records to replay.

The folder holds `summary.json` (the agents and rules) and `games.csv` (one row per game: pairing, deck
seed, the agent in each seat, winner, final marker, decisions) and `games.jsonl` (one
`{"record": Game.record()}` per line, in the rows' order). Games are replayed from those records only, never
played again (that would load the agents summary.json names); a record must end with its row's winner,
marker and number of decisions, or it is refused. Errors name files by the path the page gave, relative to
the folder the app serves.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from agents import short_label
from suntzu_env import Game
from suntzu_env.stats import anchor_note, anchored
from suntzu_env.suntzu_game import SUNTZU

RECORDS_FILE = "games.jsonl"
MAX_PATH = 1000  # characters of a results path given by the page


def resolve(root: Path, path: object) -> Path:
    """A results folder given by the page, inside the folder the app serves (`--root`)."""
    if not isinstance(path, str) or not path:
        raise ValueError("results: give the path of an evaluation's results folder")
    shown = path if len(path) <= 80 else path[:77] + "..."
    if len(path) > MAX_PATH or "\0" in path:
        raise ValueError(f"results: {shown!r} is not a folder's path")
    try:
        folder = (root / path).resolve()
        if not folder.is_relative_to(root.resolve()):
            raise ValueError(f"results: {shown!r} lies outside the folder this app serves (start it with --root)")
        found = (folder / "games.csv").is_file() and (folder / "summary.json").is_file()
    except OSError:
        found = False
    if not found:
        raise ValueError(f"results: {shown!r} is not an evaluation's results folder (no games.csv and summary.json)")
    return folder


def _summary(folder: Path, shown: str) -> dict[str, Any]:
    try:
        summary = json.loads((folder / "summary.json").read_text())
        config = summary["config"]
        labels = dict(zip(config["labels"], config["agents"], strict=True))
        keys = ("a", "b", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high")
        pairings = [{k: p[k] for k in keys} for p in summary.get("pairings", [])]
        ratings = {str(k): float(v) for k, v in summary.get("ratings", {}).items()}
        return {"variant": config["variant"], "events": config["events"], "agents": labels, "pairings": pairings,
                "ratings": ratings}  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise ValueError(f"results: {shown}/summary.json cannot be read: {error}") from None


def list_games(folder: Path, shown: str = ".") -> dict[str, Any]:
    """The folder's rules and its games, one dict per row of games.csv (`game` is the row number); `shown` is
    the folder's path as given, for errors."""
    summary = _summary(folder, shown)
    try:
        with (folder / "games.csv").open(newline="") as f:
            rows = list(csv.DictReader(f))
        games = [
            {
                "game": i,
                "pairing": r["pairing"],
                "seed": int(r["seed"]),
                "blue": r["blue"],
                "red": r["red"],
                "winner": r["winner"],
                "score": int(r["score"]),
                "decisions": int(r["decisions"]),
            }
            for i, r in enumerate(rows)
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"results: {shown}/games.csv cannot be read: {error}") from None
    ratings = anchored(summary["ratings"], SUNTZU.rating_anchor) if summary["ratings"] else {}
    return {
        "variant": summary["variant"],
        "events": summary["events"],
        "games": games,
        "records": (folder / RECORDS_FILE).is_file(),
        "labels": {label: short_label(label) for label in summary["agents"]},  # for reading: the header, tables
        "pairings": summary["pairings"],  # each with its win rate for `a` and Wilson 95% interval
        "ratings": ratings,
        "rating_anchor": anchor_note(ratings, SUNTZU.rating_anchor) if ratings else None,
    }


def game_record(folder: Path, index: object, shown: str = ".") -> tuple[dict[str, Any], str]:
    """The record of row `index` of games.csv (read from games.jsonl), and a title for it."""
    listing = list_games(folder, shown)
    games = listing["games"]
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(games):
        raise ValueError(f"results: game must be a row number in [0, {len(games) - 1}], got {index!r}")
    row = games[index]
    title = f"{short_label(row['blue'])} (blue) vs {short_label(row['red'])} (red), deck seed {row['seed']}"
    title += f": {row['winner']}, marker {row['score']:+d}"
    if not listing["records"]:
        raise ValueError(f"results: {shown} holds no {RECORDS_FILE}, the records its games are replayed from "
                         "(games are not played again: evaluate it again to get them)")  # fmt: skip
    with (folder / RECORDS_FILE).open() as f:
        for i, line in enumerate(f):
            if i == index:
                try:
                    record = json.loads(line)["record"]
                    game = Game.replay(record)
                except (ValueError, KeyError, TypeError, RecursionError) as error:
                    raise ValueError(f"results: {RECORDS_FILE} line {index + 1}: {error}") from None
                _check_row(row, game, len(record["actions"]))
                return record, title
    raise ValueError(f"results: {RECORDS_FILE} has no line {index + 1}")


def _check_row(row: dict[str, Any], game: Game, decisions: int) -> None:
    """The game must end as its games.csv row says."""
    if (game.winner, game.score, decisions) != (row["winner"], row["score"], row["decisions"]):
        raise ValueError(
            f"results: game {row['game']} ends {game.winner} {game.score:+d} after {decisions} decisions, not "
            f"{row['winner']} {row['score']:+d} after {row['decisions']} as recorded in games.csv"
        )
