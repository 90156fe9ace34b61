"""`python -m suntzu_env.bench --game binfa`: Bin'Fa measured through its plugin (the figures are printed, never
asserted)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from suntzu_env.core.rng import random_legal_states
from suntzu_env.suntzu import bench


def test_bench_measures_binfa_through_its_plugin(capsys: pytest.CaptureFixture[str]):
    bench.main(["--game", "binfa", "--games", "3", "--seconds", "0.01", "--rounds", "1", "--envs", "4"])
    out = capsys.readouterr().out
    assert "binfa: compiled random playouts, one core: 3 games" in out
    for k in (1, 2) if numba.config.NUMBA_NUM_THREADS >= 2 else (1,):
        assert f"binfa: batched env, 4 games vs random, threads {k}: " in out


def test_bench_names_the_known_games(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--game", "chess"])
    assert stop.value.code == 2 and "unknown game 'chess'; known games: suntzu" in capsys.readouterr().err


def test_the_bench_learner_draws_uniformly_among_the_legal_ids():
    # a wide mask with a few legal ids, some in the same block of the row and one in its last, partial block
    legal = [3, 5, 70, 200, 4268]
    masks = np.zeros((20_000, 4269), dtype=np.bool_)
    masks[:, legal] = True
    masks[-1] = False  # a row with nothing legal keeps its action
    state = random_legal_states(len(masks))
    out = np.full(len(masks), -1, dtype=np.int64)
    bench.random_legal(masks, state, out)
    assert out[-1] == -1
    drawn, counts = np.unique(out[:-1], return_counts=True)
    assert drawn.tolist() == legal
    expected = (len(masks) - 1) / len(legal)  # 4,000 each: 4 binomial standard deviations is about 230
    assert np.all(np.abs(counts - expected) < 4 * np.sqrt(expected * (1 - 1 / len(legal))))


def test_bench_times_the_batched_env_against_the_opponent_named(capsys: pytest.CaptureFixture[str]):
    bench.main(["--game", "binfa", "--games", "1", "--seconds", "0.01", "--rounds", "1", "--envs", "4",
                "--opponent", "greedy"])  # fmt: skip
    assert "binfa: batched env, 4 games vs greedy, threads 1: " in capsys.readouterr().out


def test_bench_refuses_an_unknown_opponent_in_one_line(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--game", "binfa", "--opponent", "chess"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "--opponent: " in err and "'chess'" in err
