"""The web app: FastAPI routes over `LiveGame`, `Replay` and results folders, and the static page.

| route                              | what                                                              |
|------------------------------------|-------------------------------------------------------------------|
| `GET /`, `/play/<id>`, `/replay`   | the page (plain HTML, SVG and JavaScript from `static/`)          |
| `GET /api/options`                 | agents, seats, variants and the defaults of the new-game form     |
| `GET /api/rules`                   | the rule of every card, warlord, event and battle outcome (`explain`) |
| `GET /rules`                       | the full rules: the source checkout's docs/rules.md               |
| `GET /favicon.ico`                 | the page's icon                                                   |
| `POST /api/games`                  | a new game: `{agent, seat, variant, events, seed?}`               |
| `GET /api/games/<id>`              | the person's view of it                                           |
| `POST /api/games/<id>/actions`     | `{action}`: the person's answer; the views up to its next decision |
| `GET /api/games/<id>/record`       | the game's record (R11), once it is over                          |
| `POST /api/replays`                | a record file's text: a replay to step through                    |
| `GET /api/replays/<id>`            | `?view=blue|red|full&step=N`: one step (`&frame=F`: the step showing frame F) |
| `GET /api/results`                 | `?path=<folder>`: an evaluation's games, and the page they replay in |
| `POST /api/replays/results`        | `{path, game}`: a replay of one of them                           |
| `GET /binfa`, `/binfa/play/<id>`, `/binfa/replay[/<id>]` | Bin'Fa's page (`static/binfa.html`)            |
| `GET /api/binfa/options`, `/api/binfa/board` | its new-game form; the board's drawing                  |
| `POST /api/binfa/games`            | a new Bin'Fa game: `{agent, seats, players?, level?, seed?, max_turns?}` |
| `GET /api/binfa/games/<id>`, `POST .../actions`, `GET .../record` | as for Sun Tzu (`suntzu_env.play.binfa`) |
| `POST /api/binfa/games/<id>/actions` with `times` | `{action: "deploy:<triangle>", times}`: that many units there |
| `POST /api/binfa/replays`, `GET /api/binfa/replays/<id>?step=N` | a Bin'Fa record to step through       |
| `POST /api/binfa/replays/results`  | `{path, game}`: a replay of a Bin'Fa results folder's game        |

Bad input gets status 400 (404 for an unknown id) and `{"error": "..."}`, one line naming what was wrong
(paths relative to the folders the app serves); it changes nothing.

The app serves only what its command line allows, to its own origin: the agents of its `AgentMenu`, results
folders under `root`, replayed from their records only. It refuses a request whose `Host` is not the address it
is bound to (a page of another site reaching it through DNS rebinding), whose `Origin` is another site's, or
a body that is not `application/json` or exceeds `MAX_BODY` (counted while it is read). Agents think in worker
threads, never on the event loop, so one slow request does not delay another player's; a Sun Tzu game's
answers are paced so that their time tells nothing of the agent's secret warlord (`LiveGame`). A client
(remote address) never loses a game or replay to another's: a full `Store` refuses instead. Every response forbids
framing and loads nothing but the app's own files (`SECURITY_HEADERS`).
"""

from __future__ import annotations

import functools
import ipaddress
import json
from collections.abc import Awaitable, Callable
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from suntzu_env.core.games import DEFAULT as DEFAULT_GAME
from suntzu_env.play.explain import RULES_DOC, glossary
from suntzu_env.play.results import game_record, list_games, resolve
from suntzu_env.play.sessions import VIEW_MODES, AgentMenu, Busy, LiveGame, Replay, Store, T
from suntzu_env.suntzu.rules import SEATS, VARIANTS

if TYPE_CHECKING:
    from suntzu_env.play.binfa import BinFaGame, BinFaMenu, BinFaReplay

