"""The army-transfer queue (R5.3-R5.6, R7): armies that must move, one at a time, and where from."""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.engine.board import board_armies, can_recall, decide, shortfall_sources
from suntzu_env.suntzu.layout import (
    ARMIES,
    CAUSE_SHORTFALL,
    DK_SHORTFALL,
    DK_SOURCE,
    DST_MARK,
    DST_PROVINCE,
    DST_SET_ASIDE,
    MARKED,
    MAX_TASKS,
    RESERVE,
    RULE_ANY,
    RULE_SHORTFALL,
    SET_ASIDE,
    T_CAUSE,
    T_COUNT,
    T_DST,
    T_PROV,
    T_RULE,
    T_SIDE,
    TASK_LEN,
    TASK_SIZE,
    TASKS,
)
from suntzu_env.suntzu.rules import N_PROVINCES

NP = N_PROVINCES


@njit(cache=True)
def push_task(s: np.ndarray, side: int, count: int, rule: int, dst: int, p: int, cause: int) -> None:
    """Queue an army transfer: `count` armies of `side`, from where `rule` allows, to `dst`, for `cause`."""
    if count <= 0:
        return
    i = s[TASK_LEN]
    if i >= MAX_TASKS:
        raise RuntimeError("army transfer queue overflow")
    base = TASKS + i * TASK_SIZE
    s[base + T_SIDE] = side
    s[base + T_COUNT] = count
    s[base + T_RULE] = rule
    s[base + T_DST] = dst
    s[base + T_PROV] = p
    s[base + T_CAUSE] = cause
    s[TASK_LEN] = i + 1


@njit(cache=True)
def drop_task(s: np.ndarray) -> None:
    """Drop the head of the transfer queue."""
    n = s[TASK_LEN]
    for i in range(TASK_SIZE, n * TASK_SIZE):
        s[TASKS + i - TASK_SIZE] = s[TASKS + i]
    for i in range((n - 1) * TASK_SIZE, n * TASK_SIZE):
        s[TASKS + i] = 0
    s[TASK_LEN] = n - 1


@njit(cache=True)
def deliver(s: np.ndarray) -> None:
    """One army of the head task arrives at its destination."""
    side = s[TASKS + T_SIDE]
    dst = s[TASKS + T_DST]
    if dst == DST_SET_ASIDE:
        s[SET_ASIDE + side] += 1
    elif dst == DST_MARK:
        s[MARKED + side] += 1
    else:
        s[ARMIES + side * NP + s[TASKS + T_PROV]] += 1
    s[TASKS + T_COUNT] -= 1
    if s[TASKS + T_COUNT] == 0:
        drop_task(s)


@njit(cache=True)
def run_task(s: np.ndarray, scratch: np.ndarray) -> bool:
    """Move armies of the head task until a choice is needed (True) or it is done (False)."""
    side = s[TASKS + T_SIDE]
    rule = s[TASKS + T_RULE]
    p = s[TASKS + T_PROV]
    pending = s[TASK_LEN]
    while s[TASK_LEN] == pending:
        if rule != RULE_ANY and s[RESERVE + side] > 0:  # the reserve goes first, no choice
            s[RESERVE + side] -= 1
            deliver(s)
            continue
        if rule == RULE_SHORTFALL:
            has_source = shortfall_sources(s, side, p, scratch) > 0
        else:
            has_source = s[RESERVE + side] > 0 or board_armies(s, side) > 0
        if not has_source and not can_recall(s, side):  # P10, R5.4: what cannot be paid or placed is dropped
            drop_task(s)
            return False
        kind = DK_SHORTFALL if rule == RULE_SHORTFALL else DK_SOURCE  # D14: also when only a recall can
        return decide(s, kind, side, p, -1, s[TASKS + T_CAUSE])
    return False


@njit(cache=True)
def _add_armies(s: np.ndarray, side: int, count: int, p: int) -> None:
    """The side adds armies to p: from reserve, the rest as a shortfall (R5.4)."""
    take = min(count, s[RESERVE + side])
    s[RESERVE + side] -= take
    s[ARMIES + side * NP + p] += take
    push_task(s, side, count - take, RULE_SHORTFALL, DST_PROVINCE, p, CAUSE_SHORTFALL)


@njit(cache=True)
def move_armies(s: np.ndarray, winner: int, d: int, p: int) -> None:
    """R5.3: the winner of a battle by d in province p."""
    loser = 1 - winner
    held = s[ARMIES + loser * NP + p]
    if held > 0:
        removed = min(held, d)
        s[ARMIES + loser * NP + p] -= removed
        s[RESERVE + loser] += removed
        d -= removed
    if d > 0:
        _add_armies(s, winner, d, p)
