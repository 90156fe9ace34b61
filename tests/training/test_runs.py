"""Runs survive faults: whole files, resuming from the last good state, a run killed at random moments, and
user errors of the command lines as one line."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from agents import make_agent
from agents.ppo import IncompatibleModelError
from agents.ppo import ModelError
from agents.ppo import checkpoint_steps
from agents.ppo import checkpoints
from agents.ppo import load_model
from experiments import evaluate
from experiments import train
from experiments.checkpoint import state_path
from experiments.runs import read_eval
from experiments.runs import remove_temporaries
from experiments.runs import write_eval
from suntzu_env.core.files import read_rows
from suntzu_env.core.files import write_atomic
from suntzu_env.core.files import write_row

from conftest import ROOT
from conftest import TINY_RUN
from conftest import command_env
from conftest import run_module
from conftest import train_command
from conftest import train_here
from helpers import model_weights


def copy_run(tiny_run: Path, tmp_path: Path) -> Path:
    run = tmp_path / tiny_run.name
    shutil.copytree(tiny_run, run)
    return run


def damage(path: Path) -> None:
    """A file cut short, as a write killed half-way leaves it."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


# -------------------------------------------------------------------- whole files


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_atomic(tmp_path / "eval.csv", "old\n")

    def full(fd: int) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        with pytest.raises(OSError, match="disk full"):
            write_atomic(path, "new, and longer\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["eval.csv"]
    (tmp_path / f".eval.csv.tmp-{os.getpid()}").write_text("half")  # what a kill leaves
    assert remove_temporaries(tmp_path) == 1 and [p.name for p in tmp_path.iterdir()] == ["eval.csv"]


def test_a_table_row_replaces_the_row_of_its_key_and_another_file_is_left_alone(tmp_path: Path) -> None:
    fields, key = ("agent", "games", "wins"), ("agent", "games")
    table = tmp_path / "table.csv"
    write_row(table, fields, {"agent": "greedy", "games": 10, "wins": 7}, key, "a table")
    write_row(table, fields, {"agent": "random", "games": 10, "wins": 1}, key, "a table")
    write_row(table, fields, {"agent": "greedy", "games": 10, "wins": 8}, key, "a table")  # the same key: replaced
    write_row(table, fields, {"agent": "greedy", "games": 20, "wins": 15}, key, "a table")
    assert table.read_text() == "agent,games,wins\nrandom,10,1\ngreedy,10,8\ngreedy,20,15\n"
    assert read_rows(table, fields, "a table")[1] == {"agent": "greedy", "games": "10", "wins": "8"}
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"other.csv: not a table \(a CSV file whose header is agent,games,wins\)"):
        write_row(other, fields, {"agent": "greedy", "games": 10, "wins": 7}, key, "a table")
    assert other.read_text() == "a,b\n1,2\n" and read_rows(tmp_path / "none.csv", fields, "a table") == []


