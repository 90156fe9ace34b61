"""The web app: the same FastAPI routes for every registered game, and the page.

A game `g` is served under its name (`/g`, `/api/g/...`); the registry's default game (`core.games.DEFAULT`) at
the root (`/`, `/api/...`). What is the game's own comes from its face (`suntzu_env.play.face.WebFace`, named
by its plug-in's `web`, in its own folder; a game without one is replayed as its text: `textface`), loaded when a
request first asks for that game (`GET /api/games` reads each plug-in for its title), so a server never loads the
face or the compiled code of a game nobody opens.

| route (`P`: `` or `/<game>`)        | what                                                              |
|-------------------------------------|-------------------------------------------------------------------|
| `GET P/`, `P/play/<id>`, `P/replay[/<id>]` | the page: the shared shell (`static/shell.html`), the game's parts |
| `GET /results`                      | an evaluation's results folder, its games listed (any game's)      |
| `GET /static/...`, `/static/<game>/...` | the shared page code (`static/`), each game's own (its `static/`) |
| `GET /favicon.ico`                  | the page's icon                                                   |
| `GET /api/games`                    | the games served: name, title, page                               |
| `GET /apiP/options`                 | the new-game form: agents, the game's choices, the defaults       |
| `POST /apiP/games`                  | a new game (the keys of the game's form); the person's view       |
| `GET /apiP/games/<id>`              | the person's view of it                                           |
| `POST /apiP/games/<id>/actions`     | `{action}` (and the game's further keys): the views up to the next decision |
| `GET /apiP/games/<id>/record`       | the game's record, once it is over                                |
| `POST /apiP/replays`                | a record file's text: a replay to step through                    |
| `GET /apiP/replays/<id>`            | `?step=N|last` (Sun Tzu also `view=blue|red|full`, `frame=F`): one step |
| `POST /apiP/replays/results`        | `{path, game}`: a replay of one game of a results folder of this game |
| `GET /api/results`                  | `?path=<folder>`: an evaluation's games, and the page they replay in |
| `GET /apiP/<name>`, `GET P/<name>`  | the game's further JSON and text pages (`WebFace.extras`, `documents`) |

Bad input gets status 400 (404 for an unknown id) and `{"error": "..."}`, one line naming what was wrong
(paths relative to the folders the app serves); it changes nothing.

The app serves only what its command line allows, to its own origin: the agents of each game's menu, results
folders under `root`, replayed from their records only. It refuses a request whose `Host` is not the address it
is bound to (a page of another site reaching it through DNS rebinding), whose `Origin` is another site's, or
a body that is not `application/json` or exceeds `MAX_BODY` (counted while it is read). Agents think in worker
threads, never on the event loop, so one slow request does not delay another player's; a game whose agents hold
secrets paces its own answers (Sun Tzu's `LiveGame`). A client (remote address) never loses a game or replay to
another's: a full `Store` refuses instead. Every response forbids framing and loads nothing but the app's own files
(`SECURITY_HEADERS`).
"""

from __future__ import annotations

import functools
import html
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from suntzu_env.core import games as registry
from suntzu_env.play.face import WebFace
from suntzu_env.play.games import SERVED_NAME, face_of, prefix_of, title_of
from suntzu_env.play.results import game_record, list_games, resolve
from suntzu_env.play.store import Busy, Store, T

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 4 * 2**20  # bytes: a record is a few kilobytes
MAX_REPLAYS_PER_CLIENT = 16
PARTS = ("intro", "form", "watch", "watch_more", "home", "board", "replay", "side")  # a game's parts of the page
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


def viewer_of(game_name: str) -> str:
    """The page that replays a game of `game_name`: `/replay` for the default game, `/<name>/replay` for another."""
    return f"{prefix_of(game_name)}/replay"


def _missing(what: str, key: str) -> BadInput:
    return BadInput(f"no {what} {key[:40]!r} on this server (it may have been restarted)", 404)


def _held(store: Store[T], key: str, what: str) -> T:
    item = store.get(key)
    if item is None:
        raise _missing(what, key)
    return item


