"""The play app serves only what its command line allows, to its own origin, and stays responsive.

Agents: only the scripted ones, `ismcts` within its budget and the models given at start; any other spec is
refused before the disk is touched. Requests: a foreign `Origin`, a `Host` other than the bound address (DNS
rebinding), a body that is not `application/json` or too long (refused while it is read), deep nesting, long
paths: one-line refusals that show no absolute path. Every response forbids framing (CSP, X-Frame-Options).
Games: a client's least recently used idle one makes room for its new one, never one in use nor another
client's (a full server refuses), at most so many per client; 50 players at once
lose none, and a player's request is answered while another's maximal search runs.
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import net_of
from helpers import saved
from play_helpers import require_play_extra
from play_helpers import serve

require_play_extra()
from agents import check_spec
from agents.ismcts import VALUE_HORIZON
from agents.ismcts import VALUE_ITERATIONS
from fastapi.testclient import TestClient
from suntzu_env.core.agent import ModelError
from suntzu_env.play.app import MAX_BODY
from suntzu_env.play.app import SECURITY_HEADERS
from suntzu_env.play.app import create_app
from suntzu_env.play.app import host_allowed
from suntzu_env.play.store import Busy
from suntzu_env.play.store import Store
from suntzu_env.pretrained import shipped_specs
from suntzu_env.suntzu.web import live as sessions
from suntzu_env.suntzu.web.live import MAX_SEARCH_ITERATIONS
from suntzu_env.suntzu.web.live import AgentMenu

BASE = "http://127.0.0.1"


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path / "served"), base_url=BASE)


def _error(response: Any) -> str:
    message = response.json()["error"]
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- agents: only what the command line allows


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("ppo:/etc/passwd", ["not offered by this server"]),
        ("rllib:/tmp", ["not offered by this server"]),
        ("ppo:model.zip", ["not offered by this server"]),
        (f"ismcts:{MAX_SEARCH_ITERATIONS + 1}", [f"from 1 to {MAX_SEARCH_ITERATIONS}"]),
        ("ismcts:100000", [f"from 1 to {MAX_SEARCH_ITERATIONS}"]),
        ("ismcts:\u0663", [f"from 1 to {MAX_SEARCH_ITERATIONS}"]),  # an Arabic-Indic three
        (["random"], ["agent must be a string"]),
    ],
)
def test_agents_not_offered_are_refused_without_touching_the_disk(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, spec: Any, words: list[str]
) -> None:
    def touched(*_: Any, **__: Any) -> None:
        raise AssertionError("the disk was read for a refused agent")

    assert client.get("/api/options").status_code == 200  # the game's face and menu are made on first use
    monkeypatch.setattr(sessions, "make_agent", touched)
    monkeypatch.setattr(Path, "stat", touched)
    response = client.post("/api/games", json={"agent": spec, "seat": "blue"})
    monkeypatch.undo()
    assert response.status_code == 400
    message = _error(response)
    assert all(w in message for w in words), message
    assert len(client.app.state.games["suntzu"]) == 0


def test_a_non_ascii_digit_is_no_iteration_count() -> None:
    for spec in ("ismcts:\u0663", "ismcts:\uff13", "ismcts:\u00b2"):
        with pytest.raises(ValueError, match="iterations must be a whole number"):
            check_spec(spec)


def test_models_are_offered_from_the_command_line_and_folders(tmp_path: Path) -> None:
    (tmp_path / "runs" / "a" / "checkpoints").mkdir(parents=True)
    (tmp_path / "runs" / "b.zip").write_bytes(b"")
    (tmp_path / "runs" / "deep" / "er" / "than" / "this").mkdir(parents=True)
    (tmp_path / "runs" / "deep" / "er" / "than" / "this" / "c.zip").write_bytes(b"")
    menu = AgentMenu(["heuristic", "ppo:given.zip"], [tmp_path / "runs"])
    runs = tmp_path / "runs"
    given = [m for m in menu.models if "pretrained/" not in m]  # besides the agents shipped in the package
    assert sorted(set(menu.models) - set(given)) == sorted(shipped_specs("suntzu"))
    assert given == ["ppo:given.zip", f"ppo:{runs / 'b.zip'}", f"ppo:{runs / 'a'}"]  # too deep: c.zip
    assert menu.names()[:4] == ["random", "greedy", "heuristic", "ismcts"]
    client = TestClient(create_app(tmp_path, menus={"suntzu": menu}), base_url=BASE)
    assert client.get("/api/options").json()["models"] == menu.models
    response = client.post("/api/games", json={"agent": f"ppo:{runs / 'b.zip'}", "seat": "red"})
    assert response.status_code == 400 and "is not a readable MaskablePPO model" in _error(response)


def test_a_search_with_a_learned_value_is_offered_when_named(tmp_path: Path) -> None:
    spec = f"ismcts-value:{saved(net_of(0.0), tmp_path / 'value')}"
    menu = AgentMenu(["heuristic", spec])
    menu.load()
    assert [m for m in menu.models if "pretrained/" not in m] == [spec] and spec in menu.names()
    first, second = menu.make(spec, seed=0), menu.make(spec, seed=1)
    assert first.value is second.value  # read once, shared by the games
    assert (first.iterations, first.horizon) == (VALUE_ITERATIONS, VALUE_HORIZON)
    other = f"ismcts-value:{saved(net_of(0.0), tmp_path / 'other')}"
    with pytest.raises(ValueError, match="is not offered by this server"):
        menu.make(other)  # a value network the command line did not name is not read
    client = TestClient(create_app(tmp_path, menus={"suntzu": menu}), base_url=BASE)
    assert spec in client.get("/api/options").json()["agents"]
    response = client.post("/api/games", json={"agent": spec, "seat": "red"})
    assert response.status_code == 200, response.text
    with pytest.raises(ModelError, match="no value network there"):
        AgentMenu([f"ismcts-value:{tmp_path / 'missing'}"]).load()  # refused before the server starts


# ---------------------------------------------------------------- requests: own origin, own address, JSON only


def test_foreign_origins_hosts_and_bodies_are_refused(client: TestClient) -> None:
    good = {"agent": "random", "seat": "blue"}
    for headers, status in (
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Host": "evil.example"}, 421),  # a DNS-rebinding page reaches 127.0.0.1 under its own name
        ({"Host": "127.0.0.1:9"}, 421),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ):
        sent = {"Content-Type": "application/json"} | headers
        response = client.post("/api/games", content=json.dumps(good), headers=sent)
        assert response.status_code == status, (headers, response.text)
        assert "error" in response.json() and len(client.app.state.games["suntzu"]) == 0
    response = client.post("/api/games", json=good, headers={"Origin": BASE})
    assert response.status_code == 200 and len(client.app.state.games["suntzu"]) == 1


def test_host_check() -> None:
    assert host_allowed("127.0.0.1:8000", "127.0.0.1", 8000)
    assert host_allowed("localhost:8000", "127.0.0.1", 8000)
    assert host_allowed("[::1]:8000", "127.0.0.1", 8000)
    assert not host_allowed("127.0.0.1:8001", "127.0.0.1", 8000)
    assert not host_allowed("rebind.example:8000", "127.0.0.1", 8000)
    assert host_allowed("192.168.1.5:80", "0.0.0.0", 80)
    assert not host_allowed("rebind.example:80", "0.0.0.0", 80)
    assert not host_allowed("", "127.0.0.1", 80) and not host_allowed("a:b:c", "127.0.0.1", 80)


def test_a_long_body_is_refused_while_it_is_read(client: TestClient) -> None:
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        while sent < 8 * MAX_BODY:
            sent += 2**16
            yield b" " * 2**16

    response = client.post("/api/replays", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and str(MAX_BODY) in _error(response)
    response = client.post("/api/replays", content=b"[]", headers={"Content-Type": "application/json",
                                                                     "Content-Length": str(MAX_BODY + 1)})  # fmt: skip
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("method", "url", "body", "words"),
    [
        ("post", "/api/replays", b"[" * 100_000 + b"]" * 100_000, ["nested too deeply"]),
        ("post", "/api/games", b'{"agent": ' + b"[" * 5000 + b"]" * 5000 + b', "seat": "blue"}', ["nested"]),
        ("get", "/api/results?path=" + "a" * 5000, None, ["is not a folder's path"]),
        ("get", "/api/results?path=" + "a/" * 300, None, ["not an evaluation's results folder"]),
        ("get", "/api/results?path=../..", None, ["outside the folder this app serves"]),
        ("get", "/api/results?path=%00", None, ["is not a folder's path"]),
        ("get", "/api/replays/x?step=\u0663", None, ["no replay"]),
        ("post", "/api/replays/results", b'{"path": "' + b"b" * 5000 + b'", "game": 0}', ["is not a folder's path"]),
    ],
)
def test_bad_input_gets_a_one_line_400_without_the_servers_paths(
    client: TestClient, tmp_path: Path, method: str, url: str, body: bytes | None, words: list[str]
) -> None:
    (tmp_path / "served").mkdir(exist_ok=True)
    if body is None:
        response = client.get(url)
    else:
        response = client.post(url, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code in (400, 404), response.text
    message = _error(response)
    assert all(w in message for w in words) and str(tmp_path) not in message and len(message) < 500, message


def test_every_response_forbids_framing_and_foreign_content(client: TestClient) -> None:
    for url in ("/", "/static/app.js", "/api/options", "/api/games/nope"):
        response = client.get(url)
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value, (url, name)
    assert "frame-ancestors 'none'" in SECURITY_HEADERS["Content-Security-Policy"]


def test_results_folders_replay_from_records_only(client: TestClient, tmp_path: Path) -> None:
    """A folder without games.jsonl says so: its games are never played again (its agents are never loaded)."""
    folder = tmp_path / "served" / "ev"
    folder.mkdir(parents=True)
    summary = {"config": {"labels": ["a", "b"], "agents": ["ismcts:20000", "ppo:x.zip"], "variant": "standard",
                          "events": False}}  # fmt: skip
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "games.csv").write_text("pairing,seed,blue,red,winner,score,decisions\na vs b,1,a,b,blue,2,80\n")
    assert client.get("/api/results?path=ev").json()["records"] is False
    response = client.post("/api/replays/results", json={"path": "ev", "game": 0})
    assert response.status_code == 400 and "holds no games.jsonl" in _error(response)


# ---------------------------------------------------------------- the store of games


def test_store_evicts_the_clients_least_recently_used_idle_game_never_one_in_use() -> None:
    now = [0.0]
    store: Store[str] = Store(capacity=3, per_client=3, idle=100, clock=lambda: now[0])
    store.add("a", "A", "x")
    now[0] = 1
    store.add("b", "B", "x")
    now[0] = 2
    store.add("c", "C", "x")
    now[0] = 3
    assert store.get("a") == "A"  # reading refreshes: b is now the least recently used
    store.add("d", "D", "x")
    assert store.get("b") is None and store.get("a") == "A"
    with store.use("c"), store.use("a"), store.use("d"):  # all in use: nothing may go
        with pytest.raises(Busy):
            store.add("e", "E", "x")
        assert [store.get(k) for k in "acd"] == ["A", "C", "D"]
    now[0] = 500  # all idle for longer than `idle`: they go first
    store.add("e", "E", "x")
    assert len(store) == 1


def test_one_clients_new_games_never_evict_anothers() -> None:
    """A client making room drops only its own least recently used idle game; with the server full of other
    clients' games it is refused (Busy), and every other client's game stays."""
    now = [0.0]
    store: Store[str] = Store(capacity=4, per_client=3, idle=100, clock=lambda: now[0])
    for k, client in enumerate("xyz"):
        now[0] = k
        store.add(client, client.upper(), client)
    now[0] = 10
    store.add("w1", "W1", "w")  # the store is full: three other clients' games, one of w's
    now[0] = 11
    store.add("w2", "W2", "w")  # full again: w's own idle game goes, nobody else's
    assert store.get("w1") is None and [store.get(k) for k in ("x", "y", "z", "w2")] == ["X", "Y", "Z", "W2"]
    with store.use("w2"), pytest.raises(Busy, match="other players"):
        store.add("w3", "W3", "w")  # w's only game is in use: a refusal, not another client's game
    with pytest.raises(Busy, match="other players"):
        store.add("v1", "V1", "v")  # a new client with the server full of others' games: refused
    assert [store.get(k) for k in ("x", "y", "z", "w2")] == ["X", "Y", "Z", "W2"]
    now[0] = 500  # untouched for longer than `idle`: abandoned games end, whoever asks
    store.add("v1", "V1", "v")
    assert len(store) == 1


def test_a_new_game_over_http_never_evicts_another_clients(tmp_path: Path) -> None:
    """Over HTTP the client is the remote address: with the server full of one address's games, another
    address's new game is refused with a one-line 503 and the first address keeps all of its games."""
    app = create_app(tmp_path)
    app.state.games["suntzu"].capacity = 3
    first = TestClient(app, base_url=BASE, client=("192.0.2.1", 50000))
    second = TestClient(app, base_url=BASE, client=("192.0.2.2", 50000))
    ids = [first.post("/api/games", json={"agent": "random", "seat": "blue"}).json()["view"]["game"]["id"]
           for _ in range(3)]  # fmt: skip
    refused = second.post("/api/games", json={"agent": "random", "seat": "blue"})
    assert refused.status_code == 503 and "other players" in _error(refused)
    assert all(first.get(f"/api/games/{game_id}").status_code == 200 for game_id in ids)


