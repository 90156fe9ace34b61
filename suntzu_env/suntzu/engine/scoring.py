"""Scoring (R4.5), the ends of the game (R6) and the start of the draw (R4.6)."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import placed_card, recall, values_at
from suntzu_env.suntzu.layout import (
    ARMIES,
    CANCELLED,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DRAW_SLOTS,
    DRAWN,
    HAND,
    KEEP_LEFT,
    OUT,
    PH_DRAW,
    PHASE,
    RECYCLED,
    RESERVE,
    ROUND,
    SCORE,
    SET_ASIDE,
    STEP,
    WINNER,
    WINNER_DRAW,
)
from suntzu_env.suntzu.rules import (
    CARD_ONE,
    DRAW,
    DRAW_AFTER_ONE,
    MAX_SCORE,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
)
from suntzu_env.suntzu.tables import next_scoring_column, projected_score, scoring_column

NP = N_PROVINCES
NK = N_CARD_KINDS


@njit(cache=True)
def _recall_all(s: np.ndarray, side: int) -> None:
    """D2 (c), P15: recall while the pool and non-base cards last, discarding in card order."""
    for k in range(N_BASE_CARDS, NK):
        while s[SET_ASIDE + side] > 0 and s[HAND + side * NK + k] > 0:
            recall(s, side, k)


@njit(cache=True)
def finish_by_marker(s: np.ndarray) -> None:
    """R6.2, R6.4: the marker's half wins; at 0 the larger reserve (after D2's recalls); else a draw."""
    if s[SCORE] > 0:
        s[WINNER] = 0
        return
    if s[SCORE] < 0:
        s[WINNER] = 1
        return
    _recall_all(s, 0)
    _recall_all(s, 1)
    if s[RESERVE] > s[RESERVE + 1]:
        s[WINNER] = 0
    elif s[RESERVE + 1] > s[RESERVE]:
        s[WINNER] = 1
    else:
        s[WINNER] = WINNER_DRAW


@njit(cache=True)
def end_of_battles(s: np.ndarray) -> None:
    """R4.5 scoring, R6.1/R6.2 ends, then the draw phase."""
    r = s[ROUND]
    col = scoring_column(r)
    if col >= 0:
        s[SCORE] = projected_score(
            s[SCORE], s[ARMIES : ARMIES + NP], s[ARMIES + NP : ARMIES + 2 * NP], values_at(s, col)
        )
        if r == N_ROUNDS:
            finish_by_marker(s)
            return
        if s[SCORE] == MAX_SCORE:
            s[WINNER] = 0
            return
        if s[SCORE] == -MAX_SCORE:
            s[WINNER] = 1
            return
    s[PHASE] = PH_DRAW
    s[STEP] = 0
    for side in range(2):  # R4.6: base cards back to hand, the others out (unless recycled)
        played_one = False
        for p in range(NP):
            k = placed_card(s, side, p)
            if k == CARD_ONE and s[CANCELLED + side * NP + p] == 0:  # R4.6, D5
                played_one = True
            if k < N_BASE_CARDS:
                s[HAND + side * NK + k] += 1
            elif s[RECYCLED + side * NP + p] == 0:
                s[OUT + side * NK + k] += 1
        draw = DRAW_AFTER_ONE if played_one else DRAW
        keep = draw - 1
        base = DECK + side * DECK_CAPACITY
        n = min(draw, s[DECK_LEN + side])
        for i in range(n):
            s[DRAWN + side * DRAW_SLOTS + i] = s[base + i]
        left = s[DECK_LEN + side] - n
        for i in range(left):
            s[base + i] = s[base + i + n]
        for i in range(left, left + n):
            s[base + i] = -1
        s[DECK_LEN + side] = left
        s[KEEP_LEFT + side] = min(keep, n)


@njit(cache=True)
def projected_marker(s: np.ndarray) -> int:
    """R4.5: the marker toward blue as it would stand if the next scoring were made now, in [-9, 9]."""
    col = next_scoring_column(s[ROUND])
    return projected_score(s[SCORE], s[ARMIES : ARMIES + NP], s[ARMIES + NP : ARMIES + 2 * NP], values_at(s, col))
