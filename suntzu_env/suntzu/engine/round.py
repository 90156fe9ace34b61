"""The round (R4): its start, the warlord windows (R8), the reveal order (R4.3) and the draw (R4.6)."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import add_to_hand, board_armies, decide, held, owner, placed_card
from suntzu_env.suntzu.engine.conditions import window_can_act
from suntzu_env.suntzu.engine.scoring import end_of_battles
from suntzu_env.suntzu.layout import (
    ACTIVE_WL,
    ARMIES,
    BATTLE_MARGIN,
    BATTLE_OUTCOME,
    BATTLE_PROV,
    BATTLE_WINNER,
    BO_NONE,
    BS_FEINT,
    CANCELLED,
    COUNTER_ON,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DEVASTATE_ON,
    DK_KEEP,
    DK_REVEAL,
    DK_TARGET,
    DK_WINDOW,
    DRAW_SLOTS,
    DRAWN,
    FEINT_ON,
    KEEP_LEFT,
    LAST_REVEAL,
    MARCH_FROM,
    ORDER_HOLDER,
    PH_BATTLE,
    PH_PLACEMENT,
    PH_REVEAL,
    PH_WINDOW,
    PHASE,
    PLACE_PROV,
    PLACED,
    PLACED_RECYCLED,
    PLAGUE_REVEALS,
    PLAGUES_SEEN,
    PRIVILEGE,
    RECYCLED,
    RESERVE,
    REVEALED,
    ROUND,
    SIXES,
    STEP,
    WINDOW_AFTER,
    WINDOW_POS,
)
from suntzu_env.suntzu.rules import (
    CARD_PLAGUE,
    CARD_SIX,
    LAST_WINDOW_ROUND,
    N_PROVINCES,
    N_WARLORDS,
    N_WARLORDS_PER_SIDE,
    W_PURGE,
    W_REINFORCE,
)
from suntzu_env.suntzu.tables import IS_WINDOW_WARLORD

NP = N_PROVINCES


@njit(cache=True)
def begin_round(s: np.ndarray) -> None:
    """Reset every per-round field for a new round's placement (R4.1)."""
    s[PHASE] = PH_PLACEMENT
    s[STEP] = 0
    s[PLACE_PROV] = 0
    s[PLACE_PROV + 1] = 0
    s[ORDER_HOLDER] = -1
    s[BATTLE_PROV] = -1
    s[BATTLE_WINNER] = -1
    s[FEINT_ON] = 0
    s[COUNTER_ON] = 0
    s[DEVASTATE_ON] = 0
    s[WINDOW_AFTER] = 0
    s[WINDOW_POS] = 0
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1
    s[KEEP_LEFT] = 0
    s[KEEP_LEFT + 1] = 0
    for i in range(2 * NP):
        s[PLACED + i] = -1
        s[PLACED_RECYCLED + i] = 0
        s[CANCELLED + i] = 0
        s[RECYCLED + i] = 0
    for p in range(NP):
        s[REVEALED + p] = 0
    for i in range(2 * DRAW_SLOTS):
        s[DRAWN + i] = -1


@njit(cache=True)
def _count_privilege(s: np.ndarray) -> None:
    """R4.3: once the window before battles is over, fix who orders this round's reveals."""
    holder = -1
    if s[ROUND] > 1:
        blue, red = board_armies(s, 0), board_armies(s, 1)
        if blue < red:
            holder = 0
        elif red < blue:
            holder = 1
        else:
            holder = s[PRIVILEGE]
        s[PRIVILEGE] = holder
    s[ORDER_HOLDER] = holder
    s[PHASE] = PH_REVEAL


@njit(cache=True)
def open_window(s: np.ndarray, after: int) -> None:
    """Open the warlord window before (after=0) or after (after=1) the battles (R8)."""
    s[PHASE] = PH_WINDOW
    s[WINDOW_AFTER] = after
    s[WINDOW_POS] = 0
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1


