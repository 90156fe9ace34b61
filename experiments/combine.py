"""Combine evaluations played in pieces into one results folder: every pairing's games counted together.

`python -m experiments.combine --results results/a results/b --out results/ladder`

A long pairing (a searching agent may play a game every few seconds per core) can be played as several
evaluations over consecutive deck seeds, on other days or machines; since each game depends only on its
deck seed and seats (`experiments.evaluate`), the pieces `--games 1000 --seed 0` and `--games 1000 --seed 500`
are exactly the games of `--games 2000 --seed 0`. Pieces may also hold different pairings: the combined folder
has every pairing met in any of them, with its statistics, the Bradley-Terry ratings fitted to all of them,
and the ladder, in the same files and report as `experiments.evaluate` writes. Folders of another game or
played under other options, or playing a game twice, are refused in one line. With more than two seats a
pairing (a, b) is a in one seat against copies of b, another pairing than (b, a). The game is the one the folders
name (a game of one's own code, `<module>:<attribute>`, is imported only when `--game` names it too).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.cli import ConfigError, UserError, parse, run_cli
from experiments.game import DEFAULT, describe, game_name, option_keys, saved_game, seats_of
from experiments.matches import BadGame, check_record, decoded, parse_json, record_rules, result_of
from experiments.reports import publish
from experiments.round_robin import rated, results
from experiments.stats import summarize
from suntzu_env.core.protocol import GameRules

PROG = "python -m experiments.combine"


@dataclass
class CombineConfig:
    """Combine evaluation results folders (the same options, no game twice) into one, with its report."""

    results: tuple[Path, ...]
    """two or more results folders of python -m experiments.evaluate"""
    out: Path
    """the combined results folder (it must not exist yet)"""
    game: str | None = None
    """the game of the folders when it is one of your own code (<module>:<attribute>); registered games need none"""

    def __post_init__(self) -> None:
        if len(self.results) < 2:
            raise ConfigError(f"results: needs at least two results folders, got {len(self.results)}")
        if len(set(self.results)) < len(self.results):
            raise ConfigError("results: a folder is named twice")
        if self.out.exists():
            raise ConfigError(f"out: {self.out} exists already; name a new folder")


class _Bad(Exception):
    """A problem of a results folder: the file, the line (None: the whole file), the field and what is wrong."""

    def __init__(self, path: Path, line: int | None, field: str, what: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {field}: {what}")


def _json(path: Path, line: int | None, data: bytes | str) -> Any:
    try:
        return parse_json(data)
    except BadGame as bad:
        raise _Bad(path, line, bad.field, bad.what) from None


def _text(path: Path) -> str:
    """A file of the folder as UTF-8 text."""
    try:
        return decoded(path.read_bytes())
    except BadGame as bad:
        raise _Bad(path, None, bad.field, bad.what) from None


def _number(value: Any, path: Path, line: int | None, field: str, low: float = 0.0, high: float = 1e12) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise _Bad(path, line, field, f"expected a number in [{low:g}, {high:g}], got {str(value)[:60]!r}")
    return float(value)


def _integer(text: str | None, path: Path, line: int, field: str, low: int | None = None) -> int:
    try:
        value = int(text or "")
    except ValueError:
        raise _Bad(path, line, field, f"expected a whole number, got {str(text)[:60]!r}") from None
    if low is not None and value < low:
        raise _Bad(path, line, field, f"expected a whole number >= {low}, got {value}")
    return value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _check_config(
    summary: Any, path: Path, given: str | None
) -> tuple[GameRules[Any], dict[str, Any], list[dict[str, Any]], float, dict[str, Any]]:
    """summary.json checked as a whole: its config (labels, the game and its options), pairings and seconds."""
    if not isinstance(summary, dict):
        raise _Bad(path, None, "(the file)", f"expected a JSON object, got {type(summary).__name__}")
    for key in ("config", "pairings", "seconds"):
        if key not in summary:
            raise _Bad(path, None, key, "missing")
    config, pairings = summary["config"], summary["pairings"]
    if not isinstance(config, dict):
        raise _Bad(path, None, "config", f"expected a JSON object, got {str(config)[:60]!r}")
    labels = config.get("labels")
    if not (isinstance(labels, list) and len(labels) >= 2 and all(isinstance(x, str) and x for x in labels)):
        raise _Bad(path, None, "config.labels", f"expected two or more agent names, got {str(labels)[:60]!r}")
    if len(set(labels)) < len(labels):
        raise _Bad(path, None, "config.labels", "a name is given twice")
    if not isinstance(config.get("game", DEFAULT), str):
        raise _Bad(path, None, "config.game", f"expected a game's name, got {str(config.get('game'))[:60]!r}")
    rules = saved_game(config.get("game"), str(path), given)
    keys = option_keys(rules)
    for key in keys:
        if key not in config:
            raise _Bad(path, None, f"config.{key}", "missing")
    try:
        options = rules.options(**{k: _tuples(config[k]) for k in keys})
    except (TypeError, ValueError) as error:
        head = re.match(r"[a-z_]+(\[\d+\])?", str(error))  # the messages begin with the field they are about
        field = head.group(0) if head and head.group(0).partition("[")[0] in keys else "options"
        raise _Bad(path, None, f"config.{field}", str(error)) from None
    if not isinstance(pairings, list) or not pairings:
        raise _Bad(path, None, "pairings", "expected a list of the pairings")
    for i, pairing in enumerate(pairings):
        if not isinstance(pairing, dict):
            raise _Bad(path, None, f"pairings[{i}]", "expected a JSON object")
        for side in ("a", "b"):
            if pairing.get(side) not in labels:
                raise _Bad(path, None, f"pairings[{i}].{side}", f"not one of config.labels: {pairing.get(side)!r}")
    seconds = _number(summary["seconds"], path, None, "seconds")
    return rules, config, pairings, seconds, rules.option_fields(options)


def read_results(
    folder: Path, given: str | None = None
) -> tuple[dict[str, Any], list[tuple[str, str, list[dict[str, Any]]]], float]:
    """A results folder's config, its pairings as (a, b, games), each game as `play_games` gives it, and its
    playing time. Everything is checked before it counts: summary.json as a whole, every row of games.csv, and
    every record of games.jsonl replayed to the game its row reports. A problem is a UserError naming the
    file, the line and the field."""
    try:
        return _read_results(folder, given)
    except _Bad as bad:
        raise UserError(f"--results {folder}: {bad}") from None
    except OSError as error:
        raise UserError(f"--results {folder}: not a readable results folder of python -m experiments.evaluate "
                        f"({error.strerror or error}: {error.filename})") from None  # fmt: skip


def _read_results(
    folder: Path, given: str | None
) -> tuple[dict[str, Any], list[tuple[str, str, list[dict[str, Any]]]], float]:
    path = folder / "summary.json"
    game, config, pairings, seconds, options = _check_config(_json(path, None, path.read_bytes()), path, given)
    played_under = game.options(**{k: _tuples(v) for k, v in options.items()})
    seats = seats_of(game, played_under)
    rules = record_rules(game, played_under)
    names = {f"{p['a']} vs {p['b']}": p for p in pairings}
    csv_path, jsonl_path = folder / "games.csv", folder / "games.jsonl"
    reader = csv.DictReader(io.StringIO(_text(csv_path), newline=""))
    try:
        missing = [k for k in ("pairing", "seed", *seats, "winner", "score", "decisions") if k not in
                   (reader.fieldnames or [])]  # fmt: skip
        if missing:
            raise _Bad(csv_path, 1, missing[0], "missing from the header")
        games = list(reader)
    except csv.Error as error:  # a field longer than the csv module reads, say
        raise _Bad(csv_path, reader.reader.line_num, "(the text)", f"not CSV ({error})") from None
    lines = _text(jsonl_path).splitlines()
    if len(lines) != len(games):
        raise _Bad(jsonl_path, None, "(the lines)", f"{len(lines)} records for the {len(games)} games of games.csv")
    by_pairing: dict[str, list[dict[str, Any]]] = {}
    for i, (row, text) in enumerate(zip(games, lines, strict=True)):
        row_line, line = i + 2, i + 1  # games.csv has its header first
        name = row["pairing"]
        if name not in names:
            raise _Bad(csv_path, row_line, "pairing", f"{name!r} is not a pairing of summary.json")
        a, b = names[name]["a"], names[name]["b"]
        if len(seats) == 2 and {row[seats[0]], row[seats[1]]} != {a, b}:
            raise _Bad(csv_path, row_line, seats[0], f"the seats of {name!r} must hold {a} and {b}")
        if sorted(row[seat] == a for seat in seats) != [False] * (len(seats) - 1) + [True] or \
                any(row[seat] not in (a, b) for seat in seats):  # fmt: skip
            raise _Bad(csv_path, row_line, seats[0], f"the seats of {name!r} must hold {a} in one and {b} in the "
                       "others")  # fmt: skip
        if row["winner"] not in (*seats, "draw"):
            raise _Bad(csv_path, row_line, "winner", f"expected {', '.join(seats)} or draw, got {row['winner']!r}")
        seed = _integer(row["seed"], csv_path, row_line, "seed", 0)
        score = _integer(row["score"], csv_path, row_line, "score")
        decisions = _integer(row["decisions"], csv_path, row_line, "decisions", 0)
        entry = _json(jsonl_path, line, text)
        record = entry.get("record") if isinstance(entry, dict) else None
        if not isinstance(record, dict):
            raise _Bad(jsonl_path, line, "record", 'expected an object {"record": {...}}')
        try:
            check_record(game, record, rules, seed, row["winner"], score, decisions, row="games.csv")
        except BadGame as bad:
            raise _Bad(jsonl_path, line, bad.field, bad.what) from None
        a_seat = next(seat for seat in seats if row[seat] == a)
        by_pairing.setdefault(name, []).append({
            "seed": seed, "a_seat": a_seat, "result": result_of(row["winner"], a_seat), "winner": row["winner"],
            "score": score, "decisions": decisions, "record": record,
        })  # fmt: skip
    for name in names:
        if name not in by_pairing:
            raise _Bad(csv_path, None, "pairing", f"no games of {name!r}, a pairing of summary.json")
    return config, [(p["a"], p["b"], by_pairing[f"{p['a']} vs {p['b']}"]) for p in pairings], seconds


def combine(folders: Sequence[Path], given: str | None = None) -> dict[str, Any]:
    """The results of every pairing in `folders`, counted together (as `experiments.evaluate.round_robin`
    returns them, with `config["sources"]` naming the folders); `given`: a `--game` named on the command line."""
    options: dict[str, Any] | None = None
    game: GameRules[Any] | None = None
    labels: list[str] = []
    games: dict[frozenset[str] | tuple[str, str], tuple[str, str, dict[tuple[int, str], dict[str, Any]]]] = {}
    seconds = 0.0
    for folder in folders:
        config, pairings, spent = read_results(folder, given)
        seconds += spent
        rules = saved_game(config.get("game"), str(folder), given)
        these = {k: config.get(k) for k in option_keys(rules)}
        if game is None or options is None:
            game, options, first = rules, these, folder
        elif rules is not game:
            raise UserError(f"--results {folder} is of the game {game_name(rules)}, {first} of {game_name(game)}: "
                            "only games of the same game combine")  # fmt: skip
        elif these != options:
            raise UserError(f"--results {folder} was played under {describe(game, these)}, {first} under "
                            f"{describe(game, options)}: only games under the same options combine")  # fmt: skip
        seats = seats_of(rules, {k: _tuples(v) for k, v in these.items()})
        for a, b, rows in pairings:
            labels += [label for label in (a, b) if label not in labels]
            key = frozenset((a, b)) if len(seats) == 2 else (a, b)  # with more seats, (b, a) is another pairing
            if key not in games:
                games[key] = (a, b, {})
            ours, _, kept = games[key]
            for row in rows:
                seen = row
                if a != ours:  # the pairing the other way round: the same games from the first agent's view
                    row = dict(row, a_seat=seats[1 - seats.index(row["a_seat"])], result=-row["result"])
                played = (row["seed"], row["a_seat"])
                if played in kept:
                    raise UserError(f"--results {folder}: its game of {a} vs {b} on deck seed {row['seed']} with "
                                    f"{a} as {seen['a_seat']} is counted already")  # fmt: skip
                kept[played] = row
    assert options is not None and game is not None
    seats = seats_of(game, {k: _tuples(v) for k, v in options.items()})
    pairings, rows_by_pairing = [], []
    for a, b, kept in games.values():
        rows = [kept[g] for g in sorted(kept, key=lambda g: (g[0], seats.index(g[1])))]
        pairings.append({"a": a, "b": b, **summarize(rows, seats)})
        rows_by_pairing.append(rows)
    counts = sorted({p["games"] for p in pairings})
    first_seed = min(p["first_seed"] for p in pairings)
    total = sum(p["games"] for p in pairings)
    ratings, rungs = rated(labels, pairings, len(seats), game)
    return {
        "config": {
            "agents": labels,
            "labels": labels,
            "games_per_pairing": counts[0] if len(counts) == 1 else f"{counts[0]}-{counts[-1]}",
            "seed": first_seed,
            "game_seeds": [first_seed, max(p["last_seed"] for p in pairings)],
            "game": game_name(game),
            **options,
            "sources": [str(folder) for folder in folders],
        },
        **results(game, pairings, ratings, rungs, seconds, total, rows_by_pairing),
    }


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Combine the folders, write the combined one, print its report."""
    args = parse(CombineConfig, argv, PROG)
    results = combine(args.results, args.game)
    publish(results, args.out)
    return results


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), CombineConfig)


if __name__ == "__main__":
    main()
