"""Evaluations of a game of more than two seats (Bin'Fa with 3 or 4 players): one agent in one seat against copies
of another in the others, each deck seed played with it in every seat; its win rate beside the even share 1/n;
results folders that combine."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from experiments.combine import main as combine
from experiments.evaluate import main as evaluate
from experiments.matches import play_games
from experiments.reports import heatmap_figure
from experiments.stats import summarize

SHORT = ["--game", "binfa", "--max-turns", "30", "--no-progress"]  # games of a few hundred decisions
SEATS_4 = ("player_0", "player_1", "player_2", "player_3")


def _games(folder: Path) -> list[dict[str, str]]:
    with (folder / "games.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_three_seats_play_each_seed_with_a_in_every_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """12 games of 3 seats: deck seeds 0..3, each with heuristic in each seat and greedy in the other two; the
    counts per seat add up, the score counts an undecided game 1/3, and the report shows the wins beside 1/3."""
    out = tmp_path / "e3"
    results = evaluate([*SHORT, "--players", "3", "--agents", "heuristic", "greedy", "--games", "12", "--out",
                        str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    (p,) = results["pairings"]
    assert (p["a"], p["b"], p["games"], p["first_seed"], p["last_seed"]) == ("heuristic", "greedy", 12, 0, 3)
    assert p["wins"] + p["draws"] + p["losses"] == 12
    for seat in ("player_0", "player_1", "player_2"):
        assert p[f"{seat}_wins"] + p[f"{seat}_draws"] + p[f"{seat}_losses"] == 4
    assert p["win_rate"] == pytest.approx((p["wins"] + p["draws"] / 3) / 12)
    assert p["even_share"] == pytest.approx(1 / 3) and p["draw_rate"] == pytest.approx(p["draws"] / 12)
    assert p["ci_low"] <= p["win_rate"] <= p["ci_high"]
    assert results["ratings"] == {} and results["ladder"] == []  # both compare two seats
    assert results["config"]["game_seeds"] == [0, 3] and results["config"]["players"] == 3
    rows = _games(out)
    assert len(rows) == 12 and list(rows[0])[:5] == ["pairing", "seed", "player_0", "player_1", "player_2"]
    for seed in range(4):
        these = [r for r in rows if r["seed"] == str(seed)]
        a_seats = [next(s for s in ("player_0", "player_1", "player_2") if r[s] == "heuristic") for r in these]
        assert a_seats == ["player_0", "player_1", "player_2"]  # once in each seat, in seat order
        assert all(sorted(r[s] for s in ("player_0", "player_1", "player_2")) == ["greedy", "greedy", "heuristic"]
                   for r in these)  # fmt: skip
    assert "3 seats" in printed and "heuristic vs 2 greedy" in printed
    assert "beside 33.3% (1/3" in printed and "undecided" in printed
    assert p["outright_win_rate"] == p["wins"] / 12 and results["headline"] == "outright_win_rate"
    assert "games won outright beside 33.3% (1/3" in printed and "score (undecided = 1/3)" in printed
    assert "ratings" not in printed and "ladder" not in printed
    assert len((out / "games.jsonl").read_text().splitlines()) == 12 and (out / "heatmap.png").is_file()
    fig = heatmap_figure(results)  # its title, the longest of any game's, stands whole inside the picture
    fig.canvas.draw()
    box = fig.axes[0].title.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height


def test_four_seats_batched_and_one_at_a_time_play_the_same_games() -> None:
    """With 4 seats the batched environment plays the games played one at a time (each copy of b seeded by its
    seat), and the rows hold a's result: +1 when its seat wins."""
    options = {"players": 4, "max_turns": 30}
    (batched,) = play_games([("greedy", "random")], 8, 5, options, game="binfa")
    (alone,) = play_games([("greedy", "random")], 8, 5, options, batched=False, game="binfa")
    keys = ("seed", "a_seat", "result", "winner", "score", "decisions", "record")
    assert [{k: r[k] for k in keys} for r in batched] == [{k: r[k] for k in keys} for r in alone]
    assert [(r["seed"], r["a_seat"]) for r in batched] == [(s, seat) for s in (5, 6) for seat in SEATS_4]
    for r in batched:
        assert r["result"] == (0 if r["winner"] == "draw" else 1 if r["winner"] == r["a_seat"] else -1)
    summary = summarize(batched, SEATS_4)
    assert summary["even_share"] == 0.25 and "pairs_split" not in summary
    assert summary["win_rate"] == pytest.approx((summary["wins"] + summary["draws"] / 4) / 8)


@pytest.mark.parametrize("games", ["10", "2", "0"])
def test_games_not_a_multiple_of_the_seats_is_one_line(
    games: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        evaluate([*SHORT, "--players", "4", "--agents", "greedy", "random", "--games", games, "--out",
                  str(tmp_path / "e")])  # fmt: skip
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert f"games must be a multiple of 4 (each deck seed is played once with the first agent in each of the 4 " \
           f"seats), got {games}" in err  # fmt: skip
    assert err.endswith({"10": " (8 or 12 would do)\n", "2": " (4 would do)\n", "0": " (4 would do)\n"}[games])
    assert not (tmp_path / "e").exists()


def test_pieces_of_four_seats_combine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two pieces over consecutive deck seeds are the games of one evaluation over both; a pairing the other way
    round (random against 3 greedy) is another pairing, not the same games seen from b."""
    a, b, c, whole = (tmp_path / name for name in ("a", "b", "c", "whole"))
    evaluate([*SHORT, "--players", "4", "--agents", "greedy", "random", "--games", "8", "--out", str(a)])
    evaluate([*SHORT, "--players", "4", "--agents", "greedy", "random", "--games", "8", "--seed", "2", "--out",
              str(b)])  # fmt: skip
    evaluate([*SHORT, "--players", "4", "--agents", "greedy", "random", "--games", "16", "--out", str(whole)])
    evaluate([*SHORT, "--players", "4", "--agents", "random", "greedy", "--games", "4", "--out", str(c)])
    capsys.readouterr()
    combined = combine(["--results", str(a), str(b), str(c), "--out", str(tmp_path / "ab")])
    printed = capsys.readouterr().out
    expected = json.loads((whole / "summary.json").read_text())["pairings"][0]
    first, second = combined["pairings"]
    assert {k: v for k, v in first.items()} == expected
    assert (second["a"], second["b"], second["games"]) == ("random", "greedy", 4)
    assert combined["config"]["game_seeds"] == [0, 3] and combined["ratings"] == {} and combined["ladder"] == []
    assert _games(tmp_path / "ab")[:16] == _games(whole)
    assert "greedy vs 3 random" in printed and "random vs 3 greedy" in printed and "beside 25.0%" in printed
    assert combined["headline"] == "outright_win_rate" and "score (undecided = 1/4)" in printed
    with pytest.raises(SystemExit):  # a game counted twice
        combine(["--results", str(a), str(whole), "--out", str(tmp_path / "twice")])
    assert "is counted already" in capsys.readouterr().err
