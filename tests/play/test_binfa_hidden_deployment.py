"""BD6 (rules v1.1) over HTTP and in the terminal: until every unit stands, nothing the person receives tells
where the agents deployed.

Each pair of games below has the same seed, the same person and the same agent, whose placements alone differ
(in the second game the agents place as a seeded `random` does: `Redeployed`). Every response the person
receives while deployment lasts (its view, `played`, the log, the record refused, the terminal's text) must be
the same in both games, though the agents' placements differ; once every unit stands the whole board is
public, and the responses differ. The same check finds the leaks it is made for when the app's guards are
turned off. The agents' hidden decisions are not paced: their time is measured below.
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from play_helpers import require_play_extra

require_play_extra()
from fastapi.testclient import TestClient
from suntzu_env.binfa.geometry import UNITS_PER_ARMY
from suntzu_env.binfa.web import live as play_binfa
from suntzu_env.binfa.web.live import AGENTS
from suntzu_env.binfa.web.live import BinFaGame
from suntzu_env.binfa.web.live import BinFaMenu
from suntzu_env.binfa.web.text import play_binfa_in_terminal
from suntzu_env.play.app import create_app

# (players, level, the person's seats, agent, seed): agents deploying after the person, before, both, and with
# two armies each (3 players).
GAMES = [
    (2, 1, [0], "random", 1),
    (2, 3, [1], "greedy", 2),
    (3, 2, [1], "heuristic", 3),
    (4, 4, [2], "random", 4),
    (3, 1, [0, 2], "greedy", 5),
]


class Redeploying:
    """An agent that places its units as `placer` would and answers the rest as `agent`."""

    def __init__(self, agent: Any, placer: Any) -> None:
        self.agent, self.placer = agent, placer
        self.table: Any = None

    def observe_game(self, table: Any, seat: str) -> None:
        self.table = table
        for agent in (self.agent, self.placer):
            agent.observe_game(table, seat)

    def act(self, observation: Any, mask: Any) -> int:
        deploying = self.table.game.decision["kind"] == "deploy"
        return int((self.placer if deploying else self.agent).act(observation, mask))


class Redeployed(BinFaMenu):
    """The compiled agents; with `offset`, each places its units as `random` seeded `offset` apart does."""

    def __init__(self, offset: int) -> None:
        super().__init__()
        self.offset = offset

    def make(self, spec: object, seed: int) -> Any:
        agent = super().make(spec, seed)
        return Redeploying(agent, super().make("random", seed + self.offset)) if self.offset else agent


def _client(tmp_path: Path, offset: int) -> TestClient:
    app = create_app(tmp_path, menus={"binfa": Redeployed(offset)})
    return TestClient(app, base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})


def _received(body: dict[str, Any]) -> dict[str, Any]:
    """A response as the person reads it, without the game's id (drawn at random)."""
    view = dict(body["view"], game={k: v for k, v in body["view"]["game"].items() if k != "id"})
    return {**body, "view": view}


def _agents_board(game: BinFaGame) -> dict[str, list[str]]:
    """The stacks the agents placed (the whole state, which the person is not sent)."""
    whole = game.game.to_dict()
    return {t: stack for t, stack in whole["board"].items() if whole["armies"][stack[-1]] not in game.seats}


def _deploying(game: BinFaGame) -> bool:
    return game.game.to_dict()["phase"] == "deploy"


def _play_pair(tmp_path: Path, players: int, level: int, seats: list[int], agent: str, seed: int) -> int:
    """Plays the same game against the agent seeded two ways, the person answering the same; checks that the
    responses are the same while deployment lasts. Returns how many responses were compared."""
    clients = (_client(tmp_path, 0), _client(tmp_path, 1_000_003))
    new = {"agent": agent, "seats": seats, "players": players, "level": level, "seed": seed, "max_turns": 20}
    bodies = [c.post("/api/binfa/games", json=new).json() for c in clients]
    games = [c.app.state.games["binfa"].get(b["view"]["game"]["id"]) for c, b in zip(clients, bodies, strict=True)]  # type: ignore[attr-defined]
    rng, compared = random.Random(seed), 0
    while _deploying(games[0]) and _deploying(games[1]):
        assert _received(bodies[0]) == _received(bodies[1]), (players, level, seats, agent, compared)
        for client, game in zip(clients, games, strict=True):
            response = client.get(f"/api/binfa/games/{game.id}")
            assert _received(response.json())["view"] == _received(bodies[0])["view"]
            assert client.get(f"/api/binfa/games/{game.id}/record").status_code == 409
        compared += 1
        view = bodies[0]["view"]
        action = rng.choice(view["legal"])["action"]
        times = rng.choice([1, 1, 2, view["deploy_left"]]) if view["decision"]["kind"] == "deploy" else 1
        bodies = [c.post(f"/api/binfa/games/{g.id}/actions", json={"action": action, "times": times}).json()
                  for c, g in zip(clients, games, strict=True)]  # fmt: skip
    placed = [_agents_board(g) for g in games]
    assert placed[0] != placed[1]  # the agents deployed apart: the check could fail
    if not any(_deploying(g) for g in games):  # then the whole board is public, as each response shows
        for body, game in zip(bodies, games, strict=True):
            assert body["view"]["stacks"] == play_binfa.position(game.game)["stacks"]
    return compared


