"""Checks for the arguments users pass in: seeds, variants, flags, seats, maps, numbers, option keys.

Every public entry point (`Game`, the environments, the command lines) checks its arguments here, so a
bad one gets the same clear error everywhere and nothing unchecked reaches the compiled engine. As in
Python itself: a value of the wrong type raises `TypeError`, a value of the right type that is not
allowed raises `ValueError`. Each check returns the value in its canonical form (a plain `int` for a
numpy integer seed, a plain `bool` for `np.True_`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from suntzu_env.rules import ADJACENCY, PROVINCES, SEATS, VARIANTS

MAX_SEED = 2**63  # seeds lie in [0, 2**63): the engine's generator takes any of them


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_integer(value: Any) -> bool:
    """True for a Python or numpy integer, False for bools (which are flags, not numbers)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: Any, name: str = "seed", *, optional: bool = False) -> int | None:
    """`seed` as a plain int in [0, 2**63); numpy integers are accepted. None only when `optional`."""
    if seed is None and optional:
        return None
    if not is_integer(seed):
        allowed = "an integer or None" if optional else "an integer"
        raise TypeError(f"{name} must be {allowed} in [0, 2**63), got {_shown(seed)} ({type(seed).__name__})")
    if not 0 <= int(seed) < MAX_SEED:
        raise ValueError(f"{name} must lie in [0, 2**63), got {int(seed)}")
    return int(seed)


def check_bool(value: Any, name: str) -> bool:
    """`value` as a plain bool: True/False or a numpy bool, never a string or a number."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_shown(value)} ({type(value).__name__})")
    return bool(value)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """`value`, one of the strings `choices`."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}, got {_shown(value)} ({type(value).__name__})")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_variant(variant: Any, name: str = "variant") -> str:
    """`variant`: "standard" or "beginner" (R2)."""
    return check_choice(variant, name, VARIANTS)


_SIDE_OF_SEAT = {seat: side for side, seat in enumerate(SEATS)}


def check_seat(seat: Any, name: str = "seat") -> int:
    """The side index (0 blue, 1 red) of a seat name."""
    side = _SIDE_OF_SEAT.get(seat) if type(seat) is str else None
    return SEATS.index(check_choice(seat, name, SEATS)) if side is None else side


def check_number(
    value: Any, name: str, *, low: float | None = None, high: float | None = None, integer: bool = False
) -> float:
    """A finite real number (an int when `integer`) in [low, high]; bools are refused."""
    if integer:
        if not is_integer(value):
            raise TypeError(f"{name} must be an integer, got {_shown(value)} ({type(value).__name__})")
    elif not (is_integer(value) or isinstance(value, (float, np.floating))):
        raise TypeError(f"{name} must be a number, got {_shown(value)} ({type(value).__name__})")
    number = int(value) if integer else float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{name} must lie in {bounds}, got {value!r}")
    return number


def mix_cdf(
    mix: Mapping[Any, Any], slot_of: Callable[[Any], int], slots: Callable[[], int], label: Callable[[Any], str] = str
) -> np.ndarray:
    """An opponent mix (opponent -> weight >= 0, not all 0) as the cumulative probabilities over a batched env's
    opponent slots, from which its compiled step draws each game's opponent: `slot_of` gives an opponent's slot
    (adding it if new, or raising for what the env cannot play), `slots()` their count; slots after the last
    weighted one are never drawn. Every weight is checked before any slot is looked up or added."""
    if not mix:
        raise ValueError("opponents: an empty mix; give at least one opponent with a weight > 0")
    weights = [check_number(w, f"opponents[{label(o)!r:.60}] (a weight)", low=0.0) for o, w in mix.items()]
    if sum(weights) <= 0:
        raise ValueError("opponents: the weights of the mix add up to 0; give one a weight > 0")
    by_slot: dict[int, float] = {}
    for opponent, weight in zip(mix, weights, strict=True):
        k = slot_of(opponent)
        by_slot[k] = by_slot.get(k, 0.0) + weight
    total = sum(weights)
    cdf = np.zeros(slots(), dtype=np.float64)
    for k, weight in by_slot.items():
        cdf[k] = weight / total
    cdf = np.cumsum(cdf)
    cdf[max(k for k, weight in by_slot.items() if weight > 0) :] = 1.0
    return cdf


