"""The batched episode core: many learner episodes stepped at once in compiled code.

`suntzu_env.suntzu.vec_env.SunTzuVecEnv` is the Python face over it. One call steps every game: the learner's
action, the compiled opponents' replies until the learner must act again, the reward (the episode rules of
`suntzu_env.suntzu.tables`, shared with `suntzu_env.suntzu.episode.Episode`), the end of the episode and a new game, the
learner's observation (`suntzu_env.suntzu.observation.encode_observation`) and its mask (the engine's). A game whose
opponent is a policy, evaluated in Python for all such games at once, stops where that opponent is asked
(`waiting`), and `resume_games` goes on once its answers are in.

What the kernels play on is declared once, as the named tuple `Batch` (the games' arrays, the opponents' and the
settings); per game the integers live in one row of its `table`, whose columns are declared once too
(`TABLE_FIELDS`, numbered as `suntzu_env.suntzu.layout` numbers the state's fields). Opponents that are policy networks
play in compiled code too (`suntzu_env.core.policy_net`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from suntzu_env.core import vec_table
from suntzu_env.core.policy_net import net_act
from suntzu_env.core.rng import GOLDEN, mix64
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.baselines import BASELINES, DEFAULT_PARAMS_ARRAY, RANDOM, baseline_act
from suntzu_env.suntzu.engine import init_state, projected_marker, random_action, result, rng_seed, side_to_act, step
from suntzu_env.suntzu.layout import SCORE
from suntzu_env.suntzu.observation import OBSERVATION_SIZE, encode_observation
from suntzu_env.suntzu.tables import OFFENDER_BIT, episode_over, shaping_potential, shaping_term, step_reward

RECORD_CAPACITY = 1024  # decisions a game's record may hold: several times the longest game (about 200)

# Columns of the per-game table, in order: those every batched env's table begins with (`suntzu_env.core.vec_table`;
# its result, `vec_table.ENDED_RESULT`, the engine's `result`), then Sun Tzu's own.
TABLE_FIELDS = vec_table.table_columns()
T_STAGE = TABLE_FIELDS.add("stage", "where the step stands, one of the S_* below")
T_FIXED_OPPONENT = TABLE_FIELDS.add("fixed_opponent", "every game's opponent slot in this env, -1: drawn from the mix")
T_GAME_SEED = TABLE_FIELDS.add("game_seed", "the game's deck seed")
T_REC_LEN = TABLE_FIELDS.add("rec_len", "actions recorded in the game in progress")
T_AGENT_RNG = TABLE_FIELDS.add("agent_rng", "the compiled opponent's generator (one int64: the engine's generator)")
T_WAITING = TABLE_FIELDS.add("waiting", "1 while a policy opponent must answer")
T_ENDED_LEN = TABLE_FIELDS.add("ended_len", "the last finished game: actions recorded")
T_ENDED_SEED = TABLE_FIELDS.add("ended_seed", "the last finished game's deck seed (-1: none yet)")
T_NEXT_SEAT = TABLE_FIELDS.add("next_seat", "the learner's side in the next game (seat mode 'alternate')")
T_ENDED_SCORE = TABLE_FIELDS.add("ended_score", "the last finished game's final marker, + toward blue")
T_IDLE = TABLE_FIELDS.add("idle", "1: the env sits out every step until a game is started in it")
TABLE_COLUMNS = len(TABLE_FIELDS)


class Batch(NamedTuple):
    """What the kernels play on, declared once: N games' arrays, the opponents' and the settings. The kernels take
    these as their last arguments, in this order (`SunTzuVecEnv` passes `*batch`; `tests/suntzu/envs/test_vec_env.py`
    checks every kernel's parameters against the fields): numba 0.68 did not keep writes made through a named tuple's
    arrays inside a `prange` loop, so the compiled code takes the arrays themselves."""

    states: np.ndarray  # (N, S) the games' states
    masks: np.ndarray  # (N, A) int8, the pending decision's legal actions
    table: np.ndarray  # (N, TABLE_COLUMNS) int64, the per-game integers (`TABLE_FIELDS`)
    phi: np.ndarray  # (N,) the shaping potential of the learner's last state
    streams: np.ndarray  # (N,) uint64, each env's generator of seeds (`draw`)
    actions: np.ndarray  # (N, C) int16, the actions of the game in progress
    finished: np.ndarray  # (N, C) int16, the actions of the last finished game
    obs: np.ndarray  # (N, D) float32, the learners' observations (written)
    terminal_obs: np.ndarray  # (N, D) float32, the learner's last observation of a finished game
    rewards: np.ndarray  # (N,) float32
    scratch: np.ndarray  # (N, D) float32, the compiled opponents' observations
    slot_agent: np.ndarray  # (slots,) int64, each opponent slot's agent (`COMPILED_AGENTS` id, AGENT_*)
    mix_cdf: np.ndarray  # (slots,) float64, the opponent mix's cumulative weights
    settings: np.ndarray  # (variant, events, seat mode) int64
    adj: np.ndarray  # the map
    net_params: np.ndarray  # float32, the policy networks' packed parameters (`suntzu_env.core.policy_net`)
    net_headers: np.ndarray  # (slots, H) int64, each slot's net
    work: np.ndarray  # (N, W) float32, the scratch of the networks' forward passes
    weight: float  # the shaping weight w


# Stages of a step.
S_PLAY = 0  # the learner has acted: opponents to answer, then the reward
S_FRESH = 1  # a new game: opponents to answer before the learner's first decision
S_READY = 2  # the learner must act

# `settings` entries and seat modes.
SET_VARIANT = 0
SET_EVENTS = 1
SET_SEATS = 2
SEAT_ALTERNATE = 2  # seat modes: 0 the learner is always blue, 1 always red, 2 alternating per game

# Compiled opponents by id: the baselines of `suntzu_env.suntzu.baselines` (a slot's agent id; -1 a policy asked from
# Python,
# -2 a policy network played in compiled code, its net the slot's row of `net_headers`).
AGENT_POLICY = -1
AGENT_NET = -2
COMPILED_AGENTS: tuple[str, ...] = BASELINES

_S11 = np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def draw(streams: np.ndarray, i: int) -> np.uint64:
    """The next 64-bit number of env i's stream (the engines' generator, `rng`, over a uint64 state): deck seeds,
    opponents, the opponents' generators."""
    streams[i] += GOLDEN
    return mix64(streams[i])


