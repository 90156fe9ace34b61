"""The play app without a browser: hidden information (R9), bad input, replays, results folders, the terminal.

The browser itself is driven in tests/play/test_play_browser.py.
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from play_helpers import require_play_extra

require_play_extra()
from fastapi.testclient import TestClient
from suntzu_env import Game
from suntzu_env.play.app import create_app
from suntzu_env.suntzu.rules import CARDS
from suntzu_env.suntzu.rules import PROVINCES
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.web.chronicle import Chronicle
from suntzu_env.suntzu.web.chronicle import Frame
from suntzu_env.suntzu.web.view import seat_view

from helpers import battle_cards
from helpers import load
from helpers import make_state
from helpers import with_hands
from play_helpers import check_seat_view

ROOT = Path(__file__).resolve().parents[2]
NP = len(PROVINCES)
CONFIGS = [
    ("blue", "standard", False),
    ("red", "standard", True),
    ("blue", "beginner", True),
    ("red", "beginner", False),
]


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    """The app as its own page reaches it: at its address, bodies sent as JSON."""
    return TestClient(create_app(tmp_path), base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})


def _without_game(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "game"}


# ---------------------------------------------------------------- battle results shown on the board

STANDARD = make_state("standard")
FEINT = make_state("standard", blue={"held": ["feint"]})
COUNTER = make_state("standard", red={"held": ["counter_plague"]})
DEVASTATING = make_state("standard", blue={"armies": [0, 0, 0, 0, 3]}, red={"held": ["devastating_plague"]})
HALVED = "Plague: no battle; the holder takes half its armies back to its reserve"
ALL_BUT_ONE = "Plague: no battle; the holder takes all but one army back to its reserve"


@pytest.mark.parametrize(
    ("state", "blue", "red", "use", "winner", "by", "text"),
    [
        (STANDARD, "7", "3", False, "blue", 4, "blue wins by 4"),  # R5.1: number cards, 7 - 3
        (STANDARD, "+2", "5", False, "blue", 2, "blue wins by 2"),  # R5.1: +k beats a number card by k
        (STANDARD, "4", "-1", False, "blue", 1, "blue wins by 1"),  # R5.1: -1 loses to any number card by 1
        (STANDARD, "-1", "+3", False, "red", 3, "red wins by 3"),  # R5.1 table: -1 counts as 0 against +k
        (STANDARD, "+1", "+1", False, None, 0, "tie: nothing happens"),  # R5.1 table: the same card ties
        (FEINT, "9", "8", True, "red", 2, "red wins by 2"),  # R8 feint: blue's 9 counts as 6
        (COUNTER, "P", "2", True, "red", 2, "red wins by 2"),  # R8 counter_plague: the Plague counts as 0
        (STANDARD, "9", "P", False, None, 0, HALVED),  # R5.2: an active Plague stops the combat
        (DEVASTATING, "P", "3", True, None, 0, ALL_BUT_ONE),  # R8 devastating_plague: n - 1 armies
        (make_state(score=2, events=["light_infantry", "hero"]), "1", "1", False, "red", 1,
         "tie; light infantry: red wins by 1"),  # R7.5: the side behind on the marker wins by 1
        (make_state(events=["light_infantry", "hero"]), "1", "1", False, None, 0,
         "tie; light infantry: marker at 0, no effect"),  # D7: marker at 0, no effect
    ],
)  # fmt: skip
def test_battle_results_worked_by_hand(
    state: dict, blue: str, red: str, use: bool, winner: str | None, by: int, text: str
) -> None:
    """The log and the board show the battle's result as the engine decided it (R5.1-R5.3, R7.5, R8)."""
    blue_cards, red_cards = battle_cards(blue, red)
    chronicle = Chronicle(load(with_hands(state, blue_cards, red_cards)))
    for card in blue_cards + red_cards:
        chronicle.apply(f"place:{card}")
    asked = []
    while chronicle.game.round == 1:  # the round's other decisions (costs, the draw) answered at random
        decision = chronicle.game.decision
        assert decision is not None
        if decision["kind"] == "reactive":  # asked in WU's battle before its result (R5.7)
            assert not [e for e in chronicle.log if e.province == "WU" and e.result]
            asked.append(decision["warlord"])
            chronicle.apply("use")
        else:
            chronicle.apply(chronicle.game.legal_action_strings()[0])
    assert bool(asked) == use
    entries = [e for e in chronicle.log if e.province == "WU" and e.result]
    assert len(entries) == 1
    assert (entries[0].result["winner"], entries[0].result["by"], entries[0].result["text"]) == (winner, by, text)
    assert entries[0].result["plague"] == text.startswith("Plague")
    assert text in entries[0].text
    assert chronicle.table().results[PROVINCES.index("WU")] == entries[0].result


