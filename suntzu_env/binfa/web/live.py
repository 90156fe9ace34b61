"""Bin'Fa in the app: a person's game against the plugin's agents, replays of records, and what the page draws.

The server holds the `suntzu_env.binfa.Game`. Bin'Fa hides nothing on the board once every unit stands (every
stack, pawn and token is public), so a view is then the whole position. Deployment (BD6, rules v1.1) is hidden:
until every unit stands, the person is sent only their own seats' placements (`Game.view_dict`), the other
players' deploy actions without their triangles (`deploy`), and neither the record nor the seed. The seed throws
every die to come, so it (and the game's record, which holds it) is given only once the game is over. The page
draws the board from `board()` (the hexagon's 96 triangles and the 42 circles of the supply ring, from
`binfa.picture`'s geometry) and each view; its clickable answers are the game's own `legal_action_strings()`,
each with the triangles or circle it names (`places`), so that clicking a stack, then a neighbour, picks a move.
The other seats are played by one of the plugin's agents (`BINFA.agents`), asked as every front-end asks
(`suntzu_env.core.protocol.ask`). Every answer of
theirs is sent (`played`: a hidden deployment's as `deploy` alone) and none is made on what the person may not
see (they throw no die ahead). The responses are not paced (unlike Sun Tzu's `LiveGame`): the only hidden
decisions are the agents' deployments, as many in each response whatever they place (12 per army, in seat
order), and the time each takes does not depend on where: `random` draws one of its base's open triangles,
`greedy` and `heuristic` score each of them (16 at most, compiled: microseconds), a model runs its network once on
an observation of fixed size. `tests/play/test_binfa_hidden_deployment.py` measures it.
"""

from __future__ import annotations

import functools
import secrets
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from suntzu_env.binfa import Game, Options
from suntzu_env.binfa import actions as act
from suntzu_env.binfa.binfa_v3 import AGENT_NAMES
from suntzu_env.binfa.geometry import (
    COLOUR_FILL,
    COLOURS,
    EDGE_FROM,
    EDGE_TO,
    N_CIRCLES,
    N_COLOURS,
    N_TRIANGLES,
    RING_COLOUR,
    SECTOR,
    TRIANGLE_NAMES,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.layout import MAX_PLAYERS
from suntzu_env.binfa.options import LEVELS
from suntzu_env.binfa.picture import circle_centre, triangle_corners
from suntzu_env.binfa.plugin import BINFA, SeatGame
from suntzu_env.binfa.records import hide_deployment
from suntzu_env.binfa.render import LETTERS, stack_letters
from suntzu_env.core.protocol import ask
from suntzu_env.play.store import ModelShelf
from suntzu_env.pretrained import shipped_specs

AGENTS = tuple(BINFA.agents)  # random, greedy, heuristic, mcts
PLAYERS = tuple(range(2, MAX_PLAYERS + 1))
SIZE = 600  # the board's drawing, in SVG units
SIDE = SIZE * 0.4  # the hexagon's side
LOG_SHOWN = 200  # the last entries of the log sent with a view
MAX_TURNS = Options().max_turns  # the longest game the app plays, in turns (BD5): the agents' answers stay bounded
CHECKPOINT = 64  # a replay keeps a copy of the game every this many actions, or more...
MAX_CHECKPOINTS = 64  # ...so as to keep at most this many copies


def check_options(
    players: object, level: object, seats: object, max_turns: object = MAX_TURNS
) -> tuple[Options, tuple[int, ...]]:
    """The options of a person's game and the players they play; ValueError naming what is allowed."""
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"max_turns must be a whole number 1..{MAX_TURNS} here, got {max_turns!r:.40}")
    options = Options.of(None, players=players, level=level, max_turns=max_turns)
    if not isinstance(seats, list) or not seats:
        raise ValueError(f"seats must be a non-empty list of the players you play, 0..{options.players - 1}, "
                         f"got {seats!r:.60}")  # fmt: skip
    for seat in seats:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < options.players:
            raise ValueError(f"seats: a player is a whole number 0..{options.players - 1}, got {seat!r:.40}")
    if len(set(seats)) != len(seats):
        raise ValueError("seats: a player is listed twice")
    return options, tuple(sorted(seats))


