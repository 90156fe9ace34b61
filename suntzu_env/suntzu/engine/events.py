"""Event cards (R7): applied while the face-up card's condition holds."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import placed_card
from suntzu_env.suntzu.engine.conditions import event_holds
from suntzu_env.suntzu.engine.transfers import move_armies, push_task
from suntzu_env.suntzu.layout import (
    BATTLE_MARGIN,
    BATTLE_OUTCOME,
    BATTLE_WINNER,
    BO_LIGHT_INFANTRY,
    CAUSE_CHAMPION,
    CAUSE_HERO,
    CAUSE_PANDEMIC,
    CHARIOT,
    DST_SET_ASIDE,
    ENDING,
    EVENT_DECK,
    EVENT_DECK_LEN,
    EVENT_UP,
    RULE_ANY,
    RULE_RESERVE_FIRST,
    SCORE,
    SIXES,
    WARLORDS_ON,
)
from suntzu_env.suntzu.rules import (
    CARD_NINE,
    CARD_TEN,
    CHAMPION_COST,
    CHARIOT_SIXES,
    E_CHAMPION,
    E_HERO,
    E_PANDEMIC,
    E_WAR_CHARIOT,
    HERO_COST,
    LIGHT_INFANTRY_MARGIN,
)


@njit(cache=True)
def _apply_event(s: np.ndarray, e: int, p: int) -> None:
    """R7: apply event e (p: the battle's province)."""
    if e == E_PANDEMIC:  # R7.1
        for side in range(2):
            push_task(s, side, 1, RULE_RESERVE_FIRST, DST_SET_ASIDE, -1, CAUSE_PANDEMIC)
    elif e == E_WAR_CHARIOT:  # R7.4, P7
        if s[WARLORDS_ON] == 1:
            for side in range(2):
                if s[SIXES + side] >= CHARIOT_SIXES:
                    s[CHARIOT + side] = 1
    elif e in (E_CHAMPION, E_HERO):  # R7.2, R7.3
        card = CARD_NINE if e == E_CHAMPION else CARD_TEN
        for side in range(2):
            if placed_card(s, side, p) == card and s[BATTLE_WINNER] != side:
                if e == E_CHAMPION:
                    push_task(s, side, CHAMPION_COST, RULE_ANY, DST_SET_ASIDE, p, CAUSE_CHAMPION)
                else:
                    push_task(s, side, HERO_COST, RULE_ANY, DST_SET_ASIDE, p, CAUSE_HERO)
    else:  # R7.5, P12: the side behind on the marker wins by 1; D7: at 0, no effect
        s[BATTLE_OUTCOME + p] = BO_LIGHT_INFANTRY  # over the tie of two `1`s: no decision came between
        if s[SCORE] != 0:
            behind = 1 if s[SCORE] > 0 else 0
            s[BATTLE_WINNER] = behind
            s[BATTLE_MARGIN + p] = LIGHT_INFANTRY_MARGIN if behind == 0 else -LIGHT_INFANTRY_MARGIN
            move_armies(s, behind, LIGHT_INFANTRY_MARGIN, p)


@njit(cache=True)
def run_events(s: np.ndarray, p: int) -> None:
    """R7: apply the face-up card while its condition holds, turning up the next each time."""
    while s[EVENT_UP] >= 0 and event_holds(s, s[EVENT_UP], p):
        _apply_event(s, s[EVENT_UP], p)
        n = s[EVENT_DECK_LEN]
        if n == 0:
            s[EVENT_UP] = -1
            s[ENDING] = 1  # R6.3: the last event was applied
            return
        s[EVENT_UP] = s[EVENT_DECK]
        for i in range(1, n):
            s[EVENT_DECK + i - 1] = s[EVENT_DECK + i]
        s[EVENT_DECK + n - 1] = -1
        s[EVENT_DECK_LEN] = n - 1
