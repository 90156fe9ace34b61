"""Won, undecided and lost: where a game without a winner is undecided (Bin'Fa, `GameRules.no_winner`), every
result leads with the outright win rate (won / games) and its Wilson 95% interval, the score counting undecided
games half (1/n) beside it; where it is a draw (Sun Tzu) the tables are as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from experiments.evaluate import main as evaluate
from experiments.reports import report
from experiments.round_robin import rated
from experiments.stats import bradley_terry
from experiments.stats import headline
from experiments.stats import headline_field
from experiments.stats import oriented
from experiments.stats import summarize
from suntzu_env.core import games

BINFA = games.game("binfa")
SUNTZU = games.game("suntzu")
TWO = ("player_0", "player_1")


def _rows(won: int, undecided: int, lost: int, seats: tuple[str, ...] = TWO) -> list[dict[str, Any]]:
    """Rows of agent a's games: `won` won, `undecided` without a winner, `lost` lost, a's seat taking turns."""
    results = [1] * won + [0] * undecided + [-1] * lost
    return [{"seed": i // len(seats), "a_seat": seats[i % len(seats)], "result": r} for i, r in enumerate(results)]


def _results(rules: Any, pairings: list[dict[str, Any]], options: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a round robin returns (but the games) for `pairings` already summarized, under the default options."""
    fields = rules.option_fields(rules.options(options))
    labels = list(dict.fromkeys(name for p in pairings for name in (p["a"], p["b"])))
    seats = len(rules.seats_of(rules.options(options)))
    ratings, rungs = rated(labels, pairings, seats, rules)
    config = {"agents": labels, "labels": labels, "games_per_pairing": pairings[0]["games"], "seed": 0,
              "game_seeds": [0, pairings[0]["games"] // seats - 1], "game": rules.name, **fields}  # fmt: skip
    return {"config": config, "pairings": pairings, "ratings": ratings, "ladder": rungs, "seconds": 1.0,
            "games_per_second": 10.0}  # fmt: skip


def test_three_won_five_undecided_two_lost_is_30_percent_outright() -> None:
    """Worked out by hand: 3 of 10 is 30%, Wilson 95% [10.8%, 60.3%]; the score counting undecided half is 55%."""
    p = summarize(_rows(3, 5, 2), TWO)
    assert (p["wins"], p["draws"], p["losses"]) == (3, 5, 2) and p["wins"] + p["draws"] + p["losses"] == p["games"]
    assert p["outright_win_rate"] == 0.3
    assert (round(100 * p["outright_ci_low"], 1), round(100 * p["outright_ci_high"], 1)) == (10.8, 60.3)
    assert p["win_rate"] == 0.55  # the score (undecided = 1/2) stays
    assert headline(p, BINFA) == (0.3, p["outright_ci_low"], p["outright_ci_high"])
    assert headline(p, SUNTZU) == (0.55, p["ci_low"], p["ci_high"])  # a draw of Sun Tzu is a tie: half a win
    assert (p["player_0_outright_win_rate"], p["player_1_outright_win_rate"]) == (0.4, 0.2)  # 2 of 5, 1 of 5
    assert (headline_field(BINFA), headline_field(SUNTZU)) == ("outright_win_rate", "win_rate")


def test_the_other_way_round_wins_what_a_lost() -> None:
    p = dict(a="x", b="y", **summarize(_rows(3, 5, 2), TWO))
    flipped = oriented([p], "y", "x")
    assert flipped is not None and (flipped["wins"], flipped["losses"]) == (2, 3)
    assert flipped["outright_win_rate"] == 0.2 and flipped["win_rate"] == pytest.approx(0.45)
    assert round(100 * flipped["outright_ci_low"], 1) == 5.7 and round(100 * flipped["outright_ci_high"], 1) == 51.0


def test_binfa_report_leads_with_won_undecided_lost_and_the_outright_rate() -> None:
    pairings = [{"a": "heuristic", "b": "greedy", **summarize(_rows(3, 5, 2), TWO)}]
    printed = report(_results(BINFA, pairings))
    header = next(line for line in printed.splitlines() if line.startswith("pairing"))
    assert header.split()[1:7] == ["won", "undecided", "lost", "outright", "95%", "CI"]
    assert "score (undecided = ½)" in header
    row = next(line for line in printed.splitlines() if line.startswith("heuristic vs greedy"))
    assert row.split()[3:11] == ["3", "5", "2", "30.0%", "[", "10.8,", "60.3]", "55.0%"]
    assert "ladder: heuristic over greedy: 3 won, 5 undecided, 2 lost of 10; outright 30.0% [10.8, 60.3]; " \
           "score (undecided = ½) 55.0% [" in printed  # fmt: skip
    assert "against the bar 65%: FAIL" in printed  # the bar is on the score
    assert "fitted to the decided games, undecided ones left out" in printed and "heuristic = 0" in printed


def test_suntzu_report_is_as_it_was() -> None:
    """Sun Tzu's draws are ties: W D L, the win rate counting them half, its interval, as before."""
    pairings = [{"a": "heuristic", "b": "greedy", **summarize(_rows(3, 5, 2, SUNTZU.seats), SUNTZU.seats)}]
    printed = report(_results(SUNTZU, pairings))
    assert "pairing                          W    D     L  win rate  95% CI           as blue  as red" in printed
    row = next(line for line in printed.splitlines() if line.startswith("heuristic vs greedy"))
    assert row.split()[3:10] == ["3", "5", "2", "55.0%", "[", "27.4,", "79.9]"]  # Wilson of 5.5 in 10
    assert "outright" not in printed and "undecided" not in printed
    assert "ladder: heuristic beats greedy 55.0% [27.4, 79.9] over 10 games (bar 60%): FAIL" in printed
    assert "ratings (Bradley-Terry, Elo scale, heuristic = 0)" in printed


def test_three_seats_report_the_outright_wins_beside_one_third() -> None:
    """9 games of 3 seats: 3 won, 4 undecided, 2 lost is 33.3% outright beside the seat's share 33.3%; the score
    counts each undecided game 1/3."""
    seats = ("player_0", "player_1", "player_2")
    p = summarize(_rows(3, 4, 2, seats), seats)
    assert p["outright_win_rate"] == pytest.approx(1 / 3) and p["win_rate"] == pytest.approx((3 + 4 / 3) / 9)
    printed = report(_results(BINFA, [{"a": "heuristic", "b": "greedy", **p}], {"players": 3}))
    assert "games won outright beside 33.3% (1/3: a seat's share" in printed
    header = next(line for line in printed.splitlines() if line.startswith("pairing"))
    assert header.split()[1:8] == ["won", "undecided", "lost", "outright", "95%", "CI", "1/3"]
    assert "score (undecided = 1/3)" in header
    row = next(line for line in printed.splitlines() if line.startswith("heuristic vs 2 greedy"))
    low, high = (round(100 * p[k], 1) for k in ("outright_ci_low", "outright_ci_high"))
    assert row.split()[4:13] == ["3", "4", "2", "33.3%", "[", f"{low},", f"{high}]", "33.3%", "48.1%"]


def test_ratings_fit_decided_games_where_undecided_and_anchor_heuristic() -> None:
    """141 won, 849 undecided, 10 lost: fitted to the decided games (and the one virtual game, half each way), a
    is 400 log10(141.5 / 10.5) = +452 above b; counting the undecided half, 400 log10(566 / 435) = +46."""
    pairing = [{"a": "ppo", "b": "greedy", "wins": 141, "draws": 849, "losses": 10}]
    decided = bradley_terry(["ppo", "greedy"], pairing, game=BINFA)
    halves = bradley_terry(["ppo", "greedy"], pairing, game=SUNTZU)
    assert decided["ppo"] - decided["greedy"] == pytest.approx(451.8, abs=0.1)
    assert halves["ppo"] - halves["greedy"] == pytest.approx(45.7, abs=0.1)
    three = [*pairing, {"a": "heuristic", "b": "greedy", "wins": 60, "draws": 30, "losses": 10}]
    assert bradley_terry(["ppo", "greedy", "heuristic"], three, game=BINFA)["heuristic"] == 0.0
    assert sum(decided.values()) == pytest.approx(0.0, abs=1e-9)  # no heuristic: mean 0


def test_a_binfa_evaluation_writes_and_prints_outright_wins(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """summary.json's pairings keep every field they had and add the outright ones; `headline` names the field
    the report leads with; the report says how to replay the games."""
    out = tmp_path / "e"
    results = evaluate(["--game", "binfa", "--max-turns", "30", "--no-progress", "--agents", "greedy", "random",
                        "--games", "6", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    (p,) = summary["pairings"]
    assert summary["headline"] == "outright_win_rate" == results["headline"]
    assert {"wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "player_0_win_rate"} <= set(p)
    assert p["wins"] + p["draws"] + p["losses"] == p["games"] == 6
    assert p["outright_win_rate"] == p["wins"] / 6 and p["outright_ci_low"] <= p["outright_win_rate"]
    assert p["win_rate"] == pytest.approx((p["wins"] + p["draws"] / 2) / 6)
    header = (out / "pairings.csv").read_text().splitlines()[0].split(",")
    assert {"wins", "draws", "losses", "outright_win_rate", "outright_ci_low", "outright_ci_high"} <= set(header)
    assert f"{p['wins']:>5} {p['draws']:>9} {p['losses']:>5}  {100 * p['outright_win_rate']:>7.1f}%" in printed
    assert f"replay its games: python -m suntzu_env.play --results {out}" in printed
