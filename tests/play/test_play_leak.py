"""R9 over HTTP and in the terminal: what the person receives does not depend on the agent's secret warlord.

The agent's hidden holdings that the app could give away are its unused warlords (R8, R9): a warlord it holds
is offered to it in a window (`purge`, `march`, `reinforce`) or in a battle (`feint`, the Plague warlords,
the recycles), and the offer must leave no trace the person can read. Each pair of games below has the same
deal and the same person; only the warlord the agent holds is resampled (as `tests/suntzu/envs/test_leak.py` resamples
the opponent's unused warlords), and the agent declines every such offer and otherwise answers the same way in
both games. Everything the person receives (every response's views and frames, the log, the terminal's
text) must then be byte for byte the same, game after game, for every warlord of either seat. The same check
finds the two leaks it is made for when the app's guards are turned off.
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import contextlib
import random
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from play_helpers import require_play_extra

require_play_extra()
from fastapi.testclient import TestClient
from suntzu_env.play.app import create_app
from suntzu_env.suntzu.actions import ACTION_STRINGS
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.rules import WARLORDS
from suntzu_env.suntzu.web import live as sessions
from suntzu_env.suntzu.web.chronicle import Chronicle
from suntzu_env.suntzu.web.chronicle import Entry
from suntzu_env.suntzu.web.live import AgentMenu
from suntzu_env.suntzu.web.live import LiveGame
from suntzu_env.suntzu.web.text import play_in_terminal

pytestmark = pytest.mark.slow  # hundreds of games over HTTP and in the terminal
HTTP_PAIRS = 200  # 400 games over HTTP
HTTP_PARTS = 4  # each pair in one of four tests
TEXT_PAIRS = 40
SECRET_OFFERS = ("window", "reactive")
# The warlords a seat may hold in secret through the game (head_start acts, publicly, at setup).
SECRET = {seat: [w for w in WARLORDS[i] if w != "head_start"] for i, seat in enumerate(SEATS)}


@pytest.fixture(autouse=True)
def _unpaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """What is sent is compared here, not when (tests/play/test_play_timing.py): responses wait no floor."""
    monkeypatch.setattr(sessions, "MIN_SECRET_THINKING", 0.0)


class Decliner:
    """Holds `warlord`, declines every offer to use a warlord, and otherwise answers by a fixed rule of the
    decision and the number of answers given so far (never a `6` while another card may go there, so that
    `double_six` changes none of its placements)."""

    name = "decliner"

    def __init__(self, warlord: str, seed: int) -> None:
        self.warlord, self.seed = warlord, seed
        self.answers: list[str] = []  # every answer but its pick and the declined offers: compared between games
        self.declined: Counter[str] = Counter()
        self._game: Any = None

    def reset(self, seed: int | None = None) -> None:
        pass

    def observe_game(self, game: Any, seat: str) -> None:
        self._game = game

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        d, legal = self._game.decision, self._game.legal_action_strings()
        if d["kind"] in SECRET_OFFERS:
            self.declined[d["kind"]] += 1
            return ACTION_STRINGS.index("pass")
        if d["kind"] == "warlord":  # the secret pick itself is the one answer that differs: not compared
            if f"warlord:{self.warlord}" in legal:
                return ACTION_STRINGS.index(f"warlord:{self.warlord}")
            answer = "pass"
        else:
            options = [a for a in legal if a != "place:6"] or legal
            answer = options[zlib.crc32(f"{self.seed}/{len(self.answers)}".encode()) % len(options)]
        self.answers.append(answer)
        return ACTION_STRINGS.index(answer)


class OneAgent(AgentMenu):
    """The app's menu, handing out the next `Decliner`."""

    def __init__(self) -> None:
        super().__init__()
        self.next: Decliner | None = None

    def make(self, spec: object, seed: int | None = None) -> Any:
        self.check(spec)
        return self.next


