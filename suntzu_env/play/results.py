"""Games of an evaluation's results folder (`python -m experiments.evaluate`), as records to replay.

The folder holds `summary.json` (the game, its options and the agents) and `games.csv` (one row per game:
pairing, deck seed, the agent in each seat, winner, final marker, decisions) and `games.jsonl` (one
`{"record": ...}` per line, in the rows' order). Any registered game's folder is read through its plug-in
(`suntzu_env.core.games`): its seats, its options described, its replay; the registry's default game when
summary.json names none.
Games are replayed from those records only, never played again (that would load the agents summary.json
names); a record must end with its row's winner, marker and number of decisions, or it is refused. Errors
name files by the path the page gave, relative to the folder the app serves.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from agents import short_label
from suntzu_env.core import games as registry
from suntzu_env.core.protocol import GameRules
from suntzu_env.core.stats import anchor_note, anchored, wilson

RECORDS_FILE = "games.jsonl"
MAX_PATH = 1000  # characters of a results path given by the page
HEADLINES = ("win_rate", "outright_win_rate")  # the rate summary.json's `headline` names (experiments.stats)


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
        name = config.get("game", registry.DEFAULT)
        if name not in registry.names():
            raise ValueError(f"the game {name!r:.40} is not one of {', '.join(registry.names())}")
        rules = registry.game(name)
        fields = {k: config[k] for k in rules.option_fields(rules.options()) if k in config}
        options = rules.options(fields)
        labels = dict(zip(config["labels"], config["agents"], strict=True))
        pairings = summary.get("pairings", [])
        headline = summary.get("headline")
        if headline is None:  # a summary written before the field: the outright rate where the game has it
            outright = rules.no_winner == "undecided" and all("outright_win_rate" in p for p in pairings)
            headline = HEADLINES[1] if outright else HEADLINES[0]
        if headline not in HEADLINES:
            raise ValueError(f"headline must be one of {', '.join(HEADLINES)}, got {headline!r:.40}")
        ratings = {str(k): float(v) for k, v in summary.get("ratings", {}).items()}
        return {"rules": rules, "fields": rules.option_fields(options), "seats": list(rules.seats_of(options)),
                "agents": labels, "pairings": [_pairing(p, headline) for p in pairings], "ratings": ratings,
                "headline": headline}  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise ValueError(f"results: {shown}/summary.json cannot be read: {error}") from None


def _pairing(p: dict[str, Any], headline: str) -> dict[str, Any]:
    """A pairing of summary.json with its headline rate (`rate`, `rate_low`, `rate_high`, a's) and the same for b
    against a (`b_rate`, ...): the win rate draws half flips to 1 - rate, the outright rate to b's wins, a's
    losses over the games (an undecided game is a win of neither)."""
    keys = ("a", "b", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high")
    out = {k: p[k] for k in keys}
    if headline == "win_rate":
        rate, low, high = p["win_rate"], p["ci_low"], p["ci_high"]
        b_rate, b_low, b_high = 1 - rate, 1 - high, 1 - low
    else:
        rate, low, high = p["outright_win_rate"], p["outright_ci_low"], p["outright_ci_high"]
        games, losses = int(p["games"]), int(p["losses"])
        b_rate, (b_low, b_high) = (losses / games if games else 0.0), wilson(losses, games)
    rates = {"rate": rate, "rate_low": low, "rate_high": high, "b_rate": b_rate, "b_rate_low": b_low,
             "b_rate_high": b_high}  # fmt: skip
    return {**out, **{k: float(v) for k, v in rates.items()}}


def folder_game(folder: Path, shown: str = ".") -> str:
    """The registered name of the game a results folder holds, as its summary.json says."""
    return str(_summary(folder, shown)["rules"].name)


def list_games(folder: Path, shown: str = ".") -> dict[str, Any]:
    """The folder's game, options and games, one dict per row of games.csv (`game` is the row number, `players`
    each seat's agent in the order of `seats`); `shown` is the folder's path as given, for errors."""
    summary = _summary(folder, shown)
    rules: GameRules[Any] = summary["rules"]
    seats = summary["seats"]
    try:
        with (folder / "games.csv").open(newline="") as f:
            rows = list(csv.DictReader(f))
        games = [
            {
                "game": i,
                "pairing": r["pairing"],
                "seed": int(r["seed"]),
                "players": [r[seat] for seat in seats],
                "winner": r["winner"],
                "score": int(r["score"]),
                "decisions": int(r["decisions"]),
            }
            for i, r in enumerate(rows)
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"results: {shown}/games.csv cannot be read: {error}") from None
    ratings = anchored(summary["ratings"], rules.rating_anchor) if summary["ratings"] else {}
    return {
        "game_name": rules.name,
        "about": rules.describe_options(summary["fields"]),
        **summary["fields"],  # Sun Tzu's `variant` and `events`, Bin'Fa's `level`, `players`, ...
        "seats": seats,
        "games": games,
        "records": (folder / RECORDS_FILE).is_file(),
        "labels": {label: short_label(label) for label in summary["agents"]},  # for reading: the header, tables
        "headline": summary["headline"],  # the rate to lead with: `outright_win_rate` where no winner is undecided
        "no_winner": rules.no_winner,  # what a game without a winner is: "draw" or "undecided"
        "pairings": summary["pairings"],  # each with a's and b's headline rate (`rate`, `b_rate`) and Wilson 95%
        "ratings": ratings,
        "rating_anchor": anchor_note(ratings, rules.rating_anchor) if ratings else None,
    }


def game_record(folder: Path, index: object, shown: str = ".") -> tuple[str, dict[str, Any], str]:
    """The game's name, the record of row `index` of games.csv (read from games.jsonl), and a title for it."""
    listing = list_games(folder, shown)
    games = listing["games"]
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(games):
        raise ValueError(f"results: game must be a row number in [0, {len(games) - 1}], got {index!r}")
    row = games[index]
    rules = registry.game(listing["game_name"])
    title = " vs ".join(f"{short_label(agent)} ({seat})" for seat, agent in zip(listing["seats"], row["players"],
                                                                                strict=True))  # fmt: skip
    title += f", deck seed {row['seed']}: {row['winner']}, marker {row['score']:+d}"
    if not listing["records"]:
        raise ValueError(f"results: {shown} holds no {RECORDS_FILE}, the records its games are replayed from "
                         "(games are not played again: evaluate it again to get them)")  # fmt: skip
    with (folder / RECORDS_FILE).open() as f:
        for i, line in enumerate(f):
            if i == index:
                try:
                    record = json.loads(line)["record"]
                    game = rules.replay(record)
                except (ValueError, KeyError, TypeError, RecursionError) as error:
                    raise ValueError(f"results: {RECORDS_FILE} line {index + 1}: {error}") from None
                _check_row(row, game.winner, game.score, len(record["actions"]))
                return rules.name, record, title
    raise ValueError(f"results: {RECORDS_FILE} has no line {index + 1}")


def _check_row(row: dict[str, Any], winner: str | None, score: int, decisions: int) -> None:
    """The game must end as its games.csv row says."""
    if (winner, score, decisions) != (row["winner"], row["score"], row["decisions"]):
        raise ValueError(
            f"results: game {row['game']} ends {winner} {score:+d} after {decisions} decisions, not "
            f"{row['winner']} {row['score']:+d} after {row['decisions']} as recorded in games.csv"
        )
