"""Bin'Fa's learning action space: a compact id for every engine action, seen from the acting player (BD12).

The engine's own action space (`suntzu_env.binfa.actions`, 33,255 ids) gives every count of units its own
id, up to 72, and names triangles by colour. A learner gets this smaller space instead, declared once in
`LEARN_GROUPS`; the mask, the engine action and the string of each id derive from it:

| group      | id layout                                   | count          |
|------------|---------------------------------------------|----------------|
| `deploy`   | triangle                                    | 96             |
| `pawn`     | circle                                      | 42             |
| `army`     | colour                                      | 6              |
| `roll`, `resupply`, `stop` | one each                    | 3              |
| `dislodge` | triangle x direction                        | 96 x 3         |
| `move`     | (triangle x direction) x count              | 96 x 3 x 13    |
| `transfer` | whirlpool x count                           | 3 x 13         |
| `retreat`  | direction x count                           | 3 x 13         |
| `advance`  | `pawn:+k`, k = 1..12                        | 12             |

- Triangles, circles and colours are the *viewer's*: the board turns so that the acting player's (first)
  army's base is sector 0 (`to_view`), circles turn with it, and colours count clockwise from that army.
- A direction is `left`, `right` or `across` (`geometry.DIRECTIONS`): along the row, or across its third
  edge; a dislodge or a move leaves its triangle that way, a retreat leaves the retreating triangle
  (B16, B18) that way. Directions keep their meaning when the board turns.
- A count slot is `n - 1` for n = 1..12 units, and slot 12 (`all`) for a whole stack of more than 12 (one
  that carries covered units, B7): the only legal count above 12 (`engine.push_counts`), so two legal engine
  actions never share an id.
- A transfer names the whirlpool by its rank among the three in the viewer's triangle order.

`learn_id(s, a, rot)` maps a legal engine action to its id and `engine_action(s, legal, n, c, rot)` maps an
id back (the legal engine action with that id, -1 none), both exact on the legal actions of a decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.binfa import actions
from suntzu_env.binfa.geometry import (
    CIRCLES_PER_SECTOR,
    DIRECTIONS,
    EDGE_FROM,
    EDGE_TO,
    N_CIRCLES,
    N_COLOURS,
    N_EDGES,
    N_TRIANGLES,
    N_WHIRLPOOLS,
    PER_SECTOR,
    STEP,
    TRIANGLE_NAMES,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.layout import PLAYER_SECTOR, RETREAT_AT, WHIRLPOOLS

N_DIRECTIONS = len(DIRECTIONS)
COUNT_SLOTS = UNITS_PER_ARMY + 1  # n = 1..12, then a whole stack of more than 12
WHOLE = UNITS_PER_ARMY  # the count slot of a whole stack of more than 12 units

LEARN_GROUPS: tuple[tuple[str, int], ...] = (
    *actions.SHARED_GROUPS,
    ("dislodge", N_TRIANGLES * N_DIRECTIONS),
    ("move", N_TRIANGLES * N_DIRECTIONS * COUNT_SLOTS),
    ("transfer", N_WHIRLPOOLS * COUNT_SLOTS),
    ("retreat", N_DIRECTIONS * COUNT_SLOTS),
    ("advance", actions.MAX_ADVANCE),
)


LEARN_OFFSET, N_LEARN_ACTIONS = actions.group_offsets(LEARN_GROUPS)
L_DEPLOY = LEARN_OFFSET["deploy"]
L_PAWN = LEARN_OFFSET["pawn"]
L_ARMY = LEARN_OFFSET["army"]
L_ROLL = LEARN_OFFSET["roll"]  # then resupply and stop, in the engine's order
L_DISLODGE = LEARN_OFFSET["dislodge"]
L_MOVE = LEARN_OFFSET["move"]
L_TRANSFER = LEARN_OFFSET["transfer"]
L_RETREAT = LEARN_OFFSET["retreat"]
L_ADVANCE = LEARN_OFFSET["advance"]
assert L_DISLODGE == actions.A_DISLODGE  # the shared groups keep their ids


def _edge_directions() -> np.ndarray:
    out = np.full(N_EDGES, -1, dtype=np.int64)
    for e in range(N_EDGES):
        out[e] = list(STEP[EDGE_FROM[e]]).index(EDGE_TO[e])
    return out


EDGE_DIRECTION = _edge_directions()  # (264,): the direction of each directed edge


@njit(cache=True)
def view_rotation(s: np.ndarray, player: int) -> int:
    """BD12: the sector turned to 0 for `player`, that of its first army."""
    return s[PLAYER_SECTOR + player]


@njit(cache=True)
def to_view(t: int, rot: int) -> int:
    """Triangle `t` (0..95) as the viewer whose base is sector `rot` (0..5) sees it."""
    v = t - PER_SECTOR * rot
    return v + N_TRIANGLES if v < 0 else v


def _view_cells() -> np.ndarray:
    view = getattr(to_view, "py_func", to_view)  # plain Python: nothing compiles on import
    out = np.zeros((N_COLOURS, N_EDGES), dtype=np.int64)
    for rot in range(N_COLOURS):
        for e in range(N_EDGES):
            out[rot, e] = N_DIRECTIONS * view(int(EDGE_FROM[e]), rot) + EDGE_DIRECTION[e]
    return out


VIEW_CELL = _view_cells()  # (6, 264): a directed edge's (triangle x direction) cell as the viewer of each base sees it


@njit(cache=True)
def count_slot(n: int) -> int:
    return n - 1 if n <= WHOLE else WHOLE


@njit(cache=True)
def whirlpool_rank(s: np.ndarray, w: int, rot: int) -> int:
    """The rank of whirlpool `w` among the game's whirlpools in the viewer's triangle order."""
    rank = 0
    for i in range(N_WHIRLPOOLS):
        x = s[WHIRLPOOLS + i]
        if x >= 0 and to_view(x, rot) < to_view(w, rot):
            rank += 1
    return rank


@njit(cache=True)
def direction(t: int, u: int) -> int:
    """The direction from triangle `t` to its neighbour `u`."""
    for d in range(N_DIRECTIONS):
        if STEP[t, d] == u:
            return d
    return -1


@njit(cache=True)
def learn_id(s: np.ndarray, a: int, rot: int) -> int:
    """The learning id of engine action `a`, for the viewer whose base is sector `rot`."""
    if actions.A_MOVE <= a < actions.A_TRANSFER:  # the most frequent answers first
        e, k = divmod(a - actions.A_MOVE, actions.MAX_N)
        return L_MOVE + VIEW_CELL[rot, e] * COUNT_SLOTS + count_slot(k + 1)
    if a < actions.A_PAWN:
        return L_DEPLOY + to_view(a - actions.A_DEPLOY, rot)
    if a < actions.A_ARMY:
        return L_PAWN + (a - actions.A_PAWN - CIRCLES_PER_SECTOR * rot) % N_CIRCLES
    if a < actions.A_ROLL:
        return L_ARMY + (a - actions.A_ARMY - rot) % N_COLOURS
    if a <= actions.A_STOP:
        return L_ROLL + a - actions.A_ROLL
    if a < actions.A_MOVE:
        return L_DISLODGE + VIEW_CELL[rot, a - actions.A_DISLODGE]
    if a < actions.A_RETREAT:
        w, k = divmod(a - actions.A_TRANSFER, actions.MAX_N)
        return L_TRANSFER + whirlpool_rank(s, w, rot) * COUNT_SLOTS + count_slot(k + 1)
    if a < actions.A_ADVANCE:
        u, k = divmod(a - actions.A_RETREAT, actions.MAX_N)
        return L_RETREAT + direction(s[RETREAT_AT], u) * COUNT_SLOTS + count_slot(k + 1)
    return L_ADVANCE + a - actions.A_ADVANCE


@njit(cache=True)
def learn_mask(s: np.ndarray, legal: np.ndarray, n: int, rot: int, mask: np.ndarray) -> None:
    """Writes the mask of the legal engine actions `legal[:n]` over the learning ids into `mask`."""
    mask[:] = 0
    for i in range(n):
        mask[learn_id(s, legal[i], rot)] = 1


@njit(cache=True)
def engine_action(s: np.ndarray, legal: np.ndarray, n: int, c: int, rot: int) -> int:
    """The legal engine action among `legal[:n]` whose learning id is `c`; -1 when none is."""
    for i in range(n):
        if learn_id(s, legal[i], rot) == c:
            return legal[i]
    return -1


def learn_ids(s: np.ndarray, legal: np.ndarray, rot: int) -> np.ndarray:
    """The learning ids of the engine actions `legal` (an int array), in order."""
    return np.array([learn_id(s, int(a), rot) for a in legal], dtype=np.int64)


def learn_action_name(c: int) -> str:
    """The name of learning id `c` in the viewer's frame, without a game: the viewer's base is named as
    red's (`red-2-1`), other triangles by the colour of their sector as the viewer sees it; a count is a
    number or `all` (a whole stack of more than 12); a transfer names a whirlpool by rank (`w0`..`w2`), a
    retreat only its direction. With a game, `Game.learn_action_string` gives the engine's string."""
    if isinstance(c, bool) or not 0 <= c < N_LEARN_ACTIONS:
        raise ValueError(f"action {c} is out of range: actions are 0..{N_LEARN_ACTIONS - 1}")
    c = int(c)

    if c < L_DISLODGE:  # the groups both action spaces share, id for id
        return actions.action_to_string(c)
    group, i = actions.locate(LEARN_GROUPS, c)
    if group == "advance":
        return actions.action_to_string(actions.A_ADVANCE + i)
    if group == "dislodge":
        return f"dislodge:{_cell_name(i)}"
    i, slot = divmod(i, COUNT_SLOTS)
    count = "all" if slot == WHOLE else str(slot + 1)
    place = _cell_name(i) if group == "move" else f"w{i}" if group == "transfer" else DIRECTIONS[i]
    return f"{group}:{place}:{count}"


def _cell_name(cell: int) -> str:
    """`<triangle>><direction>`: a triangle and the way out of it, of a dislodge or move cell."""
    v, d = divmod(cell, N_DIRECTIONS)
    return f"{TRIANGLE_NAMES[v]}>{DIRECTIONS[d]}"


def describe_learn_actions() -> str:
    """A Markdown table of the learning action space: group, first id, count."""
    rows = ["| group | ids | count |", "|---|---|---|"]
    for name, size in LEARN_GROUPS:
        start = LEARN_OFFSET[name]
        rows.append(f"| `{name}` | {start}..{start + size - 1} | {size} |")
    return "\n".join(rows)


__all__ = [
    "COUNT_SLOTS",
    "LEARN_GROUPS",
    "N_LEARN_ACTIONS",
    "describe_learn_actions",
    "engine_action",
    "learn_action_name",
    "learn_id",
    "learn_mask",
    "to_view",
    "view_rotation",
]
