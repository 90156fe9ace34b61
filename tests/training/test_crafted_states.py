"""A checkpoint's saved games reach compiled code only once checked: the batched envs' `set_state` (Sun Tzu's and
Bin'Fa's) refuses any value the compiled step would index with out of range, any game state the engine cannot be
in, any mask that is not the engine's, any float that is not finite, with a ValueError naming the array, the row
and the field, and changes nothing. Fuzzed: one value of one saved array changed at random is either refused (the
env unchanged) or safe to play on. The real command refuses such a checkpoint in one line, the folder unchanged."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env.binfa import vec_env as binfa
from suntzu_env.binfa.layout import UNIT_AT
from suntzu_env.core import vec_table
from suntzu_env.core.checks import IllegalActionWarning
from suntzu_env.core.rng import random_legal
from suntzu_env.core.rng import random_legal_states
from suntzu_env.suntzu import vec_core as core
from suntzu_env.suntzu.layout import ROUND
from suntzu_env.suntzu.vec.env import SunTzuVecEnv
from test_crafted_files import copy_run
from test_crafted_files import refused_in_one_line

N_ENVS = 4
SUNTZU_ARRAYS = ("states", "masks", "table", "phi", "streams", "actions", "finished", "obs", "terminal_obs", "rewards",
                 "illegal", "mix_cdf", "seed", "pending_seeds")  # fmt: skip
BINFA_ARRAYS = ("seed", "params", "mix", "states", "legal", "table", "rngs", "scratch", "buffers", "mask_buffers",
                "flip", "terminal_obs", "ids", "rewards")  # fmt: skip


def play(step: Callable[[np.ndarray], Any], masks: Callable[[], np.ndarray], steps: int) -> None:
    """`steps` steps of random legal actions (an env with no legal action plays 0)."""
    draws = random_legal_states(N_ENVS)
    actions = np.zeros(N_ENVS, dtype=np.int64)
    for _ in range(steps):
        actions[:] = 0
        random_legal(masks(), draws, actions)
        step(actions)


def suntzu_env(seed: int = 9) -> SunTzuVecEnv:
    return SunTzuVecEnv(N_ENVS, opponents={"random": 1, "greedy": 1}, seed=seed, shaped_reward=0.1, records=True)


def binfa_env(seed: int = 9) -> binfa.BinFaVecEnv:
    return binfa.BinFaVecEnv(N_ENVS, opponent={"random": 1, "greedy": 1}, seed=seed, options={"level": 4, "players": 3})


def saved_after_60_steps(make_env: Callable[[int], Any]) -> dict[str, np.ndarray]:
    env = make_env(1)
    env.reset()
    play(env.step, env.action_masks, 60)
    return env.get_state()


@pytest.fixture(scope="module")
def suntzu_saved() -> dict[str, np.ndarray]:
    return saved_after_60_steps(suntzu_env)


@pytest.fixture(scope="module")
def binfa_saved() -> dict[str, np.ndarray]:
    return saved_after_60_steps(binfa_env)


def copied(state: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {key: np.array(value, copy=True) for key, value in state.items()}


def same(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") for k in a
    )  # fmt: skip


def values(dtype: np.dtype) -> st.SearchStrategy[Any]:
    """Values an array of `dtype` can hold: small ones near the allowed ranges most often, any of the dtype's too."""
    if dtype.kind == "f":
        return st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, 0.5, 1.0, 2.0, 1e30]),
                         st.floats(allow_nan=True, width=8 * dtype.itemsize))  # fmt: skip
    if dtype.kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    edges = [v for v in (-(10**6), -2, -1, 0, 1, 2, 10**6, info.min, info.max) if info.min <= v <= info.max]
    return st.one_of(st.integers(max(info.min, -3), min(info.max, 300)), st.sampled_from(edges),
                     st.integers(int(info.min), int(info.max)))  # fmt: skip


def change_one(data: st.DataObject, state: dict[str, np.ndarray], names: tuple[str, ...]) -> str:
    """One value of one of the arrays `names` set to a drawn value; returns what was changed."""
    name = data.draw(st.sampled_from(names), label="array")
    array = state[name]
    flat = array.reshape(-1)
    at = data.draw(st.integers(0, flat.size - 1), label="index")
    flat[at] = data.draw(values(array.dtype), label="value")
    state[name] = flat.reshape(array.shape)
    return f"{name}[{at}]"


FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


FUZZED = {"suntzu": (suntzu_env, SUNTZU_ARRAYS), "binfa": (binfa_env, BINFA_ARRAYS)}


