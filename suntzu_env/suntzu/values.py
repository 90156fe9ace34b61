"""A learned evaluation of Sun Tzu positions: its inputs, the positions it learns from, and its file.

A value network reads both seats' observations of a full state, blue's then red's (`VALUE_INPUTS` floats: in a
search the state is a determinization, so nothing hidden from the searching seat is read), and answers one logit
of blue's chance to win. It learns from the first decision of each round of compiled games between two copies of
a baseline or of a trained policy (`value_positions`), labelled with blue's result (1 a win, 0 a loss, 0.5 a
draw).

The network is a `suntzu_env.core.policy_net.PolicyNet` of one output, kept as a `.npz` file of plain arrays (its
`state()`), read with `read_value_net`: without pickles, its widths and values checked before compiled code
reads it.
"""

from __future__ import annotations

import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from numba import njit, prange

from suntzu_env.core.agent import ModelError
from suntzu_env.core.npz import UnsafeFileError, read_net_file
from suntzu_env.core.policy_net import HEADER_SIZE, CompiledNet, PolicyNet, net_act, playable_net
from suntzu_env.pretrained import VALUE, shipped
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine import init_state, rng_seed, step
from suntzu_env.suntzu.layout import DEC_SIDE, ROUND, STATE_DTYPE, STATE_SIZE, WINNER
from suntzu_env.suntzu.observation import OBSERVATION_SIZE, encode_observation
from suntzu_env.suntzu.rules import N_ROUNDS
from suntzu_env.suntzu.vec_core import AGENT_NET, COMPILED_AGENTS, compiled_action

VALUE_INPUTS = 2 * OBSERVATION_SIZE  # blue's observation, then red's
VALUE_FILE = "value.npz"  # a value network in a run folder
CHUNK_GAMES = 1000  # games per compiled call of `value_positions` (each chunk seeded by its first game)
NO_NET = (np.zeros(1, dtype=np.float32), np.zeros(HEADER_SIZE, dtype=np.int64), 0)  # what a baseline passes for one


@njit(cache=True)
def value_inputs(s: np.ndarray, out: np.ndarray) -> None:
    """Write the value network's input of state `s` into `out` (VALUE_INPUTS float32): both seats' observations."""
    encode_observation(s, 0, out[:OBSERVATION_SIZE])
    encode_observation(s, 1, out[OBSERVATION_SIZE:])


@njit(cache=True, parallel=True)
def value_inputs_batch(states: np.ndarray, out: np.ndarray) -> None:
    """`value_inputs` of each row of `states` (N, STATE_SIZE) into `out` (N, VALUE_INPUTS)."""
    for i in prange(states.shape[0]):
        value_inputs(states[i], out[i])


