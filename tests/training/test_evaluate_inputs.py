"""What `experiments.evaluate` reads back is data: an unfinished evaluation's files are checked as the games of a
results folder are, a bad one is one line naming the file and the field and changes nothing, and a start that is
refused leaves nothing behind. The command's `main` runs in the test's process; a refused start runs the real
command line (`python -m experiments.evaluate`)."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from experiments.evaluate import main
from experiments.evaluate import plan_jobs
from experiments.matches import BadGame
from experiments.matches import check_unit
from experiments.partial import Partial
from experiments.stats import summarize
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env.core import games

from conftest import exit_of

GAME = games.game("suntzu")
SEATS = GAME.seats
AGENTS = ["random", "greedy", "heuristic"]
QUICK = ["--agents", *AGENTS, "--games", "2", "--seed", "5", "--workers", "1", "--no-progress"]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `folder`: what a refused command must leave as it was."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def refused(*args: str, command_line: bool = False) -> str:
    """The one line `python -m experiments.evaluate ARGS` refuses with (exit status 2, no traceback): the command's
    `main` in this process, or with `command_line` the real command line."""
    status, err = exit_of("experiments.evaluate", *args, command_line=command_line, timeout=120)
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("python -m experiments.evaluate: error: "), err
    return err


@pytest.fixture(scope="module")
def unfinished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An evaluation killed after two of its three units: `<tmp>/.eval.partial/progress/{config,0-5,1-5}.json`."""
    folder = tmp_path_factory.mktemp("unfinished")
    keep, saved = Partial.save, []

    def save_then_stop(self: Partial, pairing: int, rows: list, elapsed_s: float) -> None:
        keep(self, pairing, rows, elapsed_s)
        saved.append(pairing)
        if len(saved) == 2:
            raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Partial, "save", save_then_stop)
        with pytest.raises(SystemExit):
            main([*QUICK, "--out", str(folder / "eval")])
    progress = folder / ".eval.partial" / "progress"
    assert sorted(p.name for p in progress.iterdir()) == ["0-5.json", "1-5.json", "config.json"]
    return folder


def _copy(unfinished: Path, tmp_path: Path) -> Path:
    shutil.copytree(unfinished / ".eval.partial", tmp_path / ".eval.partial")
    return tmp_path / ".eval.partial" / "progress"


def resume_refused_unchanged(tmp_path: Path) -> str:
    """The one line `--resume` of the copied evaluation is refused with; nothing under `tmp_path` changed."""
    before = tree(tmp_path)
    err = refused("--resume", str(tmp_path / "eval"))
    assert tree(tmp_path) == before
    return err


def refused_after_editing(
    unfinished: Path, tmp_path: Path, name: str, change: Callable[[Any], Any]
) -> tuple[Path, str]:
    """The unfinished evaluation copied under `tmp_path`, its progress file `name` (JSON) changed by `change`: that
    file, and the one line its `--resume` is refused with (nothing changed)."""
    path = _copy(unfinished, tmp_path) / name
    path.write_text(json.dumps(change(json.loads(path.read_text()))))
    return path, resume_refused_unchanged(tmp_path)


def _rows(change: Callable[[list[dict[str, Any]]], Any]) -> Callable[[dict[str, Any]], Any]:
    def unit(value: dict[str, Any]) -> Any:
        change(value["rows"])
        return value

    return unit


