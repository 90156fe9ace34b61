"""Driving the game: setup (R3), running on to the next decision with two or more answers (R10), a step."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.core.rng import setup_seed, shuffle
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.battle import battle_step
from suntzu_env.suntzu.engine.board import decide, held
from suntzu_env.suntzu.engine.decisions import apply_answer, legal_mask, place
from suntzu_env.suntzu.engine.round import begin_round, draw_step, open_window, reveal_step, window_step
from suntzu_env.suntzu.engine.transfers import run_task
from suntzu_env.suntzu.layout import (
    ADJ,
    DEC_KIND,
    DEC_SIDE,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DK_NONE,
    DK_PLACE,
    DK_WARLORD,
    EVENT_DECK,
    EVENT_DECK_LEN,
    EVENT_UP,
    EVENTS_ON,
    HAND,
    KIND_COPIES,
    LAST_REVEAL,
    ORDER_HOLDER,
    PH_BATTLE,
    PH_DRAW,
    PH_OVER,
    PH_PLACEMENT,
    PH_REVEAL,
    PH_WARLORDS,
    PH_WINDOW,
    PHASE,
    PLACE_PROV,
    PRIVILEGE,
    RESERVE,
    ROUND,
    SCORE,
    SET_ASIDE,
    STEP,
    TASK_LEN,
    VALUES,
    VARIANT,
    WARLORD,
    WARLORDS_ON,
    WINNER,
    WL_USED,
)
from suntzu_env.suntzu.rules import (
    HAND_DRAW,
    HEAD_START_POINTS,
    MAX_SCORE,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_EVENTS,
    N_PROVINCES,
    N_SCORINGS,
    W_HEAD_START,
)
from suntzu_env.suntzu.tables import COPIES, DISPLAYS, HAS_WARLORDS, START_RESERVE, START_SET_ASIDE

NP = N_PROVINCES
NK = N_CARD_KINDS


@njit(cache=True)
def set_variant(s: np.ndarray, variant: int) -> None:
    """Write the features of row `variant` of `rules.VARIANT_RULES` into the state's flags."""
    s[VARIANT] = variant
    s[WARLORDS_ON] = HAS_WARLORDS[variant]
    for k in range(NK):
        s[KIND_COPIES + k] = COPIES[variant, k]


@njit(cache=True)
def init_state(
    s: np.ndarray, seed: int, variant: int, events: int, adj: np.ndarray, mask: np.ndarray, legacy: bool = False
) -> int:
    """Set up a new game from a seed (R3) and run to the first decision; returns the legal count. `legacy`: deal
    it as a record that names no generator was dealt (`rng.LEGACY_GENERATOR`)."""
    s[:] = 0
    rng = setup_seed(seed, legacy)
    set_variant(s, variant)
    s[EVENTS_ON] = events
    for p in range(NP):
        s[ADJ + p] = adj[p]
    s[ROUND] = 1
    s[WINNER] = -1
    for i in range(2 * NP):
        s[LAST_REVEAL + i] = -1
    s[PRIVILEGE] = -1
    s[ORDER_HOLDER] = -1
    displays = np.arange(len(DISPLAYS))
    shuffle(rng, displays, len(DISPLAYS), legacy)  # R3.1: five displays at random, in random provinces
    for p in range(NP):
        for col in range(N_SCORINGS):
            s[VALUES + p * N_SCORINGS + col] = DISPLAYS[displays[p], col]
    cards = np.zeros(DECK_CAPACITY, dtype=np.int64)
    for side in range(2):  # R3.2
        s[RESERVE + side] = START_RESERVE[variant]
        s[SET_ASIDE + side] = START_SET_ASIDE[variant]
        n = 0
        for k in range(NK):
            if k < N_BASE_CARDS:
                s[HAND + side * NK + k] = s[KIND_COPIES + k]
            else:
                for _ in range(s[KIND_COPIES + k]):
                    cards[n] = k
                    n += 1
        shuffle(rng, cards, n, legacy)
        for i in range(DECK_CAPACITY):
            s[DECK + side * DECK_CAPACITY + i] = -1
        for i in range(HAND_DRAW):
            s[HAND + side * NK + cards[i]] += 1
        for i in range(HAND_DRAW, n):
            s[DECK + side * DECK_CAPACITY + i - HAND_DRAW] = cards[i]
        s[DECK_LEN + side] = n - HAND_DRAW
    s[EVENT_UP] = -1
    for i in range(N_EVENTS):
        s[EVENT_DECK + i] = -1
    if events:  # R3.4: one event face up, the others in a deck
        order = np.arange(N_EVENTS)
        shuffle(rng, order, N_EVENTS, legacy)
        s[EVENT_UP] = order[0]
        for i in range(N_EVENTS - 1):
            s[EVENT_DECK + i] = order[i + 1]
        s[EVENT_DECK_LEN] = N_EVENTS - 1
    begin_round(s)
    if s[WARLORDS_ON] == 1:  # R3.3: warlords are chosen before the first placement
        s[PHASE] = PH_WARLORDS
    return advance(s, mask)


