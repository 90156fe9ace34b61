"""Bin'Fa in the terminal (`python -m suntzu_env.play --game binfa --text`): a whole game answered by number and
by action string, bad answers refused with the game unchanged, the seed kept until the end, the record saved and
replayed (B0.9), the turn limit (BD5)."""

from __future__ import annotations

import io
import json
import random
import sys
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.web.live import BinFaMenu
from suntzu_env.binfa.web.text import play_binfa_in_terminal
from suntzu_env.play.__main__ import main

SEED = 987_654_321  # long enough not to turn up in a board by chance


def _reader(answers: Iterator[str], asked: list[str]) -> Callable[[str], str]:
    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    return read


def _random_numbers(seed: int) -> Iterator[str]:
    """Answers as a person picking at random among the numbered legal answers (out of range ones are refused)."""
    rng = random.Random(seed)
    while True:
        yield str(rng.randint(1, 40))


def test_a_whole_game_is_played_by_number_and_its_record_saved(tmp_path: Path) -> None:
    lines: list[str] = []
    asked: list[str] = []
    save = tmp_path / "game.json"
    code = play_binfa_in_terminal("greedy", [1], seed=SEED, save=save,
                                  read=_reader(_random_numbers(0), asked), write=lines.append)  # fmt: skip
    assert code == 0
    text = "\n".join(lines)
    end = text.index("The game's seed was")
    assert str(SEED) not in text[:end]  # the seed throws every die to come (BD5's games included)
    assert f"The game's seed was {SEED}." in text
    assert "You win." in text or "Player 0 wins." in text or "Undecided after" in text
    record = json.loads(save.read_text())
    game = Game.replay(record)
    assert game.is_terminal and record["seed"] == SEED
    answered = [line for line in lines if line.startswith("  player 1: ")]
    assert len(answered) >= len(asked) - sum("no choice" in line for line in lines)  # every accepted answer logged
    assert f"python -m suntzu_env.play --replay {save}" in text


def test_answers_by_action_string_and_bad_answers_change_nothing() -> None:
    reference = Game.new(SEED)
    first = reference.legal_action_strings()[2]
    answers = iter(["fly", "0", "999", "help", "board", "", first, "quit"])
    lines: list[str] = []
    code = play_binfa_in_terminal("random", [0], seed=SEED, read=_reader(answers, []), write=lines.append)
    assert code == 1 and lines[-1] == "game abandoned"
    text = "\n".join(lines)
    assert "not allowed: " in text and "'fly'" in text and "deploy" in text  # names the decision and what is legal
    assert "no choice 0: answer 1 to 16" in text and "no choice 999: answer 1 to 16" in text
    assert "Commands:" in text and "docs/binfa-rules.md" in text
    assert sum(line.startswith("  player 0: ") for line in lines) == 1  # only the legal answer was played
    assert f"  player 0: {first}" in lines


def test_a_game_at_the_turn_limit_ends_undecided(tmp_path: Path) -> None:
    """BD5: the terminal plays the app's game; a person who always ends the throw early meets the turn limit or
    loses, and either way the game ends and says so."""
    from suntzu_env.binfa.web import text

    lines: list[str] = []
    code = text.play_binfa_in_terminal("random", [0, 1], seed=SEED, read=lambda _: "1", write=lines.append)
    assert code == 0
    assert lines[-1] == f"The game's seed was {SEED}."
    assert lines[-2].startswith(("Undecided after", "You win."))


def test_end_of_input_abandons_the_game() -> None:
    def closed(_: str) -> str:
        raise EOFError

    lines: list[str] = []
    assert play_binfa_in_terminal("random", [0], seed=SEED, read=closed, write=lines.append) == 1
    assert lines[-1] == "input closed: the game is abandoned"


def test_bad_settings_are_one_line() -> None:
    lines: list[str] = []
    assert play_binfa_in_terminal("random", [0, 0], seed=SEED, read=lambda _: "q", write=lines.append) == 2
    assert lines == ["error: seats: a player is listed twice"]


def test_the_command_line_plays_binfa_in_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\nq\n"))
    argv = ["--game", "binfa", "--text", "--players", "3", "--seats", "2", "--agent", "greedy", "--seed", str(SEED)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "Bin'Fa, level 1, 3 players: you play player 2 against greedy." in out
    assert "  player 0: deploy\n" in out and "  player 2: deploy:" in out  # the agents' placements hidden (BD6)
    assert "  player 0: deploy:" not in out
    assert str(SEED) not in out


def test_a_binfa_model_offered_plays_in_the_terminal(tmp_path: Path) -> None:
    from helpers import binfa_model

    _, path = binfa_model(tmp_path)
    spec, lines = f"ppo:{path}", []
    menu = BinFaMenu([spec])
    assert play_binfa_in_terminal(spec, [1], seed=SEED, read=lambda _: "q", write=lines.append, menu=menu) == 1
    assert lines.count("  player 0: deploy") == 12  # the model deployed player 0 (B1), hidden (BD6)
    refused: list[str] = []
    assert play_binfa_in_terminal(spec, [1], seed=SEED, read=lambda _: "q", write=refused.append) == 2
    assert refused[0].startswith(
        "error: agent must be one of random, greedy, heuristic, mcts, ppo:pretrained/binfa (Bin'Fa's"
    )