@pytest.mark.parametrize("game", FUZZED)
@FUZZ
@given(data=st.data())
def test_a_state_with_one_value_changed_is_refused_unchanged_or_safe(
    game: str, request: pytest.FixtureRequest, data: st.DataObject
) -> None:
    make_env, arrays = FUZZED[game]
    state = copied(request.getfixturevalue(f"{game}_saved"))
    change_one(data, state, arrays)
    env = make_env()
    env.reset()
    before = env.get_state()
    try:
        env.set_state(state)
    except ValueError as error:
        assert str(error).startswith("set_state: ")
        assert same(env.get_state(), before), "a refused state changed the env"
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)
        play(env.step, env.action_masks, 30)


def _illegal_action(state: dict[str, np.ndarray], i: int) -> int:
    return int(np.flatnonzero(state["masks"][i] == 0)[0])


SUNTZU_CRAFTED: list[tuple[str, Callable[[dict[str, np.ndarray]], None], str]] = [
    ("record length", lambda s: s["table"].__setitem__((1, core.T_REC_LEN), 10**6),
     r"table row 1: rec_len: 1000000 is outside \[0, 1024\]"),
    ("negative slot", lambda s: s["table"].__setitem__((0, vec_table.OPPONENT), -1),
     r"table row 0: opponent: -1 is outside"),
    ("fixed slot past the slots", lambda s: s["table"].__setitem__((2, core.T_FIXED_OPPONENT), 7),
     "table row 2: fixed_opponent: 7"),
    ("finished length", lambda s: s["table"].__setitem__((3, core.T_ENDED_LEN), -5), "table row 3: ended_len: -5"),
    ("learner seat", lambda s: s["table"].__setitem__((0, vec_table.SEAT), 2), "table row 0: seat: 2"),
    ("the other seat", lambda s: s["table"].__setitem__((0, vec_table.SEAT), 1 - s["table"][0, vec_table.SEAT]),
     "table row 0: seat: the game's pending decision is not the learner's"),
    ("legal count", lambda s: s["table"].__setitem__((1, vec_table.N_LEGAL), s["table"][1, vec_table.N_LEGAL] + 1),
     "table row 1: n_legal"),
    ("mask", lambda s: s["masks"].__setitem__((2, _illegal_action(s, 2)), 1), "masks row 2: not the legal actions"),
    ("game state", lambda s: s["states"].__setitem__((1, ROUND), 40), "states row 1: bad game record: round"),
    ("action id", lambda s: s["actions"].__setitem__((0, 3), 30000), r"actions row 0: 30000 is outside"),
    ("finished action", lambda s: s["finished"].__setitem__((3, 0), -1), "finished row 3: -1 is outside"),
    ("potential", lambda s: s["phi"].__setitem__(2, np.nan), "phi row 2: not a finite number"),
    ("observation", lambda s: s["obs"].__setitem__((1, 5), np.inf), "obs row 1: not a finite number"),
    ("mix", lambda s: s["mix_cdf"].__setitem__(0, 1.5), "mix_cdf: must be 2 cumulative probabilities"),
    ("seed", lambda s: s["pending_seeds"].__setitem__(2, -7), "pending_seeds row 2 must lie in"),
]  # fmt: skip


def test_suntzu_set_state_refuses_a_saved_network_of_another_shape(suntzu_saved: dict[str, np.ndarray]) -> None:
    """A policy network's slot played from its saved layers: layers that do not fit the game's observation are
    refused before the compiled step would read past it."""
    from suntzu_env.core.policy_net import PolicyNet
    from suntzu_env.core.policy_net import seated_state

    state = copied(suntzu_saved)
    k = len(state["slot_names"])
    net = PolicyNet([np.zeros((3, 5), np.float32)], [np.zeros(3, np.float32)])
    state |= seated_state(net, True, f"slot{k}_")
    state["slot_names"] = np.append(state["slot_names"], "net")
    state["slot_specs"] = np.append(state["slot_specs"], "")
    state["slot_agents"] = np.append(state["slot_agents"], core.AGENT_NET)
    state["mix_cdf"] = np.append(state["mix_cdf"], 1.0)
    env = suntzu_env()
    with pytest.raises(ValueError, match=f"opponent slot {k} .*5 inputs and 3 outputs"):
        env.set_state(state)