@njit(cache=True)
def _draw_slot(streams: np.ndarray, i: int, mix_cdf: np.ndarray) -> int:
    u = np.int64(draw(streams, i) >> _S11) * _TO_UNIT
    for k in range(mix_cdf.shape[0]):
        if u < mix_cdf[k]:
            return k
    return mix_cdf.shape[0] - 1


@njit(cache=True, inline="always")
def compiled_action(
    agent: int, s: np.ndarray, side: int, mask: np.ndarray, n_legal: int, rng: np.ndarray, scratch: np.ndarray
) -> int:
    """The answer of baseline `agent` (an id of `COMPILED_AGENTS`) for `side` at state `s`: it sees that side's
    observation (written into `scratch`) and the mask, whose `n_legal` legal actions are all `random` reads (the
    same draw as `random_act`, without counting them again)."""
    if agent == RANDOM:
        return random_action(rng, mask, n_legal)
    encode_observation(s, side, scratch)
    return baseline_act(agent, scratch, mask, rng, DEFAULT_PARAMS_ARRAY)


@njit(cache=True)
def new_game(
    i: int,
    states: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    streams: np.ndarray,
    mix_cdf: np.ndarray,
    settings: np.ndarray,
    adj: np.ndarray,
    game_seed: int,
    learner: int,
    agent_seed: int,
) -> None:
    """Start env i's next game: from `game_seed` (-1: drawn from the env's stream) with the learner at `learner`
    (-1: as the seat mode says), the opponent of its slot (or drawn from the mix), and the opponent's generator
    seeded with `agent_seed` (-1: drawn from the stream; an `Agent.reset(seed)` gives the same generator)."""
    if game_seed < 0:
        game_seed = np.int64(draw(streams, i) >> np.uint64(1))
    if learner < 0:
        learner = settings[SET_SEATS] if settings[SET_SEATS] != SEAT_ALTERNATE else table[i, T_NEXT_SEAT]
    table[i, T_NEXT_SEAT] = 1 - learner
    table[i, vec_table.SEAT] = learner
    table[i, T_GAME_SEED] = game_seed
    fixed = table[i, T_FIXED_OPPONENT]
    table[i, vec_table.OPPONENT] = fixed if fixed >= 0 else _draw_slot(streams, i, mix_cdf)
    drawn = np.int64(draw(streams, i) >> np.uint64(1))
    table[i, T_AGENT_RNG] = rng_seed(agent_seed if agent_seed >= 0 else drawn)[0]
    table[i, T_REC_LEN] = 0
    table[i, T_STAGE] = S_FRESH
    n_legal = init_state(states[i], game_seed, settings[SET_VARIANT], settings[SET_EVENTS], adj, masks[i])
    table[i, vec_table.N_LEGAL] = n_legal


