"""What the page may show a seat: a JSON-ready view of one frame, built from R9's list of what it may know.

`seat_view(frame, log, seat)` is the only way data about a game reaches the page. For a seat it holds the
public board (armies, six-marks, pools, marker, round, values, revealed cards and results, cards out of
the game, used warlords, events), the seat's own hand, deck contents (sorted: the order is unknown),
drawn cards and warlords, and the seat's own pending decision with its legal answers. It never holds the
opponent's hand, drawn cards, deck or unused warlords, a face-down card of the opponent, any deck order,
nor the opponent's pending decision. With `seat=None` (the replay's full view) everything is shown.
"""

from __future__ import annotations

from typing import Any

from suntzu_env.suntzu.rules import CARD_COPIES, CARDS, EVENTS, N_CARD_KINDS, N_PROVINCES, PROVINCES, SEATS
from suntzu_env.suntzu.web.chronicle import Entry, Frame, card_name
from suntzu_env.suntzu.web.explain import EVENT_TEXT, WARLORD_TEXT, action_help

NP, NK = N_PROVINCES, N_CARD_KINDS
CARD_ORDER = {name: i for i, name in enumerate((*CARDS, "P*"))}

CAUSE_PROMPT = {
    "cost": "pay the cost of your card",
    "six_mark": "an army for your six-mark",
    "pandemic": "pandemic: set aside one army",
    "champion": "champion: set aside one army",
    "hero": "hero: set aside an army",
    "shortfall": "you lack armies in reserve for this battle",
}


def _sorted_cards(names: list[str]) -> list[str]:
    return sorted(names, key=CARD_ORDER.__getitem__)


def decision_prompt(d: dict[str, Any], march_from: str | None) -> str:
    """The question a person is asked for a decision of R10."""
    kind, province, warlord = d["kind"], d["province"], d["warlord"]
    if kind == "warlord" and d.get("setup"):
        return "Choose your warlord. It stays secret until you use it."
    if kind == "warlord":
        return "War chariot: you may take one more warlord, or pass."
    if kind == "place":
        return f"Place a card face down against {province}."
    if kind == "window":
        return f"Use {warlord} now? ({WARLORD_TEXT[warlord]})"
    if kind == "target" and warlord == "march":
        if march_from is None:
            return "March: choose the province your army leaves."
        return f"March: choose where the army from {march_from} goes."
    if kind == "target":
        return f"{warlord.capitalize()}: choose the province. ({WARLORD_TEXT[warlord]})"
    if kind == "reveal":
        return "You hold the privilege: choose the next province to reveal."
    if kind == "reactive":
        return f"Use {warlord} at {province}? ({WARLORD_TEXT[warlord]})"
    if kind in ("source", "shortfall"):
        where = f" at {province}" if province else ""
        return f"Where does the army come from? ({CAUSE_PROMPT[d['cause']]}{where})"
    if kind == "keep":
        return "Keep one of the cards you drew; the other goes to the bottom of your deck."
    return kind


def action_label(action: str) -> str:
    """A button's text for an action string of R10."""
    group, _, name = action.partition(":")
    return {
        "place": f"Place {name}",
        "recall": f"Recall with {name}",
        "keep": f"Keep {name}",
        "province": name,
        "reserve": "From the reserve",
        "warlord": name.replace("_", " "),
        "use": "Use",
        "pass": "Pass",
    }[group]


def _slot(card: str | None, shown: bool, revealed: bool) -> dict[str, Any] | None:
    if card is None:
        return None
    return {"card": card if shown else None, "face_down": not revealed}


def _log(log: list[Entry], n: int, seat: str | None) -> list[dict[str, Any]]:
    """The lines `seat` may read, numbered among themselves: a gap would tell that a hidden line exists."""
    out: list[dict[str, Any]] = []
    for entry in log[:n]:
        text = entry.for_seat(seat)
        if text is None:
            continue
        line: dict[str, Any] = {"n": len(out), "round": entry.round, "kind": entry.kind, "text": text}
        if entry.kind in ("reveal", "battle"):
            line.update(province=entry.province, cards=entry.cards, result=entry.result)
        out.append(line)
    return out


