"""Bin'Fa as the registered game "binfa": its option flags, its agents handed the game, and a run of the
experiments' command lines (`experiments.train --game binfa`, `experiments.evaluate --game binfa`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from experiments import evaluate
from experiments import train
from experiments.cli import ConfigError
from experiments.config import train_config_class
from experiments.config import train_defaults
from suntzu_env.binfa.plugin import BINFA
from suntzu_env.binfa.plugin import GreedyAgent
from suntzu_env.binfa.plugin import SeatGame
from suntzu_env.core import games
from suntzu_env.core.protocol import ask

from helpers import model_weights

SHORT = ["--max-turns", "40"]  # games of a few hundred decisions


def test_the_registry_names_binfa() -> None:
    assert games.game("binfa") is BINFA and "binfa" in games.names()


def test_the_flags_read_random_or_triangles() -> None:
    """--terrain absent or `random` draws the markers from the seed (B21); names are the chosen triangles."""
    flags = {flag.name: flag.default for flag in BINFA.option_flags}
    assert BINFA.options_from_flags(flags).terrain == "random"
    assert BINFA.options_from_flags(flags | {"terrain": ("random",)}).terrain == "random"
    chosen = BINFA.options_from_flags(flags | {"level": 2, "terrain": ["red-4-6"]})
    assert chosen.terrain == ("red-4-6",) and BINFA.options(BINFA.option_fields(chosen)) == chosen
    assert BINFA.label(chosen).startswith("level2-2p-terrain") and BINFA.label(chosen) != "level2-2p-terrain"
    with pytest.raises(ValueError, match="terrain: level 1 has no terrain"):
        BINFA.options_from_flags(flags | {"terrain": ("red-4-6",)})
    assert BINFA.seats_of(BINFA.options_from_flags(flags | {"players": 4})) == tuple(f"player_{i}" for i in range(4))
    assert BINFA.seats_of() == BINFA.seats == ("player_0", "player_1")
    with pytest.raises(ValueError, match=r"players must be an integer 2\.\.6"):
        BINFA.options(players=7)


def test_an_agent_plays_only_when_handed_the_game() -> None:
    """The compiled agents read the position (Bin'Fa hides nothing): `ask` hands it over; `act` alone refuses."""
    game = BINFA.new(3)
    agent = GreedyAgent(1)
    with pytest.raises(ValueError, match="hand it the game first"):
        agent.act(game.observation("player_0"), game.legal_mask())
    action = ask(agent, game, game.current_player)
    assert game.legal_mask()[action] == 1
    assert isinstance(game, SeatGame)


def test_the_agents_play_as_play_batched_plays_them() -> None:
    """Greedy against heuristic, asked move by move, plays the game `play_batched` plays from the same seeds."""
    options = BINFA.options(max_turns=40)
    (batched,) = BINFA.play_batched("greedy", "heuristic", [(9, "player_1", 5, 6)], options)
    players = {"player_1": BINFA.make_agent("greedy", 5), "player_0": BINFA.make_agent("heuristic", 6)}
    game = BINFA.new(9, options)
    while (seat := game.current_player) is not None:
        game.apply(ask(players[seat], game, seat))
    assert batched["record"] == game.record() and batched["winner"] == game.winner
    assert game.winner in ("player_0", "player_1", "draw")


@pytest.mark.slow  # training and evaluation through the command lines
def test_binfa_trains_and_evaluates_through_the_command_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A short training run, warm-started by cloning heuristic (its compiled agents handed each game) and one DAgger
    round, against its default mix (greedy and heuristic), evaluated against random, greedy and heuristic; and an
    evaluation of greedy against random."""
    summary = train.main(["--game", "binfa", *SHORT, "--runs-dir", str(tmp_path / "runs"), "--exp-name", "bf",
                          "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "32", "--batch-size", "32",
                          "--n-epochs", "1", "--net-arch", "8", "--eval-every", "0", "--final-eval-games", "2",
                          "--bc-games", "2", "--bc-epochs", "1", "--dagger-rounds", "1", "--dagger-games", "2",
                          "--workers", "1", "--no-progress-bar"])  # fmt: skip
    cloning = summary["behaviour_cloning"]
    assert summary["timesteps"] == 128 and cloning["decisions"] > 0 and len(cloning["dagger"]) == 1
    assert set(summary["final_eval"]) == {"random", "greedy", "heuristic"}
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("binfa-level1-2p-turns40__bf__0__")
    config = json.loads((run / "config.json").read_text())
    assert (config["game"], config["max_turns"], config["opponents"]) == ("binfa", 40, "greedy=1,heuristic=2")
    out = tmp_path / "eval"
    results = evaluate.main(["--game", "binfa", *SHORT, "--agents", "greedy", "random", "--games", "6", "--out",
                             str(out), "--no-progress"])  # fmt: skip
    assert results["config"]["game"] == "binfa" and results["config"]["max_turns"] == 40
    rows = [json.loads(line)["record"] for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["game"] == "binfa" and r["options"]["max_turns"] == 40 for r in rows)
    assert "greedy vs random" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--level", "5"], "--level"),
        (["--terrain", "red-4-6"], "terrain: level 1 has no terrain"),
        (["--level", "2", "--terrain", "nowhere"], "terrain: unknown triangle 'nowhere'"),
        (["--opponents", "ismcts=1"], "--opponents: unknown agent 'ismcts'; valid: random, greedy, heuristic"),
    ],
)
def test_binfa_s_flags_are_checked(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--game", "binfa", *argv, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert not list(tmp_path.iterdir())


@pytest.mark.slow  # training runs, killed and resumed
@pytest.mark.parametrize("opponents", [None, "random=1,greedy=1,pool=2"])
def test_binfa_trains_on_its_compiled_env_and_resumes_as_never_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], opponents: str | None
) -> None:
    """The smoke run trains on `BinFaVecEnv` (its mix drawn per game: the default one, and one with the self-play
    pool, whose snapshots it plays in its compiled step); resumed from its middle checkpoint it ends with the
    uninterrupted run's weights and eval.csv, bit for bit."""
    from suntzu_env.binfa.vec_env import BinFaVecEnv

    assert isinstance(BINFA.batched_env(2, {"random": 1, "greedy": 2}, seed=0), BinFaVecEnv)
    monkeypatch.setenv("SUNTZU_TRAIN_SMOKE", "1")
    mix = ["--opponents", opponents] if opponents else []
    summary = train.main(["--game", "binfa", *SHORT, *mix, "--runs-dir", str(tmp_path / "runs"), "--timestamp", "t",
                          "--no-progress-bar"])  # fmt: skip
    assert summary["timesteps"] == 512
    (run,) = (tmp_path / "runs").iterdir()
    if opponents:
        assert json.loads((run / "config.json").read_text())["opponents"] == opponents
        assert len(list((run / "pool").glob("snapshot_*.npz"))) > 1
    copy = tmp_path / "copy" / run.name
    shutil.copytree(run, copy)
    checkpoint = copy / "checkpoints" / "ppo_256_steps.zip"
    resumed = train.main(["--resume", str(checkpoint)])
    assert resumed["timesteps"] == 512 and resumed["resumed_from"] == str(checkpoint)
    assert (copy / "eval.csv").read_text() == (run / "eval.csv").read_text()
    assert model_weights(copy / "model.zip") == model_weights(run / "model.zip")


def test_the_warm_start_clones_heuristic_from_its_seat_s_view() -> None:
    """The demonstrations hand the compiled teacher each game: every recorded decision is legal under its mask,
    the observation is the teacher's seat's (BD12), and a result is +1, 0 or -1 (undecided 0, BD5)."""
    from experiments.warm_start import _demo_job

    assert BINFA.teacher == "heuristic" and set(BINFA.teacher_opponents) <= set(BINFA.agent_names)
    decisions = _demo_job(("binfa", "heuristic", 5, 2, BINFA.options(max_turns=20)))
    obs, masks = decisions.batch(np.arange(decisions.size))
    actions, results = decisions.actions, decisions.results
    assert len(obs) == len(masks) == len(actions) == len(results) > 0
    assert masks[np.arange(len(actions)), actions].all() and set(results) <= {-1.0, 0.0, 1.0}
    assert obs.shape[1] == BINFA.observation_size and masks.shape[1] == BINFA.n_actions


def test_binfa_s_default_run_is_its_own() -> None:
    """The default run's settings that differ from the experiments' come from the game (`training_defaults`)."""
    config = train_config_class("binfa")()
    assert config.bc_teacher == "heuristic"
    for key, value in BINFA.training_defaults.items():
        assert getattr(config, key) == value, key


def test_a_game_s_defaults_set_only_training_settings() -> None:
    """What the game declares elsewhere (its opponents, evaluation opponents, teacher) or a run's own is refused."""

    class Odd(type(BINFA)):  # type: ignore[misc]
        training_defaults: Mapping[str, Any] = {"opponents": "random=1"}

    with pytest.raises(ConfigError, match=r"binfa: training_defaults may set .*; got 'opponents'"):
        train_defaults(Odd())


def test_a_dagger_round_labels_the_student_s_own_positions_with_the_teacher_s_answers() -> None:
    """DAgger: the student (here a board network of random weights) plays its games, and every position it reached
    is recorded with the teacher's answer there, legal under its mask; the agreement counts the student's answers
    that were the teacher's."""
    pytest.importorskip("torch")
    import torch
    from agents.cell_policy import CellTrunk
    from agents.ppo import PolicyActor
    from agents.ppo import PPOAgent
    from experiments.warm_start import _student_job
    from suntzu_env.binfa.policy import BOARD
    from suntzu_env.core.policy_net import CellNet
    from suntzu_env.core.protocol import hand_game

    torch.manual_seed(0)
    state = PolicyActor.of(CellNet(CellTrunk(BOARD, 8, 1, 16).arrays())).state()
    options = BINFA.options(max_turns=20)
    decisions, agreed = _student_job(("binfa", "heuristic", state, 5, 2, options))
    obs, masks = decisions.batch(np.arange(decisions.size))
    actions, results = decisions.actions, decisions.results
    assert len(obs) == len(masks) == len(actions) == len(results) > 0
    assert masks[np.arange(len(actions)), actions].all() and set(results) <= {-1.0, 0.0, 1.0}
    # Replay game 5 (seed 5: the student in seat 5 // 2 % 2 = 0, against the opponents in turn: 5 % 2 -> random):
    # the student's positions are the first recorded, and the labels are what heuristic answers in them.
    student = PPOAgent(PolicyActor.from_state(state), deterministic=True)
    teacher, opponent = BINFA.make_agent("heuristic"), BINFA.make_agent(BINFA.teacher_opponents[5 % 2])
    opponent.reset(5 * 2 + 1)
    teacher.reset(5)
    game, k, same = BINFA.new(5, options), 0, 0
    while (name := game.current_player) is not None:
        o, m = game.observation(name), game.legal_mask()
        if name == BINFA.seats[0]:
            hand_game(teacher, game, name)
            assert teacher.act(o, m) == actions[k] and np.array_equal(o.astype(np.float16).astype(np.float32), obs[k])
            a = student.act(o, m)
            same += int(a == actions[k])
            k += 1
        else:
            hand_game(opponent, game, name)
            a = opponent.act(o, m)
        game.apply(a)
    assert 0 < k < len(actions) and same <= agreed