def _pairs(n: int) -> list[tuple[int, str, bool, str, str]]:
    """(deck seed, person's seat, events, the agent's warlord in game A, in game B): every warlord of each
    seat is held in game A as often as the others."""
    out = []
    for k in range(n):
        theirs = SECRET[SEATS[1 - k % 2]]
        a = (k // 2) % len(theirs)
        b = (a + 1 + (k // (2 * len(theirs))) % (len(theirs) - 1)) % len(theirs)  # every other one in turn
        out.append((1000 + k, SEATS[k % 2], k % 4 >= 2, theirs[a], theirs[b]))
    return out


def _received(body: dict[str, Any]) -> dict[str, Any]:
    """A response without the game's id (each game has its own, drawn at random)."""
    views = [body["view"], *body.get("frames", [])]
    for view in views:
        view.get("game", {}).pop("id", None)
    return body


def _play_pair(clients: tuple[TestClient, TestClient], pair: tuple[int, str, bool, str, str]) -> dict[str, Any]:
    """Both games of a pair in lockstep; where the responses first differ, or None."""
    seed, seat, events, *warlords = pair
    agents = [Decliner(w, seed) for w in warlords]
    people = [random.Random(seed), random.Random(seed)]
    bodies, ids = [], []
    for client, agent in zip(clients, agents, strict=True):
        client.app.state.served["suntzu"].menu.next = agent
        body = client.post("/api/games", json={"agent": "heuristic", "seat": seat, "seed": seed, "events": events})
        assert body.status_code == 200, body.text
        ids.append(body.json()["view"]["game"]["id"])
        bodies.append(_received(body.json()))
    step = 0
    while True:
        if bodies[0] != bodies[1]:
            same_answers = agents[0].answers == agents[1].answers
            return {"step": step, "leak": same_answers, "agents": agents}
        view = bodies[0]["view"]
        if view["decision"] is None:
            return {"step": step, "leak": False, "agents": agents, "ended": True}
        bodies = []
        for client, game_id, person in zip(clients, ids, people, strict=True):
            action = person.choice(view["decision"]["actions"])["action"]
            response = client.post(f"/api/games/{game_id}/actions", json={"action": action})
            assert response.status_code == 200, response.text
            bodies.append(_received(response.json()))
        step += 1


def _check_pairs(
    tmp_path: Path, pairs: list[tuple[int, str, bool, str, str]], enough: int | None = None
) -> tuple[list[Any], Counter[str]]:
    """Each pair's outcome (stopping once `enough` leaks are found), and the offers declined."""
    outcomes, declined = [], Counter()
    with contextlib.ExitStack() as stack:  # each client's event loop open throughout, not one started per request
        apps = [create_app(tmp_path, menus={"suntzu": OneAgent()}) for _ in "ab"]
        clients = tuple(stack.enter_context(TestClient(app, base_url="http://127.0.0.1")) for app in apps)
        for pair in pairs:
            outcome = _play_pair(clients, pair)  # type: ignore[arg-type]
            outcomes.append((pair, outcome))
            for agent in outcome["agents"]:
                declined.update(agent.declined)
            if enough is not None and sum(o["leak"] for _, o in outcomes) >= enough:
                break
    return outcomes, declined


@pytest.mark.parametrize("part", range(HTTP_PARTS))
def test_http_responses_ignore_the_agents_secret_warlord(tmp_path: Path, part: int) -> None:
    """400 games over HTTP, in parts that run side by side with `-n`: in each pair only the agent's warlord
    differs, and no response differs (R9)."""
    size = HTTP_PAIRS // HTTP_PARTS
    outcomes, declined = _check_pairs(tmp_path, _pairs(HTTP_PAIRS)[part * size : (part + 1) * size])
    leaks = [(pair, o["step"]) for pair, o in outcomes if o["leak"]]
    assert not leaks, f"{len(leaks)} pairs differ for the person, first: {leaks[0]}"
    ended = sum(1 for _, o in outcomes if o.get("ended"))
    assert ended >= 0.9 * size, f"only {ended} pairs were compared to the end (the agent's answers diverged)"
    assert declined["window"] >= size // 2 and declined["reactive"] >= size // 2, declined  # the offers were made


def test_the_check_finds_the_leaks_it_is_made_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With frames of the agent's secret offers sent, or the log split by them, the same check fails."""
    monkeypatch.setattr(LiveGame, "_shown", lambda self, frame: True)
    outcomes, _ = _check_pairs(tmp_path, _pairs(24), enough=3)
    assert sum(o["leak"] for _, o in outcomes) >= 3
    monkeypatch.undo()

    def last_line(self: Chronicle, province: str) -> Entry | None:
        entry = self.log[-1]
        return entry if entry.kind == "reveal" and entry.province == province and entry.result is None else None

    monkeypatch.setattr(Chronicle, "_open_reveal", last_line)
    outcomes, _ = _check_pairs(tmp_path, _pairs(24), enough=2)
    assert sum(o["leak"] for _, o in outcomes) >= 2


def _terminal(monkeypatch: pytest.MonkeyPatch, pair: tuple[int, str, bool, str, str], k: int) -> tuple[str, Any]:
    seed, seat, events, *warlords = pair
    agent = Decliner(warlords[k], seed)
    monkeypatch.setattr(sessions, "make_agent", lambda spec, seed=None: agent)
    lines: list[str] = []
    person = random.Random(seed)

    def read(_: str) -> str:  # the first or second answer listed ("2" is refused, and asked again, when alone)
        return str(person.randint(1, 2))

    status = play_in_terminal("heuristic", seat, "standard", events, seed, read=read, write=lines.append)
    assert status == 0
    return "\n".join(lines), agent


def test_the_terminal_prints_the_same_log_whatever_the_agent_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """--text: the whole text a person reads is the same in both games of a pair."""
    declined: Counter[str] = Counter()
    diverged = 0
    for pair in _pairs(TEXT_PAIRS):
        (text_a, agent_a), (text_b, agent_b) = (_terminal(monkeypatch, pair, k) for k in (0, 1))
        declined.update(agent_a.declined)
        if agent_a.answers != agent_b.answers:
            diverged += 1
            continue
        assert text_a == text_b, f"pair {pair}: the terminal's text differs"
    assert diverged <= TEXT_PAIRS // 10 and declined["reactive"] + declined["window"] >= 20, (diverged, declined)
