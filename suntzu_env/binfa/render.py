"""Bin'Fa as text: the stacks sector by sector, terrain, whirlpools, supply and the turn."""

from __future__ import annotations

import numpy as np

from suntzu_env.binfa.geometry import COLOURS, N_COLOURS, N_WHIRLPOOLS, PER_SECTOR, TRIANGLE_NAMES, UNITS_PER_ARMY
from suntzu_env.binfa.layout import (
    ALIVE,
    ARMY_PLAYER,
    DEC_KIND,
    DECISION_KINDS,
    DICE,
    HEIGHT,
    LEVEL,
    MOVES_LEFT,
    N_PLACES,
    PAWN,
    STORE,
    TERRAIN,
    TO_ACT,
    TOKENS,
    TURN_ARMY,
    TURNS,
    UNIT_AT,
    UNIT_LEVEL,
    WHIRLPOOLS,
    WINNER,
)
from suntzu_env.binfa.observation import hidden

LETTERS = "ROYGBV"  # one letter per colour, in COLOURS order


def stack_letters(s: np.ndarray, t: int) -> str:
    """The stack on place `t`, bottom to top, one letter per unit (R red, O orange, ...)."""
    out = ["?"] * int(s[HEIGHT + t])
    for u in range(N_COLOURS * UNITS_PER_ARMY):
        if s[UNIT_AT + u] == t:
            out[int(s[UNIT_LEVEL + u])] = LETTERS[u // UNITS_PER_ARMY]
    return "".join(out)


def board_text(s: np.ndarray, viewer: int = -1) -> str:
    """A text picture of the position: one line per sector listing its occupied, terrain and whirlpool
    triangles (`row-position:stack`, `#` terrain, `@` whirlpool), then the armies and the turn. As player
    `viewer` sees it (-1: all of it): during deployment, without the other players' units (BD6)."""
    lines = []
    pools = set(int(w) for w in s[WHIRLPOOLS : WHIRLPOOLS + N_WHIRLPOOLS] if w >= 0)
    for sector in range(N_COLOURS):
        cells = []
        for i in range(PER_SECTOR):
            t = PER_SECTOR * sector + i
            name = TRIANGLE_NAMES[t].split("-", 1)[1]
            if s[TERRAIN + t] == 1:
                cells.append(f"{name}:#")
            elif t in pools:
                cells.append(f"{name}:@{stack_letters(s, t)}")
            elif s[HEIGHT + t] and not hidden(s, viewer, t):
                cells.append(f"{name}:{stack_letters(s, t)}")
        lines.append(f"{COLOURS[sector]:>7} | {' '.join(cells)}")
    if s[HEIGHT + N_PLACES - 1]:
        lines.append(f"in transit: {stack_letters(s, N_PLACES - 1)}")
    level = int(s[LEVEL])
    for c in range(N_COLOURS):
        p = int(s[ARMY_PLAYER + c])
        if p < 0:
            continue
        state = "in" if s[ALIVE + c] else "eliminated"
        supply = f" tokens {int(s[TOKENS + c])} pawn {int(s[PAWN + c])}" if level >= 3 else ""
        lines.append(f"{COLOURS[c]} ({LETTERS[c]}): player {p}, {state}{supply}")
    if level >= 3:
        lines.append(f"store: {int(s[STORE])}")
    w = int(s[WINNER])
    if w >= 0:
        lines.append(f"over after {int(s[TURNS])} turns: " + ("undecided" if w >= 6 else f"player {w} wins"))
    else:
        army = int(s[TURN_ARMY])
        lines.append(
            f"turn {int(s[TURNS]) + 1}: {DECISION_KINDS[s[DEC_KIND]]} for player {int(s[TO_ACT])}"
            + (f", army {COLOURS[army]}" if army >= 0 else "")
            + f", throw {int(s[DICE])}-{int(s[DICE + 1])}, moves left {int(s[MOVES_LEFT])}"
        )
    return "\n".join(lines)
