"""The game a command line plays, chosen by name, and its options as command-line flags.

The experiments name no game: `--game` (default `suntzu_env.core.games.DEFAULT`) picks a registered one
(`suntzu_env.core.games`), or, on the command line only, one of the user's own code as `<module>:<attribute>`. The
game's `option_flags` become fields of the command's config (`with_game`), so `--help` shows the flags of the
game asked for, and `options_of` turns their values into the game's options.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import itertools
import textwrap
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Self, TypeVar

import tyro

from experiments.cli import ConfigError, UserError, early_flag
from suntzu_env.core import games
from suntzu_env.core.protocol import GameOptions, GameRules

T = TypeVar("T")
DEFAULT = games.DEFAULT
GAME_FLAG_HELP = "the game: {names}, or <module>:<attribute> of a game of your own (a GameRules)"
GameLike = str | GameRules[Any]
AGENTS_HELP = "{agents}"  # in a field's docstring: the game's agent specs (`GameRules.valid_agents`)
GAME_CLASS = "_with_game"  # set on a config class made by `with_game`


def game_of(game: GameLike) -> GameRules[Any]:
    """The game a name stands for (`suntzu_env.core.games.load`: a registered name or a `module:attribute`), or the
    game given; an unknown name is a `ConfigError`."""
    if not isinstance(game, str):
        return game
    try:
        return games.load(game)
    except games.UnknownGameError as error:
        raise ConfigError(str(error)) from None


def saved_game(name: Any, where: str, given: str | None = None) -> GameRules[Any]:
    """The game a file names (a run's config, a results folder): a registered name, or the `module:attribute` the
    command line names again (`given`), never a module a file alone names."""
    name = DEFAULT if name is None else name
    if given is not None and name == given:
        return game_of(given)
    try:
        return games.game(name)
    except games.UnknownGameError:
        named = isinstance(name, str) and name.isprintable() and name.split() == [name]  # a name a flag can give
        hint = f": name it on the command line with --game {name}" if named else ""
        raise UserError(f"{where} plays the game {name!r:.80}, which is not registered{hint}") from None


def game_name(game: GameLike) -> str:
    """The name a game is known by (what configs and results keep)."""
    return game if isinstance(game, str) else games.key(game)


def game_flag(argv: Sequence[str] | None) -> str | None:
    """The `--game` of a command line, read before the rest (whose flags depend on the game)."""
    return early_flag("game", argv)


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstrings of a dataclass's fields (the string under each), its bases' too: what `--help` shows."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, after in itertools.pairwise(body):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                    isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):  # fmt: skip
                docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs


@functools.cache
def _config_class(base: type, name: str, defaults: tuple[tuple[str, Any], ...]) -> type:
    game = game_of(name)
    hints, docs, replaced = typing.get_type_hints(base), field_docs(base), dict(defaults)
    docs = {k: v.replace(AGENTS_HELP, game.valid_agents()) for k, v in docs.items()}
    docs |= {"game": GAME_FLAG_HELP.format(names=", ".join(games.names()))}
    fields: list[tuple[str, Any, Any]] = []
    for f in dataclasses.fields(base):
        if f.name in replaced:
            default = dataclasses.field(default=replaced[f.name])
        elif f.default is not dataclasses.MISSING:
            default = dataclasses.field(default=f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = dataclasses.field(default_factory=f.default_factory)
        else:
            default = dataclasses.field()
        fields.append((f.name, Annotated[hints[f.name], tyro.conf.arg(help=docs.get(f.name))], default))
    for flag in game.option_flags:
        tp = Annotated[flag.type, tyro.conf.arg(help=flag.help, metavar=flag.metavar)]
        fields.append((flag.name, tp, dataclasses.field(default=flag.default)))
    cls = dataclasses.make_dataclass(base.__name__, fields, bases=(base,))
    cls.__doc__, cls.__module__, cls.__qualname__ = base.__doc__, base.__module__, base.__qualname__
    setattr(cls, GAME_CLASS, True)
    return cls


class GameConfig:
    """A config dataclass whose fields depend on its game: `Config(...)` is a config of the class of its `game`
    (`for_game`: its option fields and defaults)."""

    @classmethod
    def for_game(cls, game: GameLike) -> type[Self]:
        """The config class of `game`."""
        raise NotImplementedError

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        if not cls.__dict__.get(GAME_CLASS):
            cls = cls.for_game(kwargs.get("game", DEFAULT))
        return super().__new__(cls)


def with_game(base: type[T], game: GameLike, defaults: Mapping[str, Any] | None = None) -> type[T]:
    """`base` (a config dataclass) with the game's option flags as fields after its own, and `defaults` (field ->
    value) replacing some of its defaults: the config class of a command line for that game."""
    return _config_class(base, game_name(game_of(game)), tuple((defaults or {}).items()))


def option_names(game: GameLike) -> tuple[str, ...]:
    """The config fields the game's options are made of."""
    return tuple(flag.name for flag in game_of(game).option_flags)


def options_of(config: Any, game: GameLike) -> GameOptions:
    """The game's options from a config's option fields; a value not allowed is a `ConfigError` naming it."""
    rules = game_of(game)
    try:
        return rules.options_from_flags({name: getattr(config, name) for name in option_names(rules)})
    except (TypeError, ValueError) as error:
        raise ConfigError(str(error)) from None


def option_keys(game: GameLike) -> tuple[str, ...]:
    """The fields of the game's options as summaries and records keep them (`GameRules.option_fields`)."""
    rules = game_of(game)
    return tuple(rules.option_fields(rules.options()))


def describe(game: GameLike, config: Mapping[str, Any]) -> str:
    """The options a summary's config (or any mapping holding the option fields) was played under, in words."""
    rules = game_of(game)
    return rules.describe_options({key: config.get(key) for key in option_keys(rules)})


def seats_of(game: GameLike, options: Any = None) -> tuple[str, ...]:
    """The seats of `game` under `options` (an options value, a mapping of its fields, or None: the defaults)."""
    rules = game_of(game)
    return tuple(rules.seats_of(rules.options(options)))


def config_seats(game: GameLike, config: Mapping[str, Any]) -> tuple[str, ...]:
    """The seats of the options a summary's config (or any mapping holding the option fields) was played under."""
    keys = [key for key in option_keys(game) if key in config]
    return seats_of(game, {key: _tuples(config[key]) for key in keys})


def _tuples(value: Any) -> Any:
    """Lists as tuples, all the way down (an options field read back from JSON)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
