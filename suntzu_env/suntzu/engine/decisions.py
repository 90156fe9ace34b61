"""Decisions (R10): the legal answers to the pending one, and applying an answer."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE, A_WARLORD
from suntzu_env.suntzu.engine.battle import recycle
from suntzu_env.suntzu.engine.board import (
    add_to_hand,
    adjacent,
    card_kind,
    is_recall,
    may_place_six_at,
    recall,
    recall_mask,
    shortfall_sources,
    take_from_hand,
)
from suntzu_env.suntzu.engine.conditions import march_has_dest
from suntzu_env.suntzu.engine.round import apply_target, start_battle
from suntzu_env.suntzu.engine.transfers import deliver, drop_task
from suntzu_env.suntzu.layout import (
    ACTIVE_WL,
    ARMIES,
    BATTLE_PROV,
    CHARIOT,
    COUNTER_ON,
    DEC_KIND,
    DEC_PROV,
    DEC_SIDE,
    DEC_WARLORD,
    DEVASTATE_ON,
    DK_KEEP,
    DK_NONE,
    DK_PLACE,
    DK_REACTIVE,
    DK_REVEAL,
    DK_SHORTFALL,
    DK_SOURCE,
    DK_TARGET,
    DK_WARLORD,
    DK_WINDOW,
    DRAW_SLOTS,
    DRAWN,
    FEINT_ON,
    HAND,
    KEEP_LEFT,
    MARCH_FROM,
    PH_PLACEMENT,
    PH_WARLORDS,
    PHASE,
    PLACE_PROV,
    PLACED,
    PLACED_RECYCLED,
    RECYCLED_PLAGUE,
    RESERVE,
    REVEALED,
    RULE_ANY,
    STEP,
    T_RULE,
    TASKS,
    WARLORD,
    WINDOW_POS,
    WINNER,
    WL_HELD,
    WL_UNCHOSEN,
    WL_USED,
)
from suntzu_env.suntzu.rules import (
    CARD_PLAGUE,
    CARD_SIX,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_WARLORDS_PER_SIDE,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_FEINT,
    W_HEAD_START,
    W_PURGE,
    W_REINFORCE,
)

NP = N_PROVINCES
NK = N_CARD_KINDS


@njit(cache=True)
def legal_mask(s: np.ndarray, mask: np.ndarray) -> int:
    """Fill `mask` (int8, N_ACTIONS) with the legal answers to the pending decision; return their count."""
    mask[:] = 0
    kind = s[DEC_KIND]
    side = s[DEC_SIDE]
    n = 0
    if kind == DK_NONE:
        return 0
    if kind == DK_WARLORD:
        for j in range(N_WARLORDS_PER_SIDE):
            w = side * N_WARLORDS_PER_SIDE + j
            if s[WARLORD + w] == WL_UNCHOSEN and not (s[PHASE] != PH_WARLORDS and w == W_HEAD_START):
                mask[A_WARLORD + w] = 1
                n += 1
        if s[PHASE] != PH_WARLORDS:  # R7.4: war_chariot's warlord is optional
            mask[A_PASS] = 1
            n += 1
    elif kind == DK_PLACE:
        n = _placement_mask(s, side, mask)
    elif kind in (DK_WINDOW, DK_REACTIVE):
        mask[A_USE] = 1
        mask[A_PASS] = 1
        n = 2
    elif kind == DK_TARGET:
        w = s[DEC_WARLORD]
        if w == W_REINFORCE and s[RESERVE] == 0:  # D16: blue recalls first, then names the province
            return recall_mask(s, side, mask)
        for p in range(NP):
            ok = False
            if w in (W_PURGE, W_REINFORCE):  # D13: purge removes a blue army
                ok = s[ARMIES + p] > 0
            elif s[MARCH_FROM] < 0:
                ok = s[ARMIES + p] > 0 and march_has_dest(s, p)
            else:
                ok = adjacent(s, s[MARCH_FROM], p) and s[ARMIES + NP + p] == 0
            if ok:
                mask[A_PROVINCE + p] = 1
                n += 1
    elif kind == DK_REVEAL:
        for p in range(NP):
            if s[REVEALED + p] == 0:
                mask[A_PROVINCE + p] = 1
                n += 1
    elif kind == DK_SOURCE:
        rule = s[TASKS + T_RULE]
        if s[RESERVE + side] > 0:
            mask[A_RESERVE] = 1
            n += 1
        if rule == RULE_ANY or n == 0:
            for p in range(NP):
                if s[ARMIES + side * NP + p] > 0:
                    mask[A_PROVINCE + p] = 1
                    n += 1
        if n == 0:  # D14: nothing to take, only a recall could pay: `pass` leaves it unpaid
            mask[A_PASS] = 1
            n = 1
        n += recall_mask(s, side, mask)  # D2 (b)
    elif kind == DK_SHORTFALL:
        n = shortfall_sources(s, side, s[DEC_PROV], mask)
        if n == 0:  # D14: nothing to take, only a recall could place it: `pass` leaves it unplaced
            mask[A_PASS] = 1
            n = 1
        n += recall_mask(s, side, mask)
    elif kind == DK_KEEP:
        for i in range(DRAW_SLOTS):
            c = s[DRAWN + side * DRAW_SLOTS + i]
            k = card_kind(c)
            if c >= 0 and mask[A_KEEP + k] == 0:
                mask[A_KEEP + k] = 1
                n += 1
    return n


@njit(cache=True, inline="always")
def _placement_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """R4.1, R4.2: the side's answers for the card of its next province (placement in progress)."""
    p = s[PLACE_PROV + side]
    n = 0
    for k in range(NK):
        if s[HAND + side * NK + k] > 0 and (k != CARD_SIX or may_place_six_at(s, side, p)):
            mask[A_PLACE + k] = 1
            n += 1
    return n + recall_mask(s, side, mask)


