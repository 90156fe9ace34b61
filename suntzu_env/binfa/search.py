"""Bin'Fa's search agent `mcts`: Monte Carlo tree search over the compiled engine, for any level and 2-6 players.

After deployment Bin'Fa hides nothing but the dice to come (B0.8), so the search plays the real position. Each
iteration copies it, reseeds the copy's dice from the agent's own generator (the game's generator and any preset
throws are never read: the dice to come stay unknown), and walks the tree from the root:

- a node is a decision (`engine.step` runs on to decisions with two answers or more); its edges are the legal
  answers of the player to act there (`TO_ACT`: the player with the dice, or the owner of retreating units,
  B16), each with a prior value, the `score` (`heuristic`'s evaluation) of the position the answer leads to for
  that player, and a policy share, a softmax of those scores (a declaration, which throws dice, takes the
  position's own score and an equal share);
- the dice are chance nodes: the child reached through an edge is keyed by the throw it brought (`throw_key`:
  the two dice, unordered; 0 when no die was thrown), the throws sampled afresh in every iteration, so each
  child's share of visits follows the dice's odds;
- selection (PUCT): the edge that maximises the chooser's mean value, its prior counting as `prior_visits`
  visits, plus `exploration` times its policy share times sqrt(N) / (1 + its visits) (`SETTINGS`);
- expansion: one new node per iteration, its position valued for every player (`values`: the `score` squashed
  into (0, 1) by a logistic; 1 to a winner, 0 to a player out and to everybody in a game ended undecided, BD5),
  where it stands and after `rollout` decisions of `heuristic` play (`ROLLOUT_DECISIONS`, 20 by default: a leaf
  valued where it stands cannot see an encirclement closing or an army short of supply, B28, waiting out the
  clock), the playout's share `playout_share` with 2 players and `playout_share_many` with more;
- backup, max^n: every edge adds the value of the player who chose it, so each player maximises its own value
  and the others are never assumed to be one team.

The answer is the root's most visited edge (the higher summed value between equals, then the first).
Deployment is hidden (BD6): the search never runs before every unit stands, and deploys as `heuristic` does
(`FORMATION`).

Deterministic: the same position and the same generator state give the same answer. The budget is `iterations`
per decision (`mcts:<iterations>`; by default `default_iterations`: 50 with 2 players, 100 with more); its time
is measured by `python -m suntzu_env.binfa.search_speed`, never asserted in tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.binfa.agents import (
    AG_HEURISTIC,
    AGENTS,
    WEIGHTS,
    WI_UNIT,
    agent_action,
    evaluate,
    formation_deploy,
    game_arrays,
    greedy_action,
    start_game,
)
from suntzu_env.binfa.engine import LEGAL_CAPACITY, apply_action, generator_state, step, store_generator
from suntzu_env.binfa.layout import (
    ARMY_PLAYER,
    DEC_KIND,
    DICE,
    DICE_QLEN,
    DICE_QPOS,
    DK_DECLARE,
    DK_DEPLOY,
    GENERATOR_OF,
    HEIGHT,
    MAX_PLAYERS,
    N_PLACES,
    OUT_RANK,
    PLAYERS,
    STATE_DTYPE,
    STATE_SIZE,
    TO_ACT,
    TOP,
    TURNS,
    UNDECIDED,
    WINNER,
)
from suntzu_env.core.rng import rng_below

SEARCH = "mcts"  # the agent's name; `mcts:<iterations>` sets its budget
AG_SEARCH = len(AGENTS)  # its id beside the compiled agents' (`play_search_games`)
SEARCH_ITERATIONS = 50  # iterations per decision by default with 2 players (each with its playout, `ROLLOUT_DECISIONS`)
SEARCH_ITERATIONS_MANY = 100  # and with 3 players or more, where every other player answers between two of one's turns
MAX_ITERATIONS = 100_000  # the most a spec may ask for (the tree's arrays grow with it)
ROLLOUT_DECISIONS = 20  # heuristic decisions played from a new node before it is valued
# the search's settings (one float64 row, `SETTINGS`): PUCT's exploration constant (values in (0, 1)), the visits an
# edge's prior value counts as, the evaluation's points a logistic step of e spans (`squash`; 7 points a unit at
# `heuristic`'s weights), the temperature (points) of the softmax that shares the policy among the edges, and the
# playout's share of a new node's value with 2 players and with 3 or more (the rest is the value where the node
# stands); then the evaluation's weights (`agents.WEIGHT_NAMES`): `heuristic`'s
SETTING_NAMES = ("exploration", "prior_visits", "value_scale", "temperature", "playout_share", "playout_share_many")
S_EXPLORATION, S_PRIOR_VISITS, S_VALUE_SCALE, S_TEMPERATURE, S_PLAYOUT_SHARE, S_PLAYOUT_SHARE_MANY = range(
    len(SETTING_NAMES)
)
SETTINGS = np.concatenate([[0.5, 2.0, 14.0, 3.0, 0.5, 0.25], WEIGHTS[AG_HEURISTIC]])
EDGES_PER_NODE = 64  # the tree's edge capacity per iteration (a node that does not fit is valued unexpanded)
MAX_DEPTH = 256  # the longest path an iteration walks
SEED_SPAN = 1 << 62  # the dice generator's states an iteration draws from

# node fields (int64): first edge, edge count, throw key, next sibling (same parent edge), player to act
N_EDGE0, N_EDGES, N_KEY, N_NEXT, N_MOVER = range(5)
# edge fields (int64): action, visits, first child; (float64): summed value of the chooser, prior
E_ACTION, E_VISITS, E_CHILD = range(3)
E_SUM, E_PRIOR, E_POLICY = range(3)


class SearchTree:
    """The arrays one search agent reuses at every decision, sized for `iterations`; the compiled search takes
    them as the one tuple `arrays`: nodes, edges, edge values, work states, legal buffers, path, values."""

    def __init__(self, iterations: int) -> None:
        self.iterations = iterations
        nodes = iterations + 2
        edges = nodes * EDGES_PER_NODE + LEGAL_CAPACITY
        self.arrays = (
            np.zeros((nodes, 5), dtype=np.int64),  # N_* fields
            np.zeros((edges, 3), dtype=np.int64),  # E_ACTION, E_VISITS, E_CHILD
            np.zeros((edges, 3), dtype=np.float64),  # E_SUM, E_PRIOR, E_POLICY
            np.zeros((3, STATE_SIZE), dtype=STATE_DTYPE),  # the walked copy, a scratch, a rollout's
            np.zeros((2, LEGAL_CAPACITY), dtype=np.int32),  # the legal answers of the walk, a spare
            np.zeros((MAX_DEPTH, 2), dtype=np.int64),  # edge, chooser
            np.zeros((2, MAX_PLAYERS), dtype=np.float64),  # a value per player: the node's, and where its playout began
        )


def default_iterations(players: int) -> int:
    """The search's budget per decision when its spec names none (`mcts`): `SEARCH_ITERATIONS` with 2 players,
    `SEARCH_ITERATIONS_MANY` with more."""
    return SEARCH_ITERATIONS if players == 2 else SEARCH_ITERATIONS_MANY


def check_iterations(text: str) -> int:
    """The iterations of an `mcts:<iterations>` spec; ValueError unless a whole number 1..MAX_ITERATIONS."""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be a whole number 1..{MAX_ITERATIONS}")
    return int(text)


@njit(cache=True, inline="always")
def squash(score: float, settings: np.ndarray) -> float:
    """An evaluation (`agents.evaluate`) as a value in (0, 1)."""
    return 1.0 / (1.0 + np.exp(-score / settings[S_VALUE_SCALE]))


@njit(cache=True)
def score(s: np.ndarray, player: int, w: np.ndarray) -> float:
    """`agents.evaluate` of position `s` for `player`, its units term comparing the player's units with the mean
    over every other seat, a player out counting none (`evaluate` takes the mean over the players still in, which
    with 3 players or more makes eliminating one look like a loss)."""
    players = s[PLAYERS]
    alive = 0
    for p in range(players):
        if s[OUT_RANK + p] == 0:
            alive += 1
    value = evaluate(s, player, w)
    if alive == players or s[OUT_RANK + player] > 0 or s[WINNER] >= 0:
        return value
    others = 0.0
    for t in range(N_PLACES):
        if s[HEIGHT + t] > 0 and s[ARMY_PLAYER + s[TOP + t]] != player:
            others += s[HEIGHT + t]
    return value + w[WI_UNIT] * (others / max(alive - 1, 1) - others / (players - 1))


@njit(cache=True)
def values(s: np.ndarray, w: np.ndarray, settings: np.ndarray, out: np.ndarray) -> None:
    """Every player's value of position `s` into `out[:players]`: 1 to the winner, 0 to the others and to all
    when the game ended undecided (BD5, BD21), else the squashed `score` (0 to a player out, B12)."""
    winner = s[WINNER]
    for p in range(s[PLAYERS]):
        if winner == UNDECIDED:
            out[p] = 0.0
        elif winner >= 0:
            out[p] = 1.0 if p == winner else 0.0
        elif s[OUT_RANK + p] > 0:
            out[p] = 0.0
        else:
            out[p] = squash(score(s, p, w), settings)


@njit(cache=True)
def throw_key(s: np.ndarray, before: int) -> int:
    """The chance child of the step just made: 0 when it threw no die (the generator did not move), else 1 + the
    throw's dice, unordered (21 throws)."""
    if generator_state(s) == before:
        return 0
    a = min(s[DICE], s[DICE + 1])
    b = max(s[DICE], s[DICE + 1])
    return 1 + 6 * (a - 1) + (b - 1)


