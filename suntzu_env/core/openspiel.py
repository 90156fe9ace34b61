"""Any game's turn games as an OpenSpiel game: `GamePlugin.openspiel_game`'s default, registered as `python_<name>`.

Needs the `openspiel` extra (`pip install -e ".[openspiel]"`); `import pyspiel` fails without it.

```python
from suntzu_env.core import games

game = games.load("toy_game:DUEL").openspiel_game({"cards": 4})  # pyspiel.load_game("python_duel", {...}) after
state = game.new_initial_state()  # game seed 0's setup; the first seat is asked
```

| fact               | value                                                                               |
|--------------------|-------------------------------------------------------------------------------------|
| players            | the seats (`seats_of` the options), numbered in seat order                          |
| parameters         | the options' fields of a plain type (bool, int, float, a str without commas) and    |
|                    | `seed`, the game's seed (>= 0); other fields keep their defaults                    |
| chance             | none: everything random is drawn from the `seed` parameter (the setup is the game's) |
| actions            | the game's `n_actions` ids, their strings `action_string`'s                         |
| dynamics           | sequential: the seat asked plays                                                    |
| utilities          | at the end only, the game's `returns()`: +1 the winner, -1 the others, 0 a draw or  |
|                    | a game stopped at its turn limit; zero-sum with two seats, general-sum with more   |
| information        | imperfect where the game's turn games have `sample_determinization` (hidden         |
|                    | information), else perfect                                                          |
| max game length    | the game's `max_decisions(options)`, else `MAX_DECISIONS`                           |
| observation tensor | the seat's `observation(seat)`; its string the same numbers                         |
| information state  | string only: a digest of everything the seat observed and did since the start       |
|                    | (perfect recall); no tensor                                                         |
| resample_from_infostate | the game's `sample_determinization`, where it has one                          |

The state reads its settings from `game.get_parameters()` and its rules from the registry of this module by the
game's name, never from Python attributes of the game, so clones, copied and unpickled games and serialized states
keep them. A process that reads a serialized state asks `openspiel_game` (or `register`) first.
"""

from __future__ import annotations

import hashlib
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel

from suntzu_env.core.checks import check_seed

MAX_DECISIONS = 1_000_000  # a game's length where it declares no bound (`max_decisions`)
PLAIN = (bool, int, float, str)
RULES: dict[str, Any] = {}  # OpenSpiel name -> the game's rules (the last that asked for it)
TYPES: dict[str, pyspiel.GameType] = {}


def game_name(rules: Any) -> str:
    """The OpenSpiel name of a game: `python_<name>`."""
    return f"python_{rules.name}"


def plain_fields(rules: Any) -> dict[str, Any]:
    """The default options' fields that OpenSpiel parameters hold (a plain type; a str without commas)."""
    fields = rules.option_fields(rules.options())
    return {k: v for k, v in fields.items()
            if type(v) in PLAIN and not (isinstance(v, str) and "," in v)}  # fmt: skip


def seat_counts(rules: Any) -> list[int]:
    """The seat counts the options allow: the `Literal` of the `seats_option` flag, else the seats'."""
    field = getattr(rules, "seats_option", None)
    flag = next((f for f in rules.option_flags if f.name == field), None)
    counts = [n for n in typing.get_args(flag.type) if isinstance(n, int)] if flag is not None else []
    return counts or [len(rules.seats)]


def hidden_information(rules: Any) -> bool:
    """Whether the game's turn games keep something from a seat (they have `sample_determinization`)."""
    return hasattr(rules.new(0, rules.options()), "sample_determinization")


