"""One battle (R5), step by step in the order of R5.7."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import card_kind, decide, held, owner, placed_card
from suntzu_env.suntzu.engine.conditions import battle_diff
from suntzu_env.suntzu.engine.events import run_events
from suntzu_env.suntzu.engine.scoring import finish_by_marker
from suntzu_env.suntzu.engine.transfers import move_armies, push_task
from suntzu_env.suntzu.layout import (
    ARMIES,
    BATTLE_MARGIN,
    BATTLE_OUTCOME,
    BATTLE_PROV,
    BATTLE_WINNER,
    BO_COMBAT,
    BO_DEVASTATED,
    BO_PLAGUE,
    BS_CHARIOT,
    BS_COSTS,
    BS_COUNTER,
    BS_DEVASTATE,
    BS_DONE,
    BS_EVENTS,
    BS_FEINT,
    BS_MARKS,
    BS_RECYCLE_BLUE,
    BS_RECYCLE_RED,
    BS_RESOLVE,
    CANCELLED,
    CAUSE_COST,
    CAUSE_MARK,
    CHARIOT,
    COUNTER_ON,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DEVASTATE_ON,
    DK_REACTIVE,
    DK_WARLORD,
    DST_MARK,
    DST_SET_ASIDE,
    ENDING,
    EVENTS_ON,
    OUT,
    PH_REVEAL,
    PHASE,
    RECYCLED,
    RECYCLED_PLAGUE,
    RESERVE,
    RULE_ANY,
    RULE_RESERVE_FIRST,
    SIX_MARKS,
    STEP,
    WARLORD,
    WL_USED,
)
from suntzu_env.suntzu.rules import (
    CARD_COST,
    CARD_IS_RELATIVE,
    CARD_MINUS1,
    CARD_PLAGUE,
    CARD_SEVEN,
    CARD_SIX,
    CARD_TEN,
    N_CARD_KINDS,
    N_PROVINCES,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_DOUBLE_SIX,
    W_FEINT,
    W_RECYCLE_MINUS_ONE,
    W_RECYCLE_PLAGUE,
)
from suntzu_env.suntzu.tables import plague_removed

NP = N_PROVINCES
NK = N_CARD_KINDS


@njit(cache=True)
def battle_step(s: np.ndarray) -> bool:
    """One step of the battle in BATTLE_PROV, in the order of R5.7."""
    p = s[BATTLE_PROV]
    bk = placed_card(s, 0, p)
    rk = placed_card(s, 1, p)
    st = s[STEP]
    s[STEP] = st + 1
    has_plague = bk == CARD_PLAGUE or rk == CARD_PLAGUE
    active_plague = has_plague and s[COUNTER_ON] == 0
    if st == BS_FEINT:
        if held(s, W_FEINT) and CARD_SEVEN <= bk <= CARD_TEN and CARD_IS_RELATIVE[rk] == 0:
            return decide(s, DK_REACTIVE, 0, p, W_FEINT, -1)
    elif st == BS_COUNTER:  # D9: it counters one Plague, so it changes nothing against two
        if (bk == CARD_PLAGUE) != (rk == CARD_PLAGUE) and held(s, W_COUNTER_PLAGUE):
            return decide(s, DK_REACTIVE, 1, p, W_COUNTER_PLAGUE, -1)
    elif st == BS_DEVASTATE:
        n = s[ARMIES + p] + s[ARMIES + NP + p]
        changes = plague_removed(n, True) > plague_removed(n, False)  # it would change something
        if active_plague and changes and held(s, W_DEVASTATING_PLAGUE):
            return decide(s, DK_REACTIVE, 1, p, W_DEVASTATING_PLAGUE, -1)
    elif st == BS_MARKS:  # R5.5: every revealed 6 marks, army from reserve first
        for side in range(2):
            k = placed_card(s, side, p)
            if active_plague and k != CARD_PLAGUE:  # R5.2, D5: the card's effects are cancelled
                s[CANCELLED + side * NP + p] = 1
            if k == CARD_SIX:
                if s[SIX_MARKS + side * NP + p] > 0:  # P4: red's second 6 there spends double_six
                    s[WARLORD + W_DOUBLE_SIX] = WL_USED
                if s[CANCELLED + side * NP + p] == 0:
                    s[SIX_MARKS + side * NP + p] += 1
                    push_task(s, side, 1, RULE_RESERVE_FIRST, DST_MARK, p, CAUSE_MARK)
    elif st == BS_RESOLVE:
        if active_plague:  # R5.2
            s[BATTLE_OUTCOME + p] = BO_DEVASTATED if s[DEVASTATE_ON] == 1 else BO_PLAGUE
            side = owner(s, p)
            if side >= 0:
                removed = plague_removed(s[ARMIES + side * NP + p], s[DEVASTATE_ON] == 1)
                s[ARMIES + side * NP + p] -= removed
                s[RESERVE + side] += removed
        else:
            d = battle_diff(s, bk, rk)
            s[BATTLE_OUTCOME + p] = BO_COMBAT
            s[BATTLE_MARGIN + p] = d
            if d > 0:
                s[BATTLE_WINNER] = 0
                move_armies(s, 0, d, p)
            elif d < 0:
                s[BATTLE_WINNER] = 1
                move_armies(s, 1, -d, p)
    elif st == BS_COSTS:  # R5.6, D5: no cost for a card facing an active Plague
        for side in range(2):
            if s[CANCELLED + side * NP + p] == 0:
                push_task(s, side, CARD_COST[placed_card(s, side, p)], RULE_ANY, DST_SET_ASIDE, p, CAUSE_COST)
    elif st == BS_EVENTS:
        if s[EVENTS_ON] == 1:
            run_events(s, p)
    elif st == BS_CHARIOT:
        if s[ENDING] == 1:  # R6.3, P6
            finish_by_marker(s)
            return False
        for side in range(2):
            if s[CHARIOT + side] == 1:
                s[STEP] = st  # stay here until both choices are made
                return decide(s, DK_WARLORD, side, -1, -1, -1)
    elif st == BS_RECYCLE_BLUE:  # D8: not into an empty deck
        if bk == CARD_MINUS1 and held(s, W_RECYCLE_MINUS_ONE) and s[DECK_LEN] > 0:
            return decide(s, DK_REACTIVE, 0, p, W_RECYCLE_MINUS_ONE, -1)
    elif st == BS_RECYCLE_RED:
        if rk == CARD_PLAGUE and held(s, W_RECYCLE_PLAGUE) and s[DECK_LEN + 1] > 0:
            return decide(s, DK_REACTIVE, 1, p, W_RECYCLE_PLAGUE, -1)
    elif st == BS_DONE:
        s[BATTLE_PROV] = -1
        s[PHASE] = PH_REVEAL
    return False


@njit(cache=True)
def recycle(s: np.ndarray, side: int, p: int) -> None:
    """recycle_plague / recycle_minus_one: the card to the deck's bottom, then its top card out (D8: deck not empty)."""
    base = DECK + side * DECK_CAPACITY
    n = s[DECK_LEN + side]
    s[OUT + side * NK + card_kind(s[base])] += 1  # P11: the discarded card is public
    for i in range(1, n):
        s[base + i - 1] = s[base + i]
    k = placed_card(s, side, p)
    s[base + n - 1] = RECYCLED_PLAGUE if k == CARD_PLAGUE else k  # R7.1: a revealed copy
    s[RECYCLED + side * NP + p] = 1