@njit(cache=True)
def record_action(i: int, table: np.ndarray, actions: np.ndarray, a: int) -> None:
    n = table[i, T_REC_LEN]
    if n >= actions.shape[1]:
        raise RuntimeError("a game longer than the record capacity")
    actions[i, n] = a
    table[i, T_REC_LEN] = n + 1


@njit(cache=True)
def _finish(
    i: int, states: np.ndarray, table: np.ndarray, actions: np.ndarray, finished: np.ndarray, terminal_obs: np.ndarray
) -> None:
    """Env i's episode ended: the learner's last observation and the game's record are kept."""
    learner = table[i, vec_table.SEAT]
    encode_observation(states[i], learner, terminal_obs[i])
    n = table[i, T_REC_LEN]
    finished[i, :n] = actions[i, :n]
    table[i, T_ENDED_LEN] = n
    table[i, T_ENDED_SEED] = table[i, T_GAME_SEED]
    table[i, vec_table.ENDED_SEAT] = learner
    table[i, vec_table.ENDED_RESULT] = result(states[i])
    table[i, vec_table.ENDED_OPPONENT] = table[i, vec_table.OPPONENT]
    table[i, T_ENDED_SCORE] = states[i, SCORE]
    table[i, vec_table.DONE] = 1


@njit(cache=True)
def _ended_before_learner() -> None:
    """Raised here, not in `run_game`: a `raise` inlined into a `prange` loop keeps it from running in parallel."""
    raise RuntimeError("a game ended before the learner's first decision")


@njit(cache=True, inline="always")
def run_game(
    i: int,
    states: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    phi: np.ndarray,
    streams: np.ndarray,
    actions: np.ndarray,
    finished: np.ndarray,
    obs: np.ndarray,
    terminal_obs: np.ndarray,
    rewards: np.ndarray,
    scratch: np.ndarray,
    slot_agent: np.ndarray,
    mix_cdf: np.ndarray,
    settings: np.ndarray,
    adj: np.ndarray,
    net_params: np.ndarray,
    net_headers: np.ndarray,
    work: np.ndarray,
    weight: float,
) -> None:
    """Play env i on until the learner must act (its observation written) or a policy opponent must answer.

    Inlined into the kernels' loops (passing its 18 arrays to a call cost about a tenth of the step); its arrays
    are `Batch`'s.

    After the learner's action (stage S_PLAY) the opponent answers, then the step is settled as
    `Episode.settle` does: the result, the shaping w·(Φ(s') − Φ(s)) toward the learner, the end; at the end the
    learner's observation and the record are kept and a new game starts (S_FRESH), whose opening opponent
    moves are made and whose potential becomes the next step's Φ(s).
    """
    s = states[i]
    mask = masks[i]
    while True:
        learner = table[i, vec_table.SEAT]
        while table[i, vec_table.N_LEGAL] > 0 and side_to_act(s) != learner:
            slot = table[i, vec_table.OPPONENT]
            agent = slot_agent[slot]
            if agent == AGENT_POLICY:
                table[i, T_WAITING] = 1
                return
            rng = table[i, T_AGENT_RNG : T_AGENT_RNG + 1]
            if agent == AGENT_NET:
                encode_observation(s, 1 - learner, scratch[i])
                a = net_act(net_params, net_headers[slot], scratch[i], mask, rng, work[i])
            else:
                a = compiled_action(agent, s, 1 - learner, mask, table[i, vec_table.N_LEGAL], rng, scratch[i])
            record_action(i, table, actions, a)
            table[i, vec_table.N_LEGAL] = step(s, a, mask)
        if table[i, T_STAGE] == S_PLAY:
            res = result(s)
            over = episode_over(res, 0)
            reward = step_reward(res, 0, learner)
            if weight != 0.0:
                potential = shaping_potential(projected_marker(s), weight, over)
                reward += shaping_term(potential, phi[i], learner)
                phi[i] = potential
            rewards[i] = reward
            if over:
                _finish(i, states, table, actions, finished, terminal_obs)
                new_game(i, states, masks, table, streams, mix_cdf, settings, adj, -1, -1, -1)
                continue
        else:
            if table[i, vec_table.N_LEGAL] == 0:
                _ended_before_learner()
            phi[i] = shaping_potential(projected_marker(s), weight, False) if weight != 0.0 else 0.0
        table[i, T_STAGE] = S_READY
        encode_observation(s, learner, obs[i])
        return