UNIT_CASES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "seed_text": (_rows(lambda rows: rows[0].update(seed="x")), "rows[0].seed"),
    "nobody_won": (_rows(lambda rows: rows[1].update(winner="nobody", result=5)), "rows[1].winner"),
    "result": (_rows(lambda rows: rows[1].update(result=5)), "rows[1].result"),
    "result_flipped": (_rows(lambda rows: rows[0].update(result=-rows[0]["result"] or 1)), "rows[0].result"),
    "result_bool": (_rows(lambda rows: rows[0].update(result=rows[0]["result"] == 1)), "rows[0].result"),
    "winner_and_result": (_rows(lambda rows: rows[0].update(winner="draw", result=0)), "rows[0].record: replays"),
    "score": (_rows(lambda rows: rows[0].update(score=rows[0]["score"] + 1)), "rows[0].record"),
    "score_huge": (_rows(lambda rows: rows[0].update(score=10**300)), "rows[0].record"),
    "decisions": (_rows(lambda rows: rows[0].update(decisions=-1)), "rows[0].decisions"),
    "pairing": (_rows(lambda rows: rows[0].update(pairing=2)), "rows[0].pairing"),
    "seat": (_rows(lambda rows: rows[0].update(a_seat="green")), "rows[0].a_seat"),
    "seed_other": (_rows(lambda rows: rows[0].update(seed=6)), "rows[0].seed"),
    "missing": (_rows(lambda rows: rows[0].pop("a_seat")), "rows[0].a_seat: missing"),
    "extra": (_rows(lambda rows: rows[0].update(bonus=1)), "rows[0].bonus"),
    "record_cut": (
        _rows(lambda rows: rows[0]["record"].update(actions=rows[0]["record"]["actions"][:-1])),
        "rows[0].record.actions",
    ),
    "record_action": (
        _rows(lambda rows: rows[0]["record"]["actions"].__setitem__(0, "nonsense")),
        "rows[0].record.actions[0]",
    ),
    "record_rules": (
        _rows(lambda rows: rows[0]["record"].update(rules={"variant": "beginner"})),
        "rows[0].record.rules",
    ),
    "record_gone": (_rows(lambda rows: rows[0].update(record=None)), "rows[0].record"),
    "one_row": (_rows(lambda rows: rows.pop()), "rows: expected the 2 games"),
    "row_twice": (_rows(lambda rows: rows.__setitem__(1, rows[0])), "rows[1]"),
    "rows": (lambda unit: unit | {"rows": "x"}, "rows: expected"),
    "elapsed": (lambda unit: unit | {"elapsed_s": "x"}, "elapsed_s"),
    "elapsed_negative": (lambda unit: unit | {"elapsed_s": -1}, "elapsed_s"),
    "elapsed_infinite": (lambda unit: unit | {"elapsed_s": float("inf")}, "elapsed_s"),
    "not_an_object": (lambda unit: [unit], "(the file): expected a JSON object"),
}


@pytest.mark.parametrize("case", UNIT_CASES)
def test_a_bad_unit_file_is_one_line_and_changes_nothing(case: str, unfinished: Path, tmp_path: Path) -> None:
    """Each field of a finished unit's rows is checked (type, range, the record it carries replayed to the row)."""
    change, field = UNIT_CASES[case]
    path, err = refused_after_editing(unfinished, tmp_path, "0-5.json", change)
    assert f"{path}: {field}" in err


TEXT_CASES: dict[str, tuple[str, bytes, str]] = {
    "not_json": ("0-5.json", b'{"rows": [', "(the text): not valid JSON"),
    "not_utf8": ("0-5.json", b'{"rows": "\xff\xfe"}', "(the text): not UTF-8 text"),
    "huge_number": ("0-5.json", b'{"elapsed_s": 1' + b"0" * 5000 + b"}", "(the text): not valid JSON"),
    "nested": ("0-5.json", b"[" * 100_000 + b"]" * 100_000, "(the text): not valid JSON"),
    "not_a_unit": ("7-5.json", b"{}", "(the file): not a unit of this evaluation"),
    "not_a_unit_name": ("x-5.json", b"{}", "(the file): not a unit of this evaluation"),
    "other_first_seed": ("0-6.json", b"{}", "(the file): not a unit of this evaluation"),
}


@pytest.mark.parametrize("case", TEXT_CASES)
def test_an_unreadable_unit_file_is_one_line_and_changes_nothing(case: str, unfinished: Path, tmp_path: Path) -> None:
    progress = _copy(unfinished, tmp_path)
    name, text, field = TEXT_CASES[case]
    (progress / name).write_bytes(text)
    err = resume_refused_unchanged(tmp_path)
    assert f"{progress / name}: {field}" in err


CONFIG_CASES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "agents": (lambda c: c | {"agents": [5, "random"]}, "agents"),
    "agents_text": (lambda c: c | {"agents": "random"}, "agents"),
    "games_huge": (lambda c: c | {"games": 10**15}, "games"),
    "games_text": (lambda c: c | {"games": "2"}, "games"),
    "seed": (lambda c: c | {"seed": "x"}, "seed"),
    "seed_float": (lambda c: c | {"seed": 5.5}, "seed"),
    "game": (lambda c: c | {"game": ["suntzu"]}, "game"),
    "variant": (lambda c: c | {"variant": 5}, "variant"),
    "overwrite": (lambda c: c | {"overwrite": "yes"}, "overwrite"),
    "missing": (lambda c: {k: v for k, v in c.items() if k != "agents"}, "agents"),
    "not_an_object": (lambda c: [c], "expected a JSON object"),
}