@njit(cache=True)
def placement_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """The side's own placement answers while it still has provinces to fill, whoever is asked now (R4.1)."""
    mask[:] = 0
    if s[PHASE] != PH_PLACEMENT or s[PLACE_PROV + side] >= NP or s[WINNER] >= 0:
        return 0
    return _placement_mask(s, side, mask)


@njit(cache=True)
def apply_answer(s: np.ndarray, a: int) -> None:
    """Apply a legal answer to the pending decision (no checks: see `legal_mask`)."""
    kind = s[DEC_KIND]
    side = s[DEC_SIDE]
    if kind == DK_WARLORD:
        if a != A_PASS:
            s[WARLORD + a - A_WARLORD] = WL_HELD
        if s[PHASE] == PH_WARLORDS:
            s[STEP] += 1
        else:
            s[CHARIOT + side] = 0
    elif kind == DK_PLACE:
        place(s, side, a)
    elif kind == DK_WINDOW:
        w = s[DEC_WARLORD]
        if a == A_USE:
            s[WARLORD + w] = WL_USED
            s[ACTIVE_WL] = w
        else:
            s[WINDOW_POS] += 1
    elif kind == DK_TARGET:
        if is_recall(a):  # D16: reinforce with an empty reserve; the target is asked next
            recall(s, side, a - A_RECALL + N_BASE_CARDS)
        else:
            apply_target(s, s[DEC_WARLORD], a - A_PROVINCE)
    elif kind == DK_REVEAL:
        start_battle(s, a - A_PROVINCE)
    elif kind == DK_REACTIVE:
        if a == A_USE:
            w = s[DEC_WARLORD]
            s[WARLORD + w] = WL_USED
            if w == W_FEINT:
                s[FEINT_ON] = 1
            elif w == W_COUNTER_PLAGUE:
                s[COUNTER_ON] = 1
            elif w == W_DEVASTATING_PLAGUE:
                s[DEVASTATE_ON] = 1
            else:
                recycle(s, side, s[BATTLE_PROV])
    elif kind in (DK_SOURCE, DK_SHORTFALL):
        if is_recall(a):  # D2 (b): the same decision is asked again
            recall(s, side, a - A_RECALL + N_BASE_CARDS)
        elif a == A_PASS:  # D14: the armies still owed are left unpaid or unplaced
            drop_task(s)
        elif a == A_RESERVE:
            s[RESERVE + side] -= 1
        else:
            s[ARMIES + side * NP + a - A_PROVINCE] -= 1
        if not is_recall(a) and a != A_PASS:
            deliver(s)
    elif kind == DK_KEEP:
        k = a - A_KEEP
        at = -1
        for i in range(DRAW_SLOTS):  # P14: a never-revealed Plague copy first
            c = s[DRAWN + side * DRAW_SLOTS + i]
            if c == k or (c == RECYCLED_PLAGUE and k == CARD_PLAGUE and at < 0):
                at = i
                if c == k:
                    break
        add_to_hand(s, side, s[DRAWN + side * DRAW_SLOTS + at])
        s[DRAWN + side * DRAW_SLOTS + at] = -1
        s[KEEP_LEFT + side] -= 1
    s[DEC_KIND] = DK_NONE


@njit(cache=True)
def place(s: np.ndarray, side: int, a: int) -> None:
    """R4.1/R4.2: the side places a card for its next province, or recalls."""
    if is_recall(a):
        recall(s, side, a - A_RECALL + N_BASE_CARDS)
        return
    p = s[PLACE_PROV + side]
    c = take_from_hand(s, side, a - A_PLACE)
    s[PLACED + side * NP + p] = card_kind(c)
    s[PLACED_RECYCLED + side * NP + p] = 1 if c == RECYCLED_PLAGUE else 0
    s[PLACE_PROV + side] = p + 1
