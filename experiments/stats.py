"""The statistics of an evaluation: win rates with Wilson intervals, Bradley-Terry ratings, the game's ladder.

Nothing here plays a game: every function reads the rows of games played (`experiments.matches`), each with
agent a's seat and result (+1, 0, -1), or the pairings' summaries.

Each pairing has two rates, each with its Wilson 95% interval: `win_rate` (`ci_low`, `ci_high`), the score, where
a game without a winner counts half (1/n with n seats), and `outright_win_rate` (`outright_ci_low`,
`outright_ci_high`), the games won over the games played. The headline is the game's (`headline`): the score
where a game without a winner is a draw, a tie of the game (`GameRules.no_winner` "draw"); the outright win rate
where it is undecided, a game stopped before it was decided, which is no part of a win.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import suntzu_env.core.stats as stats
from experiments.game import DEFAULT, GameLike, game_of
from suntzu_env.core.stats import wilson


def undecided(game: GameLike = DEFAULT) -> bool:
    """Whether a game of `game` that ends without a winner is undecided (stopped before it was decided), not a draw."""
    return game_of(game).no_winner == "undecided"


def headline(pairing: dict[str, Any], game: GameLike = DEFAULT) -> tuple[float, float, float]:
    """A pairing's headline rate and its Wilson 95% interval: the outright win rate where a game without a winner
    is undecided, else the win rate with draws counted half (1/n)."""
    if undecided(game):
        return pairing["outright_win_rate"], pairing["outright_ci_low"], pairing["outright_ci_high"]
    return pairing["win_rate"], pairing["ci_low"], pairing["ci_high"]


def headline_field(game: GameLike = DEFAULT) -> str:
    """The pairings' field `headline` reads (`outright_win_rate` or `win_rate`), for readers of summary.json."""
    return "outright_win_rate" if undecided(game) else "win_rate"


def rating_anchor(names: Sequence[str], game: GameLike = DEFAULT) -> str | None:
    """The agent rated 0: the game's `rating_anchor` when it is rated, else None (then the ratings' mean is 0)."""
    return stats.rating_anchor(names, game_of(game).rating_anchor)


def anchored(ratings: dict[str, float], game: GameLike = DEFAULT) -> dict[str, float]:
    """Ratings shifted so that the game's `rating_anchor` is 0 (with no anchor: so that their mean is 0)."""
    return stats.anchored(ratings, game_of(game).rating_anchor)


def anchor_note(ratings: dict[str, float], game: GameLike = DEFAULT) -> str:
    """How ratings are anchored, for a report: '<anchor> = 0' or 'mean 0, <anchor> not rated'."""
    return stats.anchor_note(ratings, game_of(game).rating_anchor)


def bradley_terry(
    names: Sequence[str], pairings: Sequence[dict[str, Any]], iterations: int = 1000, game: GameLike = DEFAULT
) -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale (`suntzu_env.core.stats.bradley_terry`), the game's rating anchor at 0
    when it is rated, else mean 0; draws count half a win each way, undecided games are left out (`undecided`)."""
    return stats.bradley_terry(names, pairings, game_of(game).rating_anchor, iterations, undecided(game))


def ratings_note(ratings: dict[str, float], game: GameLike = DEFAULT) -> str:
    """What ratings are fitted to and how they are anchored, for a report."""
    fitted = "fitted to the decided games, undecided ones left out; " if undecided(game) else ""
    return f"Bradley-Terry, {fitted}Elo scale, {anchor_note(ratings, game)}"


def summarize(rows: Sequence[dict[str, Any]], seats: Sequence[str]) -> dict[str, Any]:
    """Counts from agent a's view: overall, per seat, per seed pair; the win rate (draws half) and the outright
    win rate (wins / games), each with its Wilson 95% interval, overall and per seat.

    With n > 2 seats (a in one, copies of b in the others) a draw (an undecided game) counts 1/n, a seat's even
    share, so that an agent no stronger than its opponents scores 1/n (`even_share`); `draw_rate` is the share of
    undecided games, and the per seed pair counts are left out."""
    share = 1 / len(seats)
    out: dict[str, Any] = {"games": len(rows)}
    for prefix, subset in (("", rows), *((f"{seat}_", [r for r in rows if r["a_seat"] == seat]) for seat in seats)):
        out[f"{prefix}wins"] = sum(1 for r in subset if r["result"] == 1)
        out[f"{prefix}draws"] = sum(1 for r in subset if r["result"] == 0)
        out[f"{prefix}losses"] = sum(1 for r in subset if r["result"] == -1)
    n = len(rows)
    points = out["wins"] + share * out["draws"]
    out["win_rate"] = points / n if n else 0.0
    out["ci_low"], out["ci_high"] = wilson(points, n)
    out["outright_win_rate"] = out["wins"] / n if n else 0.0
    out["outright_ci_low"], out["outright_ci_high"] = wilson(out["wins"], n)
    for seat in seats:
        m = out[f"{seat}_wins"] + out[f"{seat}_draws"] + out[f"{seat}_losses"]
        out[f"{seat}_win_rate"] = (out[f"{seat}_wins"] + share * out[f"{seat}_draws"]) / m if m else 0.0
        out[f"{seat}_outright_win_rate"] = out[f"{seat}_wins"] / m if m else 0.0
    by_seed: dict[int, int] = {}
    for r in rows:
        by_seed[r["seed"]] = by_seed.get(r["seed"], 0) + r["result"]
    if len(seats) == 2:
        out["pairs_won_both"] = sum(1 for v in by_seed.values() if v == 2)
        out["pairs_lost_both"] = sum(1 for v in by_seed.values() if v == -2)
        out["pairs_split"] = len(by_seed) - out["pairs_won_both"] - out["pairs_lost_both"]
    else:
        out["draw_rate"] = out["draws"] / n if n else 0.0
        out["even_share"] = share
    out["first_seed"] = min(by_seed) if by_seed else None
    out["last_seed"] = max(by_seed) if by_seed else None
    return out


def oriented(pairings: Sequence[dict[str, Any]], a: str, b: str, two_seats: bool = True) -> dict[str, Any] | None:
    """The statistics of a against b, from a's view, whichever way the pairing was played (with more than two
    seats, `two_seats` False, only as it was played: b's view of copies of a is another pairing)."""
    for p in pairings:
        if p["a"] == a and p["b"] == b:
            return p
        if p["a"] == b and p["b"] == a and two_seats:
            flipped = dict(p, a=a, b=b, wins=p["losses"], losses=p["wins"], win_rate=1 - p["win_rate"])
            flipped["ci_low"], flipped["ci_high"] = 1 - p["ci_high"], 1 - p["ci_low"]
            if "outright_win_rate" in p:  # b's games won: a's lost (a summary of before the field has none)
                games = p["games"]
                flipped["outright_win_rate"] = p["losses"] / games if games else 0.0
                flipped["outright_ci_low"], flipped["outright_ci_high"] = wilson(p["losses"], games)
            return flipped
    return None


def ladder(pairings: Sequence[dict[str, Any]], game: GameLike = DEFAULT) -> list[dict[str, Any]]:
    """The game's ladder bars that apply to the agents played, each measured on the win rate (draws half: the
    score, where a game without a winner is undecided), with the outright win rate beside it."""
    out = []
    for a, b, bar in game_of(game).ladder:
        p = oriented(pairings, a, b)
        if p is not None:
            keep = ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "outright_win_rate",
                    "outright_ci_low", "outright_ci_high")  # fmt: skip
            out.append({"a": a, "b": b, "bar": bar, **{k: p[k] for k in keep}, "passed": p["win_rate"] >= bar})
    return out
