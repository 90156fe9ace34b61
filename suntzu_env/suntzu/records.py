"""Game records (R11): a state written as JSON, and a JSON record read back only as a state the engine can be in.

`record_from_state(s)` writes the R11 keys, plus an `"engine"` block of the other state fields (see
`suntzu_env.suntzu.layout`) for a state inside a round. `state_from_record(d)` reads one back and trusts
nothing: the compiled engine indexes its arrays with these numbers unchecked, so a record is loaded only
when it passes, in order,

1. **shape and range**: every key known and present, every value of its JSON type and in its field's
   exact range (`ENGINE_RANGES` for the engine block), every name one the game declares;
2. **consistency**: the fields agree with each other (I1, card conservation, warlords, events) and, inside
   a round, with the phase and the step: which cards are placed and revealed, the drawn cards, the window;
   and the battles, by the engine's word (`engine.replay`): the battle under way, run again from its start
   with what the record shows, stops at the recorded step with the recorded cancelled cards, flags, winner,
   result, events and queue of army transfers; each earlier battle leaves its recorded result;
3. **the engine's own word**: `engine.check_invariants` holds, the engine run from the recorded state
   stops at the recorded decision without changing anything (the decision is the one the engine would
   ask there, and nothing automatic is left undone), and that decision has at least two legal answers
   (R10, I2);
4. **history** (checked after the public fields' consistency, unless the position is read as `hand_made`):
   what the round and the phase say has
   happened bounds the rest (`check_history`): one six-mark a province but for red's `double_six`,
   which the second mark spends; the marker moves only at the scorings and by
   `head_start`, and a scoring at +-9 ends the game; at most one `6` a side and two Plagues a side are
   revealed a round; each draw takes one or two cards from the deck; nothing reaches the board, leaves
   the event deck or discards a card but a recall before the first battle; a second warlord comes only
   from `war_chariot`; a warlord is spent only once it could act; `pandemic` and `war_chariot` leave play
   only once their condition holds.

A record that fails raises `RecordError` (a `ValueError`) naming the field. A `hand_made` position (a
test's or a puzzle's scenario, e.g. armies already on the board in round 1) is checked for consistency,
not for the history that led to it, as that does not stop the engine from playing on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from suntzu_env.core.fields import Field
from suntzu_env.core.rng import GENERATORS, LEGACY_GENERATOR
from suntzu_env.suntzu import engine, layout
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine.board import values_at
from suntzu_env.suntzu.engine.checks import I_CARDS, I_PLAGUES, I_SIXES
from suntzu_env.suntzu.engine.replay import RESULT_FIELDS, Replay, replay_battle
from suntzu_env.suntzu.rules import (
    ARMIES_PER_SIDE,
    CARD_MINUS1,
    CARD_ONE,
    CARD_PLAGUE,
    CARD_SIX,
    CARDS,
    CHARIOT_SIXES,
    E_PANDEMIC,
    E_WAR_CHARIOT,
    EVENTS,
    HAND_DRAW,
    HEAD_START_POINTS,
    LIGHT_INFANTRY_MARGIN,
    MAX_SCORE,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    N_SCORINGS,
    N_WARLORDS_PER_SIDE,
    PROVINCES,
    RECYCLED_PLAGUE_NAME,
    RULES_VERSION,
    RULES_VERSIONS,
    SCORE_DISPLAYS,
    SEATS,
    VARIANT_RULES,
    VARIANTS,
    W_COUNTER_PLAGUE,
    W_DOUBLE_SIX,
    W_HEAD_START,
    W_MARCH,
    W_RECYCLE_MINUS_ONE,
    W_RECYCLE_PLAGUE,
    WARLORDS,
    WINDOW_WARLORDS,
    adjacency_masks,
)
from suntzu_env.suntzu.tables import BATTLE_DIFF, MAX_COPIES, projected_score, scoring_column

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE
RESULTS = ("blue", "red", "draw")
RECORD_KEYS = ("rules", "round", "score", "province_values", "privilege", "plague_reveals", "events")
RECORD_KEYS += ("blue", "red", "phase", "winner")
OPTIONAL_KEYS = ("engine", "last_reveal", "battle_results")
SIDE_KEYS = ("reserve", "set_aside", "marked_armies", "armies", "six_marks", "hand", "deck")
SIDE_KEYS += ("sixes_revealed", "plagues_revealed", "warlords")
# Fields that the R11 keys above already carry; every other field travels under "engine".
PUBLIC_FIELDS = {
    "variant", "warlords_on", "card_copies", "events_on", "adjacency", "round", "score", "phase", "winner",
    "privilege", "plague_reveals", "province_values", "event_face_up", "event_deck", "event_deck_len",
    "last_reveal", "battle_outcome", "battle_margin", "reserve", "set_aside", "marked_armies", "armies",
    "six_marks", "hand", "deck", "deck_len",
    "warlords", "sixes_revealed", "plagues_revealed", "hand_recycled_plagues",
}  # fmt: skip
ENGINE_FIELDS: tuple[Field, ...] = tuple(f for f in layout.FIELDS if f.name not in PUBLIC_FIELDS)
# Card names of a record's hand and deck: the kinds, then a recycled Plague copy (its deck entry id).
RECORD_CARDS = (*CARDS, RECYCLED_PLAGUE_NAME)
DEFAULT_ADJ = adjacency_masks()
# Counters that grow during a game, bounded by what one round can add beyond what a position written by hand
# may start with (see `_check_counters`): at most four Plague reveals and one `6` per side a round.
MAX_PLAGUE_REVEALS = 4 * N_ROUNDS
MAX_SIXES = N_ROUNDS + 2 * N_PROVINCES
MAX_MARGIN = int(np.abs(BATTLE_DIFF).max())  # R5.1, R8: the largest win, `10` against a countered Plague

# Exact range of every entry of each engine field (the task queue is checked entry by entry).
ENGINE_RANGES: dict[str, tuple[int, int]] = {
    "order_holder": (-1, 1),
    "out_of_game": (0, MAX_COPIES),
    "placed": (-1, NK - 1),
    "placed_recycled": (0, 1),
    "cancelled": (0, 1),
    "recycled": (0, 1),
    "revealed": (0, 1),
    "step": (0, layout.BS_DONE + 1),
    "place_province": (0, NP),
    "battle_province": (-1, NP - 1),
    "battle_winner": (-1, 1),
    "feint_on": (0, 1),
    "counter_on": (0, 1),
    "devastate_on": (0, 1),
    "window_after": (0, 1),
    "window_pos": (0, 2 * NW),
    "active_warlord": (-1, 2 * NW - 1),
    "march_from": (-1, NP - 1),
    "drawn": (-1, layout.RECYCLED_PLAGUE),
    "keep_left": (0, 2),
    "tasks": (-1, MAX_MARGIN),
    "task_len": (0, layout.MAX_TASKS),
    "chariot_pending": (0, 1),
    "ending": (0, 1),
    "decision_kind": (0, len(layout.DECISION_KINDS) - 1),
    "decision_side": (-1, 1),
    "decision_province": (-1, NP - 1),
    "decision_warlord": (-1, 2 * NW - 1),
    "decision_cause": (-1, len(layout.PAYMENT_CAUSES) - 1),
}


class RecordError(ValueError):
    """A game record that cannot be loaded; `field` names the key at fault (dotted, with indices)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"bad game record: {field}: {problem}")
        self.field = field


def _begin_round_values() -> np.ndarray:
    s = layout.new_state()
    engine.begin_round(s)
    return s


ROUND_START = _begin_round_values()  # every field as a round begins (tasks, chariot, ending: none)


# ---------------------------------------------------------------- writing


def _seat(side: int) -> str | None:
    return SEATS[side] if side >= 0 else None


def at_round_start(s: np.ndarray) -> bool:
    """True at the start of a round's placement, where the R11 keys alone describe the state."""
    return (
        int(s[layout.PHASE]) == layout.PH_PLACEMENT
        and int(s[layout.PLACE_PROV]) == 0
        and int(s[layout.PLACE_PROV + 1]) == 0
    )


def rules_of(s: np.ndarray) -> dict[str, Any]:
    """The record's `rules`: the rules version, variant, events, and the map when it is not the declared one."""
    rules: dict[str, Any] = {
        "version": RULES_VERSION,
        "variant": VARIANTS[s[layout.VARIANT]],
        "events": bool(s[layout.EVENTS_ON]),
    }
    masks = tuple(int(m) for m in s[layout.ADJ : layout.ADJ + NP])
    if masks != DEFAULT_ADJ:
        rules["adjacency"] = [
            [PROVINCES[i], PROVINCES[j]] for i in range(NP) for j in range(i + 1, NP) if masks[i] >> j & 1
        ]
    return rules


