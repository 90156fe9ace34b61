"""Training: the real command on a tiny budget, its run folder, resuming, the model as an agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import run_train

from agents import make_agent
from agents.ppo import PolicyActor, PPOAgent, load_ppo_agent, resolve_model_path
from experiments.config import TrainConfig, build_parser, field_docs, parse_config
from experiments.evaluate import play_match
from experiments.runs import read_config, read_eval
from experiments.train import OpponentMix
from suntzu_env import Game, SunTzuGymEnv

RUN_FILES = ("config.json", "model.zip", "eval.csv", "learning_curve.png", "summary.json")


def test_help_explains_every_field() -> None:
    docs = field_docs(TrainConfig)
    text = build_parser(TrainConfig).format_help()
    for name in TrainConfig.__dataclass_fields__:
        assert docs.get(name), f"TrainConfig.{name} has no docstring"
        assert f"--{name.replace('_', '-')}" in text


def test_flags_build_the_config_and_derived_values_follow() -> None:
    cfg, given = parse_config(TrainConfig, ["--n-envs", "16", "--net-arch", "64", "64", "--no-anneal-lr"])
    assert (cfg.n_envs, cfg.net_arch, cfg.anneal_lr) == (16, (64, 64), False)
    assert given == {"n_envs": 16, "net_arch": (64, 64), "anneal_lr": False}
    assert cfg.rollout_size == 16 * cfg.n_steps
    assert cfg.run_name == f"suntzu-standard__ppo_mix__0__{cfg.timestamp}"
    assert TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert TrainConfig(opponents="random=1, pool=3").opponent_weights == {"random": 0.25, "pool": 0.75}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "random"}, "spec=weight"),
        ({"opponents": "random=0"}, "must not all be 0"),
        ({"opponents": "randm=1"}, "unknown agent 'randm'"),
        ({"eval_opponents": ("greedy", "nobody")}, "unknown agent 'nobody'"),
        ({"batch_size": 100}, "must divide"),
        ({"eval_games": 3}, "must be even"),
        ({"n_envs": 0}, "at least 1"),
    ],
)
def test_bad_configs_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrainConfig(**kwargs)


def test_bad_flags_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_config(TrainConfig, ["--batch-size", "100"])
    assert "must divide" in capsys.readouterr().err


def test_a_run_folder_holds_every_file(tiny_run: Path) -> None:
    for name in RUN_FILES:
        assert (tiny_run / name).is_file(), name
    assert sorted(p.name for p in (tiny_run / "checkpoints").iterdir()) == ["ppo_256_steps.zip"]
    assert (tiny_run / "pool" / "snapshot_0.npz").is_file()
    assert list((tiny_run / "tb").glob("ppo_1/events.out.tfevents.*"))
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


def test_resume_continues_the_run_from_a_checkpoint(tiny_run: Path, tmp_path: Path) -> None:
    run = tmp_path / tiny_run.name
    shutil.copytree(tiny_run, run)
    out = run_train("--resume", str(run / "checkpoints" / "ppo_256_steps.zip"), "--total-timesteps", "768")
    assert "resuming from" in out.stdout
    assert read_config(run).total_timesteps == 768 and read_config(run).n_envs == 2
    rows = read_eval(run)
    assert [r["timesteps"] for r in rows if not r["final"]] == [0, 0, 256, 256, 512, 512]
    assert [r["timesteps"] for r in rows if r["final"]] == [768, 768]
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 768
    assert sorted(p.name for p in (run / "tb").iterdir()) == ["ppo_1"]  # one TensorBoard curve


def test_opponent_mix_draws_opponents_and_alternates_seats(tiny_run: Path) -> None:
    actor = load_ppo_agent(tiny_run).actor
    with pytest.raises(RuntimeError, match="pool is empty"):
        OpponentMix(SunTzuGymEnv(), {"pool": 1.0}, seed=0).reset(seed=0)
    env = OpponentMix(SunTzuGymEnv(), {"random": 0.5, "pool": 0.5}, seed=0)
    env.add_snapshot(0, actor)
    seats, opponents = [], []
    for _ in range(6):
        _, info = env.reset()
        seats.append(info["seat"])
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            _, _, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        opponents.append(info["opponent"])
    assert seats == ["blue", "red"] * 3
    assert set(opponents) == {"random", "pool"}
    for i in range(1, 14):
        env.add_snapshot(i, actor)
    assert [t for t, _ in env.pool] == [0, *range(4, 14)]  # the first snapshot and the 10 latest


def test_pool_agent_is_masked_and_samples_when_asked(tiny_run: Path) -> None:
    actor = load_ppo_agent(tiny_run).actor
    game = Game.new(1)
    obs, mask = game.observation(game.current_player), game.legal_mask()
    sampler = PPOAgent(actor, deterministic=False, seed=0)
    assert all(mask[sampler.act(obs, mask)] for _ in range(50))
    with pytest.raises(ValueError, match="allows no action"):
        sampler.act(obs, np.zeros_like(mask))
