"""Driving the game: setup (R3), running on to the next decision with two or more answers (R10), a step."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.core.rng import setup_seed, shuffle
from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.battle import battle_step
from suntzu_env.suntzu.engine.board import decide, held
from suntzu_env.suntzu.engine.decisions import apply_answer, legal_mask, place
from suntzu_env.suntzu.engine.round import begin_round, draw_step, open_window, reveal_step, window_step
from suntzu_env.suntzu.engine.transfers import run_task
from suntzu_env.suntzu.tables import COPIES, DISPLAYS, HAS_WARLORDS, START_RESERVE, START_SET_ASIDE

NP = rules.N_PROVINCES
NK = rules.N_CARD_KINDS


@njit(cache=True)
def set_variant(s: np.ndarray, variant: int) -> None:
    """Write the features of row `variant` of `rules.VARIANT_RULES` into the state's flags."""
    s[layout.VARIANT] = variant
    s[layout.WARLORDS_ON] = HAS_WARLORDS[variant]
    for k in range(NK):
        s[layout.KIND_COPIES + k] = COPIES[variant, k]


@njit(cache=True)
def init_state(
    s: np.ndarray, seed: int, variant: int, events: int, adj: np.ndarray, mask: np.ndarray, legacy: bool = False
) -> int:
    """Set up a new game from a seed (R3) and run to the first decision; returns the legal count. `legacy`: deal
    it as a record that names no generator was dealt (`rng.LEGACY_GENERATOR`)."""
    s[:] = 0
    rng = setup_seed(seed, legacy)
    set_variant(s, variant)
    s[layout.EVENTS_ON] = events
    for p in range(NP):
        s[layout.ADJ + p] = adj[p]
    s[layout.ROUND] = 1
    s[layout.WINNER] = -1
    for i in range(2 * NP):
        s[layout.LAST_REVEAL + i] = -1
    s[layout.PRIVILEGE] = -1
    s[layout.ORDER_HOLDER] = -1
    displays = np.arange(len(DISPLAYS))
    shuffle(rng, displays, len(DISPLAYS), legacy)  # R3.1: five displays at random, in random provinces
    for p in range(NP):
        for col in range(rules.N_SCORINGS):
            s[layout.VALUES + p * rules.N_SCORINGS + col] = DISPLAYS[displays[p], col]
    cards = np.zeros(layout.DECK_CAPACITY, dtype=np.int64)
    for side in range(2):  # R3.2
        s[layout.RESERVE + side] = START_RESERVE[variant]
        s[layout.SET_ASIDE + side] = START_SET_ASIDE[variant]
        n = 0
        for k in range(NK):
            if k < rules.N_BASE_CARDS:
                s[layout.HAND + side * NK + k] = s[layout.KIND_COPIES + k]
            else:
                for _ in range(s[layout.KIND_COPIES + k]):
                    cards[n] = k
                    n += 1
        shuffle(rng, cards, n, legacy)
        for i in range(layout.DECK_CAPACITY):
            s[layout.DECK + side * layout.DECK_CAPACITY + i] = -1
        for i in range(rules.HAND_DRAW):
            s[layout.HAND + side * NK + cards[i]] += 1
        for i in range(rules.HAND_DRAW, n):
            s[layout.DECK + side * layout.DECK_CAPACITY + i - rules.HAND_DRAW] = cards[i]
        s[layout.DECK_LEN + side] = n - rules.HAND_DRAW
    s[layout.EVENT_UP] = -1
    for i in range(rules.N_EVENTS):
        s[layout.EVENT_DECK + i] = -1
    if events:  # R3.4: one event face up, the others in a deck
        order = np.arange(rules.N_EVENTS)
        shuffle(rng, order, rules.N_EVENTS, legacy)
        s[layout.EVENT_UP] = order[0]
        for i in range(rules.N_EVENTS - 1):
            s[layout.EVENT_DECK + i] = order[i + 1]
        s[layout.EVENT_DECK_LEN] = rules.N_EVENTS - 1
    begin_round(s)
    if s[layout.WARLORDS_ON] == 1:  # R3.3: warlords are chosen before the first placement
        s[layout.PHASE] = layout.PH_WARLORDS
    return advance(s, mask)


@njit(cache=True)
def settle(s: np.ndarray, scratch: np.ndarray) -> None:
    """Run the automatic steps until a decision is pending or the game is over."""
    s[layout.DEC_KIND] = layout.DK_NONE
    s[layout.DEC_SIDE] = -1
    while True:
        if s[layout.WINNER] >= 0:
            s[layout.PHASE] = layout.PH_OVER
            s[layout.TASK_LEN] = 0
            return
        if s[layout.TASK_LEN] > 0:
            if run_task(s, scratch):
                return
            continue
        ph = s[layout.PHASE]
        if ph == layout.PH_WARLORDS:
            if s[layout.STEP] < 2:
                decide(s, layout.DK_WARLORD, s[layout.STEP], -1, -1, -1)
                return
            if held(s, rules.W_HEAD_START):  # R3.3: once both have chosen
                s[layout.WARLORD + rules.W_HEAD_START] = layout.WL_USED
                s[layout.SCORE] = min(rules.MAX_SCORE, s[layout.SCORE] + rules.HEAD_START_POINTS)
            begin_round(s)
        elif ph == layout.PH_PLACEMENT:  # R4.1: blue's cards, then red's (red may have placed some already)
            for side in range(2):
                if s[layout.PLACE_PROV + side] < NP:
                    decide(s, layout.DK_PLACE, side, s[layout.PLACE_PROV + side], -1, -1)
                    return
            open_window(s, 0)
        elif ph == layout.PH_WINDOW:
            if window_step(s):
                return
        elif ph == layout.PH_REVEAL:
            if reveal_step(s):
                return
        elif ph == layout.PH_BATTLE:
            if battle_step(s):
                return
        elif ph == layout.PH_DRAW:
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
        if s[layout.DEC_KIND] == layout.DK_NONE:
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
