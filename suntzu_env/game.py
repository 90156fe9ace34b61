"""`Game`: the Python face of the engine, one game over one state vector."""

from __future__ import annotations

from typing import Any

import numpy as np

from suntzu_env import engine
from suntzu_env.actions import ACTION_STRINGS, N_ACTIONS, action_to_string, string_to_action
from suntzu_env.layout import (
    ADJ,
    ARMIES,
    DEC_CAUSE,
    DEC_KIND,
    DEC_PROV,
    DEC_SIDE,
    DEC_WARLORD,
    DECISION_KINDS,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DK_PLACE,
    EVENT_DECK,
    EVENT_DECK_LEN,
    EVENT_UP,
    EVENTS_ON,
    FIELDS,
    HAND,
    HAND_RECYCLED,
    MARKED,
    OUT,
    PAYMENT_CAUSES,
    PH_PLACEMENT,
    PHASE,
    PHASE_NAMES,
    PLACE_PROV,
    PLACED,
    PLAGUE_REVEALS,
    PLAGUES_SEEN,
    PRIVILEGE,
    RECYCLED_PLAGUE,
    RESERVE,
    ROUND,
    SCORE,
    SET_ASIDE,
    SIX_MARKS,
    SIXES,
    VALUES,
    VARIANT,
    WARLORD,
    WINNER,
    WL_HELD,
    WL_UNCHOSEN,
    WL_USED,
    new_state,
)
from suntzu_env.observation import OBSERVATION_SIZE, encode_observation
from suntzu_env.rules import (
    ARMIES_PER_SIDE,
    CARD_COPIES,
    CARD_PLAGUE,
    CARDS,
    EVENTS,
    MAX_SCORE,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    N_WARLORDS_PER_SIDE,
    PROVINCES,
    RECYCLED_PLAGUE_NAME,
    SEATS,
    VARIANTS,
    WARLORD_NAMES,
    WARLORDS,
    adjacency_masks,
)

NP, NK = N_PROVINCES, N_CARD_KINDS
RESULTS = ("blue", "red", "draw")
RECORD_KEYS = ("rules", "round", "score", "province_values", "privilege", "plague_reveals", "events")
RECORD_KEYS += ("blue", "red", "phase", "winner")
SIDE_KEYS = ("reserve", "set_aside", "marked_armies", "armies", "six_marks", "hand", "deck")
SIDE_KEYS += ("sixes_revealed", "plagues_revealed", "warlords")
# Fields that the R11 keys above already carry; every other field travels under "engine".
PUBLIC_FIELDS = {
    "variant", "events_on", "adjacency", "round", "score", "phase", "winner", "privilege",
    "plague_reveals", "province_values", "event_face_up", "event_deck", "event_deck_len", "reserve",
    "set_aside", "marked_armies", "armies", "six_marks", "hand", "deck", "deck_len", "warlords",
    "sixes_revealed", "plagues_revealed", "hand_recycled_plagues",
}  # fmt: skip
# Card names of a record's hand and deck: the kinds, then a recycled Plague copy (its deck entry id).
RECORD_CARDS = (*CARDS, RECYCLED_PLAGUE_NAME)
ENGINE_FIELDS = tuple(f for f in FIELDS if f.name not in PUBLIC_FIELDS)
DEFAULT_ADJ = adjacency_masks()


def _seat(side: int) -> str | None:
    return SEATS[side] if side >= 0 else None


def _side(seat: object) -> int:
    if seat not in SEATS:
        raise ValueError(f"seat must be one of {SEATS}, got {seat!r}")
    return SEATS.index(seat)  # type: ignore[arg-type]


def _checked_action(action: object, mask: np.ndarray, message: Any) -> int:
    """The action id of `action` if `mask` allows it, else ValueError(message())."""
    try:
        a = string_to_action(action) if isinstance(action, str) else action
    except ValueError:
        raise ValueError(message()) from None
    if not isinstance(a, (int, np.integer)) or isinstance(a, bool) or not 0 <= a < N_ACTIONS or not mask[a]:
        raise ValueError(message())
    return int(a)


