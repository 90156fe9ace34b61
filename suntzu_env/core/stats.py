"""Statistics of evaluations, for any game: Wilson score intervals of win rates and Bradley-Terry ratings on the
Elo scale, with one agent (a game's `rating_anchor`) rated 0 wherever ratings are shown."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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


def rating_anchor(names: Sequence[str], anchor: str | None) -> str | None:
    """The agent rated 0: `anchor` when it is rated, else None (then the ratings' mean is 0)."""
    return anchor if anchor in names else None


def anchored(ratings: dict[str, float], anchor: str | None) -> dict[str, float]:
    """Ratings shifted so that `anchor` is 0 (when it is not rated: so that their mean is 0)."""
    rated = rating_anchor(list(ratings), anchor)
    zero = ratings[rated] if rated else sum(ratings.values()) / len(ratings) if ratings else 0.0
    return {name: value - zero for name, value in ratings.items()}


def anchor_note(ratings: dict[str, float], anchor: str | None) -> str:
    """How ratings are anchored, for a report: '<anchor> = 0', 'mean 0, <anchor> not rated' or 'mean 0'."""
    rated = rating_anchor(list(ratings), anchor)
    return f"{rated} = 0" if rated else f"mean 0, {anchor} not rated" if anchor else "mean 0"


def bradley_terry(
    names: Sequence[str],
    pairings: Sequence[dict[str, Any]],
    anchor: str | None = None,
    iterations: int = 1000,
    decided_only: bool = False,
) -> dict[str, float]:
    """Bradley-Terry strengths of the agents on the Elo scale (400 log10), `anchor` at 0 when it is rated, else
    mean 0 (`anchored`).

    Draws count as half a win each way; with `decided_only` (a game whose games without a winner are undecided,
    not tied) they are left out and the strengths are fitted to the games won and lost. One virtual drawn game per
    pairing keeps the ratings finite when a pairing is one-sided.
    """
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    won = [[0.0] * n for _ in range(n)]
    played = [[0.0] * n for _ in range(n)]
    draws = 0.0 if decided_only else 0.5
    for pairing in pairings:
        i, j = index[pairing["a"]], index[pairing["b"]]
        a_points = pairing["wins"] + draws * pairing["draws"] + 0.5
        b_points = pairing["losses"] + draws * pairing["draws"] + 0.5
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
    return anchored({name: 400.0 * math.log10(strength[index[name]]) for name in names}, anchor)