@pytest.mark.parametrize("case", CONFIG_CASES)
def test_a_bad_saved_config_is_one_line_and_changes_nothing(case: str, unfinished: Path, tmp_path: Path) -> None:
    change, field = CONFIG_CASES[case]
    path, err = refused_after_editing(unfinished, tmp_path, "config.json", change)
    assert str(path) in err and field in err


@pytest.mark.parametrize("text", [b"\xff\xfe{}", b'{"seed": 1' + b"0" * 5000 + b"}"])
def test_an_unreadable_saved_config_is_one_line(text: bytes, unfinished: Path, tmp_path: Path) -> None:
    progress = _copy(unfinished, tmp_path)
    (progress / "config.json").write_bytes(text)
    assert str(progress / "config.json") in resume_refused_unchanged(tmp_path)


@pytest.mark.parametrize("agent", ["ismcts-value:{bad}", "ismcts-value:{missing}", "ppo:{bad}"])
def test_a_refused_start_leaves_nothing_behind(agent: str, tmp_path: Path) -> None:
    """A bad model is refused before anything is made: no results folder, no unfinished evaluation, no parent."""
    (tmp_path / "bad.pt").write_bytes(b"not a network")
    spec = agent.format(bad=tmp_path / "bad.pt", missing=tmp_path / "missing.pt")
    before = tree(tmp_path)
    err = refused("--agents", spec, "heuristic", "--games", "2", "--workers", "1", "--no-progress",
                  "--out", str(tmp_path / "results" / "eval"), command_line=True)  # fmt: skip
    assert "bad.pt" in err or "missing.pt" in err
    assert tree(tmp_path) == before


def test_an_evaluation_failing_before_its_first_unit_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever stops a new evaluation before it has finished a unit, there is nothing to resume: no folder stays."""
    import experiments.evaluate as evaluate

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise evaluate.UserError("the game cannot be played here")

    monkeypatch.setattr(evaluate, "round_robin", broken)
    with pytest.raises(SystemExit):
        main([*QUICK, "--out", str(tmp_path / "results" / "eval")])
    assert list(tmp_path.iterdir()) == []


# -------------------------------------------------------------------- the rows of a unit, mutated


@pytest.fixture(scope="module")
def a_unit(unfinished: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The job of pairing 0 and the rows its unit file holds."""
    (job, *_) = plan_jobs([("random", "greedy")], 1, 5, GAME.options(), SEATS, game="suntzu")
    rows = json.loads((unfinished / ".eval.partial" / "progress" / "0-5.json").read_text())["rows"]
    return job, rows


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["blue", "red", "draw", 0, 1, -1, 5, 6]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip
FIELDS = ("pairing", "seed", "a_seat", "result", "winner", "score", "decisions", "record")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 1), st.sampled_from(FIELDS), JSON_VALUES)
def test_mutated_rows_are_refused_or_add_up(a_unit: tuple[Any, list], row: int, field: str, value: Any) -> None:
    """A field of a row set to any JSON value: the rows are refused, naming that row, or accepted as a unit whose
    counts add up to its games; the same rows are always judged alike."""
    job, rows = a_unit
    mutated = copy.deepcopy(rows)
    mutated[row][field] = value
    verdicts = []
    for _ in range(2):
        try:
            kept = check_unit(job, copy.deepcopy(mutated))
        except BadGame as bad:
            assert bad.field.startswith(f"rows[{row}]"), bad.field
            verdicts.append(("refused", str(bad)))
        else:
            summary = summarize(kept, SEATS)
            assert summary["wins"] + summary["draws"] + summary["losses"] == summary["games"] == len(rows)
            assert all(r["result"] in (-1, 0, 1) and r["winner"] in (*SEATS, "draw") for r in kept)
            verdicts.append(("accepted", json.dumps(kept)))
    assert verdicts[0] == verdicts[1]
    if verdicts[0][0] == "accepted":
        assert json.loads(verdicts[0][1]) == rows  # only a value equal to the original passes


def test_the_rows_as_saved_are_accepted(a_unit: tuple[Any, list]) -> None:
    job, rows = a_unit
    assert check_unit(job, copy.deepcopy(rows)) == rows