def record_from_state(s: np.ndarray) -> dict[str, Any]:
    """The state as the JSON shape of R11; "engine" carries what a state inside a round needs."""
    up = int(s[layout.EVENT_UP])
    winner = int(s[layout.WINNER])
    out: dict[str, Any] = {
        "rules": rules_of(s),
        "round": int(s[layout.ROUND]),
        "score": int(s[layout.SCORE]),
        "province_values": s[layout.VALUES : layout.VALUES + N_SCORINGS * NP].reshape(NP, N_SCORINGS).tolist(),
        "privilege": _seat(int(s[layout.PRIVILEGE])),
        "plague_reveals": int(s[layout.PLAGUE_REVEALS]),
        "events": {
            "face_up": EVENTS[up] if up >= 0 else None,
            "deck": [EVENTS[e] for e in s[layout.EVENT_DECK : layout.EVENT_DECK + s[layout.EVENT_DECK_LEN]]],
        },
    }
    if (
        s[layout.LAST_REVEAL : layout.LAST_REVEAL + 2 * NP] >= 0
    ).any():  # optional: the cards of the last finished round
        out["last_reveal"] = {
            seat: [CARDS[k] for k in s[layout.LAST_REVEAL + side * NP : layout.LAST_REVEAL + (side + 1) * NP]]
            for side, seat in enumerate(SEATS)
        }
    if s[layout.BATTLE_OUTCOME : layout.BATTLE_OUTCOME + NP].any():  # optional: each province's last battle
        out["battle_results"] = [battle_result(s, p) for p in range(NP)]
    for side, seat in enumerate(SEATS):
        out[seat] = _side_record(s, side)
    out["phase"] = layout.PHASE_NAMES[s[layout.PHASE]]
    out["winner"] = RESULTS[winner] if winner >= 0 else None
    if not at_round_start(s):
        out["engine"] = {f.name: s[f.offset : f.offset + f.size].tolist() for f in ENGINE_FIELDS}
    return out


def battle_result(s: np.ndarray, p: int) -> dict[str, Any] | None:
    """Province p's entry of `battle_results`: its last battle's outcome and margin toward blue, None for none."""
    outcome = int(s[layout.BATTLE_OUTCOME + p])
    if outcome == layout.BO_NONE:
        return None
    return {"outcome": layout.BATTLE_OUTCOMES[outcome], "margin": int(s[layout.BATTLE_MARGIN + p])}


def hand_names(s: np.ndarray, side: int) -> list[str]:
    """The side's hand as record card names, canonical order, recycled Plague copies as "P*" last."""
    recycled = int(s[layout.HAND_RECYCLED + side])
    counts = [int(c) for c in s[layout.HAND + side * NK : layout.HAND + (side + 1) * NK]]
    counts[CARD_PLAGUE] -= recycled
    return [CARDS[k] for k in range(NK) for _ in range(counts[k])] + [RECYCLED_PLAGUE_NAME] * recycled


def _side_record(s: np.ndarray, side: int) -> dict[str, Any]:
    deck = s[
        layout.DECK + side * layout.DECK_CAPACITY : layout.DECK
        + side * layout.DECK_CAPACITY
        + s[layout.DECK_LEN + side]
    ]
    wl: dict[str, list[str]] = {"held": [], "used": [], "unchosen": []}
    if s[layout.WARLORDS_ON]:
        for j, name in enumerate(WARLORDS[side]):
            wl[("unchosen", "held", "used")[int(s[layout.WARLORD + side * NW + j])]].append(name)
    return {
        "reserve": int(s[layout.RESERVE + side]),
        "set_aside": int(s[layout.SET_ASIDE + side]),
        "marked_armies": int(s[layout.MARKED + side]),
        "armies": s[layout.ARMIES + side * NP : layout.ARMIES + (side + 1) * NP].tolist(),
        "six_marks": s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP].tolist(),
        "hand": hand_names(s, side),
        "deck": [RECORD_CARDS[c] for c in deck],
        "sixes_revealed": int(s[layout.SIXES + side]),
        "plagues_revealed": int(s[layout.PLAGUES_SEEN + side]),
        "warlords": wl,
    }


