"""The statistics of an evaluation: win rates with Wilson intervals, Bradley-Terry ratings, the game's ladder.

Nothing here plays a game: every function reads the rows of games played (`experiments.matches`), each with
agent a's seat and result (+1, 0, -1), or the pairings' summaries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from experiments.game import DEFAULT, GameLike, game_of

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (`successes` may count draws as halves)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denom = 1 + z * z / n
    low = 0.0 if p <= 0 else max(0.0, (centre - spread) / denom)
    high = 1.0 if p >= 1 else min(1.0, (centre + spread) / denom)
    return low, high


def rating_anchor(names: Sequence[str], game: GameLike = DEFAULT) -> str | None:
    """The agent rated 0: the game's `rating_anchor` when it is rated, else None (then the ratings' mean is 0)."""
    anchor = game_of(game).rating_anchor
    return anchor if anchor in names else None


def anchored(ratings: dict[str, float], game: GameLike = DEFAULT) -> dict[str, float]:
    """Ratings shifted so that `rating_anchor` is 0 (with no anchor: so that their mean is 0)."""
    anchor = rating_anchor(list(ratings), game)
    zero = ratings[anchor] if anchor else sum(ratings.values()) / len(ratings) if ratings else 0.0
    return {name: value - zero for name, value in ratings.items()}


def anchor_note(ratings: dict[str, float], game: GameLike = DEFAULT) -> str:
    """How ratings are anchored, for a report: '<anchor> = 0' or 'mean 0, <anchor> not rated'."""
    anchor, wanted = rating_anchor(list(ratings), game), game_of(game).rating_anchor
    return f"{anchor} = 0" if anchor else f"mean 0, {wanted} not rated" if wanted else "mean 0"


def bradley_terry(
    names: Sequence[str], pairings: Sequence[dict[str, Any]], iterations: int = 1000, game: GameLike = DEFAULT
) -> dict[str, float]:
    """Bradley-Terry strengths of the agents on the Elo scale (400 log10), the game's rating anchor at 0 when it
    is rated, else mean 0 (`anchored`).

    Draws count as half a win each way; one virtual drawn game per pairing keeps the ratings
    finite when a pairing is one-sided.
    """
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    won = [[0.0] * n for _ in range(n)]
    played = [[0.0] * n for _ in range(n)]
    for pairing in pairings:
        i, j = index[pairing["a"]], index[pairing["b"]]
        a_points = pairing["wins"] + 0.5 * pairing["draws"] + 0.5
        b_points = pairing["losses"] + 0.5 * pairing["draws"] + 0.5
        won[i][j] += a_points
        won[j][i] += b_points
        played[i][j] += a_points + b_points
        played[j][i] += a_points + b_points
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            denom = sum(played[i][j] / (strength[i] + strength[j]) for j in range(n) if j != i and played[i][j])
            new.append(sum(won[i]) / denom if denom else strength[i])
        mean_log = sum(math.log(s) for s in new) / n
        new = [s / math.exp(mean_log) for s in new]
        done = max(abs(a - b) for a, b in zip(new, strength, strict=True)) < 1e-12
        strength = new
        if done:
            break
    return anchored({name: 400.0 * math.log10(strength[index[name]]) for name in names}, game)


def summarize(rows: Sequence[dict[str, Any]], seats: Sequence[str]) -> dict[str, Any]:
    """Counts from agent a's view: overall, per seat, per seed pair; win rate (draws half) and Wilson CI."""
    out: dict[str, Any] = {"games": len(rows)}
    for prefix, subset in (("", rows), *((f"{seat}_", [r for r in rows if r["a_seat"] == seat]) for seat in seats)):
        out[f"{prefix}wins"] = sum(1 for r in subset if r["result"] == 1)
        out[f"{prefix}draws"] = sum(1 for r in subset if r["result"] == 0)
        out[f"{prefix}losses"] = sum(1 for r in subset if r["result"] == -1)
    n = len(rows)
    points = out["wins"] + 0.5 * out["draws"]
    out["win_rate"] = points / n if n else 0.0
    out["ci_low"], out["ci_high"] = wilson(points, n)
    for seat in seats:
        m = out[f"{seat}_wins"] + out[f"{seat}_draws"] + out[f"{seat}_losses"]
        out[f"{seat}_win_rate"] = (out[f"{seat}_wins"] + 0.5 * out[f"{seat}_draws"]) / m if m else 0.0
    by_seed: dict[int, int] = {}
    for r in rows:
        by_seed[r["seed"]] = by_seed.get(r["seed"], 0) + r["result"]
    out["pairs_won_both"] = sum(1 for v in by_seed.values() if v == 2)
    out["pairs_lost_both"] = sum(1 for v in by_seed.values() if v == -2)
    out["pairs_split"] = len(by_seed) - out["pairs_won_both"] - out["pairs_lost_both"]
    out["first_seed"] = min(by_seed) if by_seed else None
    out["last_seed"] = max(by_seed) if by_seed else None
    return out


def oriented(pairings: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any] | None:
    """The statistics of a against b, from a's view, whichever way the pairing was played."""
    for p in pairings:
        if p["a"] == a and p["b"] == b:
            return p
        if p["a"] == b and p["b"] == a:
            flipped = dict(p, a=a, b=b, wins=p["losses"], losses=p["wins"], win_rate=1 - p["win_rate"])
            flipped["ci_low"], flipped["ci_high"] = 1 - p["ci_high"], 1 - p["ci_low"]
            return flipped
    return None


def ladder(pairings: Sequence[dict[str, Any]], game: GameLike = DEFAULT) -> list[dict[str, Any]]:
    """The game's ladder bars that apply to the agents played."""
    out = []
    for a, b, bar in game_of(game).ladder:
        p = oriented(pairings, a, b)
        if p is not None:
            keep = ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high")
            out.append({"a": a, "b": b, "bar": bar, **{k: p[k] for k in keep}, "passed": p["win_rate"] >= bar})
    return out
