"""What the command lines share: flags from a config dataclass (with `tyro`), and user errors as one line.

`parse(ConfigClass, argv, prog)` builds the flags from the dataclass's fields, their docstrings being the
`--help`; flags are never abbreviated. `run_cli(prog, body)` runs a command's body and turns a user error
(`UserError`, a refused config, one of the played game's `user_errors` such as an unloadable model) into one
line on stderr and exit status 2, and Ctrl-C into one line and exit status 130; anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import importlib
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

import tyro

from suntzu_env.core import games

T = TypeVar("T")
R = TypeVar("R")

USAGE_EXIT = 2  # as argparse and tyro: the command line was refused
INTERRUPTED_EXIT = 130  # as a shell: 128 + SIGINT


class UserError(Exception):
    """A mistake in what the user asked for (a bad path, a run that cannot resume): reported as one line."""


class ConfigError(UserError, ValueError):
    """A config value outside what is allowed; the message names the field and what is allowed."""


def user_errors() -> tuple[type[Exception], ...]:
    """`UserError` and the user errors of every game loaded so far."""
    return (UserError, *(error for game in games.loaded() for error in game.user_errors))


def flag(name: str) -> str:
    """The command-line flag of a config field: `total_timesteps` -> `--total-timesteps`."""
    return "--" + name.replace("_", "-")


def in_flag_terms(message: str, cls: type) -> str:
    """A field-named message (`learning_rate must be ...`) as the command line says it (`--learning-rate ...`)."""
    names = {f.name for f in dataclasses.fields(cls)} | {f.name for game in games.loaded() for f in game.option_flags}
    return re.sub(r"^(\w+)", lambda m: flag(m[1]) if m[1] in names else m[1], message)


class _Refused(Exception):
    """Raised by the parse-error hook: carries tyro's refusal as one line."""


_CONVERSIONS = (
    (r"invalid literal for int\(\) with base 10: (.*)", "a whole number"),
    (r"could not convert string to float: (.*)", "a number"),
)


def _one_line(event: Any, cls: type) -> str:
    """tyro's parse-error event as one line; tyro's own boxed message is the fallback for unknown kinds."""
    kind = type(event).__name__
    argument = getattr(event, "argument", None)
    name = "/".join(getattr(getattr(argument, "lowered", None), "name_or_flags", ()) or ()) or None
    if kind == "UnrecognizedArgs":
        tokens = list(event.tokens)
        flags = [flag(f.name) for f in dataclasses.fields(cls)]
        flags += [f"--no-{f.name.replace('_', '-')}" for f in dataclasses.fields(cls) if f.type in (bool, "bool")]
        near = [difflib.get_close_matches(t.split("=")[0], flags, 1, 0.8) for t in tokens if t.startswith("--")]
        hints = [m for matches in near for m in matches]
        hint = f" (did you mean {', '.join(dict.fromkeys(hints))}?)" if hints else ""
        return f"unrecognized arguments: {' '.join(tokens)}{hint}; see --help"
    if kind == "InvalidChoice":
        return f"{name}: {event.value!r} is not one of {', '.join(event.choices)}"
    if kind == "InstantiationFailure":
        message = " ".join(str(event.message).split())
        for pattern, expected in _CONVERSIONS:
            if m := re.fullmatch(pattern, message):
                message = f"expected {expected}, got {m[1]}"
        return f"{name}: {message}" if name else in_flag_terms(message, cls)
    if kind == "BadValue":
        return f"{name}: expected a value" if getattr(event, "reason", "") == "too_few_values" else f"{name}: bad value"
    if kind == "MissingArgs":
        return "missing arguments; see --help"
    raise LookupError(kind)


@contextlib.contextmanager
def _one_line_errors(cls: type) -> Iterator[None]:
    """While tyro parses, turn its refusals into `_Refused` (where this tyro version has the hook)."""
    try:  # tyro's hook is young (1.0.14) and private: without it, tyro's boxed messages stay
        hooks = importlib.import_module("tyro._errors")
        on_parse_error = hooks.on_parse_error
    except (ImportError, AttributeError):
        yield
        return

    def hook(event: Any) -> None:
        try:
            line = _one_line(event, cls)
        except (LookupError, AttributeError, TypeError):
            return  # a kind of refusal this code does not know: tyro prints its own message
        raise _Refused(line)

    with on_parse_error(hook):
        yield


def parse(cls: type[T], argv: Sequence[str] | None, prog: str, default: T | None = None) -> T:
    """The dataclass from command-line flags (`--help` from its docstrings); `default`: the values flags replace.

    A refused command line prints one line (`prog: error: ...`) and exits with status 2.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    kwargs: dict[str, Any] = {} if default is None else {"default": default}
    try:
        with _one_line_errors(cls):
            return tyro.cli(cls, args=args, prog=prog, **kwargs)
    except _Refused as refused:
        fail(prog, str(refused))


def early_flag(name: str, argv: Sequence[str] | None) -> str | None:
    """The string flag `--<name>` of a command line, read before the rest (whose flags or defaults depend on it);
    None where it is absent or malformed (the full parse then reports it)."""
    one_flag = dataclasses.make_dataclass(f"_{name}_flag", [(name, str | None, None)])
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        found, _ = tyro.cli(one_flag, args=args, return_unknown_args=True, add_help=False, console_outputs=False)
    except SystemExit:
        return None
    return getattr(found, name)


def fail(prog: str, message: str, status: int = USAGE_EXIT) -> NoReturn:
    """Print `prog: error: message` as one line and exit."""
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr, flush=True)
    raise SystemExit(status)


def run_cli(prog: str, body: Callable[[], R], config_cls: type | None = None) -> R:
    """Run a command's body: user errors become one line and exit 2, Ctrl-C one line and exit 130."""
    try:
        return body()
    except KeyboardInterrupt:
        fail(prog, "interrupted", INTERRUPTED_EXIT)
    except Exception as error:
        if not isinstance(error, user_errors()):
            raise
        message = str(error)
        fail(prog, in_flag_terms(message, config_cls) if config_cls and isinstance(error, ConfigError) else message)


def on_terminal() -> bool:
    """Whether the output goes to a terminal (else to a file: nohup, a cluster's log), where a bar can redraw."""
    return sys.stdout.isatty() and sys.stderr.isatty()
