"""Scoring (R4.5), the ends of the game (R6) and the start of the draw (R4.6)."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.engine.board import placed_card, recall, values_at
from suntzu_env.suntzu.tables import next_scoring_column, projected_score, scoring_column

NP = rules.N_PROVINCES
NK = rules.N_CARD_KINDS


@njit(cache=True)
def _recall_all(s: np.ndarray, side: int) -> None:
    """D2 (c), P15: recall while the pool and non-base cards last, discarding in card order."""
    for k in range(rules.N_BASE_CARDS, NK):
        while s[layout.SET_ASIDE + side] > 0 and s[layout.HAND + side * NK + k] > 0:
            recall(s, side, k)


@njit(cache=True)
def finish_by_marker(s: np.ndarray) -> None:
    """R6.2, R6.4: the marker's half wins; at 0 the larger reserve (after D2's recalls); else a draw."""
    if s[layout.SCORE] > 0:
        s[layout.WINNER] = 0
        return
    if s[layout.SCORE] < 0:
        s[layout.WINNER] = 1
        return
    _recall_all(s, 0)
    _recall_all(s, 1)
    if s[layout.RESERVE] > s[layout.RESERVE + 1]:
        s[layout.WINNER] = 0
    elif s[layout.RESERVE + 1] > s[layout.RESERVE]:
        s[layout.WINNER] = 1
    else:
        s[layout.WINNER] = layout.WINNER_DRAW


@njit(cache=True)
def end_of_battles(s: np.ndarray) -> None:
    """R4.5 scoring, R6.1/R6.2 ends, then the draw phase."""
    r = s[layout.ROUND]
    col = scoring_column(r)
    if col >= 0:
        s[layout.SCORE] = projected_score(
            s[layout.SCORE],
            s[layout.ARMIES : layout.ARMIES + NP],
            s[layout.ARMIES + NP : layout.ARMIES + 2 * NP],
            values_at(s, col),
        )
        if r == rules.N_ROUNDS:
            finish_by_marker(s)
            return
        if s[layout.SCORE] == rules.MAX_SCORE:
            s[layout.WINNER] = 0
            return
        if s[layout.SCORE] == -rules.MAX_SCORE:
            s[layout.WINNER] = 1
            return
    s[layout.PHASE] = layout.PH_DRAW
    s[layout.STEP] = 0
    for side in range(2):  # R4.6: base cards back to hand, the others out (unless recycled)
        played_one = False
        for p in range(NP):
            k = placed_card(s, side, p)
            if k == rules.CARD_ONE and s[layout.CANCELLED + side * NP + p] == 0:  # R4.6, D5
                played_one = True
            if k < rules.N_BASE_CARDS:
                s[layout.HAND + side * NK + k] += 1
            elif s[layout.RECYCLED + side * NP + p] == 0:
                s[layout.OUT + side * NK + k] += 1
        draw = rules.DRAW_AFTER_ONE if played_one else rules.DRAW
        keep = draw - 1
        base = layout.DECK + side * layout.DECK_CAPACITY
        n = min(draw, s[layout.DECK_LEN + side])
        for i in range(n):
            s[layout.DRAWN + side * layout.DRAW_SLOTS + i] = s[base + i]
        left = s[layout.DECK_LEN + side] - n
        for i in range(left):
            s[base + i] = s[base + i + n]
        for i in range(left, left + n):
            s[base + i] = -1
        s[layout.DECK_LEN + side] = left
        s[layout.KEEP_LEFT + side] = min(keep, n)


@njit(cache=True)
def projected_marker(s: np.ndarray) -> int:
    """R4.5: the marker toward blue as it would stand if the next scoring were made now, in [-9, 9]."""
    col = next_scoring_column(s[layout.ROUND])
    return projected_score(
        s[layout.SCORE],
        s[layout.ARMIES : layout.ARMIES + NP],
        s[layout.ARMIES + NP : layout.ARMIES + 2 * NP],
        values_at(s, col),
    )