# ---------------------------------------------------------------- reading: shape and range


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _int(value: Any, key: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise RecordError(key, f"expected an integer in [{lo}, {hi}], got {_shown(value)}")
    return value


def _list(value: Any, key: str, n: int | None = None, what: str = "values") -> list[Any]:
    if not isinstance(value, list) or (n is not None and len(value) != n):
        size = "a list" if n is None else f"a list of {n}"
        raise RecordError(key, f"expected {size} {what}, got {_shown(value)}")
    return value


def _ints(value: Any, key: str, n: int, lo: int, hi: int) -> list[int]:
    return [_int(v, f"{key}[{i}]", lo, hi) for i, v in enumerate(_list(value, key, n, "integers"))]


def _name(value: Any, key: str, names: tuple[str | None, ...]) -> Any:
    if not isinstance(value, (str, type(None))) or value not in names:
        shown = ", ".join("null" if n is None else repr(n) for n in names)
        raise RecordError(key, f"expected one of {shown}, got {_shown(value)}")
    return value


def _keys(d: Any, key: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise RecordError(key or "record", f"expected an object, got {_shown(d)}")
    for k in required:
        if k not in d:
            raise RecordError(f"{key}.{k}" if key else k, "missing key")
    for k in d:
        if k not in required and k not in optional:
            raise RecordError(f"{key}.{k}" if key else str(k), "unknown key")
    return d


def read_rules(rules: Any, key: str = "rules") -> dict[str, Any]:
    """A record's `rules` as `Game.new` keywords: variant, events and, when given, adjacency.

    The optional `version` is checked here and read by `rules_version`; it is not a keyword of `Game.new`.
    """
    _keys(rules, key, ("variant", "events"), ("adjacency", "version"))
    rules_version(rules, key)
    out: dict[str, Any] = {"variant": _name(rules["variant"], f"{key}.variant", VARIANTS)}
    if not isinstance(rules["events"], bool):
        raise RecordError(f"{key}.events", f"expected true or false, got {_shown(rules['events'])}")
    out["events"] = rules["events"]
    if "adjacency" in rules:
        pairs = _list(rules["adjacency"], f"{key}.adjacency", what="[province, province] pairs")
        for i, pair in enumerate(pairs):
            _list(pair, f"{key}.adjacency[{i}]", 2, "province names")
            for j, name in enumerate(pair):
                _name(name, f"{key}.adjacency[{i}][{j}]", PROVINCES)
            if pair[0] == pair[1]:
                raise RecordError(f"{key}.adjacency[{i}]", f"a province cannot border itself, got {pair!r}")
        out["adjacency"] = tuple((a, b) for a, b in pairs)
    return out


def record_generator(record: dict[str, Any]) -> str:
    """The generator that dealt a record's game (`suntzu_env.core.rng.GENERATORS`): its `generator`, or, in
    records made before it was named, the older one."""
    if "generator" not in record:
        return LEGACY_GENERATOR
    return _name(record["generator"], "record.generator", GENERATORS)


def rules_version(rules: dict[str, Any], key: str = "rules") -> str:
    """The rules version a record names (`RULES_VERSIONS`); "1" when it names none, as records of rules v1."""
    if "version" not in rules:
        return RULES_VERSIONS[0]
    return _name(rules["version"], f"{key}.version", RULES_VERSIONS)


def _cards(value: Any, key: str) -> list[int]:
    """Card names to deck entries: a kind's id, or RECYCLED_PLAGUE for "P*"."""
    cards = _list(value, key, what="card names")
    for i, c in enumerate(cards):
        _name(c, f"{key}[{i}]", RECORD_CARDS)
    return [RECORD_CARDS.index(c) for c in cards]


def _read_public(d: Any) -> np.ndarray:
    """The R11 keys into a state (engine fields at their round-start values)."""
    _keys(d, "", RECORD_KEYS, OPTIONAL_KEYS)
    rules = read_rules(d["rules"])
    variant = VARIANTS.index(rules["variant"])
    s = ROUND_START.copy()
    engine.set_variant(s, variant)
    s[layout.EVENTS_ON] = int(rules["events"])
    s[layout.ADJ : layout.ADJ + NP] = adjacency_masks(rules["adjacency"]) if "adjacency" in rules else DEFAULT_ADJ
    s[layout.ROUND] = _int(d["round"], "round", 1, N_ROUNDS)
    s[layout.SCORE] = _int(d["score"], "score", -MAX_SCORE, MAX_SCORE)
    rows = _list(d["province_values"], "province_values", NP, "rows of 3 values")
    for p, row in enumerate(rows):
        values = tuple(_ints(row, f"province_values[{p}]", 3, 1, 5))
        if values not in SCORE_DISPLAYS:
            raise RecordError(f"province_values[{p}]", f"{list(values)} is not one of the score displays (R1.2)")
        if values in [tuple(r) for r in rows[:p]]:
            raise RecordError(f"province_values[{p}]", f"the display {list(values)} is used twice (R3.1)")
        s[layout.VALUES + N_SCORINGS * p : layout.VALUES + N_SCORINGS * (p + 1)] = values
    s[layout.PRIVILEGE] = _side_index(_name(d["privilege"], "privilege", (None, *SEATS)))
    s[layout.PLAGUE_REVEALS] = _int(d["plague_reveals"], "plague_reveals", 0, 2 * MAX_PLAGUE_REVEALS)
    _read_events(s, d["events"], rules["events"])
    for side, seat in enumerate(SEATS):
        _read_side(s, d[seat], side, seat)
    _read_last_reveal(s, d.get("last_reveal"))
    _read_battle_results(s, d.get("battle_results"))
    s[layout.PHASE] = layout.PHASE_NAMES.index(_name(d["phase"], "phase", layout.PHASE_NAMES))
    winner = _name(d["winner"], "winner", (None, *RESULTS))
    s[layout.WINNER] = RESULTS.index(winner) if winner is not None else -1
    return s


def _side_index(seat: str | None) -> int:
    return SEATS.index(seat) if seat is not None else -1


def _read_last_reveal(s: np.ndarray, last: Any) -> None:
    """The optional `last_reveal` key: each seat's five cards of the last finished round (absent or null: none)."""
    s[layout.LAST_REVEAL : layout.LAST_REVEAL + 2 * NP] = -1
    if last is None:
        return
    _keys(last, "last_reveal", SEATS)
    if s[layout.ROUND] == 1:
        raise RecordError("last_reveal", "must be null in round 1: no round has finished")
    for side, seat in enumerate(SEATS):
        key = f"last_reveal.{seat}"
        cards = _list(last[seat], key, NP, "card names, one per province")
        for p, c in enumerate(cards):
            s[layout.LAST_REVEAL + side * NP + p] = CARDS.index(_name(c, f"{key}[{p}]", CARDS))
        for k in set(cards):
            if cards.count(k) > s[layout.KIND_COPIES + CARDS.index(k)]:
                raise RecordError(
                    key, f"{cards.count(k)} cards {k!r}, the side has {s[layout.KIND_COPIES + CARDS.index(k)]}"
                )


def _read_battle_results(s: np.ndarray, results: Any) -> None:
    """The optional `battle_results` key: per province null or {"outcome", "margin"} (absent or null: none)."""
    s[layout.BATTLE_OUTCOME : layout.BATTLE_OUTCOME + NP] = layout.BO_NONE
    s[layout.BATTLE_MARGIN : layout.BATTLE_MARGIN + NP] = 0
    if results is None:
        return
    for p, entry in enumerate(_list(results, "battle_results", NP, "results or nulls, one per province")):
        key = f"battle_results[{p}]"
        if entry is None:
            continue
        _keys(entry, key, ("outcome", "margin"))
        outcome = layout.BATTLE_OUTCOMES.index(_name(entry["outcome"], f"{key}.outcome", layout.BATTLE_OUTCOMES[1:]))
        most = {layout.BO_COMBAT: MAX_MARGIN, layout.BO_LIGHT_INFANTRY: LIGHT_INFANTRY_MARGIN}.get(outcome, 0)
        s[layout.BATTLE_OUTCOME + p] = outcome
        s[layout.BATTLE_MARGIN + p] = _int(entry["margin"], f"{key}.margin", -most, most)


def _read_events(s: np.ndarray, events: Any, events_on: bool) -> None:
    _keys(events, "events", ("face_up", "deck"))
    up = _name(events["face_up"], "events.face_up", (None, *EVENTS))
    deck = _list(events["deck"], "events.deck", what="event names")
    for i, e in enumerate(deck):
        _name(e, f"events.deck[{i}]", EVENTS)
    named = [e for e in [up, *deck] if e is not None]
    if len(set(named)) != len(named):
        raise RecordError("events", "an event card is listed twice")
    if not events_on and named:
        raise RecordError("events", "event cards listed while rules.events is false")
    if up is None and deck:
        raise RecordError("events.face_up", "null while the event deck is not empty")
    s[layout.EVENT_UP] = EVENTS.index(up) if up is not None else -1
    s[layout.EVENT_DECK : layout.EVENT_DECK + 5] = -1
    for i, e in enumerate(deck):
        s[layout.EVENT_DECK + i] = EVENTS.index(e)
    s[layout.EVENT_DECK_LEN] = len(deck)


def _read_side(s: np.ndarray, side_d: Any, side: int, seat: str) -> None:
    _keys(side_d, seat, SIDE_KEYS)
    s[layout.RESERVE + side] = _int(side_d["reserve"], f"{seat}.reserve", 0, ARMIES_PER_SIDE)
    s[layout.SET_ASIDE + side] = _int(side_d["set_aside"], f"{seat}.set_aside", 0, ARMIES_PER_SIDE)
    s[layout.MARKED + side] = _int(side_d["marked_armies"], f"{seat}.marked_armies", 0, ARMIES_PER_SIDE)
    armies = _ints(side_d["armies"], f"{seat}.armies", NP, 0, ARMIES_PER_SIDE)
    marks = _ints(side_d["six_marks"], f"{seat}.six_marks", NP, 0, 2)
    s[layout.ARMIES + side * NP : layout.ARMIES + (side + 1) * NP] = armies
    s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP] = marks
    total = int(s[layout.RESERVE + side] + s[layout.SET_ASIDE + side] + s[layout.MARKED + side]) + sum(armies)
    if total != ARMIES_PER_SIDE:
        raise RecordError(seat, f"I1: reserve + set_aside + marked_armies + sum(armies) is {total}, not 21")
    if s[layout.MARKED + side] > sum(marks):
        raise RecordError(f"{seat}.marked_armies", "more armies in six-mark boxes than six-marks")
    copies = s[layout.KIND_COPIES : layout.KIND_COPIES + NK].tolist()
    hand = _cards(side_d["hand"], f"{seat}.hand")
    deck = _cards(side_d["deck"], f"{seat}.deck")
    if len(deck) > layout.DECK_CAPACITY:
        raise RecordError(f"{seat}.deck", f"at most {layout.DECK_CAPACITY} cards, got {len(deck)}")
    for i, c in enumerate(deck):
        if c < N_BASE_CARDS:
            raise RecordError(f"{seat}.deck[{i}]", f"base card {CARDS[c]!r} in the deck (R3.2: they stay in hand)")
    s[layout.SIXES + side] = _int(side_d["sixes_revealed"], f"{seat}.sixes_revealed", sum(marks), MAX_SIXES)
    seen = _int(side_d["plagues_revealed"], f"{seat}.plagues_revealed", 0, copies[CARD_PLAGUE])
    s[layout.PLAGUES_SEEN + side] = seen
    for k in range(NK):
        held = sum(engine.card_kind(c) == k for c in hand + deck)
        if held > copies[k]:
            raise RecordError(f"{seat}.hand", f"{held} cards {CARDS[k]!r} in hand and deck, the side has {copies[k]}")
        s[layout.HAND + side * NK + k] = sum(engine.card_kind(c) == k for c in hand)
    s[layout.HAND_RECYCLED + side] = hand.count(layout.RECYCLED_PLAGUE)
    s[layout.DECK + side * layout.DECK_CAPACITY : layout.DECK + (side + 1) * layout.DECK_CAPACITY] = -1
    s[layout.DECK + side * layout.DECK_CAPACITY : layout.DECK + side * layout.DECK_CAPACITY + len(deck)] = deck
    s[layout.DECK_LEN + side] = len(deck)
    _read_warlords(s, side_d["warlords"], side, seat)


def _read_warlords(s: np.ndarray, wl: Any, side: int, seat: str) -> None:
    key = f"{seat}.warlords"
    _keys(wl, key, ("held", "used", "unchosen"))
    names = WARLORDS[side]
    listed: list[str] = []
    for status, part in ((layout.WL_HELD, "held"), (layout.WL_USED, "used"), (layout.WL_UNCHOSEN, "unchosen")):
        for i, name in enumerate(_list(wl[part], f"{key}.{part}", what=f"names of {seat}'s warlords")):
            _name(name, f"{key}.{part}[{i}]", names)
            s[layout.WARLORD + side * NW + names.index(name)] = status
            listed.append(name)
    on = bool(s[layout.WARLORDS_ON])
    expected = sorted(names) if on else []
    if sorted(listed) != expected:
        what = (
            f"each of {names} exactly once" if on else f"no warlords in the {VARIANTS[int(s[layout.VARIANT])]} variant"
        )
        raise RecordError(key, f"expected {what}")


def _read_engine(s: np.ndarray, eng: Any) -> None:
    _keys(eng, "engine", tuple(f.name for f in ENGINE_FIELDS))
    for f in ENGINE_FIELDS:
        lo, hi = ENGINE_RANGES[f.name]
        s[f.offset : f.offset + f.size] = _ints(eng[f.name], f"engine.{f.name}", f.size, lo, hi)


# ---------------------------------------------------------------- reading: consistency


class _Checker:
    """Consistency checks over a state read from a record; each failure names the record field."""

    def __init__(self, s: np.ndarray) -> None:
        self.s = s
        self.phase = int(s[layout.PHASE])
        self.warlords_on = bool(s[layout.WARLORDS_ON])

    def fail(self, field: str, problem: str) -> RecordError:
        public = "." in field or field.split("[")[0] in RECORD_KEYS + OPTIONAL_KEYS
        return RecordError(field if public else f"engine.{field}", problem)

    def expect(self, name: str, ok: Callable[[int], bool] | int, why: str) -> None:
        """Each entry of engine field `name` must pass `ok` (or equal it, for an int)."""
        f = layout.FIELD_BY_NAME[name]
        for i in range(f.size):
            value = int(self.s[f.offset + i])
            good = ok(value) if callable(ok) else value == ok
            if not good:
                at = f"{name}[{i}]" if f.size > 1 else name
                raise self.fail(at, f"{value} {why}")

    def as_round_start(self, names: tuple[str, ...], why: str) -> None:
        """Engine fields that must still hold their round-start values."""
        for name in names:
            f = layout.FIELD_BY_NAME[name]
            for i in range(f.size):
                if self.s[f.offset + i] != ROUND_START[f.offset + i]:
                    at = f"{name}[{i}]" if f.size > 1 else name
                    want = int(ROUND_START[f.offset + i])
                    raise self.fail(at, f"must be {want} {why}, got {int(self.s[f.offset + i])}")

    def card(self, side: int, p: int) -> int:
        return int(self.s[layout.PLACED + side * NP + p])

    def warlord(self, w: int) -> int:
        return int(self.s[layout.WARLORD + w])

    def event_gone(self, e: int) -> bool:
        """True when event `e` is in play (events on) and no longer face up or in the deck: it was applied."""
        s = self.s
        deck = s[layout.EVENT_DECK : layout.EVENT_DECK + s[layout.EVENT_DECK_LEN]]
        return bool(s[layout.EVENTS_ON]) and s[layout.EVENT_UP] != e and e not in deck


def check_public(s: np.ndarray) -> None:
    """Consistency of the R11 keys among themselves (any record)."""
    c = _Checker(s)
    _check_counters(c)
    if s[layout.ROUND] == 1 and s[layout.PRIVILEGE] >= 0:
        raise c.fail("privilege", "nobody gains the privilege in round 1 (R4.3)")
    for p in range(NP):
        if s[layout.ARMIES + p] and s[layout.ARMIES + NP + p]:
            raise c.fail(f"red.armies[{p}]", f"both sides have armies in {PROVINCES[p]}")
    over = c.phase == layout.PH_OVER
    if (s[layout.WINNER] >= 0) != over:
        raise c.fail("winner", "a winner is named exactly when the phase is 'over'")
    if s[layout.EVENTS_ON] and s[layout.EVENT_UP] < 0 and not over and not s[layout.ENDING]:
        raise c.fail("events.face_up", "null while the game goes on: the last event ends the game (R6.3)")
    for side, seat in enumerate(SEATS):
        _check_plague_copies(c, side, seat)
        _check_warlords(c, side, seat)
    _check_last_round_results(c)
    if over:
        _check_winner(c)


def _check_last_round_results(c: _Checker) -> None:
    """A province not revealed this round shows the result of its battle of the last round: none in round 1,
    and one the last round's cards could give when `last_reveal` tells them."""
    s = c.s
    for p in range(NP):
        if s[layout.REVEALED + p] or not s[layout.BATTLE_OUTCOME + p]:
            continue
        if s[layout.ROUND] == 1:
            raise c.fail(f"battle_results[{p}]", "must be null in round 1 until the province is revealed")
        if s[layout.LAST_REVEAL + p] >= 0:
            problem, _ = _past_battle(c, p, last_round=True)
            if problem:
                raise c.fail(*problem)


def _check_counters(c: _Checker) -> None:
    """R7.1, R7.4: Plague reveals and revealed `6`s grow by at most 4 and 1 a round (one `6`, two Plagues a
    side), beyond what a position written by hand may start with: its six-marks for the `6`s (each mark
    was a revealed `6`), `MAX_PLAGUE_REVEALS` for the Plagues. So no game loaded can overflow them."""
    s = c.s
    this_round = [[0, 0], [0, 0]]  # per side: `6`s, Plagues revealed this round
    if c.phase not in (layout.PH_WARLORDS, layout.PH_PLACEMENT):
        for side in range(2):
            for p in range(NP):
                if s[layout.REVEALED + p]:
                    this_round[side][0] += c.card(side, p) == CARD_SIX
                    this_round[side][1] += c.card(side, p) == CARD_PLAGUE
    rounds_before = int(s[layout.ROUND]) - 1
    seen = int(s[layout.PLAGUES_SEEN] + s[layout.PLAGUES_SEEN + 1])
    most = MAX_PLAGUE_REVEALS + 4 * rounds_before + this_round[0][1] + this_round[1][1]
    if not seen <= s[layout.PLAGUE_REVEALS] <= most:
        raise c.fail("plague_reveals", f"{int(s[layout.PLAGUE_REVEALS])} reveals: expected {seen}..{most} (R7.1)")
    p = int(s[layout.BATTLE_PROV])
    for side, seat in enumerate(SEATS):
        marks = int(s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP].sum())
        # R5.5: each mark is a revealed `6`; one revealed in the battle under way may not have marked yet
        pending = int(
            c.phase == layout.PH_BATTLE and p >= 0 and s[layout.STEP] <= layout.BS_MARKS and c.card(side, p) == CARD_SIX
        )
        if s[layout.SIXES + side] < marks + pending:
            raise c.fail(f"{seat}.sixes_revealed", f"fewer than the {marks + pending} `6`s that marked or will mark")
        most = marks + rounds_before + this_round[side][0]
        if s[layout.SIXES + side] > most:
            raise c.fail(
                f"{seat}.sixes_revealed", f"{int(s[layout.SIXES + side])}: one `6` a round, at most {most} (R7.4)"
            )


