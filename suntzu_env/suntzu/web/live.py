"""Sun Tzu in the app: a person against an agent, replays of recorded games, the agents a server offers.

The server holds the `Game`; the page only ever receives `seat_view`s of the person's seat (R9). A
`LiveGame` answers the person's decisions and lets the agent answer its own at once, so every response
comes back at the person's next decision or at the end. The seed, which fixes every hidden card, is kept
back until the game is over. The person is sent frames only of states they may see: never one where the agent
is being asked about a warlord it holds in secret (a `window` or `reactive` offer, R8), so that what the person
receives is the same whether or not such an offer was made and declined. Nor is when it receives it: every
response waits, after its public work, what is left of `SECRET_THINKING` times the agent's median public decision
(the time the agent may spend on such offers in one response), so that the clock reads the same whether or not an
offer was made (`tests/play/test_play_timing.py`).

The agents a server may play are fixed when it starts (`AgentMenu`): the scripted ones, `ismcts` within a
budget, and the models and searches with a learned value its command line names; anything else is refused
without touching the disk.
"""

from __future__ import annotations

import bisect
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents import AGENT_NAMES, Agent, check_spec, make_agent, short_label
from agents.registry import ISMCTS_PREFIX, ISMCTS_VALUE_PREFIX, POLICY_PREFIXES, value_search
from suntzu_env.core.protocol import ask
from suntzu_env.play.store import ModelShelf
from suntzu_env.pretrained import shipped_specs
from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.rules import SEATS, VARIANTS
from suntzu_env.suntzu.web.chronicle import Chronicle, Frame
from suntzu_env.suntzu.web.view import seat_view