def test_store_caps_each_client() -> None:
    store: Store[str] = Store(capacity=10, per_client=2)
    store.add("x1", "X1", "x")
    store.add("y1", "Y1", "y")
    store.add("x2", "X2", "x")
    store.add("x3", "X3", "x")  # x's third: x's own least recently used goes, not y's
    assert store.get("x1") is None and [store.get(k) for k in ("y1", "x2", "x3")] == ["Y1", "X2", "X3"]
    with store.use("x2"), store.use("x3"), pytest.raises(Busy):
        store.add("x4", "X4", "x")
    assert len(store) == 3


# ---------------------------------------------------------------- many players, one server


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[str]:
    with serve(create_app(tmp_path)) as url:
        yield url


class _HeldSearch:
    """An agent that, like a long search, does not answer until the test lets it: `thinking` is set while
    it holds, `answer` lets it go (it then plays as `random`)."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.thinking, self.answer = agent, threading.Event(), threading.Event()

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: Any, action_mask: Any) -> int:
        self.thinking.set()
        assert self.answer.wait(120), "the test never let the search answer"
        return int(self.agent.act(observation, action_mask))


class _HeldMenu(AgentMenu):
    """The default agents, where `ismcts:<n>` is a `_HeldSearch`."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[_HeldSearch] = []

    def make(self, spec: object, seed: int | None = None) -> Any:
        if self.check(spec).startswith("ismcts:"):
            self.held.append(_HeldSearch(super().make("random", seed)))
            return self.held[-1]
        return super().make(spec, seed)