@njit(cache=True)
def expand(
    s: np.ndarray,
    legal: np.ndarray,
    n: int,
    node: int,
    key: int,
    n_edges: int,
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    scratch: np.ndarray,
    w: np.ndarray,
    settings: np.ndarray,
) -> int:
    """Makes `node` the decision of position `s` (answers `legal[:n]`); returns the edges in use. Each edge's
    prior is the evaluation of the position its answer leads to for the player to act (`squash`), its policy
    share a softmax of those evaluations at temperature `temperature` (points); a declaration, which throws
    dice, takes the position's own value and an equal share."""
    mover = s[TO_ACT]
    nodes[node, N_EDGE0] = n_edges
    nodes[node, N_EDGES] = n
    nodes[node, N_KEY] = key
    nodes[node, N_NEXT] = -1
    nodes[node, N_MOVER] = mover
    declare = s[DEC_KIND] == DK_DECLARE
    here = score(s, mover, w) if declare else 0.0
    top = -np.inf
    for i in range(n):
        e = n_edges + i
        edges[e, E_ACTION] = legal[i]
        edges[e, E_VISITS] = 0
        edges[e, E_CHILD] = -1
        edge_values[e, E_SUM] = 0.0
        if declare:
            raw = here
        else:
            scratch[:] = s
            apply_action(scratch, legal[i])
            raw = score(scratch, mover, w)
        edge_values[e, E_PRIOR] = raw
        top = max(top, raw)
    total = 0.0
    for i in range(n):
        e = n_edges + i
        share = np.exp((edge_values[e, E_PRIOR] - top) / settings[S_TEMPERATURE])
        edge_values[e, E_POLICY] = share
        total += share
        edge_values[e, E_PRIOR] = squash(edge_values[e, E_PRIOR], settings)
    for i in range(n):
        edge_values[n_edges + i, E_POLICY] /= total
    return n_edges + n