@dataclass
class Served:
    """One game as the app serves it: its games and replays, and its face, menu and form, made on first use."""

    name: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    given_menu: Any = None
    games: Store[Any] = field(default_factory=Store)
    replays: Store[Any] = field(default_factory=lambda: Store(capacity=64, per_client=MAX_REPLAYS_PER_CLIENT))

    @property
    def prefix(self) -> str:
        return prefix_of(self.name)

    @functools.cached_property
    def face(self) -> WebFace:
        return face_of(self.name)

    @functools.cached_property
    def menu(self) -> Any:
        return self.given_menu if self.given_menu is not None else self.face.menu([], [])

    @functools.cached_property
    def form(self) -> dict[str, Any]:
        return {**self.face.form_defaults(), **self.defaults}

    def page(self) -> str:
        """The page: the shared shell around the game's own parts, its script and stylesheet."""
        face, parts = self.face, self.face.parts()
        nav = [f'<a href="{self.prefix or "/"}" id="nav-new">New game</a>'] if face.live else []
        nav.append(f'<a href="{self.prefix}/replay" id="nav-replay">Replays</a>')
        for other in registry.names():
            if other != self.name and SERVED_NAME.fullmatch(other):
                nav.append(f'<a href="{prefix_of(other) or "/"}" id="nav-{other}">{html.escape(title_of(other))}</a>')
        own = f"/static/{self.name}/"
        filled = {
            "title": html.escape(face.title),
            "game": self.name,
            "root": self.prefix,
            "home_path": self.prefix or "/",
            "api": f"/api{self.prefix}",
            "nav": "\n      ".join(nav),
            "style": f'<link rel="stylesheet" href="{own}{face.style}">' if face.style else "",
            "script": f'<script src="{own}{face.script}"></script>' if face.script else "",
            "not_live": "" if face.live else " hidden",
            **{part: parts.get(part, "") for part in PARTS},
        }
        return re.sub(r"\{\{(\w+)\}\}", lambda m: filled[m.group(1)], (STATIC / "shell.html").read_text("utf-8"))


async def _answer(store: Store[Any], game_id: str, request: Request, optional: tuple[str, ...]) -> dict[str, Any]:
    """A person's answer (`{"action": ...}`, and the keys of `optional` its game's `act` takes) to a game of
    `store`, held meanwhile: never dropped while its agents answer."""
    with store.use(game_id) as game:
        if game is None:
            raise _missing("game", game_id)
        body = _object(await _json_body(request), ("action",), optional)
        return await run_in_threadpool(lambda: game.act(**body))  # type: ignore[no-any-return]


def _record(store: Store[Any], game_id: str) -> Any:
    """A game's record, refused (409) while it may not be given (before the end)."""
    try:
        return _held(store, game_id, "game").record()
    except PermissionError as error:
        raise BadInput(str(error), 409) from None


