"""`Game`: the Python face of the Bin'Fa engine, one game over one state vector (the shape of Sun Tzu's)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from suntzu_env.binfa import engine, records
from suntzu_env.binfa.actions import N_ACTIONS, action_to_string, string_to_action
from suntzu_env.binfa.encoding import (
    N_LEARN_ACTIONS,
    engine_action,
    learn_action_name,
    learn_mask,
    view_rotation,
)
from suntzu_env.binfa.geometry import COLOURS, N_COLOURS, PER_SECTOR, TRIANGLE_NAMES
from suntzu_env.binfa.layout import (
    ALIVE,
    ARMY_PLAYER,
    DEC_KIND,
    DECISION_KINDS,
    DICE,
    DICE_QPOS,
    FIELDS,
    GENERATOR_OF,
    MODE,
    MODES,
    MOVES_LEFT,
    OUT_RANK,
    PLAYERS,
    RETREAT_AT,
    RULES,
    RULES_V1_1,
    RULES_VERSIONS,
    STATE_DTYPE,
    STATE_SIZE,
    TERRAIN,
    TO_ACT,
    TURN_ARMY,
    TURNS,
    WINNER,
    new_state,
)
from suntzu_env.binfa.observation import OBSERVATION_SIZE, observe
from suntzu_env.binfa.options import Options
from suntzu_env.binfa.render import board_text
from suntzu_env.core.checks import action_shown, check_seed, illegal_message
from suntzu_env.core.fields import IntEntry
from suntzu_env.core.rng import GENERATORS, LEGACY_GENERATOR
from suntzu_env.core.state_game import StateGame

RULES_VERSION = RULES_VERSIONS[RULES_V1_1]  # "1.1": new games' rules; a record of rules 1 replays under them
RECORD_KEYS = ("game", "rules_version", "options", "seed", "generator", "actions", "start")


class Game(StateGame):
    """One game of Bin'Fa. Create with `Game.new`, `Game.from_dict` or `Game.replay`.

    Players are numbered 0..players-1 (seat order); armies are named by colour.
    """

    __slots__ = ("_actions", "_given", "_legal", "_n", "_options", "_s", "_seed", "_start")
    STATE_FIELDS = FIELDS
    WINNER_AT = WINNER
    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    def _setup(self, s: np.ndarray, options: Options, seed: int | None, start: dict[str, Any] | None) -> None:
        self._s = s
        self._options = options
        self._seed = seed
        self._start = start
        self._actions: list[int] = []
        self._legal = np.zeros(engine.LEGAL_CAPACITY, dtype=np.int32)
        self._given = False  # some throws were given (`apply_with_dice`), not drawn

    # ------------------------------------------------------------ creation

    @classmethod
    def new(cls, seed: int = 0, options: Options | dict[str, Any] | None = None, **fields: Any) -> Game:
        """A new game set up from `seed` (terrain, colours, random deployment and every throw).

        `options` is an `Options`, a dict or None, with any of its fields as keywords on top:
        `Game.new(3, level=4, players=3)`. A bad option raises ValueError naming what is allowed.
        """
        return cls._dealt(check_seed(seed), Options.of(options, **fields), legacy=False, rules=RULES_V1_1)

    @classmethod
    def _dealt(cls, seed: int, options: Options, legacy: bool, rules: int) -> Game:
        """A new game of a checked seed and options, its setup and throws drawn by the generator of new games or
        (`legacy`) by that of records that name none (`suntzu_env.core.rng`), played under `rules` (an index of
        `RULES_VERSIONS`)."""
        game = cls.__new__(cls)
        game._setup(new_state(), options, seed, None)
        terrain, pools = options.engine_terrain()
        game._n = int(
            engine.init_state(
                game._s,
                seed,
                options.level,
                options.players,
                options.armies_per_player,
                int(options.deployment == "random"),
                options.max_turns,
                int(options.terrain != "random"),
                terrain,
                pools,
                game._legal,
                legacy,
                rules,
            )
        )
        return game

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """A game at the position `d` (see `to_dict`); a bad field raises ValueError naming it.

        A position written by hand needs only BINFA.md's fields at the start of a turn: the others take the values
        of a turn about to be declared (`records.with_defaults`), its rules v1.1 unless it names `rules_version` 1.
        A pending decision with a single legal answer is applied at once, as in play.
        """
        return cls._from_position(d, None)

    @classmethod
    def _from_position(cls, d: dict[str, Any], rules_version: Any) -> Game:
        """`from_dict`, the position played under the rules a game record names (`rules_version`; None: its own)."""
        if not isinstance(d, dict):
            raise TypeError(f"a position record must be a dict, got {type(d).__name__}")
        start = copy.deepcopy(d)
        named = start.get("rules_version", rules_version)
        if rules_version is not None and named != rules_version:
            raise ValueError(f"record.start.rules_version: {named!r:.40} differs from record.rules_version")
        s, options = records.state_from_record(start if rules_version is None else {**start, "rules_version": named})
        game = cls.__new__(cls)
        game._setup(s, options, None, start)
        game._n = int(engine.advance(s, game._legal))
        return game

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """The game of `record()`: the same seed (or start position) and actions give the same game."""
        if not isinstance(record, dict):
            raise TypeError(f"record must be a dict, got {type(record).__name__}")
        for key in record:
            if key not in RECORD_KEYS:
                raise ValueError(f"record: unknown key {key!r:.40} (keys are {', '.join(RECORD_KEYS)})")
        for key in ("game", "rules_version", "options", "actions"):
            if key not in record:
                raise ValueError(f"record: missing key {key!r}")
        if record["game"] != "binfa":
            raise ValueError(f"record.game: expected 'binfa', got {record['game']!r:.40}")
        version = record["rules_version"]
        if isinstance(version, bool) or version not in RULES_VERSIONS:
            shown = " or ".join(map(repr, RULES_VERSIONS))
            raise ValueError(f"record.rules_version: expected {shown}, got {version!r:.40}")
        rules = RULES_VERSIONS.index(version)
        if record.get("start") is not None:
            game = cls._from_position(record["start"], RULES_VERSIONS[rules])
        else:
            try:
                options = Options.of(record["options"])
                seed = check_seed(record.get("seed"), "record.seed")
            except (TypeError, ValueError) as error:
                raise ValueError(f"record.options/seed: {error}") from None
            legacy = records.record_generator(record) == LEGACY_GENERATOR
            game = cls._dealt(seed, options, legacy=legacy, rules=rules)
        if not isinstance(record["actions"], list):
            raise ValueError("record.actions: expected a list of action strings")
        for i, action in enumerate(record["actions"]):
            if not isinstance(action, str):
                raise ValueError(f"record.actions[{i}]: expected an action string, got {action!r:.40}")
            try:
                game.apply(action)
            except ValueError as error:
                raise ValueError(f"record.actions[{i}]: {error}") from None
        return game

    # ------------------------------------------------------------ playing

    @property
    def current_player(self) -> int | None:
        """The player who answers the pending decision; None when the game is over."""
        return int(self._s[TO_ACT]) if self._n else None

    @property
    def decision(self) -> dict[str, Any] | None:
        """The pending decision: kind, player, army, mode, moves left, last throw, retreating triangle."""
        if not self._n:
            return None
        s = self._s
        army = int(s[TURN_ARMY])
        kind = DECISION_KINDS[s[DEC_KIND]]
        retreat = int(s[RETREAT_AT]) if kind == "retreat" else -1
        return {
            "kind": kind,
            "player": int(s[TO_ACT]),
            "army": COLOURS[army] if army >= 0 else None,
            "mode": MODES[s[MODE]],
            "moves_left": int(s[MOVES_LEFT]),
            "throw": [int(s[DICE]), int(s[DICE + 1])],
            "retreat_from": TRIANGLE_NAMES[retreat]
            if retreat >= 0 and DECISION_KINDS[s[DEC_KIND]] == "retreat"
            else None,
        }

    def engine_view(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The state, the legal actions and their count as the compiled agents read them (copies: writing them
        changes nothing here)."""
        return self._s.copy(), self._legal.copy(), self._n

    def end_as_played(self, state: np.ndarray, actions: list[int]) -> None:
        """Take the end of this game as a batched playout played it on from here: its final `state` (a game
        over, checked) and the actions played since the start."""
        if state.shape != self._s.shape or state.dtype != self._s.dtype or int(state[WINNER]) < 0:
            raise ValueError("end_as_played: expected the final state of a finished game of this layout")
        self._s[:], self._n = state, 0
        self._actions = list(actions)

    def legal_actions(self) -> list[int]:
        """The legal action ids of the pending decision, ascending (empty when the game is over)."""
        return sorted(self._legal[: self._n].tolist())

    def legal_action_strings(self) -> list[str]:
        return [action_to_string(a) for a in self.legal_actions()]

    def legal_mask(self) -> np.ndarray:
        """An int8 mask over all N_ACTIONS actions."""
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        mask[self._legal[: self._n]] = 1
        return mask

    def apply(self, action: int | str) -> None:
        """Answers the pending decision with an action id or string; an illegal one raises ValueError
        naming the decision and its legal answers, and changes nothing."""
        a = self._legal_action(action)
        self._n = int(engine.step(self._s, a, self._legal))
        self._actions.append(a)

    def apply_with_dice(self, action: int | str, dice: Sequence[Sequence[int]]) -> bool:
        """Answers like `apply`, the throws the answer brings (B0.5) being `dice`, in order (pairs of dice
        1..6), instead of the generator's or a record's preset ones: for search over chance
        (`suntzu_env.binfa.openspiel`).

        True when the answer threw exactly these. False, changing nothing, when it throws more: its next throw
        is still to come (call again with one more). Dice left over, a bad die or an illegal action raise
        ValueError and change nothing. Once a throw was given the game's `record()` is refused (its seed would
        not throw the same dice); `to_dict()` still gives its position.
        """
        a = self._legal_action(action)
        throws = records.check_dice(dice, "dice")
        s = self._s.copy()
        legal = self._legal.copy()
        n = int(engine.step_thrown(s, a, throws, legal))
        if n < 0:
            return False
        if int(s[DICE_QPOS]) < len(throws):
            raise ValueError(f"dice: the answer threw {int(s[DICE_QPOS])} time(s), {len(throws)} throws given")
        self._s, self._legal, self._n = s, legal, n
        self._actions.append(a)
        self._given = self._given or len(throws) > 0
        return True

    def _legal_action(self, action: object) -> int:
        """The action id of `action` (an id or string) when legal; else ValueError naming the legal answers."""
        legal = self._legal[: self._n]
        a: Any = action
        if isinstance(action, str):
            try:
                a = string_to_action(action)
            except ValueError:
                raise ValueError(self._illegal_message(action)) from None
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool) or not (legal == a).any():
            raise ValueError(self._illegal_message(action))
        return int(a)

    def _illegal_message(self, action: object, learn: bool = False) -> str:
        shown = f"{str(action) if learn else action_shown(action, N_ACTIONS, action_to_string):.80}"
        if not self._n:
            return illegal_message(shown, None, over=f"winner {self.winner}")
        d = self.decision
        assert d is not None
        return illegal_message(shown, d["kind"], f"player={d['player']} army={d['army']}", self.legal_action_strings())

    # ------------------------------------------------------------ the learning face (BD12)

    def observation(self, player: int) -> np.ndarray:
        """What `player` sees, from its own point of view: the float32 vector of `binfa.observation`."""
        self._check_player(player)
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        observe(self._s, player, out)
        return out

    def _check_player(self, player: object) -> None:
        if not isinstance(player, (int, np.integer)) or isinstance(player, bool) or not 0 <= player < self.players:
            raise ValueError(f"player must be an integer 0..{self.players - 1}, got {player!r:.40}")

    def learn_mask(self, player: int | None = None) -> np.ndarray:
        """The int8 mask over the learning ids (`binfa.encoding`) of the player to act (all zero for any other
        `player`, and once the game is over)."""
        mask = np.zeros(N_LEARN_ACTIONS, dtype=np.int8)
        if self._n and (player is None or player == int(self._s[TO_ACT])):
            learn_mask(self._s, self._legal, self._n, self._rotation(), mask)
        return mask

    def learn_actions(self) -> list[int]:
        """The legal learning ids of the pending decision, ascending (empty when the game is over)."""
        return np.flatnonzero(self.learn_mask()).tolist()

    def _rotation(self) -> int:
        return int(view_rotation(self._s, int(self._s[TO_ACT])))

    def learn_to_action(self, learn: int) -> int:
        """The engine action of learning id `learn` in the pending decision; ValueError naming the decision and
        its legal answers when it is not legal."""
        ok = isinstance(learn, (int, np.integer)) and not isinstance(learn, bool) and 0 <= learn < N_LEARN_ACTIONS
        a = int(engine_action(self._s, self._legal, self._n, int(learn), self._rotation())) if ok and self._n else -1
        if a < 0:
            shown = f"{int(learn)} ({learn_action_name(int(learn))})" if ok else repr(learn)
            raise ValueError(self._illegal_message(f"learning id {shown}", learn=True))
        return a

    def learn_action_string(self, learn: int) -> str:
        """The engine's string of the legal learning id `learn` (what records hold)."""
        return action_to_string(self.learn_to_action(learn))

    def apply_learn(self, learn: int) -> None:
        """Answers the pending decision with a learning id; an illegal one raises ValueError and changes nothing."""
        self.apply(self.learn_to_action(learn))

    @property
    def winner(self) -> int | str | None:
        """The winning player, "undecided" (max_turns reached, BD5; nobody left, BD21), or None while on."""
        return records.winner_of(self._s)

    players = IntEntry("_s", PLAYERS, "The number of players.")

    def eliminated(self) -> list[int]:
        """The players out of the game (B12), in the order they went out."""
        ranks = sorted((int(self._s[OUT_RANK + p]), p) for p in range(self.players) if self._s[OUT_RANK + p])
        return [p for _, p in ranks]

    def armies(self, player: int) -> list[str]:
        """The colours of `player`'s armies still in the game."""
        return [COLOURS[c] for c in range(N_COLOURS) if self._s[ARMY_PLAYER + c] == player and self._s[ALIVE + c]]

    def returns(self) -> dict[int, float]:
        """B0.8: +1 to the winner, -1 to every eliminated player, 0 to the others (BD5)."""
        out = {p: 0.0 for p in range(self.players)}
        for p in self.eliminated():
            out[p] = -1.0
        w = self.winner
        if isinstance(w, int):
            out[w] = 1.0
        return out

    turns = IntEntry("_s", TURNS, "Turns played so far.")

    def clone(self) -> Game:
        """An independent copy."""
        other = Game.__new__(Game)
        other._setup(self._s.copy(), self._options, self._seed, self._start)
        other._actions = list(self._actions)
        other._legal = self._legal.copy()
        other._n = self._n
        other._given = self._given
        return other

    @property
    def options(self) -> Options:
        return self._options

    @property
    def rules_version(self) -> int | str:
        """The rules played: "1.1" (BINFA.md), or 1 for a game replayed from a record of rules v1."""
        return RULES_VERSIONS[self._s[RULES]]

    # ------------------------------------------------------------ records (B0.9)

    def record(self) -> dict[str, Any]:
        """`{"game", "rules_version", "options", "seed", "actions"}` (+ "start" after `from_dict`).

        Refused (ValueError) once throws were given (`apply_with_dice`): they would not replay."""
        if self._given:
            raise ValueError(
                "record: some of this game's throws were given (apply_with_dice), not drawn from its seed, so its "
                "seed and actions would not replay it; to_dict() gives its position"
            )
        out: dict[str, Any] = {
            "game": "binfa",
            "rules_version": self.rules_version,
            "options": self._options.to_dict(),
            "seed": self._seed,
            "actions": [action_to_string(a) for a in self._actions],
        }
        if self._seed is not None and self._s[GENERATOR_OF] != GENERATORS.index(LEGACY_GENERATOR):
            out["generator"] = GENERATORS[self._s[GENERATOR_OF]]  # absent: dealt as the older records were
        if self._start is not None:
            out["start"] = copy.deepcopy(self._start)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The position as JSON (BINFA.md's record format, plus the state a turn needs): the whole state, other
        players' deployment included; what a player may be shown is `view_dict(player)`."""
        return records.record_from_state(self._s, self._options)

    def sample_determinization(self, player: int, rng: np.random.Generator) -> Game:
        """A game `player` cannot tell from this one: during hidden deployment (BD6, rules v1.1), the units every
        other army placed are placed again, each uniformly on an open triangle of its base, as many per army; at
        any other point, nothing is hidden but the dice to come, and it is a copy. For tests that what a player
        observes depends only on what it may know."""
        self._check_player(player)
        d = self.to_dict()
        if records.hide_deployment(d, player) is d:
            return self.clone()
        s = self._s
        board = {t: stack for t, stack in d["board"].items() if d["armies"][stack[-1]] == player}
        for colour, owner in d["armies"].items():
            placed = sum(len(stack) for stack in d["board"].values() if stack[-1] == colour)
            c = COLOURS.index(colour)
            if owner == player or not placed:
                continue
            open_ = [t for t in range(PER_SECTOR * c, PER_SECTOR * (c + 1)) if s[TERRAIN + t] == engine.OPEN]
            for t in rng.choice(open_, size=placed):
                board.setdefault(TRIANGLE_NAMES[t], []).append(colour)
        return Game.from_dict({**d, "board": board})

    def view_dict(self, player: int) -> dict[str, Any]:
        """The position as `player` may see it: `to_dict()`, except that during deployment (BD6, rules v1.1) the
        units the other players placed are left out of `board`. A view to show, not a position to load."""
        self._check_player(player)
        return records.hide_deployment(self.to_dict(), player)

    # ------------------------------------------------------------ display

    def render(self, player: int | None = None) -> str:
        """The position as text; for `player`, without the other players' units while deployment is hidden (BD6)."""
        if player is not None:
            self._check_player(player)
        return board_text(self._s, -1 if player is None else player)

    def __str__(self) -> str:
        return self.render()

    def picture(self, size: int = 640, player: int | None = None) -> Any:
        """The board as a PIL image (needs Pillow); for `player`, as `render(player)` hides it."""
        from suntzu_env.binfa.picture import board_picture

        if player is not None:
            self._check_player(player)
        return board_picture(self._s, size, -1 if player is None else player)

    def __repr__(self) -> str:
        return f"Game(players={self.players}, turns={self.turns}, winner={self.winner!r})"


__all__ = ["STATE_DTYPE", "STATE_SIZE", "Game"]
