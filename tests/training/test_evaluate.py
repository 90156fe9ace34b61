"""The evaluation harness: statistics, paired seat-swapped games, determinism, the command line."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from agents import AGENT_NAMES
from agents import GreedyAgent
from agents import RandomAgent
from agents.ppo import PolicyActor
from agents.ppo import PPOAgent
from experiments.evaluate import EvaluateConfig
from experiments.evaluate import bradley_terry
from experiments.evaluate import main
from experiments.evaluate import plan_jobs
from experiments.evaluate import play_games
from experiments.evaluate import play_match
from experiments.evaluate import round_robin
from experiments.evaluate import seat_advantage
from experiments.evaluate import wilson
from experiments.partial import Partial
from suntzu_env import Game
from suntzu_env.core import games

GAME = games.game("suntzu")
SEATS = GAME.seats

RESULT_FILES = {"summary.json", "pairings.csv", "games.csv", "games.jsonl", "heatmap.png"}

MATCH_KEYS = {"wins", "draws", "losses", "win_rate", "ci_low", "ci_high"}


def test_wilson_interval_known_values() -> None:
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson(5, 10)
    assert low == pytest.approx(1 - high)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0
    low, high = wilson(10.5, 20)  # draws count as halves
    assert low < 10.5 / 20 < high


def test_bradley_terry_orders_and_scales() -> None:
    even = [{"a": "x", "b": "y", "wins": 50, "draws": 0, "losses": 50}]
    assert bradley_terry(["x", "y"], even) == pytest.approx({"x": 0.0, "y": 0.0}, abs=1e-6)
    three_to_one = [{"a": "x", "b": "y", "wins": 3000, "draws": 0, "losses": 1000}]
    ratings = bradley_terry(["x", "y"], three_to_one)
    assert ratings["x"] - ratings["y"] == pytest.approx(400 * 0.47712, abs=1.0)  # 400 log10(3)
    chain = [
        {"a": "a", "b": "b", "wins": 70, "draws": 0, "losses": 30},
        {"a": "b", "b": "c", "wins": 70, "draws": 0, "losses": 30},
        {"a": "a", "b": "c", "wins": 100, "draws": 0, "losses": 0},
    ]
    ratings = bradley_terry(["a", "b", "c"], chain)
    assert ratings["a"] > ratings["b"] > ratings["c"] and sum(ratings.values()) == pytest.approx(0.0, abs=1e-6)


def test_ratings_put_heuristic_at_0_when_it_is_rated() -> None:
    """One anchor everywhere (README, report, results page, notebooks): heuristic at 0, else mean 0."""
    from experiments.evaluate import anchor_note
    from experiments.evaluate import anchored

    three_to_one = [{"a": "heuristic", "b": "random", "wins": 3000, "draws": 0, "losses": 1000}]
    ratings = bradley_terry(["random", "heuristic"], three_to_one)
    assert ratings["heuristic"] == 0.0 and ratings["random"] == pytest.approx(-400 * 0.47712, abs=1.0)  # log10(3)
    assert anchor_note(ratings) == "heuristic = 0"
    assert anchored({"x": 10.0, "y": 30.0}) == {"x": -10.0, "y": 10.0}  # no heuristic: mean 0
    assert anchor_note({"x": -10.0, "y": 10.0}) == "mean 0, heuristic not rated"
    assert anchored({"heuristic": 40.0, "ppo": 100.0}) == {"heuristic": 0.0, "ppo": 60.0}  # an older folder's mean 0


def test_play_match_pairs_seeds_and_swaps_seats() -> None:
    (rows,) = play_games([("greedy", "random")], 10, seed=40)
    assert [(r["seed"], r["a_seat"]) for r in rows] == [(s, seat) for s in range(40, 45) for seat in ("blue", "red")]
    result = play_match("greedy", "random", 10, seed=40)
    assert set(result) >= MATCH_KEYS
    assert result["wins"] + result["draws"] + result["losses"] == result["games"] == 10
    for seat in ("blue", "red"):
        assert result[f"{seat}_wins"] + result[f"{seat}_draws"] + result[f"{seat}_losses"] == 5
    assert result["win_rate"] == (result["wins"] + 0.5 * result["draws"]) / 10
    assert result["ci_low"] <= result["win_rate"] <= result["ci_high"]
    assert result["pairs_won_both"] + result["pairs_split"] + result["pairs_lost_both"] == 5


def test_an_agent_against_itself_replays_the_same_game_when_seats_swap() -> None:
    """The premise of the seat advantage: each deck seed counts once, not twice."""
    (rows,) = play_games([("random", "random")], 8, seed=7)
    for blue_first, red_first in zip(rows[::2], rows[1::2], strict=True):
        assert blue_first["winner"] == red_first["winner"] and blue_first["score"] == red_first["score"]


def test_seat_advantage_counts_each_deck_seed_once() -> None:
    greedy, random = seat_advantage(["greedy", "random"], 7, seed=11)
    (rows,) = play_games([("random", "random")], 7, seed=11, mirrored=False)
    assert [r["seed"] for r in rows] == list(range(11, 18)) and {r["a_seat"] for r in rows} == {"blue"}
    assert random["games"] == 7 and random["blue_wins"] == sum(r["winner"] == "blue" for r in rows)
    for entry in (greedy, random):
        assert entry["blue_wins"] + entry["draws"] + entry["red_wins"] == 7
        assert entry["blue_win_rate"] == (entry["blue_wins"] + 0.5 * entry["draws"]) / 7
        assert (entry["ci_low"], entry["ci_high"]) == wilson(entry["blue_wins"] + 0.5 * entry["draws"], 7)
    with pytest.raises(ValueError, match=">= 1"):
        seat_advantage(["random"], 0)


def test_play_match_accepts_agent_objects() -> None:
    by_object = play_match(GreedyAgent(), RandomAgent(), 6, seed=3)
    by_spec = play_match("greedy", "random", 6, seed=3)
    assert by_object == by_spec


@pytest.mark.parametrize("games", [0, 3, -2, 2.0])
def test_play_match_rejects_odd_or_bad_game_counts(games: object) -> None:
    with pytest.raises(ValueError, match="even"):
        play_match("random", "random", games)  # type: ignore[arg-type]


def test_play_match_rejects_unknown_agents() -> None:
    with pytest.raises(ValueError, match="heuristic"):
        play_match("random", "nobody", 2)


def test_evaluation_is_deterministic_for_a_seed_whatever_the_workers() -> None:
    specs = ["random", "greedy", "heuristic"]
    one = round_robin(specs, 8, seed=11, workers=1)
    two = round_robin(specs, 8, seed=11, workers=2)
    again = round_robin(specs, 8, seed=11, workers=1)
    assert one["games"] == two["games"] == again["games"]
    assert one["pairings"] == two["pairings"] and one["ratings"] == two["ratings"]
    other = round_robin(["random", "random"], 8, seed=12, workers=1)
    assert other["games"] != round_robin(["random", "random"], 8, seed=13, workers=1)["games"]


@pytest.mark.parametrize("options", [{}, {"variant": "beginner", "events": True}])
def test_the_batched_environment_plays_the_games_played_one_at_a_time(options: dict) -> None:
    """Scripted pairings are played many at once in the batched environment: the same games, record for
    record, as game by game (each agent seeded per game alike), in both seats, under the options."""
    specs = ["random", "greedy", "heuristic"]
    batched = round_robin(specs, 12, seed=21, options=options)
    by_game = play_games([(a, b) for i, a in enumerate(specs) for b in specs[i + 1 :]], 12, 21, options,
                         batched=False)  # fmt: skip
    assert batched["games"] == by_game
    assert all(r["record"]["rules"]["variant"] == options.get("variant", "standard") for r in by_game[0])


def test_a_policy_plays_in_the_batched_environment_as_one_at_a_time() -> None:
    """A policy agent (`act_batch`) in either place of a pairing: the same games as played one by one."""
    rng = np.random.default_rng(0)
    sizes = [GAME.observation_size, 32, GAME.n_actions]
    actor = PolicyActor([rng.normal(0, 0.3, (o, i)).astype(np.float32) for i, o in itertools.pairwise(sizes)],
                        [np.zeros(o, np.float32) for o in sizes[1:]])  # fmt: skip
    for a, b in ((PPOAgent(actor), "heuristic"), ("greedy", PPOAgent(actor))):
        assert play_games([(a, b)], 8, 3)[0] == play_games([(a, b)], 8, 3, batched=False)[0]


def test_cli_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval"
    argv = ["--agents", "random", "greedy", "heuristic", "--games", "4", "--seed", "5"]
    results = main([*argv, "--workers", "2", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert "greedy beats random" in printed and "heuristic beats greedy" in printed
    assert "ratings (Bradley-Terry, Elo scale, heuristic = 0): " in printed and "heuristic +0" in printed
    assert {p.name for p in out.iterdir()} == RESULT_FILES
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["game_seeds"] == [5, 6] and len(summary["pairings"]) == 3
    assert {rung["a"] for rung in summary["ladder"]} == {"greedy", "heuristic"}
    with (out / "pairings.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 3
    with (out / "games.csv").open() as f:
        games = list(csv.DictReader(f))
    assert len(games) == 12 and {g["seed"] for g in games} == {"5", "6"}
    records = [json.loads(line)["record"] for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 12  # one per games.csv row, in its order: each replays to that row's result
    for row, record in zip(games, records, strict=True):
        game = Game.replay(record)
        assert (str(record["seed"]), game.winner, str(game.score)) == (row["seed"], row["winner"], row["score"])
    assert (out / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert results["config"]["labels"] == ["random", "greedy", "heuristic"]


def test_cli_same_agent_twice_plays_itself(tmp_path: Path) -> None:
    results = main(["--agents", "random", "random", "--games", "2", "--out", str(tmp_path / "e"), "--no-progress"])
    assert results["config"]["labels"] == ["random", "random#2"]


def test_cli_help_documents_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", capsys.readouterr().out).split())
    for f in dataclasses.fields(EvaluateConfig):
        assert f"--{f.name.replace('_', '-')}" in text
    assert "--no-progress" in text and "95% intervals" in text and "%%" not in text
    for name in (*AGENT_NAMES, "ppo:<path-to-model>"):
        assert name in text


def test_the_ray_backend_without_ray_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where Ray is not installed, `--backend ray` says how to install it, before any game, and writes nothing."""
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as where it is not installed
    with pytest.raises(SystemExit) as exit_:
        main(["--agents", "random", "greedy", "--games", "2", "--backend", "ray", "--out", str(tmp_path / "e")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert err == 'python -m experiments.evaluate: error: the ray backend needs Ray, which is not installed: ' \
                  'pip install -e ".[ray]"\n'  # fmt: skip
    assert not (tmp_path / "e").exists()


def test_cli_writes_the_results_folder_whole(tmp_path: Path) -> None:
    """A new results folder is filled aside and renamed: it never appears half-written."""
    out = tmp_path / "new" / "eval"
    main(["--agents", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"])
    assert {p.name for p in out.iterdir()} == RESULT_FILES
    assert [p.name for p in out.parent.iterdir()] == ["eval"]  # no temporary folder or file beside it


def test_games_are_played_under_the_options_given() -> None:
    chain = [["QIN", "CHU"], ["CHU", "JIN-YAN"], ["JIN-YAN", "HAN-QI"], ["HAN-QI", "WU"]]
    (rows,) = play_games([("greedy", "random")], 2, seed=8, options={"variant": "beginner", "adjacency": chain})
    for row in rows:
        assert row["record"]["rules"] == {"variant": "beginner", "events": False, "adjacency": chain, "version": "1.1"}
        assert Game.replay(row["record"]).winner == row["winner"]
    default = play_match("greedy", "random", 2, seed=8, options=None)
    assert default == play_match("greedy", "random", 2, seed=8, options={"variant": "standard"})
    with pytest.raises(ValueError, match="variant must be one of"):
        play_match("greedy", "random", 2, options={"variant": "expert"})


# -------------------------------------------------------------------- atomic and resumable


QUICK = ["--agents", "random", "greedy", "heuristic", "--games", "4", "--seed", "5", "--workers", "1", "--no-progress"]


def same_folder(a: Path, b: Path) -> None:
    """The same files with the same contents, but for the timing in summary.json."""
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
    for path in a.iterdir():
        if path.name == "summary.json":
            timeless = [{k: v for k, v in json.loads(p.read_text()).items() if k not in ("seconds", "games_per_second")}
                        for p in (path, b / path.name)]  # fmt: skip
            assert timeless[0] == timeless[1]
        else:
            assert path.read_bytes() == (b / path.name).read_bytes(), path.name


def test_a_killed_evaluation_resumes_to_the_uninterrupted_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stopped after two of its three units (one per pairing), the evaluation leaves no results folder, only its
    unfinished one; `--resume` plays the last unit only and ends with the uninterrupted evaluation's folder."""
    main([*QUICK, "--out", str(tmp_path / "whole")])
    out = tmp_path / "killed"
    saved: list[int] = []
    keep = Partial.save

    def save_then_stop(self: Partial, pairing: int, rows: list, elapsed_s: float) -> None:
        keep(self, pairing, rows, elapsed_s)
        saved.append(pairing)
        if len(saved) == 2:
            raise KeyboardInterrupt  # as a kill right after the second unit's file is written

    with monkeypatch.context() as patch:
        patch.setattr(Partial, "save", save_then_stop)
        with pytest.raises(SystemExit) as exit_:
            main([*QUICK, "--out", str(out)])
    assert exit_.value.code == 130 and not out.exists()
    assert len(list((tmp_path / ".killed.partial" / "progress").glob("*-*.json"))) == 2
    capsys.readouterr()
    main([*QUICK, "--out", str(tmp_path / "other")])  # another evaluation beside it names the unfinished one
    assert f"note: {tmp_path / '.killed.partial'} is an unfinished evaluation: continue it with --resume {out}" in (
        capsys.readouterr().out
    )
    played: list[int] = []
    monkeypatch.setattr(Partial, "save", lambda self, pairing, rows, elapsed_s: played.append(pairing))
    main(["--resume", str(out), "--no-progress", "--workers", "1"])
    assert f"resuming {out}: 8 games already played" in capsys.readouterr().out
    assert len(played) == 1  # only the unit not finished
    same_folder(out, tmp_path / "whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killed", "other", "whole"]


def test_an_existing_results_folder_is_replaced_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    main([*QUICK, "--out", str(out)])
    before = (out / "games.csv").read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([*QUICK, "--seed", "50", "--out", str(out)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "exists already" in err, err
    assert (out / "games.csv").read_bytes() == before
    main([*QUICK, "--seed", "50", "--out", str(out), "--overwrite"])
    assert json.loads((out / "summary.json").read_text())["config"]["seed"] == 50
    assert [p.name for p in tmp_path.iterdir()] == ["eval"]  # the old folder is gone, nothing is left aside


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--resume", "nowhere"], "no unfinished evaluation into this folder"),
        (["--resume", "{out}"], "this evaluation is finished; nothing to resume"),
    ],
)
def test_what_cannot_resume_is_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    main(["--agents", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([a.format(out=out) for a in argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_small_evaluations_played_game_by_game_spread_over_units() -> None:
    """A unit is 1 to 25 deck seeds, at least 16 units a pairing where it has the seeds: a 20-game evaluation of
    a searching agent keeps two workers busy and its progress moves game pair by game pair."""
    options = GAME.options()
    for seeds, sizes in ((10, [1] * 10), (100, [6] * 16 + [4]), (1000, [25] * 40)):
        jobs = plan_jobs([("random", "greedy")], seeds, 0, options, SEATS, batched=False)
        assert [job.n_seeds for job in jobs] == sizes
        assert [job.first_seed for job in jobs] == list(itertools.accumulate([0, *sizes[:-1]]))
    assert [job.n_seeds for job in plan_jobs([("random", "greedy")], 10, 0, options, SEATS)] == [10]  # batched
