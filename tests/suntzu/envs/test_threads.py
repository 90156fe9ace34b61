"""The batched kernels' thread count (`suntzu_env.core.threads`): chosen by timing; the games do not depend on it."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from suntzu_env.core.threads import ThreadCount
from suntzu_env.core.threads import candidate_counts
from suntzu_env.core.threads import check_threads
from suntzu_env.core.threads import max_threads


def feed(threads: ThreadCount, seconds: dict[int, float], calls: int) -> list[int]:
    """Let `threads` learn from `calls` calls, each taking `seconds[count]` on the count it chose; the counts."""
    chosen = []
    for _ in range(calls):
        count = threads._trial[0] if threads._trial else threads.played
        chosen.append(count)
        threads._learn(count, seconds[count])
    return chosen


@pytest.mark.parametrize(("given", "policy"), [(None, "passive"), ("active", "active")])
def test_importing_the_package_lets_idle_openmp_threads_sleep_unless_the_user_chose(
    given: str | None, policy: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    code = "import os, suntzu_env; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == policy


def test_candidates_are_one_the_powers_of_two_and_the_most() -> None:
    assert candidate_counts(1) == (1,)
    assert candidate_counts(2) == (1, 2)
    assert candidate_counts(6) == (1, 2, 4, 6)
    assert candidate_counts(16) == (1, 2, 4, 8, 16)


@pytest.mark.parametrize("bad", [0, -1, max_threads() + 1, 1.5, "2", "all", True, None])
def test_a_thread_count_outside_what_numba_allows_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="threads must be 'auto' or a whole number from 1 to"):
        check_threads(bad)  # type: ignore[arg-type]


def test_auto_starts_on_the_most_threads_and_moves_to_fewer_when_they_are_faster() -> None:
    threads = ThreadCount("auto", most=2)
    assert threads.played == 2
    # 2 threads four times slower (a core taken by another process): the first trial of 1 thread wins
    chosen = feed(threads, {1: 1.0, 2: 4.0}, ThreadCount.WARMUP + ThreadCount.FIRST_GAP + ThreadCount.TRIAL)
    assert threads.played == 1
    assert chosen[-ThreadCount.TRIAL :] == [1] * ThreadCount.TRIAL
    # the load goes away: 2 threads win their next trial and are played again
    feed(threads, {1: 1.0, 2: 0.6}, ThreadCount.FIRST_GAP + ThreadCount.TRIAL + 1)
    assert threads.played == 2


def test_auto_tries_less_and_less_often_while_the_played_count_keeps_winning() -> None:
    threads = ThreadCount("auto", most=2)
    chosen = feed(threads, {1: 1.0, 2: 0.7}, 2_000)
    assert threads.played == 2
    # after 2 untimed calls, trials start at calls 18, 53, 120, 251, 510 and 1025 (the gap after each trial
    # doubles from 16); the next would start at 2052
    assert chosen.count(1) == 6 * ThreadCount.TRIAL
    late = chosen[1_000:]
    assert late.count(1) / len(late) <= 0.01  # once backed off, the trials cost about a percent


def test_a_count_must_win_by_a_margin_to_be_played() -> None:
    threads = ThreadCount("auto", most=2)
    feed(threads, {1: 0.95, 2: 1.0}, 500)  # 5% faster is noise, not a reason to move
    assert threads.played == 2


def test_a_fixed_count_is_always_played() -> None:
    threads = ThreadCount(1)
    with threads.chosen() as count:
        assert count == 1 and numba.get_num_threads() == 1
    assert threads.counts == (1,)


def test_the_callers_thread_count_is_restored() -> None:
    before = numba.get_num_threads()
    with ThreadCount(1).chosen():
        pass
    assert numba.get_num_threads() == before


def test_the_games_do_not_depend_on_the_threads() -> None:
    """The same seed and actions give the same observations, rewards and ends on 1 thread, on the most, on auto."""
    from suntzu_env.suntzu.vec_env import SunTzuVecEnv

    outputs = []
    for threads in (1, max_threads(), "auto"):
        env = SunTzuVecEnv(32, opponents={"random": 1, "greedy": 1}, seed=3, threads=threads)
        rng = np.random.default_rng(0)
        seen = [env.reset()]
        for _ in range(150):
            masks = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, _ = env.step(actions)
            seen += [obs, rewards, dones]
        outputs.append(seen)
    for other in outputs[1:]:
        for a, b in zip(outputs[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