class BinFaMenu:
    """The agents a server's Bin'Fa page may play, fixed when it starts: the plug-in's compiled agents and the
    trained Bin'Fa models (`ppo:<path>`) named on its command line, shipped (`ppo:pretrained/binfa`) or found
    under its model folders (a
    `sessions.ModelShelf`, as Sun Tzu's `AgentMenu` holds them). `check` refuses any other spec before touching the
    disk; a model of another game is refused in one line when it is read (at start for a named one, when a game
    first asks for it for a found one)."""

    def __init__(self, models: Sequence[str] = (), folders: Sequence[str | Path] = ()) -> None:
        given = [spec for spec in models if BINFA.trained_model(spec) is not None]
        self.shelf = ModelShelf(given, folders, BINFA.make_agent, offered=shipped_specs("binfa"))

    @property
    def models(self) -> list[str]:
        return list(self.shelf.specs)

    def names(self) -> list[str]:
        return [*AGENTS, *self.shelf.specs]

    def check(self, spec: object) -> str:
        if spec not in self.names():
            offered = ", ".join(self.names())
            given = ", and the models this server was started with (--agent, --model, --models)" if self.models else ""
            raise ValueError(f"agent must be one of {offered} (Bin'Fa's agents{given}), got {spec!r:.60}")
        return str(spec)

    def load(self) -> None:
        """Read every model named on the command line now; a one-line ModelError for one that cannot play Bin'Fa."""
        self.shelf.load()

    def make(self, spec: object, seed: int) -> Any:
        spec = self.check(spec)
        return self.shelf.player(spec, seed) if spec in self.shelf else BINFA.make_agent(spec, seed)


@functools.cache
def board() -> dict[str, Any]:
    """The board's drawing, the same for every game: each triangle's corners, centre and base colour, and
    each circle of the supply ring with its colour (B0.4), and how each colour is painted."""
    centre = SIZE / 2
    triangles = []
    for t in range(N_TRIANGLES):
        corners = triangle_corners(t, centre, SIDE)
        triangles.append({
            "name": TRIANGLE_NAMES[t],
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners),
            "x": round(sum(x for x, _ in corners) / 3, 1),
            "y": round(sum(y for _, y in corners) / 3, 1),
            "base": COLOURS[int(SECTOR[t])],
        })  # fmt: skip
    circles = []
    for c in range(N_CIRCLES):
        x, y = circle_centre(c, centre, SIDE)
        circles.append({"circle": c, "x": round(x, 1), "y": round(y, 1), "colour": COLOURS[int(RING_COLOUR[c])]})
    return {"size": SIZE, "triangles": triangles, "circles": circles, "colours": list(COLOURS),
            "fill": dict(zip(COLOURS, COLOUR_FILL, strict=True))}  # fmt: skip