def sequential_game_type(
    short_name: str,
    long_name: str,
    *,
    chance_mode: pyspiel.GameType.ChanceMode,
    perfect_information: bool,
    seat_counts: Sequence[int],
    parameters: dict[str, Any],
) -> pyspiel.GameType:
    """The facts every game of ours has under OpenSpiel: sequential, rewarded at the end, zero-sum with two seats
    only (general-sum with more), an information state string (no tensor: the observation is not perfect recall),
    an observation string and tensor."""
    information = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"{long_name} (suntzu-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=information.PERFECT_INFORMATION if perfect_information else information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if max(seat_counts) == 2 else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(seat_counts),
        min_num_players=min(seat_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,  # the observation is not perfect recall
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def game_type(rules: Any) -> pyspiel.GameType:
    return sequential_game_type(
        game_name(rules),
        rules.name,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        perfect_information=not hidden_information(rules),
        seat_counts=seat_counts(rules),
        parameters={**plain_fields(rules), "seed": 0},
    )


def game_info(
    n_actions: int, chance_outcomes: int, players: int, max_length: int, utility_sum: float | None
) -> pyspiel.GameInfo:
    """The sizes of a game of ours under OpenSpiel: its actions, chance outcomes (0: none), players, decisions at
    most, and its utilities, in [-1, 1], summing to `utility_sum` (None: not constant)."""
    return pyspiel.GameInfo(
        num_distinct_actions=n_actions,
        max_chance_outcomes=chance_outcomes,
        num_players=players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=utility_sum,
        max_game_length=max_length,
    )


def with_defaults(params: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A game's parameters, the defaults in place of the missing ones; ValueError naming the unknown ones."""
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown}; the game takes {sorted(defaults)}")
    return {**defaults, **params}


def register(rules: Any) -> str:
    """Register the game with OpenSpiel as `python_<name>` (once per process; a game of the same name and the same
    facts takes its place, one of other facts is refused with ValueError); its name."""
    name, kind = game_name(rules), game_type(rules)
    if name in TYPES:
        if str(TYPES[name]) != str(kind) or RULES[name].n_actions != rules.n_actions:
            raise ValueError(f"{name} is registered with OpenSpiel already, for another game of that name")
        RULES[name] = rules
        return name
    RULES[name], TYPES[name] = rules, kind
    # a class of its own, found here by pickle (a creator that is a function crashes the interpreter's exit)
    made = type(f"TurnSpielGame_{rules.name}", (TurnSpielGame,), {"name": name, "__module__": __name__})
    globals()[made.__name__] = made
    pyspiel.register_game(kind, made)
    return name


def load(rules: Any, options: Any) -> pyspiel.Game | None:
    """The OpenSpiel game of `rules` under `options`, game seed 0; None where an option differs from its default in a
    field that OpenSpiel parameters cannot hold."""
    name = register(rules)
    fields, plain = rules.option_fields(options), plain_fields(rules)
    default = rules.option_fields(rules.options())
    if any(fields[k] != default[k] for k in fields if k not in plain):
        return None
    return pyspiel.load_game(name, {k: fields[k] for k in plain})


def settings(name: str, params: dict[str, Any]) -> tuple[Any, Any, int]:
    """The rules, the options and the seed of a game's parameters; ValueError naming a bad one."""
    rules = RULES[name]
    try:
        params = with_defaults(params, {**plain_fields(rules), "seed": 0})
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    try:
        options = rules.options({k: v for k, v in params.items() if k != "seed"})
        seed = check_seed(params["seed"])
    except TypeError as error:
        raise ValueError(f"{name}: {error}") from None
    return rules, options, int(seed)  # type: ignore[arg-type]


class TurnSpielGame(pyspiel.Game):
    """The OpenSpiel game of a registered game (see the module)."""

    name: str  # the registered name, set by `register` on the class it registers

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.name
        params = {**TYPES[name].parameter_specification, **(params or {})}
        rules, options, _ = settings(name, params)
        seats = len(rules.seats_of(options))
        bound = getattr(rules, "max_decisions", lambda options: None)(options)
        length = int(bound) if bound is not None else MAX_DECISIONS
        info = game_info(rules.n_actions, 0, seats, length, 0.0 if seats == 2 else None)
        super().__init__(TYPES[name], info, params)

    def new_initial_state(self) -> TurnSpielState:
        return TurnSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TurnObserver:
        size = RULES[self.get_type().short_name].observation_size
        return TurnObserver(size, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class TurnSpielState(pyspiel.State):
    """A state: the turn game played, its seats, and per seat a digest of what it observed and did (its
    information state). Its Python attributes are these only (pyspiel copies them on `clone`, pickles them on
    `serialize`)."""

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        name = game.get_type().short_name
        rules, options, seed = settings(name, game.get_parameters())
        self.turn = rules.new(seed, options)
        self.seats = tuple(rules.seats_of(options))
        self.name = name
        self.seen = [self._digest("", seat, None) for seat in self.seats]

    def _digest(self, before: str, seat: str, action: int | None) -> str:
        """The digest of what `seat` knew (`before`), what it observes now and its own action, if it played one."""
        out = hashlib.sha256(before.encode())
        out.update(np.ascontiguousarray(self.turn.observation(seat), dtype=np.float32).tobytes())
        out.update(b"-" if action is None else str(action).encode())
        return out.hexdigest()

    def current_player(self) -> int:
        seat = self.turn.current_player
        return pyspiel.PlayerId.TERMINAL if seat is None else self.seats.index(seat)

    def _legal_actions(self, player: int) -> list[int]:
        if self.turn.current_player is None or self.seats.index(self.turn.current_player) != player:
            return []
        return [int(a) for a in self.turn.legal_actions()]

    def _apply_action(self, action: int) -> None:
        actor = self.turn.current_player
        self.turn.apply(int(action))
        self.seen = [self._digest(before, seat, int(action) if seat == actor else None)
                     for before, seat in zip(self.seen, self.seats, strict=True)]  # fmt: skip

    def _action_to_string(self, player: int, action: int) -> str:
        return str(RULES[self.name].action_string(int(action)))

    def is_terminal(self) -> bool:
        return bool(self.turn.is_terminal)

    def returns(self) -> list[float]:
        returns = self.turn.returns()
        return [float(returns[seat]) for seat in self.seats]

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> TurnSpielState:
        """A state the player cannot tell from this one (the game's `sample_determinization`)."""
        sample = getattr(self.turn, "sample_determinization", None)
        if sample is None:
            return self.clone()
        state = self.clone()
        state.turn = sample(self.seats[player], np.random.default_rng(int(probability_sampler() * 2**32)))
        return state

    def __str__(self) -> str:
        from suntzu_env.core.turn_limit import text_of

        text = text_of(self.turn)
        return text if text is not None else f"{self.name}: {self.turn.record()}"


class VectorObserver:
    """A game's observer: the observation tensor, a view of it per piece in `dict`; for the perfect-recall
    information state (`iig_obs_type.perfect_recall`), no tensor, its string only. A game's observer adds
    `set_from` and `string_from`, and may refuse other observation types (`check_type`)."""

    def __init__(self, iig_obs_type: Any, params: Any, size: int, pieces: Iterable[tuple[str, int]]) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.check_type(iig_obs_type)
        self.perfect_recall = iig_obs_type.perfect_recall
        self.dict: dict[str, np.ndarray] = {}
        self.tensor: np.ndarray | None = None
        if self.perfect_recall:  # the information state has a string only
            return
        self.tensor = np.zeros(size, np.float32)
        at = 0
        for piece, width in pieces:
            self.dict[piece] = self.tensor[at : at + width]
            at += width

    def check_type(self, iig_obs_type: Any) -> None:
        """ValueError for an observation type the game does not provide (every one, here)."""


class ParameterGame(pyspiel.Game):
    """A game whose every setting is read from its parameters: pyspiel keeps them when it copies or unpickles a
    game, but not a Python attribute. A subclass sets `GAME_TYPE` (its `parameter_specification` the defaults),
    `STATE` and `OBSERVER` (the classes of its states and observer), and answers `check_parameters` (its settings,
    the options first; ValueError naming a bad one) and `game_info` (of those settings)."""

    GAME_TYPE: ClassVar[pyspiel.GameType]
    STATE: ClassVar[type[pyspiel.State]]
    OBSERVER: ClassVar[Callable[[Any, Any], Any]]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**self.GAME_TYPE.parameter_specification, **(params or {})}
        super().__init__(self.GAME_TYPE, self.game_info(self.check_parameters(params)), params)

    @staticmethod
    def check_parameters(params: Mapping[str, Any]) -> tuple[Any, ...]:
        raise NotImplementedError

    @staticmethod
    def game_info(settings: tuple[Any, ...]) -> pyspiel.GameInfo:
        raise NotImplementedError

    @property
    def options(self) -> Any:
        """The rules the games are played under (from the parameters)."""
        return self.check_parameters(self.get_parameters())[0]

    def new_initial_state(self) -> pyspiel.State:
        return self.STATE(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        return self.OBSERVER(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class TurnObserver(VectorObserver):
    """The observation tensor (a seat's `observation`) and strings; a perfect-recall observer has the information
    state's string only."""

    def __init__(self, size: int, iig_obs_type: Any, params: Any) -> None:
        super().__init__(iig_obs_type, params, size, [("observation", size)])

    def set_from(self, state: TurnSpielState, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = state.turn.observation(state.seats[player])

    def string_from(self, state: TurnSpielState, player: int) -> str:
        if self.perfect_recall:
            return f"player {player}: {state.seen[player]}"
        seen = state.turn.observation(state.seats[player])
        return f"player {player}: " + " ".join(f"{v:g}" for v in np.asarray(seen, dtype=np.float32))


__all__ = [
    "MAX_DECISIONS", "ParameterGame", "TurnSpielGame", "TurnSpielState", "VectorObserver", "game_name", "load",
    "register", "sequential_game_type", "with_defaults",
]  # fmt: skip