def _check_plague_copies(c: _Checker, side: int, seat: str) -> None:
    """R7.1, D6, P14: copies revealed before (recycled "P*") and never revealed ("P") add up with the
    side's count of copies revealed at least once."""
    s = c.s
    entries = [int(v) for v in s[layout.DECK + side * layout.DECK_CAPACITY :][: s[layout.DECK_LEN + side]]]
    entries += [int(v) for v in s[layout.DRAWN + side * 3 : layout.DRAWN + side * 3 + 3]]
    recycled = int(s[layout.HAND_RECYCLED + side]) + entries.count(layout.RECYCLED_PLAGUE)
    fresh = int(s[layout.HAND + side * NK + CARD_PLAGUE] - s[layout.HAND_RECYCLED + side]) + entries.count(CARD_PLAGUE)
    if c.phase != layout.PH_DRAW:
        for p in range(NP):
            if s[layout.PLACED + side * NP + p] == CARD_PLAGUE and not s[layout.RECYCLED + side * NP + p]:
                if s[layout.PLACED_RECYCLED + side * NP + p]:
                    recycled += 1
                elif not s[layout.REVEALED + p]:
                    fresh += 1
    seen = int(s[layout.PLAGUES_SEEN + side])
    copies = int(s[layout.KIND_COPIES + CARD_PLAGUE])
    if recycled > seen:
        raise c.fail(f"{seat}.plagues_revealed", f"{seen} copies revealed, but {recycled} recycled copies 'P*' in play")
    if fresh + seen > copies:
        raise c.fail(
            f"{seat}.plagues_revealed",
            f"{seen} of {copies} copies revealed, but {fresh} never-revealed copies 'P' in play",
        )


def _check_warlords(c: _Checker, side: int, seat: str) -> None:
    """R3.3, R7.4: one warlord chosen at setup, at most one more through war_chariot; head_start is spent at
    once. (Whether the game's history allowed the second one is not checked: a position may be written
    by hand.)"""
    s = c.s
    if not c.warlords_on:
        return
    statuses = [c.warlord(side * NW + j) for j in range(NW)]
    chosen = sum(st != layout.WL_UNCHOSEN for st in statuses)
    key = f"{seat}.warlords"
    if c.phase == layout.PH_WARLORDS:
        want = 1 if side == 0 and s[layout.STEP] == 1 else 0
        if chosen != want or layout.WL_USED in statuses:
            raise c.fail(
                key, f"{want} warlord(s) chosen and none used while {seat} {'has' if want else 'has not'} chosen"
            )
        return
    if side == 0 and statuses[W_HEAD_START] == layout.WL_HELD:
        raise c.fail(f"{key}.held", "head_start is spent as soon as both sides have chosen (R3.3)")
    if not 1 <= chosen <= 2:
        raise c.fail(key, f"{chosen} warlords chosen: one at setup and at most one more from war_chariot (R3.3, R7.4)")


