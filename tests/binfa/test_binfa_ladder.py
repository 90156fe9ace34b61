"""Bin'Fa's ladder keeps its games in a progress file: a killed ladder continues where it stopped and ends with the
uninterrupted ladder's result; the file is read as data, and another ladder's file is refused naming the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from suntzu_env.binfa import ladder as ladder_module
from suntzu_env.binfa.ladder import UNPLAYED
from suntzu_env.binfa.ladder import ladder
from suntzu_env.binfa.ladder import main

PAIRING = {"a": "greedy", "b": "random", "games": 12, "seed": 5, "max_turns": 30}


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder_module, "SHARE_GAMES", 4)  # 12 games, one worker: 4 shares of 3 (at least 4 a worker)


class Killed(Exception):
    pass


def test_killed_ladder_continues_from_its_progress_file(tmp_path: Path, small_shares, monkeypatch):
    whole = ladder(**PAIRING)
    progress = tmp_path / "ladder.json"
    real = ladder_module.play_share
    played: list[int] = []

    def killed_after_one_share(seeds, *rest):
        if played:
            raise Killed
        played.append(len(seeds))
        return real(seeds, *rest)

    monkeypatch.setattr(ladder_module, "play_share", killed_after_one_share)
    with pytest.raises(Killed):
        ladder(**PAIRING, progress=progress)
    kept = json.loads(progress.read_text())
    assert sum(w != UNPLAYED for w in kept["winners"]) == 3  # the first share, and only it

    def counted(seeds, *rest):
        played.append(len(seeds))
        return real(seeds, *rest)

    monkeypatch.setattr(ladder_module, "play_share", counted)
    assert ladder(**PAIRING, progress=progress) == whole
    assert played == [3, 3, 3, 3]  # the first share's 3 games when it was killed, then the 9 missing
    played.clear()
    assert ladder(**PAIRING, progress=progress) == whole and played == []  # a finished file plays nothing


def test_workers_keep_the_same_games(tmp_path: Path, small_shares):
    progress = tmp_path / "ladder.json"
    assert ladder(**PAIRING, workers=2, progress=progress) == ladder(**PAIRING)
    assert UNPLAYED not in json.loads(progress.read_text())["winners"]


def _crafted(tmp_path: Path, change) -> Path:
    progress = tmp_path / "ladder.json"
    ladder(**PAIRING, progress=progress)
    data = json.loads(progress.read_text())
    change(data)
    progress.write_text(json.dumps(data))
    return progress


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["what"].update(seed=6), "what.seed"),
        (lambda d: d["what"].update(games=True), "what.games"),
        (lambda d: d["what"].pop("max_turns"), "what: must name"),
        (lambda d: d.update(extra=1), "file: must be an object"),
        (lambda d: d["winners"].__setitem__(3, 2), "winners[3]"),  # no seat 2 in a 2-player game
        (lambda d: d["winners"].__setitem__(0, 1.0), "winners[0]"),
        (lambda d: d["decisions"].__setitem__(5, -7), "decisions[5]"),
        (lambda d: d["decisions"].pop(), "decisions: must be a list of 12"),
        (lambda d: d["decisions"].__setitem__(2, UNPLAYED), "decisions[2]"),  # a winner without its game
        (lambda d: d["decisions"].__setitem__(1, 0), "decisions[1]"),
    ],
)
def test_a_bad_progress_file_is_refused_naming_the_field(tmp_path: Path, change, field: str):
    progress = _crafted(tmp_path, change)
    before = progress.read_bytes()
    with pytest.raises(ValueError, match=re.escape(f"{progress}: {field}")):
        ladder(**PAIRING, progress=progress)
    assert progress.read_bytes() == before  # nothing changed


def test_the_command_continues_and_refuses_in_one_line(tmp_path: Path, capsys):
    progress = tmp_path / "ladder.json"
    flags = ["--a", "greedy", "--b", "random", "--games", "12", "--seed", "5", "--max-turns", "30"]
    assert main([*flags, "--progress", str(progress)]) == 0
    first = capsys.readouterr().out
    assert main([*flags, "--progress", str(progress)]) == 0
    assert capsys.readouterr().out.split(" (")[0] == first.split(" (")[0]
    assert main([*flags[:-2], "--max-turns", "31", "--progress", str(progress)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "what.max_turns" in err and "another --progress file" in err
    for text in ("{not json", "[" * 100_000 + "]" * 100_000):  # the second nested past Python's recursion limit
        progress.write_text(text)
        assert main([*flags, "--progress", str(progress)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "file: not JSON" in err
    assert main([*flags, "--progress", str(tmp_path / "missing" / "ladder.json")]) == 2
    assert "no folder" in capsys.readouterr().err


def test_progress_entries_are_the_games_played(tmp_path: Path):
    progress = tmp_path / "ladder.json"
    r = ladder(**PAIRING, progress=progress)
    kept = json.loads(progress.read_text())
    winners = np.array(kept["winners"])
    a_seat = np.arange(12) % 2
    assert int((winners == a_seat).sum()) == r["wins"] and sum(kept["decisions"]) == r["decisions"]
