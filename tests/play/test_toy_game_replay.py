"""A game that brings no face of its own to the app (Duel, `tests/toy_game`, registered in one line) is served all
the same: its page, and its records replayed through its own plug-in, its text step by step (`play/textface.py`)."""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from play_helpers import open_page
from play_helpers import open_record_file
from play_helpers import require_play_extra
from play_helpers import serve
from play_helpers import wait_ready

require_play_extra()

from fastapi.testclient import TestClient
from suntzu_env.core import games
from suntzu_env.core.turn_limit import text_of
from suntzu_env.play.app import create_app

from toy_game import DUEL

SEED = 5


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(games, "_LOADED", dict(games._LOADED))  # the registration ends with the test
    games.register("duel", DUEL)  # the game's one line
    yield TestClient(create_app(tmp_path), base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})


def _record() -> dict:
    game = DUEL.new(SEED)
    while not game.is_terminal:
        game.apply(game.legal_actions()[0])
    return game.record()


def test_the_toy_game_replays_step_by_step_in_the_app(client: TestClient) -> None:
    """Each step of the replay is the game after that many of its record's actions: its own text, the moves by
    seat, the next move; the last one has the winner the game's plug-in finds."""
    record = _record()
    assert any(g["name"] == "duel" and g["page"] == "/duel" for g in client.get("/api/games").json())
    page = client.get("/duel/replay")
    assert page.status_code == 200 and 'data-api="/api/duel"' in page.text and "/static/duel/text.js" in page.text
    assert client.get("/static/duel/text.js").status_code == 200
    first = client.post("/api/duel/replays?title=duel", content=json.dumps(record))
    assert first.status_code == 200, first.text
    view = first.json()
    replay = view["replay"]
    assert replay["steps"] == len(record["actions"]) + 1 and replay["step"] == 0 and replay["title"] == "duel"
    game = DUEL.new(SEED)
    for step in range(replay["steps"]):
        shown = client.get(f"/api/duel/replays/{replay['id']}?step={step}").json()
        assert shown["text"] == text_of(game)
        assert [m["action"] for m in shown["log"]] == [DUEL.action_string(a) for a in record["actions"][:step]]
        if step < len(record["actions"]):
            assert shown["replay"]["next"] == DUEL.action_string(record["actions"][step])
            assert shown["log"] == [] or shown["log"][-1]["player"] in DUEL.seats
            game.apply(record["actions"][step])
    last = client.get(f"/api/duel/replays/{replay['id']}?step=last").json()["replay"]
    assert last["step"] == len(record["actions"]) and last["next"] is None
    assert last["winner"] == DUEL.replay(record).winner


def test_a_bad_toy_record_is_refused_in_one_line(client: TestClient) -> None:
    """A record its plug-in cannot replay, a step out of range, a live game: refused, nothing kept."""
    record = _record()
    for bad in ({"seed": 1}, [1, 2], {**record, "actions": [99]}, {**record, "actions": "x"}):
        response = client.post("/api/duel/replays", content=json.dumps(bad))
        assert response.status_code == 400 and "\n" not in response.json()["error"], response.text
    assert len(client.app.state.replays["duel"]) == 0  # type: ignore[attr-defined]
    replay_id = client.post("/api/duel/replays", content=json.dumps(record)).json()["replay"]["id"]
    response = client.get(f"/api/duel/replays/{replay_id}?step=99")
    assert response.status_code == 400 and "step must be a whole number in [0, " in response.json()["error"]
    response = client.post("/api/duel/games", json={"agent": "random"})
    assert response.status_code == 404 and "only replayed" in response.json()["error"]


def test_the_toy_game_replays_in_a_browser(client: TestClient, browser: Any, tmp_path: Path, shots: Path) -> None:
    """The page of a game without a face of its own: a record opened from its file input, stepped to the end by the
    shared replay controls, each step its text."""
    record = _record()
    with serve(client.app, start_within=30) as url:
        page, _ = open_page(browser)
        page.goto(f"{url}/duel")
        wait_ready(page)
        assert page.is_visible("#record-file") and not page.is_visible("#new-game")
        open_record_file(page, tmp_path, json.dumps(record))
        page.wait_for_url("**/duel/replay/*")
        wait_ready(page)
        assert page.inner_text("#picture") == text_of(DUEL.new(SEED))
        page.click("#replay-last")
        wait_ready(page)
        assert page.inner_text("#picture") == text_of(DUEL.replay(record))
        assert page.is_visible("#game-over") and len(page.query_selector_all("#log li")) == len(record["actions"])
        page.click("#replay-prev")
        wait_ready(page)
        assert page.inner_text("#next-action") == DUEL.action_string(record["actions"][-1])
        page.screenshot(path=str(shots / "text-replay.png"))
        page.close()


def test_the_command_line_serves_a_game_of_ones_own_code(tmp_path: Path) -> None:
    """`--game toy_game:DUEL` (the way the experiments name it) with `--replay`: the app serves Duel under its name
    and opens the record in its viewer."""
    import subprocess
    import sys
    import urllib.request

    (tmp_path / "duel.json").write_text(json.dumps(_record()))
    tests = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tests.parent), str(tests)]))
    cmd = [sys.executable, "-m", "suntzu_env.play", "--game", "toy_game:DUEL", "--replay", str(tmp_path / "duel.json"),
           "--no-browser", "--port", "0"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert "duel is served at http://127.0.0.1:" in line and "/duel/replay/" in line, line
        url = line.split(" at ")[1].split()[0]
        base, replay_id = url.split("/duel/replay/")
        last = json.loads(urllib.request.urlopen(f"{base}/api/duel/replays/{replay_id}?step=last", timeout=10).read())
        assert last["replay"]["winner"] == DUEL.replay(_record()).winner and last["replay"]["title"] == "duel.json"
    finally:
        proc.terminate()
        proc.wait(10)
