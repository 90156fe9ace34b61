"""The terminal mode's shared part (`python -m suntzu_env.play --text`): the person's answers read, the game's end.

Each game's own terminal mode (its `WebFace.play_in_terminal`) writes its board and its questions, and lets
`play_loop` read the answers: a number picks among the legal answers, an action string names one; `board` prints the
board again, `help` the commands, `quit` stops (and so does a closed input); `rules`, where the game has them, its
rules in a line each. A finished game's seed is printed and its record saved (atomically) where `--save` says.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

from suntzu_env.core.files import write_atomic


def finish(seed: int, record: Callable[[], dict[str, Any]], save: Path | None, write: Callable[[str], None]) -> int:
    """The end of a finished game: its seed, and its record written to `save` (atomically) if asked; the exit
    status."""
    write(f"The game's seed was {seed}.")
    if save is not None:
        try:
            write_atomic(save, json.dumps(record(), indent=1))
        except OSError as error:
            write(f"error: the record could not be saved to {save}: {error.strerror or error}")
            return 1
        write(f"Record saved to {save}: python -m suntzu_env.play --replay {save}")
    return 0


class Command(Enum):
    """What `read_answer` returns for a command instead of an action."""

    ABANDON = "quit"
    BOARD = "board"


def read_answer(
    read: Callable[[str], str],
    write: Callable[[str], None],
    commands: str,
    actions: list[str],
    rules: Callable[[], list[str]] | None = None,
) -> str | Command | None:
    """The person's next answer: an action string (a number picks among `actions`), `Command.ABANDON` (quit, or the
    input closed), `Command.BOARD`, or None when a command was answered (`help`, `rules`) or a number is out of
    range."""
    try:
        answer = read("> ").strip()
    except EOFError:
        write("input closed: the game is abandoned")
        return Command.ABANDON
    if answer in ("quit", "exit", "q"):
        write("game abandoned")
        return Command.ABANDON
    if answer in ("board", "b", ""):
        return Command.BOARD
    if answer in ("help", "?", "h"):
        write(commands)
        return None
    if answer == "rules" and rules is not None:
        write("\n".join(rules()))
        return None
    if answer.isdigit():
        if not 1 <= int(answer) <= len(actions):
            write(f"no choice {answer}: answer 1 to {len(actions)}")
            return None
        return actions[int(answer) - 1]
    return answer


def play_loop(
    turn: Callable[[bool], list[str] | None],
    act: Callable[[str], object],
    commands: str,
    read: Callable[[str], str],
    write: Callable[[str], None],
    rules: Callable[[], list[str]] | None = None,
) -> bool:
    """Ask the person for answers until the game ends: `turn(show_board)` writes what is new (and the board when
    `show_board`) and returns the legal answers, or None once the game is over; `act` plays one (a ValueError: not
    allowed, nothing changed). Returns False when the person abandons the game."""
    show_board = True
    while (actions := turn(show_board)) is not None:
        action = read_answer(read, write, commands, actions, rules)
        if action is Command.ABANDON:
            return False
        show_board = action is Command.BOARD
        if not isinstance(action, str):
            continue
        try:
            act(action)
        except ValueError as error:
            write(f"not allowed: {' '.join(str(error).split())}")
            continue
        show_board = True
    return True