def _check_six_marks(c: _Checker, side: int, seat: str) -> None:
    """R5.5, P4: one six-mark a province; only red's double_six allows a second, in one province, and that
    second `6` spends it."""
    marks = c.s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP].tolist()
    doubled = [p for p, m in enumerate(marks) if m > 1]
    if not doubled:
        return
    at = f"{seat}.six_marks[{doubled[0]}]"
    if side != 1 or not c.warlords_on:
        raise c.fail(at, f"two six-marks in {PROVINCES[doubled[0]]}: only red's double_six allows a second (P4)")
    if c.warlord(W_DOUBLE_SIX) != layout.WL_USED:
        raise c.fail(at, f"two six-marks in {PROVINCES[doubled[0]]} while double_six is unspent: the second `6` "
                         "there spends it (P4)")  # fmt: skip
    if len(doubled) > 1:
        at = f"{seat}.six_marks[{doubled[1]}]"
        raise c.fail(at, "two six-marks in a second province: double_six allows one second mark (P4)")


def _check_winner(c: _Checker) -> None:
    """R6.2, R6.4: the marker's half wins; at 0 the larger reserve, after the automatic recalls (D2)."""
    s = c.s
    score = int(s[layout.SCORE])
    if score:
        want = 0 if score > 0 else 1
    else:
        for side, seat in enumerate(SEATS):
            nonbase = int(s[layout.HAND + side * NK + N_BASE_CARDS : layout.HAND + (side + 1) * NK].sum())
            if s[layout.SET_ASIDE + side] and nonbase:
                raise c.fail(f"{seat}.set_aside", "at marker 0 the game ends with every possible recall made (D2)")
        blue, red = int(s[layout.RESERVE]), int(s[layout.RESERVE + 1])
        want = 0 if blue > red else 1 if red > blue else 2
    if s[layout.WINNER] != want:
        raise c.fail("winner", f"the marker and reserves give {RESULTS[want]!r} (R6.2, R6.4)")


# ---------------------------------------------------------------- reading: history


def check_history(s: np.ndarray) -> None:
    """What the round and the phase say has happened bounds the public fields (a position no game reaches)."""
    c = _Checker(s)
    for side, seat in enumerate(SEATS):
        _check_six_marks(c, side, seat)
    _check_marker(c)
    _check_reveals_per_round(c)
    _check_draws(c)
    _check_before_first_battle(c)
    _check_events_gone(c)
    for side, seat in enumerate(SEATS):
        _check_warlords_history(c, side, seat)


def _scorings_done(c: _Checker) -> int:
    """R4.5: scorings made so far (one counted at the end of a scoring round once its battles are over)."""
    r = int(c.s[layout.ROUND])
    done = sum(scoring_column(q) >= 0 for q in range(1, r))
    return done + int(scoring_column(r) >= 0 and c.phase in (layout.PH_DRAW, layout.PH_OVER))


def _check_marker(c: _Checker) -> None:
    """R3.3, R4.5, R6.1, D4: the marker moves only at a scoring, and by head_start once both sides have chosen;
    a scoring that leaves it at +-9 ends the game."""
    s = c.s
    score = int(s[layout.SCORE])
    head = HEAD_START_POINTS if c.warlords_on and c.warlord(W_HEAD_START) == layout.WL_USED else 0
    if _scorings_done(c) == 0 and score != head:
        raise c.fail("score", f"{score} before the first scoring (R4.5): the marker stands at {head} until then (R3.3)")
    if c.phase != layout.PH_OVER and abs(score) == MAX_SCORE:
        raise c.fail("score", f"{score} while the game goes on: a scoring that reaches +-{MAX_SCORE} ends it (R6.1)")


def _check_reveals_per_round(c: _Checker) -> None:
    """R4.1, R7.1, R7.4: a side reveals its one `6` at most once a round and each of its Plague copies at most
    once a round."""
    s = c.s
    rounds_before = int(s[layout.ROUND]) - 1
    this_round = [0, 0]  # per side: `6`s revealed this round
    plagues = 0  # Plagues revealed this round, both sides
    if c.phase not in (layout.PH_WARLORDS, layout.PH_PLACEMENT):
        for side in range(2):
            for p in range(NP):
                if s[layout.REVEALED + p]:
                    this_round[side] += c.card(side, p) == CARD_SIX
                    plagues += c.card(side, p) == CARD_PLAGUE
    for side, seat in enumerate(SEATS):
        most = rounds_before + this_round[side]
        if s[layout.SIXES + side] > most:
            raise c.fail(
                f"{seat}.sixes_revealed", f"{int(s[layout.SIXES + side])}: one `6` a round, at most {most} (R7.4)"
            )
    most = 2 * int(s[layout.KIND_COPIES + CARD_PLAGUE]) * rounds_before + plagues
    if s[layout.PLAGUE_REVEALS] > most:
        raise c.fail(
            "plague_reveals", f"{int(s[layout.PLAGUE_REVEALS])}: each Plague copy once a round, at most {most} (R7.1)"
        )


def _check_draws(c: _Checker) -> None:
    """R3.2, R4.6, R8: the deck starts with the non-base cards less the setup's draw; each round's draw takes
    one or two of them into the hand (all that is left of a short deck), and a recycle puts one back as it
    takes the top one out."""
    s = c.s
    first = int(s[layout.KIND_COPIES + N_BASE_CARDS : layout.KIND_COPIES + NK].sum()) - HAND_DRAW
    draws = int(s[layout.ROUND]) - 1
    lo = max(0, first - 2 * draws - (3 if c.phase == layout.PH_DRAW else 0))  # in the draw, 3 cards may be out
    hi = max(0, first - draws)
    for side, seat in enumerate(SEATS):
        n = int(s[layout.DECK_LEN + side])
        if not lo <= n <= hi:
            raise c.fail(f"{seat}.deck", f"{n} cards after {draws} draws: expected {lo}..{hi} (R3.2, R4.6)")


def _check_before_first_battle(c: _Checker) -> None:
    """R3.2, R3.4, R4.2: until the first window, the armies stand as set up but for recalls (each discards one
    card, the only card out of the game by then), and every event card is in play."""
    s = c.s
    if s[layout.ROUND] != 1 or c.phase != layout.PH_PLACEMENT:
        return
    start = VARIANT_RULES[int(s[layout.VARIANT])].start_set_aside
    for side, seat in enumerate(SEATS):
        for p in range(NP):
            if s[layout.ARMIES + side * NP + p]:
                raise c.fail(f"{seat}.armies[{p}]", "armies in a province before the first window or battle (R3.2)")
        out = int(s[layout.OUT + side * NK + N_BASE_CARDS : layout.OUT + (side + 1) * NK].sum())
        if out != start - s[layout.SET_ASIDE + side]:
            raise c.fail(
                f"{seat}.set_aside",
                f"{int(s[layout.SET_ASIDE + side])} of the {start} armies set aside at setup, with {out} cards out of "
                "the game: before the first battle only a recall discards a card, and it takes back one army (R4.2)",
            )
    if s[layout.EVENTS_ON] and s[layout.EVENT_DECK_LEN] != len(EVENTS) - 1:
        raise c.fail("events.deck", "every event card is in play before the first battle (R3.4, R7)")


def _check_events_gone(c: _Checker) -> None:
    """R7: an event leaves play only when applied, once its condition holds; those that look at the game so
    far (R7.1, R7.4) hold from then on."""
    for e in (E_PANDEMIC, E_WAR_CHARIOT):
        if c.event_gone(e) and not engine.event_holds(c.s, e, -1):
            raise c.fail("events.deck", f"{EVENTS[e]} has left play, but its condition never held (R7)")