@njit(cache=True)
def select(
    node: int,
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    legal: np.ndarray,
    n: int,
    settings: np.ndarray,
) -> int:
    """The edge of `node` to follow (PUCT: the chooser's mean value, its prior counting as `prior_visits` visits,
    plus `exploration` times the edge's policy share times sqrt(N) / (1 + visits)), or -1 when the position's
    answers `legal[:n]` are not the node's (a throw key shared by two positions)."""
    e0 = nodes[node, N_EDGE0]
    count = nodes[node, N_EDGES]
    if count != n:
        return -1
    total = 0
    for i in range(count):
        if edges[e0 + i, E_ACTION] != legal[i]:
            return -1
        total += edges[e0 + i, E_VISITS]
    explore = settings[S_EXPLORATION] * np.sqrt(total + 1.0)
    prior_visits = settings[S_PRIOR_VISITS]
    best = -1
    best_u = -np.inf
    for i in range(count):
        e = e0 + i
        visits = edges[e, E_VISITS]
        mean = (edge_values[e, E_SUM] + prior_visits * edge_values[e, E_PRIOR]) / (visits + prior_visits)
        u = mean + explore * edge_values[e, E_POLICY] / (visits + 1.0)
        if u > best_u:
            best_u = u
            best = e
    return best


@njit(cache=True)
def search_action(
    root: np.ndarray,
    legal: np.ndarray,
    n: int,
    rng: np.ndarray,
    iterations: int,
    rollout: int,
    settings: np.ndarray,
    tree: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """The search's answer among `legal[:n]` in position `root` (the module docstring), after `iterations`
    iterations drawing the dice from `rng`; `tree` is a `SearchTree`'s arrays."""
    if root[DEC_KIND] == DK_DEPLOY:
        return formation_deploy(root, legal, n)  # BD6: the others' placements are not the searcher's to read
    nodes, edges, edge_values, work, buffers, path, player_values = tree
    vals = player_values[0]
    leaf = player_values[1]
    w = settings[len(SETTING_NAMES) :]
    s = work[0]
    scratch = work[1]
    playout = work[2]
    buf = buffers[0]
    spare = buffers[1]
    n_edges = expand(root, legal, n, 0, 0, 0, nodes, edges, edge_values, scratch, w, settings)
    n_nodes = 1
    edge_room = edges.shape[0]
    for _ in range(iterations):
        s[:] = root
        store_generator(s, rng_below(rng, SEED_SPAN))  # the dice of this iteration, the agent's own
        s[GENERATOR_OF] = 1
        s[DICE_QPOS] = s[DICE_QLEN]  # preset throws are no part of what a player knows
        buf[:n] = legal[:n]
        m = n
        node = 0
        depth = 0
        while True:
            e = select(node, nodes, edges, edge_values, buf, m, settings)
            if e < 0 or depth == MAX_DEPTH:
                values(s, w, settings, vals)
                break
            path[depth, 0] = e
            path[depth, 1] = nodes[node, N_MOVER]
            depth += 1
            before = generator_state(s)
            m = step(s, edges[e, E_ACTION], buf)
            if m == 0:
                values(s, w, settings, vals)
                break
            key = throw_key(s, before)
            child = edges[e, E_CHILD]
            last = -1
            while child >= 0 and nodes[child, N_KEY] != key:
                last = child
                child = nodes[child, N_NEXT]
            if child >= 0:
                node = child
                continue
            if n_nodes < nodes.shape[0] and n_edges + m <= edge_room:
                child = n_nodes
                n_nodes += 1
                n_edges = expand(s, buf, m, child, key, n_edges, nodes, edges, edge_values, scratch, w, settings)
                if last < 0:
                    edges[e, E_CHILD] = child
                else:
                    nodes[last, N_NEXT] = child
            if rollout > 0:
                playout[:] = s
                k = m
                for _ in range(rollout):
                    if k == 0:
                        break
                    a = greedy_action(playout, buf, k, scratch, w)
                    k = step(playout, a, spare)
                    buf[:k] = spare[:k]
                values(playout, w, settings, vals)
                share = settings[S_PLAYOUT_SHARE if s[PLAYERS] == 2 else S_PLAYOUT_SHARE_MANY]
                if share < 1.0:
                    values(s, w, settings, leaf)
                    for p in range(s[PLAYERS]):
                        vals[p] = share * vals[p] + (1.0 - share) * leaf[p]
            else:
                values(s, w, settings, vals)
            break
        for i in range(depth):
            e = path[i, 0]
            edges[e, E_VISITS] += 1
            edge_values[e, E_SUM] += vals[path[i, 1]]
    best = 0
    for i in range(1, n):
        if edges[i, E_VISITS] > edges[best, E_VISITS] or (
            edges[i, E_VISITS] == edges[best, E_VISITS] and edge_values[i, E_SUM] > edge_values[best, E_SUM]
        ):
            best = i
    return edges[best, E_ACTION]


def search(
    s: np.ndarray,
    legal: np.ndarray,
    n: int,
    rng: np.ndarray,
    iterations: int,
    tree: SearchTree,
    rollout: int = ROLLOUT_DECISIONS,
) -> int:
    """`search_action` with the arrays of `tree` (sized for at least `iterations`), `rollout` decisions of playout
    from each new node (0: nodes valued where they stand)."""
    return int(search_action(s, legal, n, rng, iterations, rollout, SETTINGS, tree.arrays))


@njit(cache=True)
def play_search_games(
    seeds: np.ndarray,
    seat_agents: np.ndarray,
    agent_seeds: np.ndarray,
    level: int,
    players: int,
    random_deploy: int,
    max_turns: int,
    iterations: int,
    rollout: int,
    settings: np.ndarray,
    tree: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """`agents.play_games` (one army each) with the search as agent `AG_SEARCH` beside the compiled agents, its
    budget `iterations`, `tree` a `SearchTree`'s arrays. Rows: winner (6 undecided), decisions, turns, and the
    search's decisions."""
    out = np.zeros((seeds.shape[0], 4), dtype=np.int64)
    s, scratch, legal, rngs = game_arrays(players)
    for g in range(seeds.shape[0]):
        n = start_game(s, legal, rngs, seeds[g], agent_seeds[g], (level, players, 1, random_deploy, max_turns))
        decisions = 0
        searched = 0
        while n > 0:
            p = s[TO_ACT]
            agent = seat_agents[g, p]
            if agent == AG_SEARCH:
                a = search_action(s, legal, n, rngs[p], iterations, rollout, settings, tree)
                searched += 1
            else:
                a = agent_action(agent, s, legal, n, rngs[p], scratch)
            n = step(s, a, legal)
            decisions += 1
        out[g, 0] = s[WINNER]
        out[g, 1] = decisions
        out[g, 2] = s[TURNS]
        out[g, 3] = searched
    return out


__all__ = [
    "AG_SEARCH",
    "SEARCH",
    "SEARCH_ITERATIONS",
    "SEARCH_ITERATIONS_MANY",
    "SearchTree",
    "check_iterations",
    "default_iterations",
    "play_search_games",
    "search",
    "search_action",
]
