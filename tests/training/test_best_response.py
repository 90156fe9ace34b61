"""Approximate exploitability (`python -m experiments.best_response`): a training run against one frozen agent and
its final evaluation against it; resumable like training; what it refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from experiments import best_response
from experiments.runs import read_config
from experiments.runs import read_eval
from experiments.stats import headline

from conftest import exit_of
from conftest import run_module

PROG = "python -m experiments.best_response"
MODULE = "experiments.best_response"


@pytest.fixture(scope="module")
def best_response_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished best response to `greedy` on the smoke budget (512 timesteps, 4 final games)."""
    runs = tmp_path_factory.mktemp("runs")
    out = run_module(MODULE, "--agent", "greedy", "--runs-dir", str(runs), "--timestamp", "test", "--no-progress-bar")
    (run,) = runs.iterdir()
    assert "best response to greedy after 512 timesteps: won " in out.stdout
    assert str(run / best_response.RESULT_FILE) in out.stdout
    return run


def _result(run: Path) -> dict:
    return json.loads((run / best_response.RESULT_FILE).read_text())


def test_a_best_response_trains_against_the_agent_alone(best_response_run: Path) -> None:
    """The game's recipe (its warm start included), the agent the only opponent of PPO and of the evaluations."""
    run = best_response_run
    cfg = read_config(run)
    assert (cfg.opponents, cfg.eval_opponents, cfg.exp_name) == ("greedy=1", ("greedy",), "br-greedy")
    assert cfg.bc_games == 6 and (run / "warm_start.json").exists()  # the smoke budget's warm start
    assert {r["opponent"] for r in read_eval(run)} == {"greedy"}
    summary = json.loads((run / "summary.json").read_text())
    found = _result(run)
    final = summary["final_eval"]["greedy"]
    assert found["agent"] == "greedy" and found["game"] == "suntzu" and found["timesteps"] == 512 == cfg.total_timesteps
    assert found["final_eval"] == final and final["games"] == 4
    assert (found["win_rate"], found["ci_low"], found["ci_high"]) == headline(final, "suntzu")
    assert found["headline"] == "win_rate"  # Sun Tzu's game without a winner is a draw: the score leads


def test_a_killed_best_response_resumes_to_the_same_result(best_response_run: Path, tmp_path: Path) -> None:
    """Killed after its checkpoint at 256 timesteps (its final model, summary and result not yet written), the run
    continues from the checkpoint and ends where the whole run ended."""
    run = tmp_path / best_response_run.name
    shutil.copytree(best_response_run, run)
    for name in ("model.zip", "summary.json", best_response.RESULT_FILE):
        (run / name).unlink()
    for late in (run / "checkpoints").glob("ppo_512_steps*"):
        late.unlink()
    run_module(MODULE, "--resume", str(run), "--no-progress-bar")
    again, first = _result(run), _result(best_response_run)
    assert {k: v for k, v in again.items() if k != "wall_s"} == {k: v for k, v in first.items() if k != "wall_s"}


def test_a_run_killed_after_its_summary_gets_its_result_on_resume(best_response_run: Path, tmp_path: Path) -> None:
    run = tmp_path / best_response_run.name
    shutil.copytree(best_response_run, run)
    (run / best_response.RESULT_FILE).unlink()
    summary = (run / "summary.json").read_bytes()
    best_response.main(["--resume", str(run)])
    assert _result(run) == _result(best_response_run) and (run / "summary.json").read_bytes() == summary


