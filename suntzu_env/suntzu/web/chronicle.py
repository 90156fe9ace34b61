"""A game told step by step: every answered decision becomes a frame and lines of a log.

`Chronicle` drives a `Game` through its public API and keeps, per step, a copy of the game and the cards
on the table (the engine forgets a round's cards when the next round begins), plus log entries that say
what happened: the decision answered, each battle revealed with the result the engine decided
(`Game.battle_results`), events, scorings, the end.
Every entry says what both seats may know (`text`) and, when the actor knows more, what the actor and a
full view see (`secret`), so one log serves both seats and the replay's full view (R9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from suntzu_env.suntzu.actions import ACTION_STRINGS
from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.layout import PHASE_NAMES, RECYCLED_PLAGUE
from suntzu_env.suntzu.records import RESULTS, read_rules
from suntzu_env.suntzu.rules import (
    CARD_PLAGUE,
    CARDS,
    EVENTS,
    MAX_SCORE,
    N_PROVINCES,
    N_SCORINGS,
    PROVINCES,
    RECYCLED_PLAGUE_NAME,
    SCORING_ROUNDS,
    SEATS,
)
from suntzu_env.suntzu.tables import projected_score, scoring_column
from suntzu_env.suntzu.web.explain import battle_why

NP = N_PROVINCES
UNSEEN = "?"  # a card placed by a forced single-answer placement inside a step that also ended its round

EVENT_EFFECTS = {
    "pandemic": "all four Plague cards have been revealed: each side sets aside 1 army",
    "war_chariot": "a side revealed its 6 for the third time: it may take one more warlord",
    "champion": "a 9 did not win its battle: its side sets aside 1 army",
    "hero": "a 10 did not win its battle: its side sets aside 2 armies",
    "light_infantry": "both sides revealed 1 in the same battle",
}
SOURCE_TEXT = {  # an army's way, by payment cause (R5.4-R5.6, R7.1-R7.3); {who}, {where}
    "cost": "{who} pays the cost of its card with an army from {where}",
    "six_mark": "{who} puts an army from {where} in the six-mark box",
    "pandemic": "{who} sets aside an army from {where} (pandemic)",
    "champion": "{who} sets aside an army from {where} (champion)",
    "hero": "{who} sets aside an army from {where} (hero)",
    "shortfall": "{who} brings a missing army from {where}",
}


def card_name(card_id: int) -> str:
    """A deck or hand entry's name: a card kind, or "P*" for a recycled Plague copy (R11)."""
    return RECYCLED_PLAGUE_NAME if card_id == RECYCLED_PLAGUE else CARDS[card_id]


@dataclass
class Entry:
    """One line of the log: `text` for everybody, `secret` (if any) for the actor and the full view."""

    round: int
    kind: str  # action, reveal, event, scoring, round, end
    text: str | None
    actor: str | None = None
    secret: str | None = None
    province: str | None = None
    cards: dict[str, str | None] | None = None  # a reveal's two cards, by seat
    result: dict[str, Any] | None = None  # a reveal's result

    def for_seat(self, seat: str | None) -> str | None:
        """The line as `seat` reads it (None: the full view), or None when it sees nothing."""
        if self.secret is not None and (seat is None or seat == self.actor):
            return self.secret
        return self.text


@dataclass
class Table:
    """The cards on the table: this round's, or the last finished round's once the next one starts."""

    round: int
    cards: list[list[str | None]]  # [side][province]: card name, UNSEEN, or None when nothing is placed
    revealed: list[bool]
    results: list[dict[str, Any] | None]
    finished: bool = False  # True once the round is over (its cards stay on show)

    @classmethod
    def empty(cls, rnd: int) -> Table:
        return cls(rnd, [[None] * NP, [None] * NP], [False] * NP, [None] * NP)

    def copy(self) -> Table:
        return Table(self.round, [list(c) for c in self.cards], list(self.revealed), list(self.results), self.finished)


@dataclass(frozen=True)
class Frame:
    """The game after one step (a copy), the table to show, and how many log entries exist by then."""

    game: Game
    table: Table
    n_entries: int
    action: str | None
    actor: str | None


