"""Checks for the arguments users pass in: seeds, variants, flags, seats, maps, numbers, option keys.

Every public entry point (`Game`, the environments, the command lines) checks its arguments here, so a
bad one gets the same clear error everywhere and nothing unchecked reaches the compiled engine. As in
Python itself: a value of the wrong type raises `TypeError`, a value of the right type that is not
allowed raises `ValueError`. Each check returns the value in its canonical form (a plain `int` for a
numpy integer seed, a plain `bool` for `np.True_`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from suntzu_env.core.checks import (
    check_bool,
    check_choice,
    check_keys,
    shown,
)
from suntzu_env.suntzu.rules import ADJACENCY, PROVINCES, SEATS, VARIANTS


def check_variant(variant: Any, name: str = "variant") -> str:
    """`variant`: "standard" or "beginner" (R2)."""
    return check_choice(variant, name, VARIANTS)


_SIDE_OF_SEAT = {seat: side for side, seat in enumerate(SEATS)}


def check_seat(seat: Any, name: str = "seat") -> int:
    """The side index (0 blue, 1 red) of a seat name."""
    side = _SIDE_OF_SEAT.get(seat) if type(seat) is str else None
    return SEATS.index(check_choice(seat, name, SEATS)) if side is None else side


def check_adjacency(adjacency: Any, name: str = "adjacency") -> tuple[tuple[str, str], ...] | None:
    """A map as bordering pairs of province names (R1.4, D1); None means the declared map."""
    if adjacency is None:
        return None
    if isinstance(adjacency, (str, bytes)) or not isinstance(adjacency, Iterable):
        raise TypeError(f"{name} must be a list of [province, province] pairs, got {shown(adjacency)}")
    pairs: list[tuple[str, str]] = []
    for i, pair in enumerate(adjacency):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable):
            raise TypeError(f"{name}[{i}] must be a pair of province names, got {shown(pair)}")
        pair = tuple(pair)
        if len(pair) != 2:
            raise ValueError(f"{name}[{i}] must be a pair of province names, got {shown(pair)}")
        for part in pair:
            if not isinstance(part, str):
                raise TypeError(f"{name}[{i}] must name provinces from {PROVINCES}, got {shown(part)}")
        if pair[0] not in PROVINCES or pair[1] not in PROVINCES or pair[0] == pair[1]:
            raise ValueError(f"{name}[{i}] must be two different provinces from {PROVINCES}, got {shown(pair)}")
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
