"""Bin'Fa's board, declared once (B0.1-B0.4, BD1-BD3): the battlefield's 96 triangles, their neighbours and
the 42-circle supply ring. Everything else (the engine, the actions, the records, the pictures) derives
from the tables here.

A triangle's index is `16 * sector + (r - 1) ** 2 + p`: sector 0..5 (one per colour, clockwise), row
r = 1..4 counted from the centre (2r - 1 triangles), position p = 0..2r - 2 clockwise; its name is
`<colour>-<r>-<p>`. Circle `7 * s + k` (k = 0..6) of the ring faces triangle (s, 4, k).
"""

from __future__ import annotations

import numpy as np

COLOURS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "violet")  # BD1, clockwise
COLOUR_FILL: tuple[str, ...] = ("#d62828", "#f58c1e", "#f0d228", "#32a046", "#285ac8", "#8c3caa")  # how each is painted
N_COLOURS = 6
ROWS = 4
PER_SECTOR = ROWS * ROWS  # 16 (B1: the sixteen triangles of a base)
N_TRIANGLES = N_COLOURS * PER_SECTOR  # 96 (BD2)
CIRCLES_PER_SECTOR = 7
N_CIRCLES = N_COLOURS * CIRCLES_PER_SECTOR  # 42 (B0.4)
CENTRAL_CIRCLE = 3  # k of a sector's central circle (B32)
UNITS_PER_ARMY = 12  # B0.6
N_UNITS = N_COLOURS * UNITS_PER_ARMY
N_TERRAIN = 9  # B21
N_WHIRLPOOLS = 3  # B38
STORE_TOKENS = 60  # B0.6
ELIMINATION_UNITS = 3  # B12: an army with this many units or fewer is eliminated


def triangle(sector: int, r: int, p: int) -> int:
    """The index of triangle (sector, r, p)."""
    return PER_SECTOR * (sector % N_COLOURS) + (r - 1) ** 2 + p


def coordinates(t: int) -> tuple[int, int, int]:
    """(sector, r, p) of triangle index `t`."""
    sector, i = divmod(t, PER_SECTOR)
    r = int(np.sqrt(i)) + 1
    return sector, r, i - (r - 1) ** 2


def _names() -> tuple[str, ...]:
    return tuple(f"{COLOURS[s]}-{r}-{p}" for t in range(N_TRIANGLES) for s, r, p in [coordinates(t)])


TRIANGLE_NAMES = _names()
TRIANGLE_INDEX: dict[str, int] = {n: i for i, n in enumerate(TRIANGLE_NAMES)}


def _directed(t: int) -> list[int]:
    """B0.3: the neighbours of `t` by direction: left and right along its row (across a sector boundary at
    the row's ends), then across its third edge (outward for even p, inward for odd p; -1 on the board's
    edge). A direction keeps its meaning when the board turns by a sector (BD12)."""
    s, r, p = coordinates(t)
    last = 2 * r - 2
    left = triangle(s, r, p - 1) if p > 0 else triangle(s - 1, r, 2 * r - 2)
    right = triangle(s, r, p + 1) if p < last else triangle(s + 1, r, 0)
    outward = triangle(s, r + 1, p + 1) if r < ROWS else -1
    third = outward if p % 2 == 0 else triangle(s, r - 1, p - 1)  # outward from even p, inward from odd p
    return [left, right, third]


def _neighbours(t: int) -> list[int]:
    """B0.3: the triangles sharing an edge with `t`."""
    return sorted(set(u for u in _directed(t) if u >= 0))


def _neighbour_table() -> np.ndarray:
    table = np.full((N_TRIANGLES, 3), -1, dtype=np.int64)
    for t in range(N_TRIANGLES):
        ns = _neighbours(t)
        table[t, : len(ns)] = ns
    return table


NEIGHBOURS = _neighbour_table()  # (96, 3): neighbour indices, -1 after the last (border triangles have 2)
DEGREE = (NEIGHBOURS >= 0).sum(axis=1).astype(np.int64)
DIRECTIONS = ("left", "right", "across")  # along the row, then across the third edge (in or out)
STEP = np.array([_directed(t) for t in range(N_TRIANGLES)], dtype=np.int64)  # (96, 3): neighbour by direction, -1 none
BORDER = np.flatnonzero(DEGREE == 2)  # the 24 border triangles (B10)
SECTOR = np.arange(N_TRIANGLES, dtype=np.int64) // PER_SECTOR  # base (colour) of each triangle


def _edges() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    frm, to = [], []
    slot = np.full((N_TRIANGLES, 3), -1, dtype=np.int64)
    for t in range(N_TRIANGLES):
        for j in range(3):
            u = NEIGHBOURS[t, j]
            if u >= 0:
                slot[t, j] = len(frm)
                frm.append(t)
                to.append(int(u))
    return np.array(frm, dtype=np.int64), np.array(to, dtype=np.int64), slot


EDGE_FROM, EDGE_TO, EDGE_OF = _edges()  # directed edges; EDGE_OF[t, j] is the edge t -> NEIGHBOURS[t, j]
N_EDGES = len(EDGE_FROM)  # 264


def _ring_colours() -> np.ndarray:
    """B0.4 and BD3: circles 2, 3, 4 of a sector take its colour, 0-1 the previous sector's, 5-6 the next's."""
    out = np.empty(N_CIRCLES, dtype=np.int64)
    for s in range(N_COLOURS):
        for k in range(CIRCLES_PER_SECTOR):
            out[CIRCLES_PER_SECTOR * s + k] = (s - 1) % N_COLOURS if k < 2 else (s + 1) % N_COLOURS if k > 4 else s
    return out


RING_COLOUR = _ring_colours()  # (42,): colour index of each circle, clockwise
CIRCLE_SECTOR = np.arange(N_CIRCLES, dtype=np.int64) // CIRCLES_PER_SECTOR  # the sector each circle faces
CENTRAL = np.array([CIRCLES_PER_SECTOR * s + CENTRAL_CIRCLE for s in range(N_COLOURS)], dtype=np.int64)