# ---------------------------------------------------------------- R9: a seat's view holds only what it may know


def _played_chronicle(seed: int, variant: str, events: bool) -> Chronicle:
    chronicle = Chronicle(Game.new(seed, variant=variant, events=events))
    rng = random.Random(seed)
    while chronicle.game.current_player is not None:
        chronicle.apply(rng.choice(chronicle.game.legal_action_strings()))
    return chronicle


def _perturbed(frame: Frame, seat: str, rng: random.Random) -> Frame | None:
    """The frame with what `seat` may not know changed: the opponent's hand, deck and face-down cards dealt
    again between them, both deck orders shuffled, the opponent's unused warlord swapped for an unchosen one.
    None when the change would make an invalid state (then another frame is tried)."""
    opp = 1 - SEATS.index(seat)
    o = SEATS[opp]
    d = copy.deepcopy(frame.game.to_dict())
    table = frame.table.copy()
    rng.shuffle(d[seat]["deck"])
    hand, deck = d[o]["hand"], d[o]["deck"]
    rng.shuffle(deck)
    swappable = [i for i, c in enumerate(hand) if c not in ("1", "2", "3", "4", "5", "6", "P", "P*")]
    others = [j for j, c in enumerate(deck) if c not in ("P", "P*")]
    if swappable and others:  # a non-base card of the hand trades places with one of the deck
        i, j = rng.choice(swappable), rng.choice(others)
        hand[i], deck[j] = deck[j], hand[i]
    engine = d.get("engine")
    if engine is not None and d["phase"] != "draw":  # a face-down card trades places with a card in hand
        placed = engine["placed"]
        for p in range(NP):
            k = placed[opp * NP + p]
            if k < 0 or engine["revealed"][p] or engine["placed_recycled"][opp * NP + p]:
                continue
            options = [i for i, c in enumerate(hand) if c not in ("6", "P*")]
            if not options:
                continue
            if CARDS[k] in ("6", "P"):
                continue
            i = rng.choice(options)
            placed[opp * NP + p], hand[i] = CARDS.index(hand[i]), CARDS[k]
            if table.cards[opp][p] is not None:
                table.cards[opp][p] = CARDS[placed[opp * NP + p]]
            break
    held = [w for w in d[o]["warlords"]["held"] if w != "head_start"]
    unchosen = [w for w in d[o]["warlords"]["unchosen"] if w != "head_start"]
    asked = frame.game.decision
    if held and unchosen and d["phase"] != "warlords" and not (asked and asked["warlord"] in held):
        a, b = rng.choice(held), rng.choice(unchosen)
        d[o]["warlords"]["held"] = [b if w == a else w for w in d[o]["warlords"]["held"]]
        d[o]["warlords"]["unchosen"] = [a if w == b else w for w in d[o]["warlords"]["unchosen"]]
    try:
        game = Game.from_dict(d)
    except ValueError:
        return None
    if (frame.game.decision or {}).get("player") == seat and game.legal_action_strings() != (
        frame.game.legal_action_strings()
    ):
        return None  # a hand change that changes my legal answers is not a hidden change
    return Frame(game, table, frame.n_entries, frame.action, frame.actor)


@pytest.mark.parametrize(("variant", "events"), [("standard", False), ("standard", True), ("beginner", True)])
def test_seat_view_depends_only_on_what_the_seat_knows(variant: str, events: bool) -> None:
    """R9: changing everything a seat may not know leaves its view unchanged (log secrets included)."""
    rng = random.Random(7)
    changed = 0
    for seed in range(3):
        chronicle = _played_chronicle(seed, variant, events)
        hidden_log = copy.deepcopy(chronicle.log)
        for entry in hidden_log:  # what only the actor saw is scrambled too
            if entry.secret is not None:
                entry.secret = entry.secret + " (scrambled)"
        for frame in chronicle.frames[::3]:
            for seat in SEATS:
                other = _perturbed(frame, seat, rng)
                if other is None:
                    continue
                before = seat_view(frame, chronicle.log, seat)
                check_seat_view(before, seat, frame.game)
                mine = [e for e in hidden_log if e.actor == seat]
                for e in mine:  # the seat's own secrets are its own: keep them
                    e.secret = e.secret.replace(" (scrambled)", "") if e.secret else None
                after = seat_view(other, hidden_log, seat)
                for e in mine:
                    e.secret = e.secret + " (scrambled)" if e.secret else None
                changed += other.game.to_dict() != frame.game.to_dict()
                assert after == before, f"seed {seed}: {seat}'s view changed with hidden information"
    assert changed > 50, "the perturbations changed too few states to test anything"


