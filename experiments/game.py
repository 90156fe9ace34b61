"""The game the experiments play: the one place that names it.

Training, evaluation and the notebooks reach the game only through `GAME`, a `suntzu_env.protocol.GameRules`,
and build its options here from the command lines' game flags (`OPTION_FIELDS` of `TrainConfig` and
`EvaluateConfig`). Another game plugs in by providing a `GameRules` value, naming it here, and declaring its
own option flags in those two configs and in `options_of`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import tyro

from experiments.cli import ConfigError
from suntzu_env.protocol import GameOptions, GameRules
from suntzu_env.rules import PROVINCES, VARIANTS
from suntzu_env.suntzu_game import SUNTZU

GAME: GameRules[Any] = SUNTZU

Variant = Literal[VARIANTS]  # type: ignore[valid-type]  # the rules' variants, as command-line choices
OPTION_FIELDS = ("variant", "events", "adjacency")  # the config fields the game's options are made of
REPLAY_COMMAND = "python -m suntzu_env.play --results {out}"  # the game's viewer of an evaluation's games
BORDER = ":"  # between the two provinces of a border on the command line (province names hold '-')
# The type of the `--adjacency` flag: one or more PROVINCE:PROVINCE borders, or None for the rules' map.
Borders = Annotated[tuple[str, ...] | None, tyro.conf.arg(metavar="{None}|PROVINCE:PROVINCE [...]")]


def borders(values: tuple[str, ...] | None) -> tuple[tuple[str, str], ...] | None:
    """`--adjacency QIN:CHU CHU:WU` as pairs of province names (checked by the options); None stays None."""
    if values is None:
        return None
    if not values:
        raise ConfigError(f"adjacency: expected one or more bordering pairs PROVINCE{BORDER}PROVINCE "
                          "(None: the rules' map), got none")  # fmt: skip
    pairs = []
    for value in values:
        parts = value.split(BORDER)
        if len(parts) != 2:
            raise ConfigError(f"adjacency: expected bordering pairs PROVINCE{BORDER}PROVINCE of "
                              f"{', '.join(PROVINCES)}, got {value!r}")  # fmt: skip
        pairs.append((parts[0], parts[1]))
    return tuple(pairs)


def options_of(config: Any) -> GameOptions:
    """The game's options from a config's `OPTION_FIELDS`; a value not allowed is a `ConfigError` naming it."""
    fields = {name: getattr(config, name) for name in OPTION_FIELDS}
    fields["adjacency"] = borders(fields["adjacency"])
    try:
        return GAME.options(**fields)
    except (TypeError, ValueError) as error:  # `adjacency[i] ...` names the border as it was given
        message = re.sub(r"^adjacency\[(\d+)\]", lambda m: f"adjacency {config.adjacency[int(m[1])]}:", str(error))
        raise ConfigError(message) from None


def option_fields(options: GameOptions) -> dict[str, Any]:
    """The options as JSON-ready fields (the map as lists of two names), for summaries and records."""
    return {k: [list(pair) for pair in v] if k == "adjacency" and v is not None else v
            for k, v in options.as_dict().items()}  # fmt: skip


def describe_options(fields: dict[str, Any]) -> str:
    """Options fields (`option_fields`) as reports say them: `standard, events off, map QIN:CHU CHU:WU`."""
    text = f"{fields['variant']}, events {'on' if fields['events'] else 'off'}"
    if fields.get("adjacency") is not None:
        text += ", map " + " ".join(BORDER.join(pair) for pair in fields["adjacency"])
    return text


def compile_notice() -> str | None:
    """What to say before the first run compiles the game's batched kernels with numba (None: they are cached,
    or numba does not compile), so that the wait does not look like a hang."""
    import numba

    from suntzu_env.numba_cache import CACHE_FOLDER, compiled_before

    if compiled_before("vec_core") or numba.config.DISABLE_JIT:
        return None
    later = f"later runs load it from {CACHE_FOLDER}"
    return f"compiling the game engine with numba (first run only, a minute or so; {later})"


def rllib_observed_env(options: GameOptions) -> Any:
    """The game's AEC environment under `options`, its observations in RLlib's format (`suntzu_env.formats`)."""
    from suntzu_env.formats import rllib_observations

    return rllib_observations(GAME.env(options))
