"""The warm start keeps its decisions compact (`experiments.warm_start.Decisions`) and gives them back exactly."""

from __future__ import annotations

import numpy as np
from experiments.warm_start import DecisionLog
from experiments.warm_start import Decisions
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st


def _logged(rng: np.random.Generator, n: int, width: int, n_actions: int) -> tuple[Decisions, np.ndarray, np.ndarray]:
    """`n` random decisions logged one by one, and their dense observations (as float16, then float32) and masks."""
    obs = rng.random((n, width), dtype=np.float32) * (rng.random((n, width)) < 0.2)  # mostly zeros, as observed
    obs[:, :1] = 1e-9  # below float16's range: it is learnt as 0, so it is kept as 0
    masks = rng.random((n, n_actions)) < 0.1
    log = DecisionLog(width, n_actions)
    for i in range(n):
        log.add(obs[i], masks[i].astype(np.int8), int(i))
    decisions = log.decisions([float(i % 3 - 1) for i in range(n)])
    return decisions, obs.astype(np.float16).astype(np.float32), masks


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=4),
    width=st.integers(1, 70),
    n_actions=st.integers(1, 40),
)
def test_decisions_give_back_the_dense_observations_and_masks_of_any_rows(
    seed: int, sizes: list[int], width: int, n_actions: int
) -> None:
    """Logged in parts, joined, then read back in any order (repeats included): exactly the observations as they are
    learnt (rounded to float16), the masks, the labels and the results."""
    rng = np.random.default_rng(seed)
    parts = [_logged(rng, n, width, n_actions) for n in sizes]
    joined = Decisions.concatenate([p[0] for p in parts])
    dense = np.concatenate([p[1] for p in parts])
    masks = np.concatenate([p[2] for p in parts])
    assert joined.size == sum(sizes)
    rows = rng.integers(0, max(joined.size, 1), size=joined.size * 2) if joined.size else np.zeros(0, dtype=np.int64)
    obs, got_masks = joined.batch(rows)
    assert obs.dtype == np.float32 and got_masks.dtype == np.bool_
    assert np.array_equal(obs, dense[rows]) and np.array_equal(got_masks, masks[rows])
    assert np.array_equal(joined.actions, np.concatenate([p[0].actions for p in parts]))
    assert np.array_equal(joined.results[rows], np.concatenate([p[0].results for p in parts])[rows])


def test_a_binfa_decision_takes_under_a_sixth_of_its_dense_bytes() -> None:
    """A Bin'Fa position's observation is mostly zeros and its mask mostly False: kept compact, a decision of the
    teacher's demonstrations takes under a sixth of the bytes of its float16 observation and boolean mask (the
    tactical pieces of binfa_v3, `enemy_closeness` above all, are not sparse)."""
    from experiments.warm_start import _demo_job
    from suntzu_env.binfa.plugin import BINFA

    decisions = _demo_job(("binfa", "heuristic", 5, 1, BINFA.options(max_turns=10)))
    compact = sum(getattr(decisions, name).nbytes for name in ("starts", "columns", "values", "masks"))
    dense = decisions.size * (2 * BINFA.observation_size + BINFA.n_actions)
    assert decisions.size > 0 and compact * 6 < dense
