"""On a local Ray cluster of two CPUs: the distributed evaluation equals the local one; an RLlib run trains,
checkpoints, and its policy plays in the evaluation.

Marked `ray` (`python -m pytest -m ray` runs only these). Ray and RLlib come with the `ray` extra
(`pip install -e ".[ray]"`); without it these tests skip, except in CI (`CI` set), which installs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from experiments import matches
from experiments.evaluate import main
from experiments.evaluate import play_games
from experiments.evaluate import round_robin

from conftest import require

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray cluster of two CPUs, shared by this module's tests."""
    ray = require("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 * 1024**2)
    yield ray
    ray.shutdown()


def test_ray_evaluation_equals_the_local_one(ray_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batched and game-by-game pairings, cut into several tasks each: the same games, record for record, the same
    statistics and ratings."""
    monkeypatch.setattr(matches, "BATCHED_SEEDS_PER_JOB", 3)  # several tasks per pairing
    monkeypatch.setattr(matches, "SEEDS_PER_JOB", 2)
    specs = ["random", "greedy", "ismcts:2"]
    local = round_robin(specs, 10, seed=31, workers=1)
    on_ray = round_robin(specs, 10, seed=31, workers=2, backend="ray")
    assert on_ray["games"] == local["games"]
    assert on_ray["pairings"] == local["pairings"] and on_ray["ratings"] == local["ratings"]
    assert on_ray["config"]["backend"] == "ray" and len(on_ray["games"][0]) == 10


def test_ray_evaluation_under_options_and_unmirrored(ray_cluster: Any) -> None:
    options = {"variant": "beginner", "events": True}
    pairs = [("heuristic", "random"), ("greedy", "greedy")]
    local = play_games(pairs, 6, 5, options, mirrored=False)
    assert play_games(pairs, 6, 5, options, mirrored=False, backend="ray") == local
    assert all(r["record"]["rules"]["variant"] == "beginner" for r in local[0])


def test_cli_with_the_ray_backend(ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--agents", "random", "heuristic", "--games", "4", "--seed", "9", "--no-progress"]
    on_ray = main([*argv, "--backend", "ray", "--out", str(tmp_path / "ray")])
    local = main([*argv, "--out", str(tmp_path / "local")])
    assert "heuristic" in capsys.readouterr().out
    assert on_ray["games"] == local["games"]
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()


def test_an_rllib_run_trains_checkpoints_and_plays(
    ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One tiny PPO iteration on the PettingZoo environment (self-play and a scripted opponent, one rollout
    worker) leaves a checkpoint; the run resumes from it for a second iteration, and refuses other settings in
    its folder; the checkpoint plays as `rllib:<checkpoint>`, legally, in the evaluation, on both backends."""
    require("ray.rllib")
    from experiments import train_rllib

    tiny = ["--iterations", "1", "--env-runners", "1", "--train-batch-size", "128", "--minibatch-size", "64",
            "--epochs", "1", "--hidden", "16", "--opponents", "greedy", "self", "--variant", "beginner"]  # fmt: skip
    checkpoint = train_rllib.main([*tiny, "--out", str(tmp_path / "run")])
    assert checkpoint == tmp_path / "run" / "checkpoint" and (tmp_path / "run" / "config.json").is_file()
    progress = tmp_path / "run" / train_rllib.PROGRESS
    assert json.loads(progress.read_text())["iteration"] == 1
    again = [*tiny, "--out", str(tmp_path / "run"), "--iterations", "2"]  # a killed or finished run goes on
    assert train_rllib.main(again) == checkpoint and json.loads(progress.read_text())["iteration"] == 2
    with pytest.raises(SystemExit) as refused:  # other settings in the same folder: one line, nothing touched
        train_rllib.main([*again, "--hidden", "32", "--iterations", "3"])
    assert refused.value.code == 2
    assert "other settings (hidden)" in capsys.readouterr().err
    assert json.loads(progress.read_text())["iteration"] == 2
    spec = f"rllib:{tmp_path / 'run'}"
    local = play_games([(spec, "random")], 4, 0, {"variant": "beginner"})
    assert play_games([(spec, "random")], 4, 0, {"variant": "beginner"}, backend="ray") == local
    assert play_games([(spec, "random")], 4, 0, {"variant": "beginner"}, batched=False)[0] == local[0]
    assert all(row["decisions"] > 0 for row in local[0])


def test_an_rllib_run_of_three_players_maps_every_seat() -> None:
    """A Bin'Fa run of 3 players: in each episode one seat is the learner's and the two others its opponent's,
    and over the episodes the learner sits in each of the three seats."""
    require("ray.rllib")
    from types import SimpleNamespace

    from experiments import train_rllib
    from experiments.cli import parse

    cfg = parse(train_rllib.rllib_config_class("binfa"),
                ["--game", "binfa", "--players", "3", "--opponents", "random", "greedy"], "x")  # fmt: skip
    mapping = train_rllib.algorithm_config(cfg).policy_mapping_fn
    seats = ("player_0", "player_1", "player_2")
    learner_seats = set()
    for k in range(60):
        episode = SimpleNamespace(id_=f"episode-{k}")
        mapped = {seat: mapping(seat, episode) for seat in seats}
        learners = [seat for seat, policy in mapped.items() if policy == train_rllib.LEARNER]
        opponents = {policy for policy in mapped.values() if policy != train_rllib.LEARNER}
        assert len(learners) == 1 and len(opponents) == 1 and opponents <= {"random", "greedy"}, mapped
        learner_seats.add(learners[0])
    assert learner_seats == set(seats)


def suntzu_parallel(env_config: dict[str, Any]) -> Any:
    """RLlib's `ParallelPettingZooEnv` over `parallel_env(idle="noop")` with RLlib's observation keys."""
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
    from suntzu_env import parallel_env
    from suntzu_env.core.formats import rllib_observations

    return ParallelPettingZooEnv(rllib_observations(parallel_env(variant="beginner", idle="noop")))


def test_rllib_parallel_pettingzoo_env_checks_and_trains(ray_cluster: Any) -> None:
    """RLlib's `ParallelPettingZooEnv` over `parallel_env(idle="noop")`, through `rllib_observations` only: RLlib's
    own multi-agent environment check, then one PPO iteration with its example action-masking module, a policy
    per seat: the idle seat's single legal noop keeps every sampled action legal."""
    require("ray.rllib")
    import warnings

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments
    from ray.tune.registry import register_env
    from suntzu_env import IllegalActionWarning

    env = suntzu_parallel({})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)  # RLlib's check steps with an unmasked sample
        check_multiagent_environments(env)
    observations, infos = env.reset(seed=0)
    assert set(observations["blue"]) == {"observations", "action_mask"} and "active" in infos["blue"]
    env.close()
    register_env("suntzu_parallel", suntzu_parallel)
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [16]})
    config = (
        PPOConfig()
        .environment(env="suntzu_parallel", disable_env_checking=True)  # checked above, with unmasked actions
        .multi_agent(policies={"blue", "red"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: agent_id)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"blue": spec, "red": spec}))
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)  # masked: never an illegal action
        algorithm = config.build_algo()
        try:
            result = algorithm.train()
        finally:
            algorithm.stop()
    sampled = result["env_runners"]["num_env_steps_sampled_lifetime"]
    assert sampled >= 128