def _check_warlords_history(c: _Checker, side: int, seat: str) -> None:
    """R3.3, R7.4, R8, P4: a second warlord comes from war_chariot, applied once the side revealed its third
    `6`; a warlord is spent only once it could act: head_start at setup, march/purge/reinforce in a window,
    the others in a battle (double_six by a second `6` where red's first marked)."""
    s = c.s
    if not c.warlords_on or c.phase == layout.PH_WARLORDS:
        return
    key = f"{seat}.warlords"
    statuses = [c.warlord(side * NW + j) for j in range(NW)]
    if sum(st != layout.WL_UNCHOSEN for st in statuses) > 1 and (
        not c.event_gone(E_WAR_CHARIOT) or s[layout.SIXES + side] < CHARIOT_SIXES
    ):
        raise c.fail(key, "two warlords chosen: the second comes only from war_chariot, after a third `6` (R7.4)")
    can_act = {W_HEAD_START}
    if s[layout.ROUND] > 1 or c.phase != layout.PH_PLACEMENT:
        can_act.update(WINDOW_WARLORDS)
    if s[layout.ROUND] > 1 or c.phase not in (layout.PH_PLACEMENT, layout.PH_WINDOW) or s[layout.WINDOW_AFTER]:
        can_act.update(range(2 * NW))
    for j, st in enumerate(statuses):
        w = side * NW + j
        if st == layout.WL_USED and w not in can_act:
            raise c.fail(f"{key}.used", f"{WARLORDS[side][j]} is spent before it could act (R8)")
    if side == 1 and statuses[W_DOUBLE_SIX - NW] == layout.WL_USED and s[layout.SIXES + side] < 2:
        raise c.fail(f"{key}.used", "double_six is spent by a second `6` where red's first one marked (P4)")


def check_inside_round(s: np.ndarray) -> None:
    """Consistency of the engine block with the public keys, the phase and the step."""
    c = _Checker(s)
    ph = c.phase
    for side, seat in enumerate(SEATS):
        for k in range(N_BASE_CARDS):
            if s[layout.OUT + side * NK + k]:
                raise c.fail(f"out_of_game[{side * NK + k}]", f"base card {CARDS[k]!r} of {seat} out of the game")
    _check_tasks_shape(c)
    for i in range(6):
        d = int(s[layout.DRAWN + i])
        if 0 <= d < N_BASE_CARDS:
            raise c.fail(f"drawn[{i}]", f"base card {CARDS[d]!r} drawn: base cards never enter the deck")
    if (s[layout.DEC_KIND] == layout.DK_NONE) != (ph == layout.PH_OVER) or (s[layout.DEC_SIDE] < 0) != (
        ph == layout.PH_OVER
    ):
        raise c.fail("decision_kind", "a decision is pending exactly while the game goes on")
    if ph == layout.PH_WARLORDS:
        if not c.warlords_on or s[layout.ROUND] != 1:
            raise c.fail("phase", "warlords are chosen only at the setup of a game with warlords (R3.3)")
        _check_setup(c)
        c.expect("step", lambda v: v in (0, 1), "is not a side choosing its warlord")
        c.as_round_start(_engine_names_except("step"), "at setup")
        return
    if ph == layout.PH_PLACEMENT:
        c.as_round_start(_engine_names_except("place_province", "placed", "placed_recycled"), "during placement")
        _check_placed(c, complete=False)
        _check_face_up_event(c)
        return
    _check_placed(c, complete=True)
    if ph == layout.PH_WINDOW and s[layout.WINDOW_AFTER] == 0:
        keep = ("place_province", "placed", "placed_recycled", "window_pos", "active_warlord", "march_from")
        c.as_round_start(_engine_names_except(*keep), "in the window before battles")
        _check_window(c)
        _check_face_up_event(c)
        return
    # From the privilege count on. A game that is over ended in a battle (R6.3) or after the battles.
    stage = (layout.PH_BATTLE if s[layout.ENDING] else layout.PH_WINDOW) if ph == layout.PH_OVER else ph
    holder = int(s[layout.PRIVILEGE]) if s[layout.ROUND] > 1 else -1
    c.expect("order_holder", holder, f"is not who holds the privilege after the count ({holder}, R4.3)")
    if stage != layout.PH_DRAW:
        c.as_round_start(("drawn", "keep_left"), "before the draw phase")
    if stage != layout.PH_BATTLE:
        c.as_round_start(("tasks", "task_len", "chariot_pending", "ending"), "outside a battle")
        c.expect("battle_province", -1, "while no battle is under way")
    revealed = [p for p in range(NP) if s[layout.REVEALED + p]]
    if stage in (layout.PH_WINDOW, layout.PH_DRAW):
        if len(revealed) != NP:
            raise c.fail("revealed", "every province is revealed once the battles are over")
        c.expect("window_after", 1, "once the battles are over")
        c.expect(
            "step",
            layout.BS_DONE + 1 if stage == layout.PH_WINDOW else (lambda v: v in (0, 1)),
            "is not this phase's step",
        )
    else:
        c.expect("window_after", 0, "before the battles are over")
    if ph != layout.PH_WINDOW:
        c.expect("window_pos", 2 * NW, "outside a window: the last window ran to its end")
        c.as_round_start(("active_warlord", "march_from"), "outside a window")
    if ph == layout.PH_WINDOW:
        _check_window(c)
    elif stage == layout.PH_DRAW:
        _check_draw(c)
    elif stage == layout.PH_REVEAL:
        c.expect("step", layout.BS_DONE + 1 if revealed else 0, "is not the reveal phase's step")
    if stage == layout.PH_BATTLE:
        _check_battle(c, revealed)
    else:
        _check_last_battle(c, revealed)
    ends_early = s[layout.ROUND] < N_ROUNDS and abs(int(s[layout.SCORE])) != MAX_SCORE
    if ph == layout.PH_OVER and stage == layout.PH_WINDOW and (s[layout.ROUND] % 3 or ends_early):
        raise c.fail("phase", "a game ends after the battles only at a scoring: round 9, or at +-9 (R6.1, R6.2)")
    _check_revealed_cards(c)
    _check_face_up_event(c)


def _engine_names_except(*names: str) -> tuple[str, ...]:
    keep = (*names, *_DECISION_FIELDS, "out_of_game")
    return tuple(f.name for f in ENGINE_FIELDS if f.name not in keep)


_DECISION_FIELDS = ("decision_kind", "decision_side", "decision_province", "decision_warlord", "decision_cause")


def _check_setup(c: _Checker) -> None:
    """R3: the warlords are chosen in the state the setup left."""
    s = c.s
    row = VARIANT_RULES[int(s[layout.VARIANT])]
    start = (row.start_reserve, row.start_set_aside)
    for side, seat in enumerate(SEATS):
        if (int(s[layout.RESERVE + side]), int(s[layout.SET_ASIDE + side])) != start:
            raise c.fail(f"{seat}.reserve", f"the armies stand as set up (R3.2): reserve and set-aside {start}")
        if (
            s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP].any()
            or s[layout.SIXES + side]
            or s[layout.PLAGUES_SEEN + side]
        ):
            raise c.fail(f"{seat}.six_marks", "nothing is revealed before the first round (R3)")
        nonbase = int(s[layout.HAND + side * NK + N_BASE_CARDS : layout.HAND + (side + 1) * NK].sum())
        if nonbase != HAND_DRAW or s[layout.HAND_RECYCLED + side]:
            raise c.fail(f"{seat}.hand", f"the hand holds the base cards and {HAND_DRAW} drawn cards at setup (R3.2)")
    if s[layout.SCORE] or s[layout.PRIVILEGE] >= 0 or s[layout.PLAGUE_REVEALS]:
        raise c.fail("score", "the marker stands at 0 and nothing is revealed at setup (R3)")
    if s[layout.EVENTS_ON] and s[layout.EVENT_DECK_LEN] != 4:
        raise c.fail("events.deck", "all five event cards are in play at setup (R3.4)")


def _check_tasks_shape(c: _Checker) -> None:
    """The slots after the queue of army transfers are empty (its entries are the battle's: `_check_battle`)."""
    s = c.s
    n = int(s[layout.TASK_LEN])
    for i in range(n * layout.TASK_SIZE, layout.MAX_TASKS * layout.TASK_SIZE):
        if s[layout.TASKS + i]:
            raise c.fail(f"tasks[{i}]", "slots after task_len must be 0")