BINFA_CRAFTED: list[tuple[str, Callable[[dict[str, np.ndarray]], None], str]] = [
    ("legal count", lambda s: s["table"].__setitem__((0, vec_table.N_LEGAL), 10**6), "table row 0: n_legal: 1000000"),
    ("negative opponent", lambda s: s["table"].__setitem__((1, vec_table.OPPONENT), -1),
     "table row 1: opponent: -1 is outside"),
    ("seat", lambda s: s["table"].__setitem__((2, vec_table.SEAT), 3), r"table row 2: seat: 3 is outside \[0, 2\]"),
    ("games", lambda s: s["table"].__setitem__((3, binfa.T_GAMES), -1), "table row 3: games: -1"),
    ("unit place", lambda s: s["states"].__setitem__((0, UNIT_AT + 3), 500), "states row 0"),
    ("legal action", lambda s: s["legal"].__setitem__((1, 0), s["legal"][1, 0] + 1), "legal row 1"),
    ("learning id", lambda s: s["ids"].__setitem__((2, 0), 10**9), "ids row 2"),
    ("mask", lambda s: s["mask_buffers"][int(s["flip"])].__setitem__((3, slice(None)), True), "mask_buffers row 3"),
    ("flip", lambda s: s.__setitem__("flip", np.array(5, dtype=s["flip"].dtype)), "flip row 0: 5 is outside"),
    ("observation", lambda s: s["buffers"].__setitem__((1, 2, 0), np.nan), "buffers row 1: not a finite number"),
    ("mix", lambda s: s.__setitem__("mix", s["mix"][::-1].copy()), "mix: must be"),
    ("seed", lambda s: s.__setitem__("seed", np.array(-3, dtype=s["seed"].dtype)), "seed must lie in"),
]  # fmt: skip


CRAFTED = [("suntzu", *case) for case in SUNTZU_CRAFTED] + [("binfa", *case) for case in BINFA_CRAFTED]


@pytest.mark.parametrize("game, change, expected", [(g, c, e) for g, _, c, e in CRAFTED],
                         ids=[f"{g}-{n}" for g, n, _, _ in CRAFTED])  # fmt: skip
def test_set_state_names_the_array_row_and_field_and_changes_nothing(
    game: str, request: pytest.FixtureRequest, change: Callable[[dict[str, np.ndarray]], None], expected: str
) -> None:
    saved = request.getfixturevalue(f"{game}_saved")
    state = copied(saved)
    change(state)
    env = FUZZED[game][0]()
    env.reset()
    before = env.get_state()
    with pytest.raises(ValueError, match=expected):
        env.set_state(state)
    assert same(env.get_state(), before)
    env.set_state(saved)  # the state as saved is taken
    assert same(env.get_state(), saved)


def test_set_state_of_128_games_takes_well_under_a_second() -> None:
    import time

    env = SunTzuVecEnv(128, opponents={"random": 1, "greedy": 1}, seed=0)
    env.reset()
    draws, actions = random_legal_states(128), np.zeros(128, dtype=np.int64)
    for _ in range(80):
        random_legal(env.action_masks(), draws, actions)
        env.step(actions)
    state, again = env.get_state(), SunTzuVecEnv(128, seed=1)
    again.set_state(state)  # (the engine's checks compiled or loaded)
    start = time.perf_counter()
    again.set_state(state)
    assert time.perf_counter() - start < 0.6


@pytest.mark.parametrize("column, value", [("rec_len", 10**6), ("opponent", -1)])
def test_resume_refuses_a_checkpoint_whose_games_were_altered(
    tiny_run: Path, tmp_path: Path, column: str, value: int
) -> None:
    run = copy_run(tiny_run, tmp_path)
    checkpoint = run / "checkpoints" / "ppo_256_steps.zip"
    named = run / "checkpoints" / "ppo_256_steps.state.npz"
    with np.load(named) as data:
        arrays = dict(data)
    columns = [field.name for field in core.TABLE_FIELDS]
    arrays["env.table"][0, columns.index(column)] = value
    np.savez(named, **arrays)
    err = refused_in_one_line("experiments.train", ["--resume", str(checkpoint)], run, tmp_path / "never", named)
    assert f"table row 0: {column}: {value} is outside" in err and "nothing changed" in err


def test_every_batched_env_s_table_begins_with_the_shared_columns() -> None:
    """Both games' per-env tables begin with the core's columns (`suntzu_env.core.vec_table`), numbered alike, then
    their own; a saved table's shared columns are checked by the ranges declared with them."""
    shared = [(f.name, f.offset) for f in vec_table.SHARED_COLUMNS]
    assert [name for name, _ in shared] == ["n_legal", "seat", "opponent", "done", "illegal", "ended_seat",
                                            "ended_opponent", "ended_result"]  # fmt: skip
    for table in (core.TABLE_FIELDS, binfa.TABLE_FIELDS):
        assert [(f.name, f.offset) for f in table[: len(shared)]] == shared
        assert [f.offset for f in table] == list(range(len(table))) and len({f.name for f in table}) == len(table)
    bounds = vec_table.shared_bounds(3, 5, 40, (-1, 3))
    assert bounds == {vec_table.N_LEGAL: (0, 40), vec_table.SEAT: (0, 2), vec_table.OPPONENT: (0, 4),
                      vec_table.DONE: (0, 1), vec_table.ILLEGAL: (0, 1), vec_table.ENDED_SEAT: (0, 2),
                      vec_table.ENDED_OPPONENT: (0, 4), vec_table.ENDED_RESULT: (-1, 3)}  # fmt: skip
