"""Bin'Fa in the play app, without a browser: new games, legal answers, bad input, finished games, replays.

The browser itself is driven in tests/play/test_binfa_play_browser.py. Rule ids: B0.9 (records), BD5 (the turn
limit), B12 (players out).
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from play_helpers import require_play_extra

require_play_extra()
from fastapi.testclient import TestClient
from suntzu_env.binfa import Game
from suntzu_env.binfa.geometry import COLOUR_FILL
from suntzu_env.binfa.geometry import COLOURS
from suntzu_env.binfa.geometry import N_CIRCLES
from suntzu_env.binfa.geometry import N_TRIANGLES
from suntzu_env.binfa.picture import RGB
from suntzu_env.binfa.web.live import AGENTS
from suntzu_env.binfa.web.live import BinFaGame
from suntzu_env.binfa.web.live import BinFaMenu
from suntzu_env.binfa.web.live import BinFaReplay
from suntzu_env.binfa.web.live import places
from suntzu_env.binfa.web.live import position
from suntzu_env.play.__main__ import main
from suntzu_env.play.app import create_app


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    """The app as its own page reaches it: at its address, bodies sent as JSON."""
    return TestClient(create_app(tmp_path), base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/binfa/games", json={"agent": "random", "seats": [0], **body})
    assert response.status_code == 200, response.text
    return response.json()["view"]


def _live(client: TestClient, view: dict[str, Any]) -> BinFaGame:
    game = client.app.state.games["binfa"].get(view["game"]["id"])  # type: ignore[attr-defined]
    assert isinstance(game, BinFaGame)
    return game


def _check(view: dict[str, Any], live: BinFaGame) -> None:
    """The view is the server's game: its position, and its own legal answers when the person is to act."""
    game = live.game
    assert {k: v for k, v in view.items() if k not in ("legal", "log", "game", "deploy_left")} == json.loads(
        json.dumps(position(game, live.seats))
    )
    if game.current_player in live.seats:
        assert [a["action"] for a in view["legal"]] == game.legal_action_strings()
    else:
        assert view["legal"] == [] and game.current_player is None
    assert ("seed" in view["game"]) == game.is_terminal  # the seed throws every die to come (B0.9)


def test_the_board_and_the_form() -> None:
    client = TestClient(create_app("."), base_url="http://127.0.0.1")
    board = client.get("/api/binfa/board").json()
    assert len(board["triangles"]) == N_TRIANGLES and len(board["circles"]) == N_CIRCLES
    assert len({t["name"] for t in board["triangles"]}) == N_TRIANGLES
    options = client.get("/api/binfa/options").json()
    assert options["agents"] == [*AGENTS, "ppo:pretrained/binfa"]
    assert list(AGENTS) == ["random", "greedy", "heuristic", "mcts"]
    assert options["players"] == [2, 3, 4, 5, 6] and options["levels"] == [1, 2, 3, 4]
    for path in ("/binfa", "/binfa/play/x", "/binfa/replay/x", "/static/binfa/binfa.js"):
        assert client.get(path).status_code == 200


def test_the_army_colours_are_painted_as_declared_once() -> None:
    """The page paints each army as the board's `fill` says (`geometry.COLOUR_FILL`, which the pictures use too):
    no colour is written again in its script or stylesheet."""
    client = TestClient(create_app("."), base_url="http://127.0.0.1")
    fill = client.get("/api/binfa/board").json()["fill"]
    assert fill == dict(zip(COLOURS, COLOUR_FILL, strict=True))
    assert {name: "#" + bytes(RGB[name]).hex() for name in COLOURS} == fill
    for path in ("/static/binfa/binfa.js", "/static/binfa/binfa.css"):
        text = client.get(path).text.lower()
        assert not [f for f in COLOUR_FILL if f in text], path


