"""`experiments.combine`: evaluations played in pieces count as the one evaluation they split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.combine import main as combine
from experiments.evaluate import main as evaluate

QUIET = ["--no-progress", "--workers", "1"]


def _files(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text() for name in ("pairings.csv", "games.csv", "games.jsonl")}


def test_pieces_over_consecutive_seeds_make_the_whole_evaluation(tmp_path: Path) -> None:
    """Seeds 0..2 then 3..4 (one piece naming the agents the other way round, and a pairing of its own) give
    the files of one evaluation over seeds 0..4, game for game, and its report."""
    evaluate(["--agents", "random", "greedy", "--games", "6", "--seed", "0", "--out", str(tmp_path / "a"), *QUIET])
    evaluate(["--agents", "greedy", "random", "heuristic", "--games", "4", "--seed", "3",
              "--out", str(tmp_path / "b"), *QUIET])  # fmt: skip
    whole = evaluate(["--agents", "random", "greedy", "--games", "10", "--seed", "0",
                      "--out", str(tmp_path / "whole"), *QUIET])  # fmt: skip
    results = combine(["--results", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c")])
    assert results["config"]["labels"] == ["random", "greedy", "heuristic"]
    assert results["pairings"][0] == whole["pairings"][0]  # random vs greedy: all ten games
    assert [p["games"] for p in results["pairings"]] == [10, 4, 4]
    combined, alone = _files(tmp_path / "c"), _files(tmp_path / "whole")
    for name in ("games.csv", "games.jsonl"):  # random vs greedy first, then the pairings with heuristic
        lines = alone[name].splitlines()
        assert combined[name].splitlines()[: len(lines)] == lines
    summary = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert summary["config"]["sources"] == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert {rung["a"] for rung in summary["ladder"]} == {"greedy", "heuristic"}


CASES = ["twice", "options", "not_results", "tampered", "out_exists", "one", "not_an_action", "other_game",
         "adjacency", "config", "nested"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_what_cannot_combine_is_one_line_and_writes_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluate(["--agents", "random", "greedy", "--games", "2", "--out", str(tmp_path / "a"), *QUIET])
    second = ["--agents", "greedy", "random", "--games", "2", "--seed", "0", "--out", str(tmp_path / "b"), *QUIET]
    if case == "options":
        second[6] = "7"
        second += ["--variant", "beginner"]
    evaluate(second)
    (tmp_path / "empty").mkdir()
    if case == "tampered":
        games = tmp_path / "a" / "games.csv"
        header, first, *rest = games.read_text().splitlines()
        row = first.split(",")
        row[header.split(",").index("winner")] = "nobody"
        games.write_text("\n".join([header, ",".join(row), *rest]) + "\n")
    jsonl, summary_path = tmp_path / "a" / "games.jsonl", tmp_path / "a" / "summary.json"
    lines, summary = jsonl.read_text().splitlines(), json.loads(summary_path.read_text())
    if case in ("not_an_action", "other_game"):  # every record is replayed before it counts
        record = json.loads(lines[1])
        record["record"]["actions"] = ["not-an-action"] if case == "not_an_action" else record["record"]["actions"][:-1]
        jsonl.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    if case in ("adjacency", "config"):  # the config is checked as a whole
        summary_path.write_text(json.dumps(summary | {"config": 5} if case == "config" else
                                           summary | {"config": summary["config"] | {"adjacency": 5}}))  # fmt: skip
    if case == "nested":
        summary_path.write_text("[" * 100_000 + "]" * 100_000)
    folders = {"not_results": ["a", "empty"], "one": ["a"]}.get(case, ["a", "b"])
    out = tmp_path / ("a" if case == "out_exists" else "c")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        combine(["--results", *(str(tmp_path / f) for f in folders), "--out", str(out)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1, err
    expected = {
        "twice": "b: its game of greedy vs random on deck seed 0 with greedy as blue is counted already",
        "options": "only games under the same options combine",
        "not_results": "not a readable results folder",
        "tampered": f"{tmp_path / 'a' / 'games.csv'}:2: winner: expected blue, red or draw, got 'nobody'",
        "not_an_action": f"{tmp_path / 'a' / 'games.jsonl'}:2: record.actions[0]:",
        "other_game": f"{tmp_path / 'a' / 'games.jsonl'}:2: record.actions: the game is not over at its last action",
        "adjacency": f"{tmp_path / 'a' / 'summary.json'}: config.adjacency:",
        "config": f"{tmp_path / 'a' / 'summary.json'}: config: expected a JSON object, got '5'",
        "nested": f"{tmp_path / 'a' / 'summary.json'}: (the text): not valid JSON (RecursionError",
        "out_exists": "exists already",
        "one": "needs at least two results folders",
    }[case]
    assert expected in err
    assert not (tmp_path / "c").exists()