def test_a_best_response_to_a_search_trains_against_it_in_the_batched_env(tmp_path: Path) -> None:
    """Sun Tzu's search plays as the batched env's opponent (each decision from the game's state and generator), so
    a best response to it trains like any other; the same command twice gives the same result."""
    found = []
    for k in range(2):
        runs = tmp_path / f"runs{k}"
        out = run_module(MODULE, "--agent", "ismcts:5", "--runs-dir", str(runs), "--timestamp", "test",
                         "--no-progress-bar")  # fmt: skip
        assert "best response to ismcts:5 after 512 timesteps: won " in out.stdout
        (run,) = runs.iterdir()
        assert read_config(run).opponents == "ismcts:5=1"
        found.append({k: v for k, v in _result(run).items() if k != "wall_s"})
    assert found[0] == found[1] and found[0]["final_eval"]["games"] == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--agent: name the agent to exploit: random, greedy, heuristic"),
        (["--agent", "bogus"], "--agent: unknown agent 'bogus'; valid: random"),
        (["--agent", "ppo:a,b=1"], "--agent: a spec without ',' or '='"),
        (["--agent", "greedy", "--opponents", "random=1"], "--opponents: a best response plays --agent alone"),
        (["--agent", "greedy", "--eval-opponents", "random"], "--eval-opponents: a best response plays --agent alone"),
        (
            ["--agent", "greedy", "--restart-at", "0.5", "--restart-opponents", "random=1"],
            "--restart-opponents: a best response plays --agent alone",
        ),
        (["--agent", "greedy", "--final-eval-games", "0"], "--final-eval-games: a best response is measured by"),
        (["--game", "binfa", "--agent", "mcts:5"], "--agent: Bin'Fa's batched env plays random, greedy, heuristic"),
    ],
)
def test_what_a_best_response_refuses_is_one_line_and_leaves_no_folder(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUNTZU_TRAIN_SMOKE", "1")
    status, err = exit_of(MODULE, *args, "--runs-dir", str(tmp_path / "runs"))
    assert status == 2 and err.startswith(f"{PROG}: error: {message}") and err.count("\n") == 1, err
    assert not any((tmp_path / "runs").glob("*/*"))


def test_a_training_run_is_no_best_response(tiny_run: Path, tmp_path: Path) -> None:
    run = tmp_path / tiny_run.name
    shutil.copytree(tiny_run, run)
    status, err = exit_of(MODULE, "--resume", str(run))
    assert status == 2 and f"{run} is no best-response run" in err and err.count("\n") == 1
    assert not (run / best_response.RESULT_FILE).exists()


def test_a_best_response_with_a_restarted_mix_is_refused_naming_it(best_response_run: Path, tmp_path: Path) -> None:
    """A run whose config changes its mix at a restart plays more than the agent: refused on --resume, the line
    naming the later mix too."""
    run = tmp_path / best_response_run.name
    shutil.copytree(best_response_run, run)
    config = json.loads((run / "config.json").read_text())
    config |= {"restart_at": 0.5, "restart_opponents": "random=1", "anneal_lr": True}
    (run / "config.json").write_text(json.dumps(config))
    status, err = exit_of(MODULE, "--resume", str(run))
    assert status == 2 and err.count("\n") == 1, err
    assert f"{run} is no best-response run (its opponents are 'greedy=1', from its restart on 'random=1'," in err


def test_the_table_keeps_one_row_a_best_response(best_response_run: Path, tmp_path: Path) -> None:
    """`--table` writes the result's row into a CSV file of best responses (with --resume too), replacing the row
    of the same game, agent, timesteps and seed."""
    table = tmp_path / "exploitability.csv"
    for _ in range(2):
        best_response.main(["--resume", str(best_response_run), "--table", str(table)])
    rows = best_response.read_table(table)
    found = _result(best_response_run)
    assert [(r["game"], r["agent"], r["timesteps"], r["games"], r["wins"], r["win_rate"]) for r in rows] == [
        ("suntzu", "greedy", "512", "4", str(found["final_eval"]["wins"]), str(found["win_rate"]))
    ]


def test_another_file_as_the_table_is_refused_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUNTZU_TRAIN_SMOKE", "1")
    other = tmp_path / "ladder.csv"
    other.write_text("a,b\n1,2\n")
    status, err = exit_of(MODULE, "--agent", "greedy", "--table", str(other), "--runs-dir", str(tmp_path / "runs"))
    assert status == 2 and f"--table {other}: not a table of best responses" in err and err.count("\n") == 1
    assert other.read_text() == "a,b\n1,2\n" and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("resume", [[], ["--resume", "no/such/run"]])
def test_help_is_the_command_s_own_with_resume_too(resume: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        best_response.run([*resume, "--game", "binfa", "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0 and out.startswith("usage: python -m experiments.best_response")
    assert "against one frozen agent" in out and "(default: 500000)" in out