def check_keys(options: Any, name: str, allowed: Iterable[str]) -> dict[str, Any]:
    """A mapping whose keys are all among `allowed` (a copy, as a dict); None gives {}."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{name} must be a dict or None, got {_shown(options)} ({type(options).__name__})")
    allowed = tuple(allowed)
    for key in options:
        if key not in allowed:
            raise ValueError(f"{name}: unknown key {key!r}; known keys: {allowed}")
    return dict(options)


def check_adjacency(adjacency: Any, name: str = "adjacency") -> tuple[tuple[str, str], ...] | None:
    """A map as bordering pairs of province names (R1.4, D1); None means the declared map."""
    if adjacency is None:
        return None
    if isinstance(adjacency, (str, bytes)) or not isinstance(adjacency, Iterable):
        raise TypeError(f"{name} must be a list of [province, province] pairs, got {_shown(adjacency)}")
    pairs: list[tuple[str, str]] = []
    for i, pair in enumerate(adjacency):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable):
            raise TypeError(f"{name}[{i}] must be a pair of province names, got {_shown(pair)}")
        pair = tuple(pair)
        if len(pair) != 2:
            raise ValueError(f"{name}[{i}] must be a pair of province names, got {_shown(pair)}")
        for part in pair:
            if not isinstance(part, str):
                raise TypeError(f"{name}[{i}] must name provinces from {PROVINCES}, got {_shown(part)}")
        if pair[0] not in PROVINCES or pair[1] not in PROVINCES or pair[0] == pair[1]:
            raise ValueError(f"{name}[{i}] must be two different provinces from {PROVINCES}, got {_shown(pair)}")
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


def _board_order(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Bordering pairs in board order (R1.1's province order), each pair too, repeats dropped."""
    rank = PROVINCES.index
    ordered = {(a, b) if rank(a) < rank(b) else (b, a) for a, b in pairs}
    return tuple(sorted(ordered, key=lambda pair: (rank(pair[0]), rank(pair[1]))))


DECLARED_MAP = _board_order(ADJACENCY)


def canonical_map(pairs: tuple[tuple[str, str], ...] | None) -> tuple[tuple[str, str], ...] | None:
    """A checked map in canonical form: its pairs in board order, None for the declared map (D1)."""
    if pairs is None:
        return None
    canon = _board_order(pairs)
    return None if canon == DECLARED_MAP else canon


@dataclass(frozen=True)
class Options:
    """The rules a game is played under, validated once: what travels from a command line to the engine.

    `variant` "standard" or "beginner" (R2); `events` whether the event cards are in play (R2.3);
    `adjacency` the map as bordering pairs of province names (R1.4), None for the declared map (D1).
    Building one checks every field (TypeError for a wrong type, ValueError for a value not allowed) and
    stores it in canonical form, so two `Options` describe the same game exactly when they are equal: a
    map's pairs in board order (each pair too, repeats dropped), and None for the declared map.
    """

    variant: str = "standard"
    events: bool = False
    adjacency: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", check_variant(self.variant))
        object.__setattr__(self, "events", check_bool(self.events, "events"))
        object.__setattr__(self, "adjacency", canonical_map(check_adjacency(self.adjacency)))

    @classmethod
    def of(cls, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        """`options` itself, or the `Options` of a mapping of its fields (None: the defaults), with `fields` on top."""
        if options is None:
            if not fields:
                return DEFAULT_OPTIONS
            base: dict[str, Any] = {}
        elif isinstance(options, Options):
            if not fields:
                return options
            base = options.as_dict()
        else:
            base = check_keys(options, "options", OPTION_FIELDS)
        return cls(**{**base, **check_keys(fields, "options", OPTION_FIELDS)})

    def as_dict(self) -> dict[str, Any]:
        """The fields as keyword arguments (`Game.new(seed, **options.as_dict())`)."""
        return {"variant": self.variant, "events": self.events, "adjacency": self.adjacency}


OPTION_FIELDS: tuple[str, ...] = ("variant", "events", "adjacency")
DEFAULT_OPTIONS = Options()
