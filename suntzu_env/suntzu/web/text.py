"""Sun Tzu in the terminal (`python -m suntzu_env.play --text`): the same game and decisions as the page, as text.

The board printed is a `seat_view` of the person's seat, so the terminal shows exactly what the page
would (R9). Answer a decision with its number or its action string; `board` prints the board again, `rules` the
rule of every card, warlord, event and battle outcome in a line each (`suntzu_env.suntzu.web.explain`), `help` the
commands, `quit` stops.

"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from suntzu_env.play.terminal import finish, play_loop
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.web.explain import RULES_DOC, glossary_lines
from suntzu_env.suntzu.web.live import LiveGame

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


def play_in_terminal(
    *settings: Any,
    save: Path | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    **named: Any,
) -> int:
    """Play one game against an agent on standard input and output, the `settings` of a `LiveGame` (agent, seat,
    variant, events, seed; or `named`); `save` the record there at the end. Returns the exit status."""
    try:
        game = LiveGame(*settings, **named)
    except (ValueError, FileNotFoundError, ImportError) as error:
        write(f"error: {error}")
        return 2
    seat, events = game.seat, game.game.to_dict()["rules"]["events"]
    write(f"Sun Tzu: you play {seat} against {game.agent_spec} ({game.variant}{', events' if events else ''}). {HELP}.")
    shown = -1
    view = game.view()
    explained: set[str] = set()

    def turn(show_board: bool) -> list[str] | None:
        nonlocal shown
        for line in view["log"]:
            if line["n"] > shown:
                write(f"  [round {line['round']}] {line['text']}")
                if line.get("result") and line["result"].get("why"):
                    write(f"      why: {line['result']['why']}")
        shown = view["log"][-1]["n"] if view["log"] else shown
        if show_board:
            write(view_text(view))
        if view["winner"] is not None:
            return None
        d = view["decision"]
        write(f"\n{d['prompt']}")
        for i, a in enumerate(d["actions"], 1):
            write(f"  {i:>2}. {a['label']:<22} {a['action']}")
            if a.get("help") and a["help"] not in explained:  # each rule once; `rules` lists them all again
                explained.add(a["help"])
                write(f"        {a['help']}")
        return [a["action"] for a in d["actions"]]

    def act(action: str) -> None:
        nonlocal view
        view = game.act(action)["view"]

    if not play_loop(turn, act, COMMANDS, read, write, glossary_lines):
        return 1
    outcome = view["winner"]
    write("A draw." if outcome == "draw" else ("You win." if outcome == seat else f"{outcome} wins."))
    return finish(view["game"]["seed"], game.record, save, write)
