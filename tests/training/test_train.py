"""Training: the real command on a tiny budget, its run folder, resuming, the model as an agent."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import math
import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from agents import AGENT_NAMES
from agents import make_agent
from agents.ppo import PolicyActor
from agents.ppo import PPOAgent
from agents.ppo import load_model
from agents.ppo import load_ppo_agent
from agents.ppo import resolve_model_path
from experiments import evaluate
from experiments import train
from experiments.cli import ConfigError
from experiments.cli import parse
from experiments.config import SMOKE
from experiments.config import SMOKE_VARIABLE
from experiments.config import TrainConfig
from experiments.config import train_config_class
from experiments.evaluate import play_match
from experiments.learner import new_model
from experiments.learner import ppo_settings
from experiments.runs import read_config
from experiments.runs import read_eval
from experiments.train import make_vec_env
from experiments.versions import library_versions
from suntzu_env import Game
from suntzu_env.core import games

from conftest import TINY_RUN
from conftest import train_here
from helpers import model_weights

RUN_FILES = ("config.json", "versions.json", "warm_start.json", "model.zip", "eval.csv", "learning_curve.png",
             "summary.json")  # fmt: skip
PROG = "python -m experiments.train"
GAME = games.game("suntzu")
CONFIG = train_config_class("suntzu")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass, read from its source."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body  # type: ignore[attr-defined]
    return {
        node.target.id: " ".join(after.value.value.split())
        for node, after in itertools.pairwise(body)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
    }  # fmt: skip


def help_text(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        parse(CONFIG, ["--help"], PROG)
    assert exit_.value.code == 0
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", capsys.readouterr().out).split())


def test_help_explains_every_field_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Every field's docstring, and every option flag's help of the game, is in --help whole."""
    docs = field_docs(TrainConfig) | {flag.name: flag.help for flag in GAME.option_flags}
    docs = {k: v.replace("{agents}", GAME.valid_agents()) for k, v in docs.items()}
    text = help_text(capsys)
    for f in dataclasses.fields(CONFIG):
        assert docs.get(f.name), f"TrainConfig.{f.name} has no docstring"
        assert f"--{f.name.replace('_', '-')}" in text
        if f.name != "game":  # its help lists the registered games
            assert docs[f.name] in text, f.name  # whole: a docstring is one line, tyro keeps its line breaks
    assert "%%" not in text and text.count("(default:") == len(dataclasses.fields(CONFIG))
    for name in AGENT_NAMES:
        assert name in docs["opponents"]


