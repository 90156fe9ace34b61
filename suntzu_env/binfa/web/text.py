"""Bin'Fa in the terminal (`python -m suntzu_env.play --game binfa --text`): the same game the page plays
(`suntzu_env.binfa.web.live.BinFaGame`), its board as `Game.render(player)` prints it for the person (during
deployment, only their own placements: BD6), the other players' answers as they come (their hidden placements as
`deploy`), and the person's legal answers numbered; the commands of every game's terminal mode
(`suntzu_env.play.terminal`). The seed, which throws every die to come, is printed once the game is over.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from suntzu_env.binfa.web.live import BinFaGame, BinFaMenu
from suntzu_env.play.terminal import finish, play_loop

BINFA_HELP = "answer with a number or an action string (e.g. roll, move:red-2-1>red-2-2:3); 'board' shows the board"
BINFA_COMMANDS = """Commands:
  <number>        the answer of that number in the list below the question
  <action>        an answer by its action string, e.g. roll, stop, move:red-2-1>red-2-2:3, deploy:red-4-6
  board (or b, or an empty line)   show the board again
  help (or h, ?)  this text
  quit (or q)     abandon the game
The board: one line per sector, `row-position:stack` with the stack's units bottom to top, one letter per colour
(R red, O orange, Y yellow, G green, B blue, V violet); # a terrain marker, @ a whirlpool. The rules, with the ids
cited (B1-B50): docs/binfa-rules.md"""


def play_binfa_in_terminal(
    agent: str,
    seats: list[int],
    players: int = 2,
    level: int = 1,
    seed: int | None = None,
    save: Path | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    menu: BinFaMenu | None = None,
) -> int:
    """Play one Bin'Fa game in `seats` against `agent` in the others (one of `menu`'s: by default a compiled
    agent), on standard input and output; returns the exit status."""
    try:
        live = BinFaGame(agent, seats, players, level, seed, menu=menu)
    except ValueError as error:
        write(f"error: {error}")
        return 2
    yours = ", ".join(map(str, live.seats))
    write(f"Bin'Fa, level {level}, {players} players: you play {'players' if len(live.seats) > 1 else 'player'} "
          f"{yours} against {agent}. {BINFA_HELP}.")  # fmt: skip
    game, shown = live.game, 0

    def turn(show_board: bool) -> list[str] | None:
        nonlocal shown
        for entry in live.log_shown(shown):
            throw = entry["throw"]
            after = f" (throw {throw[0]}-{throw[1]})" if throw and throw[0] else ""
            write(f"  player {entry['player']}: {entry['action']}{after}")
        shown = len(live.log)
        if show_board:
            write(live.render())
        if game.is_terminal:
            return None
        legal = game.legal_action_strings()
        write(f"\nplayer {game.current_player}, {game.decision['kind']}:")  # type: ignore[index]
        width = max(len(a) for a in legal) + 6
        per_line = max(1, 110 // width)
        for i in range(0, len(legal), per_line):
            row = "".join(f"{j + 1:>3}. {legal[j]:<{width - 5}}" for j in range(i, min(i + per_line, len(legal))))
            write("  " + row.rstrip())
        return legal

    if not play_loop(turn, live.act, BINFA_COMMANDS, read, write):
        return 1
    winner = game.winner
    if winner == "undecided":
        write(f"Undecided after {game.turns} turns.")
    else:
        write("You win." if winner in live.seats else f"Player {winner} wins.")
    return finish(live.seed, live.record, save, write)