@njit(cache=True)
def window_step(s: np.ndarray) -> bool:
    """R8 windows, P1: offer each held window warlord in turn, blue's first."""
    w = s[ACTIVE_WL]
    if w >= 0:
        return decide(s, DK_TARGET, w // N_WARLORDS_PER_SIDE, s[MARCH_FROM], w, -1)
    while s[WINDOW_POS] < N_WARLORDS:
        w = s[WINDOW_POS]
        if IS_WINDOW_WARLORD[w] and held(s, w) and s[ROUND] <= LAST_WINDOW_ROUND and window_can_act(s, w):
            return decide(s, DK_WINDOW, w // N_WARLORDS_PER_SIDE, -1, w, -1)
        s[WINDOW_POS] += 1
    if s[WINDOW_AFTER] == 0:
        _count_privilege(s)
    else:
        end_of_battles(s)
    return False


@njit(cache=True)
def apply_target(s: np.ndarray, w: int, p: int) -> None:
    """R8: the window warlord w acts on province p (march takes two targets: source, then destination)."""
    if w == W_PURGE:  # remove one army; it returns to its owner's reserve
        side = owner(s, p)
        s[ARMIES + side * NP + p] -= 1
        s[RESERVE + side] += 1
    elif w == W_REINFORCE:
        s[RESERVE] -= 1
        s[ARMIES + p] += 1
    elif s[MARCH_FROM] < 0:  # march, P3: first the source...
        s[MARCH_FROM] = p
        return
    else:  # ...then the destination
        s[ARMIES + s[MARCH_FROM]] -= 1
        s[ARMIES + p] += 1
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1
    s[WINDOW_POS] += 1


@njit(cache=True)
def reveal_step(s: np.ndarray) -> bool:
    """R4.3: the next province to reveal, chosen by the holder or in board order."""
    left = 0
    first = -1
    for p in range(NP):
        if s[REVEALED + p] == 0:
            left += 1
            if first < 0:
                first = p
    if left == 0:
        open_window(s, 1)
        return False
    if s[ORDER_HOLDER] < 0:
        start_battle(s, first)
        return False
    return decide(s, DK_REVEAL, s[ORDER_HOLDER], -1, -1, -1)


@njit(cache=True)
def start_battle(s: np.ndarray, p: int) -> None:
    """R4.4: reveal province p's cards and start its battle; count revealed Plagues and `6`s (R7.1, R7.4)."""
    s[REVEALED + p] = 1
    s[BATTLE_PROV] = p
    s[BATTLE_OUTCOME + p] = BO_NONE  # the last round's result gives way to this battle's (R5.7: at its resolve)
    s[BATTLE_MARGIN + p] = 0
    s[PHASE] = PH_BATTLE
    s[STEP] = BS_FEINT
    s[BATTLE_WINNER] = -1
    s[FEINT_ON] = 0
    s[COUNTER_ON] = 0
    s[DEVASTATE_ON] = 0
    for side in range(2):
        k = placed_card(s, side, p)
        if k == CARD_PLAGUE:
            s[PLAGUE_REVEALS] += 1
            if s[PLACED_RECYCLED + side * NP + p] == 0:  # R7.1, D6: a copy counts once
                s[PLAGUES_SEEN + side] += 1
        elif k == CARD_SIX:  # R7.4: every revealed `6`, one facing a Plague too
            s[SIXES + side] += 1


@njit(cache=True)
def draw_step(s: np.ndarray) -> bool:
    """R4.6: each side keeps its drawn cards, blue first; the rest go to the deck's bottom."""
    while s[STEP] < 2:
        side = s[STEP]
        drawn = 0
        for i in range(DRAW_SLOTS):
            if s[DRAWN + side * DRAW_SLOTS + i] >= 0:
                drawn += 1
        if s[KEEP_LEFT + side] > 0 and drawn > s[KEEP_LEFT + side]:
            return decide(s, DK_KEEP, side, -1, -1, -1)
        for i in range(DRAW_SLOTS):
            c = s[DRAWN + side * DRAW_SLOTS + i]
            if c < 0:
                continue
            if s[KEEP_LEFT + side] > 0:
                add_to_hand(s, side, c)
                s[KEEP_LEFT + side] -= 1
            else:
                n = s[DECK_LEN + side]
                s[DECK + side * DECK_CAPACITY + n] = c
                s[DECK_LEN + side] = n + 1
            s[DRAWN + side * DRAW_SLOTS + i] = -1
        s[KEEP_LEFT + side] = 0
        s[STEP] = side + 1
    for i in range(2 * NP):  # every card of the round was revealed: it stays on show (R9)
        s[LAST_REVEAL + i] = s[PLACED + i]
    s[ROUND] += 1
    begin_round(s)
    return False
