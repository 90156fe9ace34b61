"""`experiments.combine`: evaluations played in pieces count as the one evaluation they split."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from experiments.cli import UserError
from experiments.combine import main as combine
from experiments.combine import read_results
from experiments.evaluate import main as evaluate
from experiments.stats import summarize
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from conftest import exit_of

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


# -------------------------------------------------------------------- every input read as data, on the command line


def _replace_line(path: Path, index: int, change: Callable[[str], str]) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[index] = change(lines[index].decode()).encode()
    path.write_bytes(b"\n".join(lines))


def _csv_field(name: str, value: str) -> Callable[[str], str]:
    header = ["pairing", "seed", "blue", "red", "winner", "score", "decisions"]
    return lambda line: ",".join(value if k == name else v for k, v in zip(header, line.split(","), strict=True))


FOLDER_CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "csv_not_utf8": (lambda a: (a / "games.csv").write_bytes((a / "games.csv").read_bytes() + b"\xff\xfe\n"),
                     "games.csv: (the text): not UTF-8 text"),
    "csv_latin1": (lambda a: (a / "games.csv").write_bytes((a / "games.csv").read_text().encode("utf-16")),
                   "games.csv: (the text): not UTF-8 text (byte 0)"),
    "summary_not_utf8": (lambda a: (a / "summary.json").write_bytes(b'{"config": "\xff"}'),
                         "summary.json: (the text): not UTF-8 text"),
    "jsonl_not_utf8": (lambda a: (a / "games.jsonl").write_bytes(b"\xc3\x28\n"), "games.jsonl: (the text): not UTF-8"),
    "csv_nul": (lambda a: _replace_line(a / "games.csv", 1, _csv_field("score", "1\x002")), "games.csv:2: score"),
    "csv_huge_field": (lambda a: _replace_line(a / "games.csv", 1, _csv_field("pairing", "x" * 200_000)),
                       "games.csv:2: (the text): not CSV"),
    "csv_short_row": (lambda a: _replace_line(a / "games.csv", 1, lambda line: line.split(",")[0]),
                      "games.csv:2: blue"),
    "csv_huge_seed": (lambda a: _replace_line(a / "games.csv", 1, _csv_field("seed", "9" * 5000)),
                      "games.csv:2: seed: expected a whole number"),
    "csv_big_seed": (lambda a: _replace_line(a / "games.csv", 1, _csv_field("seed", str(2**70))),
                     "games.jsonl:1: record.seed: 0, but games.csv says 1180591620717411303424"),
    "jsonl_huge_number": (lambda a: _replace_line(a / "games.jsonl", 0, lambda _: '{"record": 1' + "0" * 5000 + "}"),
                          "games.jsonl:1: (the text): not valid JSON"),
    "jsonl_not_object": (lambda a: _replace_line(a / "games.jsonl", 0, lambda _: "[1, 2]"),
                         'games.jsonl:1: record: expected an object {"record": {...}}'),
    "record_seed_text": (lambda a: _replace_line(a / "games.jsonl", 0, lambda line: line.replace('"seed": 0',
                                                                                                 '"seed": "0"')),
                         "games.jsonl:1: record.seed"),
    "seconds_huge": (lambda a: _edit_summary(a, lambda s: s | {"seconds": 1e308}), "summary.json: seconds: expected"),
    "seconds_text": (lambda a: _edit_summary(a, lambda s: s | {"seconds": "1"}), "summary.json: seconds: expected"),
    "missing_pairings": (lambda a: _edit_summary(a, lambda s: {k: v for k, v in s.items() if k != "pairings"}),
                         "summary.json: pairings: missing"),
    "pairings_object": (lambda a: _edit_summary(a, lambda s: s | {"pairings": {"a": "random"}}),
                        "summary.json: pairings: expected a list"),
    "pairing_side": (lambda a: _edit_summary(a, lambda s: s | {"pairings": [{"a": ["random"], "b": "greedy"}]}),
                     "summary.json: pairings[0].a: not one of config.labels"),
    "labels": (lambda a: _edit_summary(a, lambda s: s | {"config": s["config"] | {"labels": [1, 2]}}),
               "summary.json: config.labels"),
    "game_list": (lambda a: _edit_summary(a, lambda s: s | {"config": s["config"] | {"game": ["suntzu"]}}),
                  "summary.json: config.game"),
    "variant_missing": (lambda a: _edit_summary(a, lambda s: s | {"config": {k: v for k, v in s["config"].items()
                                                                             if k != "variant"}}),
                        "summary.json: config.variant: missing"),
}  # fmt: skip


def _edit_summary(folder: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    path = folder / "summary.json"
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two results folders that combine: `a` (random vs greedy, seed 0) and `b` (seed 1)."""
    folder = tmp_path_factory.mktemp("pieces")
    for name, seed in (("a", "0"), ("b", "1")):
        evaluate(["--agents", "random", "greedy", "--games", "2", "--seed", seed, "--out", str(folder / name), *QUIET])
    return folder


def tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("case", FOLDER_CASES)
def test_a_bad_input_file_is_one_line_on_the_command_line(case: str, two_folders: Path, tmp_path: Path) -> None:
    """`python -m experiments.combine` reads summary.json, games.csv and games.jsonl as data: text that is not
    UTF-8, not CSV or JSON, of the wrong type, missing or huge is one line naming the file and the field, and
    nothing is written."""
    for name in ("a", "b"):
        shutil.copytree(two_folders / name, tmp_path / name)
    change, expected = FOLDER_CASES[case]
    change(tmp_path / "a")
    before = tree(tmp_path)
    args = ["--results", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c")]
    on_the_command_line = case == next(iter(FOLDER_CASES))  # the real command line once, `main` in this process after
    status, err = exit_of("experiments.combine", *args, command_line=on_the_command_line, timeout=120)
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"python -m experiments.combine: error: --results {tmp_path / 'a'}: {tmp_path / 'a'}" in err
    assert expected in err, err
    assert tree(tmp_path) == before


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6)
    | st.sampled_from(["random", "greedy", "blue", "draw", "suntzu", "standard", 0, 1, 2]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["config", "pairings", "seconds", "record"]), st.data())
def test_any_mutated_summary_or_record_is_read_or_refused(two_folders: Path, part: str, data: st.DataObject) -> None:
    """A field of summary.json (or of a record) set to any JSON value: the folder is read, its games adding up, or
    refused with a UserError; nothing else escapes."""
    folder = two_folders / "a"
    summary = json.loads((folder / "summary.json").read_text())
    records = (folder / "games.jsonl").read_text().splitlines()
    if part == "record":
        record = json.loads(records[0])["record"]
        record[data.draw(st.sampled_from([*record, "extra"]))] = data.draw(JSON_VALUES)
        records[0] = json.dumps({"record": record})
    elif part == "config":
        summary["config"][data.draw(st.sampled_from([*summary["config"], "extra"]))] = data.draw(JSON_VALUES)
    elif part == "pairings":
        summary["pairings"][0][data.draw(st.sampled_from(["a", "b", "games"]))] = data.draw(JSON_VALUES)
    else:
        summary["seconds"] = data.draw(JSON_VALUES)
    with tempfile.TemporaryDirectory() as temporary:
        copy = Path(temporary) / "a"
        shutil.copytree(folder, copy)
        (copy / "summary.json").write_text(json.dumps(summary))
        (copy / "games.jsonl").write_text("\n".join(records) + "\n")
        try:
            _, pairings, _ = read_results(copy)
        except UserError as error:
            assert "\n" not in str(error)
        else:
            for _, _, rows in pairings:
                counts = summarize(rows, ("blue", "red"))
                assert counts["wins"] + counts["draws"] + counts["losses"] == counts["games"] == len(rows)
