"""Queries of the board, the hands and the decks, and the small state writes everything above shares."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.actions import A_PROVINCE, A_RECALL
from suntzu_env.suntzu.layout import (
    ADJ,
    ARMIES,
    DEC_CAUSE,
    DEC_KIND,
    DEC_PROV,
    DEC_SIDE,
    DEC_WARLORD,
    DK_NONE,
    HAND,
    HAND_RECYCLED,
    OUT,
    PLACED,
    RECYCLED_PLAGUE,
    RESERVE,
    SET_ASIDE,
    SIX_MARKS,
    VALUES,
    WARLORD,
    WINNER,
    WL_HELD,
)
from suntzu_env.suntzu.rules import CARD_PLAGUE, N_BASE_CARDS, N_CARD_KINDS, N_PROVINCES, N_SCORINGS, RED, W_DOUBLE_SIX
from suntzu_env.suntzu.tables import may_place_six

NP = N_PROVINCES
NK = N_CARD_KINDS


@njit(cache=True)
def owner(s: np.ndarray, p: int) -> int:
    """-1 empty, else the side with armies in province p."""
    if s[ARMIES + p] > 0:
        return 0
    if s[ARMIES + NP + p] > 0:
        return 1
    return -1


@njit(cache=True)
def board_armies(s: np.ndarray, side: int) -> int:
    """The side's armies in provinces (not in reserve, set aside or in six-mark boxes)."""
    total = 0
    for p in range(NP):
        total += s[ARMIES + side * NP + p]
    return total


@njit(cache=True)
def adjacent(s: np.ndarray, p: int, q: int) -> bool:
    """Whether provinces p and q border each other on this game's map (R1.4)."""
    return (s[ADJ + p] >> q) & 1 == 1


@njit(cache=True)
def held(s: np.ndarray, w: int) -> bool:
    """Whether warlord w is held and not yet used."""
    return s[WARLORD + w] == WL_HELD


@njit(cache=True)
def placed_card(s: np.ndarray, side: int, p: int) -> int:
    """The card kind the side placed in province p this round, -1 none."""
    return s[PLACED + side * NP + p]


@njit(cache=True)
def card_kind(c: int) -> int:
    """The card kind of a deck or drawn entry: a recycled Plague copy is a Plague (R7.1, P14)."""
    return CARD_PLAGUE if c == RECYCLED_PLAGUE else c


@njit(cache=True)
def take_from_hand(s: np.ndarray, side: int, k: int) -> int:
    """Remove one card of kind k from the hand; a Plague is the never-revealed copy first (P14).

    Returns the card as a deck entry (RECYCLED_PLAGUE for a recycled copy).
    """
    s[HAND + side * NK + k] -= 1
    if k == CARD_PLAGUE and s[HAND + side * NK + k] < s[HAND_RECYCLED + side]:
        s[HAND_RECYCLED + side] -= 1
        return RECYCLED_PLAGUE
    return k


@njit(cache=True)
def add_to_hand(s: np.ndarray, side: int, c: int) -> None:
    """Put a deck entry into the hand."""
    if c == RECYCLED_PLAGUE:
        s[HAND_RECYCLED + side] += 1
    s[HAND + side * NK + card_kind(c)] += 1


@njit(cache=True)
def recall(s: np.ndarray, side: int, k: int) -> None:
    """R4.2: discard non-base card k from hand (public) to bring one set-aside army to the reserve.

    D15: a Plague discards the recycled copy (`P*`) first, keeping the never-revealed one for R7.1.
    """
    if k == CARD_PLAGUE and s[HAND_RECYCLED + side] > 0:
        s[HAND_RECYCLED + side] -= 1
        s[HAND + side * NK + k] -= 1
    else:
        take_from_hand(s, side, k)
    s[OUT + side * NK + k] += 1
    s[SET_ASIDE + side] -= 1
    s[RESERVE + side] += 1


@njit(cache=True)
def recall_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """R4.2, D2: `recall:<card>` for each non-base kind in hand while the set-aside pool is not empty."""
    n = 0
    if s[SET_ASIDE + side] > 0:
        for k in range(N_BASE_CARDS, NK):
            if s[HAND + side * NK + k] > 0:
                mask[A_RECALL + k - N_BASE_CARDS] = 1
                n += 1
    return n


@njit(cache=True)
def can_recall(s: np.ndarray, side: int) -> bool:
    """R4.2: whether the side may recall now (a set-aside army and a non-base card in hand)."""
    if s[SET_ASIDE + side] > 0:
        for k in range(N_BASE_CARDS, NK):
            if s[HAND + side * NK + k] > 0:
                return True
    return False


@njit(cache=True)
def is_recall(a: int) -> bool:
    """Whether action a is a `recall:<card>` (R4.2)."""
    return A_RECALL <= a < A_RECALL + NK - N_BASE_CARDS


@njit(cache=True)
def may_place_six_at(s: np.ndarray, side: int, p: int) -> bool:
    """R4.1: no `6` where the side has marked, except red's double_six (P4)."""
    return may_place_six(s[SIX_MARKS + side * NP + p], side == RED, held(s, W_DOUBLE_SIX))


@njit(cache=True)
def shortfall_sources(s: np.ndarray, side: int, p: int, mask: np.ndarray) -> int:
    """R5.4, P9: adjacent provinces of the side first, then its other provinces, never p itself."""
    n = 0
    for q in range(NP):
        if q != p and adjacent(s, p, q) and s[ARMIES + side * NP + q] > 0:
            mask[A_PROVINCE + q] = 1
            n += 1
    if n == 0:
        for q in range(NP):
            if q != p and s[ARMIES + side * NP + q] > 0:
                mask[A_PROVINCE + q] = 1
                n += 1
    return n


@njit(cache=True)
def values_at(s: np.ndarray, col: int) -> np.ndarray:
    """Each province's value at the scoring of display column col (R1.2, R4.5)."""
    return s[VALUES + col : VALUES + N_SCORINGS * NP : N_SCORINGS]


@njit(cache=True)
def decide(s: np.ndarray, kind: int, side: int, p: int, w: int, cause: int) -> bool:
    """Make (kind, side, province, warlord, cause) the pending decision; True (a decision is pending)."""
    s[DEC_KIND] = kind
    s[DEC_SIDE] = side
    s[DEC_PROV] = p
    s[DEC_WARLORD] = w
    s[DEC_CAUSE] = cause
    return True


@njit(cache=True)
def side_to_act(s: np.ndarray) -> int:
    """The side asked the pending decision, -1 when none is pending (the game is over)."""
    return s[DEC_SIDE] if s[DEC_KIND] != DK_NONE else -1


@njit(cache=True)
def result(s: np.ndarray) -> int:
    """R6: -1 while the game goes on, else the winner: 0 blue, 1 red, 2 a draw (`layout.WINNER_DRAW`)."""
    return s[WINNER]