def create_app(
    root: str | Path = ".",
    defaults: Mapping[str, Mapping[str, Any]] | None = None,
    menus: Mapping[str, Any] | None = None,
    host: str = "127.0.0.1",
    games: Sequence[str] | None = None,
) -> FastAPI:
    """The app; `root` is the folder under which results folders may be opened, `defaults` each game's new-game
    form (by game name; unnamed fields: its face's `form_defaults`), `menus` the agents each game's page may play
    (default: its face's `menu` with no model), `host` the address it is bound to (checked against `Host`), `games`
    the games served (default: every registered one whose name can be a path)."""
    app = FastAPI(title="suntzu_env", docs_url=None, redoc_url=None, openapi_url=None)
    root = Path(root).resolve()
    names = [name for name in (games if games is not None else registry.names()) if SERVED_NAME.fullmatch(name)]
    served = {name: Served(name, (defaults or {}).get(name, {}), (menus or {}).get(name)) for name in names}
    app.state.served, app.state.root = served, root
    app.state.games = {name: s.games for name, s in served.items()}
    app.state.replays = {name: s.replays for name, s in served.items()}

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

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/games")
    async def served_games() -> list[dict[str, str]]:
        """The games served, each by its title (its plug-in read, in a worker thread: no face, no compiled code)."""
        titles = await run_in_threadpool(lambda: {name: title_of(name, load=True) for name in served})
        return [{"name": name, "title": titles[name], "page": prefix_of(name) or "/"} for name in served]

    @app.get("/api/results")
    def results(path: str = "") -> dict[str, Any]:
        folder = resolve(root, path)
        listing = list_games(folder, path)
        name = listing["game_name"]
        return {"path": path, **listing, "viewer": viewer_of(name), "game_title": title_of(name),
                "default_game": registry.DEFAULT}  # fmt: skip

    @app.get("/static/{game}/{name}", include_in_schema=False)
    async def game_file(game: str, name: str) -> FileResponse:
        """A file of a game's own page code (its face's `static` folder), by its plain name."""
        face = (await run_in_threadpool(lambda: served[game].face)) if game in served else None
        folder = face.static if face is not None else None
        if folder is None or not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,80}", name) or name == "page.html":
            raise BadInput(f"no file {name[:40]!r} of game {game[:40]!r}", 404)
        path = folder / name
        if not path.is_file():
            raise BadInput(f"no file {name[:40]!r} of game {game[:40]!r}", 404)
        return FileResponse(path)

    for game in served.values():
        _game_routes(app, game, root)
    if registry.DEFAULT in served:
        default = served[registry.DEFAULT]

        async def results_page() -> HTMLResponse:
            return HTMLResponse(await run_in_threadpool(default.page))

        app.add_api_route("/results", results_page, methods=["GET"], include_in_schema=False)
    for game in served.values():
        _further_routes(app, game)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _game_routes(app: FastAPI, game: Served, root: Path) -> None:
    """The page and the API of one game, under its prefix."""
    p, api = game.prefix, f"/api{game.prefix}"

    async def face() -> WebFace:
        return await run_in_threadpool(lambda: game.face)  # its modules load on first use

    async def page() -> HTMLResponse:
        return HTMLResponse(await run_in_threadpool(game.page))

    for path in (p or "/", f"{p}/play/{{game_id}}", f"{p}/replay", f"{p}/replay/{{replay_id}}"):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    async def options() -> dict[str, Any]:
        shown = await face()
        return await run_in_threadpool(lambda: shown.options(game.menu, game.form))

    async def new_game(request: Request) -> dict[str, Any]:
        shown = await face()
        if not shown.live:
            raise BadInput(f"{shown.title} is only replayed here, not played", 404)
        body = _object(await _json_body(request), shown.game_keys, shown.game_optional)
        started = await run_in_threadpool(lambda: shown.new_game(body, game.menu))
        game.games.add(started.id, started, _client(request))
        return shown.started(started)

    def get_game(game_id: str) -> dict[str, Any]:
        return {"view": _held(game.games, game_id, "game").view()}

    async def act(game_id: str, request: Request) -> dict[str, Any]:
        return await _answer(game.games, game_id, request, (await face()).action_optional)

    def record(game_id: str) -> Any:
        return _record(game.games, game_id)

    async def new_replay(request: Request, title: str = "game record") -> dict[str, Any]:
        shown = await face()
        body = await _json_body(request, "file")
        replay = await run_in_threadpool(lambda: shown.replay(body, title[:200]))
        game.replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(lambda: shown.first_view(replay))

    async def replay_step(replay_id: str, request: Request) -> dict[str, Any]:
        shown = await face()
        replay = _held(game.replays, replay_id, "replay")
        query = dict(request.query_params)
        return await run_in_threadpool(lambda: shown.replay_view(replay, query))

    async def results_replay(request: Request) -> dict[str, Any]:
        """A replay of a results folder's game (`{path, game}`), refused when the folder holds another game's."""
        shown = await face()
        body = _object(await _json_body(request), ("path", "game"))
        name, record, title = await run_in_threadpool(
            game_record, resolve(root, body["path"]), body["game"], body["path"]
        )
        if name != game.name:
            raise BadInput(f"results: {body['path']!r:.80} holds games of {name}: open them at "
                           f"{viewer_of(name)}?results=<folder>&game=<row>")  # fmt: skip
        replay = await run_in_threadpool(lambda: shown.replay(record, title))
        game.replays.add(replay.id, replay, _client(request))
        return await run_in_threadpool(lambda: shown.first_view(replay))

    app.add_api_route(f"{api}/options", options, methods=["GET"])
    app.add_api_route(f"{api}/games", new_game, methods=["POST"])
    app.add_api_route(f"{api}/games/{{game_id}}", get_game, methods=["GET"])
    app.add_api_route(f"{api}/games/{{game_id}}/actions", act, methods=["POST"])
    app.add_api_route(f"{api}/games/{{game_id}}/record", record, methods=["GET"])
    app.add_api_route(f"{api}/replays", new_replay, methods=["POST"])
    app.add_api_route(f"{api}/replays/results", results_replay, methods=["POST"])
    app.add_api_route(f"{api}/replays/{{replay_id}}", replay_step, methods=["GET"])


def _further_routes(app: FastAPI, game: Served) -> None:
    """A game's further JSON (`GET /api<P>/<name>`) and text pages (`GET <P>/<name>`), after every fixed route."""

    async def extra(what: str) -> Any:
        shown = await run_in_threadpool(lambda: game.face)
        answer = shown.extras().get(what)
        if answer is None:
            raise BadInput(f"no {what[:40]!r} here", 404)
        return await run_in_threadpool(answer)

    async def document(what: str) -> PlainTextResponse:
        shown = await run_in_threadpool(lambda: game.face)
        text = shown.documents().get(what)
        if text is None:
            raise BadInput(f"no page {what[:40]!r} here", 404)
        try:
            return PlainTextResponse(await run_in_threadpool(text))
        except FileNotFoundError as error:
            raise BadInput(str(error), 404) from None

    app.add_api_route(f"/api{game.prefix}/{{what}}", extra, methods=["GET"])
    app.add_api_route(f"{game.prefix}/{{what}}", document, methods=["GET"], include_in_schema=False)