def _secret_offer(frame: Frame, seat: str) -> bool:
    """The agent is being asked about a warlord it holds in secret (R8): no frame of it is sent (R9)."""
    d = frame.game.decision
    return d is not None and d["player"] != seat and d["kind"] in ("window", "reactive")


@pytest.mark.parametrize(("seat", "variant", "events"), CONFIGS)
def test_every_response_of_a_played_game_hides_the_opponent(
    client: TestClient, seat: str, variant: str, events: bool
) -> None:
    """A whole game over HTTP: each response is the person's seat view of the server's game, and holds
    none of the opponent's hand, face-down cards, deck order or unused warlords (R9)."""
    response = client.post("/api/games", json={"agent": "random", "seat": seat, "variant": variant, "events": events})
    assert response.status_code == 200, response.text
    view = response.json()["view"]
    game_id = view["game"]["id"]
    live = client.app.state.games["suntzu"].get(game_id)
    check_seat_view(view, seat, live.game)
    rng = random.Random(hash((seat, variant, events)) & 0xFFFF)
    shown = len(live.chronicle.frames)
    responses = 0
    while view["decision"] is not None:
        action = rng.choice(view["decision"]["actions"])["action"]
        response = client.post(f"/api/games/{game_id}/actions", json={"action": action})
        assert response.status_code == 200, response.text
        body = response.json()
        view = body["view"]
        new_frames = live.chronicle.frames[shown:]
        shown = len(live.chronicle.frames)
        shown_frames = [f for f in new_frames if not _secret_offer(f, seat)]
        expected = [seat_view(f, live.chronicle.log, seat) for f in shown_frames]
        deduped = [v for i, v in enumerate(expected) if i == 0 or v != expected[i - 1]]
        assert [_without_game(v) for v in body["frames"]] + [_without_game(view)] == deduped
        for frame_view in body["frames"]:
            check_seat_view(frame_view, seat)
        check_seat_view(view, seat, live.game)
        responses += 1
    assert view["winner"] in ("blue", "red", "draw") and view["game"]["seed"] >= 0
    assert responses > 10
    record = client.get(f"/api/games/{game_id}/record").json()
    assert Game.replay(record).winner == view["winner"]


def test_record_is_refused_during_the_game(client: TestClient) -> None:
    view = client.post("/api/games", json={"agent": "greedy", "seat": "blue"}).json()["view"]
    response = client.get(f"/api/games/{view['game']['id']}/record")
    assert response.status_code == 409 and "seed" in response.json()["error"]


def test_person_as_red_sees_none_of_blues_placements(client: TestClient) -> None:
    """R4.1: blue's five cards are placed first, server-side; red's page sees five face-down cards."""
    body = client.post("/api/games", json={"agent": "random", "seat": "red", "variant": "beginner"}).json()
    view = body["view"]
    assert view["decision"]["kind"] == "place" and view["decision"]["province"] == "QIN"
    assert [p["cards"]["blue"] for p in view["provinces"]] == [{"card": None, "face_down": True}] * NP
    assert all(p["cards"]["red"] is None for p in view["provinces"])


# ---------------------------------------------------------------- bad input changes nothing