class Game:
    """One game of Sun Tzu. Create with `Game.new`, `Game.from_dict` or `Game.replay`."""

    __slots__ = ("_actions", "_early", "_mask", "_n_legal", "_s", "_seed", "_start")

    def __init__(self, state: np.ndarray, seed: int | None = None, start: dict[str, Any] | None = None) -> None:
        self._s = state
        self._mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self._n_legal = engine.legal_mask(state, self._mask)
        self._seed = seed
        self._start = start
        self._actions: list[int] = []
        self._early: list[int] = []  # placements made before the seat was asked (simultaneous R4.1)

    # ------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        seed: int = 0,
        variant: str = "standard",
        events: bool = False,
        adjacency: tuple[tuple[str, str], ...] | None = None,
    ) -> Game:
        """A new game set up from `seed` (R3): the only randomness of the game."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        adj = np.array(adjacency_masks(adjacency) if adjacency is not None else DEFAULT_ADJ, dtype=np.int64)
        s = new_state()
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        engine.init_state(s, int(seed), VARIANTS.index(variant), int(bool(events)), adj, mask)
        return cls(s, seed=int(seed))

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """Rebuild a game from `record()`: same seed (or start) and actions, same game."""
        if not isinstance(record, dict):
            raise ValueError("record: expected a dict with keys 'seed', 'rules', 'actions'")
        for key in ("seed", "rules", "actions"):
            if key not in record:
                raise ValueError(f"record: missing key {key!r}")
        unknown = set(record) - {"seed", "rules", "actions", "start"}
        if unknown:
            raise ValueError(f"record: unknown key {sorted(unknown)[0]!r}")
        if record.get("start") is not None:
            game = cls.from_dict(record["start"])
        else:
            rules = _check_rules(record["rules"], "record.rules")
            game = cls.new(record["seed"], **rules)
        if not isinstance(record["actions"], list):
            raise ValueError("record.actions: expected a list of action strings")
        for i, action in enumerate(record["actions"]):
            try:
                game.apply(action)
            except ValueError as error:
                raise ValueError(f"record.actions[{i}]: {error}") from None
        return game

    # ------------------------------------------------------------ playing

    @property
    def current_player(self) -> str | None:
        """`"blue"` or `"red"`: who must answer the pending decision; None when the game is over."""
        return _seat(int(self._s[DEC_SIDE])) if self._n_legal else None

    @property
    def decision(self) -> dict[str, Any] | None:
        """The pending decision: kind, player, and the province, warlord or payment cause concerned."""
        if not self._n_legal:
            return None
        s = self._s
        p, w, cause = int(s[DEC_PROV]), int(s[DEC_WARLORD]), int(s[DEC_CAUSE])
        return {
            "kind": DECISION_KINDS[s[DEC_KIND]],
            "player": _seat(int(s[DEC_SIDE])),
            "province": PROVINCES[p] if p >= 0 else None,
            "warlord": WARLORD_NAMES[w] if w >= 0 else None,
            "cause": PAYMENT_CAUSES[cause] if cause >= 0 else None,
        }

    def legal_actions(self) -> list[int]:
        """The legal action ids of the pending decision (empty when over)."""
        return np.flatnonzero(self._mask).tolist()

    def legal_action_strings(self) -> list[str]:
        return [ACTION_STRINGS[a] for a in self.legal_actions()]

    def legal_mask(self) -> np.ndarray:
        """A copy of the int8 mask over all N_ACTIONS actions."""
        return self._mask.copy()

    def observation(self, seat: str, out: np.ndarray | None = None) -> np.ndarray:
        """What `seat` observes now (R9), as the float32 vector of `suntzu_env.observation`."""
        if out is None:
            out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        encode_observation(self._s, _side(seat), out)
        return out

    def apply(self, action: int | str) -> None:
        """Answer the pending decision with an action id or string; an illegal one changes nothing."""
        a = _checked_action(action, self._mask, lambda: self._illegal_message(action))
        placing = self._placing_side()
        self._n_legal = engine.step(self._s, int(a), self._mask)
        self._actions.append(int(a))
        if self._early and placing != self._placing_side():  # the record keeps R4.1's order
            self._actions += self._early
            self._early.clear()

    def _placing_side(self) -> int:
        """The side asked to place now, -1 outside placement decisions."""
        return int(self._s[DEC_SIDE]) if self._n_legal and self._s[DEC_KIND] == DK_PLACE else -1

    def placement_mask(self, seat: str) -> np.ndarray:
        """The int8 mask of `seat`'s own placement answers (R4.1, R4.2), whoever is asked now.

        Placement is simultaneous: while blue is asked for its cards, red may already place its own (see
        `apply_for`). All zero outside the placement phase or once the seat has placed its five cards.
        """
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        engine.placement_mask(self._s, _side(seat), mask)
        return mask

    def apply_for(self, seat: str, action: int | str) -> None:
        """Answer for `seat`: the pending decision if it is asked now, else its own next placement (R4.1).

        The record keeps the rules' order (blue's placements, then red's), so `Game.replay` reproduces
        the game. An illegal action raises ValueError naming the decision and the legal answers.
        """
        side = _side(seat)
        if self._n_legal and int(self._s[DEC_SIDE]) == side:
            self.apply(action)
            return
        mask = self.placement_mask(seat)
        if not mask.any():
            now = f"{self.current_player} is asked now" if self._n_legal else "the game is over"
            raise ValueError(f"illegal action {action!r} for {seat}: it has nothing to decide ({now})")
        a = _checked_action(action, mask, lambda: self._placement_message(seat, action, mask))
        if int(mask.sum()) >= 2:  # a single legal answer is never asked, so never recorded (R10)
            self._early.append(a)
        self._n_legal = engine.place_out_of_turn(self._s, side, a, self._mask)
        while True:  # the next single-answer placements of that seat are taken at once, as the engine would
            mask = self.placement_mask(seat)
            if int(mask.sum()) != 1:
                break
            engine.place_out_of_turn(self._s, side, int(np.flatnonzero(mask)[0]), self._mask)

    def _placement_message(self, seat: str, action: object, mask: np.ndarray) -> str:
        province = PROVINCES[int(self._s[PLACE_PROV + _side(seat)])]
        legal = ", ".join(ACTION_STRINGS[a] for a in np.flatnonzero(mask))
        return f"illegal action {action!r} for decision 'place' (player={seat} province={province}); legal: {legal}"

    def _illegal_message(self, action: object) -> str:
        shown = repr(action.item() if isinstance(action, np.integer) else action)
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < N_ACTIONS:
            shown = f"{int(action)} ({ACTION_STRINGS[action]})"
        if not self._n_legal:
            return f"illegal action {shown}: the game is over ({self.winner})"
        d = self.decision
        assert d is not None
        about = " ".join(f"{k}={v}" for k, v in d.items() if v is not None and k != "kind")
        return (
            f"illegal action {shown} for decision '{d['kind']}' ({about}); "
            f"legal: {', '.join(self.legal_action_strings())}"
        )

    @staticmethod
    def action_to_string(action: int) -> str:
        return action_to_string(action)

    @staticmethod
    def string_to_action(text: str) -> int:
        return string_to_action(text)

    @property
    def is_terminal(self) -> bool:
        return int(self._s[WINNER]) >= 0

    @property
    def winner(self) -> str | None:
        """`"blue"`, `"red"`, `"draw"`, or None while the game goes on."""
        w = int(self._s[WINNER])
        return RESULTS[w] if w >= 0 else None

    def returns(self) -> dict[str, float]:
        """R6.5: +1 win, -1 loss, 0 draw (0 for both while the game goes on)."""
        w = int(self._s[WINNER])
        if w in (0, 1):
            return {SEATS[w]: 1.0, SEATS[1 - w]: -1.0}
        return {"blue": 0.0, "red": 0.0}

    def clone(self) -> Game:
        """An independent copy: cloning is copying the state vector."""
        other = Game.__new__(Game)
        other._s = self._s.copy()
        other._mask = self._mask.copy()
        other._n_legal = self._n_legal
        other._seed = self._seed
        other._start = self._start
        other._actions = list(self._actions)
        other._early = list(self._early)
        return other

    @property
    def state(self) -> np.ndarray:
        """A read-only view of the state vector (see `suntzu_env.layout`)."""
        view = self._s.view()
        view.flags.writeable = False
        return view

    @property
    def round(self) -> int:
        return int(self._s[ROUND])

    @property
    def score(self) -> int:
        return int(self._s[SCORE])

    def record(self) -> dict[str, Any]:
        """`{"seed", "rules", "actions"}` (plus "start" for a game loaded with `from_dict`)."""
        out: dict[str, Any] = {"seed": self._seed, "rules": self._rules(), "actions": []}
        if self._start is not None:
            out["start"] = self._start
        out["actions"] = [ACTION_STRINGS[a] for a in self._actions + self._early]
        return out

    def _rules(self) -> dict[str, Any]:
        rules: dict[str, Any] = {"variant": VARIANTS[self._s[VARIANT]], "events": bool(self._s[EVENTS_ON])}
        masks = tuple(int(m) for m in self._s[ADJ : ADJ + NP])
        if masks != DEFAULT_ADJ:
            rules["adjacency"] = [
                [PROVINCES[i], PROVINCES[j]] for i in range(NP) for j in range(i + 1, NP) if masks[i] >> j & 1
            ]
        return rules

    # ------------------------------------------------------------ records (R11)

    def to_dict(self) -> dict[str, Any]:
        """The state as the JSON shape of R11; "engine" carries what a state inside a round needs."""
        s = self._s
        events_up = int(s[EVENT_UP])
        out: dict[str, Any] = {
            "rules": self._rules(),
            "round": int(s[ROUND]),
            "score": int(s[SCORE]),
            "province_values": s[VALUES : VALUES + 3 * NP].reshape(NP, 3).tolist(),
            "privilege": _seat(int(s[PRIVILEGE])),
            "plague_reveals": int(s[PLAGUE_REVEALS]),
            "events": {
                "face_up": EVENTS[events_up] if events_up >= 0 else None,
                "deck": [EVENTS[e] for e in s[EVENT_DECK : EVENT_DECK + s[EVENT_DECK_LEN]]],
            },
        }
        for side, seat in enumerate(SEATS):
            out[seat] = self._side_dict(side)
        out["phase"] = PHASE_NAMES[s[PHASE]]
        out["winner"] = self.winner
        if not self._at_round_start():
            out["engine"] = {f.name: s[f.offset : f.offset + f.size].tolist() for f in ENGINE_FIELDS}
        return out

    def _at_round_start(self) -> bool:
        s = self._s
        return int(s[PHASE]) == PH_PLACEMENT and int(s[PLACE_PROV]) == 0 and int(s[PLACE_PROV + 1]) == 0

    def _side_dict(self, side: int) -> dict[str, Any]:
        s = self._s
        hand = s[HAND + side * NK : HAND + (side + 1) * NK].copy()
        recycled = int(s[HAND_RECYCLED + side])
        hand[CARD_PLAGUE] -= recycled
        deck = s[DECK + side * DECK_CAPACITY : DECK + side * DECK_CAPACITY + s[DECK_LEN + side]]
        standard = s[VARIANT] == 0
        wl = {"held": [], "used": [], "unchosen": []}
        for j, name in enumerate(WARLORDS[side]):
            status = int(s[WARLORD + side * N_WARLORDS_PER_SIDE + j])
            if standard:
                wl[("unchosen", "held", "used")[status]].append(name)
        return {
            "reserve": int(s[RESERVE + side]),
            "set_aside": int(s[SET_ASIDE + side]),
            "marked_armies": int(s[MARKED + side]),
            "armies": s[ARMIES + side * NP : ARMIES + (side + 1) * NP].tolist(),
            "six_marks": s[SIX_MARKS + side * NP : SIX_MARKS + (side + 1) * NP].tolist(),
            "hand": [CARDS[k] for k in range(NK) for _ in range(hand[k])] + [RECYCLED_PLAGUE_NAME] * recycled,
            "deck": [RECORD_CARDS[c] for c in deck],
            "sixes_revealed": int(s[SIXES + side]),
            "plagues_revealed": int(s[PLAGUES_SEEN + side]),
            "warlords": wl,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Load an R11 record; bad records raise ValueError naming the key, and load nothing."""
        s = _state_from_dict(d)
        if "engine" not in d:
            engine.advance(s, np.zeros(N_ACTIONS, dtype=np.int8))
        code = engine.check_invariants(s)
        if code:
            raise ValueError(f"record breaks an invariant ({engine.INVARIANTS[code]})")
        return cls(s, seed=None, start=d)

    # ------------------------------------------------------------ display

    def __str__(self) -> str:
        return self.render()

    def render(self, seat: str | None = None) -> str:
        """A text board: round, marker, armies and marks per province; `seat`'s hand when asked."""
        s = self._s
        lines = [f"Sun Tzu, round {int(s[ROUND])}/{N_ROUNDS}, marker {int(s[SCORE]):+d} (+ toward blue)"]
        col = min(2, (int(s[ROUND]) - 1) // 3)
        for p, name in enumerate(PROVINCES):
            b, r = int(s[ARMIES + p]), int(s[ARMIES + NP + p])
            holder = "blue" if b else "red" if r else "-"
            marks = f"marks b{int(s[SIX_MARKS + p])} r{int(s[SIX_MARKS + NP + p])}"
            placed = [int(s[PLACED + side * NP + p]) for side in (0, 1)]
            cards = " ".join(CARDS[k] if k >= 0 else "." for k in placed) if s[PHASE] != PH_PLACEMENT else ""
            value = int(s[VALUES + 3 * p + col])
            lines.append(f"  {name:<8} worth {value}  {holder:<4} {max(b, r):>2}  {marks}  {cards}".rstrip())
        for side, seat_name in enumerate(SEATS):
            lines.append(
                f"  {seat_name:<4} reserve {int(s[RESERVE + side])}, set aside {int(s[SET_ASIDE + side])}, "
                f"marked {int(s[MARKED + side])}, deck {int(s[DECK_LEN + side])}"
            )
        if seat is not None:
            side = SEATS.index(seat)
            hand = self._side_dict(side)["hand"]
            lines.append(f"  {seat} hand: {' '.join(hand)}")
        if self.is_terminal:
            lines.append(f"  game over: {self.winner}")
        else:
            d = self.decision
            assert d is not None
            lines.append(f"  {d['player']} to act: {d['kind']}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Game(round={self.round}, score={self.score}, winner={self.winner!r})"


# ---------------------------------------------------------------- reading records


def _fail(key: str, problem: str) -> ValueError:
    return ValueError(f"bad game record: {key}: {problem}")


def _int(value: Any, key: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise _fail(key, f"expected an integer in [{lo}, {hi}], got {value!r}")
    return value


def _ints(value: Any, key: str, n: int, lo: int, hi: int) -> list[int]:
    if not isinstance(value, list) or len(value) != n:
        raise _fail(key, f"expected a list of {n} integers, got {value!r}")
    return [_int(v, f"{key}[{i}]", lo, hi) for i, v in enumerate(value)]


def _keys(d: Any, key: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    if not isinstance(d, dict):
        raise _fail(key, f"expected an object, got {d!r}")
    for k in required:
        if k not in d:
            raise _fail(f"{key}.{k}" if key else k, "missing key")
    for k in d:
        if k not in required and k not in optional:
            raise _fail(f"{key}.{k}" if key else str(k), "unknown key")


def _check_rules(rules: Any, key: str) -> dict[str, Any]:
    _keys(rules, key, ("variant", "events"), ("adjacency",))
    if rules["variant"] not in VARIANTS:
        raise _fail(f"{key}.variant", f"expected one of {VARIANTS}, got {rules['variant']!r}")
    if not isinstance(rules["events"], bool):
        raise _fail(f"{key}.events", f"expected true or false, got {rules['events']!r}")
    out: dict[str, Any] = {"variant": rules["variant"], "events": rules["events"]}
    if "adjacency" in rules:
        try:
            out["adjacency"] = tuple(tuple(pair) for pair in rules["adjacency"])
            adjacency_masks(out["adjacency"])
        except (TypeError, ValueError) as error:
            raise _fail(f"{key}.adjacency", str(error)) from None
    return out


def _cards(value: Any, key: str) -> list[int]:
    """Card names to deck entries: a kind's id, or RECYCLED_PLAGUE for "P*"."""
    if not isinstance(value, list) or any(c not in RECORD_CARDS for c in value):
        raise _fail(key, f"expected a list of cards from {RECORD_CARDS}, got {value!r}")
    return [RECORD_CARDS.index(c) for c in value]


def _state_from_dict(d: Any) -> np.ndarray:
    _keys(d, "", RECORD_KEYS, ("engine",))
    rules = _check_rules(d["rules"], "rules")
    variant = VARIANTS.index(rules["variant"])
    s = new_state()
    s[VARIANT] = variant
    s[EVENTS_ON] = int(rules["events"])
    masks = adjacency_masks(rules["adjacency"]) if "adjacency" in rules else DEFAULT_ADJ
    s[ADJ : ADJ + NP] = masks
    s[ROUND] = _int(d["round"], "round", 1, N_ROUNDS)
    s[SCORE] = _int(d["score"], "score", -MAX_SCORE, MAX_SCORE)
    values = d["province_values"]
    if not isinstance(values, list) or len(values) != NP:
        raise _fail("province_values", f"expected {NP} rows of 3 values, got {values!r}")
    for p, row in enumerate(values):
        s[VALUES + 3 * p : VALUES + 3 * p + 3] = _ints(row, f"province_values[{p}]", 3, 0, 99)
    if d["privilege"] not in (None, *SEATS):
        raise _fail("privilege", f"expected null, 'blue' or 'red', got {d['privilege']!r}")
    s[PRIVILEGE] = SEATS.index(d["privilege"]) if d["privilege"] else -1
    s[PLAGUE_REVEALS] = _int(d["plague_reveals"], "plague_reveals", 0, 4 * N_ROUNDS * NP)
    _keys(d["events"], "events", ("face_up", "deck"))
    up, deck = d["events"]["face_up"], d["events"]["deck"]
    if up is not None and up not in EVENTS:
        raise _fail("events.face_up", f"expected null or one of {EVENTS}, got {up!r}")
    if not isinstance(deck, list) or any(e not in EVENTS for e in deck):
        raise _fail("events.deck", f"expected a list of events from {EVENTS}, got {deck!r}")
    named = [e for e in [up, *deck] if e is not None]
    if len(set(named)) != len(named):
        raise _fail("events", "an event card is listed twice")
    if not rules["events"] and named:
        raise _fail("events", "event cards listed while rules.events is false")
    if up is None and deck:
        raise _fail("events.face_up", "null while the event deck is not empty")
    s[EVENT_UP] = EVENTS.index(up) if up else -1
    s[EVENT_DECK : EVENT_DECK + 5] = -1
    for i, e in enumerate(deck):
        s[EVENT_DECK + i] = EVENTS.index(e)
    s[EVENT_DECK_LEN] = len(deck)
    for side, seat in enumerate(SEATS):
        _side_from_dict(s, d[seat], side, seat, variant)
    for p in range(NP):
        if s[ARMIES + p] and s[ARMIES + NP + p]:
            raise _fail(f"armies[{p}]", f"both sides have armies in {PROVINCES[p]}")
    if d["phase"] not in PHASE_NAMES:
        raise _fail("phase", f"expected one of {PHASE_NAMES}, got {d['phase']!r}")
    if d["winner"] not in (None, *RESULTS):
        raise _fail("winner", f"expected null or one of {RESULTS}, got {d['winner']!r}")
    s[WINNER] = RESULTS.index(d["winner"]) if d["winner"] else -1
    s[PHASE] = PHASE_NAMES.index(d["phase"])
    if "engine" in d:
        _engine_from_dict(s, d["engine"])
    else:
        if d["phase"] != "placement" or d["winner"] is not None:
            raise _fail("engine", "missing key: required unless phase is 'placement' at a round's start")
        from suntzu_env.engine import _begin_round

        _begin_round(s)
        s[DEC_KIND] = 0
        _derive_out_of_game(s, variant)
    return s


def _side_from_dict(s: np.ndarray, side_d: Any, side: int, seat: str, variant: int) -> None:
    _keys(side_d, seat, SIDE_KEYS)
    s[RESERVE + side] = _int(side_d["reserve"], f"{seat}.reserve", 0, ARMIES_PER_SIDE)
    s[SET_ASIDE + side] = _int(side_d["set_aside"], f"{seat}.set_aside", 0, ARMIES_PER_SIDE)
    s[MARKED + side] = _int(side_d["marked_armies"], f"{seat}.marked_armies", 0, ARMIES_PER_SIDE)
    armies = _ints(side_d["armies"], f"{seat}.armies", NP, 0, ARMIES_PER_SIDE)
    marks = _ints(side_d["six_marks"], f"{seat}.six_marks", NP, 0, 2)
    s[ARMIES + side * NP : ARMIES + (side + 1) * NP] = armies
    s[SIX_MARKS + side * NP : SIX_MARKS + (side + 1) * NP] = marks
    total = int(s[RESERVE + side] + s[SET_ASIDE + side] + s[MARKED + side]) + sum(armies)
    if total != ARMIES_PER_SIDE:
        raise _fail(seat, f"I1: reserve + set_aside + marked_armies + sum(armies) is {total}, not 21")
    if s[MARKED + side] > sum(marks):
        raise _fail(f"{seat}.marked_armies", "more armies in six-mark boxes than six-marks")
    copies = CARD_COPIES[VARIANTS[variant]]
    hand = _cards(side_d["hand"], f"{seat}.hand")
    deck = _cards(side_d["deck"], f"{seat}.deck")
    if len(deck) > DECK_CAPACITY or any(k < N_BASE_CARDS for k in deck):
        raise _fail(f"{seat}.deck", f"at most {DECK_CAPACITY} non-base cards, got {side_d['deck']!r}")
    s[SIXES + side] = _int(side_d["sixes_revealed"], f"{seat}.sixes_revealed", sum(marks), N_ROUNDS)
    seen = _int(side_d["plagues_revealed"], f"{seat}.plagues_revealed", 0, copies[CARD_PLAGUE])
    s[PLAGUES_SEEN + side] = seen
    recycled = hand.count(RECYCLED_PLAGUE) + deck.count(RECYCLED_PLAGUE)
    if recycled > seen:
        raise _fail(f"{seat}.hand", f"{recycled} recycled Plague copies {RECYCLED_PLAGUE_NAME!r} but {seen} revealed")
    fresh = hand.count(CARD_PLAGUE) + deck.count(CARD_PLAGUE)
    if fresh > copies[CARD_PLAGUE] - seen:
        raise _fail(f"{seat}.hand", f"{fresh} never-revealed Plague copies 'P' but {seen} of 2 were revealed")
    s[HAND_RECYCLED + side] = hand.count(RECYCLED_PLAGUE)
    for k in range(NK):
        held = sum(engine.card_kind(c) == k for c in hand + deck)
        if held > copies[k]:
            raise _fail(f"{seat}.hand", f"{held} cards {CARDS[k]!r} in hand and deck, the side has {copies[k]}")
        s[HAND + side * NK + k] = sum(engine.card_kind(c) == k for c in hand)
    s[DECK + side * DECK_CAPACITY : DECK + (side + 1) * DECK_CAPACITY] = -1
    for i, c in enumerate(deck):
        s[DECK + side * DECK_CAPACITY + i] = c
    s[DECK_LEN + side] = len(deck)
    _warlords_from_dict(s, side_d["warlords"], side, seat, variant)


def _warlords_from_dict(s: np.ndarray, wl: Any, side: int, seat: str, variant: int) -> None:
    key = f"{seat}.warlords"
    _keys(wl, key, ("held", "used", "unchosen"))
    names = WARLORDS[side]
    listed: list[str] = []
    for status, part in ((WL_HELD, "held"), (WL_USED, "used"), (WL_UNCHOSEN, "unchosen")):
        if not isinstance(wl[part], list) or any(n not in names for n in wl[part]):
            raise _fail(f"{key}.{part}", f"expected a list of {seat}'s warlords {names}, got {wl[part]!r}")
        for name in wl[part]:
            s[WARLORD + side * N_WARLORDS_PER_SIDE + names.index(name)] = status
        listed += wl[part]
    expected = [] if variant == 1 else sorted(names)
    if sorted(listed) != expected:
        what = "no warlords in the beginner variant" if variant == 1 else f"each of {names} exactly once"
        raise _fail(key, f"expected {what}")


def _engine_from_dict(s: np.ndarray, eng: Any) -> None:
    _keys(eng, "engine", tuple(f.name for f in ENGINE_FIELDS))
    for f in ENGINE_FIELDS:
        s[f.offset : f.offset + f.size] = _ints(eng[f.name], f"engine.{f.name}", f.size, -1, 2**20)


def _derive_out_of_game(s: np.ndarray, variant: int) -> None:
    """At a round's start every card not in hand or deck is out of the game; base cards are in hand."""
    copies = CARD_COPIES[VARIANTS[variant]]
    for side, seat in enumerate(SEATS):
        deck = [
            engine.card_kind(c)
            for c in s[DECK + side * DECK_CAPACITY : DECK + side * DECK_CAPACITY + s[DECK_LEN + side]]
        ]
        for k in range(NK):
            out = copies[k] - int(s[HAND + side * NK + k]) - deck.count(k)
            if k < N_BASE_CARDS and out:
                raise _fail(f"{seat}.hand", f"base card {CARDS[k]!r} must be in hand at a round's start")
            s[OUT + side * NK + k] = out
