"""Checks for tests: the state's invariants (declared once, with their messages) and checked random games."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.core.rng import rng_seed
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.batch import random_action
from suntzu_env.suntzu.engine.board import board_armies, card_kind, placed_card
from suntzu_env.suntzu.engine.decisions import legal_mask
from suntzu_env.suntzu.engine.drive import init_state, step
from suntzu_env.suntzu.layout import (
    ARMIES,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DRAW_SLOTS,
    DRAWN,
    EVENT_DECK_LEN,
    EVENT_UP,
    HAND,
    HAND_RECYCLED,
    KIND_COPIES,
    MARKED,
    OUT,
    PH_DRAW,
    PHASE,
    PLACED_RECYCLED,
    PLAGUES_SEEN,
    RECYCLED,
    RECYCLED_PLAGUE,
    RESERVE,
    ROUND,
    SCORE,
    SET_ASIDE,
    SIX_MARKS,
    SIXES,
    STATE_DTYPE,
    STATE_SIZE,
    WINNER,
)
from suntzu_env.suntzu.rules import ARMIES_PER_SIDE, CARD_PLAGUE, MAX_SCORE, N_CARD_KINDS, N_PROVINCES, N_ROUNDS

NP = N_PROVINCES
NK = N_CARD_KINDS


# The codes `check_invariants` returns, and what each one asks; records and tests read the messages here.
I_ARMIES, I_CARDS, I_SCORE, I_ONE_SIDE, I_ROUND, I_ANSWERS, I_SIXES, I_PLAGUES = range(1, 9)
INVARIANTS: dict[int, str] = {
    I_ARMIES: f"I1: reserve + set_aside + marked_armies + armies must be {ARMIES_PER_SIDE} per side",
    I_CARDS: "cards: hand, deck, the cards in play and the cards out of the game must make the side's card_copies",
    I_SCORE: f"score must lie in [-{MAX_SCORE}, {MAX_SCORE}]",
    I_ONE_SIDE: "at most one side may have armies in a province",
    I_ROUND: f"round must lie in 1..{N_ROUNDS}",
    I_ANSWERS: "I2: a decision must offer at least two legal answers",
    I_SIXES: "sixes_revealed must be at least the side's six-marks",
    I_PLAGUES: "plagues_revealed must lie in 0..card_copies[P] and count every recycled Plague copy (P*) still in play",
}


@njit(cache=True)
def check_invariants(s: np.ndarray) -> int:
    """0 when the state keeps its invariants, else the code of the first broken one (see `INVARIANTS`)."""
    for side in range(2):
        total = s[RESERVE + side] + s[SET_ASIDE + side] + s[MARKED + side] + board_armies(s, side)
        if total != ARMIES_PER_SIDE:
            return I_ARMIES
        if s[RESERVE + side] < 0 or s[SET_ASIDE + side] < 0:
            return I_ARMIES
        recycled = s[HAND_RECYCLED + side]  # recycled Plague copies still in play
        for k in range(NK):
            count = s[HAND + side * NK + k] + s[OUT + side * NK + k]
            for i in range(s[DECK_LEN + side]):
                c = s[DECK + side * DECK_CAPACITY + i]
                if card_kind(c) == k:
                    count += 1
                    if c == RECYCLED_PLAGUE:
                        recycled += 1
            for p in range(NP):  # in the draw phase the played cards are already back or out
                if placed_card(s, side, p) == k and s[RECYCLED + side * NP + p] == 0 and s[PHASE] != PH_DRAW:
                    count += 1
                    recycled += s[PLACED_RECYCLED + side * NP + p]
            for i in range(DRAW_SLOTS):
                c = s[DRAWN + side * DRAW_SLOTS + i]
                if c >= 0 and card_kind(c) == k:
                    count += 1
                    if c == RECYCLED_PLAGUE:
                        recycled += 1
            if count != s[KIND_COPIES + k]:
                return I_CARDS
        marks = 0
        for p in range(NP):
            marks += s[SIX_MARKS + side * NP + p]
        if s[SIXES + side] < marks:
            return I_SIXES
        plagues = s[KIND_COPIES + CARD_PLAGUE]
        seen = s[PLAGUES_SEEN + side]
        if seen < 0 or seen > plagues or recycled > seen or s[HAND_RECYCLED + side] > s[HAND + side * NK + CARD_PLAGUE]:
            return I_PLAGUES
    if s[SCORE] < -MAX_SCORE or s[SCORE] > MAX_SCORE:
        return I_SCORE
    for p in range(NP):
        if s[ARMIES + p] < 0 or s[ARMIES + NP + p] < 0 or (s[ARMIES + p] > 0 and s[ARMIES + NP + p] > 0):
            return I_ONE_SIDE
    if s[ROUND] < 1 or s[ROUND] > N_ROUNDS:
        return I_ROUND
    return 0


@njit(cache=True)
def random_playouts_checked(n_games: int, seed: int, variant: int, events: int, adj: np.ndarray) -> np.ndarray:
    """Random games with `check_invariants` and I2 (>= 2 legal answers offered) after every step.

    Rows: winner, decisions, first failed check (0 none, I_ANSWERS for I2), events left face up or in deck.
    """
    out = np.zeros((n_games, 4), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    rng = rng_seed(seed ^ 0x2545F491)
    for g in range(n_games):
        n = init_state(s, seed + g, variant, events, adj, mask)
        steps = 0
        code = check_invariants(s)
        while n > 0 and code == 0:
            if n < 2 or legal_mask(s, mask) != n:
                code = I_ANSWERS
                break
            n = step(s, random_action(rng, mask, n), mask)
            steps += 1
            code = check_invariants(s)
        out[g, 0] = s[WINNER]
        out[g, 1] = steps
        out[g, 2] = code
        out[g, 3] = s[EVENT_DECK_LEN] + (1 if s[EVENT_UP] >= 0 else 0)
    return out