def test_illegal_action_is_refused_and_changes_nothing(client: TestClient) -> None:
    view = client.post("/api/games", json={"agent": "random", "seat": "blue"}).json()["view"]
    game_id = view["game"]["id"]
    before = client.get(f"/api/games/{game_id}").json()
    for body, status, words in (
        ({"action": "place:9"}, 400, ["illegal action 'place:9'", "decision 'warlord'", "legal: warlord:march"]),
        ({"action": "fly"}, 400, ["illegal action 'fly' for decision 'warlord'", "legal: "]),
        ({"action": 3}, 400, ["an action is a string"]),
        ({"move": "pass"}, 400, ["missing key 'action'"]),
        ({"action": "pass", "x": 1}, 400, ["unknown key 'x'"]),
    ):
        response = client.post(f"/api/games/{game_id}/actions", json=body)
        assert response.status_code == status
        message = response.json()["error"]
        assert all(w in message for w in words), message
    response = client.post(f"/api/games/{game_id}/actions", content=b"{not json")
    assert response.status_code == 400 and "the request is not JSON" in response.json()["error"]
    assert client.get(f"/api/games/{game_id}").json() == before
    assert client.post("/api/games/nope/actions", json={"action": "pass"}).status_code == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"agent": "nobody", "seat": "blue"}, ["agent 'nobody' is not offered", "heuristic"]),
        ({"agent": "random", "seat": "green"}, ["seat must be one of blue, red"]),
        ({"agent": "random", "seat": "blue", "variant": "expert"}, ["variant must be one of standard, beginner"]),
        ({"agent": "random", "seat": "blue", "seed": -1}, ["seed must be a whole number"]),
        ({"agent": "random", "seat": "blue", "events": "yes"}, ["events must be true or false"]),
        ({"agent": "ppo:/no/such/model", "seat": "blue"}, ["agent 'ppo:/no/such/model' is not offered", "--model"]),
    ],
)
def test_bad_new_game_is_refused(client: TestClient, body: dict, words: list[str]) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert all(w in response.json()["error"] for w in words), response.json()["error"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\x89PNG not a record", ["not JSON"]),
        (b"[1, 2]", ["a game record is a JSON object with keys"]),
        (b'{"seed": 1, "rules": {"variant": "standard", "events": false}}', ["missing key 'actions'"]),
        (b'{"seed": 1, "rules": {"variant": "pro", "events": false}, "actions": []}', ["rules.variant"]),
        (b'{"seed": 1, "rules": {"variant": "standard", "events": false}, "actions": ["pass"]}', ["actions[0]"]),
        (b'{"seed": 1, "rules": {"variant": "standard", "events": false}, "actions": [], "who": 1}', ["'who'"]),
    ],
)
def test_malformed_record_is_refused(client: TestClient, content: bytes, words: list[str]) -> None:
    response = client.post("/api/replays", content=content)
    assert response.status_code == 400
    assert all(w in response.json()["error"] for w in words), response.json()["error"]
    assert len(client.app.state.replays["suntzu"]._items) == 0


# ---------------------------------------------------------------- replays


def test_replay_steps_through_a_record_from_each_view(client: TestClient) -> None:
    chronicle = _played_chronicle(11, "standard", True)
    record = chronicle.game.record()
    first = client.post("/api/replays", content=json.dumps(record).encode()).json()
    replay_id, steps = first["replay"]["id"], first["replay"]["steps"]
    assert steps == len(record["actions"]) + 1 and first["replay"]["winner"] == chronicle.game.winner
    assert set(first["private"]) == {"blue", "red"}  # the full view shows everything
    last = client.get(f"/api/replays/{replay_id}?view=full&step=last").json()
    assert last["winner"] == chronicle.game.winner and last["log"][-1]["kind"] == "end"
    for seat in SEATS:
        n = client.get(f"/api/replays/{replay_id}?view={seat}&step=0").json()["replay"]["steps"]
        assert 1 < n <= steps  # steps that change nothing the seat sees are folded away
        for step in range(0, n, max(1, n // 12)):
            view = client.get(f"/api/replays/{replay_id}?view={seat}&step={step}").json()
            check_seat_view(view, seat)
            assert view["replay"]["step"] == step
    for query, words in (
        ("view=green&step=0", ["view must be one of"]),
        ("view=full&step=x", ["step must be"]),
        (f"view=full&step={steps}", ["step must be a whole number in [0, "]),
    ):
        response = client.get(f"/api/replays/{replay_id}?{query}")
        assert response.status_code == 400 and all(w in response.json()["error"] for w in words)


def test_evaluation_results_link_to_each_game(client: TestClient, tmp_path: Path) -> None:
    """A results folder of `experiments.evaluate`: its games are listed and each replays to its row's result."""
    from experiments.evaluate import main

    main(
        [
            "--agents",
            "random",
            "greedy",
            "--games",
            "4",
            "--seed",
            "3",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "eval"),
        ]
    )
    listing = client.get("/api/results?path=eval").json()
    assert len(listing["games"]) == 4 and listing["variant"] == "standard" and listing["viewer"] == "/replay"
    for row in listing["games"]:
        view = client.post("/api/replays/results", json={"path": "eval", "game": row["game"]}).json()
        last = client.get(f"/api/replays/{view['replay']['id']}?view=full&step=last").json()
        assert (last["winner"], last["score"]) == (row["winner"], row["score"])
        assert view["replay"]["decisions"] == row["decisions"]
    csv_path = tmp_path / "eval" / "games.csv"
    csv_path.write_text(csv_path.read_text().replace(",blue,", ",red,", 1).replace(",red,", ",blue,", 1))
    rows = csv_path.read_text().splitlines()
    fields = rows[1].split(",")
    fields[-1] = str(int(fields[-1]) + 1)  # a changed decision count: the game no longer matches its row
    csv_path.write_text("\n".join([rows[0], ",".join(fields), *rows[2:]]) + "\n")
    response = client.post("/api/replays/results", json={"path": "eval", "game": 0})
    assert (
        response.status_code == 400 and "not" in response.json()["error"] and "as recorded" in response.json()["error"]
    )
    for body, words in (
        ({"path": "../..", "game": 0}, ["outside"]),
        ({"path": "nowhere", "game": 0}, ["not an evaluation's results folder"]),
        ({"path": "eval", "game": 99}, ["row number"]),
    ):
        response = client.post("/api/replays/results", json=body)
        assert response.status_code == 400 and all(w in response.json()["error"] for w in words)


def test_results_folder_with_saved_records(client: TestClient, tmp_path: Path) -> None:
    """When the evaluation saved games.jsonl, the records are read from it, not played again."""
    folder = tmp_path / "saved"
    folder.mkdir()
    chronicle = _played_chronicle(5, "beginner", False)
    game = chronicle.game
    summary = {"config": {"labels": ["x", "y"], "agents": ["random", "random"], "variant": "beginner", "events": False}}
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "games.csv").write_text(
        f"pairing,seed,blue,red,winner,score,decisions\nx vs y,5,x,y,{game.winner},"
        f"{game.score},{len(game.record()['actions'])}\n"
    )
    (folder / "games.jsonl").write_text(json.dumps({"record": game.record()}) + "\n")
    view = client.post("/api/replays/results", json={"path": "saved", "game": 0}).json()
    assert view["replay"]["steps"] == len(game.record()["actions"]) + 1