def places(action: str) -> dict[str, Any]:
    """What an action string names on the board: the triangles in the order they are clicked (a stack, then
    where it goes; a whirlpool; where a retreat goes) and the circle of a pawn's placement. The army, the
    declarations and a pawn's advance name nothing there: they are buttons only."""
    a = act.string_to_action(action)
    if a < act.A_PAWN:
        return {"places": [TRIANGLE_NAMES[a - act.A_DEPLOY]]}
    if a < act.A_ARMY:
        return {"places": [], "circle": a - act.A_PAWN}
    if act.A_DISLODGE <= a < act.A_TRANSFER:
        edge = a - act.A_DISLODGE if a < act.A_MOVE else (a - act.A_MOVE) // act.MAX_N
        return {"places": [TRIANGLE_NAMES[EDGE_FROM[edge]], TRIANGLE_NAMES[EDGE_TO[edge]]]}
    if act.A_TRANSFER <= a < act.A_ADVANCE:
        return {"places": [TRIANGLE_NAMES[(a - (act.A_TRANSFER if a < act.A_RETREAT else act.A_RETREAT)) // act.MAX_N]]}
    return {"places": []}


class _Table(SeatGame):
    """The plugin's view of a game for its agents, with a seat for each of 2 to 6 players (`player_<k>`)."""

    def observation(self, seat: str) -> Any:
        return self.game.observation(AGENT_NAMES.index(seat))


def _stack(s: Any, t: int) -> list[str]:
    return [COLOURS[LETTERS.index(letter)] for letter in stack_letters(s, t)]


def hidden_deployment(game: Game) -> bool:
    """Whether the game is deploying and deployment is hidden (BD6, rules v1.1): each player may see only its own
    placements (`Game.view_dict`)."""
    whole = game.to_dict()
    return hide_deployment(whole, 0) is not whole


def position(game: Game, seats: Sequence[int] | None = None) -> dict[str, Any]:
    """The position: stacks (bottom to top), terrain, whirlpools, armies, supply, the dice, the turn. With `seats`,
    as the players of `seats` may see it: during a hidden deployment, only their own placements (BD6)."""
    f = game.fields()
    s = game.state
    if seats is not None and hidden_deployment(game):
        stacks = {t: stack for p in seats for t, stack in game.view_dict(p)["board"].items()}
    else:
        stacks = {TRIANGLE_NAMES[t]: _stack(s, t) for t in range(N_TRIANGLES) if f["height"][t]}
    level = int(f["level"][0])
    armies = []
    for c in range(N_COLOURS):
        player = int(f["army_player"][c])
        if player < 0:
            continue
        units = f["unit_at"][c * UNITS_PER_ARMY : (c + 1) * UNITS_PER_ARMY]
        army: dict[str, Any] = {"colour": COLOURS[c], "player": player, "alive": bool(f["alive"][c]),
                                "units": int((units >= 0).sum())}  # fmt: skip
        if level >= 3:
            army["tokens"] = int(f["tokens"][c])
            army["pawn"] = int(f["pawn"][c]) if f["pawn"][c] >= 0 else None
        armies.append(army)
    return {
        "level": level,
        "players": game.players,
        "turns": game.turns,
        "max_turns": game.options.max_turns,
        "stacks": stacks,
        "transit": _stack(s, N_TRIANGLES) if f["height"][N_TRIANGLES] else [],
        "terrain": [TRIANGLE_NAMES[t] for t in range(N_TRIANGLES) if f["terrain"][t] == 1],
        "whirlpools": [TRIANGLE_NAMES[int(w)] for w in f["whirlpools"] if w >= 0],
        "armies": armies,
        "store": int(f["store"][0]) if level >= 3 else None,
        "dice": [int(d) for d in f["dice"]],
        "decision": game.decision,
        "winner": game.winner,
        "eliminated": game.eliminated(),
    }


def legal(game: Game) -> list[dict[str, Any]]:
    """The pending decision's legal answers, the game's own strings, each with what it names on the board."""
    return [{"action": a, **places(a)} for a in game.legal_action_strings()]


def _entry(n: int, game: Game, action: str) -> dict[str, Any]:
    """A line of the log: the action just played and the throw after it."""
    d = game.decision
    return {"n": n, "action": action, "throw": d["throw"] if d else None}


class BinFaGame:
    """A person in one or more seats of a Bin'Fa game; one of the plugin's agents (of `menu`: by default the compiled
    ones) plays every other seat."""

    def __init__(
        self,
        agent: str,
        seats: list[int],
        players: int = 2,
        level: int = 1,
        seed: int | None = None,
        max_turns: int = MAX_TURNS,
        menu: BinFaMenu | None = None,
    ) -> None:
        menu = menu or BinFaMenu()
        self.agent_name = menu.check(agent)
        options, self.seats = check_options(players, level, seats, max_turns)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62):
            raise ValueError(f"seed must be a whole number in [0, 2**62), got {seed!r:.40}")
        self.seed = secrets.randbelow(2**62) if seed is None else seed
        self.game = Game.new(self.seed, options)
        self.table = _Table(self.game)
        self.agents = {p: menu.make(agent, self.seed ^ (0x5EED + p)) for p in range(options.players)
                       if p not in self.seats}  # fmt: skip
        self.id = secrets.token_urlsafe(9)
        self.log: list[dict[str, Any]] = []
        self._lock = threading.RLock()
        self._run_agents()

    def _play(self, action: str) -> None:
        player = self.game.current_player
        self.game.apply(action)  # ValueError naming the decision and its legal answers; nothing changed
        self.log.append({**_entry(len(self.log), self.game, action), "player": player})

    def _run_agents(self) -> None:
        """The agents' decisions up to the person's next one, or the end (compiled agents: milliseconds each)."""
        table = self.table
        while (p := self.game.current_player) is not None and p not in self.seats:
            learn = ask(self.agents[p], table, AGENT_NAMES[p])
            self._play(self.game.action_to_string(self.game.learn_to_action(learn)))

    def _deploy_left(self) -> int:
        """The units the army deploying now has left to place (0 past deployment)."""
        d = self.game.decision
        return int(self.game.to_dict()["deploying"]["left"]) if d and d["kind"] == "deploy" else 0

    def log_shown(self, first: int = 0) -> list[dict[str, Any]]:
        """The log from entry `first` as the person may see it: while deployment is hidden (BD6), the other players'
        placements without their triangles (`deploy`)."""
        with self._lock:
            if not hidden_deployment(self.game):
                return self.log[first:]
            return [entry if entry["player"] in self.seats or not entry["action"].startswith("deploy:")
                    else {**entry, "action": "deploy"} for entry in self.log[first:]]  # fmt: skip

    def render(self) -> str:
        """The board as text for the person (`Game.render`): during a hidden deployment, as the seat to act sees it
        (else the person's first seat)."""
        with self._lock:
            player = self.game.current_player
            return self.game.render(player if player in self.seats else self.seats[0])

    def view(self) -> dict[str, Any]:
        """The position as the person's seats see it, their legal answers when they act, the log's last lines (others'
        hidden placements without their triangles), the units left to deploy, the settings."""
        with self._lock:
            view = position(self.game, self.seats)
            mine = self.game.current_player in self.seats
            view["legal"] = legal(self.game) if mine else []
            view["deploy_left"] = self._deploy_left() if mine else 0
            view["log"] = self.log_shown(max(0, len(self.log) - LOG_SHOWN))
            about: dict[str, Any] = {"id": self.id, "agent": self.agent_name, "seats": list(self.seats)}
            if self.game.is_terminal:  # the seed throws every die to come: given once the game is over
                about["seed"] = self.seed
            view["game"] = about
            return view

    def act(self, action: object, times: object = 1) -> dict[str, Any]:
        """The person's answer (a deployment `times` over: that many units on the triangle, BD6), then the agents'
        up to the person's next decision; bad input changes nothing."""
        with self._lock:
            player = self.game.current_player
            if player is None:
                raise ValueError(f"the game is over (winner {self.game.winner}): no action is legal")
            if not isinstance(action, str):
                raise ValueError(f"an action is a string such as 'roll' or 'deploy:red-4-6', got {action!r:.60}")
            if player not in self.seats:
                raise ValueError(f"it is player {player}'s turn, not yours ({', '.join(map(str, self.seats))})")
            left = self._deploy_left()
            if times != 1 and not (left and action.startswith("deploy:")):
                raise ValueError(
                    f"times: only a deployment (deploy:<triangle>) is played more than once, got {times!r:.40}"
                )
            if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= max(1, left):
                raise ValueError(f"times must be a whole number 1..{max(1, left)} (the units left to deploy), "
                                 f"got {times!r:.40}")  # fmt: skip
            first = len(self.log)
            self._play(action)  # ValueError naming the decision and its legal answers; nothing changed
            for _ in range(times - 1):  # the same army's units, one after another (BD6): the same answer stays legal
                self._play(action)
            self._run_agents()
            return {"view": self.view(), "played": self.log_shown(first)}

    def record(self) -> dict[str, Any]:
        """The game's record (B0.9), once it is over: it holds the seed."""
        with self._lock:
            if not self.game.is_terminal:
                raise PermissionError("the record holds the seed, which throws every die to come: it is given once "
                                      "the game is over")  # fmt: skip
            return self.game.record()


class BinFaReplay:
    """A Bin'Fa record to step through: step k shows the position after its first k actions."""

    def __init__(self, record: object, title: str = "") -> None:
        if not isinstance(record, dict):
            raise ValueError("a Bin'Fa record is a JSON object with keys game, rules_version, options, seed, actions "
                             "(Game.record())")  # fmt: skip
        try:
            final = Game.replay(record)  # ValueError naming the bad field; nothing is kept
        except TypeError as error:
            raise ValueError(str(error)) from None
        game = Game.replay({**record, "actions": []})
        self.actions: list[str] = list(record["actions"])
        self.players: list[int | None] = []  # who played each action
        self.every = max(CHECKPOINT, -(-len(self.actions) // MAX_CHECKPOINTS))
        self.checkpoints = [game.clone()]
        for i, action in enumerate(self.actions):
            self.players.append(game.current_player)
            game.apply(action)
            if (i + 1) % self.every == 0:
                self.checkpoints.append(game.clone())
        self.winner = final.winner
        self.title = title
        self.id = secrets.token_urlsafe(9)

    @property
    def steps(self) -> int:
        return len(self.actions) + 1

    def view(self, step: object) -> dict[str, Any]:
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < self.steps:
            raise ValueError(f"step must be a whole number in [0, {self.steps - 1}], got {step!r:.40}")
        game = self.checkpoints[step // self.every].clone()
        for action in self.actions[step - step % self.every : step]:
            game.apply(action)
        view = position(game)
        view["legal"] = legal(game)
        shown = range(max(0, step - LOG_SHOWN), step)
        view["log"] = [{"n": i, "action": self.actions[i], "player": self.players[i]} for i in shown]
        view["replay"] = {"id": self.id, "title": self.title, "step": step, "steps": self.steps,
                          "next": self.actions[step] if step < len(self.actions) else None,
                          "winner": self.winner}  # fmt: skip
        return view


__all__ = [
    "AGENTS",
    "LEVELS",
    "MAX_TURNS",
    "PLAYERS",
    "BinFaGame",
    "BinFaReplay",
    "board",
    "hidden_deployment",
    "legal",
    "position",
]
