"""What a Bin'Fa position means for a fight, beyond its own rules: steps between triangles, the closed sides of a
stack (B10, B11), the reach of one throw (B3) and the chance of closing an encirclement (B5). The scripted agents'
evaluation (`suntzu_env.binfa.agents.evaluate`) weighs them, and the observation (`suntzu_env.binfa.observation`)
shows them on the triangles they concern; both read them from here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.binfa.engine import may_enter
from suntzu_env.binfa.geometry import N_TRIANGLES, NEIGHBOURS
from suntzu_env.binfa.layout import ARMY_PLAYER, DEC_KIND, DK_MOVE, HEIGHT, MOVES_LEFT, RUN, TERRAIN, TOP, TURN_ARMY

MARKER, WHIRLPOOL = 1, 2  # TERRAIN codes (engine)
# the chance that one throw's difference is at least d (B3): 30, 20, 12, 6, 2 of 36 for d = 1..5
REACH = np.array([1.0, 30 / 36, 20 / 36, 12 / 36, 6 / 36, 2 / 36])


def _distances() -> np.ndarray:
    """Steps between triangles across shared edges (B0.3), terrain ignored."""
    out = np.full((N_TRIANGLES, N_TRIANGLES), N_TRIANGLES, dtype=np.int64)
    for start in range(N_TRIANGLES):
        out[start, start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for t in frontier:
                for u in NEIGHBOURS[t]:
                    if u >= 0 and out[start, u] > out[start, t] + 1:
                        out[start, u] = out[start, t] + 1
                        nxt.append(int(u))
            frontier = nxt
    return out


DISTANCE = _distances()  # (96, 96)
FAR = int(DISTANCE.max())  # 15: the most steps between two triangles (B0.3)
DISTANCE8 = DISTANCE.astype(np.int8)  # the same in a byte each: a row is 96 bytes


@njit(cache=True)
def closes(s: np.ndarray, u: int, c: int) -> bool:
    """B10, B11, B23, B43: triangle `u` closes a side of a stack of colour `c` beside it."""
    return s[TERRAIN + u] == MARKER or (s[TERRAIN + u] != WHIRLPOOL and s[HEIGHT + u] >= 2 and s[TOP + u] != c)


@njit(cache=True)
def closed_sides(s: np.ndarray, t: int, c: int) -> tuple[int, int]:
    """How many sides of the stack of colour `c` on `t` are closed (`closes`), and of how many."""
    closed = 0
    sides = 0
    for j in range(3):
        u = NEIGHBOURS[t, j]
        if u < 0:
            continue
        sides += 1
        if closes(s, u, c):
            closed += 1
    return closed, sides


@njit(cache=True)
def throw_reach(steps: int) -> float:
    """B3: the chance that one throw's moves carry a stack `steps` triangles away onto a triangle: `REACH[steps]`,
    0 beyond five steps."""
    return REACH[steps] if steps < REACH.shape[0] else 0.0


@njit(cache=True)
def closing_reach(s: np.ndarray, t: int, player: int) -> float:
    """B10, B11: for the stack on `t` with one open side left, the chance that one throw brings a stack of 2
    units or more of `player`'s onto that side, capturing it: 1 if one is within the moves left of the throw
    `player` is playing (B5), else the largest `REACH` over `player`'s stacks that may enter that side (B6),
    leaving aside a stack beside `t` unless it can spare a pair of its colour (4 on top) and keep its own side
    closed. 0 when the open side is a whirlpool (B43: it never closes)."""
    c = s[TOP + t]
    o = -1
    for j in range(3):
        u = NEIGHBOURS[t, j]
        if u >= 0 and not closes(s, u, c):
            o = u
    if o < 0 or s[TERRAIN + o] == WHIRLPOOL:
        return 0.0
    left = 0  # B5: the moves of the throw being played are sure
    if s[DEC_KIND] == DK_MOVE and s[TURN_ARMY] >= 0 and s[ARMY_PLAYER + s[TURN_ARMY]] == player:
        left = s[MOVES_LEFT]
    best = 0.0
    for u in range(N_TRIANGLES):
        if u in (t, o) or s[HEIGHT + u] < 2 or s[ARMY_PLAYER + s[TOP + u]] != player:
            continue
        if not may_enter(s, s[TOP + u], o) or (DISTANCE[u, t] == 1 and s[RUN + u] < 4):
            continue
        d = DISTANCE[u, o]
        if d <= left:
            return 1.0
        best = max(best, throw_reach(d))
    return best


@njit(cache=True)
def steps_to_stacks(s: np.ndarray, player: int, own: bool, steps: np.ndarray) -> int:
    """B0.3: the steps from each triangle to the nearest stack of `player`'s (`own`) or of the other players'
    (terrain ignored, as in `DISTANCE`; `FAR` + 1 where there is none) written to `steps` (96 int8): the least of
    their rows of `DISTANCE8`, which the compiler takes many triangles at a time. Returns how many stacks there
    are."""
    steps[:] = FAR + 1
    stacks = 0
    for u in range(N_TRIANGLES):
        if s[HEIGHT + u] > 0 and (s[ARMY_PLAYER + s[TOP + u]] == player) == own:
            stacks += 1
            row = DISTANCE8[u]
            for t in range(N_TRIANGLES):
                steps[t] = min(steps[t], row[t])
    return stacks


__all__ = [
    "DISTANCE",
    "DISTANCE8",
    "FAR",
    "MARKER",
    "REACH",
    "WHIRLPOOL",
    "closed_sides",
    "closes",
    "closing_reach",
    "steps_to_stacks",
    "throw_reach",
]
