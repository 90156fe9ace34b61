"""R9 by the clock: how long the app takes to answer does not tell whether the agent weighed a secret warlord.

The agent searches every decision as `ismcts` does, picks a window warlord at setup and keeps it (it passes every
offer after searching it), so offers come up in most rounds; a person plays random legal answers over HTTP. The
responses compared are those where the agent made no decision the person sees (its public decisions show in the
frames, and take the time they take): each one in which the agent was asked about its warlord is paired with one
in which it was asked nothing, from the same game, as near as can be. No threshold on the response time may tell
the two sets apart better than chance does at that size (a permutation of the labels, 99th percentile), nor, at
200 pairs and more, better than 60%.

`SUNTZU_TIMING_PAIRS=200 SUNTZU_TIMING_ITERATIONS=1000 python -m pytest tests/play/test_play_timing.py -s` measures
against the app's default `ismcts` (1,000 iterations a decision) and prints the figure (several minutes).
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from play_helpers import require_play_extra

require_play_extra()
from agents.ismcts import ISMCTSAgent
from fastapi.testclient import TestClient
from suntzu_env.play.app import create_app
from suntzu_env.suntzu.actions import ACTION_STRINGS
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.web.live import HIDDEN_OFFERS
from suntzu_env.suntzu.web.live import AgentMenu
from suntzu_env.suntzu.web.live import LiveGame

pytestmark = pytest.mark.slow  # hundreds of paced responses: `python -m pytest -m slow`

PAIRS = int(os.environ.get("SUNTZU_TIMING_PAIRS", "16"))
ITERATIONS = int(os.environ.get("SUNTZU_TIMING_ITERATIONS", "100"))
BAR = 0.60  # the best threshold's accuracy allowed at 200 pairs and more
WINDOW_WARLORDS = {"blue": "march", "red": "purge"}  # offered in every window of rounds 1-6 while kept (R8)


class KeepsItsWarlord:
    """`ismcts` (its search run on every decision, so that every decision costs what the search costs) that picks
    its seat's window warlord and passes every offer to use it."""

    name = "ismcts"

    def __init__(self, iterations: int, seed: int | None) -> None:
        self.search = ISMCTSAgent(iterations=iterations, seed=seed)
        self._game: Any = None

    @property
    def iterations(self) -> int:  # the app hurries a search by lowering it
        return self.search.iterations

    @iterations.setter
    def iterations(self, value: int) -> None:
        self.search.iterations = value

    def reset(self, seed: int | None = None) -> None:
        self.search.reset(seed)

    def observe_game(self, game: Any, seat: str) -> None:
        self._game, self._seat = game, seat
        self.search.observe_game(game, seat)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = self.search.act(observation, action_mask)
        decision, legal = self._game.decision, self._game.legal_action_strings()
        if decision["kind"] in HIDDEN_OFFERS:
            return ACTION_STRINGS.index("pass")
        keep = f"warlord:{WINDOW_WARLORDS[self._seat]}"
        if decision["kind"] == "warlord" and keep in legal:
            return ACTION_STRINGS.index(keep)
        return action


class KeeperMenu(AgentMenu):
    def make(self, spec: object, seed: int | None = None) -> Any:
        self.check(spec)
        return KeepsItsWarlord(ITERATIONS, seed)


@dataclass
class Response:
    game: int
    index: int  # the person's answers before it in its game
    seconds: float
    secret: bool  # the agent was asked about its warlord while answering
    public: int  # the agent's decisions the person sees


def _responses(client: TestClient, game_number: int) -> list[Response]:
    """A whole game: the person's random answers, each response timed."""
    rng = random.Random(game_number)
    seat = SEATS[game_number % 2]
    body = client.post("/api/games", json={"agent": "ismcts", "seat": seat, "seed": game_number}).json()
    game: LiveGame = client.app.state.games["suntzu"].get(body["view"]["game"]["id"])  # type: ignore[attr-defined]
    out: list[Response] = []
    while (decision := body["view"]["decision"]) is not None:
        first = len(game.chronicle.frames) - 1  # the frame of the person's decision
        action = rng.choice(decision["actions"])["action"]
        began = time.perf_counter()
        response = client.post(f"/api/games/{game.id}/actions", json={"action": action})
        seconds = time.perf_counter() - began
        assert response.status_code == 200, response.text
        body = response.json()
        asked = [f.game.decision for f in game.chronicle.frames[first:-1]]
        agents = [d for d in asked if d is not None and d["player"] != seat]
        secret = any(d["kind"] in HIDDEN_OFFERS for d in agents)
        out.append(
            Response(game_number, len(out), seconds, secret, sum(d["kind"] not in HIDDEN_OFFERS for d in agents))
        )
    return out


def _paired(responses: list[Response]) -> tuple[list[float], list[float]]:
    """The times of the responses in which the agent was asked about its warlord and made no public decision, and
    of as many in which it made none at all, each from the same game, as near as can be."""
    quiet = [r for r in responses if r.public == 0]
    secret, plain, used = [], [], set()
    for r in quiet:
        candidates = [o for o in quiet if o.game == r.game and not o.secret and (o.game, o.index) not in used]
        if r.secret and candidates:
            match = min(candidates, key=lambda o: abs(o.index - r.index))
            used.add((match.game, match.index))
            secret.append(r.seconds)
            plain.append(match.seconds)
    return secret, plain


def best_threshold_accuracy(a: list[float], b: list[float]) -> float:
    """The best accuracy of a rule "below t: set a, else set b" (or the reverse) over every threshold t."""
    times = np.array([*a, *b])
    is_a = np.array([True] * len(a) + [False] * len(b))[np.argsort(times, kind="stable")]
    a_below = np.concatenate([[0], np.cumsum(is_a)])  # at each cut: those of a below it
    b_below = np.concatenate([[0], np.cumsum(~is_a)])
    right = a_below + (len(b) - b_below)
    return float(max(right.max(), (len(times) - right).max()) / len(times))


def test_best_threshold_accuracy() -> None:
    assert best_threshold_accuracy([1, 2, 3], [4, 5, 6]) == 1.0
    assert best_threshold_accuracy([4, 5, 6], [1, 2, 3]) == 1.0
    assert best_threshold_accuracy([1, 4], [2, 3]) == 0.75


def test_the_response_time_does_not_tell_a_secret_offer(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path, menus={"suntzu": KeeperMenu()}), base_url="http://127.0.0.1")
    responses: list[Response] = []
    game_number = 0
    while len(_paired(responses)[0]) < PAIRS:
        responses += _responses(client, game_number)
        game_number += 1
        assert game_number < 20 * PAIRS, "too few offers to measure"
    secret, plain = _paired(responses)
    secret, plain = secret[:PAIRS], plain[:PAIRS]
    accuracy = best_threshold_accuracy(secret, plain)
    rng = np.random.default_rng(0)
    times = np.array(secret + plain)
    chance = []
    for _ in range(200):
        order = rng.permutation(len(times))
        chance.append(best_threshold_accuracy(list(times[order[:PAIRS]]), list(times[order[PAIRS:]])))
    allowed = max(BAR, float(np.quantile(chance, 0.99))) if PAIRS < 200 else BAR
    print(f"\n{PAIRS} pairs over {game_number} games against ismcts ({ITERATIONS} iterations): secret offer "
          f"median {1e3 * np.median(secret):.1f} ms, none {1e3 * np.median(plain):.1f} ms; the best threshold "
          f"classifies {accuracy:.1%} (chance's 99th percentile {np.quantile(chance, 0.99):.1%})")  # fmt: skip
    assert accuracy <= allowed, (accuracy, allowed)
