"""`python -m suntzu_env.bench --game binfa`: Bin'Fa measured through its plugin (the figures are printed, never
asserted)."""

from __future__ import annotations

import numba
import pytest

from suntzu_env import bench


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