def test_every_decision_of_the_agents_is_shown_so_their_time_hides_nothing(client: TestClient) -> None:
    """Nothing in Bin'Fa is hidden but deployment (BD6) and the app holds nothing else back: the responses of a
    whole game show every action of the record, the agents' included (their placements as `deploy` while
    deployment is hidden), so how long the agents took gives away nothing the person is not sent but where they
    deployed (tests/play/test_binfa_hidden_deployment.py; Sun Tzu's app, where the agent may weigh a secret
    warlord, paces its answers instead)."""
    view = _new(client, players=3, level=3, seats=[1], seed=11, agent="greedy", max_turns=30)
    shown, rng = [e["action"] for e in view["log"]], random.Random(11)
    while view["legal"]:
        body = client.post(f"/api/binfa/games/{view['game']['id']}/actions",
                           json={"action": rng.choice(view["legal"])["action"]}).json()  # fmt: skip
        view = body["view"]
        shown += [e["action"] for e in body["played"]]
    record = client.get(f"/api/binfa/games/{view['game']['id']}/record").json()
    hidden = ["deploy" if k < 12 else a for k, a in enumerate(record["actions"])]  # player 0's, before seat 1's
    assert shown == hidden and len(shown) > 30


def test_a_new_game_waits_for_the_person_with_the_games_legal_answers(client: TestClient) -> None:
    view = _new(client, players=3, level=4, seats=[1], seed=5, agent="heuristic")
    live = _live(client, view)
    _check(view, live)
    assert view["decision"]["player"] == 1 and view["decision"]["kind"] == "deploy"
    assert len(view["whirlpools"]) == 3 and view["store"] is not None
    assert all(e["player"] in (0, 2) for e in view["log"])  # the agents deployed before the person
    assert all(a["places"] == [a["action"].split(":")[1]] for a in view["legal"])  # click the triangle


def test_legal_answers_are_played_and_the_agents_answer_up_to_the_persons_turn(client: TestClient) -> None:
    """Three players, the person in seat 1: every response stops at the person's decision or the end."""
    view = _new(client, players=3, level=3, seats=[1], seed=11, agent="greedy")
    live = _live(client, view)
    rng = random.Random(11)
    kinds = set()
    for _ in range(60):
        if view["winner"] is not None:
            break
        kinds.add(view["decision"]["kind"])
        action = rng.choice(view["legal"])["action"]
        body = client.post(f"/api/binfa/games/{live.id}/actions", json={"action": action}).json()
        assert body["played"][0]["action"] == action and body["played"][0]["player"] == 1
        assert [e["player"] for e in body["played"][1:]] == [
            e["player"] for e in body["played"][1:] if e["player"] != 1
        ]
        view = body["view"]
        _check(view, live)
    assert {"deploy", "pawn", "declare"} <= kinds


def test_places_name_what_each_answer_clicks() -> None:
    assert places("move:red-2-1>red-2-2:3") == {"places": ["red-2-1", "red-2-2"]}
    assert places("dislodge:red-2-1>red-2-2") == {"places": ["red-2-1", "red-2-2"]}
    assert places("deploy:blue-4-6") == {"places": ["blue-4-6"]}
    assert places("transfer:green-3-1:2") == {"places": ["green-3-1"]}
    assert places("retreat:green-3-1:12") == {"places": ["green-3-1"]}
    assert places("pawn:41") == {"places": [], "circle": 41}
    for text in ("roll", "stop", "resupply", "army:violet", "pawn:+12"):
        assert places(text) == {"places": []}


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"action": "stop"}, ["illegal action 'stop' for decision 'deploy' (player=0", "legal: deploy:"]),
        ({"action": "fly"}, ["illegal action 'fly'", "legal: deploy:"]),
        ({"action": 7}, ["an action is a string"]),
        ({"move": "roll"}, ["missing key 'action'"]),
        ({"action": "roll", "extra": 1}, ["unknown key 'extra'"]),
    ],
)  # fmt: skip
def test_a_bad_action_gets_a_clear_error_and_changes_nothing(
    client: TestClient, body: dict[str, Any], words: list[str]
) -> None:
    view = _new(client, seed=3)
    live = _live(client, view)
    before, log = live.game.to_dict(), list(live.log)
    response = client.post(f"/api/binfa/games/{live.id}/actions", json=body)
    assert response.status_code == 400
    message = response.json()["error"]
    assert "\n" not in message and all(w in message for w in words), message
    assert live.game.to_dict() == before and live.log == log
    assert client.get(f"/api/binfa/games/{live.id}").json()["view"] == view


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"agent": "ismcts:10", "seats": [0]}, ["agent must be one of random, greedy, heuristic"]),
        ({"agent": "random", "seats": [2]}, ["a player is a whole number 0..1"]),
        ({"agent": "random", "seats": []}, ["seats must be a non-empty list"]),
        ({"agent": "random", "seats": [0, 0], "players": 3}, ["listed twice"]),
        ({"agent": "random", "seats": [0], "players": 7}, ["players must be an integer 2..6"]),
        ({"agent": "random", "seats": [0], "level": 5}, ["level must be one of 1, 2, 3, 4"]),
        ({"agent": "random", "seats": [0], "seed": -1}, ["seed must be a whole number"]),
        ({"agent": "random", "seats": [0], "max_turns": 10**6}, ["max_turns must be a whole number 1..300 here"]),
        ({"agent": "random", "seats": [0], "variant": "standard"}, ["unknown key 'variant'"]),
    ],
)
def test_a_bad_new_game_is_refused_and_nothing_is_kept(
    client: TestClient, body: dict[str, Any], words: list[str]
) -> None:
    response = client.post("/api/binfa/games", json=body)
    assert response.status_code == 400
    assert all(w in response.json()["error"] for w in words), response.json()
    assert len(client.app.state.games["binfa"]) == 0  # type: ignore[attr-defined]


