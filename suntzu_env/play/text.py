"""The terminal mode (`python -m suntzu_env.play --text`): the same game and decisions, as text.

Sun Tzu: the board printed is a `seat_view` of the person's seat, so the terminal shows exactly what the page
would (R9). Answer a decision with its number or its action string; `board` prints the board again, `rules` the
rule of every card, warlord, event and battle outcome in a line each (`suntzu_env.play.explain`), `help` the
commands, `quit` stops.

Bin'Fa (`--game binfa --text`): the same game the page plays (`suntzu_env.play.binfa.BinFaGame`), its board as
`Game.render(player)` prints it for the person (during deployment, only their own placements: BD6), the other
players' answers as they come (their hidden placements as `deploy`), and the person's legal answers numbered; the
same commands, but `rules`. The seed, which throws every die to come, is printed once the game is over.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suntzu_env.play.explain import RULES_DOC, glossary_lines
from suntzu_env.play.sessions import LiveGame
from suntzu_env.suntzu.rules import SEATS

if TYPE_CHECKING:
    from suntzu_env.play.binfa import BinFaMenu

HELP = "answer with a number or an action string (e.g. place:7); 'board' shows the board, 'quit' stops"
COMMANDS = f"""Commands:
  <number>        the answer of that number in the list below the question
  <action>        an answer by its action string, e.g. place:7, province:QIN, use, pass
  board (or b, or an empty line)   show the board again
  rules           every card, warlord, event and battle outcome in one line each
  help (or h, ?)  this text
  quit (or q)     abandon the game
An answer is listed with the rule it follows (the first time it comes up); a battle's result is followed by why
it ended so.
The board: values r3/6/9 are a province's points at the scorings after rounds 3, 6 and 9 ([x]: the next one);
marks b/r are six-marks; (7) is your own face-down card, ## the opponent's.
The full rules, with the ids cited (R5.1, R8, ...): {RULES_DOC}"""


def _card(slot: dict[str, Any] | None) -> str:
    if slot is None:
        return "."
    if slot["card"] is None:
        return "##"
    return f"({slot['card']})" if slot["face_down"] else slot["card"]


def view_text(view: dict[str, Any]) -> str:
    """A seat view as a text board."""
    col = (3, 6, 9).index(view["scoring_round"])
    head = f"Round {view['round']}/9, {view['phase']}, marker {view['score']:+d} (+ toward blue), next scoring after "
    lines = [head + f"round {view['scoring_round']}"]
    lines.append(f"  {'province':<8}  {'values r3/6/9':<13}  holder armies  marks b/r  cards b / r  result")
    for prov in view["provinces"]:
        values = " ".join(f"[{v}]" if i == col else f" {v} " for i, v in enumerate(prov["values"]))
        marks = f"{prov['marks']['blue']}/{prov['marks']['red']}"
        cards = f"{_card(prov['cards']['blue']):>4} / {_card(prov['cards']['red']):<4}"
        result = prov["result"]["text"] if prov["result"] else ""
        holder = prov["holder"] or "-"
        armies = f"{holder:<6} {prov['armies']:>6}"
        lines.append(f"  {prov['name']:<8}  {values:<13}  {armies}  {marks:>9}  {cards}  {result}")
    for seat in SEATS:
        s = view["sides"][seat]
        used = ", ".join(s["warlords_used"]) or "none"
        lines.append(
            f"  {seat:<4}  reserve {s['reserve']}, set aside {s['set_aside']}, six-mark boxes {s['marked']}, "
            f"hand {s['hand_size']}, deck {s['deck_size']}, warlords used: {used}, "
            f"out: {' '.join(s['out']) or 'none'}"
        )
    events = view["events"]
    if events["on"]:
        lines.append(f"  event face up: {events['face_up'] or 'none'} ({events['in_deck']} in the deck)")
    for seat, mine in view["private"].items():
        w = mine["warlords"]
        lines.append(
            f"  {seat} hand: {' '.join(mine['hand'])}   deck (unordered): {' '.join(mine['deck']) or 'empty'}"
            f"   warlords held: {', '.join(w['held']) or 'none'}"
        )
    lines.append("  (7): your card, face down; ##: a face-down card of the opponent")
    return "\n".join(lines)


def _save(record: dict[str, Any], path: Path) -> None:
    """Write the record atomically (write, then rename)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, path)


