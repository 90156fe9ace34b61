"""`ISMCTSAgent`: information-set Monte Carlo tree search over determinizations (multiple-observer ISMCTS).

Each iteration draws a determinization (`suntzu_env.suntzu.determinize`: the opponent's cards and warlords and
the deck orders resampled from what this seat knows, R9), descends two trees at once, one per seat,
then plays the game on with a compiled rollout policy (by default the `heuristic` baseline, each side moving
on its own observation of the determinized game) for a few rounds, evaluates the position, and backs the result
up. A tree branches only on what its owner sees: a move the other seat makes in secret (a placed card, a kept
card, a warlord chosen, a warlord not used) is one edge, so neither seat's plan assumes it saw the other's
hidden cards (Cowling, Powley, Whitehouse 2012, MO-ISMCTS). The engine asks simultaneous answers one side
after the other (blue's five placements, then red's, R4.1; blue's warlord, then red's, R3.3): when the agent
answers second, the other side's secret answers are taken back in each determinization
(`determinize.rewind_secret_moves`) and played again by the rollout policy before the search descends, so
that each seat meets the other's simultaneous answers played by a policy, never dealt at random. Selection
is UCB1 over the actions legal in the determinization, counting for each action the iterations in which it
was available. The action played is the one visited most at the root.

Everything runs compiled with numba over the engine's state vector: the trees are preallocated arrays,
the determinization, the moves and the rollouts are the engine's own functions. The agent sees the game
only through determinizations: it gets the current `Game` through `observe_game(game, seat)` (see
`agents.base.Agent`) and hands its state to the compiled search, which reads it only through
`determinize` (whose result depends only on what the seat knows; `tests/suntzu/agents/test_ismcts.py` checks that the
agent's move does not change when the hidden parts of the real game are resampled).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from suntzu_env.core.policy_net import H_OUTPUTS, PolicyNet, header_of, net_forward
from suntzu_env.suntzu import engine
from suntzu_env.suntzu.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, N_ACTIONS
from suntzu_env.suntzu.determinize import determinize, rewind_secret_moves
from suntzu_env.suntzu.engine import legal_mask, random_action, rng_below, rng_seed, step
from suntzu_env.suntzu.layout import (
    ARMIES,
    DEC_KIND,
    DEC_SIDE,
    DK_KEEP,
    DK_PLACE,
    DK_REACTIVE,
    DK_SHORTFALL,
    DK_SOURCE,
    DK_WARLORD,
    DK_WINDOW,
    HAND,
    PLACE_PROV,
    ROUND,
    SCORE,
    STATE_DTYPE,
    STATE_SIZE,
    VALUES,
    WINNER,
)
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.rules import N_BASE_CARDS, N_CARD_KINDS, N_PROVINCES, SEATS
from suntzu_env.suntzu.values import VALUE_INPUTS, check_value_net, value_inputs
from suntzu_env.suntzu.vec_core import COMPILED_AGENTS, compiled_action

DEFAULT_ITERATIONS = 1000
DEFAULT_EXPLORATION = 0.3
DEFAULT_HORIZON = 2  # rollouts stop when this many rounds have begun after the root's (0: the game's end)
# Rollout policies: a compiled baseline of `suntzu_env.suntzu.baselines` (the same agent that plays by that name), or
# "fast", `rollout_action` below (cheaper than "heuristic", and a much weaker guide: see the README's ladder).
ROLLOUTS = ("fast", *COMPILED_AGENTS)
DEFAULT_ROLLOUT = "heuristic"
FAST_ROLLOUT = -1  # the rollout agent id of "fast"
# A node's edges: the owner's own moves (0..N_ACTIONS-1), the other seat's public moves (N_ACTIONS + action),
# and one edge for every move of the other seat the owner does not see.
HIDDEN = 2 * N_ACTIONS
N_EDGES = 2 * N_ACTIONS + 1
NODES_PER_ITERATION = 4  # tree capacity per iteration and tree (a few nodes are made per descent)
NO_VALUE = (np.zeros(1, dtype=np.float32), np.zeros(len(header_of((1, 1), "ReLU")), dtype=np.int64),
            np.zeros(1, dtype=np.float32))  # `evaluate`  # fmt: skip
# The search with a learned value (`ismcts-value:<path>`, `suntzu_env.suntzu.values`): twice the iterations, each
# rollout
# scored by the network when the round after the root's (red) or the one after that (blue) begins: the depth each
# seat played better at, measured (README, "The strongest agent").
VALUE_ITERATIONS = 2000
VALUE_HORIZON = (2, 1)  # (blue's, red's)


# Rollout policy: a card kind's rank by strength in battle (R5.1), 1 weakest; the Plague ranks as a 5.
CARD_RANK = np.array([1, 2, 3, 4, 5, 6, 12, 13, 14, 15, 9, 10, 11, 3, 7], dtype=np.int64)
ROLLOUT_NOISE = 8  # one rollout move in this many is uniformly random


@njit(cache=True)
def rollout_action(s: np.ndarray, mask: np.ndarray, n: int, rng: np.ndarray) -> int:
    """A cheap move for rollouts, from the full state: base cards outside scoring rounds and strong cards
    where a scoring pays (R4.5), no recalls unless nothing else is legal, the strongest drawn card kept,
    payments from the reserve first; every other choice, and one move in ROLLOUT_NOISE, at random."""
    if rng_below(rng, ROLLOUT_NOISE) == 0:
        return random_action(rng, mask, n)
    kind = s[DEC_KIND]
    side = s[DEC_SIDE]
    if kind == DK_PLACE:
        r = s[ROUND]
        scoring = r % 3 == 0
        p = s[PLACE_PROV + side]
        value = s[VALUES + p * 3 + (r - 1) // 3]
        total = 0
        for k in range(N_CARD_KINDS):
            if mask[A_PLACE + k] and (scoring or k < N_BASE_CARDS):
                total += CARD_RANK[k] ** value if scoring else 1
        if total > 0:
            pick = rng_below(rng, total)
            for k in range(N_CARD_KINDS):
                if mask[A_PLACE + k] and (scoring or k < N_BASE_CARDS):
                    pick -= CARD_RANK[k] ** value if scoring else 1
                    if pick < 0:
                        return A_PLACE + k
    elif kind == DK_KEEP:
        best = -1
        for k in range(N_CARD_KINDS):
            if mask[A_KEEP + k] and (best < 0 or CARD_RANK[k] > CARD_RANK[best]):
                best = k
        return A_KEEP + best
    elif kind == DK_SOURCE or kind == DK_SHORTFALL:
        if mask[A_RESERVE]:
            return A_RESERVE
        m = 0
        for a in range(A_PROVINCE, A_PROVINCE + N_PROVINCES):
            m += mask[a]
        if m > 0:
            pick = rng_below(rng, m)
            for a in range(A_PROVINCE, A_PROVINCE + N_PROVINCES):
                if mask[a]:
                    if pick == 0:
                        return a
                    pick -= 1
    return random_action(rng, mask, n)


# Evaluation at the rollout horizon, in marker points toward blue, turned into blue's chance to win.
CARD_WORTH = np.array([0, 0, 0, 0, 0, 0, 1.2, 1.6, 2.0, 2.4, 0.6, 0.9, 1.1, 0.2, 1.0])  # a card kept for later
HOLD_SPREAD = 2.0  # spread of a province's margin over one battle, in armies
POINTS_SCALE = 2.0  # marker points that make a 73% favourite


@njit(cache=True)
def evaluate(s: np.ndarray) -> float:
    """Blue's chance to win from `s`: the marker, each province's coming scorings times how surely its
    holder keeps it (a tanh of the margin over the battles left), cards in hand kept for later (R4.5, R6)."""
    w = s[WINNER]
    if w >= 0:
        return 1.0 if w == 0 else (0.0 if w == 1 else 0.5)
    r = s[ROUND]
    points = float(s[SCORE])
    for p in range(N_PROVINCES):
        margin = s[ARMIES + p] - s[ARMIES + N_PROVINCES + p]
        for col in range(3):
            k = 3 * (col + 1) - r + 1  # battles left before that scoring, this round's included
            if k >= 1:
                points += s[VALUES + p * 3 + col] * math.tanh(margin / (HOLD_SPREAD * math.sqrt(k)))
    for k in range(N_CARD_KINDS):
        points += CARD_WORTH[k] * (s[HAND + k] - s[HAND + N_CARD_KINDS + k]) * 0.5
    return 1.0 / (1.0 + math.exp(-points / POINTS_SCALE))


@njit(cache=True)
def learned_value(s: np.ndarray, params: np.ndarray, header: np.ndarray, x: np.ndarray, work: np.ndarray) -> float:
    """Blue's chance to win from `s` by the value network of `header` (`suntzu_env.suntzu.values`); the result itself
    once the game is over."""
    if s[WINNER] >= 0:
        return evaluate(s)
    value_inputs(s, x)
    logit = work[net_forward(params, header, x, work)]
    return 1.0 / (1.0 + math.exp(-logit))


@njit(cache=True)
def _visible(kind: int, a: int) -> bool:
    """Whether the other seat sees which answer was given (R9): placed and kept cards, warlords chosen and
    warlords not used are secret; recalls, uses, reveals and army sources are public."""
    if kind == DK_PLACE:
        return A_RECALL <= a < A_RECALL + N_CARD_KINDS - N_BASE_CARDS
    if kind == DK_KEEP or kind == DK_WARLORD:
        return False
    return not ((kind == DK_WINDOW or kind == DK_REACTIVE) and a == A_PASS)


@njit(cache=True, inline="always")
def _policy_action(
    rollout_agent: int, s: np.ndarray, mask: np.ndarray, n: int, rng: np.ndarray, scratch: np.ndarray
) -> int:
    """The rollout policy's move for the side asked in `s` (on that side's observation for a compiled baseline)."""
    if rollout_agent == FAST_ROLLOUT:
        return rollout_action(s, mask, n, rng)
    return compiled_action(rollout_agent, s, s[DEC_SIDE], mask, n, rng, scratch)


@njit(cache=True)
def _new_node(
    t: int, child: np.ndarray, visits: np.ndarray, wins: np.ndarray, avail: np.ndarray, used: np.ndarray
) -> int:
    """A fresh node in tree t, or -1 when the tree is full."""
    i = used[t]
    if i >= child.shape[1]:
        return -1
    child[t, i, :] = -1
    visits[t, i, :] = 0
    wins[t, i, :] = 0.0
    avail[t, i, :] = 0
    used[t] = i + 1
    return i


@njit(cache=True, nogil=True)  # releases the GIL: a server's other threads go on while it searches
def search(
    root: np.ndarray,
    seat: int,
    iterations: int,
    exploration: float,
    horizon: int,
    rng: np.ndarray,
    child: np.ndarray,
    visits: np.ndarray,
    wins: np.ndarray,
    avail: np.ndarray,
    rollout_agent: int,
    rewind: bool,
    value_params: np.ndarray,
    value_header: np.ndarray,
    value_work: np.ndarray,
) -> int:
    """The most visited root action after `iterations` determinized descents and rollouts.

    `root` is the real state with `seat` to act; it is read only through `determinize`. The tree arrays
    (`child` (2, nodes, N_EDGES), `visits`, `wins`, `avail` (2, nodes, N_ACTIONS)) are scratch. Rollout moves
    come from the compiled baseline `rollout_agent` (an id of `COMPILED_AGENTS`, seeing the mover's observation
    of the determinized game), or from `rollout_action` (FAST_ROLLOUT). `rewind`: the other seat's secret answers
    of a simultaneous step are asked again (`rewind_secret_moves`); False keeps them as dealt (an ablation).
    `value_params`, `value_header` and `value_work` (its forward pass's scratch, `CompiledNet.work_size`): a value
    network (`learned_value`) scoring the rollouts' ends in place of `evaluate`, or a header of no outputs
    (`NO_VALUE`) for `evaluate`.
    """
    learned = value_header[H_OUTPUTS] > 0
    value_x = np.zeros(VALUE_INPUTS if learned else 1, dtype=np.float32)
    used = np.zeros(2, dtype=np.int64)
    _new_node(0, child, visits, wins, avail, used)
    _new_node(1, child, visits, wins, avail, used)
    s = np.empty(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    root_mask = np.zeros(N_ACTIONS, dtype=np.int8)
    node = np.zeros(2, dtype=np.int64)
    path_tree = np.empty(512, dtype=np.int64)
    path_node = np.empty(512, dtype=np.int64)
    path_action = np.empty(512, dtype=np.int64)
    reward = np.zeros(2, dtype=np.float64)
    scratch = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    for it in range(iterations):
        determinize(root, seat, rng, s)
        n = rewind_secret_moves(s, seat, mask) if rewind else -1
        if n < 0:
            n = legal_mask(s, mask)
        while n > 0 and s[DEC_SIDE] != seat:  # the other seat's secret answers, asked again before seat's
            n = step(s, _policy_action(rollout_agent, s, mask, n, rng, scratch), mask)
        if it == 0:
            root_mask[:] = mask
        node[0] = 0
        node[1] = 0
        depth = 0
        expanded = False
        while n > 0 and not expanded and depth < 512:  # selection and expansion
            p = s[DEC_SIDE]
            nd = node[p]
            untried = 0
            for a in range(N_ACTIONS):
                if mask[a] and child[p, nd, a] < 0:
                    untried += 1
            best = -1
            if untried > 0:
                pick = rng_below(rng, untried)
                for a in range(N_ACTIONS):
                    if mask[a] and child[p, nd, a] < 0:
                        if pick == 0:
                            best = a
                            break
                        pick -= 1
                expanded = True
            else:
                best_value = -1e300
                for a in range(N_ACTIONS):
                    if mask[a]:
                        v = visits[p, nd, a]
                        value = wins[p, nd, a] / v + exploration * math.sqrt(math.log(avail[p, nd, a]) / v)
                        if value > best_value:
                            best_value = value
                            best = a
            for a in range(N_ACTIONS):
                if mask[a]:
                    avail[p, nd, a] += 1
            path_tree[depth] = p
            path_node[depth] = nd
            path_action[depth] = best
            depth += 1
            nxt = child[p, nd, best]
            if nxt < 0:
                nxt = _new_node(p, child, visits, wins, avail, used)
                child[p, nd, best] = nxt
            q = 1 - p
            edge = N_ACTIONS + best if _visible(s[DEC_KIND], best) else HIDDEN
            other = child[q, node[q], edge]
            if other < 0:
                other = _new_node(q, child, visits, wins, avail, used)
                child[q, node[q], edge] = other
            if nxt < 0 or other < 0:  # out of room: evaluate from here
                expanded = True
            node[p] = nxt
            node[q] = other
            n = step(s, best, mask)
        stop = root[ROUND] + horizon if horizon > 0 else 99
        while n > 0 and s[ROUND] < stop:  # rollout
            n = step(s, _policy_action(rollout_agent, s, mask, n, rng, scratch), mask)
        reward[0] = learned_value(s, value_params, value_header, value_x, value_work) if learned else evaluate(s)
        reward[1] = 1.0 - reward[0]
        for i in range(depth):
            t = path_tree[i]
            visits[t, path_node[i], path_action[i]] += 1
            wins[t, path_node[i], path_action[i]] += reward[t]
    best = -1
    most = -1
    for a in range(N_ACTIONS):
        if root_mask[a] and visits[seat, 0, a] > most:
            most = visits[seat, 0, a]
            best = a
    return best


class ISMCTSAgent:
    """Information-set MCTS (multiple observers) over determinizations, compiled rollouts.

    Settings: `iterations` determinized descents per decision (default 1,000), `exploration` the UCB1 constant over
    win rates in [0, 1] (default 0.3), `horizon` how many rounds a rollout plays past the root's before `evaluate`
    scores it (default 2; 0 plays to the end; a pair: blue's and red's), `rollout` the policy that plays them
    (`ROLLOUTS`; default the compiled `heuristic`), `rewind` whether, answering second in a simultaneous step, it
    has the other seat's secret answers played again by the rollout policy (default True; False keeps them as the
    determinization dealt them, at random: the README's experiment on the seats), `value` a value network
    (`suntzu_env.suntzu.values.read_value_net`) that scores the rollouts' ends in place of `evaluate` (default None).
    With
    the defaults a decision costs about 90 ms on one core (its strength: the README's ladder).
    Deterministic for a seed (`reset(seed)`).

    It needs the game: whoever asks it to act must first hand it the current `Game` with
    `observe_game(game, seat)` (the evaluation, the environments' opponents and the browser app do, see
    `suntzu_env.core.protocol.ask`); it reads that game only through `suntzu_env.suntzu.determinize`. The batched
    env asks it with `act_in_state`, handing it a game's engine state and that game's generator.
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = DEFAULT_ITERATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        horizon: int | tuple[int, int] = DEFAULT_HORIZON,
        rollout: str = DEFAULT_ROLLOUT,
        rewind: bool = True,
        value: PolicyNet | None = None,
    ) -> None:
        horizons = horizon if isinstance(horizon, tuple) and len(horizon) == len(SEATS) else (horizon, horizon)
        if not all(isinstance(h, int) and not isinstance(h, bool) and h >= 0 for h in horizons):
            raise ValueError(
                "horizon must be a whole number >= 0 (0: rollouts to the game's end) or a pair of them (blue's, "
                f"red's), got {horizon!r}"
            )
        self.horizon = horizon
        self._horizons = horizons
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.rollout = rollout
        if not isinstance(rewind, bool):
            raise ValueError(f"rewind must be True or False, got {rewind!r}")
        self.rewind = rewind
        if value is None:
            self._value = NO_VALUE
        else:
            check_value_net(value, "value")
            self._value = (value.params, value.playing(True), np.zeros(value.work_size, dtype=np.float32))
        self.value = value
        self.rollout_agent = FAST_ROLLOUT if rollout == "fast" else COMPILED_AGENTS.index(rollout)
        if not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1:
            raise ValueError(f"iterations must be a whole number >= 1, got {iterations!r}")
        if not isinstance(exploration, (int, float)) or not math.isfinite(exploration) or exploration < 0:
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
        self.iterations = iterations
        self.exploration = float(exploration)
        nodes = NODES_PER_ITERATION * iterations + 2
        self._child = np.empty((2, nodes, N_EDGES), dtype=np.int32)
        self._visits = np.empty((2, nodes, N_ACTIONS), dtype=np.int32)
        self._wins = np.empty((2, nodes, N_ACTIONS), dtype=np.float64)
        self._avail = np.empty((2, nodes, N_ACTIONS), dtype=np.int32)
        self._game: object | None = None
        self._seat = -1
        self._target: np.ndarray | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = rng_seed(int(np.random.default_rng(seed).integers(2**63)))
        self._game = None

    def observe_game(self, game: object, seat: str) -> None:
        """The game about to ask this agent to act as `seat` (read only through determinizations)."""
        if seat not in SEATS:
            raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
        self._game = game
        self._seat = SEATS.index(seat)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        game = self._game
        if game is None:
            raise RuntimeError(
                "ismcts needs the game: call observe_game(game, seat) before act "
                "(suntzu_env.core.protocol.ask does both)"
            )
        return self._decide(game.state, self._seat, action_mask, self._rng)  # type: ignore[attr-defined]

    def act_in_state(self, state: np.ndarray, seat: int, action_mask: np.ndarray, rng: np.ndarray) -> int:
        """The move for `seat` (0 blue, 1 red) in the engine state `state`, drawing from the generator `rng` (one
        int64, `suntzu_env.core.rng`, advanced in place) instead of the agent's own: how the batched env asks the
        search, each game with its own generator, which the env's saved state holds, so that a restored env goes
        on exactly as the saved one would. The state is copied and read only through determinizations."""
        return self._decide(state, seat, action_mask, rng)

    def _decide(self, game_state: np.ndarray, seat: int, action_mask: np.ndarray, rng: np.ndarray) -> int:
        """The search's move for `seat` in a copy of `game_state`; ValueError where that state asks another
        decision than the mask given."""
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < len(SEATS):
            raise ValueError(f"seat must be 0 (blue) or 1 (red), got {seat!r}")
        state = np.array(game_state, dtype=STATE_DTYPE)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if (
            state.shape != (STATE_SIZE,)
            or state[DEC_SIDE] != seat
            or engine.legal_mask(state, mask) < 1
            or not np.array_equal(mask, np.asarray(action_mask, dtype=np.int8))
        ):
            raise ValueError(f"ismcts was asked to act for {SEATS[seat]}, but the game it observed asks another "
                             "decision")  # fmt: skip
        self._target = np.zeros(N_ACTIONS, dtype=np.float32)
        if int(mask.sum()) == 1:
            action = int(np.flatnonzero(mask)[0])
            self._target[action] = 1.0
            return action
        action = search(
            state, seat, self.iterations, self.exploration, self._horizons[seat], rng,
            self._child, self._visits, self._wins, self._avail, self.rollout_agent, self.rewind,
            *self._value,
        )  # fmt: skip
        visits = np.where(mask > 0, self._visits[seat, 0], 0).astype(np.float32)
        total = visits.sum()
        self._target = visits / total if total > 0 else mask.astype(np.float32) / mask.sum()
        return int(action) if action >= 0 else int(np.flatnonzero(mask)[0])

    def policy_target(self) -> np.ndarray:
        """The share of the search's visits that each action got at the root of the last decision (N_ACTIONS
        float32, summing to 1, zero for the actions that were not legal): what the search thought of every move,
        not only the one it played, which expert iteration's warm start learns (`experiments.warm_start`)."""
        if self._target is None:
            raise RuntimeError("policy_target: the agent has not decided yet")
        return self._target.copy()