def _check_placed(c: _Checker, complete: bool) -> None:
    """R4.1: cards placed in province order; a `6` only where allowed; P14: never-revealed Plagues first."""
    s = c.s
    for side, seat in enumerate(SEATS):
        n = NP if complete else int(s[layout.PLACE_PROV + side])
        if complete and s[layout.PLACE_PROV + side] != NP:
            raise c.fail(f"place_province[{side}]", f"{seat} has placed its five cards in this phase")
        fresh_after_recycled = False
        hand_fresh = int(s[layout.HAND + side * NK + CARD_PLAGUE] - s[layout.HAND_RECYCLED + side])
        for p in range(NP):
            k = c.card(side, p)
            at = f"placed[{side * NP + p}]"
            if (k >= 0) != (p < n):
                raise c.fail(at, f"{seat} has placed {n} cards, in province order (R4.1)")
            recycled_copy = int(s[layout.PLACED_RECYCLED + side * NP + p])
            if recycled_copy and k != CARD_PLAGUE:
                raise c.fail(f"placed_recycled[{side * NP + p}]", "set where the placed card is not a Plague")
            if (
                k == CARD_PLAGUE
                and not recycled_copy
                and any(s[layout.PLACED_RECYCLED + side * NP + q] for q in range(p))
            ):
                fresh_after_recycled = True
            unrevealed = not s[layout.REVEALED + p] or (
                p == s[layout.BATTLE_PROV] and s[layout.STEP] <= layout.BS_MARKS
            )
            if k == CARD_SIX and unrevealed and not engine.may_place_six_at(s, side, p):
                raise c.fail(at, f"a `6` where {seat} has marked, without double_six (R4.1, P4)")
        copies = s[layout.KIND_COPIES : layout.KIND_COPIES + NK]
        cards = [c.card(side, p) for p in range(NP)]
        for k in set(cards) - {-1}:
            if cards.count(k) > copies[k]:
                raise c.fail(f"placed[{side * NP + cards.index(k)}]", f"{seat} has {copies[k]} cards {CARDS[k]!r}")
            gone = sum(cards[p] == k and not s[layout.RECYCLED + side * NP + p] for p in range(NP))
            if c.phase == layout.PH_DRAW and k >= N_BASE_CARDS and s[layout.OUT + side * NK + k] < gone:
                raise c.fail(f"out_of_game[{side * NK + k}]", f"{seat}'s played {CARDS[k]!r} left the game (R4.6)")
        placed_recycled = s[layout.PLACED_RECYCLED + side * NP : layout.PLACED_RECYCLED + (side + 1) * NP].any()
        if fresh_after_recycled or (placed_recycled and hand_fresh > 0 and c.phase != layout.PH_DRAW):
            raise c.fail(f"placed_recycled[{side * NP}]", "a recycled Plague placed before a never-revealed one (P14)")


def _check_window(c: _Checker) -> None:
    """R8, P1, P3: the window warlord being offered or aimed, and march's source."""
    s = c.s
    pos, active, march = int(s[layout.WINDOW_POS]), int(s[layout.ACTIVE_WL]), int(s[layout.MARCH_FROM])
    if pos >= 2 * NW:
        raise c.fail("window_pos", "the window is over: no warlord is offered")
    if active >= 0 and (active != pos or active not in WINDOW_WARLORDS or c.warlord(active) != layout.WL_USED):
        raise c.fail("active_warlord", "is not the window warlord just used at window_pos")
    if march >= 0 and (active != W_MARCH or s[layout.ARMIES + march] == 0):
        raise c.fail("march_from", "march's source must be a province with a blue army, once march is used")


def _check_draw(c: _Checker) -> None:
    """R4.6: each side drew 3 (after playing its `1`) or 2, fewer only from an emptied deck, and keeps one
    fewer; blue keeps first, and the cards it leaves go to its deck once it is done."""
    s = c.s
    step = int(s[layout.STEP])
    if s[layout.ROUND] == N_ROUNDS or (s[layout.ROUND] % 3 == 0 and abs(int(s[layout.SCORE])) == MAX_SCORE):
        raise c.fail("phase", "the game ends after this round's scoring: there is no draw (R6.1, R6.2)")
    for side, seat in enumerate(SEATS):
        slots = [int(v) for v in s[layout.DRAWN + side * 3 : layout.DRAWN + side * 3 + 3]]
        held = sum(v >= 0 for v in slots)
        left = int(s[layout.KEEP_LEFT + side])
        if side < step:
            if held or left:
                raise c.fail(f"drawn[{side * 3}]", f"{seat} has already kept its cards")
            continue
        played_one = any(c.card(side, p) == CARD_ONE and not s[layout.CANCELLED + side * NP + p] for p in range(NP))
        draw = 3 if played_one else 2
        kept = range(draw + 1 - held) if side == step else (0,)  # the side asked now may have kept some
        drawn = [held + k for k in kept if min(draw - 1, held + k) - k == left]
        drawn = [n for n in drawn if n == draw or s[layout.DECK_LEN + side] == 0]
        if not drawn or any(v >= 0 for v in slots[max(drawn) :]):
            raise c.fail(
                f"keep_left[{side}]", f"{seat} holds {held} drawn cards and may keep {left}: not a draw of R4.6"
            )


def _check_battle(c: _Checker, revealed: list[int]) -> None:
    """R5.7: the battle under way, as far as its step has gone (or, game over, where R6.3 ended it): the
    engine, run from its start, stops there with the record's battle fields and queue (`replay_battle`)."""
    s = c.s
    p = int(s[layout.BATTLE_PROV])
    if p < 0 or not s[layout.REVEALED + p]:
        raise c.fail("battle_province", "a battle is under way in a revealed province")
    if s[layout.ORDER_HOLDER] < 0 and revealed != list(range(p + 1)):
        raise c.fail("revealed", "without a privilege holder the provinces are revealed in board order (R4.3)")
    step = int(s[layout.STEP])
    _check_replay(c, replay_battle(s, p, step), f"{PROVINCES[p]}'s battle at step {step}")
    for side, seat in enumerate(SEATS):
        if s[layout.CHARIOT + side] and sum(c.warlord(side * NW + j) != layout.WL_UNCHOSEN for j in range(NW)) != 1:
            raise c.fail(f"chariot_pending[{side}]", f"{seat} has already chosen its war_chariot warlord")
        owed = sum(
            int(s[layout.TASKS + i * layout.TASK_SIZE + layout.T_COUNT])
            for i in range(int(s[layout.TASK_LEN]))
            if s[layout.TASKS + i * layout.TASK_SIZE + layout.T_SIDE] == side
            and s[layout.TASKS + i * layout.TASK_SIZE + layout.T_DST] == layout.DST_MARK
        )
        if s[layout.MARKED + side] + owed > s[layout.SIX_MARKS + side * NP : layout.SIX_MARKS + (side + 1) * NP].sum():
            raise c.fail(f"{seat}.marked_armies", "the armies owed to six-marks find no mark without an army (R5.5)")


# Record fields of the state fields a battle sets that the R11 keys carry.
RESULT_KEYS = {"battle_outcome": "battle_results", "battle_margin": "battle_results"}
RESULT_KEYS |= {"event_face_up": "events.face_up", "event_deck": "events.deck", "event_deck_len": "events.deck"}


def _replay_problem(found: Replay, what: str) -> tuple[str, str] | None:
    """The record field and problem where a replayed battle did not reach the record; None when it did."""
    if found.problem is None:
        return None
    offset, value = found.problem
    if offset == layout.STEP:
        return "step", f"{what}: the engine neither asks a decision there nor ends the battle or game (R5.7)"
    f = next(f for f in layout.FIELDS if f.offset <= offset < f.offset + f.size)
    i = offset - f.offset
    if f.name in RESULT_KEYS:
        key = RESULT_KEYS[f.name] + (f"[{i}]" if f.name.startswith("battle_") else "")
    else:
        key = f"{f.name}[{i}]" if f.size > 1 else f.name
    return key, f"not what the engine sets in {what} with this record's cards, warlords and events ({value} there)"


def _check_replay(c: _Checker, found: Replay, what: str) -> None:
    problem = _replay_problem(found, what)
    if problem:
        raise c.fail(*problem)


def _check_last_battle(c: _Checker, revealed: list[int]) -> None:
    """Between battles and after them the battle fields still describe the last battle fought: one of the
    revealed provinces (the last in board order when nobody holds the privilege). When none fits, the one
    that fits best names the problem."""
    s = c.s
    if not revealed:
        c.as_round_start(("battle_winner", "feint_on", "counter_on", "devastate_on"), "before the first battle")
        return
    candidates = revealed if s[layout.ORDER_HOLDER] >= 0 else [max(revealed)]
    col = scoring_column(int(s[layout.ROUND]))
    before: tuple[int, ...] = ()
    if (
        c.phase in (layout.PH_DRAW, layout.PH_OVER) and col >= 0
    ):  # R4.5: this round's scoring has moved the marker since
        board = (
            s[layout.ARMIES : layout.ARMIES + NP],
            s[layout.ARMIES + NP : layout.ARMIES + 2 * NP],
            values_at(s, col),
        )
        before = tuple(v for v in range(1 - MAX_SCORE, MAX_SCORE) if projected_score(v, *board) == s[layout.SCORE])
    found = [(replay_battle(s, p, layout.BS_DONE + 1, scores=before), p) for p in candidates]
    if all(f.problem for f, _ in found):
        best, p = min(found, key=lambda fp: fp[0].misses)
        _check_replay(c, best, f"{PROVINCES[p]}'s battle, once over")


