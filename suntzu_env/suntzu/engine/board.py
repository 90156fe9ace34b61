"""Queries of the board, the hands and the decks, and the small state writes everything above shares."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.actions import A_PROVINCE, A_RECALL
from suntzu_env.suntzu.tables import may_place_six

NP = rules.N_PROVINCES
NK = rules.N_CARD_KINDS


@njit(cache=True)
def owner(s: np.ndarray, p: int) -> int:
    """-1 empty, else the side with armies in province p."""
    if s[layout.ARMIES + p] > 0:
        return 0
    if s[layout.ARMIES + NP + p] > 0:
        return 1
    return -1


@njit(cache=True)
def board_armies(s: np.ndarray, side: int) -> int:
    """The side's armies in provinces (not in reserve, set aside or in six-mark boxes)."""
    total = 0
    for p in range(NP):
        total += s[layout.ARMIES + side * NP + p]
    return total


@njit(cache=True)
def adjacent(s: np.ndarray, p: int, q: int) -> bool:
    """Whether provinces p and q border each other on this game's map (R1.4)."""
    return (s[layout.ADJ + p] >> q) & 1 == 1


@njit(cache=True)
def held(s: np.ndarray, w: int) -> bool:
    """Whether warlord w is held and not yet used."""
    return s[layout.WARLORD + w] == layout.WL_HELD


@njit(cache=True)
def placed_card(s: np.ndarray, side: int, p: int) -> int:
    """The card kind the side placed in province p this round, -1 none."""
    return s[layout.PLACED + side * NP + p]


@njit(cache=True)
def card_kind(c: int) -> int:
    """The card kind of a deck or drawn entry: a recycled Plague copy is a Plague (R7.1, P14)."""
    return rules.CARD_PLAGUE if c == layout.RECYCLED_PLAGUE else c


@njit(cache=True)
def take_from_hand(s: np.ndarray, side: int, k: int) -> int:
    """Remove one card of kind k from the hand; a Plague is the never-revealed copy first (P14).

    Returns the card as a deck entry (RECYCLED_PLAGUE for a recycled copy).
    """
    s[layout.HAND + side * NK + k] -= 1
    if k == rules.CARD_PLAGUE and s[layout.HAND + side * NK + k] < s[layout.HAND_RECYCLED + side]:
        s[layout.HAND_RECYCLED + side] -= 1
        return layout.RECYCLED_PLAGUE
    return k


@njit(cache=True)
def add_to_hand(s: np.ndarray, side: int, c: int) -> None:
    """Put a deck entry into the hand."""
    if c == layout.RECYCLED_PLAGUE:
        s[layout.HAND_RECYCLED + side] += 1
    s[layout.HAND + side * NK + card_kind(c)] += 1


@njit(cache=True)
def recall(s: np.ndarray, side: int, k: int) -> None:
    """R4.2: discard non-base card k from hand (public) to bring one set-aside army to the reserve.

    D15: a Plague discards the recycled copy (`P*`) first, keeping the never-revealed one for R7.1.
    """
    if k == rules.CARD_PLAGUE and s[layout.HAND_RECYCLED + side] > 0:
        s[layout.HAND_RECYCLED + side] -= 1
        s[layout.HAND + side * NK + k] -= 1
    else:
        take_from_hand(s, side, k)
    s[layout.OUT + side * NK + k] += 1
    s[layout.SET_ASIDE + side] -= 1
    s[layout.RESERVE + side] += 1


@njit(cache=True)
def recall_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """R4.2, D2: `recall:<card>` for each non-base kind in hand while the set-aside pool is not empty."""
    n = 0
    if s[layout.SET_ASIDE + side] > 0:
        for k in range(rules.N_BASE_CARDS, NK):
            if s[layout.HAND + side * NK + k] > 0:
                mask[A_RECALL + k - rules.N_BASE_CARDS] = 1
                n += 1
    return n


@njit(cache=True)
def can_recall(s: np.ndarray, side: int) -> bool:
    """R4.2: whether the side may recall now (a set-aside army and a non-base card in hand)."""
    if s[layout.SET_ASIDE + side] > 0:
        for k in range(rules.N_BASE_CARDS, NK):
            if s[layout.HAND + side * NK + k] > 0:
                return True
    return False


@njit(cache=True)
def is_recall(a: int) -> bool:
    """Whether action a is a `recall:<card>` (R4.2)."""
    return A_RECALL <= a < A_RECALL + NK - rules.N_BASE_CARDS


@njit(cache=True)
def may_place_six_at(s: np.ndarray, side: int, p: int) -> bool:
    """R4.1: no `6` where the side has marked, except red's double_six (P4)."""
    return may_place_six(s[layout.SIX_MARKS + side * NP + p], side == rules.RED, held(s, rules.W_DOUBLE_SIX))


@njit(cache=True)
def shortfall_sources(s: np.ndarray, side: int, p: int, mask: np.ndarray) -> int:
    """R5.4, P9: adjacent provinces of the side first, then its other provinces, never p itself."""
    n = 0
    for q in range(NP):
        if q != p and adjacent(s, p, q) and s[layout.ARMIES + side * NP + q] > 0:
            mask[A_PROVINCE + q] = 1
            n += 1
    if n == 0:
        for q in range(NP):
            if q != p and s[layout.ARMIES + side * NP + q] > 0:
                mask[A_PROVINCE + q] = 1
                n += 1
    return n


@njit(cache=True)
def values_at(s: np.ndarray, col: int) -> np.ndarray:
    """Each province's value at the scoring of display column col (R1.2, R4.5)."""
    return s[layout.VALUES + col : layout.VALUES + rules.N_SCORINGS * NP : rules.N_SCORINGS]


@njit(cache=True)
def decide(s: np.ndarray, kind: int, side: int, p: int, w: int, cause: int) -> bool:
    """Make (kind, side, province, warlord, cause) the pending decision; True (a decision is pending)."""
    s[layout.DEC_KIND] = kind
    s[layout.DEC_SIDE] = side
    s[layout.DEC_PROV] = p
    s[layout.DEC_WARLORD] = w
    s[layout.DEC_CAUSE] = cause
    return True


@njit(cache=True)
def side_to_act(s: np.ndarray) -> int:
    """The side asked the pending decision, -1 when none is pending (the game is over)."""
    return s[layout.DEC_SIDE] if s[layout.DEC_KIND] != layout.DK_NONE else -1


@njit(cache=True)
def result(s: np.ndarray) -> int:
    """R6: -1 while the game goes on, else the winner: 0 blue, 1 red, 2 a draw (`layout.WINNER_DRAW`)."""
    return s[layout.WINNER]
