"""Pure conditions over the state: targets of the window warlords, a battle's difference, the events' triggers."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import adjacent, board_armies, can_recall, placed_card
from suntzu_env.suntzu.layout import ARMIES, BATTLE_WINNER, FEINT_ON, PLAGUES_SEEN, RESERVE, SIXES
from suntzu_env.suntzu.rules import (
    CARD_IS_RELATIVE,
    CARD_NINE,
    CARD_ONE,
    CARD_TEN,
    CHARIOT_SIXES,
    E_CHAMPION,
    E_HERO,
    E_PANDEMIC,
    E_WAR_CHARIOT,
    FEINT_CARD,
    N_PROVINCES,
    PANDEMIC_PLAGUES,
    W_PURGE,
    W_REINFORCE,
)
from suntzu_env.suntzu.tables import BATTLE_DIFF

NP = N_PROVINCES


@njit(cache=True)
def march_has_dest(s: np.ndarray, p: int) -> bool:
    """R8 march: whether a blue army in p may move to a bordering province that is empty or blue's."""
    for q in range(NP):
        if adjacent(s, p, q) and s[ARMIES + NP + q] == 0:
            return True
    return False


@njit(cache=True)
def window_can_act(s: np.ndarray, w: int) -> bool:
    """R8, P2: a window warlord is offered only when it has a target."""
    if w == W_PURGE:  # D13: a blue army
        return board_armies(s, 0) > 0
    if w == W_REINFORCE:  # D16: with an empty reserve, when a recall can supply the army
        return (s[RESERVE] > 0 or can_recall(s, 0)) and board_armies(s, 0) > 0
    # march: a blue army with an adjacent province that is empty or blue's
    for p in range(NP):
        if s[ARMIES + p] > 0 and march_has_dest(s, p):
            return True
    return False


@njit(cache=True)
def battle_diff(s: np.ndarray, bk: int, rk: int) -> int:
    """R5.1: blue's margin over red (negative when red wins); under feint blue's `7`..`10` counts as a `6`."""
    if s[FEINT_ON] == 1 and CARD_IS_RELATIVE[bk] == 0:
        bk = FEINT_CARD
    return BATTLE_DIFF[bk, rk]


@njit(cache=True)
def event_holds(s: np.ndarray, e: int, p: int) -> bool:
    """R7: whether event e's condition holds now (p: the battle's province, -1 outside a battle)."""
    if e == E_PANDEMIC:  # R7.1, D6
        return s[PLAGUES_SEEN] + s[PLAGUES_SEEN + 1] >= PANDEMIC_PLAGUES
    if e == E_WAR_CHARIOT:  # R7.4, P5
        return s[SIXES] >= CHARIOT_SIXES or s[SIXES + 1] >= CHARIOT_SIXES
    if e in (E_CHAMPION, E_HERO):
        card = CARD_NINE if e == E_CHAMPION else CARD_TEN
        for side in range(2):
            if placed_card(s, side, p) == card and s[BATTLE_WINNER] != side:
                return True
        return False
    # light_infantry, R7.5
    return p >= 0 and placed_card(s, 0, p) == CARD_ONE and placed_card(s, 1, p) == CARD_ONE
