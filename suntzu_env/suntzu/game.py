"""`Game`: the Python face of the engine, one game over one state vector."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from suntzu_env.core.checks import action_shown, check_seed, illegal_message
from suntzu_env.core.fields import IntEntry
from suntzu_env.core.rng import GENERATOR
from suntzu_env.core.state_game import StateGame
from suntzu_env.suntzu import determinize, engine, records
from suntzu_env.suntzu.actions import ACTION_STRINGS, N_ACTIONS, action_to_string, string_to_action
from suntzu_env.suntzu.layout import (
    DEC_CAUSE,
    DEC_KIND,
    DEC_PROV,
    DEC_SIDE,
    DEC_WARLORD,
    DECISION_KINDS,
    DK_PLACE,
    FIELDS,
    PAYMENT_CAUSES,
    PLACE_PROV,
    ROUND,
    SCORE,
    STATE_DTYPE,
    STATE_SIZE,
    WINNER,
    new_state,
)
from suntzu_env.suntzu.observation import OBSERVATION_SIZE, encode_observation
from suntzu_env.suntzu.older_rules import V1_DIFFERS, v1_departure
from suntzu_env.suntzu.options import OPTION_FIELDS, Options, check_seat
from suntzu_env.suntzu.render import board_text
from suntzu_env.suntzu.rules import (
    N_PROVINCES,
    PROVINCES,
    RULES_VERSION,
    SCORING_ROUNDS,
    SEATS,
    VARIANTS,
    WARLORD_NAMES,
    adjacency_masks,
)
from suntzu_env.suntzu.tables import next_scoring_column

RESULTS = records.RESULTS
DEFAULT_ADJ = records.DEFAULT_ADJ


def _seat(side: int) -> str | None:
    return SEATS[side] if side >= 0 else None


def _checked_action(action: object, mask: np.ndarray, message: Any) -> int:
    """The action id of `action` if `mask` allows it, else ValueError(message())."""
    try:
        a = string_to_action(action) if isinstance(action, str) else action
    except ValueError:
        raise ValueError(message()) from None
    if not isinstance(a, (int, np.integer)) or isinstance(a, bool) or not 0 <= a < N_ACTIONS or not mask[a]:
        raise ValueError(message())
    return int(a)


class Game(StateGame):
    """One game of Sun Tzu. Create with `Game.new`, `Game.from_dict` or `Game.replay`."""

    __slots__ = ("_actions", "_early", "_legacy", "_mask", "_n_legal", "_options", "_s", "_seed", "_start")
    STATE_FIELDS = FIELDS
    WINNER_AT = WINNER
    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    def __init__(self, state: np.ndarray) -> None:
        """A game at a copy of `state` (see `suntzu_env.suntzu.layout`), checked as a record would be.

        Raises TypeError for anything but an int32 vector of the layout's size and ValueError for a
        state the engine cannot be in.
        """
        if not isinstance(state, np.ndarray) or state.dtype != STATE_DTYPE or state.ndim != 1:
            raise TypeError(f"state must be a 1-D {np.dtype(STATE_DTYPE).name} numpy array, got {state!r:.60}")
        if state.shape != (STATE_SIZE,):
            raise ValueError(f"state must have shape ({STATE_SIZE},), got {state.shape}")
        s = records.checked_state(state)
        self._setup(s, None, None)

    def _setup(
        self, state: np.ndarray, seed: int | None, start: dict[str, Any] | None, options: Options | None = None
    ) -> None:
        self._s = state
        self._options = options  # None: read from the state when asked
        self._mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self._n_legal = engine.legal_mask(state, self._mask)
        self._seed = seed
        self._legacy = False  # dealt by the generator of records that name none (`Game.replay` of one)
        self._start = start
        self._actions: list[int] = []
        self._early: list[int] = []  # placements made before the seat was asked (simultaneous R4.1)

    @classmethod
    def _trusted(
        cls,
        state: np.ndarray,
        seed: int | None = None,
        start: dict[str, Any] | None = None,
        options: Options | None = None,
    ) -> Game:
        """A game over `state` as the engine or the record reader left it (no checks)."""
        game = cls.__new__(cls)
        game._setup(state, seed, start, options)
        return game

    # ------------------------------------------------------------ creation

    @classmethod
    def new(cls, seed: int = 0, options: Options | None = None, *positional: Any, **fields: Any) -> Game:
        """A new game set up from `seed` (R3): the only randomness of the game.

        `seed` is an int (numpy integers too) in [0, 2**63); `options` the rules it is played under (an
        `Options`, or None for the defaults), with any of its fields given as keywords on top:
        `Game.new(0, variant="beginner", events=True)` is `Game.new(0, Options(variant="beginner", events=True))`.
        The older positional form `Game.new(seed, variant, events, adjacency)` still works.
        A wrong type raises TypeError, a bad value ValueError (see `suntzu_env.suntzu.options`).
        """
        if isinstance(options, str) or positional:  # the positional form: variant, events, adjacency
            given = dict(zip(OPTION_FIELDS, (options, *positional), strict=False))
            if len(positional) >= len(OPTION_FIELDS) or given.keys() & fields.keys():
                raise TypeError("Game.new takes seed, then options (or variant, events, adjacency) once each")
            options, fields = None, {**given, **fields}
        return cls._dealt(check_seed(seed), Options.of(options, **fields), legacy=False)

    @classmethod
    def _dealt(cls, seed: int, options: Options, legacy: bool) -> Game:
        """A new game of a checked seed and options, dealt by the generator of new games or (`legacy`) by that of
        records that name none (`suntzu_env.core.rng`)."""
        s = new_state()
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        variant, events = VARIANTS.index(options.variant), int(options.events)
        engine.init_state(s, seed, variant, events, engine_map(options), mask, legacy)
        game = cls._trusted(s, seed=seed, options=options)
        game._legacy = legacy
        return game

    @classmethod
    def replay(cls, record: dict[str, Any], *, hand_made: bool = False) -> Game:
        """Rebuild a game from `record()`: same seed (or start) and actions, same game.

        `hand_made`: the start is a position set up by hand (see `from_dict`).

        A record that is not a dict raises TypeError; a bad record ValueError naming the key. A record of
        rules v1 (`rules.version` "1", or none) replays only as far as rules v1.1 play it the same: where
        they differ (D14-D16, `suntzu_env.suntzu.older_rules`) it raises ValueError naming the action.
        """
        if not isinstance(record, dict):
            raise TypeError(f"record must be a dict with keys 'seed', 'rules', 'actions', got {type(record).__name__}")
        for key in ("seed", "rules", "actions"):
            if key not in record:
                raise ValueError(f"record: missing key {key!r}")
        unknown = set(record) - {"seed", "generator", "rules", "actions", "start"}
        if unknown:
            raise ValueError(f"record: unknown key {sorted(map(str, unknown))[0]!r}")
        rules = records.read_rules(record["rules"], "record.rules")
        older = records.rules_version(record["rules"], "record.rules") != RULES_VERSION
        if record.get("start") is not None:
            if not isinstance(record["start"], dict):
                raise ValueError(f"record.start: expected a game record (R11), got {type(record['start']).__name__}")
            game = cls.from_dict(record["start"], hand_made=hand_made)
        else:
            try:
                seed = check_seed(record["seed"], "record.seed")
            except TypeError as error:
                raise ValueError(str(error)) from None
            game = cls._dealt(seed, Options.of(None, **rules), legacy=records.record_generator(record) != GENERATOR)
        if not isinstance(record["actions"], list):
            raise ValueError("record.actions: expected a list of action strings")
        for i, action in enumerate(record["actions"]):
            if not isinstance(action, str):
                raise ValueError(f"record.actions[{i}]: expected an action string, got {action!r}")
            if older:
                game._refuse_older(action, f"record.actions[{i}]")
            try:
                game.apply(action)
            except ValueError as error:
                raise ValueError(f"record.actions[{i}]: {error}") from None
        if older:  # where v1 went on past a moment v1.1 asks about
            game._refuse_older(None, "record.actions")
        return game

    def _refuse_older(self, action: str | None, key: str) -> None:
        """Raise `records.RecordError` where a record of rules v1 stops being played exactly (`older_rules`)."""
        why = v1_departure(self._s, self._mask, action)
        if why is not None:
            raise records.RecordError(key, f"{V1_DIFFERS}: {why}")

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
        """What `seat` observes now (R9), as the float32 vector of `suntzu_env.suntzu.observation`.

        `out`, if given, must be a writeable float32 array of shape (OBSERVATION_SIZE,); it is filled and
        returned.
        """
        side = check_seat(seat)
        if out is None:
            out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        else:
            check_observation_buffer(out)
        encode_observation(self._s, side, out)
        return out

    def apply(self, action: int | str) -> None:
        """Answer the pending decision with an action id or string; an illegal one changes nothing."""
        if type(action) is int and 0 <= action < N_ACTIONS and self._mask[action]:
            a = action  # the common case, checked without a detour
        else:
            a = _checked_action(action, self._mask, lambda: self._illegal_message(action))
        if not self._early:
            self._n_legal = engine.step(self._s, a, self._mask)
            self._actions.append(a)
            return
        placing = self._placing()
        self._n_legal = engine.step(self._s, a, self._mask)
        self._actions.append(a)
        if placing != self._placing():  # the record keeps R4.1's order: the early placements come now
            self._actions += self._early
            self._early.clear()

    def _placing(self) -> tuple[int, int]:
        """The side asked to place now (-1 outside placement decisions) and the round: when either changes, the
        side asked has placed its cards of that round, even when the round runs on to the next placement."""
        side = int(self._s[DEC_SIDE]) if self._n_legal and self._s[DEC_KIND] == DK_PLACE else -1
        return side, int(self._s[ROUND])

    def placement_mask(self, seat: str) -> np.ndarray:
        """The int8 mask of `seat`'s own placement answers (R4.1, R4.2), whoever is asked now.

        Placement is simultaneous: while blue is asked for its cards, red may already place its own (see
        `apply_for`). All zero outside the placement phase or once the seat has placed its five cards.
        """
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        engine.placement_mask(self._s, check_seat(seat), mask)
        return mask

    def apply_for(self, seat: str, action: int | str) -> None:
        """Answer for `seat`: the pending decision if it is asked now, else its own next placement (R4.1).

        The record keeps the rules' order (blue's placements, then red's), so `Game.replay` reproduces
        the game. An illegal action raises ValueError naming the decision and the legal answers.
        """
        side = check_seat(seat)
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
        province = PROVINCES[int(self._s[PLACE_PROV + SEATS.index(seat)])]
        legal = (ACTION_STRINGS[a] for a in np.flatnonzero(mask))
        return illegal_message(repr(action), "place", f"player={seat} province={province}", legal)

    def _illegal_message(self, action: object) -> str:
        shown = action_shown(action, N_ACTIONS, ACTION_STRINGS.__getitem__)
        if not self._n_legal:
            return illegal_message(shown, None, over=str(self.winner))
        d = self.decision
        assert d is not None
        about = " ".join(f"{k}={v}" for k, v in d.items() if v is not None and k != "kind")
        return illegal_message(shown, d["kind"], about, self.legal_action_strings())

    @property
    def winner(self) -> str | None:
        """`"blue"`, `"red"`, `"draw"`, or None while the game goes on."""
        w = int(self._s[WINNER])
        return RESULTS[w] if w >= 0 else None

    def battle_results(self) -> list[dict[str, Any] | None]:
        """Per province (board order), the result of the last battle fought there, as the engine decided it
        (public): an entry of R11's `battle_results`, `{"outcome", "margin"}` (outcome `combat`, `plague`,
        `devastating_plague` or `light_infantry`, R5.1-R5.3, R7.5; margin toward blue), or None: no battle
        there yet, or the battle under way has not reached its result (R5.7: its reactive warlords and
        six-marks come first). A province not revealed this round shows the last round's result.
        """
        return [records.battle_result(self._s, p) for p in range(N_PROVINCES)]

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
        other._options = self._options
        other._mask = self._mask.copy()
        other._n_legal = self._n_legal
        other._seed = self._seed
        other._legacy = self._legacy
        other._start = self._start
        other._actions = list(self._actions)
        other._early = list(self._early)
        return other

    def sample_determinization(self, seat: str, rng: np.random.Generator | int | None = None) -> Game:
        """A full game `seat` cannot tell from this one (R9), its hidden parts resampled, for search.

        The opponent's hand, face-down and drawn cards, both deck orders, the event order and the
        opponent's unused warlords are drawn again within the rules' constraints (`suntzu_env.suntzu.determinize`);
        the result depends only on what `seat` knows and on `rng` (a numpy Generator or a seed).
        """
        return Game(determinize.sample_determinization(self._s, SEATS[check_seat(seat)], rng))

    @property
    def options(self) -> Options:
        """The rules this game is played under: variant, events, map."""
        if self._options is None:
            rules = records.rules_of(self._s)
            adjacency = rules.get("adjacency")
            self._options = Options(
                rules["variant"], rules["events"], None if adjacency is None else tuple(map(tuple, adjacency))
            )
        return self._options

    round = IntEntry("_s", ROUND, "The round, 1..9.")
    score = IntEntry("_s", SCORE, "The marker, + toward blue (R4.5).")

    @property
    def next_scoring_round(self) -> int:
        """The round of the next scoring (R4.5): 3, 6 or 9 (9 from round 7 on, and once the game is over)."""
        return SCORING_ROUNDS[next_scoring_column(int(self._s[ROUND]))]

    def projected_score(self) -> int:
        """The marker toward blue as it would stand if the next scoring (R4.5) were made now, in [-9, 9].

        Each province held scores its value at `next_scoring_round`.
        """
        return int(engine.projected_marker(self._s))

    def record(self) -> dict[str, Any]:
        """`{"seed", "rules", "actions"}` (plus "start" for a game loaded with `from_dict`); a fresh copy."""
        out: dict[str, Any] = {"seed": self._seed, "rules": records.rules_of(self._s), "actions": []}
        if self._seed is not None and not self._legacy:
            out["generator"] = GENERATOR
        if self._start is not None:
            out["start"] = copy.deepcopy(self._start)
        out["actions"] = [ACTION_STRINGS[a] for a in self._actions + self._early]
        return out

    # ------------------------------------------------------------ records (R11)

    def to_dict(self) -> dict[str, Any]:
        """The state as the JSON shape of R11; "engine" carries what a state inside a round needs."""
        return records.record_from_state(self._s)

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, hand_made: bool = False) -> Game:
        """Load an R11 record; a bad one raises ValueError (`records.RecordError`) naming the key.

        Every field is checked (see `suntzu_env.suntzu.records`): a record loads only as a state the engine can
        be in and play on from, and one that no game reaches by its round and phase is refused unless
        `hand_made` (a position set up by hand, e.g. a test's scenario). The game keeps its own copy of `d`.
        """
        if not isinstance(d, dict):
            raise TypeError(f"a game record must be a dict (R11), got {type(d).__name__}")
        start = copy.deepcopy(d)
        return cls._trusted(records.state_from_record(start, hand_made), start=start)

    # ------------------------------------------------------------ display

    def __str__(self) -> str:
        return self.render()

    def render(self, seat: str | None = None) -> str:
        """The board as text: the public view (R9), or what `seat` sees (its hand and face-down cards)."""
        return board_text(self._s, seat=None if seat is None else check_seat(seat))

    def __repr__(self) -> str:
        return f"Game(round={self.round}, score={self.score}, winner={self.winner!r})"


def engine_map(options: Options) -> np.ndarray:
    """The engine's map (a neighbour bit mask per province) of `options`."""
    pairs = options.adjacency
    return np.array(adjacency_masks(pairs) if pairs is not None else DEFAULT_ADJ, dtype=np.int64)


def check_observation_buffer(out: Any) -> None:
    """`out=` for an observation: a writeable float32 numpy array of shape (OBSERVATION_SIZE,)."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, got {type(out).__name__}")
    if out.dtype != np.float32:
        raise TypeError(f"out must have dtype float32, got {out.dtype}")
    if out.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"out must have shape ({OBSERVATION_SIZE},), got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