STATIC = Path(str(files("suntzu_env.play") / "static"))
MAX_BODY = 4 * 2**20  # bytes: a record is a few kilobytes
RULES_FILE = STATIC.parents[2] / RULES_DOC  # the source checkout's docs/rules.md (absent from a built wheel)
MAX_REPLAYS_PER_CLIENT = 16
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
SAME_SITE = ("same-origin", "none")  # Sec-Fetch-Site of the app's own requests and of a typed address
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class BadInput(Exception):
    """A request the app refuses: its status and message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def one_line(text: str, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def host_allowed(header: str, bound: str, port: int | None) -> bool:
    """Whether a `Host` header names the address the app is bound to (any IP literal when bound to every
    interface: a DNS name is never needed there, and refusing names defeats DNS rebinding)."""
    try:
        parts = urlsplit("//" + header)
        name, given = (parts.hostname or ""), parts.port
    except ValueError:
        return False
    if not name or (port is not None and (given or 80) != port):
        return False
    bound = bound.strip("[]").lower()
    if name == bound or (bound in LOOPBACK_NAMES and name in LOOPBACK_NAMES):
        return True
    if bound in WILDCARDS:
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return name == "localhost"
        return True
    return False


async def _json_body(request: Request, what: str = "request") -> Any:
    """The body as JSON, read up to MAX_BODY bytes (a longer body is refused as soon as it passes that)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BadInput(f"the {what} is over {MAX_BODY} bytes, the most that is read", 413)
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except RecursionError:
        raise BadInput(f"the {what} is nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise BadInput(f"the {what} is not JSON: {one_line(str(error), 120)}") from None


def _object(body: Any, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadInput(f"expected a JSON object with keys {', '.join(keys)}")
    for key in keys:
        if key not in body:
            raise BadInput(f"missing key {key!r}")
    for key in body:
        if key not in keys and key not in optional:
            raise BadInput(f"unknown key {key[:40]!r}; expected {', '.join(keys + optional)}")
    return body


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def _binfa() -> Any:
    """`suntzu_env.play.binfa`, imported on first use: a Sun Tzu server never loads Bin'Fa's engine."""
    from suntzu_env.play import binfa

    return binfa


def viewer_of(game_name: str) -> str:
    """The page that replays a game of `game_name`: `/replay` for the default game, `/<name>/replay` for another."""
    return "/replay" if game_name == DEFAULT_GAME else f"/{game_name}/replay"


def _missing(what: str, key: str) -> BadInput:
    return BadInput(f"no {what} {key[:40]!r} on this server (it may have been restarted)", 404)


def _held(store: Store[T], key: str, what: str) -> T:
    item = store.get(key)
    if item is None:
        raise _missing(what, key)
    return item


async def _answer(
    store: Store[Any], game_id: str, request: Request, what: str, optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A person's answer (`{"action": ...}`, and the keys of `optional` its game's `act` takes) to a game of
    `store`, held meanwhile: never dropped while its agents answer."""
    with store.use(game_id) as game:
        if game is None:
            raise _missing(what, game_id)
        body = _object(await _json_body(request), ("action",), optional)
        return await run_in_threadpool(lambda: game.act(**body))


def _record(store: Store[Any], game_id: str, what: str) -> Any:
    """A game's record, refused (409) while it may not be given (before the end)."""
    try:
        return _held(store, game_id, what).record()
    except PermissionError as error:
        raise BadInput(str(error), 409) from None


def create_app(
    root: str | Path = ".",
    defaults: dict[str, Any] | None = None,
    agents: AgentMenu | None = None,
    host: str = "127.0.0.1",
    binfa_defaults: dict[str, Any] | None = None,
    binfa_agents: BinFaMenu | None = None,
) -> FastAPI:
    """The app; `root` is the folder under which results folders may be opened, `agents` the agents it plays
    (default: the scripted ones and `ismcts`), `host` the address it is bound to (checked against `Host`),
    `binfa_defaults` those of Bin'Fa's new-game form (`agent`, `players`, `level`, `seats`, `seed`), `binfa_agents`
    the agents its Bin'Fa page may play (default: the compiled ones; `suntzu_env.play.binfa.BinFaMenu`)."""
    app = FastAPI(title="Sun Tzu", docs_url=None, redoc_url=None, openapi_url=None)
    games: Store[LiveGame] = Store()
    replays: Store[Replay] = Store(capacity=64, per_client=MAX_REPLAYS_PER_CLIENT)
    menu = agents if agents is not None else AgentMenu()
    root = Path(root).resolve()
    form = {"agent": "random", "seat": "blue", "variant": "standard", "events": False, **(defaults or {})}
    app.state.games, app.state.replays, app.state.root, app.state.agents = games, replays, root, menu
    binfa_games: Store[BinFaGame] = Store()  # held as Sun Tzu's games and replays are
    binfa_replays: Store[BinFaReplay] = Store(capacity=64, per_client=MAX_REPLAYS_PER_CLIENT)
    binfa_form = {"agent": "random", "players": 2, "level": 1, "seats": [0], "seed": None, **(binfa_defaults or {})}
    app.state.binfa_games, app.state.binfa_replays = binfa_games, binfa_replays

    @functools.cache
    def binfa_menu() -> Any:
        """The agents Bin'Fa's page offers: those given, else the compiled ones (the engine loads on first use)."""
        return binfa_agents if binfa_agents is not None else _binfa().BinFaMenu()

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        server = request.scope.get("server")
        port = int(server[1]) if server and server[1] is not None else None
        headers = request.headers
        refusal = None
        if not host_allowed(headers.get("host", ""), host, port):
            refusal = "this server answers only requests addressed to it by its own address (Host)", 421
        elif "origin" in headers and headers["origin"] != f"http://{headers.get('host', '')}":
            refusal = "requests from another site's pages are refused (Origin)", 403
        elif request.url.path.startswith("/api/") and headers.get("sec-fetch-site", "none") not in SAME_SITE:
            refusal = "requests from another site's pages are refused (Sec-Fetch-Site)", 403
        elif request.method not in ("GET", "HEAD", "POST"):
            refusal = f"method {request.method[:10]} is not served", 405
        elif request.method == "POST" and headers.get("content-type", "").split(";")[0].strip() != "application/json":
            refusal = "a request's body must be application/json", 415
        elif not headers.get("content-length", "0").isascii() or not headers.get("content-length", "0").isdigit():
            refusal = "bad Content-Length", 400
        elif int(headers.get("content-length", "0")) > MAX_BODY:
            refusal = f"the request is over {MAX_BODY} bytes, the most that is read", 413
        if refusal is not None:
            response: Response = JSONResponse({"error": refusal[0]}, status_code=refusal[1])
        else:
            response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.exception_handler(BadInput)
    async def bad_input(_: Request, error: BadInput) -> JSONResponse:
        return JSONResponse({"error": one_line(str(error))}, status_code=error.status)

    @app.exception_handler(ValueError)
    async def value_error(_: Request, error: ValueError) -> JSONResponse:
        return JSONResponse({"error": one_line(str(error))}, status_code=400)

    @app.exception_handler(RecursionError)
    async def too_deep(_: Request, error: RecursionError) -> JSONResponse:
        return JSONResponse({"error": "the input is nested too deeply"}, status_code=400)

    @app.exception_handler(Exception)
    async def failure(_: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": f"the server failed ({type(error).__name__})"}, status_code=500)

    @app.exception_handler(Busy)
    async def busy(_: Request, error: Busy) -> JSONResponse:
        return JSONResponse({"error": one_line(f"no room for another one: {error}; try again later")}, status_code=503)

    def game_of(game_id: str) -> LiveGame:
        return _held(games, game_id, "game")

    def replay_of(replay_id: str) -> Replay:
        return _held(replays, replay_id, "replay")

    page = STATIC / "index.html"
    for path in ("/", "/play/{game_id}", "/replay", "/replay/{replay_id}", "/results"):
        app.add_api_route(path, lambda: FileResponse(page), methods=["GET"], include_in_schema=False)
    binfa_page = STATIC / "binfa.html"
    for path in ("/binfa", "/binfa/play/{game_id}", "/binfa/replay", "/binfa/replay/{replay_id}"):
        app.add_api_route(path, lambda: FileResponse(binfa_page), methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/rules")
    def rules() -> dict[str, Any]:
        return glossary()

    @app.get("/rules", include_in_schema=False)
    def rules_doc() -> PlainTextResponse:
        if not RULES_FILE.is_file():
            raise BadInput(f"the full rules are {RULES_DOC} in the project's source, not installed here", 404)
        return PlainTextResponse(RULES_FILE.read_text(encoding="utf-8"))

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {
            "agents": menu.names(),
            "models": menu.models,
            "ppo_prefix": "ppo:",
            "seats": list(SEATS),
            "variants": list(VARIANTS),
            "defaults": form,
        }

    @app.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        body = _object(await _json_body(request), ("agent", "seat"), ("variant", "events", "seed"))
        spec = menu.check(body["agent"])  # before anything is built: refused specs touch nothing

        def start() -> LiveGame:
            player = menu.make(spec)
            return LiveGame(spec, body["seat"], body.get("variant", "standard"), body.get("events", False),
                            body.get("seed"), player=player)  # fmt: skip

        game = await run_in_threadpool(start)
        games.add(game.id, game, _client(request))
        return {"view": game.view(), "frames": []}

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> dict[str, Any]:
        return {"view": game_of(game_id).view()}

    @app.post("/api/games/{game_id}/actions")
    async def act(game_id: str, request: Request) -> dict[str, Any]:
        return await _answer(games, game_id, request, "game")

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> Any:
        return _record(games, game_id, "game")

    @app.post("/api/replays")
    async def new_replay(request: Request, title: str = "game record") -> dict[str, Any]:
        body = await _json_body(request, "file")
        replay = await run_in_threadpool(Replay, body, title[:200])
        replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(replay.view, "full", 0)

    @app.get("/api/replays/{replay_id}")
    def replay_step(replay_id: str, view: str = "full", step: str = "0", frame: str | None = None) -> dict[str, Any]:
        replay = replay_of(replay_id)
        if view not in VIEW_MODES:
            raise BadInput(f"view must be one of {', '.join(VIEW_MODES)}, got {view[:40]!r}")
        if frame is not None:  # another view of the same moment: the step showing that frame
            if not (frame.isascii() and frame.isdigit() and len(frame) < 10):
                raise BadInput(f"frame must be a whole number, got {frame[:40]!r}")
            return replay.view(view, replay.step_at(view, int(frame)))
        if step == "last":
            return replay.view(view, len(replay.steps(view)) - 1)
        if not (step.isascii() and step.isdigit() and len(step) < 10):
            raise BadInput(f"step must be a whole number or 'last', got {step[:40]!r}")
        return replay.view(view, int(step))

    @app.get("/api/results")
    def results(path: str = "") -> dict[str, Any]:
        folder = resolve(root, path)
        listing = list_games(folder, path)
        return {"path": path, **listing, "viewer": viewer_of(listing["game_name"])}

    async def results_record(request: Request, page_of: str) -> tuple[dict[str, Any], str]:
        """The record and title of a results folder's game (`{path, game}`), refused when the folder's game is
        not the one of the page asking (`page_of`, a game's name)."""
        body = _object(await _json_body(request), ("path", "game"))
        name, record, title = await run_in_threadpool(
            game_record, resolve(root, body["path"]), body["game"], body["path"]
        )
        if name != page_of:
            raise BadInput(f"results: {body['path']!r:.80} holds games of {name}: open them at "
                           f"{viewer_of(name)}?results=<folder>&game=<row>")  # fmt: skip
        return record, title

    @app.post("/api/replays/results")
    async def results_replay(request: Request) -> dict[str, Any]:
        record, title = await results_record(request, DEFAULT_GAME)
        replay = await run_in_threadpool(Replay, record, title)
        replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(replay.view, "full", 0)

    @app.post("/api/binfa/replays/results")
    async def binfa_results_replay(request: Request) -> dict[str, Any]:
        record, title = await results_record(request, "binfa")
        replay = await run_in_threadpool(lambda: _binfa().BinFaReplay(record, title))
        binfa_replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(replay.view, 0)

    # ---------------------------------------------------------------- Bin'Fa
    @app.get("/api/binfa/options")
    async def binfa_options() -> dict[str, Any]:
        binfa = await run_in_threadpool(_binfa)
        return {"agents": binfa_menu().names(), "players": list(binfa.PLAYERS), "levels": list(binfa.LEVELS),
                "defaults": binfa_form}  # fmt: skip

    @app.get("/api/binfa/board")
    async def binfa_board() -> dict[str, Any]:
        return (await run_in_threadpool(_binfa)).board()  # type: ignore[no-any-return]

    @app.post("/api/binfa/games")
    async def binfa_new_game(request: Request) -> dict[str, Any]:
        body = _object(await _json_body(request), ("agent", "seats"), ("players", "level", "seed", "max_turns"))

        def start() -> BinFaGame:
            binfa = _binfa()
            return binfa.BinFaGame(body["agent"], body["seats"], body.get("players", 2), body.get("level", 1),
                                   body.get("seed"), body.get("max_turns", binfa.MAX_TURNS), binfa_menu())  # fmt: skip

        game = await run_in_threadpool(start)
        binfa_games.add(game.id, game, _client(request))
        return {"view": game.view(), "played": []}

    @app.get("/api/binfa/games/{game_id}")
    def binfa_get_game(game_id: str) -> dict[str, Any]:
        return {"view": _held(binfa_games, game_id, "Bin'Fa game").view()}

    @app.post("/api/binfa/games/{game_id}/actions")
    async def binfa_act(game_id: str, request: Request) -> dict[str, Any]:
        return await _answer(binfa_games, game_id, request, "Bin'Fa game", ("times",))

    @app.get("/api/binfa/games/{game_id}/record")
    def binfa_record(game_id: str) -> Any:
        return _record(binfa_games, game_id, "Bin'Fa game")

    @app.post("/api/binfa/replays")
    async def binfa_new_replay(request: Request, title: str = "game record") -> dict[str, Any]:
        body = await _json_body(request, "file")
        replay = await run_in_threadpool(lambda: _binfa().BinFaReplay(body, title[:200]))
        binfa_replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(replay.view, 0)

    @app.get("/api/binfa/replays/{replay_id}")
    def binfa_replay_step(replay_id: str, step: str = "0") -> dict[str, Any]:
        replay = _held(binfa_replays, replay_id, "Bin'Fa replay")
        if step == "last":
            return replay.view(replay.steps - 1)
        if not (step.isascii() and step.isdigit() and len(step) < 10):
            raise BadInput(f"step must be a whole number or 'last', got {step[:40]!r}")
        return replay.view(int(step))

    return app