def _finish(seed: int, record: Callable[[], dict[str, Any]], save: Path | None, write: Callable[[str], None]) -> int:
    """The end of a finished game: its seed, and its record written to `save` (atomically) if asked; the exit
    status."""
    write(f"The game's seed was {seed}.")
    if save is not None:
        try:
            _save(record(), save)
        except OSError as error:
            write(f"error: the record could not be saved to {save}: {error.strerror or error}")
            return 1
        write(f"Record saved to {save}: python -m suntzu_env.play --replay {save}")
    return 0


class Command(Enum):
    """What `_answer` returns for a command instead of an action."""

    ABANDON = "quit"
    BOARD = "board"


def _answer(
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


def play_in_terminal(
    agent: str,
    seat: str,
    variant: str = "standard",
    events: bool = False,
    seed: int | None = None,
    save: Path | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play one game against `agent` on standard input and output; returns the exit status."""
    try:
        game = LiveGame(agent, seat, variant, events, seed)
    except (ValueError, FileNotFoundError, ImportError) as error:
        write(f"error: {error}")
        return 2
    write(f"Sun Tzu: you play {seat} against {agent} ({variant}{', events' if events else ''}). {HELP}.")
    shown = -1
    view = game.view()
    show_board = True
    explained: set[str] = set()
    while True:
        for line in view["log"]:
            if line["n"] > shown:
                write(f"  [round {line['round']}] {line['text']}")
                if line.get("result") and line["result"].get("why"):
                    write(f"      why: {line['result']['why']}")
        shown = view["log"][-1]["n"] if view["log"] else shown
        if show_board:
            write(view_text(view))
        if view["winner"] is not None:
            break
        d = view["decision"]
        write(f"\n{d['prompt']}")
        for i, a in enumerate(d["actions"], 1):
            write(f"  {i:>2}. {a['label']:<22} {a['action']}")
            if a.get("help") and a["help"] not in explained:  # each rule once; `rules` lists them all again
                explained.add(a["help"])
                write(f"        {a['help']}")
        action = _answer(read, write, COMMANDS, [a["action"] for a in d["actions"]], glossary_lines)
        if action is Command.ABANDON:
            return 1
        show_board = action is Command.BOARD
        if not isinstance(action, str):
            continue
        try:
            view = game.act(action)["view"]
        except ValueError as error:
            write(f"not allowed: {error}")
            continue
        show_board = True
    outcome = view["winner"]
    write("A draw." if outcome == "draw" else ("You win." if outcome == seat else f"{outcome} wins."))
    return _finish(view["game"]["seed"], game.record, save, write)


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
    from suntzu_env.play.binfa import BinFaGame  # Bin'Fa's engine loads only for its games

    try:
        live = BinFaGame(agent, seats, players, level, seed, menu=menu)
    except ValueError as error:
        write(f"error: {error}")
        return 2
    yours = ", ".join(map(str, live.seats))
    write(f"Bin'Fa, level {level}, {players} players: you play {'players' if len(live.seats) > 1 else 'player'} "
          f"{yours} against {agent}. {BINFA_HELP}.")  # fmt: skip
    game, shown, show_board = live.game, 0, True
    while True:
        for entry in live.log_shown(shown):
            throw = entry["throw"]
            after = f" (throw {throw[0]}-{throw[1]})" if throw and throw[0] else ""
            write(f"  player {entry['player']}: {entry['action']}{after}")
        shown = len(live.log)
        if show_board:
            write(live.render())
        if game.is_terminal:
            break
        legal = game.legal_action_strings()
        write(f"\nplayer {game.current_player}, {game.decision['kind']}:")  # type: ignore[index]
        width = max(len(a) for a in legal) + 6
        per_line = max(1, 110 // width)
        for i in range(0, len(legal), per_line):
            row = "".join(f"{j + 1:>3}. {legal[j]:<{width - 5}}" for j in range(i, min(i + per_line, len(legal))))
            write("  " + row.rstrip())
        action = _answer(read, write, BINFA_COMMANDS, legal)
        if action is Command.ABANDON:
            return 1
        show_board = action is Command.BOARD
        if not isinstance(action, str):
            continue
        try:
            live.act(action)
        except ValueError as error:
            write(f"not allowed: {' '.join(str(error).split())}")
            continue
        show_board = True
    winner = game.winner
    if winner == "undecided":
        write(f"Undecided after {game.turns} turns.")
    else:
        write("You win." if winner in live.seats else f"Player {winner} wins.")
    return _finish(live.seed, live.record, save, write)