@njit(cache=True, nogil=True)
def _chunk_positions(
    first_seed: int,
    games: int,
    variant: int,
    events: int,
    adj: np.ndarray,
    agent: int,
    params: np.ndarray,
    header: np.ndarray,
    work: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The round-start states of games `first_seed`..+games-1 between two copies of baseline `agent` (AGENT_NET:
    of the policy network `params`/`header`, each seat reading its own observation), and blue's result in each
    (rows in order of game, then round)."""
    states = np.empty((games * N_ROUNDS, STATE_SIZE), dtype=STATE_DTYPE)
    results = np.empty(games * N_ROUNDS, dtype=np.float32)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    scratch = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    rng = rng_seed(first_seed ^ 0x2545F4914F6CDD1D)
    rows = 0
    for g in range(games):
        n = init_state(s, first_seed + g, variant, events, adj, mask)
        first = rows
        last_round = 0
        while n > 0:
            if s[ROUND] != last_round and s[ROUND] <= N_ROUNDS:
                last_round = s[ROUND]
                states[rows] = s
                rows += 1
            if agent == AGENT_NET:
                encode_observation(s, s[DEC_SIDE], scratch)
                a = net_act(params, header, scratch, mask, rng, work)
            else:
                a = compiled_action(agent, s, s[DEC_SIDE], mask, n, rng, scratch)
            n = step(s, a, mask)
        w = s[WINNER]
        results[first:rows] = 1.0 if w == 0 else (0.0 if w == 1 else 0.5)
    return states[:rows].copy(), results[:rows].copy()


def value_positions(
    games: int,
    seed: int,
    variant: int,
    events: int,
    adj: np.ndarray,
    teacher: str = "heuristic",
    threads: int = 1,
    policy: tuple[CompiledNet, bool] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Round-start states of `games` games (deck seeds `seed`..`seed + games - 1`) between two copies of the
    compiled baseline `teacher`, or of `policy` where one is given (a policy network, playing its argmax when
    paired with True, else sampling), and blue's result in each: (M, STATE_SIZE) and (M,) float32. The same for
    any `threads` (each chunk of CHUNK_GAMES games has its own generator)."""
    if policy is not None:
        net, deterministic = policy
        playable_net(net, OBSERVATION_SIZE, N_ACTIONS, "policy")
        agent, params, header, width = AGENT_NET, net.params, net.playing(deterministic), net.work_size
    elif teacher not in COMPILED_AGENTS:
        raise ValueError(f"teacher must be one of {', '.join(COMPILED_AGENTS)}, got {teacher!r}")
    else:
        agent, params, header, width = COMPILED_AGENTS.index(teacher), *NO_NET
    adj = np.asarray(adj, dtype=np.int64)
    starts = range(seed, seed + games, CHUNK_GAMES)

    def chunk(first: int) -> tuple[np.ndarray, np.ndarray]:
        work = np.zeros(max(1, width), dtype=np.float32)  # each thread its own scratch
        n = min(CHUNK_GAMES, seed + games - first)
        return _chunk_positions(first, n, variant, events, adj, agent, params, header, work)

    with ThreadPoolExecutor(max(1, threads)) as pool:
        parts = list(pool.map(chunk, starts))
    if not parts:
        return np.zeros((0, STATE_SIZE), dtype=STATE_DTYPE), np.zeros(0, dtype=np.float32)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def inputs_of(states: np.ndarray) -> np.ndarray:
    """The value network's inputs (N, VALUE_INPUTS) float32 of states (N, STATE_SIZE)."""
    states = np.ascontiguousarray(states, dtype=STATE_DTYPE)
    if states.ndim != 2 or states.shape[1] != STATE_SIZE:
        raise ValueError(f"states must have shape (N, {STATE_SIZE}), got {states.shape}")
    out = np.empty((len(states), VALUE_INPUTS), dtype=np.float32)
    value_inputs_batch(states, out)
    return out


def check_value_net(net: CompiledNet, where: object) -> PolicyNet:
    """`net` if it is a value network of this version (an MLP of VALUE_INPUTS inputs, one output), else ModelError."""
    if not isinstance(net, PolicyNet) or net.n_inputs != VALUE_INPUTS or net.n_outputs != 1:
        raise ModelError(f"{where} is not a value network of this version: it needs an MLP of {VALUE_INPUTS} inputs "
                         f"and one output, it has {net.n_inputs} and {net.n_outputs}")  # fmt: skip
    net.check()
    return net


def read_value_net(path: str | Path) -> PolicyNet:
    """The value network of a `.npz` file, or of `VALUE_FILE` in a run folder: read as plain arrays
    (`suntzu_env.core.npz.read_net_file`: no pickle, no header sized past the file), checked; ModelError (one line)
    for anything else, `UnsafeFileError` for a file that holds more than data. `pretrained/<name>` is a value
    network shipped inside the package (`suntzu_env.pretrained`)."""
    entry = shipped(str(path))
    if entry is not None and entry.role != VALUE:
        raise ModelError(f"{path} is a {entry.game} policy, not a value network: play it as {entry.spec}")
    path = Path(path)
    file = entry.file if entry is not None else path / VALUE_FILE if path.is_dir() else path
    if not file.is_file():
        raise ModelError(f"{path}: no value network there (a {VALUE_FILE} file or a run folder holding one)")
    try:
        net = read_net_file(file)
    except UnsafeFileError as error:
        raise UnsafeFileError(f"{file}: not a value network ({error})") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ModelError(f"{file}: not a value network ({error})") from None
    return check_value_net(net, file)


__all__ = [
    "VALUE_FILE",
    "VALUE_INPUTS",
    "check_value_net",
    "inputs_of",
    "read_value_net",
    "value_inputs",
    "value_positions",
]
