"""What the app holds for any game: games and replays by id for each client (`Store`), and the trained models a
server offers (`ModelShelf`, `found_models`).

Games are kept in a `Store`, a bounded number for each client (remote address): a client's new game may replace only
its own least recently used idle one, never another client's; with no room, it is refused. The models a server may
play are fixed when it starts: those its command line names, the package's shipped ones and those found under its
model folders, each read once, as data, by the game's own reader.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from suntzu_env.core.agent import CHECKPOINT_DIR, MODEL_FILE

MAX_GAMES = 256  # live games kept in memory
MAX_REPLAYS = 64  # replays kept in memory
PER_CLIENT = 64  # games (or replays) one client address may hold; its least recently used idle one goes first
IDLE_SECONDS = 3 * 3600  # a game untouched this long is dropped first
T = TypeVar("T")


class Busy(Exception):
    """The store is full of games in use: nothing can make room now."""


@dataclass
class _Slot(Generic[T]):
    item: T
    client: str
    used: float  # time of the last use (monotonic)
    users: int = 0  # requests using it now


class Store(Generic[T]):
    """Objects by id, each held for a client (the remote address), at most `capacity` in all and `per_client` for
    one client. A client never loses an object to another's: making room for a client's new one drops that
    client's own least recently used object that no request is using; with none to drop, `add` raises `Busy` and
    nothing changes. An object untouched for `idle` seconds is abandoned: it ends, whoever adds."""

    def __init__(
        self,
        capacity: int = MAX_GAMES,
        per_client: int = PER_CLIENT,
        idle: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity, self.per_client, self.idle, self._clock = capacity, per_client, idle, clock
        self._items: OrderedDict[str, _Slot[T]] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def _drop_first(self, drop: Callable[[_Slot[T]], bool]) -> bool:
        """Drop the least recently used object not in use that `drop` names; whether there was one."""
        for key, slot in self._items.items():
            if slot.users == 0 and drop(slot):
                del self._items[key]
                return True
        return False

    def add(self, key: str, item: T, client: str = "") -> None:
        with self._lock:
            now = self._clock()
            while self._drop_first(lambda slot: now - slot.used >= self.idle):
                pass  # abandoned ones end first
            own = sum(slot.client == client for slot in self._items.values())

            def mine(slot: _Slot[T]) -> bool:
                return slot.client == client

            if own >= self.per_client and not self._drop_first(mine):
                raise Busy(f"this client holds {self.per_client}, the most one client may, all in use")
            if len(self._items) >= self.capacity and not self._drop_first(mine):
                whose = "yours all in use, the rest other players'" if own else "all of other players"
                raise Busy(f"the server holds {self.capacity}, the most it keeps, {whose}")
            self._items[key] = _Slot(item, client, now)

    def get(self, key: str) -> T | None:
        """The object (its use refreshed), or None."""
        with self._lock:
            slot = self._items.get(key)
            if slot is None:
                return None
            slot.used = self._clock()
            self._items.move_to_end(key)
            return slot.item

    @contextmanager
    def use(self, key: str) -> Iterator[T | None]:
        """The object, held in use (never dropped) until the block ends; None if there is none."""
        with self._lock:
            slot = self._items.get(key)
            if slot is not None:
                slot.users += 1
                slot.used = self._clock()
                self._items.move_to_end(key)
        try:
            yield None if slot is None else slot.item
        finally:
            if slot is not None:
                with self._lock:
                    slot.users -= 1
                    slot.used = self._clock()

    def __len__(self) -> int:
        return len(self._items)


def policy_player(policy: Any, spec: str, seed: int | None = None) -> Any:
    """A seeded player of a loaded trained policy: a new one of its own kind over its frozen `actor`, playing its
    argmax (a `ModelShelf`'s default)."""
    return type(policy)(policy.actor, deterministic=True, seed=seed, name=spec)


class ModelShelf:
    """The models a server offers, fixed when it starts: those named on its command line (`given`) and those found
    under its model folders (`found_models`), in that order, with the package's shipped agents (`offered`,
    `suntzu_env.pretrained`) between them.

    Each is read once, as data, by `read` (a spec -> what its games share: a loaded trained policy, a value
    network): the named ones at `load`, so that one that cannot play is refused before the server starts,
    the offered and found ones when a game first asks for one. Each game gets its own seeded player of it from
    `play` (the shared part, the spec, the seed; by default `policy_player`).
    """

    def __init__(
        self,
        given: Sequence[str],
        folders: Sequence[str | Path],
        read: Callable[[str], Any],
        play: Callable[[Any, str, int | None], Any] | None = None,
        offered: Sequence[str] = (),
    ) -> None:
        self.given = list(dict.fromkeys(given))
        found = [spec for folder in folders for spec in found_models(Path(folder))]
        self.specs = list(dict.fromkeys([*self.given, *offered, *found]))
        self._read = read
        self._play = play or policy_player
        self._shared: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __contains__(self, spec: object) -> bool:
        return spec in self.specs

    def load(self) -> None:
        """Read every model named on the command line now (a one-line ModelError for one that cannot play)."""
        for spec in self.given:
            self._read_once(spec)

    def _read_once(self, spec: str) -> Any:
        with self._lock:
            if spec not in self._shared:
                self._shared[spec] = self._read(spec)
            return self._shared[spec]

    def player(self, spec: str, seed: int | None = None) -> Any:
        """A seeded player of the model `spec` (one of `specs`)."""
        return self._play(self._read_once(spec), spec, seed)


MAX_FOUND = 200  # models listed from one folder
MAX_DEPTH = 3  # folders below the one given that are searched


def found_models(folder: Path) -> list[str]:
    """`ppo:` specs of the models under `folder` (at most MAX_DEPTH folders down): run folders (holding
    `model.zip` or `checkpoints/`) and `.zip` files, at most MAX_FOUND, each named by the folder as given joined
    with its relative path."""
    out: list[str] = []
    for here, dirs, names in os.walk(folder):
        dirs.sort()
        if len(Path(here).relative_to(folder).parts) >= MAX_DEPTH:
            dirs.clear()
        if Path(here) != folder and (MODEL_FILE in names or CHECKPOINT_DIR in dirs):
            out.append(f"ppo:{here}")
        out += [f"ppo:{Path(here) / name}" for name in sorted(names) if name.endswith(".zip")]
    return out[:MAX_FOUND]