@njit(cache=True, parallel=True)
def step_games(
    learner_actions: np.ndarray,
    illegal: np.ndarray,
    states: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    phi: np.ndarray,
    streams: np.ndarray,
    actions: np.ndarray,
    finished: np.ndarray,
    obs: np.ndarray,
    terminal_obs: np.ndarray,
    rewards: np.ndarray,
    scratch: np.ndarray,
    slot_agent: np.ndarray,
    mix_cdf: np.ndarray,
    settings: np.ndarray,
    adj: np.ndarray,
    net_params: np.ndarray,
    net_headers: np.ndarray,
    work: np.ndarray,
    weight: float,
) -> None:
    """Every env's learner plays `learner_actions[i]` (checked legal by the caller unless `illegal[i]`: then the
    episode is lost, as `Episode.settle` rules for an offender), and each game runs on (`run_game`)."""
    for i in prange(states.shape[0]):
        table[i, vec_table.DONE] = 0
        table[i, vec_table.ILLEGAL] = 0
        table[i, T_WAITING] = 0
        rewards[i] = 0.0
        learner = table[i, vec_table.SEAT]
        if table[i, T_IDLE]:
            encode_observation(states[i], learner, obs[i])  # unchanged: the same as the last step's
            continue
        if illegal[i]:
            offenders = OFFENDER_BIT[learner]
            reward = step_reward(result(states[i]), offenders, learner)
            if weight != 0.0:
                reward += shaping_term(shaping_potential(0, weight, True), phi[i], learner)
                phi[i] = 0.0
            rewards[i] = reward
            table[i, vec_table.ILLEGAL] = 1
            _finish(i, states, table, actions, finished, terminal_obs)
            new_game(i, states, masks, table, streams, mix_cdf, settings, adj, -1, -1, -1)
        else:
            a = learner_actions[i]
            record_action(i, table, actions, a)
            table[i, vec_table.N_LEGAL] = step(states[i], a, masks[i])
            table[i, T_STAGE] = S_PLAY
        run_game(
            i, states, masks, table, phi, streams, actions, finished, obs, terminal_obs, rewards, scratch,
            slot_agent, mix_cdf, settings, adj, net_params, net_headers, work, weight,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def resume_games(
    envs: np.ndarray,
    answers: np.ndarray,
    states: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    phi: np.ndarray,
    streams: np.ndarray,
    actions: np.ndarray,
    finished: np.ndarray,
    obs: np.ndarray,
    terminal_obs: np.ndarray,
    rewards: np.ndarray,
    scratch: np.ndarray,
    slot_agent: np.ndarray,
    mix_cdf: np.ndarray,
    settings: np.ndarray,
    adj: np.ndarray,
    net_params: np.ndarray,
    net_headers: np.ndarray,
    work: np.ndarray,
    weight: float,
) -> None:
    """The policy opponents' answers (`answers[j]` for env `envs[j]`, checked legal by the caller) are
    played, and each of those games runs on."""
    for j in prange(envs.shape[0]):
        i = envs[j]
        table[i, T_WAITING] = 0
        record_action(i, table, actions, answers[j])
        table[i, vec_table.N_LEGAL] = step(states[i], answers[j], masks[i])
        run_game(
            i, states, masks, table, phi, streams, actions, finished, obs, terminal_obs, rewards, scratch,
            slot_agent, mix_cdf, settings, adj, net_params, net_headers, work, weight,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def start_games(
    envs: np.ndarray,
    starts: np.ndarray,
    states: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    phi: np.ndarray,
    streams: np.ndarray,
    actions: np.ndarray,
    finished: np.ndarray,
    obs: np.ndarray,
    terminal_obs: np.ndarray,
    rewards: np.ndarray,
    scratch: np.ndarray,
    slot_agent: np.ndarray,
    mix_cdf: np.ndarray,
    settings: np.ndarray,
    adj: np.ndarray,
    net_params: np.ndarray,
    net_headers: np.ndarray,
    work: np.ndarray,
    weight: float,
) -> None:
    """A new game in each env `envs[j]`, from `starts[j]` = (deck seed, learner's side, opponent's generator
    seed), each -1 for drawn from the env's stream (the side: as the seat mode says)."""
    for j in prange(envs.shape[0]):
        i = envs[j]
        table[i, vec_table.DONE] = 0
        table[i, vec_table.ILLEGAL] = 0
        table[i, T_WAITING] = 0
        table[i, T_IDLE] = 0
        rewards[i] = 0.0
        new_game(i, states, masks, table, streams, mix_cdf, settings, adj, starts[j, 0], starts[j, 1], starts[j, 2])
        run_game(
            i, states, masks, table, phi, streams, actions, finished, obs, terminal_obs, rewards, scratch,
            slot_agent, mix_cdf, settings, adj, net_params, net_headers, work, weight,
        )  # fmt: skip


@njit(cache=True)
def check_actions(actions: np.ndarray, masks: np.ndarray, illegal: np.ndarray) -> int:
    """`illegal[i]` = 1 where `actions[i]` is no legal answer of env i (out of range or masked out); returns
    the first such env, or -1 when every action is legal."""
    first = -1
    for i in range(actions.shape[0]):
        a = actions[i]
        bad = a < 0 or a >= masks.shape[1] or masks[i, a] == 0
        illegal[i] = bad
        if bad and first < 0:
            first = i
    return first


@njit(cache=True, parallel=True)
def baseline_actions(agent: int, obs: np.ndarray, masks: np.ndarray, rngs: np.ndarray, out: np.ndarray) -> None:
    """`out[i]`: baseline `agent`'s answer to observation `obs[i]` and mask `masks[i]`, drawing (`random`) from
    its own generator `rngs[i]` (one `rng_seed` state per row): a compiled agent in the learner's seat."""
    for i in prange(obs.shape[0]):
        out[i] = baseline_act(agent, obs[i], masks[i], rngs[i], DEFAULT_PARAMS_ARRAY)


@njit(cache=True, parallel=True)
def observe(
    envs: np.ndarray, opponent: bool, states: np.ndarray, table: np.ndarray, out: np.ndarray, rows: np.ndarray
) -> None:
    """`out[rows[j]]`: what env `envs[j]`'s learner (or, with `opponent`, its opponent) observes now."""
    for j in prange(envs.shape[0]):
        i = envs[j]
        learner = table[i, vec_table.SEAT]
        encode_observation(states[i], 1 - learner if opponent else learner, out[rows[j]])


__all__ = [
    "COMPILED_AGENTS",
    "N_ACTIONS",
    "OBSERVATION_SIZE",
    "RECORD_CAPACITY",
    "TABLE_FIELDS",
    "Batch",
]