def seat_view(frame: Frame, log: list[Entry], seat: str | None) -> dict[str, Any]:
    """The frame as `seat` may see it (R9); `seat=None` shows everything (replay's full view)."""
    if seat not in (None, *SEATS):
        raise ValueError(f"seat must be 'blue', 'red' or None, got {seat!r}")
    game, table = frame.game, frame.table
    d = game.to_dict()
    f = game.fields()
    rnd = d["round"]
    provinces = []
    for p, name in enumerate(PROVINCES):
        armies = [d[s]["armies"][p] for s in SEATS]
        holder = SEATS[0] if armies[0] else SEATS[1] if armies[1] else None
        cards = {}
        for side, s in enumerate(SEATS):
            shown = table.revealed[p] or seat is None or seat == s
            cards[s] = _slot(table.cards[side][p], shown, table.revealed[p])
        provinces.append(
            {
                "name": name,
                "values": d["province_values"][p],
                "holder": holder,
                "armies": max(armies),
                "marks": {s: d[s]["six_marks"][p] for s in SEATS},
                "cards": cards,
                "revealed": table.revealed[p],
                "result": table.results[p] if table.revealed[p] else None,
            }
        )
    variant = d["rules"]["variant"]
    sides = {}
    for side, s in enumerate(SEATS):
        sd = d[s]
        out = [CARDS[k] for k in range(NK) for _ in range(int(f["out_of_game"][side * NK + k]))]
        sides[s] = {
            "reserve": sd["reserve"],
            "set_aside": sd["set_aside"],
            "marked": sd["marked_armies"],
            "hand_size": len(sd["hand"]),
            "deck_size": len(sd["deck"]),
            "out": out,
            "sixes_revealed": sd["sixes_revealed"],
            "plagues_revealed": sd["plagues_revealed"],
            "warlords_used": list(sd["warlords"]["used"]),
            "cards_total": sum(CARD_COPIES[variant]),
        }
    private = {}
    for side, s in enumerate(SEATS):
        if seat is not None and seat != s:
            continue
        sd = d[s]
        drawn = [card_name(int(c)) for c in f["drawn"][side * 3 : side * 3 + 3] if c >= 0]
        private[s] = {
            "hand": _sorted_cards(sd["hand"]),
            "deck": list(sd["deck"]) if seat is None else _sorted_cards(sd["deck"]),
            "drawn": _sorted_cards(drawn),
            "warlords": {k: list(v) for k, v in sd["warlords"].items()},
        }
    up = d["events"]["face_up"]
    events: dict[str, Any] = {
        "on": d["rules"]["events"],
        "face_up": up,
        "face_up_text": EVENT_TEXT.get(up or ""),
        "in_deck": len(d["events"]["deck"]),
    }
    if d["rules"]["events"]:
        events["removed"] = [e for e in EVENTS if e != up and e not in d["events"]["deck"]]
        if seat is None:
            events["deck"] = list(d["events"]["deck"])
    view: dict[str, Any] = {
        "seat": seat,
        "rules": d["rules"],
        "round": rnd,
        "phase": d["phase"],
        "score": d["score"],
        "winner": d["winner"],
        "scoring_round": game.next_scoring_round,
        "privilege": d["privilege"],
        "order_holder": None,
        "table": {"round": table.round, "finished": table.finished},
        "provinces": provinces,
        "sides": sides,
        "private": private,
        "events": events,
        "decision": None,
        "log": _log(log, frame.n_entries, seat),
    }
    if d["phase"] in ("reveal", "battle"):
        holder = int(f["order_holder"][0])
        view["order_holder"] = SEATS[holder] if holder >= 0 else "board order"
    decision = game.decision
    if decision is not None and (seat is None or decision["player"] == seat):
        march = int(f["march_from"][0])
        decision = dict(decision, setup=d["phase"] == "warlords")
        if decision["kind"] == "keep":
            decision["keep_left"] = int(f["keep_left"][SEATS.index(decision["player"])])
        march_from = PROVINCES[march] if decision["kind"] == "target" and march >= 0 else None
        decision["from_province"] = march_from
        decision["prompt"] = decision_prompt(decision, march_from)
        decision["actions"] = [
            {"action": a, "label": action_label(a), "help": action_help(a, decision["warlord"])}
            for a in game.legal_action_strings()
        ]
        view["decision"] = decision
    return view
