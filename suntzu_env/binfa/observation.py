"""What one player observes of Bin'Fa, from its own point of view (BD12), declared once as named pieces.

Nothing in Bin'Fa is hidden after deployment (B36, B0.8: only future dice are unknown), so the observation is
the whole position (but, during deployment under rules v1.1, the units the other players placed: `hidden`, BD6),
turned so that the viewer's (first) army's base is sector 0 (`encoding.to_view`): triangle
pieces are 96 values in the viewer's triangle order, army pieces 6 values by colour counted clockwise
from the viewer's army (index 0 is the viewer's first army), circles in the viewer's circle order. Once play
starts, five more pieces (`enemy_closeness` on) put on each triangle what the scripted agents' evaluation reads
further away than its neighbours (`suntzu_env.binfa.tactics`: how near the other armies are, a capture one side
away and its chance, a throw's reach). Every
value lies in [0, high] of its piece. `OBSERVATION_PIECES` is the single declaration: `observe` (compiled)
writes each piece at its offset, and `describe_observation()`, `observation_bounds()` and
`observation_views()` derive from it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from suntzu_env.binfa import layout
from suntzu_env.binfa.encoding import to_view
from suntzu_env.binfa.geometry import (
    CIRCLES_PER_SECTOR,
    N_CIRCLES,
    N_COLOURS,
    N_TRIANGLES,
    N_UNITS,
    STORE_TOKENS,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.tactics import FAR, WHIRLPOOL, closed_sides, closing_reach, steps_to_stacks, throw_reach

MAX_STACK = N_UNITS / UNITS_PER_ARMY  # a stack's height over 12 is at most 6 (every unit of 6 armies)


class Piece(NamedTuple):
    name: str
    size: int
    high: float
    doc: str
    offset: int


OBSERVATION_PIECES: list[Piece] = []


def _piece(name: str, size: int, high: float, doc: str) -> int:
    offset = OBSERVATION_PIECES[-1].offset + OBSERVATION_PIECES[-1].size if OBSERVATION_PIECES else 0
    OBSERVATION_PIECES.append(Piece(name, size, float(high), doc, offset))
    return offset


T = N_TRIANGLES
# fmt: off
O_MARKER        = _piece("terrain", T, 1, "1 on a terrain marker (B21)")
O_WHIRLPOOL     = _piece("whirlpool", T, 1, "1 on a whirlpool (B38)")
O_HEIGHT        = _piece("height", T, MAX_STACK, "units in the stack / 12, covered units included (B7)")
O_COLOUR        = _piece("colour", N_COLOURS * T, 1, "per army clockwise from mine: 1 where it tops the stack (B7)")
O_RUN           = _piece("run", T, 1, "units of the top colour on top, one after another / 12 (what may move apart)")
O_OWN           = _piece("own_units", T, MAX_STACK, "my units in the stack / 12, covered ones included")
O_FRESH         = _piece("fresh", T, 1, "1 on a whirlpool whose units came in this throw (B39)")
O_ATTACK_FROM   = _piece("attack_from", T, 1, "1 on the dislodging stack's triangle (B15)")
O_ATTACK_TO     = _piece("attack_to", T, 1, "1 on the dislodged triangle (B15)")
O_RETREAT_AT    = _piece("retreat_at", T, 1, "1 on the triangle the retreating units leave (B16, B18)")
O_TRANSFER_FROM = _piece("transfer_from", T, 1, "1 on the whirlpool entered by the units in transit (B39)")
O_TRANSFER_TO   = _piece("transfer_to", T, 1, "1 on whirlpools already receiving units of this transfer (B39)")
O_ALIVE         = _piece("army_in_game", N_COLOURS, 1, "per army: 1 while in the game (B12)")
O_MINE          = _piece("army_mine", N_COLOURS, 1, "per army: 1 when it is one of mine (B47)")
O_TURN_ARMY     = _piece("army_playing", N_COLOURS, 1, "per army: 1 for the army played this turn (B48)")
O_STRENGTH      = _piece("army_units", N_COLOURS, MAX_STACK, "per army: its units / 12 (B12)")
O_TOKENS        = _piece("army_tokens", N_COLOURS, 1, "per army: its supply tokens / 60 (B36)")
O_PAWNS         = _piece("pawns", N_COLOURS * N_CIRCLES, 1, "per army: 1 on the circle of its pawn (B24)")
O_LEVEL         = _piece("level", 4, 1, "one-hot: level 1..4 (B0.7)")
O_PLAYERS       = _piece("players", layout.MAX_PLAYERS - 1, 1, "one-hot: 2..6 players")
O_STORE         = _piece("store", 1, 1, "tokens in the store / 60")
O_DICE          = _piece("dice", 12, 1, "the last throw: two one-hot dice (B3)")
O_MOVES         = _piece("moves_left", 1, 1, "moves of the throw still to make / 5 (B5)")
O_MODE          = _piece("mode", len(layout.MODES), 1, "one-hot: nothing thrown yet, moving, resupplying (B26)")
O_DECISION      = _piece("decision", len(layout.DECISION_KINDS), 1, "one-hot: the pending decision's kind")
O_RETREAT_STEP  = _piece("retreat_step", 3, 1, "one-hot: a six (B16), first or second step of a double six (B18)")
O_RETREAT_N     = _piece("retreat_units", 1, MAX_STACK, "units making a double six's second step / 12 (B19)")
O_TRANSIT       = _piece("in_transit", 1, MAX_STACK, "units passing between whirlpools / 12 (B39)")
O_TO_ACT        = _piece("me_to_act", 1, 1, "1 when I answer the pending decision")
O_MY_TURN       = _piece("my_turn", 1, 1, "1 when I have the dice")
O_TURNS         = _piece("turns", 1, 1, "turns played / max_turns (BD5)")
# what the scripted agents' evaluation reads further than a triangle's neighbours (`suntzu_env.binfa.tactics`),
# written once play starts (never during deployment, BD6), so that a network of neighbours sees it where it acts
O_CLOSENESS     = _piece("enemy_closeness", T, 1, "1 - steps to the nearest stack of another player's / 15, 0 if none")
O_ONE_OPEN      = _piece("one_side_open", T, 1, "1 on a stack of 2 or more with one open side left (B10, B11)")
O_CAPTURE       = _piece("capture_chance", T, 1, "on another's stack with one side open: the chance I close it (B5)")
O_DANGER        = _piece("danger_chance", T, 1, "on my stack with one side open: the chance another player closes it")
O_LONE_REACH    = _piece("lone_reach", T, 1, "on a single unit: the chance a throw brings the other side onto it (B3)")
OBSERVATION_SIZE = OBSERVATION_PIECES[-1].offset + OBSERVATION_PIECES[-1].size
# fmt: on


@njit(cache=True)
def hidden(s: np.ndarray, viewer: int, t: int) -> bool:
    """BD6 (rules v1.1): the stack on triangle `t` is hidden from player `viewer` (-1: nobody, the whole state):
    during deployment, every stack of another player's army (bases hold one army's units until play starts)."""
    if (
        viewer < 0
        or s[layout.PHASE] != layout.PH_DEPLOY
        or s[layout.RULES] == layout.RULES_V1
        or s[layout.HEIGHT + t] == 0
    ):
        return False
    return s[layout.ARMY_PLAYER + s[layout.TOP + t]] != viewer


@njit(cache=True)
def observe(s: np.ndarray, player: int, out: np.ndarray) -> None:
    """Writes what `player` sees (BD12) into the float32 vector `out` of OBSERVATION_SIZE; during deployment,
    not the other players' units (BD6)."""
    out[:] = 0.0
    rot = s[layout.PLAYER_SECTOR + player]
    for t in range(N_TRIANGLES):
        v = to_view(t, rot)
        if s[layout.TERRAIN + t] == 1:
            out[O_MARKER + v] = 1.0
        elif s[layout.TERRAIN + t] == 2:
            out[O_WHIRLPOOL + v] = 1.0
        h = s[layout.HEIGHT + t]
        if h > 0 and not hidden(s, player, t):
            c = (s[layout.TOP + t] - rot) % N_COLOURS
            out[O_HEIGHT + v] = h / UNITS_PER_ARMY
            out[O_COLOUR + c * N_TRIANGLES + v] = 1.0
            out[O_RUN + v] = s[layout.RUN + t] / UNITS_PER_ARMY
            out[O_STRENGTH + c] += h / UNITS_PER_ARMY
            out[O_FRESH + v] = s[layout.FRESH + t]
        if s[layout.TRANSFER_TO + t] != 0:  # the vector is zero elsewhere
            out[O_TRANSFER_TO + v] = s[layout.TRANSFER_TO + t]
    if s[layout.HEIGHT + layout.TRANSIT] > 0:
        out[O_STRENGTH + (s[layout.TOP + layout.TRANSIT] - rot) % N_COLOURS] += (
            s[layout.HEIGHT + layout.TRANSIT] / UNITS_PER_ARMY
        )
    for colour in range(N_COLOURS):
        if s[layout.ARMY_PLAYER + colour] != player:
            continue
        for u in range(colour * UNITS_PER_ARMY, (colour + 1) * UNITS_PER_ARMY):
            at = s[layout.UNIT_AT + u]
            if 0 <= at < N_TRIANGLES:
                out[O_OWN + to_view(at, rot)] += 1.0 / UNITS_PER_ARMY
    if s[layout.ATTACK_FROM] >= 0:
        out[O_ATTACK_FROM + to_view(s[layout.ATTACK_FROM], rot)] = 1.0
        out[O_ATTACK_TO + to_view(s[layout.ATTACK_TO], rot)] = 1.0
    if s[layout.RETREAT_AT] >= 0:
        out[O_RETREAT_AT + to_view(s[layout.RETREAT_AT], rot)] = 1.0
    if s[layout.TRANSFER_FROM] >= 0:
        out[O_TRANSFER_FROM + to_view(s[layout.TRANSFER_FROM], rot)] = 1.0
    for colour in range(N_COLOURS):
        c = (colour - rot) % N_COLOURS
        out[O_ALIVE + c] = s[layout.ALIVE + colour]
        out[O_MINE + c] = 1.0 if s[layout.ARMY_PLAYER + colour] == player else 0.0
        out[O_TOKENS + c] = s[layout.TOKENS + colour] / STORE_TOKENS
        if s[layout.PAWN + colour] >= 0:
            out[O_PAWNS + c * N_CIRCLES + (s[layout.PAWN + colour] - CIRCLES_PER_SECTOR * rot) % N_CIRCLES] = 1.0
    if s[layout.TURN_ARMY] >= 0:
        out[O_TURN_ARMY + (s[layout.TURN_ARMY] - rot) % N_COLOURS] = 1.0
    out[O_LEVEL + s[layout.LEVEL] - 1] = 1.0
    out[O_PLAYERS + s[layout.PLAYERS] - 2] = 1.0
    out[O_STORE] = s[layout.STORE] / STORE_TOKENS
    if s[layout.DICE] > 0:
        out[O_DICE + s[layout.DICE] - 1] = 1.0
        out[O_DICE + 6 + s[layout.DICE + 1] - 1] = 1.0
    out[O_MOVES] = s[layout.MOVES_LEFT] / 5.0
    out[O_MODE + s[layout.MODE]] = 1.0
    out[O_DECISION + s[layout.DEC_KIND]] = 1.0
    if s[layout.RETREAT_AT] >= 0:
        out[O_RETREAT_STEP + s[layout.RETREAT_STEP]] = 1.0
        out[O_RETREAT_N] = s[layout.RETREAT_N] / UNITS_PER_ARMY
    out[O_TRANSIT] = s[layout.HEIGHT + layout.TRANSIT] / UNITS_PER_ARMY
    if s[layout.PHASE] != layout.PH_OVER:
        out[O_TO_ACT] = 1.0 if s[layout.TO_ACT] == player else 0.0
        out[O_MY_TURN] = 1.0 if s[layout.TURN_PLAYER] == player and s[layout.TURN_ARMY] >= 0 else 0.0
    out[O_TURNS] = min(s[layout.TURNS], s[layout.MAX_TURNS]) / s[layout.MAX_TURNS]
    if s[layout.PHASE] != layout.PH_DEPLOY:
        observe_tactics(s, player, rot, out)