def _past_battle(c: _Checker, p: int, last_round: bool) -> tuple[tuple[str, str] | None, tuple[int, ...]]:
    """Province p's battle fought earlier (this round, or the last one with the cards of `last_reveal`): the
    engine, run from its start with some of the warlords used and events gone, leaves its recorded cancelled
    cards (this round) and result; the problem, and the warlords the run used."""
    s = c.s
    ranks = RESULT_FIELDS[:1] if last_round else RESULT_FIELDS
    cards = (int(s[layout.LAST_REVEAL + p]), int(s[layout.LAST_REVEAL + NP + p])) if last_round else None
    found = replay_battle(s, p, layout.BS_DONE + 1, ranks, cards, earlier=True)
    when = "the last round" if last_round else "this round"
    return _replay_problem(found, f"{PROVINCES[p]}'s battle of {when}"), found.acted


def _check_face_up_event(c: _Checker) -> None:
    """R7, P5: outside a battle the face-up event's condition does not hold (in one, its replay checks that)."""
    s = c.s
    up = int(s[layout.EVENT_UP])
    if up < 0:
        return
    if c.phase == layout.PH_BATTLE:  # the battle's replay has checked what its event step applied
        return
    if up not in (E_PANDEMIC, E_WAR_CHARIOT) or not engine.event_holds(s, up, -1):
        return
    raise c.fail("events.face_up", f"{EVENTS[up]}'s condition holds: it would have been applied (R7)")


def _check_revealed_cards(c: _Checker) -> None:
    """Past battles of this round: cancelled and recycled cards, flags and counters agree with the cards."""
    s = c.s
    countered = 0
    current = int(s[layout.BATTLE_PROV]) if c.phase == layout.PH_BATTLE or s[layout.ENDING] else -1
    revealed_sixes = [0, 0]
    fresh_plagues = [0, 0]
    plagues = 0
    for p in range(NP):
        cards = (c.card(0, p), c.card(1, p))
        for side in range(2):
            if not s[layout.REVEALED + p]:
                for name in ("cancelled", "recycled"):
                    if s[layout.FIELD_BY_NAME[name].offset + side * NP + p]:
                        raise c.fail(f"{name}[{side * NP + p}]", "set for a card not revealed yet")
                continue
            revealed_sixes[side] += cards[side] == CARD_SIX
            marked = p != current or s[layout.STEP] > layout.BS_MARKS
            unmarked = not s[layout.CANCELLED + side * NP + p] and not s[layout.SIX_MARKS + side * NP + p]
            if cards[side] == CARD_SIX and marked and unmarked:
                raise c.fail(f"{SEATS[side]}.six_marks[{p}]", "0 where a `6` was revealed this round (R5.5)")
            if cards[side] == CARD_PLAGUE:
                plagues += 1
                fresh_plagues[side] += not s[layout.PLACED_RECYCLED + side * NP + p]
            if s[layout.RECYCLED + side * NP + p]:
                w, k = (W_RECYCLE_MINUS_ONE, CARD_MINUS1) if side == 0 else (W_RECYCLE_PLAGUE, CARD_PLAGUE)
                if cards[side] != k or c.warlord(w) != layout.WL_USED:
                    raise c.fail(f"recycled[{side * NP + p}]", "set where no recycle warlord could act (R8)")
        if p == current or not s[layout.REVEALED + p]:
            continue
        problem, acted = _past_battle(c, p, last_round=False)
        if problem:
            raise c.fail(*problem)
        countered += W_COUNTER_PLAGUE in acted
    if countered + int(current >= 0 and s[layout.COUNTER_ON]) > 1:
        raise c.fail("cancelled", "counter_plague acts in one battle only (R8)")
    for side, seat in enumerate(SEATS):
        if s[layout.RECYCLED + side * NP : layout.RECYCLED + (side + 1) * NP].sum() > 1:
            raise c.fail(f"recycled[{side * NP}]", "a recycle warlord acts once (R8)")
        if s[layout.SIXES + side] < revealed_sixes[side]:
            raise c.fail(f"{seat}.sixes_revealed", f"fewer than the {revealed_sixes[side]} `6` revealed this round")
        if s[layout.PLAGUES_SEEN + side] < fresh_plagues[side]:
            raise c.fail(f"{seat}.plagues_revealed", "fewer than the Plague copies revealed this round")
    if s[layout.PLAGUE_REVEALS] < plagues:
        raise c.fail("plague_reveals", f"fewer than the {plagues} Plagues revealed this round")


# ---------------------------------------------------------------- reading: the engine's word


def _first_difference(a: np.ndarray, b: np.ndarray) -> str:
    i = int(np.flatnonzero(a != b)[0])
    f = next(f for f in layout.FIELDS if f.offset <= i < f.offset + f.size)
    return f"{f.name}[{i - f.offset}]" if f.size > 1 else f.name


# The record field to fix when `engine.check_invariants` fails (the others are checked before it runs).
INVARIANT_FIELDS = {I_CARDS: "engine.out_of_game", I_SIXES: "sixes_revealed", I_PLAGUES: "plagues_revealed"}


def check_with_engine(s: np.ndarray) -> int:
    """The engine's invariants hold, it would stop at this very decision, and that has >= 2 answers.

    Returns the number of legal answers (0 once the game is over).
    """
    code = int(engine.check_invariants(s))
    if code:
        raise RecordError(INVARIANT_FIELDS.get(code, "record"), f"breaks an invariant: {engine.INVARIANTS[code]}")
    t = s.copy()
    if t[layout.DEC_KIND] == layout.DK_REACTIVE:  # asked inside a battle step, which the step counter has passed
        t[layout.STEP] -= 1
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    try:
        engine.settle(t, mask)
    except RuntimeError as error:
        raise RecordError("engine", f"the engine cannot run on from this state ({error})") from None
    if not np.array_equal(t, s):
        name = _first_difference(t, s)
        where = name if name.split("[")[0] in {f.name for f in ENGINE_FIELDS} else "engine"
        raise RecordError(
            f"engine.{where}" if where != "engine" else where,
            "the engine would not stop at this decision"
            + (
                f" (it asks {layout.DECISION_KINDS[t[layout.DEC_KIND]]!r} of {_seat(int(t[layout.DEC_SIDE]))})"
                if t[layout.DEC_KIND]
                else ""
            ),
        )
    n = int(engine.legal_mask(s, mask))
    if s[layout.PHASE] != layout.PH_OVER and n < 2:
        raise RecordError("engine.decision_kind", f"the pending decision has {n} legal answers, not >= 2 (R10)")
    return n


# ---------------------------------------------------------------- reading: entry point


def state_from_record(d: Any, hand_made: bool = False) -> np.ndarray:
    """The state of an R11 record, run on to its first real decision; RecordError for a bad record.

    `hand_made`: a position set up by hand, not checked against the history that led to it
    (`check_history`). The returned state passes every other check of this module, so its own record loads
    back to it.
    """
    s = _read_public(d)
    if "engine" in d:
        _read_engine(s, d["engine"])
        check_public(s)
        if not hand_made:
            check_history(s)
        check_inside_round(s)
    else:
        if s[layout.PHASE] != layout.PH_PLACEMENT:
            raise RecordError("engine", "missing key: required unless phase is 'placement' at a round's start")
        _derive_out_of_game(s)
        check_public(s)
        if not hand_made:
            check_history(s)
        engine.advance(s, np.zeros(N_ACTIONS, dtype=np.int8))  # to the first placement decision
        check_inside_round(s)
    check_with_engine(s)
    return s


def _derive_out_of_game(s: np.ndarray) -> None:
    """At a round's start every card not in hand or deck is out of the game; base cards are in hand."""
    copies = s[layout.KIND_COPIES : layout.KIND_COPIES + NK]
    for side, seat in enumerate(SEATS):
        deck = [
            engine.card_kind(c) for c in s[layout.DECK + side * layout.DECK_CAPACITY :][: s[layout.DECK_LEN + side]]
        ]
        for k in range(NK):
            out = copies[k] - int(s[layout.HAND + side * NK + k]) - deck.count(k)
            if k < N_BASE_CARDS and out:
                raise RecordError(f"{seat}.hand", f"base card {CARDS[k]!r} must be in hand at a round's start")
            s[layout.OUT + side * NK + k] = out


def checked_state(state: np.ndarray) -> np.ndarray:
    """A copy of a raw state vector, if it is one the engine can be in (its record reads back to it, read as
    `hand_made`: a position is not checked against its history here)."""
    s = np.array(state, dtype=state.dtype, copy=True)
    hands = s[layout.HAND : layout.HAND + 2 * NK]
    if hands.min() < 0 or hands.max() > MAX_COPIES:
        raise RecordError("state", "hand counts out of range")
    try:
        record = record_from_state(s)
    except (IndexError, ValueError) as error:
        raise RecordError("state", f"a field is out of range ({error})") from None
    t = state_from_record(record, hand_made=True)
    if not np.array_equal(s, t):
        raise RecordError("state", f"field {_first_difference(t, s)} does not match the rest of the state")
    return t
