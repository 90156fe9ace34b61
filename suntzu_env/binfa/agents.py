"""Bin'Fa's compiled agents, playing the engine's state directly: `random`, `greedy` and `heuristic`.

- `random`: a uniformly random legal answer (its own xorshift generator, never the game's).
- `greedy`: every answer that throws no dice is tried on a copy of the state and scored by `evaluate` (one
  evaluation, declared once, below); the best is played (the first of equals). Its move decisions make one
  throw's moves one by one, each the best by the evaluation. Declarations (B9, B15, B26) throw dice, so they
  are never tried: it dislodges (B14-B16) a stack that has nowhere to retreat (B20: it is lost on a six; the
  weight `dislodge` is the most retreats the stack attacked may have, fewest first, 0 for `greedy`), else
  resupplies (B27) when short of tokens, else throws to move, and never stops.

- `heuristic`: plays to win. It deploys four stacks of 3 two steps apart on its base (`FORMATION`, B1; it reads
  nothing of the other placements, BD6), not one tower that nothing dislodges. It then plays `greedy`'s way with
  another row of weights: it comes closer to the other armies (`near`), stacks above `TALL` units cost `tall` per
  unit over (a tower encircles nothing), the reach of the next throw counts (below), half-closed enemy stacks
  weigh more, and above all `close`: an enemy stack one side from capture is worth more the likelier a pair of
  its own comes onto that side, surely when the moves of the throw being played suffice (B5), so it brings its
  stacks up to close encirclements. A capture outweighs the threat it ends (a unit 7 against 3 + 3), so it
  captures when it can. It declares a dislodge (B14-B16) of every lower stack beside its own (`dislodge` 2:
  up to 2 retreats, fewest first, B20): a dislodge throw costs no more than a move throw (B17). Like `greedy`
  it throws whenever it may, never stopping (B9, BD30).

`evaluate(s, player, w)` scores a position for `player` with one row of `WEIGHTS` (a term per `WEIGHT_NAMES`):

- `unit`: the player's units minus the mean of each other player's (B12: units it covers count, B7);
- `danger`, `threat` (safety from encirclement, B10, B11): − per unit of a stack of the player's with one open
  side left, + per unit of another player's stack in that state;
- `lone`: − per single unit of the player's (another stack may cover it, B7);
- `near` (progress): − per step from each of the player's stacks to the nearest other army's stack;
- `token` (supply, level 3+): + per token of the player's armies (B28);
- `exposed`, `prey` (the reach of a throw, B3, B7): − for each single unit of the player's, + for each of
  another's, the two units a cover swings times the chance (`REACH`) that one throw brings the nearest stack
  of the other side onto it (`greedy` gives these no weight);
- `close` (pressing for a capture, B10, B11): + per unit of another player's stack with one open side left,
  times the chance (`REACH`, or 1 within the moves left of the player's throw) that a stack of 2 or more of the
  player's comes onto that side (`closing_reach`; `greedy` gives it no weight);
- `tall`: − per unit over `TALL` in each stack of the player's (`greedy` gives it no weight);
- the end: ±`W_END` for a win or the player's elimination (B12, B13).

`play_games` plays whole games between compiled agents (the ladder, `suntzu_env.binfa.ladder`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.binfa.actions import A_DEPLOY, A_DISLODGE, A_MOVE, A_RESUPPLY, A_ROLL
from suntzu_env.binfa.engine import LEGAL_CAPACITY, apply_action, army_of, init_state, may_enter, step
from suntzu_env.binfa.geometry import (
    EDGE_TO,
    N_COLOURS,
    N_TRIANGLES,
    NEIGHBOURS,
    PER_SECTOR,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.layout import (
    ARMY_PLAYER,
    DEC_KIND,
    DEPLOY_ARMY,
    DEPLOY_LEFT,
    DK_DECLARE,
    DK_DEPLOY,
    HEIGHT,
    LEVEL,
    OUT_RANK,
    PLAYERS,
    STATE_DTYPE,
    STATE_SIZE,
    TERRAIN,
    TO_ACT,
    TOKENS,
    TOP,
    TRANSIT,
    TURN_ARMY,
    TURNS,
    WINNER,
)
from suntzu_env.binfa.tactics import DISTANCE, WHIRLPOOL, closed_sides, closing_reach, steps_to_stacks, throw_reach
from suntzu_env.core.rng import rng_below, rng_seed

AGENTS = ("random", "greedy", "heuristic")
AG_RANDOM, AG_GREEDY, AG_HEURISTIC = range(3)

WEIGHT_NAMES = ("unit", "danger", "threat", "lone", "near", "token", "exposed", "prey", "dislodge", "close", "tall")
WI_UNIT, WI_DANGER, WI_THREAT, WI_LONE, WI_NEAR, WI_TOKEN, WI_EXPOSED, WI_PREY, WI_DISLODGE, WI_CLOSE, WI_TALL = range(
    len(WEIGHT_NAMES)
)
# one row per agent (AGENTS), one column per term (WEIGHT_NAMES); random's row is unused
WEIGHTS = np.array(
    [
        [1.0, 0.6, 0.3, 0.25, 0.03, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 0.6, 0.3, 0.25, 0.03, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0],
        [7.0, 3.0, 3.0, 0.25, 0.05, 0.05, 1.0, 0.5, 2.0, 3.0, 1.0],
    ]
)
W_END = 1000.0
TALL = 4  # heuristic's stacks above this many units cost `tall` per unit over
SHORT_OF_TOKENS = 3  # greedy resupplies below this many tokens (B27)
# heuristic's deployment (B1): the base triangle (16 * sector + (r - 1)^2 + p, BD2) of each unit, in placing order
FORMATION = np.array([1, 3, 5, 7, 1, 3, 5, 7, 1, 3, 5, 7], dtype=np.int64)


@njit(cache=True)
def evaluate(s: np.ndarray, player: int, w: np.ndarray) -> float:
    """A score of the position for `player` by the weights `w` (`WEIGHT_NAMES`; the module docstring's terms)."""
    if s[WINNER] == player:
        return W_END
    if s[OUT_RANK + player] > 0:
        return -W_END
    # the steps from each triangle to the nearest stack of the other players' and, where `prey` counts, of `player`'s
    to_other = np.empty(N_TRIANGLES, np.int8)
    to_own = np.empty(N_TRIANGLES, np.int8)
    n_other = steps_to_stacks(s, player, False, to_other)
    if w[WI_PREY] != 0.0:  # `to_own` is read for that term alone (greedy gives it no weight)
        steps_to_stacks(s, player, True, to_own)
    mine = 0.0
    others = 0.0
    score = 0.0
    for t in range(N_TRIANGLES + 1):
        h = s[HEIGHT + t]
        if h == 0:
            continue
        c = s[TOP + t]
        own = s[ARMY_PLAYER + c] == player
        if own:
            mine += h
        else:
            others += h
        if t == TRANSIT or s[TERRAIN + t] == WHIRLPOOL:
            continue
        if h == 1:
            if own:
                score -= w[WI_LONE]
                if w[WI_EXPOSED] != 0.0:
                    score -= 2.0 * w[WI_EXPOSED] * throw_reach(to_other[t])
            elif w[WI_PREY] != 0.0:
                score += 2.0 * w[WI_PREY] * throw_reach(to_own[t])
            continue
        closed, sides = closed_sides(s, t, c)
        if closed == sides - 1:
            score += -w[WI_DANGER] * h if own else w[WI_THREAT] * h
            if not own and w[WI_CLOSE] != 0.0:
                score += w[WI_CLOSE] * h * closing_reach(s, t, player)
        if own:
            if h > TALL:
                score -= w[WI_TALL] * (h - TALL)
            score -= w[WI_NEAR] * (to_other[t] if n_other > 0 else N_TRIANGLES)
    opponents = 0
    for q in range(s[PLAYERS]):
        if q != player and s[OUT_RANK + q] == 0:
            opponents += 1
    score += w[WI_UNIT] * (mine - others / max(opponents, 1))
    if s[LEVEL] >= 3:
        for c in range(N_COLOURS):
            if s[ARMY_PLAYER + c] == player:
                score += w[WI_TOKEN] * s[TOKENS + c]
    return score


@njit(cache=True)
def retreats(s: np.ndarray, t: int) -> int:
    """B16, B20: how many triangles the stack on `t` may retreat to."""
    c = s[TOP + t]
    n = 0
    for j in range(3):
        u = NEIGHBOURS[t, j]
        if u >= 0 and s[TERRAIN + u] != WHIRLPOOL and may_enter(s, c, u):
            n += 1
    return n


@njit(cache=True)
def greedy_action(s: np.ndarray, legal: np.ndarray, n: int, scratch: np.ndarray, w: np.ndarray) -> int:
    """The greedy agent's answer among `legal[:n]` (the module docstring) by the weights `w`; `scratch` is a
    spare state."""
    player = s[TO_ACT]
    if s[DEC_KIND] == DK_DECLARE:
        best = -1
        best_key = 1 << 30
        roll = -1
        resupply = -1
        for i in range(n):
            a = legal[i]
            if a == A_ROLL:
                roll = a
            elif a == A_RESUPPLY:
                resupply = a
            elif A_DISLODGE <= a < A_MOVE:
                u = EDGE_TO[a - A_DISLODGE]
                r = retreats(s, u)
                key = 100 * r - s[HEIGHT + u]  # fewest retreats first, then the highest stack
                if r <= w[WI_DISLODGE] and key < best_key:
                    best = a
                    best_key = key
        if best >= 0:
            return best
        if resupply >= 0 and s[TOKENS + s[TURN_ARMY]] < SHORT_OF_TOKENS:
            return resupply
        if roll >= 0:
            return roll
        return legal[0]
    best = legal[0]
    best_v = -np.inf
    for i in range(n):
        scratch[:] = s
        apply_action(scratch, legal[i])
        v = evaluate(scratch, player, w)
        if v > best_v:
            best_v = v
            best = legal[i]
    return best


@njit(cache=True)
def formation_deploy(s: np.ndarray, legal: np.ndarray, n: int) -> int:
    """B1, BD6: heuristic's placement of its next unit: its `FORMATION` triangle on the base, else the legal
    triangle nearest to it (terrain, B22). It reads nothing of the other armies' placements."""
    c = army_of(s, s[DEPLOY_ARMY])
    target = PER_SECTOR * c + FORMATION[(UNITS_PER_ARMY - s[DEPLOY_LEFT]) % UNITS_PER_ARMY]
    best = legal[0]
    best_d = N_TRIANGLES + 1
    for i in range(n):
        d = DISTANCE[target, legal[i] - A_DEPLOY]
        if d < best_d:
            best = legal[i]
            best_d = d
    return best


@njit(cache=True)
def weighted_action(
    agent: int, s: np.ndarray, legal: np.ndarray, n: int, rng: np.ndarray, scratch: np.ndarray, weights: np.ndarray
) -> int:
    """The answer of compiled agent `agent` (AG_*) among `legal[:n]`, evaluating with `weights[agent]`."""
    if agent == AG_RANDOM:
        return legal[rng_below(rng, n)]
    if agent == AG_HEURISTIC and s[DEC_KIND] == DK_DEPLOY:
        return formation_deploy(s, legal, n)
    return greedy_action(s, legal, n, scratch, weights[agent])


@njit(cache=True)
def agent_action(agent: int, s: np.ndarray, legal: np.ndarray, n: int, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The answer of compiled agent `agent` (AG_*) among `legal[:n]`; `scratch` is a spare state."""
    return weighted_action(agent, s, legal, n, rng, scratch, WEIGHTS)


@njit(cache=True)
def game_arrays(players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a compiled game loop plays with: a state, a spare state, the legal answers, a generator per seat."""
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    scratch = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    legal = np.zeros(LEGAL_CAPACITY, dtype=np.int32)
    rngs = np.zeros((players, 1), dtype=np.int64)
    return s, scratch, legal, rngs


@njit(cache=True)
def start_game(
    s: np.ndarray, legal: np.ndarray, rngs: np.ndarray, seed: int, agent_seeds: np.ndarray, setup: tuple[int, ...]
) -> int:
    """Game `seed` set up in `s` under `setup` = (level, players, armies, random_deploy, max_turns), seat p's
    generator `rngs[p]` seeded from `agent_seeds[p]`; returns the number of legal answers of the first decision
    (in `legal`)."""
    level, players, armies, random_deploy, max_turns = setup
    for p in range(players):
        rngs[p] = rng_seed(agent_seeds[p])
    empty = np.zeros(0, dtype=np.int64)
    return init_state(s, seed, level, players, armies, random_deploy, max_turns, 0, empty, empty, legal)


@njit(cache=True)
def play_games(
    seeds: np.ndarray,
    seat_agents: np.ndarray,
    agent_seeds: np.ndarray,
    level: int,
    players: int,
    armies: int,
    random_deploy: int,
    max_turns: int,
    weights: np.ndarray,
) -> np.ndarray:
    """Plays game g from `seeds[g]` with agent `seat_agents[g, p]` in seat p (its generator seeded from
    `agent_seeds[g, p]`, its evaluation weighted by `weights[agent]`). Rows: winner (6 undecided), decisions,
    turns."""
    out = np.zeros((seeds.shape[0], 3), dtype=np.int64)
    s, scratch, legal, rngs = game_arrays(players)
    for g in range(seeds.shape[0]):
        n = start_game(s, legal, rngs, seeds[g], agent_seeds[g], (level, players, armies, random_deploy, max_turns))
        decisions = 0
        while n > 0:
            p = s[TO_ACT]
            a = weighted_action(seat_agents[g, p], s, legal, n, rngs[p], scratch, weights)
            n = step(s, a, legal)
            decisions += 1
        out[g, 0] = s[WINNER]
        out[g, 1] = decisions
        out[g, 2] = s[TURNS]
    return out


SCRATCH_SIZE = STATE_SIZE  # the spare states `agent_action` takes


def new_scratch() -> np.ndarray:
    """Spare states for `agent_action`."""
    return np.zeros(SCRATCH_SIZE, dtype=STATE_DTYPE)


__all__ = [
    "AGENTS",
    "SCRATCH_SIZE",
    "WEIGHTS",
    "agent_action",
    "evaluate",
    "greedy_action",
    "new_scratch",
    "play_games",
]