@pytest.mark.parametrize(("players", "level", "seats", "agent", "seed"), GAMES)
def test_responses_during_deployment_tell_nothing_of_the_agents_placements(
    tmp_path: Path, players: int, level: int, seats: list[int], agent: str, seed: int
) -> None:
    assert _play_pair(tmp_path, players, level, seats, agent, seed) >= 1


def test_the_person_sees_their_own_placements_and_the_agents_deploy_actions_without_triangles(
    tmp_path: Path,
) -> None:
    """The person in seat 1 of 2: the agent's 12 placements came first, shown as `deploy`; the person's own
    placements are on the board; after the person's last, deployment ends and everything is public."""
    client = _client(tmp_path, 0)
    body = client.post("/api/binfa/games", json={"agent": "heuristic", "seats": [1], "seed": 9}).json()
    view = body["view"]
    assert view["stacks"] == {} and [e["action"] for e in view["log"]] == ["deploy"] * UNITS_PER_ARMY
    assert view["deploy_left"] == UNITS_PER_ARMY
    game_id, first = view["game"]["id"], view["legal"][0]["action"]
    body = client.post(f"/api/binfa/games/{game_id}/actions", json={"action": first, "times": 3}).json()
    triangle = first.split(":")[1]
    assert [e["action"] for e in body["played"]] == [first] * 3
    assert body["view"]["stacks"] == {triangle: [triangle.split("-")[0]] * 3} and body["view"]["deploy_left"] == 9
    body = client.post(f"/api/binfa/games/{game_id}/actions", json={"action": first, "times": 9}).json()
    log = body["view"]["log"]
    assert all(e["action"].startswith("deploy:") for e in log[:UNITS_PER_ARMY])  # public now
    assert sum(len(s) for s in body["view"]["stacks"].values()) == 2 * UNITS_PER_ARMY


@pytest.mark.parametrize(
    ("times", "action", "words"),
    [
        (13, None, ["times must be a whole number 1..12"]),
        (0, None, ["times must be a whole number 1..12"]),
        ("3", None, ["times must be a whole number"]),
        (True, None, ["times must be a whole number"]),
        (2, "deploy:nowhere", ["deploy:nowhere"]),
    ],
)
def test_a_bad_number_of_units_is_refused_and_changes_nothing(
    tmp_path: Path, times: object, action: str | None, words: list[str]
) -> None:
    client = _client(tmp_path, 0)
    view = client.post("/api/binfa/games", json={"agent": "random", "seats": [0], "seed": 3}).json()["view"]
    response = client.post(f"/api/binfa/games/{view['game']['id']}/actions",
                           json={"action": action or view["legal"][0]["action"], "times": times})  # fmt: skip
    assert response.status_code == 400 and all(w in response.json()["error"] for w in words), response.text
    assert client.get(f"/api/binfa/games/{view['game']['id']}").json()["view"] == view


def test_only_a_deployment_is_played_more_than_once(tmp_path: Path) -> None:
    game = BinFaGame("random", [0], seed=3)
    game.act(game.view()["legal"][0]["action"], times=UNITS_PER_ARMY)
    before = game.game.record()["actions"]
    with pytest.raises(ValueError, match="only a deployment"):
        game.act(game.view()["legal"][0]["action"], times=2)
    assert game.game.record()["actions"] == before


def test_the_check_finds_the_leaks_it_is_made_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the board drawn whole, or the agents' deploy actions sent with their triangles, the check fails."""
    whole = play_binfa.position
    monkeypatch.setattr(play_binfa, "position", lambda game, seats=None: whole(game))
    with pytest.raises(AssertionError):
        _play_pair(tmp_path, *GAMES[1])
    monkeypatch.undo()
    monkeypatch.setattr(BinFaGame, "log_shown", lambda self, first=0: self.log[first:])
    with pytest.raises(AssertionError):
        _play_pair(tmp_path, *GAMES[1])


def test_the_terminal_shows_the_same_deployment_whatever_the_agents_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal game (`--text`), the person in seat 1 of 3: everything printed before deployment ends is the
    same in both games (the board as the person's seat sees it, the agents' placements as `deploy`)."""
    printed: list[list[str]] = []
    for offset in (0, 1_000_003):
        lines: list[str] = []
        answers = iter(["1"] * UNITS_PER_ARMY + ["q"])
        play_binfa_in_terminal("greedy", [1], players=3, level=1, seed=6, read=lambda _, a=answers: next(a),
                               write=lines.append, menu=Redeployed(offset))  # fmt: skip
        deploying = lines[: next(i for i, line in enumerate(lines) if "player 2: deploy:" in line)]
        assert sum("player 0: deploy" in line for line in deploying) == UNITS_PER_ARMY
        assert sum("player 1: deploy:" in line for line in deploying) == UNITS_PER_ARMY
        printed.append(deploying)
    assert printed[0] == printed[1]


def test_the_agents_hidden_deployments_take_microseconds_so_their_time_tells_nothing() -> None:
    """Why the Bin'Fa app does not pace its responses (as Sun Tzu's `LiveGame` does): each response holds as many
    hidden placements whatever they are (a whole army's 12, in seat order), and the compiled agents place a whole
    army far within the scheduling noise of one HTTP response (a millisecond and more)."""
    for agent in AGENTS:
        BinFaGame(agent, [1], seed=0)  # compiled on first use
        spent = []
        for seed in range(1, 21):
            began = time.perf_counter()
            BinFaGame(agent, [1], seed=seed)  # the agent's whole army, placed before the person's first answer
            spent.append(time.perf_counter() - began)
        assert statistics.median(spent) < 0.005, (agent, spent)