def test_a_finished_game_gives_its_seed_and_record_which_replay_it(client: TestClient) -> None:
    """BD5: a game of 4 turns ends undecided unless a player wins first; then no action is legal, and the record
    (B0.9) replays to the same end, step by step."""
    view = _new(client, seed=8, level=2, max_turns=4)
    live = _live(client, view)
    response = client.get(f"/api/binfa/games/{live.id}/record")
    assert response.status_code == 409 and "once the game is over" in response.json()["error"]
    rng = random.Random(8)
    while view["winner"] is None:
        view = client.post(
            f"/api/binfa/games/{live.id}/actions", json={"action": rng.choice(view["legal"])["action"]}
        ).json()["view"]
    _check(view, live)
    assert view["game"]["seed"] == 8 and view["legal"] == [] and view["decision"] is None
    response = client.post(f"/api/binfa/games/{live.id}/actions", json={"action": "roll"})
    assert response.status_code == 400 and "the game is over" in response.json()["error"]
    record = client.get(f"/api/binfa/games/{live.id}/record").json()
    assert record == live.game.record()
    first = client.post("/api/binfa/replays?title=mine", content=json.dumps(record)).json()
    steps = first["replay"]["steps"]
    assert steps == len(record["actions"]) + 1 and first["replay"]["next"] == record["actions"][0]
    last = client.get(f"/api/binfa/replays/{first['replay']['id']}?step=last").json()
    assert last["stacks"] == view["stacks"] and last["winner"] == view["winner"] and last["replay"]["next"] is None
    assert [e["action"] for e in last["log"]] == record["actions"][-len(last["log"]) :]


def test_a_replay_steps_through_the_positions_of_its_record() -> None:
    """Step k shows the position after the record's first k actions, across the replay's saved copies."""
    game = Game.new(4, players=4, level=4)
    rng = random.Random(4)
    while not game.is_terminal and len(game.record()["actions"]) < 300:
        game.apply(rng.choice(game.legal_actions()))
    record = game.record()
    replay = BinFaReplay(record, "four players")
    again = Game.replay({**record, "actions": []})
    for k, action in enumerate([*record["actions"], None]):
        if k % 37 == 0 or k in (63, 64, 65, 128) or action is None:
            view = replay.view(k)
            assert {key: view[key] for key in position(again)} == position(again)
            assert [a["action"] for a in view["legal"]] == again.legal_action_strings()
        if action is not None:
            again.apply(action)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"game": "binfa"', ["not JSON"]),
        ("[1, 2]", ["a Bin'Fa record is a JSON object"]),
        ('{"game": "suntzu", "rules_version": 1, "options": {}, "seed": 1, "actions": []}', ["record.game"]),
        ('{"game": "binfa", "rules_version": 1, "options": {"level": 9}, "seed": 1, "actions": []}', ["level"]),
        ('{"game": "binfa", "rules_version": 1, "options": {}, "seed": 1, "actions": ["roll"]}', ["record.actions[0]"]),
        (
            '{"game": "binfa", "rules_version": 1, "options": {}, "seed": 1, "actions": [], "code": "x"}',
            ["unknown key"],
        ),
    ],
)
def test_a_bad_record_gets_a_one_line_error_and_nothing_is_kept(
    client: TestClient, text: str, words: list[str]
) -> None:
    response = client.post("/api/binfa/replays", content=text)
    assert response.status_code == 400
    message = response.json()["error"]
    assert "\n" not in message and all(w in message for w in words), message
    assert len(client.app.state.replays["binfa"]) == 0  # type: ignore[attr-defined]


