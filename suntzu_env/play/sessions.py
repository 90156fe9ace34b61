"""Games held by the server: a person against an agent, and replays of recorded games.

The server holds the `Game`; the page only ever receives `seat_view`s of the person's seat (R9). A
`LiveGame` answers the person's decisions and lets the agent answer its own at once, so every response
comes back at the person's next decision or at the end. The seed, which fixes every hidden card, is kept
back until the game is over.
"""

from __future__ import annotations

import bisect
import secrets
import threading
from collections import OrderedDict
from typing import Any, Generic, TypeVar

from agents import make_agent, short_label
from suntzu_env import Game
from suntzu_env.play.chronicle import Chronicle
from suntzu_env.play.view import seat_view
from suntzu_env.protocol import ask
from suntzu_env.rules import SEATS, VARIANTS

MAX_KEPT = 64  # games and replays kept in memory; the oldest go first
VIEW_MODES = ("blue", "red", "full")  # replay views: a seat's, or everything
T = TypeVar("T")


def check_choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}; got {value!r}")
    return str(value)


def check_seed(seed: object) -> int | None:
    if seed is None:
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
        raise ValueError(f"seed must be a whole number in [0, 2**62), got {seed!r}")
    return seed


def _deduped(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Views without repeats: a step that changed nothing a seat can see shows nothing (R9)."""
    out: list[dict[str, Any]] = []
    for v in views:
        if not out or out[-1] != v:
            out.append(v)
    return out


class LiveGame:
    """A person in one seat against an agent in the other."""

    def __init__(
        self, agent: str, seat: str, variant: str = "standard", events: bool = False, seed: int | None = None
    ) -> None:
        self.seat = check_choice(seat, SEATS, "seat")
        self.variant = check_choice(variant, VARIANTS, "variant")
        if not isinstance(events, bool):
            raise ValueError(f"events must be true or false, got {events!r}")
        self.seed = check_seed(seed)
        if self.seed is None:
            self.seed = secrets.randbelow(2**62)
        self.agent_spec = agent
        self.agent = make_agent(agent)  # raises ValueError naming the valid agents
        self.agent.reset(self.seed ^ 0x5EED)
        self.id = secrets.token_urlsafe(9)
        self.chronicle = Chronicle(Game.new(self.seed, variant=variant, events=events))
        self._lock = threading.Lock()
        self._run_agent()

    @property
    def game(self) -> Game:
        return self.chronicle.game

    def _run_agent(self) -> None:
        game = self.game
        while (player := game.current_player) is not None and player != self.seat:
            self.chronicle.apply(int(ask(self.agent, game, player)))

    def view(self) -> dict[str, Any]:
        """What the page may show now: the person's view, and the game's settings."""
        chronicle = self.chronicle
        view = seat_view(chronicle.frames[-1], chronicle.log, self.seat)
        view["game"] = self._about()
        return view

    def _about(self) -> dict[str, Any]:
        about: dict[str, Any] = {"id": self.id, "agent": self.agent_spec, "seat": self.seat, "variant": self.variant,
                                 "agent_label": short_label(self.agent_spec)}  # fmt: skip
        if self.game.is_terminal:  # the seed fixes every hidden card: shown only once the game is over
            about["seed"] = self.seed
        return about

    def act(self, action: object) -> dict[str, Any]:
        """The person's answer; then the agent's, up to the person's next decision. Returns the views shown
        along the way (one per step the person can see) and the final one. Bad input changes nothing."""
        with self._lock:
            game = self.game
            if game.current_player is None:
                raise ValueError(f"the game is over ({game.winner}): no action is legal")
            if not isinstance(action, str):
                raise ValueError(f"an action is a string such as 'place:7' or 'pass', got {action!r}")
            first = len(self.chronicle.frames)
            self._run_agent()  # normally done already; again after an agent that failed
            if game.current_player != self.seat:
                raise ValueError(f"it is not {self.seat}'s turn")
            self.chronicle.apply(action)  # ValueError: names the decision and its legal answers
            self._run_agent()
            frames = self.chronicle.frames[first:]
            views = _deduped([seat_view(f, self.chronicle.log, self.seat) for f in frames])
            final = self.view()
            about = {k: v for k, v in final["game"].items() if k != "seed"}
            for v in views[:-1]:
                v["game"] = about
            return {"view": final, "frames": views[:-1]}

    def record(self) -> dict[str, Any]:
        """The game's record (R11), only once it is over: it holds the seed."""
        if not self.game.is_terminal:
            raise PermissionError(
                "the record holds the seed, which shows every hidden card: it is given once the game is over"
            )
        return self.game.record()


class Replay:
    """A recorded game to step through from either seat's view or with everything shown."""

    def __init__(self, record: dict[str, Any], title: str = "") -> None:
        if not isinstance(record, dict):
            raise ValueError("a game record is a JSON object with keys 'seed', 'rules', 'actions' (Game.record())")
        self.chronicle = Chronicle.replay(record)  # ValueError naming the bad field; nothing is kept
        self.record = record
        self.title = title
        self.id = secrets.token_urlsafe(9)
        self._steps: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def steps(self, mode: str) -> list[int]:
        """The frames where what `mode` sees changes: every step for the full view."""
        check_choice(mode, VIEW_MODES, "view")
        with self._lock:
            if mode not in self._steps:
                frames = self.chronicle.frames
                if mode == "full":
                    self._steps[mode] = list(range(len(frames)))
                else:
                    keep, last = [], None
                    for i, frame in enumerate(frames):
                        v = seat_view(frame, self.chronicle.log, mode)
                        if v != last:
                            keep.append(i)
                            last = v
                    self._steps[mode] = keep
            return self._steps[mode]

    def step_at(self, mode: str, frame: object) -> int:
        """The step of `mode` that shows frame `frame` (the last one at or before it): switching views keeps
        the place in the game."""
        steps = self.steps(mode)
        if not isinstance(frame, int) or isinstance(frame, bool) or not 0 <= frame < len(self.chronicle.frames):
            raise ValueError(f"frame must be a whole number in [0, {len(self.chronicle.frames) - 1}], got {frame!r}")
        return max(bisect.bisect_right(steps, frame) - 1, 0)

    def view(self, mode: str, step: object) -> dict[str, Any]:
        steps = self.steps(mode)
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < len(steps):
            raise ValueError(f"step must be a whole number in [0, {len(steps) - 1}], got {step!r}")
        frame = self.chronicle.frames[steps[step]]
        view = seat_view(frame, self.chronicle.log, None if mode == "full" else mode)
        winner = self.chronicle.game.winner
        view["replay"] = {
            "id": self.id,
            "title": self.title,
            "mode": mode,
            "step": step,
            "steps": len(steps),
            "frame": steps[step],
            "decisions": len(self.chronicle.frames) - 1,
            "winner": winner,
        }
        return view


class Store(Generic[T]):
    """The last MAX_KEPT objects by id."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, key: str, item: T) -> None:
        with self._lock:
            self._items[key] = item
            while len(self._items) > MAX_KEPT:
                self._items.popitem(last=False)

    def get(self, key: str) -> T | None:
        with self._lock:
            return self._items.get(key)
