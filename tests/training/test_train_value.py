"""`python -m experiments.train_value`: a run folder made whole or not at all, the same network from the same
command, its agent playable by the spec it prints, and one-line refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from experiments import train_value
from suntzu_env.core import games
from suntzu_env.suntzu.values import VALUE_FILE
from suntzu_env.suntzu.values import read_value_net

SMALL = ["--games", "40", "--epochs", "1", "--hidden", "8", "--threads", "1"]


def test_a_value_run_writes_its_folder_and_its_agent_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "v"])
    run = tmp_path / "v"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]  # no hidden folder left
    assert sorted(p.name for p in run.iterdir()) == ["config.json", "summary.json", VALUE_FILE]
    assert summary["positions"] > 40 and summary["agent"] == f"ismcts-value:{run}"
    assert f"play it: ismcts-value:{run}" in capsys.readouterr().out
    again = train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "w", "--device", "cpu"])
    assert again["held_out_cross_entropy"] == summary["held_out_cross_entropy"]
    np.testing.assert_array_equal(read_value_net(run).params, read_value_net(tmp_path / "w").params)
    agent = games.game("suntzu").make_agent(summary["agent"], seed=0)
    assert agent.value is not None
    assert summary["player"] == "heuristic"  # the game's teacher


def test_a_value_learns_from_a_trained_policys_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--player ppo:<run>`: the positions are the policy's games against itself (the shipped policy here)."""
    policy = train_value.main([*SMALL, "--player", "ppo:pretrained/suntzu", "--runs-dir", str(tmp_path)])
    teacher = train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "h"])
    assert policy["player"] == "ppo:pretrained/suntzu"
    assert "40 games of ppo:pretrained/suntzu against itself" in capsys.readouterr().out
    assert (policy["positions"], policy["first_seat_result"]) != (teacher["positions"], teacher["first_seat_result"])


def test_a_killed_value_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(train_value, "save_atomic", killed)
    with pytest.raises(SystemExit):
        train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "v"])
    assert list(tmp_path.iterdir()) == []
    (tmp_path / ".v.tmp-1").mkdir()  # a run killed outright leaves the folder it was making: the next one removes it
    monkeypatch.undo()
    train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "v"])
    assert [p.name for p in tmp_path.iterdir()] == ["v"]


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--games", "0"], "games must be at least 20"),
        (["--hidden", "0"], "hidden must be"),
        (["--learning-rate", "2"], "learning_rate"),
        (["--device", "gpu"], "device must be auto, cpu, cuda or cuda:N"),
        (["--run-name", "../x"], "plain folder name"),
        (["--game", "binfa"], "offers no learned evaluation"),
        (["--player", "nobody"], "player: "),
        (["--player", "ismcts"], "player: 'ismcts' does not play in compiled code"),
    ],
)
def test_value_flags_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        train_value.main([*flags, "--runs-dir", str(tmp_path)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert says.replace("_", "") in err.replace("_", "").replace("-", "") or says in err, err
    assert len(err.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_a_missing_gpu_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as stopped:
        train_value.main([*SMALL, "--device", "cuda", "--runs-dir", str(tmp_path)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "--device cuda: torch sees no CUDA GPU here" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_an_existing_value_run_is_not_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "v").mkdir()
    with pytest.raises(SystemExit):
        train_value.main([*SMALL, "--runs-dir", str(tmp_path), "--run-name", "v"])
    assert "exists already" in capsys.readouterr().err