def test_replay_steps_out_of_range_and_unknown_ids(client: TestClient) -> None:
    record = Game.new(1).record()
    replay_id = client.post("/api/binfa/replays", content=json.dumps(record)).json()["replay"]["id"]
    assert (
        "step must be a whole number in [0, 0]" in client.get(f"/api/binfa/replays/{replay_id}?step=1").json()["error"]
    )
    assert (
        "step must be a whole number or 'last'" in client.get(f"/api/binfa/replays/{replay_id}?step=-1").json()["error"]
    )
    assert client.get("/api/binfa/replays/nope").status_code == 404
    assert client.get("/api/binfa/games/nope").status_code == 404
    assert client.post("/api/binfa/games/nope/actions", json={"action": "roll"}).status_code == 404


def test_the_servers_rules_hold_for_binfa(client: TestClient) -> None:
    """Another site's page, another Host, a body that is not JSON: refused as for Sun Tzu."""
    body = {"agent": "random", "seats": [0]}
    assert client.post("/api/binfa/games", json=body, headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/binfa/games", json=body, headers={"Host": "evil.example"}).status_code == 421
    assert client.post("/api/binfa/games", content="x", headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.get("/api/binfa/board", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert len(client.app.state.games["binfa"]) == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--game", "binfa", "--seats", "0,5"], ["a player is a whole number 0..1"]),
        (["--game", "binfa", "--agent", "ismcts:10"], ["agent must be one of random, greedy, heuristic"]),
        (["--game", "binfa", "--model", "ppo:runs/a"], ["no PPO model at runs/a"]),
        (["--game", "binfa", "--models", "no-such-folder"], ["--models no-such-folder is not a folder"]),
        (["--game", "binfa", "--seats", "a"], ["expected player numbers such as 0 or 0,2"]),
        (["--game", "binfa", "--players", "7"], ["players must be an integer 2..6"]),
        (["--game", "binfa", "--level", "0"], ["level must be one of 1, 2, 3, 4"]),
    ],
)
def test_the_command_line_checks_binfas_flags(
    argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words) and err.count("\n") == 1, err


def test_the_command_line_opens_a_binfa_record(tmp_path: Path) -> None:
    """`--replay` of a Bin'Fa record (B0.9) serves its viewer; a bad one is refused in one line."""
    import subprocess
    import sys
    import urllib.request

    root = Path(__file__).resolve().parents[2]
    game = Game.new(2, level=2, max_turns=3)
    rng = random.Random(2)
    while not game.is_terminal:
        game.apply(rng.choice(game.legal_actions()))
    record = game.record()
    (tmp_path / "game.json").write_text(json.dumps(record))
    (tmp_path / "bad.json").write_text(json.dumps({**record, "actions": ["fly"]}))
    command = [sys.executable, "-m", "suntzu_env.play", "--no-browser", "--port", "0", "--replay"]
    out = subprocess.run([*command, str(tmp_path / "bad.json")], capture_output=True, text=True, cwd=root,
                         timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert out.returncode == 2 and "record.actions[0]: illegal action 'fly'" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    server = subprocess.Popen([*command, str(tmp_path / "game.json")], stdout=subprocess.PIPE, text=True, cwd=root,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("Bin'Fa is served at http://127.0.0.1:") and "/binfa/replay/" in line, line
        url = line.split()[4]
        base, replay_id = url.split("/binfa/replay/")
        with urllib.request.urlopen(f"{base}/api/binfa/replays/{replay_id}?step=last", timeout=60) as response:
            last = json.loads(response.read())
        assert last["replay"]["steps"] == len(record["actions"]) + 1 and last["replay"]["title"] == "game.json"
        assert last["winner"] == game.winner
    finally:
        server.terminate()
        server.wait(30)


@pytest.fixture(scope="module")
def binfa_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results folder of `experiments.evaluate --game binfa` (`bf`) and of Sun Tzu's (`st`), in one folder."""
    from experiments.evaluate import main as evaluate

    root = tmp_path_factory.mktemp("results")
    evaluate(["--game", "binfa", "--agents", "random", "greedy", "--games", "4", "--max-turns", "12", "--workers", "1",
              "--no-progress", "--out", str(root / "bf")])  # fmt: skip
    evaluate(["--agents", "random", "greedy", "--games", "2", "--workers", "1", "--no-progress",
              "--out", str(root / "st")])  # fmt: skip
    return root


def test_a_binfa_evaluation_s_games_replay_in_binfa_s_viewer(binfa_results: Path) -> None:
    """A results folder of `experiments.evaluate --game binfa`: listed with the game's seats and options, each game
    replayed from its record to its row's end (B0.9) in Bin'Fa's viewer, never in Sun Tzu's, nor the reverse."""
    client = TestClient(create_app(binfa_results), base_url="http://127.0.0.1",
                        headers={"Content-Type": "application/json"})  # fmt: skip
    listing = client.get("/api/results?path=bf").json()
    assert listing["game_name"] == "binfa" and listing["seats"] == ["player_0", "player_1"]
    assert listing["viewer"] == "/binfa/replay"  # the page its games open in, named once, by the server
    assert listing["level"] == 1 and listing["max_turns"] == 12 and "level 1" in listing["about"]
    assert [row["players"] for row in listing["games"]][:2] == [["random", "greedy"], ["greedy", "random"]]
    for row in listing["games"]:
        view = client.post("/api/binfa/replays/results", json={"path": "bf", "game": row["game"]}).json()
        assert view["replay"]["steps"] == row["decisions"] + 1
        assert f"deck seed {row['seed']}: {row['winner']}" in view["replay"]["title"]
        last = client.get(f"/api/binfa/replays/{view['replay']['id']}?step=last").json()
        winner = last["winner"]
        assert ("draw" if winner == "undecided" else f"player_{winner}") == row["winner"]
    response = client.post("/api/replays/results", json={"path": "bf", "game": 0})
    assert (
        response.status_code == 400 and "holds games of binfa: open them at /binfa/replay" in response.json()["error"]
    )
    response = client.post("/api/binfa/replays/results", json={"path": "st", "game": 0})
    assert response.status_code == 400 and "holds games of suntzu: open them at /replay" in response.json()["error"]


def test_a_binfa_evaluation_leads_with_games_won_outright(binfa_results: Path) -> None:
    """Bin'Fa's results lead with summary.json's `headline`, the outright win rate (an undecided game is a win of
    neither): each pairing's rate for a and for b, b's from a's losses (not 1 - a's rate); Sun Tzu's with the win
    rate (draws half), b's 1 - a's. A summary written before `headline` leads with the game's own."""
    from suntzu_env.core.stats import wilson
    from suntzu_env.play.results import list_games

    listing = list_games(binfa_results / "bf")
    summary = json.loads((binfa_results / "bf" / "summary.json").read_text())
    assert listing["headline"] == summary["headline"] == "outright_win_rate" and listing["no_winner"] == "undecided"
    for shown, p in zip(listing["pairings"], summary["pairings"], strict=True):
        assert (shown["rate"], shown["rate_low"], shown["rate_high"]) == (
            p["outright_win_rate"], p["outright_ci_low"], p["outright_ci_high"])  # fmt: skip
        assert shown["b_rate"] == p["losses"] / p["games"]
        assert (shown["b_rate_low"], shown["b_rate_high"]) == wilson(p["losses"], p["games"])
        assert shown["draws"] == p["draws"] > 0  # games of 12 turns: some undecided, so 1 - rate would be wrong
        assert shown["b_rate"] != 1 - shown["rate"]
    suntzu = list_games(binfa_results / "st")
    assert suntzu["headline"] == "win_rate" and suntzu["no_winner"] == "draw"
    (p,) = suntzu["pairings"]
    assert p["rate"] == p["win_rate"] and p["b_rate"] == 1 - p["win_rate"] and p["b_rate_low"] == 1 - p["ci_high"]
    older = binfa_results / "older"
    shutil.copytree(binfa_results / "bf", older)
    (older / "summary.json").write_text(json.dumps({k: v for k, v in summary.items() if k != "headline"}))
    assert list_games(older)["headline"] == "outright_win_rate"
    (older / "summary.json").write_text(json.dumps({**summary, "headline": "luck"}))
    with pytest.raises(ValueError, match=r"summary\.json cannot be read: headline must be one of win_rate, outright_"):
        list_games(older)


def test_the_command_line_names_the_game_of_a_results_folder(binfa_results: Path) -> None:
    """`--results` of a Bin'Fa evaluation announces Bin'Fa, whatever page `--game` opens."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "suntzu_env.play", "--no-browser", "--port", "0", "--results"]
    for folder, name in (("bf", "Bin'Fa"), ("st", "Sun Tzu")):
        server = subprocess.Popen([*command, str(binfa_results / folder)], stdout=subprocess.PIPE, text=True,
                                  cwd=root, stdin=subprocess.DEVNULL)  # fmt: skip
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            assert line.startswith(f"{name} is served at http://127.0.0.1:") and f"/results?path={folder}" in line
        finally:
            server.terminate()
            server.wait(30)


def test_a_binfa_model_named_at_start_plays_on_the_page_and_no_other(tmp_path: Path) -> None:
    """`--agent`/`--model ppo:<Bin'Fa model>`: the page offers it beside the compiled agents and a game against it
    plays on; a model the server was not started with is refused before anything is read from the disk."""
    from helpers import binfa_model

    _, path = binfa_model(tmp_path)
    spec = f"ppo:{path}"
    client = TestClient(create_app(tmp_path, menus={"binfa": BinFaMenu([spec])}), base_url="http://127.0.0.1",
                        headers={"Content-Type": "application/json"})  # fmt: skip
    assert client.get("/api/binfa/options").json()["agents"] == [*AGENTS, spec, "ppo:pretrained/binfa"]
    view = _new(client, agent=spec, seats=[1], max_turns=3)
    assert view["game"]["agent"] == spec and view["decision"]["player"] == 1  # the model has deployed for player 0
    assert len(view["log"]) == 12
    response = client.post("/api/binfa/games", json={"agent": f"ppo:{tmp_path / 'other.zip'}", "seats": [0]})
    assert response.status_code == 400 and "agent must be one of random, greedy, heuristic, mcts, ppo:" in response.text
    plain = TestClient(create_app(tmp_path), base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})
    assert plain.post("/api/binfa/games", json={"agent": spec, "seats": [0]}).status_code == 400


def test_binfa_models_found_in_a_folder_are_offered_and_read_on_first_use(tmp_path: Path) -> None:
    """`--game binfa --models FOLDER`: every model found under the folder is offered; a Bin'Fa model plays when a
    game first asks for it, a Sun Tzu model found there is refused then in one line, and nothing is read before."""
    from sb3_contrib import MaskablePPO
    from suntzu_env.suntzu.gym_env import SunTzuGymEnv

    from helpers import binfa_model

    folder = tmp_path / "models"
    folder.mkdir()
    _, path = binfa_model(folder, "binfa.zip")
    MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu",
                policy_kwargs={"net_arch": [8]}).save(folder / "suntzu.zip")  # fmt: skip
    menu = BinFaMenu([], [folder])
    menu.load()  # only models named on the command line are read now: the Sun Tzu model found is not refused yet
    client = TestClient(create_app(tmp_path, menus={"binfa": menu}), base_url="http://127.0.0.1",
                        headers={"Content-Type": "application/json"})  # fmt: skip
    binfa, suntzu = f"ppo:{path}", f"ppo:{folder / 'suntzu.zip'}"
    assert client.get("/api/binfa/options").json()["agents"] == [*AGENTS, "ppo:pretrained/binfa", binfa, suntzu]
    view = _new(client, agent=binfa, seats=[1], max_turns=3)
    assert view["game"]["agent"] == binfa and view["decision"]["player"] == 1
    response = client.post("/api/binfa/games", json={"agent": suntzu, "seats": [0]})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "suntzu.zip" in error and "\n" not in error, error
    assert len(client.app.state.games["binfa"]) == 1  # type: ignore[attr-defined]