@njit(cache=True)
def observe_tactics(s: np.ndarray, player: int, rot: int, out: np.ndarray) -> None:
    """The pieces from `enemy_closeness` on: the terms of the scripted agents' evaluation that reach beyond a
    triangle's neighbours (`agents.evaluate`), each on the triangle it concerns, in the viewer's frame."""
    to_other = np.empty(N_TRIANGLES, np.int8)
    to_own = np.empty(N_TRIANGLES, np.int8)
    others = steps_to_stacks(s, player, False, to_other)
    steps_to_stacks(s, player, True, to_own)
    for t in range(N_TRIANGLES):
        v = to_view(t, rot)
        if others > 0:
            out[O_CLOSENESS + v] = 1.0 - to_other[t] / FAR
        h = s[layout.HEIGHT + t]
        if h == 0 or s[layout.TERRAIN + t] == WHIRLPOOL:
            continue
        mine = s[layout.ARMY_PLAYER + s[layout.TOP + t]] == player
        if h == 1:  # B3: the nearest stack of the other side is the likeliest to reach it
            out[O_LONE_REACH + v] = throw_reach(to_other[t] if mine else to_own[t])
            continue
        closed, sides = closed_sides(s, t, s[layout.TOP + t])
        if closed != sides - 1:
            continue
        out[O_ONE_OPEN + v] = 1.0
        if not mine:
            out[O_CAPTURE + v] = closing_reach(s, t, player)
            continue
        for q in range(s[layout.PLAYERS]):
            if q != player and s[layout.OUT_RANK + q] == 0:
                out[O_DANGER + v] = max(out[O_DANGER + v], closing_reach(s, t, q))


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """The low and high bound of every value, from the declaration."""
    low = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    high = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in OBSERVATION_PIECES])
    return low, high


def observation_views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The named pieces of an observation vector (views, not copies)."""
    return {p.name: obs[p.offset : p.offset + p.size] for p in OBSERVATION_PIECES}


def describe_observation() -> str:
    """A Markdown table of the observation: piece, offset, size, high, meaning."""
    rows = ["| piece | offset | size | high | meaning |", "|---|---|---|---|---|"]
    for p in OBSERVATION_PIECES:
        rows.append(f"| `{p.name}` | {p.offset} | {p.size} | {p.high:g} | {p.doc} |")
    return "\n".join(rows)


__all__ = ["OBSERVATION_PIECES", "OBSERVATION_SIZE", "describe_observation", "observation_bounds", "observe"]