def test_flags_build_the_config_and_derived_values_follow() -> None:
    cfg = parse(CONFIG, ["--n-envs", "16", "--net-arch", "64", "64", "--no-anneal-lr"], PROG)
    assert (cfg.n_envs, cfg.net_arch, cfg.anneal_lr) == (16, (64, 64), False)
    assert cfg.rollout_size == 16 * cfg.n_steps
    assert cfg.run_name == f"suntzu-standard__ppo_mix__0__{cfg.timestamp}"
    assert TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert TrainConfig(opponents="random=1, pool=3").opponent_weights == {"random": 0.25, "pool": 0.75}
    assert TrainConfig(**SMOKE).total_timesteps == 512  # the smoke budget is a valid config


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "random"}, "spec=weight"),
        ({"opponents": "random=0"}, "must not all be 0"),
        ({"opponents": "random=nan"}, "weights >= 0"),
        ({"opponents": "randm=1"}, "unknown agent 'randm'"),
        ({"eval_opponents": ("greedy", "nobody")}, "unknown agent 'nobody'"),
        ({"bc_games": 2, "dagger_teacher": "nobody"}, "dagger_teacher: unknown agent 'nobody'"),
        ({"batch_size": 100}, "must divide"),
        ({"batch_size": 1, "n_envs": 1, "n_steps": 1}, "batch_size must be at least 2"),
        ({"eval_games": 3}, "must be an even number"),
        ({"eval_games": 0}, "--eval-every 0"),
        ({"final_eval_games": 5}, "0 or an even number"),
        ({"n_envs": 0}, "at least 1"),
        ({"bc_epochs": -1}, "bc_epochs must be at least 0"),
        ({"learning_rate": -1.0}, r"learning_rate must be in \(0, 1\]"),
        ({"learning_rate": math.nan}, "a finite number"),
        ({"restart_learning_rate": 0.0}, r"restart_learning_rate must be in \(0, 1\]"),
        ({"restart_at": 1.0}, r"restart_at must be in \[0, 1\)"),
        ({"restart_at": -0.5}, r"restart_at must be in \[0, 1\)"),
        ({"restart_at": math.nan}, r"restart_at must be in \[0, 1\)"),
        ({"restart_opponents": "greedy=1"}, "the mix changes at --restart-at, which is 0"),
        ({"restart_opponents": "greedy=1", "restart_at": 0.5, "anneal_lr": False}, "no restart without --anneal-lr"),
        ({"restart_opponents": "greedy", "restart_at": 0.5}, "restart_opponents: expected `spec=weight` pairs"),
        ({"restart_opponents": "greedy=0", "restart_at": 0.5}, "restart_opponents: the weights must not all be 0"),
        ({"restart_opponents": "nobody=1", "restart_at": 0.5}, "restart_opponents: unknown agent 'nobody'"),
        ({"gamma": 5.0}, r"gamma must be in \[0, 1\]"),
        ({"gae_lambda": -0.1}, r"gae_lambda must be in \[0, 1\]"),
        ({"clip_range": 0.0}, "clip_range"),
        ({"max_grad_norm": 0.0}, "max_grad_norm must be > 0"),
        ({"ent_coef": math.inf}, "ent_coef must be >= 0"),
        ({"shaped_reward": -1.0}, "shaped_reward must be >= 0"),
        ({"target_kl": 0.0}, "target_kl must be > 0"),
        ({"net_arch": (0,)}, "net_arch must be one or more layer sizes"),
        ({"net_arch": ()}, "got none"),
        ({"seed": -1}, r"seed must be in \[0, 2\*\*31\)"),
        ({"exp_name": "../elsewhere"}, "a folder name"),
        ({"timestamp": ""}, "a folder name"),
        ({"variant": "expert"}, "variant must be one of 'standard', 'beginner'"),
        ({"n_envs": 2.5}, "n_envs must be a whole number"),
        ({"anneal_lr": "yes"}, "anneal_lr must be true or false"),
        ({"net_arch": [64]}, "net_arch must be a list of"),
    ],
)
def test_bad_configs_are_refused_naming_what_is_allowed(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TrainConfig(**kwargs)


def test_the_default_checkpoint_interval_gives_a_few_checkpoints_a_run() -> None:
    """None (the default): a quarter of the run, in whole rollouts (16,384 transitions by default)."""
    assert TrainConfig().checkpoint_interval == 31 * 16_384  # 2,000,000 / 4 = 30.5 rollouts, rounded up
    assert TrainConfig(total_timesteps=100_000).checkpoint_interval == 2 * 16_384  # at 32,768, 65,536 and 98,304
    assert TrainConfig(total_timesteps=1_000).checkpoint_interval == 16_384  # a run shorter than a rollout: none
    assert TrainConfig(checkpoint_every=0).checkpoint_interval == 0


def test_a_config_file_is_checked_like_flags() -> None:
    saved = TrainConfig().to_dict()
    with pytest.raises(ConfigError, match="unknown key 'lr'"):
        TrainConfig.from_dict(saved | {"lr": 1})
    with pytest.raises(ConfigError, match="gamma must be in"):
        TrainConfig.from_dict(saved | {"gamma": 7})


def test_progress_off_a_terminal_is_plain_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on a terminal (nohup, a cluster's log), PPO's progress is a plain line as it starts, every `every`
    seconds and a last one saying what was done. Its pace counts from PPO's first step: the evaluation before it
    (a minute here) is not training time."""
    from types import SimpleNamespace

    import experiments.callbacks
    from experiments.train import Progress

    clock = SimpleNamespace(now=1000.0)
    monkeypatch.setattr(experiments.callbacks, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    progress = Progress(total=1000, started=clock.now, terminal=False, every=0.0)
    progress.model = SimpleNamespace(num_timesteps=200, n_steps=8, n_envs=16)  # a resumed run
    progress._on_training_start()
    clock.now += 60  # the evaluation made before PPO's first step
    progress._on_step()
    clock.now += 10
    progress.model.num_timesteps = 600
    progress._on_step()
    clock.now += 10
    progress.model.num_timesteps = 1024  # whole rollouts of 8 x 16
    progress._on_training_end()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "PPO goes on from timestep 200: 1,000 timesteps in all"
    assert lines[1] == "PPO: 200 of 1,000 timesteps (20%), 60 s so far"  # no pace before a step is timed
    assert lines[2] == "PPO: 600 of 1,000 timesteps (60%), 40 steps/s, 70 s so far, about 10 s left"
    assert lines[3] == (
        "PPO done: 824 timesteps trained at 41 steps/s, 1,024 in all (1,000 asked, in whole rollouts of 128), "
        "80 s since PPO began"
    )


def test_a_stage_of_the_warm_start_speaks_once_a_minute_off_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start's stages (demonstrations, epochs, DAgger rounds) print a line a minute with an estimate, and a
    last one, where no terminal shows a bar."""
    from types import SimpleNamespace

    import experiments.progress
    from experiments.progress import Ticker

    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(experiments.progress, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    ticker = Ticker(3000, "demonstrations (heuristic)", "game", enabled=True, terminal=False)
    for _ in range(10):
        clock.now += 20
        ticker.update(100)
    ticker.close()
    assert capsys.readouterr().out.splitlines() == [
        "demonstrations (heuristic): 300 of 3,000 games (10%), 60 s so far, about 9 min left",
        "demonstrations (heuristic): 600 of 3,000 games (20%), 2 min so far, about 8 min left",
        "demonstrations (heuristic): 900 of 3,000 games (30%), 3 min so far, about 7 min left",
        "demonstrations (heuristic): 1,000 of 3,000 games (33%), 3 min so far, about 7 min left",
    ]
    Ticker(5, "behaviour cloning", "epoch", enabled=False, terminal=False).close()
    assert capsys.readouterr().out == ""


def test_smoke_runs_are_not_the_latest_run(tmp_path: Path) -> None:
    """SUNTZU_TRAIN_SMOKE=1 runs go to runs/smoke/, where `latest_run` (the notebooks' run) does not look."""
    from experiments.config import SMOKE_RUNS_DIR
    from experiments.runs import latest_run

    assert TrainConfig(**SMOKE).runs_dir == SMOKE_RUNS_DIR == "runs/smoke"
    for folder in ("runs/real__0__20260101-000000", "runs/smoke/smoke__0__20270101-000000"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "summary.json").write_text("{}")
        (tmp_path / folder / "model.zip").write_bytes(b"")
    assert latest_run(tmp_path / "runs") == tmp_path / "runs/real__0__20260101-000000"


def test_a_missing_gpu_is_refused_before_the_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as exit_:
        train.main(["--device", "cuda", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and not (tmp_path / "runs").exists()
    assert err == f"{PROG}: error: --device cuda: torch sees no CUDA GPU here (use auto or cpu)\n"


@pytest.mark.parametrize(("game", "search"), [("binfa", "mcts"), ("binfa", "mcts:10")])
def test_a_searching_opponent_is_refused_before_the_run_folder(
    game: str, search: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bin'Fa's search reads the game itself and cannot be asked from a batched env's state (Sun Tzu's can,
    `act_in_state`): refused in one line before anything is printed or made."""
    with pytest.raises(SystemExit) as exit_:
        train.main(["--game", game, "--opponents", f"random=1,{search}=1", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and not (tmp_path / "runs").exists()
    assert err == (f"{PROG}: error: --opponents: {search!r} searches the game itself and cannot play in the batched "
                   "environment; evaluate it with experiments.evaluate\n")  # fmt: skip


def test_a_run_folder_holds_every_file(tiny_run: Path) -> None:
    for name in RUN_FILES:
        assert (tiny_run / name).is_file(), name
    # the warm start, then every 256 timesteps; a snapshot after every update, the pool keeps 10 and the first
    assert sorted(p.name for p in (tiny_run / "checkpoints").iterdir()) == [
        "ppo_0_steps.state.npz", "ppo_0_steps.zip", "ppo_256_steps.state.npz", "ppo_256_steps.zip"
    ]  # fmt: skip
    assert sorted(p.name for p in (tiny_run / "pool").iterdir()) == [f"snapshot_{t}.npz" for t in (0, 128, 256, 384)]
    assert list((tiny_run / "tb").glob("ppo_1/events.out.tfevents.*"))
    assert not [p for p in tiny_run.rglob(".*")], "no temporary file is left"
    assert read_config(tiny_run).total_timesteps == 512
    rows = read_eval(tiny_run)
    # after behaviour cloning (0), periodic (256), final (512, more games); masked play vs each opponent
    assert [(r["timesteps"], r["opponent"], r["games"]) for r in rows] == [
        (0, "random", 2), (0, "greedy", 2), (256, "random", 2), (256, "greedy", 2), (512, "random", 4),
        (512, "greedy", 4),
    ]  # fmt: skip
    summary = json.loads((tiny_run / "summary.json").read_text())
    assert summary["timesteps"] == 512 and set(summary["final_eval"]) == {"random", "greedy"}
    assert summary["behaviour_cloning"]["decisions"] > 0
    versions = json.loads((tiny_run / "versions.json").read_text())
    assert versions == summary["versions"] == library_versions()
    assert set(versions) == {"python", "numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "gymnasium",
                             "pettingzoo"}  # fmt: skip


def test_the_model_plays_as_a_registered_agent(tiny_run: Path) -> None:
    agent = make_agent(f"ppo:{tiny_run}")
    result = play_match(agent, "random", games=4, seed=3)
    assert result["wins"] + result["draws"] + result["losses"] == 4
    assert resolve_model_path(tiny_run) == tiny_run / "model.zip"
    zipped = load_ppo_agent(tiny_run / "model.zip")
    game = Game.new(5)
    while not game.is_terminal:  # deterministic and legal in every decision
        obs, mask = game.observation(game.current_player), game.legal_mask()
        action = agent.act(obs, mask)
        assert mask[action] and action == zipped.act(obs, mask)
        game.apply(action)


def test_numpy_actor_matches_the_torch_policy(tiny_run: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(tiny_run / "model.zip", device="cpu")
    obs = np.stack([Game.new(s).observation("blue") for s in range(4)])
    with torch.no_grad():
        expected = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    logits = PolicyActor.from_policy(model.policy).logits(obs)
    np.testing.assert_allclose(logits - logits.max(1, keepdims=True), expected - expected.max(1, keepdims=True),
                               atol=1e-5)  # fmt: skip


def test_resume_continues_the_run_from_a_checkpoint(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / tiny_run.name
    shutil.copytree(tiny_run, run)
    out = train_here(capsys, "--resume", str(run / "checkpoints" / "ppo_256_steps.zip"), "--total-timesteps", "768")
    assert f"resuming from {run / 'checkpoints' / 'ppo_256_steps.zip'}" in out
    # the finished run's end is abandoned: its final model and summary
    assert "removed model.zip, summary.json: the run goes on from 256 timesteps" in out
    assert read_config(run).total_timesteps == 768 and read_config(run).n_envs == 2
    rows = read_eval(run)
    assert [r["timesteps"] for r in rows if not r["final"]] == [0, 0, 256, 256, 512, 512]
    assert [r["timesteps"] for r in rows if r["final"]] == [768, 768]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] == 768 and summary["resumed_from"].endswith("ppo_256_steps.zip")
    assert load_model(run)[0].num_timesteps == 768
    assert sorted(p.name for p in (run / "tb").iterdir()) == ["ppo_1"]  # one TensorBoard curve


def test_a_run_starts_from_the_networks_of_init_from(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--init-from`: the run's first checkpoint (before any PPO update, no warm start here) holds the trained
    model's weights exactly; PPO goes on from them."""
    monkeypatch.setenv("SUNTZU_TRAIN_SMOKE", "1")
    runs = tmp_path / "runs"
    train_here(capsys, "--init-from", str(tiny_run), "--exp-name", "next", "--total-timesteps", "256",
               "--bc-games", "0", "--runs-dir", str(runs), *TINY_RUN)  # fmt: skip
    (run,) = runs.iterdir()
    assert read_config(run).init_from == str(tiny_run)
    start = load_model(run / "checkpoints" / "ppo_0_steps.zip")[0].policy.state_dict()
    trained = load_model(tiny_run)[0].policy.state_dict()
    assert start.keys() == trained.keys()
    assert all(torch.equal(start[k], trained[k]) for k in start)
    assert load_model(run)[0].num_timesteps == 256


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ("--net-arch", "16"),
            "has the network --network mlp --net-arch 32 32; this run's is --network mlp --net-arch 16",
        ),
        (("--game", "binfa"), "trained on observations of shape"),
    ],
)
def test_init_from_another_network_or_game_is_refused_before_the_run_folder(
    flags: tuple[str, ...], message: str, tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--init-from", str(tiny_run), *flags, "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and not (tmp_path / "runs").exists()
    assert err.startswith(f"{PROG}: error: --init-from: ") and message in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        train.main(["--init-from", str(tmp_path / "nothing"), "--runs-dir", str(tmp_path / "runs")])
    assert "--init-from: no PPO model at" in capsys.readouterr().err


def test_resume_trains_a_finished_run_on(tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / tiny_run.name
    shutil.copytree(tiny_run, run)
    out = train_here(capsys, "--resume", str(run), "--total-timesteps", "640", "--final-eval-games", "2")
    assert f"resuming from {run / 'checkpoints' / 'ppo_512_steps.zip'}" in out  # the final model, kept
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 640
    assert [(r["timesteps"], r["games"]) for r in read_eval(run) if r["final"]] == [(640, 2), (640, 2)]


def test_the_batched_env_draws_the_mix_and_the_pool_and_alternates_seats(tiny_run: Path) -> None:
    actor = load_ppo_agent(tiny_run).actor
    cfg = TrainConfig(opponents="random=1,pool=1", n_envs=4, batch_size=512, pool_size=10)
    venv, pool = make_vec_env(cfg)
    for t in range(14):
        pool.add(t, actor)
    assert [t for t, _ in pool.snapshots] == [0, *range(4, 14)]  # the first snapshot and the 10 latest
    venv.seed(3)
    venv.reset()
    seats: dict[int, list[str]] = {i: [] for i in range(4)}
    opponents = []
    for _ in range(600):
        masks = venv.env_method("action_masks")
        _, _, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        for i in np.flatnonzero(dones):
            seats[int(i)].append(infos[i]["seat"])
            opponents.append(infos[i]["opponent"])
            assert "episode" in infos[i]  # SB3's episode statistics
    assert set(opponents) == {"random", "pool"}
    assert 0.3 < opponents.count("pool") / len(opponents) < 0.7
    for i, played in seats.items():  # env i starts as blue when i is even, then the seats alternate
        assert played[:4] == (["blue", "red"] * 2 if i % 2 == 0 else ["red", "blue"] * 2)


def test_snapshot_opponents_play_inside_the_compiled_step(tiny_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's snapshots are policy networks played in compiled code: no opponent round goes through Python."""
    from suntzu_env.suntzu.vec_env import SunTzuVecEnv

    monkeypatch.setattr(SunTzuVecEnv, "_serve_policies", lambda self, obs: pytest.fail("a snapshot asked from Python"))
    actor = load_ppo_agent(tiny_run).actor
    venv, pool = make_vec_env(TrainConfig(opponents="pool=1", n_envs=16))
    pool.add(0, actor)
    pool.add(1, actor)
    venv.seed(0)
    venv.reset()
    opponents = []
    for _ in range(200):
        masks = venv.env_method("action_masks")
        _, _, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        opponents += [infos[i]["opponent"] for i in np.flatnonzero(dones)]
    assert opponents and set(opponents) == {"pool"}


def test_pool_agent_is_masked_and_samples_when_asked(tiny_run: Path) -> None:
    actor = load_ppo_agent(tiny_run).actor
    game = Game.new(1)
    obs, mask = game.observation(game.current_player), game.legal_mask()
    sampler = PPOAgent(actor, deterministic=False, seed=0)
    assert all(mask[sampler.act(obs, mask)] for _ in range(50))
    with pytest.raises(ValueError, match="allows no action"):
        sampler.act(obs, np.zeros_like(mask))


# A chain of borders, in the rules' province order (as records write a map): fewer than the declared map's.
CHAIN = ("QIN:CHU", "CHU:JIN-YAN", "JIN-YAN:HAN-QI", "HAN-QI:WU")
CHAIN_PAIRS = [border.split(":") for border in CHAIN]


def test_a_custom_map_trains_and_evaluates_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--adjacency reaches every game: the training environments, the run's config, evaluation's records."""
    monkeypatch.setenv(SMOKE_VARIABLE, "1")
    runs = tmp_path / "runs"
    train_here(capsys, *TINY_RUN, "--runs-dir", str(runs), "--adjacency", *CHAIN)
    (run,) = runs.iterdir()
    assert run.name.startswith("suntzu-standard-map")  # another map, another run name
    cfg = read_config(run)
    assert cfg.adjacency == CHAIN and cfg.options.adjacency == tuple(map(tuple, CHAIN_PAIRS))
    venv, _ = make_vec_env(cfg)  # the games PPO trains on
    venv.reset()
    assert venv.venv.game(0).record()["rules"]["adjacency"] == CHAIN_PAIRS
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 512

    out = tmp_path / "eval"
    argv = ["--agents", f"ppo:{run}", "random", "--games", "4", "--workers", "1", "--no-progress"]
    results = evaluate.main([*argv, "--adjacency", *CHAIN, "--out", str(out)])
    printed = capsys.readouterr().out
    assert "map QIN:CHU CHU:JIN-YAN JIN-YAN:HAN-QI HAN-QI:WU" in printed and "note:" not in printed
    assert results["config"]["adjacency"] == CHAIN_PAIRS
    records = [json.loads(line)["record"] for line in (out / "games.jsonl").read_text().splitlines()]
    rows = [r for pairing in results["games"] for r in pairing]
    assert len(records) == len(rows) == 4
    for row, record in zip(rows, records, strict=True):
        assert record["rules"]["adjacency"] == CHAIN_PAIRS
        game = Game.replay(record)  # the record replays on its own map, to the same end
        assert (game.winner, game.score) == (row["winner"], row["score"])

    evaluate.main([*argv, "--out", str(tmp_path / "elsewhere")])  # the rules' map: the trained map is named
    assert "note: ppo:" in capsys.readouterr().out


def test_the_game_options_come_from_the_flags() -> None:
    cfg = parse(CONFIG, ["--variant", "beginner", "--events", "--adjacency", *CHAIN], PROG)
    assert cfg.options.as_dict() == {"variant": "beginner", "events": True, "adjacency": tuple(map(tuple, CHAIN_PAIRS))}
    assert cfg.env_id.startswith("suntzu-beginner-events-map")
    assert TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg  # the map survives config.json
    assert TrainConfig().options.adjacency is None and TrainConfig().env_id == "suntzu-standard"
    # the rules' own map, spelt out, is the same game and the same run name as no map at all
    declared = ("QIN:CHU", "QIN:JIN-YAN", "CHU:JIN-YAN", "CHU:HAN-QI", "CHU:WU", "JIN-YAN:HAN-QI", "HAN-QI:WU")
    assert TrainConfig(adjacency=declared).env_id == "suntzu-standard"


def test_the_training_bench_times_the_batched_env_against_the_stub(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m experiments.bench` learns on both environments with the training's own flags."""
    from experiments import bench

    out = bench.main(["--n-envs", "4", "--n-steps", "16", "--batch-size", "32", "--net-arch", "16", "16",
                      "--timesteps", "64", "--rounds", "2", "--pool-size", "1"])  # fmt: skip
    printed = capsys.readouterr().out
    assert len(out["rounds"]) == 2 and all(ours > 0 and stub > 0 for ours, stub in out["rounds"])
    assert "4 envs x 16 steps" in printed and "of the stub's steps/s" in printed


@pytest.mark.parametrize("game", ["suntzu", "binfa"])
def test_the_bench_stub_replays_the_game_s_own_positions(game: str) -> None:
    """The stub's observations and masks are recorded from the game's env, so the policy meets as many legal
    actions a position on it as in the game (a network computing only the legal logits is timed fairly)."""
    from experiments import bench
    from experiments.config import train_config_class
    from experiments.train import make_vec_env

    cfg = train_config_class(game)(n_envs=4, n_steps=16, batch_size=32, opponents="random=1")
    venv, _ = make_vec_env(cfg)
    obs, masks = bench.recorded_frames(venv, 5, seed=1)
    assert obs.shape == (5, 4, *venv.observation_space.shape) and masks.shape == (5, 4, venv.action_space.n)
    assert masks.any(axis=2).all() and masks.mean() < 0.5
    assert not np.array_equal(obs[0], obs[2]) and not np.array_equal(obs[1], obs[3])  # each step's own positions
    stub = bench.StubVecEnv(venv.observation_space, venv.action_space, (obs, masks))
    assert (stub.reset() == obs[0]).all()
    stub.step(np.zeros(4, np.int64))
    assert (stub.action_masks() == masks[1]).all() and stub.num_envs == 4


def test_a_dagger_round_plays_against_the_teacher_s_twins_where_the_teacher_plays_itself() -> None:
    """Sun Tzu's teacher also meets itself (`teacher_opponents` holds None): a DAgger round's games against it seat
    the teacher's twins, as the demonstrations do, and label only the student's positions."""
    from experiments.game import game_of
    from experiments.warm_start import _student_job
    from suntzu_env.core.policy_net import PolicyNet

    rules = game_of("suntzu")
    assert None in rules.teacher_opponents
    net = PolicyNet([np.zeros((rules.n_actions, rules.observation_size), np.float32)],
                    [np.zeros(rules.n_actions, np.float32)])  # fmt: skip
    k = rules.teacher_opponents.index(None)  # game k meets the teacher's twins
    decisions, agreed = _student_job(("suntzu", "heuristic", PolicyActor.of(net).state(), k, 1, rules.options()))
    obs, masks = decisions.batch(np.arange(decisions.size))
    actions, results = decisions.actions, decisions.results
    assert len(obs) == len(masks) == len(actions) == len(results) > 0
    assert masks[np.arange(len(actions)), actions].all() and 0 <= agreed <= len(actions)


def test_a_warm_restart_decays_the_learning_rate_twice(tmp_path: Path) -> None:
    """--restart-at 0.6: 2e-3 decays to 0 over the first 60% of the run, then 1e-3 decays to 0 by its end (the
    schedule the model's optimizer reads before each update, from the share of the run still to come); the model
    saved with it reads as data."""
    cfg = TrainConfig(learning_rate=2e-3, restart_at=0.6, restart_learning_rate=1e-3, n_envs=4, batch_size=512)
    venv, _ = make_vec_env(cfg)
    restarted = new_model(cfg, venv, torch.device("cpu"))
    plain = new_model(dataclasses.replace(cfg, restart_at=0.0), venv, torch.device("cpu"))
    venv.close()
    behind = (0.0, 0.3, 0.59, 0.6, 0.8, 1.0)  # the share of the run behind
    assert [restarted.lr_schedule(1.0 - done) for done in behind] == pytest.approx(
        [2e-3, 1e-3, 2e-3 / 60, 1e-3, 5e-4, 0.0])  # fmt: skip
    assert [plain.lr_schedule(1.0 - done) for done in behind] == pytest.approx(
        [2e-3, 1.4e-3, 8.2e-4, 8e-4, 4e-4, 0.0])  # fmt: skip
    assert ppo_settings(TrainConfig(anneal_lr=False, restart_at=0.6))["learning_rate"] == 3e-4  # constant: none
    restarted.save(tmp_path / "model.zip")
    assert load_model(tmp_path / "model.zip")[1] == tmp_path / "model.zip"


def test_the_mix_changes_at_the_restart_and_the_pool_leaves_it(tiny_run: Path) -> None:
    """--restart-opponents: the games that start from the restart on draw from its mix, without the pool's
    snapshots; before it, from --opponents'."""
    actor = load_ppo_agent(tiny_run).actor
    cfg = TrainConfig(opponents="random=1,pool=1", restart_at=0.5, restart_opponents="greedy=1",
                      total_timesteps=1024, n_envs=4, batch_size=512)  # fmt: skip
    assert (cfg.restart_step, cfg.opponent_weights_at(511), cfg.opponent_weights_at(512)) == (
        512, {"random": 0.5, "pool": 0.5}, {"greedy": 1.0})  # fmt: skip
    venv, pool = make_vec_env(cfg)

    def opponents_of_new_games() -> set[str]:
        venv.seed(3)
        venv.reset()
        found = set()
        for _ in range(300):
            masks = venv.env_method("action_masks")
            _, _, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
            found |= {infos[i]["opponent"] for i in np.flatnonzero(dones)}
        return found

    pool.add(0, actor)
    pool.follow(511)
    assert opponents_of_new_games() == {"random", "pool"} and len(pool.snapshots) == 1
    pool.follow(512)
    assert opponents_of_new_games() == {"greedy"} and pool.snapshots == [] and pool.weights == {"greedy": 1.0}
    venv.close()


def test_a_run_restarts_its_optimizer_and_mix_and_resumes_across_the_restart(
    tiny_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The smoke budget (4 updates of 2 minibatches, a rollout of 128 timesteps, 512 in all) with --restart-at 0.5:
    snapshots at 0 and 128, none once the pool has left the mix at 256; Adam starts anew for the update after the
    rollout that reaches 256, so it has taken 3 x 2 steps by the end, not 4 x 2; resumed from the checkpoint at
    256, the run ends bit for bit as it did."""
    monkeypatch.setenv(SMOKE_VARIABLE, "1")
    flags = ["--runs-dir", str(tmp_path / "runs"), "--timestamp", "t", "--no-progress-bar", "--opponents",
             "random=1,pool=1", "--restart-at", "0.5", "--restart-opponents", "greedy=1"]  # fmt: skip
    train_here(capsys, *flags)
    (run,) = (tmp_path / "runs").iterdir()
    assert sorted(p.name for p in (run / "pool").iterdir()) == ["snapshot_0.npz", "snapshot_128.npz"]
    steps = {float(state["step"]) for state in load_model(run)[0].policy.optimizer.state_dict()["state"].values()}
    assert steps == {6.0}
    again = tmp_path / "again" / run.name
    shutil.copytree(run, again)
    train_here(capsys, "--resume", str(again / "checkpoints" / "ppo_256_steps.zip"))
    assert model_weights(again / "model.zip") == model_weights(run / "model.zip")
    assert (again / "eval.csv").read_text() == (run / "eval.csv").read_text()
    plain = load_model(tiny_run)[0].policy.optimizer.state_dict()["state"].values()  # the same budget, no restart
    assert {float(state["step"]) for state in plain} == {8.0}