def describe_result(result: dict[str, Any]) -> dict[str, Any]:
    """A battle's result as the engine decided it (`Game.battle_results`, R5.1-R5.3, R7.5) told for the board:
    `winner` (a seat or None), `by`, `plague`, and a sentence."""
    outcome, margin = result["outcome"], int(result["margin"])
    winner = "blue" if margin > 0 else "red" if margin < 0 else None
    plague = outcome in ("plague", "devastating_plague")
    if plague:
        taken = "all but one army" if outcome == "devastating_plague" else "half its armies"
        text = f"Plague: no battle; the holder takes {taken} back to its reserve"
    elif outcome == "light_infantry":
        effect = f"{winner} wins by {abs(margin)}" if winner else "marker at 0, no effect"
        text = f"tie; light infantry: {effect}"
    else:
        text = f"{winner} wins by {abs(margin)}" if winner else "tie: nothing happens"
    return {"winner": winner, "by": abs(margin), "plague": plague, "text": text, "outcome": outcome}


class Chronicle:
    """Drives one game through its public API, keeping a frame and log entries for every step."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.log: list[Entry] = []
        f = game.fields()
        self._table = Table.empty(game.round)
        self._last_table: Table | None = None
        self._reactive: dict[int, set[str]] = {}  # province -> reactive warlords used there this round
        self._pending: list[int] = []  # provinces revealed whose battle the engine has not decided yet
        self._held: list[Entry] = []  # event lines kept back while a warlord offer waits (see _after_step)
        self._sync_table(f)
        self.frames: list[Frame] = [Frame(game.clone(), self.table(), 0, None, None)]

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Chronicle:
        """The chronicle of a whole `Game.record()`; a bad record raises ValueError naming the field."""
        Game.replay(record)  # checks the whole record first: a bad one loads nothing
        start = Game.from_dict(record["start"]) if record.get("start") is not None else None
        if start is None:
            start = Game.new(record["seed"], **read_rules(record["rules"]))
        chronicle = cls(start)
        for action in record["actions"]:
            chronicle.apply(action)
        return chronicle

    # ------------------------------------------------------------ stepping

    def table(self) -> Table:
        """The table to show now: this round's cards, or the last round's until a card is placed."""
        if self._last_table is not None and not any(c is not None for side in self._table.cards for c in side):
            return self._last_table.copy()
        return self._table.copy()

    def apply(self, action: int | str) -> Frame:
        """Answer the pending decision; an illegal action raises ValueError and changes nothing."""
        game = self.game
        decision = game.decision
        pre = game.fields()
        game.apply(action)  # raises before anything changes when illegal
        name = ACTION_STRINGS[action] if not isinstance(action, str) else action
        assert decision is not None
        post = game.fields()
        actor = decision["player"]
        self._describe_action(decision, name, pre)
        if decision["kind"] == "place" and name.startswith("place:"):
            side = SEATS.index(actor)
            p = PROVINCES.index(decision["province"])
            self._table.cards[side][p] = name.split(":", 1)[1]
        if decision["kind"] == "reactive" and name == "use":
            self._reactive.setdefault(PROVINCES.index(decision["province"]), set()).add(decision["warlord"])
        self._after_step(pre, post, name if decision["kind"] == "reveal" else None)
        frame = Frame(game.clone(), self.table(), len(self.log), name, actor)
        self.frames.append(frame)
        return frame

    def _sync_table(self, f: dict[str, np.ndarray]) -> None:
        """Copy what the state knows of this round's cards into the table."""
        for side in range(2):
            for p in range(NP):
                k = int(f["placed"][side * NP + p])
                if k >= 0:
                    recycled = k == CARD_PLAGUE and f["placed_recycled"][side * NP + p]
                    self._table.cards[side][p] = RECYCLED_PLAGUE_NAME if recycled else CARDS[k]

    def _after_step(self, pre: dict[str, np.ndarray], post: dict[str, np.ndarray], chosen: str | None) -> None:
        rnd, new_round = int(pre["round"][0]), int(post["round"][0]) > int(pre["round"][0])
        if not new_round:
            self._sync_table(post)
        revealed_before = [bool(x) for x in pre["revealed"]]
        if new_round:
            newly = [p for p in range(NP) if not revealed_before[p]]
        else:
            newly = [p for p in range(NP) if post["revealed"][p] and not revealed_before[p]]
        if chosen is not None:  # the holder's choice first, the rest (forced) after it in board order
            first = PROVINCES.index(chosen.split(":", 1)[1])
            newly = [first] + [p for p in newly if p != first]
        applied = self._events_applied(pre, post)
        for p in newly:
            self._settle_battles()  # an earlier battle of this step is over
            self._reveal(p)
        self._settle_battles()
        ended_by_event = bool(applied) and int(post["event_face_up"][0]) < 0 and int(post["winner"][0]) >= 0
        lines = [Entry(rnd, "event", f"Event {e}: {EVENT_EFFECTS[e]}.") for e in applied]
        if applied and int(post["event_face_up"][0]) >= 0:
            lines.append(Entry(rnd, "event", f"Next event face up: {EVENTS[int(post['event_face_up'][0])]}."))
        offer = self.game.decision
        if offer is not None and offer["kind"] in ("window", "reactive"):
            # The step stops at a warlord offer only when its holder holds that warlord: the events applied so
            # far are told once the reveals go on, where they would be told had no offer been made (R9).
            self._held += lines
        else:
            self.log += self._held + lines
            self._held = []
        round_over = new_round or (int(post["winner"][0]) >= 0 and all(self._table.revealed))
        if rnd in SCORING_ROUNDS and round_over and not ended_by_event:
            self._scoring(rnd, pre, post)
        if int(post["winner"][0]) >= 0 and int(pre["winner"][0]) < 0:
            self._table.finished = True
            self._end(post, ended_by_event)
        if new_round:
            self._table.finished = True
            self._last_table = self._table
            self._table = Table.empty(int(post["round"][0]))
            self._reactive = {}
            self._sync_table(post)
            self.log.append(Entry(int(post["round"][0]), "round", f"Round {int(post['round'][0])} begins."))

    def _events_applied(self, pre: dict[str, np.ndarray], post: dict[str, np.ndarray]) -> list[str]:
        up = int(pre["event_face_up"][0])
        if up < 0:
            return []
        deck = [int(e) for e in pre["event_deck"][: int(pre["event_deck_len"][0])]]
        left = int(post["event_deck_len"][0]) if int(post["event_face_up"][0]) >= 0 else -1  # -1: all were applied
        n = len(deck) - left
        return [EVENTS[e] for e in [up, *deck][:n]]

    def _reveal(self, p: int) -> None:
        """The two cards of province p are turned face up: a log line, and the battle waits for its result."""
        t = self._table
        blue, red = (t.cards[side][p] or UNSEEN for side in range(2))
        t.cards[0][p], t.cards[1][p] = blue, red
        t.revealed[p] = True
        self._pending.append(p)
        self._battle_line(p, "reveal", f" revealed: blue {blue}, red {red}")

    def _battle_line(self, p: int, kind: str, text: str, result: dict[str, Any] | None = None) -> None:
        """A log line about province p's battle (a reveal, a result), with the two cards shown there."""
        t = self._table
        blue, red = t.cards[0][p] or UNSEEN, t.cards[1][p] or UNSEEN
        cards = {"blue": blue, "red": red}
        self.log.append(
            Entry(t.round, kind, f"{PROVINCES[p]}{text}.", province=PROVINCES[p], cards=cards, result=result)
        )

    def _settle_battles(self) -> None:
        """Battles the engine has decided (`Game.battle_results`: after their events, R5.7) get their result."""
        decided = self.game.battle_results()
        t = self._table
        for p in list(self._pending):
            if decided[p] is None:
                continue
            self._pending.remove(p)
            blue, red = t.cards[0][p] or UNSEEN, t.cards[1][p] or UNSEEN
            used = self._reactive.get(p, set())
            result = describe_result(decided[p])
            result["why"] = battle_why({"blue": blue, "red": red}, result, frozenset(used))  # public: both cards
            t.results[p] = result
            notes = [f"{w} used" for w in sorted(used)]
            how = f" ({', '.join(notes)})" if notes else ""
            entry = self._open_reveal(PROVINCES[p])
            if entry is not None:
                entry.text = f"{entry.text[:-1]}: {result['text']}."  # the same step: one line
                entry.result = result
            else:
                self._battle_line(p, "battle", f"{how}: {result['text']}", result)

    def _open_reveal(self, province: str) -> Entry | None:
        """The reveal line of `province` still waiting for its result, when only lines nobody else reads (a
        declined secret offer, R9) follow it: the battle's result joins it, so the log reads the same whether or
        not such an offer was made."""
        for entry in reversed(self.log):
            if entry.kind == "reveal" and entry.province == province and entry.result is None:
                return entry
            if entry.text is not None:
                return None
        return None

    def _scoring(self, rnd: int, pre: dict[str, np.ndarray], post: dict[str, np.ndarray]) -> None:
        values = post["province_values"][scoring_column(rnd) :: N_SCORINGS]
        blue, red = post["armies"][:NP], post["armies"][NP:]
        before, after = int(pre["score"][0]), int(post["score"][0])
        if projected_score(before, blue, red, values) != after:
            return  # not a scoring after all (the game ended otherwise)
        totals, held = [0, 0], [[], []]
        for p in range(NP):
            for side, armies in enumerate((blue, red)):
                if armies[p]:
                    totals[side] += int(values[p])
                    held[side].append(f"{PROVINCES[p]} {int(values[p])}")
        parts = [f"{seat} {totals[i]} ({', '.join(held[i]) or 'nothing held'})" for i, seat in enumerate(SEATS)]
        move = (
            f"the marker moves from {before:+d} to {after:+d}" if after != before else f"the marker stays at {after:+d}"
        )
        self.log.append(Entry(rnd, "scoring", f"Scoring of round {rnd}: {'; '.join(parts)}: {move}."))

    def _end(self, post: dict[str, np.ndarray], by_event: bool) -> None:
        rnd, score, winner = int(post["round"][0]), int(post["score"][0]), RESULTS[post["winner"][0]]
        if by_event:
            why = f"the last event card was applied; the marker stands at {score:+d}"
        elif abs(score) == MAX_SCORE and rnd < 9:
            why = f"the marker reached {score:+d}"
        else:
            why = f"after round {rnd} the marker stands at {score:+d}"
        if score == 0:
            reserves = post["reserve"]
            why += f"; reserves after the last recalls: blue {int(reserves[0])}, red {int(reserves[1])}"
        outcome = "a draw" if winner == "draw" else f"{winner} wins"
        self.log.append(Entry(rnd, "end", f"Game over: {outcome} ({why})."))

    # ------------------------------------------------------------ describing a decision's answer

    def _describe_action(self, d: dict[str, Any], action: str, pre: dict[str, np.ndarray]) -> None:
        who, kind, rnd = d["player"], d["kind"], int(pre["round"][0])
        name = action.split(":", 1)[1] if ":" in action else ""
        text: str | None
        secret: str | None = None
        if action.startswith("recall:"):
            text = f"{who} recalls a set-aside army to the reserve, discarding {name}"
        elif kind == "warlord" and PHASE_NAMES[pre["phase"][0]] == "warlords":
            text, secret = f"{who} picks a warlord in secret", f"{who} picks {name}"
        elif kind == "warlord":
            text = f"{who} makes its war chariot choice"
            secret = f"{who} takes {name} (war chariot)" if name else f"{who} takes no warlord (war chariot)"
        elif kind == "place":
            text = f"{who} places a card face down at {d['province']}"
            secret = f"{who} places {name} at {d['province']}"
        elif kind in ("window", "reactive"):  # a warlord offered: declined, nobody else reads it (R9)
            at = f" at {d['province']}" if kind == "reactive" else ""
            if action == "use":
                text = f"{who} uses {d['warlord']}{at}"
            else:
                declined = "keeps" if kind == "window" else "does not use"
                text, secret = None, f"{who} {declined} {d['warlord']}{at}"
        elif kind == "target":
            text = self._target_text(d["warlord"], name, int(pre["march_from"][0]))
        elif kind == "reveal":
            text = f"{who} reveals {name} next"
        elif kind in ("source", "shortfall"):
            where = "the reserve" if action == "reserve" else name
            text = SOURCE_TEXT[d["cause"]].format(who=who, where=where)
        elif kind == "keep":
            text, secret = f"{who} keeps one of the cards drawn", f"{who} keeps {name}"
        else:
            text = f"{who}: {action}"
        self.log.append(Entry(rnd, "action", text and text + ".", who, secret and secret + "."))

    @staticmethod
    def _target_text(warlord: str, province: str, march_from: int) -> str:
        if warlord == "purge":
            return f"purge: one blue army leaves {province} for blue's reserve"
        if warlord == "reinforce":
            return f"reinforce: one army from blue's reserve to {province}"
        if march_from < 0:
            return f"march: an army sets out from {province}"
        return f"march: the army from {PROVINCES[march_from]} arrives in {province}"