MAX_SEARCH_ITERATIONS = 2_000  # the largest `ismcts:<iterations>` the app plays (about 0.2 s a decision)
SEARCH_SECONDS = 5.0  # thinking time per response; past it a search plays its remaining decisions with...
HURRIED_ITERATIONS = 50  # ...this many iterations
HIDDEN_OFFERS = ("window", "reactive")  # decisions that tell the holder holds that warlord (R8, R9)
# Every response waits, after its public work, as long as the agent may think in secret: this many times the median
# of the agent's public decisions so far, at least MIN_SECRET_THINKING seconds, whether or not it thought in secret.
SECRET_THINKING = 2.0
MIN_SECRET_THINKING = 0.002
VIEW_MODES = ("blue", "red", "full")  # replay views: a seat's, or everything


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
        self,
        agent: str,
        seat: str,
        variant: str = "standard",
        events: bool = False,
        seed: int | None = None,
        player: Agent | None = None,
    ) -> None:
        """`agent` names the opponent; `player` is that agent when already built (else `make_agent(agent)`)."""
        self.seat = check_choice(seat, SEATS, "seat")
        self.variant = check_choice(variant, VARIANTS, "variant")
        if not isinstance(events, bool):
            raise ValueError(f"events must be true or false, got {events!r}")
        self.seed = check_seed(seed)
        if self.seed is None:
            self.seed = secrets.randbelow(2**62)
        self.agent_spec = agent
        self.agent = player if player is not None else make_agent(agent)  # ValueError naming the valid agents
        self.agent.reset(self.seed ^ 0x5EED)
        self.id = secrets.token_urlsafe(9)
        self.chronicle = Chronicle(Game.new(self.seed, variant=variant, events=events))
        self._lock = threading.RLock()  # a view waits for the agent's answers: never a state in between
        self._public_seconds: list[float] = []  # the agent's public decisions' durations, sorted
        self._pace(self._run_agent())

    @property
    def game(self) -> Game:
        return self.chronicle.game

    def _run_agent(self) -> float:
        """The agent's decisions up to the person's next one; returns the seconds spent on those the person may not
        see (`HIDDEN_OFFERS`). A search past `SEARCH_SECONDS` of public thinking plays the rest of them with
        `HURRIED_ITERATIONS`, so that one response stays bounded, and so does a secret decision that would outlast
        `_allowance`."""
        game, agent = self.game, self.agent
        start, iterations = time.perf_counter(), getattr(agent, "iterations", None)
        secret = 0.0
        try:
            while (player := game.current_player) is not None and player != self.seat:
                hidden = game.decision["kind"] in HIDDEN_OFFERS
                if iterations is not None:
                    hurry = time.perf_counter() - start - secret > SEARCH_SECONDS  # public thinking's clock
                    hurry |= hidden and secret + self._typical() > self._allowance()
                    agent.iterations = min(iterations, HURRIED_ITERATIONS) if hurry else iterations  # type: ignore[attr-defined]
                began = time.perf_counter()
                self.chronicle.apply(int(ask(agent, game, player)))
                spent = time.perf_counter() - began
                if hidden:
                    secret += spent
                else:
                    bisect.insort(self._public_seconds, spent)
        finally:
            if iterations is not None:
                agent.iterations = iterations  # type: ignore[attr-defined]
        return secret

    def _typical(self) -> float:
        """The median of the agent's public decisions so far, in seconds (0 before the first)."""
        times = self._public_seconds
        return times[len(times) // 2] if times else 0.0

    def _allowance(self) -> float:
        """How long the agent may think in secret in one response: `SECRET_THINKING` typical decisions, at least
        `MIN_SECRET_THINKING` seconds."""
        return max(MIN_SECRET_THINKING, SECRET_THINKING * self._typical())

    def _pace(self, secret: float) -> None:
        """Wait out what is left of `_allowance` after `secret` seconds of secret thinking: the response then
        comes as late whether or not the agent was asked about a warlord it holds in secret (R9)."""
        time.sleep(max(0.0, self._allowance() - secret))

    def _shown(self, frame: Frame) -> bool:
        """Whether the person may be sent this frame: not while the agent weighs a secret warlord (R9)."""
        d = frame.game.decision
        return d is None or d["player"] == self.seat or d["kind"] not in HIDDEN_OFFERS

    def view(self) -> dict[str, Any]:
        """What the page may show now: the person's view, and the game's settings."""
        with self._lock:
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
            secret = self._run_agent()  # normally done already; again after an agent that failed
            if game.current_player != self.seat:
                raise ValueError(f"it is not {self.seat}'s turn")
            self.chronicle.apply(action)  # ValueError: names the decision and its legal answers
            secret += self._run_agent()
            frames = [f for f in self.chronicle.frames[first:] if self._shown(f)]
            views = _deduped([seat_view(f, self.chronicle.log, self.seat) for f in frames])
            final = self.view()
            about = {k: v for k, v in final["game"].items() if k != "seed"}
            for v in views[:-1]:
                v["game"] = about
            self._pace(secret)  # holding the game: a view asked meanwhile waits as long
            return {"view": final, "frames": views[:-1]}

    def record(self) -> dict[str, Any]:
        """The game's record (R11), only once it is over: it holds the seed."""
        with self._lock:
            over = self.game.is_terminal
        if not over:
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


def _value_network(spec: str) -> Any:
    from suntzu_env.suntzu.values import read_value_net

    return read_value_net(spec[len(ISMCTS_VALUE_PREFIX) :])


class AgentMenu:
    """The agents a server may play, fixed when it starts: the scripted ones, `ismcts:<iterations>` up to
    `MAX_SEARCH_ITERATIONS`, the trained models named on its command line or found under its model folders
    (a `ModelShelf`), and the searches with a learned value named on its command line (`ismcts-value:<path>`,
    another `ModelShelf`: each network read once and shared by the games that play it); the shipped agents
    (`ppo:pretrained/suntzu`, `ismcts-value:pretrained/suntzu-value`) are offered without being named.

    `make(spec)` refuses any other spec with a one-line ValueError before touching the disk.
    """

    def __init__(self, models: Sequence[str] = (), folders: Sequence[str | Path] = ()) -> None:
        named = [spec for spec in models if check_spec(spec) is None]
        shipped = shipped_specs("suntzu")
        policies = [spec for spec in named if spec.startswith(POLICY_PREFIXES)]
        offered = [spec for spec in shipped if spec.startswith(POLICY_PREFIXES)]
        self.shelf = ModelShelf(policies, folders, lambda spec: make_agent(spec), offered=offered)
        values = [spec for spec in named if spec.startswith(ISMCTS_VALUE_PREFIX)]
        searched = [spec for spec in shipped if spec.startswith(ISMCTS_VALUE_PREFIX)]
        search = lambda value, _, seed: value_search(value, seed)  # noqa: E731
        self.searches = ModelShelf(values, (), _value_network, search, offered=searched)

    @property
    def models(self) -> list[str]:
        return [*self.searches.specs, *self.shelf.specs]

    def names(self) -> list[str]:
        return [*AGENT_NAMES, *self.models]

    def check(self, spec: object) -> str:
        """The spec if this server plays it, else a one-line ValueError (nothing is read from the disk)."""
        if not isinstance(spec, str):
            raise ValueError(f"agent must be a string, got {type(spec).__name__}")
        if spec in AGENT_NAMES or spec in self.shelf or spec in self.searches:
            return spec
        if spec.startswith(ISMCTS_PREFIX):
            text = spec[len(ISMCTS_PREFIX) :]
            if text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_SEARCH_ITERATIONS:
                return spec
            raise ValueError(f"agent {spec[:60]!r}: iterations must be a whole number from 1 to "
                             f"{MAX_SEARCH_ITERATIONS} here")  # fmt: skip
        offered = ", ".join([*AGENT_NAMES, f"{ISMCTS_PREFIX}<1..{MAX_SEARCH_ITERATIONS}>", *self.models])
        raise ValueError(
            f"agent {spec[:60]!r} is not offered by this server; offered: {offered} (a model is offered when "
            "the server is started with it: --model, --models)"
        )

    def load(self) -> None:
        """Load every model named on the command line now; ModelError (one line) for one that cannot play."""
        self.searches.load()
        self.shelf.load()

    def make(self, spec: object, seed: int | None = None) -> Agent:
        spec = self.check(spec)
        for shelf in (self.searches, self.shelf):
            if spec in shelf:
                return shelf.player(spec, seed)
        return make_agent(spec, seed)