def test_unreadable_eval_rows_are_left_out(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    row = {"timesteps": 0, "opponent": "random", "games": 2, "wins": 1, "draws": 0, "losses": 1, "win_rate": 0.5,
           "ci_low": 0.1, "ci_high": 0.9, "final": False}  # fmt: skip
    write_eval(tmp_path, [row, row | {"timesteps": 256}])
    text = (tmp_path / "eval.csv").read_text()
    (tmp_path / "eval.csv").write_text(text[: len(text) - 20])  # the last row cut short
    assert [r["timesteps"] for r in read_eval(tmp_path)] == [0]
    assert "1 unreadable rows left out" in caplog.text


def test_eval_csv_gives_the_outright_rate_beside_the_score(tmp_path: Path) -> None:
    """`win_rate` counts an undecided game as half a win; `outright_win_rate` is wins over games (3 of 8 here, with
    2 undecided: a score of 4/8), written for every row and worked out for a file written before the column."""
    row = {"timesteps": 0, "opponent": "heuristic", "games": 8, "wins": 3, "draws": 2, "losses": 3, "win_rate": 0.5,
           "ci_low": 0.2, "ci_high": 0.8, "final": True}  # fmt: skip
    write_eval(tmp_path, [row])
    header, line = (tmp_path / "eval.csv").read_text().splitlines()
    assert header.endswith(",final,outright_win_rate,outright_ci_low,outright_ci_high")
    (read,) = read_eval(tmp_path)
    assert read["win_rate"] == 0.5 and read["outright_win_rate"] == 3 / 8
    assert read["outright_ci_low"] < 3 / 8 < read["outright_ci_high"]
    old = ",".join(header.split(",")[:10]) + "\n" + ",".join(line.split(",")[:10]) + "\n"  # the columns before
    (tmp_path / "eval.csv").write_text(old)
    assert read_eval(tmp_path) == [read]


# -------------------------------------------------------------------- resuming from the last good state


def test_a_run_killed_between_its_final_model_and_its_summary_resumes_from_its_newest_checkpoint(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The final model holds no games nor segments: the run goes on from its newest checkpoint, writes the same final
    model again, and its summary counts every segment from the warm start on."""
    run = copy_run(tiny_run, tmp_path)
    (run / "summary.json").unlink()
    newest = sorted((run / "checkpoints").glob("ppo_*_steps.zip"), key=lambda p: int(p.name.split("_")[1]))[-1]
    train_here(capsys, "--resume", str(run), "--final-eval-games", "0")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed_from"] == str(newest)
    segments = summary["segments"]
    assert segments[0]["from_timesteps"] == 0 and segments[-1]["to_timesteps"] == 512
    assert all(a["to_timesteps"] == b["from_timesteps"] for a, b in itertools.pairwise(segments))
    assert model_weights(run / "model.zip") == model_weights(tiny_run / "model.zip")


def test_resume_falls_back_to_the_newest_readable_checkpoint(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(tiny_run, tmp_path)
    (run / "summary.json").unlink()
    for path in (run / "model.zip", run / "checkpoints" / "ppo_256_steps.zip"):
        damage(path)
    damage(run / "pool" / "snapshot_0.npz")
    out = train_here(capsys, "--resume", str(run), "--final-eval-games", "0")
    # nothing is deleted to recover: the unreadable files are moved aside, named
    assert "model.zip is unreadable (" in out and "moved aside as model.zip.unreadable" in out
    assert "moved aside as checkpoints/ppo_256_steps.zip.unreadable" in out
    assert (run / "checkpoints" / "ppo_256_steps.zip.unreadable").is_file()
    assert (run / "checkpoints" / "ppo_256_steps.state.npz.unreadable").is_file()
    assert "resuming from checkpoints/ppo_0_steps.zip, the newest readable checkpoint (0 timesteps)" in out
    assert f"pool snapshot {run / 'pool' / 'snapshot_0.npz'} is unreadable" in out
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 512
    assert load_model(run)[0].num_timesteps == 512
    assert model_weights(run / "model.zip") == model_weights(tiny_run / "model.zip")  # from the warm start, exactly


@pytest.mark.parametrize("steps", [0, 256])
def test_resuming_from_any_checkpoint_ends_as_the_run_never_stopped(
    steps: int, tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The checkpoint holds the learner, its optimizer, the games in progress, the pool and every generator:
    the resumed run ends with the uninterrupted run's weights and eval.csv, bit for bit."""
    run = copy_run(tiny_run, tmp_path)
    checkpoint = run / "checkpoints" / f"ppo_{steps}_steps.zip"
    out = train_here(capsys, "--resume", str(checkpoint))
    assert f"resuming from {checkpoint}" in out
    assert (run / "eval.csv").read_text() == (tiny_run / "eval.csv").read_text()
    assert model_weights(run / "model.zip") == model_weights(tiny_run / "model.zip")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and summary["resumed_from"] == str(checkpoint)
    first, second = summary["segments"]  # the run's start up to the checkpoint, then this one
    assert (first["resumed_from"], first["from_timesteps"], first["to_timesteps"]) == (None, 0, steps)
    assert (second["resumed_from"], second["from_timesteps"], second["to_timesteps"]) == (str(checkpoint), steps, 512)
    assert summary["wall_s"] == round(first["wall_s"] + second["wall_s"], 1)


def test_with_no_readable_checkpoint_resume_refuses_and_changes_nothing(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(tiny_run, tmp_path)
    for path in run.rglob("*.zip"):
        damage(path)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    with pytest.raises(SystemExit) as exit_:
        train_here(capsys, "--resume", str(run))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert "no readable checkpoint to resume from, nothing changed (unreadable: model.zip (" in err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_run_stopped_before_its_warm_start_starts_over(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(tiny_run, tmp_path)
    for path in run.iterdir():  # as a kill during behaviour cloning leaves it
        if path.name != "config.json":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    with pytest.raises(ModelError, match="holds no model"):
        make_agent(f"ppo:{run}")
    out = train_here(capsys, "--resume", str(run), "--final-eval-games", "0")
    assert "was stopped before its warm start was saved: the run starts over" in out
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 512


def test_ppo_agent_of_a_run_skips_an_unreadable_model(
    tiny_run: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run = copy_run(tiny_run, tmp_path)
    damage(run / "model.zip")
    model, path = load_model(run)
    assert path == run / "checkpoints" / "ppo_256_steps.zip" and model.num_timesteps == 256
    assert "model.zip unreadable; playing checkpoints/ppo_256_steps.zip" in caplog.text
    with pytest.raises(ModelError, match="is not a readable MaskablePPO model"):
        make_agent(f"ppo:{run / 'model.zip'}")
    for path in run.rglob("*.zip"):
        damage(path)
    with pytest.raises(ModelError, match="its 3 model files are all unreadable"):
        make_agent(f"ppo:{run}")


def test_a_model_for_other_spaces_is_refused(tmp_path: Path) -> None:
    """A model trained on another observation layout (an older version of the game) is named and refused."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Other(gym.Env):
        observation_space = gym.spaces.Box(-1, 1, (10,))
        action_space = gym.spaces.Discrete(57)

    MaskablePPO("MlpPolicy", Other(), device="cpu", policy_kwargs={"net_arch": [8]}).save(tmp_path / "other.zip")
    with pytest.raises(IncompatibleModelError, match=r"trained on observations of shape \(10,\) and 57 actions"):
        make_agent(f"ppo:{tmp_path / 'other.zip'}")


# -------------------------------------------------------------------- killed at random moments


KILLS = int(os.environ.get("SUNTZU_TEST_KILLS", "5"))  # kills per run
KILL_SEED = int(os.environ.get("SUNTZU_TEST_KILL_SEED", "20240601"))  # where they land


def file_states(folder: Path) -> dict[Path, int]:
    """Each file's modification time; files and folders the run renames or removes meanwhile are skipped."""
    states: dict[Path, int] = {}
    for parent, _, names in os.walk(folder):  # os.walk ignores folders that vanish under it
        for name in names:
            path = Path(parent, name)
            with contextlib.suppress(FileNotFoundError):
                states[path] = path.stat().st_mtime_ns
    return states


@pytest.mark.slow  # a minute: a run killed three times and resumed
def test_a_run_killed_at_random_moments_resumes_to_its_end(tmp_path: Path) -> None:
    """SIGKILL the training process group at random moments, resume each time; the run ends whole, and
    bit for bit as the same run never stopped: the same weights, the same eval.csv.

    Each kill waits for a random number of file writes by the process (so that it lands in the work, not in
    the imports: behaviour cloning, PPO updates, snapshots, checkpoints, evaluations, the final model), then a
    random fraction of a second. `SUNTZU_TEST_KILLS` and `SUNTZU_TEST_KILL_SEED` change how many and where.
    One more stop is a kill inside a checkpoint's write: its state file written, its zip half-written.
    """
    rng = random.Random(KILL_SEED)
    flags = ("--no-progress-bar", "--pool-size", "2", "--checkpoint-every", "128")
    whole_runs = tmp_path / "whole"
    run_module("experiments.train", *TINY_RUN[:3], "--runs-dir", str(whole_runs), "--exp-name", "killed",
               "--timestamp", "t", *flags)  # fmt: skip
    (whole,) = whole_runs.iterdir()
    tmp_path = tmp_path / "killed"
    run = tmp_path / "suntzu-standard__killed__0__t"
    fresh = (*TINY_RUN[:3], "--runs-dir", str(tmp_path), "--exp-name", "killed", "--timestamp", "t", *flags)
    kills: list[str] = []  # what each kill interrupted, for the failure message
    for _ in range(KILLS):
        args = ("--resume", str(run), "--no-progress-bar") if run.is_dir() else fresh
        proc = subprocess.Popen(train_command(*args), cwd=ROOT, env=command_env(), start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
        writes, wanted, deadline = 0, rng.randint(1, 8), time.monotonic() + 120
        seen = file_states(run)
        while proc.poll() is None and writes < wanted and time.monotonic() < deadline:
            time.sleep(0.02)
            now = file_states(run)
            writes += sum(1 for p, t in now.items() if seen.get(p) != t)
            seen = now
        try:
            proc.wait(timeout=rng.uniform(0.0, 0.3))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            kills.append(f"after {writes} writes: " + " ".join(sorted(str(p.relative_to(run)) for p in seen)))
            continue
        assert proc.returncode == 0, proc.stderr.read()  # finished before its kill: it must have succeeded
        break
    assert kills, "no kill landed: the run is too short for this test"
    saved = checkpoints(run) if run.is_dir() else []
    if saved and not (run / "model.zip").is_file():  # killed while writing the next checkpoint
        steps = checkpoint_steps(saved[-1]) + 128
        shutil.copy(state_path(saved[-1]), run / "checkpoints" / f"ppo_{steps}_steps.state.npz")
        (run / "checkpoints" / f".ppo_{steps}_steps.zip.tmp-1").write_bytes(saved[-1].read_bytes()[:1000])
        kills.append(f"inside the write of ppo_{steps}_steps.zip")
    args = ("--resume", str(run)) if run.is_dir() else fresh
    out = run_module("experiments.train", *args, check=False)
    if "is finished at 512 timesteps" not in out.stderr:  # (unless a try had finished the run)
        assert out.returncode == 0, "\n".join([out.stdout + out.stderr, *kills])
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and load_model(run)[0].num_timesteps == 512
    rows = read_eval(run)
    expected = [(0, "random"), (0, "greedy"), (256, "random"), (256, "greedy"), (512, "random"), (512, "greedy")]
    assert [(r["timesteps"], r["opponent"]) for r in rows] == expected, kills  # each evaluation once, in order
    # snapshots after the updates at 0, 128, 256, 384: the pool keeps the first and the 2 latest, on disk too
    assert sorted(p.name for p in (run / "pool").iterdir()) == [f"snapshot_{t}.npz" for t in (0, 256, 384)]
    assert not [p for p in tmp_path.rglob(".*")], "no temporary file or folder is left"
    assert [p.name for p in tmp_path.iterdir()] == [run.name]
    assert (run / "eval.csv").read_text() == (whole / "eval.csv").read_text(), kills
    assert model_weights(run / "model.zip") == model_weights(whole / "model.zip"), kills
    segments = summary["segments"]  # every start since the warm start's, each from where the one before stopped
    assert segments[0]["from_timesteps"] == 0 and segments[-1]["to_timesteps"] == 512
    assert all(a["to_timesteps"] == b["from_timesteps"] for a, b in itertools.pairwise(segments))
    assert summary["wall_s"] == round(sum(s["wall_s"] for s in segments), 1)


# -------------------------------------------------------------------- user errors: one line, no traceback


@pytest.fixture()
def broken(tiny_run: Path, tmp_path: Path) -> dict[str, Path]:
    """Paths a careless user may pass: missing, empty, damaged."""
    (tmp_path / "empty").mkdir()
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes((tiny_run / "model.zip").read_bytes()[:500])
    bad_config = copy_run(tiny_run, tmp_path / "bad_config")
    (bad_config / "config.json").write_text('{"seed": ')
    nested_config = copy_run(tiny_run, tmp_path / "nested_config")
    (nested_config / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    return {"run": tiny_run, "empty": tmp_path / "empty", "damaged": damaged, "bad_config": bad_config,
            "nested_config": nested_config, "file": a_file, "runs": tiny_run.parent}  # fmt: skip


TRAIN_ERRORS = [
    (["--total-timestep", "1000"], "unrecognized arguments: --total-timestep 1000 (did you mean --total-timesteps?)"),
    (["--learning-rate", "-1"], "--learning-rate must be in (0, 1]"),
    (["--gamma", "5"], "--gamma must be in [0, 1]"),
    (["--net-arch", "0"], "--net-arch must be one or more layer sizes, each at least 1, got 0"),
    (["--net-arch"], "--net-arch must be one or more layer sizes"),
    (["--variant", "expert"], "--variant: 'expert' is not one of standard, beginner"),
    (["--total-timesteps", "abc"], "--total-timesteps: expected a whole number, got 'abc'"),
    (["--total-timesteps"], "--total-timesteps: expected a value"),
    (["--seed", "-3"], "--seed must be in [0, 2**31)"),
    (["--eval-games", "3"], "--eval-games must be an even number >= 2"),
    (["--batch-size", "100"], "--batch-size (100) must divide"),
    (["--bc-epochs", "-1"], "--bc-epochs must be at least 0"),
    (["--learning-rate", "nan"], "a finite number"),
    (["--exp-name", "a/b"], "--exp-name must be letters, digits"),
    (["--eval-opponents", "nobody"], "--eval-opponents: unknown agent 'nobody'; valid: random, greedy, heuristic"),
    (["--opponents", "ppo:nowhere=1"], "--opponents: no PPO model at nowhere"),
    (["--opponents", "ppo:{damaged}=1"], "damaged.zip is not a readable MaskablePPO model"),
    (["--eval-opponents", "random", "ppo:{empty}"], "empty holds no model"),
    (["--resume", "{empty}/nowhere"], "no such run folder or checkpoint"),
    (["--resume", "{empty}"], "is not a run folder (it has no config.json)"),
    (["--resume", "{bad_config}"], "config.json is unreadable"),
    (["--resume", "{nested_config}"], "config.json is unreadable (nested too deep)"),
    (["--resume", "{run}"], "is finished at 512 timesteps: give a larger --total-timesteps"),
    (["--resume", "{run}", "--seed", "3"], "a resumed run keeps its --seed (0), got 3"),
    (["--resume", "{run}", "--net-arch", "8"], "a resumed run keeps its --net-arch (32 32), got 8"),
    (["--resume", "{run}", "--adjacency", "QIN:CHU"], "a resumed run keeps its --adjacency (None), got QIN:CHU"),
    (
        ["--adjacency", "QIN-CHU"],
        "--adjacency: expected bordering pairs PROVINCE:PROVINCE of QIN, CHU, JIN-YAN, HAN-QI, WU, got 'QIN-CHU'",
    ),
    (["--adjacency", "QIN:CHU", "QIN:QIN"], "--adjacency QIN:QIN: must be two different provinces from"),
    (["--adjacency"], "--adjacency: expected one or more bordering pairs"),
    (["--resume", "{run}", "--gamma", "2"], "--gamma must be in [0, 1]"),
    (["--runs-dir", "{file}"], "cannot make the run folder"),
    (["--runs-dir", "{runs}", "--exp-name", "smoke", "--timestamp", "test"], "exists already: continue it with"),
]


@pytest.mark.parametrize(("argv", "message"), TRAIN_ERRORS, ids=[" ".join(argv) for argv, _ in TRAIN_ERRORS])
def test_train_user_errors_are_one_line(
    argv: list[str], message: str, broken: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.format(**broken) for a in argv]
    with pytest.raises(SystemExit) as exit_:
        train.main(argv)
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert err.startswith("python -m experiments.train: error: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in out + err
    assert not list(broken["run"].parent.glob(".*")), "nothing half-made is left"


EVALUATE_ERRORS = [
    (["--agents", "ppo:nowhere", "random"], "no PPO model at nowhere"),
    (["--agents", "ppo:{damaged}", "random"], "damaged.zip is not a readable MaskablePPO model"),
    (["--agents", "ppo:{empty}", "random"], "holds no model"),
    (["--agents", "rllib:nowhere", "random"], "no RLlib checkpoint at nowhere"),
    (["--games", "0"], "--games must be an even number >= 2"),
    (["--games", "3"], "--games must be an even number >= 2"),
    (["--agents", "random"], "--agents: needs at least two agents"),
    (["--agents", "random", "bogus"], "--agents: unknown agent 'bogus'; valid: random, greedy, heuristic, ismcts,"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--seed", "-1"], "--seed must be in [0, 2**62)"),
    (["--variant", "expert"], "--variant: 'expert' is not one of standard, beginner"),
    (["--adjacency", "QIN:XX"], "--adjacency QIN:XX: must be two different provinces from ('QIN', 'CHU', 'JIN-YAN'"),
    (["--adjacency", "QIN:CHU:WU"], "--adjacency: expected bordering pairs PROVINCE:PROVINCE"),
    (["--gamess", "4"], "unrecognized arguments: --gamess 4 (did you mean --games?)"),
    (["--game", "4"], "unknown game '4'; known games: suntzu"),
    (["--out", "{file}", "--games", "2"], "a file is there, not a folder"),
    (["--out", "{file}/results", "--games", "2"], "cannot make its folder"),
    (["--name", "a/b"], "--name must be a folder name"),
    (["--backend", "cluster"], "--backend: 'cluster' is not one of local, ray"),
    (["--address", "auto"], "--address: a Ray cluster's address is used only with --backend ray"),
]


@pytest.mark.parametrize(("argv", "message"), EVALUATE_ERRORS, ids=[" ".join(argv) for argv, _ in EVALUATE_ERRORS])
def test_evaluate_user_errors_are_one_line(
    argv: list[str], message: str, broken: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        evaluate.main([a.format(**broken) for a in argv])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert err.startswith("python -m experiments.evaluate: error: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in out + err


@pytest.mark.parametrize("module", ["experiments.train", "experiments.evaluate"])
def test_the_real_commands_exit_2_with_one_line(module: str) -> None:
    out = run_module(module, "--workers", "0", check=False)
    assert out.returncode == 2 and out.stderr == f"python -m {module}: error: --workers must be at least 1, got 0\n"


def test_a_diverging_run_stops_with_one_line(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Weights that are no longer finite numbers stop training with one line, naming the last checkpoint."""
    import torch

    run = copy_run(tiny_run, tmp_path)
    model, _ = load_model(run / "checkpoints" / "ppo_256_steps.zip")
    with torch.no_grad():
        next(model.policy.parameters()).fill_(float("nan"))
    model.save(run / "checkpoints" / "ppo_256_steps.zip")
    with pytest.raises(SystemExit) as exit_:
        train.main(["--resume", str(run / "checkpoints" / "ppo_256_steps.zip")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m experiments.train: error: training diverged at 256 timesteps")
    assert err.count("\n") == 1 and "lower --learning-rate" in err and "ppo_256_steps.zip" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--envs", "0"], "--envs must be at least 1, got 0"),
        (["--threads", "-1"], "--threads must be 'auto' or a whole number from 1 to "),
        (["--threads", "many"], "--threads must be 'auto' or a whole number from 1 to "),
    ],
)
def test_the_benchmarks_refuse_bad_numbers_before_they_start(argv: list[str], message: str) -> None:
    out = run_module("suntzu_env.suntzu.bench", *argv, check=False)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert out.stdout == ""  # no benchmark ran