# ---------------------------------------------------------------- the command line


def _run(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run(
        [sys.executable, "-m", "suntzu_env.play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
    )


def test_text_mode_plays_a_whole_game(tmp_path: Path) -> None:
    """--text: the same decisions by number or string; bad answers are refused and asked again."""
    answers = "99\nplace:zzz\nwarlord:purge\nboard\n" + "1\n" * 600
    out = _run(
        "--text", "--agent", "random", "--seed", "4", "--events", "--save", str(tmp_path / "g.json"), stdin=answers
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    assert "no choice 99: answer 1 to 5" in out.stdout
    assert "not allowed: illegal action 'place:zzz'" in out.stdout
    assert "not allowed: illegal action 'warlord:purge' for decision 'warlord'" in out.stdout
    assert "Game over" in out.stdout and "The game's seed was 4." in out.stdout
    record = json.loads((tmp_path / "g.json").read_text())
    assert record["seed"] == 4 and Game.replay(record).is_terminal
    assert "blue hand:" in out.stdout and "red hand:" not in out.stdout, "the opponent's hand was printed"


def test_command_line_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"seed": 1}')
    for args, words in (
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--port", "x"], "port number"),
        (["--replay", str(bad), "--no-browser"], "record: missing key 'rules'"),
        (["--results", "nowhere", "--no-browser"], "not an evaluation's results folder"),
    ):
        out = _run(*args)
        assert out.returncode != 0 and words in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_server_starts_and_serves_the_page(tmp_path: Path) -> None:
    """`--results FOLDER --no-browser --port 0`: the address printed serves the page and the folder's games."""
    import urllib.request

    from experiments.evaluate import main

    main(
        [
            "--agents",
            "random",
            "greedy",
            "--games",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "ev"),
        ]
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "suntzu_env.play", "--no-browser", "--port", "0", "--results", str(tmp_path / "ev")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        assert "Sun Tzu is served at http://127.0.0.1:" in line and "/results?path=ev " in line, line
        url = line.split(" at ")[1].split()[0]
        assert b"<title>Sun Tzu</title>" in urllib.request.urlopen(url, timeout=10).read()
        base = url.split("/results")[0]
        listing = json.loads(urllib.request.urlopen(f"{base}/api/results?path=ev", timeout=10).read())
        assert len(listing["games"]) == 2
        options = json.loads(urllib.request.urlopen(f"{base}/api/options", timeout=10).read())
        assert options["agents"][:3] == ["random", "greedy", "heuristic"]
    finally:
        proc.terminate()
        proc.wait(10)