@njit(cache=True)
def settle(s: np.ndarray, scratch: np.ndarray) -> None:
    """Run the automatic steps until a decision is pending or the game is over."""
    s[DEC_KIND] = DK_NONE
    s[DEC_SIDE] = -1
    while True:
        if s[WINNER] >= 0:
            s[PHASE] = PH_OVER
            s[TASK_LEN] = 0
            return
        if s[TASK_LEN] > 0:
            if run_task(s, scratch):
                return
            continue
        ph = s[PHASE]
        if ph == PH_WARLORDS:
            if s[STEP] < 2:
                decide(s, DK_WARLORD, s[STEP], -1, -1, -1)
                return
            if held(s, W_HEAD_START):  # R3.3: once both have chosen
                s[WARLORD + W_HEAD_START] = WL_USED
                s[SCORE] = min(MAX_SCORE, s[SCORE] + HEAD_START_POINTS)
            begin_round(s)
        elif ph == PH_PLACEMENT:  # R4.1: blue's cards, then red's (red may have placed some already)
            for side in range(2):
                if s[PLACE_PROV + side] < NP:
                    decide(s, DK_PLACE, side, s[PLACE_PROV + side], -1, -1)
                    return
            open_window(s, 0)
        elif ph == PH_WINDOW:
            if window_step(s):
                return
        elif ph == PH_REVEAL:
            if reveal_step(s):
                return
        elif ph == PH_BATTLE:
            if battle_step(s):
                return
        elif ph == PH_DRAW:
            if draw_step(s):
                return
        else:
            return


@njit(cache=True)
def place_out_of_turn(s: np.ndarray, side: int, action: int, mask: np.ndarray) -> int:
    """Apply a legal placement answer (see `placement_mask`) of a side that is not the one asked now.

    Placement is simultaneous (R4.1): red may place while blue is still asked. The pending decision is
    unchanged; `mask` is refilled with its legal set, whose count is returned.
    """
    place(s, side, action)
    return legal_mask(s, mask)


@njit(cache=True)
def _no_legal_answer() -> None:
    """Raised here, not in `advance`, which is inlined into `prange` loops that a `raise` would keep serial."""
    raise RuntimeError("a decision with no legal answer")


@njit(cache=True, inline="always")
def advance(s: np.ndarray, mask: np.ndarray) -> int:
    """Run on to the next decision with >= 2 legal answers (R10); returns that count, 0 when over."""
    while True:
        settle(s, mask)
        if s[DEC_KIND] == DK_NONE:
            mask[:] = 0
            return 0
        n = legal_mask(s, mask)
        if n >= 2:
            return n
        if n == 0:
            _no_legal_answer()
        for a in range(N_ACTIONS):
            if mask[a]:
                apply_answer(s, a)
                break


@njit(cache=True, inline="always")
def step(s: np.ndarray, action: int, mask: np.ndarray) -> int:
    """Apply a legal action and run on; `mask` must hold the legal set of the pending decision."""
    apply_answer(s, action)
    return advance(s, mask)
