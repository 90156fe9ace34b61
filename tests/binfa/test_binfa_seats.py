"""Bin'Fa with 3 to 6 players in the experiments: its seats follow the `players` option, `play_batched` seats a in
one seat and copies of b in the others, and a run trains with the learner in a rotating seat (smoke run, resumed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from experiments import train
from experiments.config import SMOKE_VARIABLE
from experiments.runs import read_eval
from suntzu_env.binfa.plugin import BINFA
from suntzu_env.core.protocol import ask


@pytest.mark.parametrize("players", [3, 6])
def test_the_seats_follow_the_players_option(players: int) -> None:
    """+1 to the winner, -1 to every other seat (all out, B13), 0 to all when undecided (BD5); every seat observes
    from its point of view (BD12)."""
    options = BINFA.options(players=players, max_turns=20)
    seats = BINFA.seats_of(options)
    assert seats == tuple(f"player_{p}" for p in range(players))
    assert "players" in BINFA.describe_options(BINFA.option_fields(options))
    game = BINFA.new(4, options)
    agents = {seat: BINFA.make_agent("random", k) for k, seat in enumerate(seats)}
    while (seat := game.current_player) is not None:
        assert seat in seats
        game.apply(ask(agents[seat], game, seat))
    returns = game.returns()
    assert set(returns) == set(seats) and all(game.observation(s).shape == (BINFA.observation_size,) for s in seats)
    assert all(returns[s] == (0.0 if game.winner == "draw" else 1.0 if s == game.winner else -1.0) for s in seats)
    if game.winner != "draw":
        assert {seats[p] for p in game.game.eliminated()} == set(seats) - {game.winner}
    assert game.score == int(returns["player_0"])
    assert BINFA.replay(game.record()).record() == game.record()


def test_play_batched_seats_copies_of_b_in_the_other_seats() -> None:
    """A game `(seed, a's seat, a's seed, b's seeds in seat order)` plays as the agents asked move by move."""
    options = BINFA.options(players=3, max_turns=30)
    plan = [(7, "player_1", 11, 12, 13), (8, "player_2", 21, 22, 23)]
    batched = BINFA.play_batched("greedy", "random", plan, options)
    for (seed, a_seat, a_seed, *b_seeds), out in zip(plan, batched, strict=True):
        others = iter(b_seeds)
        players = {s: BINFA.make_agent("greedy", a_seed) if s == a_seat else BINFA.make_agent("random", next(others))
                   for s in BINFA.seats_of(options)}  # fmt: skip
        game = BINFA.new(seed, options)
        while (seat := game.current_player) is not None:
            game.apply(ask(players[seat], game, seat))
        assert (out["winner"], out["score"], out["record"]) == (game.winner, game.score, game.record())
    with pytest.raises(ValueError, match="b's for each of the other 2 seats, got 1"):
        BINFA.play_batched("greedy", "random", [(7, "player_1", 11, 12)], options)


def test_a_smoke_run_of_three_players_trains_evaluates_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SUNTZU_TRAIN_SMOKE=1 with --players 3: the learner in a rotating seat against the mix; its evaluations play
    the policy in each of the 3 seats (2 and 4 games asked: 3 and 6 played); a resume trains it on."""
    monkeypatch.setenv(SMOKE_VARIABLE, "1")
    common = ["--no-progress-bar"]
    summary = train.main(["--game", "binfa", "--players", "3", "--max-turns", "30", "--runs-dir",
                          str(tmp_path / "runs"), *common])  # fmt: skip
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("binfa-level1-3p-turns30__smoke__0__")
    assert json.loads((run / "config.json").read_text())["players"] == 3
    assert summary["timesteps"] == 512 and set(summary["final_eval"]) == {"random", "greedy", "heuristic"}
    rows = read_eval(run)
    assert {r["games"] for r in rows if not r["final"]} == {3} and {r["games"] for r in rows if r["final"]} == {6}
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] for r in rows)
    capsys.readouterr()
    summary = train.main(["--resume", str(run), "--total-timesteps", "768", *common])
    assert f"resuming from {run}" in capsys.readouterr().out
    assert summary["timesteps"] == 768 and json.loads((run / "config.json").read_text())["players"] == 3
    assert [r["timesteps"] for r in read_eval(run) if r["final"]] == [768, 768, 768]