def _call(url: str, body: Any = None, timeout: float = 120) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_fifty_players_at_once_lose_no_game(served: str) -> None:
    moves, failures = 12, []

    def player(k: int) -> None:
        rng = random.Random(k)
        status, body = _call(f"{served}/api/games", {"agent": "random", "seat": ("blue", "red")[k % 2]})
        if status != 200:
            failures.append((k, status, body))
            return
        game_id = body["view"]["game"]["id"]
        for _ in range(moves):
            view = body["view"]
            if view["decision"] is None:
                break
            action = rng.choice(view["decision"]["actions"])["action"]
            status, body = _call(f"{served}/api/games/{game_id}/actions", {"action": action})
            if status != 200:
                failures.append((k, status, body))
                return
        status, _ = _call(f"{served}/api/games/{game_id}")
        if status != 200:
            failures.append((k, status, "lost"))

    threads = [threading.Thread(target=player, args=(k,)) for k in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not failures, failures[:3]


def test_a_maximal_search_does_not_hold_up_another_player(tmp_path: Path) -> None:
    """While the agent of one game is searching (held until the test lets it answer, so no timing is
    involved), another player's requests are answered."""
    menu = _HeldMenu()
    with serve(create_app(tmp_path, menus={"suntzu": menu})) as served:
        status, body = _call(f"{served}/api/games", {"agent": "random", "seat": "blue"})
        assert status == 200
        other = body["view"]["game"]["id"]
        answered: list[int] = []

        def search() -> None:  # red: the person; blue, the agent, picks its warlord and places five cards
            spec = f"ismcts:{MAX_SEARCH_ITERATIONS}"
            answered.append(_call(f"{served}/api/games", {"agent": spec, "seat": "red"})[0])

        thread = threading.Thread(target=search)
        thread.start()
        try:
            assert _wait_for(lambda: bool(menu.held) and menu.held[0].thinking.is_set()), "the search never started"
            for _ in range(3):
                assert _call(f"{served}/api/games/{other}", timeout=30)[0] == 200
                assert _call(f"{served}/api/options", timeout=30)[0] == 200
            assert not answered, "the searching game answered before it was let go"
        finally:
            for held in menu.held:
                held.answer.set()
            thread.join(120)
        assert answered == [200]


def _wait_for(condition: Any, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.slow  # two servers started as a user starts them
def test_the_play_command_line_ignores_a_taken_default_port(tmp_path: Path) -> None:
    """Checks of the flags come before the port's: with port 8765 taken, each error is still its own."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8765))
        held.listen()
    except OSError:
        pass  # already taken by another process: the same situation
    try:
        for args, words in (
            (["--agent", "ppo:/nonexistent"], "no PPO model at /nonexistent"),
            (["--results", str(tmp_path / "nowhere")], f"--results {tmp_path / 'nowhere'} is not an evaluation's"),
            (["--replay", str(tmp_path / "none.json")], f"--replay {tmp_path / 'none.json'}"),
            (["--text", "--save", "/proc/nope/g.json"], "--save /proc/nope/g.json: the folder /proc/nope does not"),
            (["--models", str(tmp_path / "none")], "is not a folder"),
        ):
            out = subprocess.run([sys.executable, "-m", "suntzu_env.play", "--no-browser", *args], capture_output=True,
                                 text=True, cwd=root, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
            assert out.returncode == 2 and words in out.stderr, out.stderr
            assert len(out.stderr.strip().splitlines()) == 1 and not out.stdout, out.stderr
    finally:
        held.close()


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--host", "256.1.1.1"], "--host 256.1.1.1 is not an address of this machine"),
        (["--host", "256.1.1.1", "--port", "0"], "--host 256.1.1.1 is not an address of this machine"),
        (["--host", "192.0.2.1", "--port", "0"], "--host 192.0.2.1 is not an address of this machine"),
        (["--host", "no-such-host.invalid"], "--host no-such-host.invalid is not an address of this machine"),
    ],
)
def test_a_host_not_on_this_machine_is_named_in_one_line(flags: list[str], words: str) -> None:
    """An address the server cannot bind is said to be one, with what is allowed, whatever the port."""
    err = _refused_in_one_line(flags)
    assert words in err and "127.0.0.1" in err, err


def test_a_taken_port_is_named_in_one_line() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        err = _refused_in_one_line(["--port", str(port)])
    assert f"port {port} on 127.0.0.1 is in use" in err, err


def _refused_in_one_line(flags: list[str]) -> str:
    """`python -m suntzu_env.play --no-browser <flags>`'s one line of error, checked to be only that."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "suntzu_env.play", "--no-browser", *flags], capture_output=True,
                         text=True, cwd=root, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and not out.stdout, out.stderr
    return out.stderr


def test_ctrl_c_in_the_terminal_prints_one_line() -> None:
    """--text: Ctrl+C at a prompt abandons the game with one line on stderr, no traceback."""
    import os
    import signal
    import subprocess
    import sys

    root, pipe = Path(__file__).resolve().parents[2], subprocess.PIPE
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "suntzu_env.play", "--text", "--seed", "1"]

    def hear_ctrl_c() -> None:  # a shell's background job ignores SIGINT, and its children inherit that
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(command, cwd=root, env=env, stdin=pipe, stdout=pipe, stderr=pipe, text=True,
                            preexec_fn=hear_ctrl_c)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stderr is not None
        while "Choose your warlord" not in proc.stdout.readline():
            assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130
    finally:
        proc.kill()
    assert err.strip() == "interrupted: the game is abandoned", err
