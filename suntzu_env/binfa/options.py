"""Bin'Fa's options (B0.7): one validated dataclass; a bad value gets a one-line error naming what is allowed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from suntzu_env.binfa.geometry import N_TERRAIN, N_TRIANGLES, N_WHIRLPOOLS, TRIANGLE_INDEX
from suntzu_env.core.checks import check_seed, is_integer

LEVELS = (1, 2, 3, 4)
DEPLOYMENTS = ("choose", "random")
MAX_TURNS_LIMIT = 1_000_000
ARMIES_FOR = {1: tuple(range(2, 7)), 2: (3,), 3: (2,)}  # armies per player -> player counts (B47-B50)

__all__ = ["DEPLOYMENTS", "LEVELS", "Options", "check_seed"]


def _triangles(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be 'random' or a list of triangle names such as 'red-4-6', got {value!r:.60}")
    for t in value:
        if t not in TRIANGLE_INDEX:
            raise ValueError(f"{name}: unknown triangle {t!r:.40}: names are <colour>-<row 1..4>-<position>")
    if len(set(value)) != len(value):
        raise ValueError(f"{name}: a triangle is listed twice")
    return tuple(value)


@dataclass(frozen=True)
class Options:
    """The rules a game is played under (B0.7).

    - `level`: 1..4 (1 battlefield and dice; 2 + terrain; 3 + supply; 4 + whirlpools).
    - `players`: 2..6; `armies_per_player`: 1, 2 (3 players) or 3 (2 players) (BD4).
    - `terrain`: "random" (the seed draws 9 markers, B21) or a list of at most 9 triangle names (level 2+).
    - `whirlpools`: "random" or a list of 3 triangle names (level 4 only, B38).
    - `deployment`: "choose" (players place their units, B1) or "random" (the seed places them).
    - `max_turns`: the game ends undecided after this many turns (BD5).
    """

    level: int = 1
    players: int = 2
    armies_per_player: int = 1
    terrain: str | tuple[str, ...] = "random"
    whirlpools: str | tuple[str, ...] = "random"
    deployment: str = "choose"
    max_turns: int = 300

    def __post_init__(self) -> None:
        if not is_integer(self.level) or self.level not in LEVELS:
            raise ValueError(f"level must be one of 1, 2, 3, 4, got {self.level!r:.40}")
        if not is_integer(self.players) or not 2 <= self.players <= 6:
            raise ValueError(f"players must be an integer 2..6, got {self.players!r:.40}")
        app = self.armies_per_player
        if not is_integer(app) or app not in ARMIES_FOR:
            raise ValueError(f"armies_per_player must be 1, 2 (with 3 players) or 3 (with 2 players), got {app!r:.40}")
        if self.players not in ARMIES_FOR[app]:
            raise ValueError(
                f"armies_per_player={app} needs players={ARMIES_FOR[app][0]}, got players={self.players}: "
                "allowed are 1 army each, 2 armies with 3 players, 3 armies with 2 players"
            )
        if self.terrain != "random":
            marks = _triangles(self.terrain, "terrain")
            if self.level < 2:
                raise ValueError("terrain: level 1 has no terrain (B21 starts at level 2); use terrain='random'")
            if len(marks) > N_TERRAIN:
                raise ValueError(f"terrain: at most {N_TERRAIN} markers (B21), got {len(marks)}")
            object.__setattr__(self, "terrain", marks)
        if self.whirlpools != "random":
            pools = _triangles(self.whirlpools, "whirlpools")
            if self.level < 4:
                raise ValueError(f"whirlpools: only level 4 has whirlpools (B38), got level={self.level}")
            if len(pools) != N_WHIRLPOOLS:
                raise ValueError(f"whirlpools: exactly {N_WHIRLPOOLS} triangles (B38), got {len(pools)}")
            if isinstance(self.terrain, tuple) and set(pools) & set(self.terrain):
                raise ValueError("whirlpools: a triangle cannot hold both a terrain marker and a whirlpool")
            object.__setattr__(self, "whirlpools", pools)
        if (self.terrain == "random") != (self.whirlpools == "random") and self.level == 4:
            raise ValueError("terrain and whirlpools: at level 4 give both lists or neither (they are drawn together)")
        if isinstance(self.terrain, tuple):
            from suntzu_env.binfa.engine import connected

            blocked = np.zeros(N_TRIANGLES, dtype=np.int8)
            for name in self.terrain + (self.whirlpools if isinstance(self.whirlpools, tuple) else ()):
                blocked[TRIANGLE_INDEX[name]] = 1
            if not connected(blocked):
                raise ValueError("terrain: the markers must not cut off part of the battlefield (B21)")
        if self.deployment not in DEPLOYMENTS:
            raise ValueError(f"deployment must be one of {DEPLOYMENTS}, got {self.deployment!r:.40}")
        if not is_integer(self.max_turns) or not 1 <= self.max_turns <= MAX_TURNS_LIMIT:
            raise ValueError(f"max_turns must be an integer 1..{MAX_TURNS_LIMIT}, got {self.max_turns!r:.40}")
        for name in ("level", "players", "armies_per_player", "max_turns"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @classmethod
    def of(cls, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        """`options` (an Options, a mapping or None) with `fields` on top; unknown names are refused."""
        base: dict[str, Any] = {}
        if isinstance(options, Options):
            base = asdict(options)
        elif isinstance(options, Mapping):
            base = dict(options)
        elif options is not None:
            raise TypeError(f"options must be an Options, a dict or None, got {type(options).__name__}")
        base.update(fields)
        allowed = tuple(cls.__dataclass_fields__)
        for key in base:
            if key not in allowed:
                raise ValueError(f"unknown option {key!r:.40}: options are {', '.join(allowed)}")
        for key in ("terrain", "whirlpools"):
            if isinstance(base.get(key), list):
                base[key] = tuple(base[key])
        return cls(**base)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the records."""
        d = asdict(self)
        for key in ("terrain", "whirlpools"):
            if isinstance(d[key], tuple):
                d[key] = list(d[key])
        return d

    def as_dict(self) -> dict[str, Any]:
        """The fields, JSON-ready (`suntzu_env.core.protocol.GameOptions`)."""
        return self.to_dict()

    def engine_terrain(self) -> tuple[np.ndarray, np.ndarray]:
        """The chosen terrain and whirlpool triangles as index arrays (empty: the seed draws them)."""
        marks = () if self.terrain == "random" else self.terrain
        pools = () if self.whirlpools == "random" else self.whirlpools
        return (
            np.array([TRIANGLE_INDEX[t] for t in marks], dtype=np.int64),
            np.array([TRIANGLE_INDEX[t] for t in pools], dtype=np.int64),
        )
