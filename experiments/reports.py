"""An evaluation's results: its folder (written whole), its heatmap and its printed report.

| file           | what                                                                                |
|----------------|-------------------------------------------------------------------------------------|
| `summary.json` | the configuration (the game and its options), every pairing's statistics, ratings, ladder, timing |
| `pairings.csv` | one row per pairing                                                                 |
| `games.csv`    | every game: pairing, seed, the agent in each seat, winner, final marker, decisions  |
| `games.jsonl`  | every game's record, in `games.csv`'s order (the game's `replay` reads each)        |
| `heatmap.png`  | the win-rate matrix with its intervals                                              |

The report leads with the game's headline (`experiments.stats.headline`): the win rate counting a draw half,
or, where a game without a winner is undecided (`GameRules.no_winner`), the outright win rate (won / games)
beside the games won, undecided and lost, the score counting undecided games half (1/n) in a column of its own.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.cli import UserError
from experiments.game import DEFAULT, config_seats, describe, game_of
from experiments.partial import Partial
from experiments.runs import save_atomic, write_json
from experiments.stats import anchored, headline, oriented, ratings_note, undecided
from suntzu_env.core.files import write_atomic


def write_results(
    results: dict[str, Any], out_dir: str | Path, partial: Partial | None = None, overwrite: bool = False
) -> Path:
    """summary.json, pairings.csv, games.csv, games.jsonl (each game's record, in games.csv's order) and
    heatmap.png in `out_dir`.

    The folder is filled aside (in `partial`'s folder, or a new one) and renamed into place whole, so that it
    appears complete or not at all; an existing `out_dir` is replaced only with `overwrite` (FileExistsError).
    """
    out = Path(out_dir)
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists already")
    if partial is None:
        partial = Partial(out, {})
        partial.start()
    folder = partial.folder
    seats = config_seats(results["config"].get("game", DEFAULT), results["config"])
    try:
        summary = {k: v for k, v in results.items() if k != "games"}
        write_json(folder / "summary.json", summary)
        write_atomic(folder / "pairings.csv", _csv(list(results["pairings"][0]), results["pairings"]))
        games = []
        for pairing, rows in zip(results["pairings"], results["games"], strict=True):
            for r in rows:
                games.append(
                    {
                        "pairing": f"{pairing['a']} vs {pairing['b']}",
                        "seed": r["seed"],
                        **{seat: pairing["a"] if seat == r["a_seat"] else pairing["b"] for seat in seats},
                        "winner": r["winner"],
                        "score": r["score"],
                        "decisions": r["decisions"],
                    }
                )
        write_atomic(folder / "games.csv", _csv(["pairing", "seed", *seats, "winner", "score", "decisions"], games))
        records = [json.dumps({"record": r["record"]}) for rows in results["games"] for r in rows]
        write_atomic(folder / "games.jsonl", "".join(line + "\n" for line in records))  # the game's replay reads each
        plot_heatmap(results, folder / "heatmap.png")
    except BaseException:
        if partial.what == {}:  # nothing to resume: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return partial.finish(overwrite)


def _csv(fields: list[str], rows: Sequence[dict[str, Any]]) -> str:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue()


def plot_heatmap(results: dict[str, Any], path: str | Path) -> None:
    """The pairings' heatmap (`heatmap_figure`) as a PNG at `path`."""
    fig = heatmap_figure(results)
    save_atomic(path, lambda f: fig.savefig(f, format="png", dpi=120))
    import matplotlib.pyplot as plt

    plt.close(fig)


def heatmap_figure(results: dict[str, Any]) -> Any:
    """Row agent's headline rate against the column agent (`headline`), annotated with its Wilson 95% interval
    (and, where games without a winner are undecided, their share)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = results["config"]["labels"]
    rules = game_of(results["config"].get("game", DEFAULT))
    seats = len(config_seats(rules, results["config"]))
    n = len(labels)
    rate = np.full((n, n), np.nan)
    text = [[""] * n for _ in range(n)]
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            p = oriented(results["pairings"], a, b, seats == 2) if i != j else None
            if p is not None:
                rate[i, j], low, high = headline(p, rules)
                text[i][j] = f"{100 * rate[i, j]:.1f}%\n[{100 * low:.1f}, {100 * high:.1f}]"
                if undecided(rules):
                    text[i][j] += f"\n{100 * p['draws'] / max(1, p['games']):.0f}% undecided"
    fig, ax = plt.subplots(figsize=(1.9 * n + 2.5, 1.5 * n + 1.8))
    image = ax.imshow(np.ma.masked_invalid(rate), cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_facecolor("0.85")
    for i in range(n):
        for j in range(n):
            if text[i][j]:
                dark = abs(rate[i, j] - 0.5) > 0.3
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=9, color="white" if dark else "black")
    shown = [rules.short_label(label) for label in labels]
    ax.set_xticks(range(n), shown, rotation=30, ha="right")
    ax.set_yticks(range(n), shown)
    cfg = results["config"]
    if undecided(rules):
        ax.set_xlabel("opponent" if seats == 2 else f"opponent ({seats - 1} copies)")
        title = "games won outright (an undecided game is no part of a win), Wilson 95%"
        if seats > 2:
            title += f"; a seat's share {100 / seats:.0f}%"
    elif seats == 2:
        ax.set_xlabel("opponent")
        title = "win rate (draws half), Wilson 95%"
    else:
        ax.set_xlabel(f"opponent ({seats - 1} copies)")
        title = f"win rate in {seats} seats (draws 1/{seats}; an even share {100 / seats:.0f}%), Wilson 95%"
    ax.set_ylabel("agent")
    width = max(30, int(fig.get_figwidth() * 8))  # characters a line of the title holds at its font size
    lines = [*textwrap.wrap(title, width), f"{cfg['games_per_pairing']} games per pairing, seed {cfg['seed']}"]
    ax.set_title("\n".join(lines))
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


def report(results: dict[str, Any]) -> str:
    """The printed summary: pairings, ratings, the ladder."""
    cfg = results["config"]
    rules = game_of(cfg.get("game", DEFAULT))
    seats = config_seats(rules, cfg)
    if len(seats) != 2:
        return _report_seats(results, seats)
    shown = {label: rules.short_label(label, 24) for label in cfg["labels"]}
    names = [f"{shown[p['a']]} vs {shown[p['b']]}" for p in results["pairings"]]
    width = max([28, *map(len, names)])
    lines = [
        f"round robin: {len(cfg['labels'])} agents, {cfg['games_per_pairing']} games per pairing "
        f"(deck seeds {cfg['game_seeds'][0]}..{cfg['game_seeds'][1]}, both seats), {describe(rules, cfg)}",
    ]
    if undecided(rules):
        lines += _outright_table(results["pairings"], names, width, seats)
    else:
        lines.append(f"{'pairing':<{width}} {'W':>5} {'D':>4} {'L':>5}  {'win rate':>8}  {'95% CI':<16} "
                     + " ".join(f"{'as ' + seat:>7}" for seat in seats))  # fmt: skip
        for name, p in zip(names, results["pairings"], strict=True):
            lines.append(
                f"{name:<{width}} {p['wins']:>5} {p['draws']:>4} {p['losses']:>5}  "
                f"{100 * p['win_rate']:>7.1f}%  [{100 * p['ci_low']:5.1f}, {100 * p['ci_high']:5.1f}]   "
                + " ".join(f"{100 * p[f'{seat}_win_rate']:>6.1f}%" for seat in seats)
            )
    ratings = anchored(results["ratings"], rules)  # a folder written before ratings were anchored reads the same
    ranked = sorted(ratings.items(), key=lambda kv: -kv[1])
    lines.append(f"ratings ({ratings_note(ratings, rules)}): "
                 + ", ".join(f"{shown.get(k, k)} {v:+.0f}" for k, v in ranked))  # fmt: skip
    if any(shown[label] != label for label in cfg["labels"]):
        lines.append("agents: " + "; ".join(f"{shown[label]} = {label}" for label in cfg["labels"]
                                            if shown[label] != label))  # fmt: skip
    for rung in results["ladder"]:
        verdict = "PASS" if rung["passed"] else "FAIL"
        if undecided(rules):
            lines.append(
                f"ladder: {rung['a']} over {rung['b']}: {rung['wins']} won, {rung['draws']} undecided, "
                f"{rung['losses']} lost of {rung['games']}; outright {_rate(rung, 'outright_')}; score "
                f"(undecided = ½) {_rate(rung)} against the bar {100 * rung['bar']:.0f}%: {verdict}"
            )
        else:
            lines.append(
                f"ladder: {rung['a']} beats {rung['b']} {100 * rung['win_rate']:.1f}% "
                f"[{100 * rung['ci_low']:.1f}, {100 * rung['ci_high']:.1f}] over {rung['games']} games "
                f"(bar {100 * rung['bar']:.0f}%): {verdict}"
            )
    lines.append(_time(results))
    return "\n".join(lines)


def _rate(p: dict[str, Any], prefix: str = "") -> str:
    """A rate of a pairing with its Wilson 95% interval: `win_rate` or (`prefix` "outright_") the outright one."""
    return f"{100 * p[f'{prefix}win_rate']:.1f}% [{100 * p[f'{prefix}ci_low']:.1f}, {100 * p[f'{prefix}ci_high']:.1f}]"


def _outright_table(
    pairings: Sequence[dict[str, Any]], names: Sequence[str], width: int, seats: Sequence[str]
) -> list[str]:
    """The pairings of a game whose games without a winner are undecided: won, undecided and lost side by side,
    the outright win rate with its interval, the score counting an undecided game 1/n, the outright rate per seat;
    with more than two seats the seat's share 1/n and the share of undecided games too."""
    n = len(seats)
    share = "½" if n == 2 else f"1/{n}"
    per_seat = max(11, *(len(seat) + 3 for seat in seats))
    lines = [
        f"outright: won / games with its Wilson 95% interval (an undecided game is no part of a win); "
        f"score: (won + undecided × {share}) / games",
        f"{'pairing':<{width}} {'won':>5} {'undecided':>9} {'lost':>5}  {'outright':>8}  {'95% CI':<16} "
        + (f"{'1/' + str(n):>6} " if n > 2 else "")
        + f"{f'score (undecided = {share})':>22}  "
        + " ".join(f"{'as ' + seat:>{per_seat}}" for seat in seats),
    ]
    for name, p in zip(names, pairings, strict=True):
        lines.append(
            f"{name:<{width}} {p['wins']:>5} {p['draws']:>9} {p['losses']:>5}  "
            f"{100 * p['outright_win_rate']:>7.1f}%  "
            f"[{100 * p['outright_ci_low']:5.1f}, {100 * p['outright_ci_high']:5.1f}]   "
            + (f"{100 / n:>5.1f}% " if n > 2 else "")
            + f"{100 * p['win_rate']:>21.1f}%  "
            + " ".join(f"{100 * p[f'{seat}_outright_win_rate']:>{per_seat - 1}.1f}%" for seat in seats)
        )
    return lines


def _time(results: dict[str, Any]) -> str:
    rate = results["games_per_second"]
    pace = f"{rate:.0f} games/s" if rate >= 10 else f"{rate:.2g} games/s"  # search agents play under one a second
    return f"time: {results['seconds']:.1f} s" + (f" ({pace})" if rate else "")


def _report_seats(results: dict[str, Any], seats: Sequence[str]) -> str:
    """The printed summary of a game of more than two seats: each pairing's a in one seat, copies of b in the
    others; a's headline rate beside the seat's share 1/n (the outright win rate where a game without a winner is
    undecided, else the win rate counting a draw 1/n), its undecided share, its rate per seat."""
    cfg = results["config"]
    rules = game_of(cfg.get("game", DEFAULT))
    n = len(seats)
    shown = {label: rules.short_label(label, 24) for label in cfg["labels"]}
    names = [f"{shown[p['a']]} vs {n - 1} {shown[p['b']]}" for p in results["pairings"]]
    width = max([28, *map(len, names)])
    lines = [
        f"{n} seats: {len(cfg['labels'])} agents, {cfg['games_per_pairing']} games per pairing, each pairing's first "
        f"agent in one seat and copies of the second in the other {n - 1} (deck seeds "
        f"{cfg['game_seeds'][0]}..{cfg['game_seeds'][1]}, each with it in every seat), {describe(rules, cfg)}",
    ]
    if undecided(rules):
        lines.append(f"games won outright beside {100 / n:.1f}% (1/{n}: a seat's share, what it wins against its "
                     "equals when every game is decided)")  # fmt: skip
        lines += _outright_table(results["pairings"], names, width, seats)
    else:
        lines += [
            f"win rate: wins + undecided / {n}, beside {100 / n:.1f}% (1/{n}: what a seat gets against its equals)",
            f"{'pairing':<{width}} {'W':>5} {'D':>4} {'L':>5}  {'win rate':>8}  {'95% CI':<16} {'1/' + str(n):>6} "
            f"{'undecided':>9}  " + " ".join(f"{'as ' + seat:>11}" for seat in seats),
        ]
        for name, p in zip(names, results["pairings"], strict=True):
            lines.append(
                f"{name:<{width}} {p['wins']:>5} {p['draws']:>4} {p['losses']:>5}  "
                f"{100 * p['win_rate']:>7.1f}%  [{100 * p['ci_low']:5.1f}, {100 * p['ci_high']:5.1f}]   "
                f"{100 / n:>5.1f}% {100 * p['draws'] / max(1, p['games']):>8.1f}%  "
                + " ".join(f"{100 * p[f'{seat}_win_rate']:>10.1f}%" for seat in seats)
            )
    if any(shown[label] != label for label in cfg["labels"]):
        lines.append("agents: " + "; ".join(f"{shown[label]} = {label}" for label in cfg["labels"]
                                            if shown[label] != label))  # fmt: skip
    lines.append(_time(results))
    return "\n".join(lines)


def publish(results: dict[str, Any], out: Path, partial: Partial | None = None, overwrite: bool = False) -> Path:
    """Write the results folder, print the report and where the folder is; UserError when it cannot be written."""
    try:
        out = write_results(results, out, partial, overwrite)
    except OSError as error:
        raise UserError(f"--out {out}: cannot write the results ({error.strerror or error})") from None
    print(report(results))
    print(f"results: {out}")
    command = game_of(results["config"].get("game", DEFAULT)).replay_command
    if command:
        print(f"replay its games: {command.format(out=out)}")
    return out
