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
| `GET /api/results`                 | `?path=<folder>`: an evaluation's games                           |
| `POST /api/replays/results`        | `{path, game}`: a replay of one of them                           |

Bad input gets status 400 (404 for an unknown id) and `{"error": "..."}` naming what was wrong; it
changes nothing.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from agents import AGENT_NAMES
from suntzu_env.play.explain import RULES_DOC, glossary
from suntzu_env.play.results import game_record, list_games, resolve
from suntzu_env.play.sessions import VIEW_MODES, LiveGame, Replay, Store
from suntzu_env.rules import SEATS, VARIANTS

STATIC = Path(str(files("suntzu_env.play") / "static"))
MAX_BODY = 4 * 2**20  # bytes: a record is a few kilobytes
RULES_FILE = STATIC.parents[2] / RULES_DOC  # the source checkout's docs/rules.md (absent from a built wheel)


class BadInput(Exception):
    """A request the app refuses: its status and message."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def _json_body(request: Request, what: str = "request") -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise BadInput(f"the request is {len(body)} bytes; at most {MAX_BODY} are read")
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise BadInput(f"the {what} is not JSON: {error}") from None


def _object(body: Any, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadInput(f"expected a JSON object with keys {', '.join(keys)}")
    for key in keys:
        if key not in body:
            raise BadInput(f"missing key {key!r}")
    for key in body:
        if key not in keys and key not in optional:
            raise BadInput(f"unknown key {key!r}; expected {', '.join(keys + optional)}")
    return body


def create_app(root: str | Path = ".", defaults: dict[str, Any] | None = None) -> FastAPI:
    """The app; `root` is the folder under which results folders may be opened."""
    app = FastAPI(title="Sun Tzu", docs_url=None, redoc_url=None, openapi_url=None)
    games: Store[LiveGame] = Store()
    replays: Store[Replay] = Store()
    root = Path(root).resolve()
    form = {"agent": "random", "seat": "blue", "variant": "standard", "events": False, **(defaults or {})}
    app.state.games, app.state.replays, app.state.root = games, replays, root

    @app.exception_handler(BadInput)
    async def bad_input(_: Request, error: BadInput) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=error.status)

    @app.exception_handler(ValueError)
    async def value_error(_: Request, error: ValueError) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=400)

    def game_of(game_id: str) -> LiveGame:
        game = games.get(game_id)
        if game is None:
            raise BadInput(f"no game {game_id!r} on this server (it may have been restarted)", 404)
        return game

    def replay_of(replay_id: str) -> Replay:
        replay = replays.get(replay_id)
        if replay is None:
            raise BadInput(f"no replay {replay_id!r} on this server (it may have been restarted)", 404)
        return replay

    page = STATIC / "index.html"
    for path in ("/", "/play/{game_id}", "/replay", "/replay/{replay_id}", "/results"):
        app.add_api_route(path, lambda: FileResponse(page), methods=["GET"], include_in_schema=False)
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
            "agents": list(AGENT_NAMES),
            "ppo_prefix": "ppo:",
            "seats": list(SEATS),
            "variants": list(VARIANTS),
            "defaults": form,
        }

    @app.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        body = _object(await _json_body(request), ("agent", "seat"), ("variant", "events", "seed"))
        try:
            game = LiveGame(
                body["agent"],
                body["seat"],
                body.get("variant", "standard"),
                body.get("events", False),
                body.get("seed"),
            )
        except (FileNotFoundError, ImportError) as error:
            raise BadInput(f"agent {body['agent']!r} cannot be loaded: {error}") from None
        games.add(game.id, game)
        return {"view": game.view(), "frames": []}

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> dict[str, Any]:
        return {"view": game_of(game_id).view()}

    @app.post("/api/games/{game_id}/actions")
    async def act(game_id: str, request: Request) -> dict[str, Any]:
        game = game_of(game_id)
        body = _object(await _json_body(request), ("action",))
        return game.act(body["action"])

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> Any:
        try:
            return game_of(game_id).record()
        except PermissionError as error:
            raise BadInput(str(error), 409) from None

    @app.post("/api/replays")
    async def new_replay(request: Request, title: str = "game record") -> dict[str, Any]:
        replay = Replay(await _json_body(request, "file"), title[:200])
        replays.add(replay.id, replay)
        return replay.view("full", 0)

    @app.get("/api/replays/{replay_id}")
    def replay_step(replay_id: str, view: str = "full", step: str = "0", frame: str | None = None) -> dict[str, Any]:
        replay = replay_of(replay_id)
        if view not in VIEW_MODES:
            raise BadInput(f"view must be one of {', '.join(VIEW_MODES)}, got {view!r}")
        if frame is not None:  # another view of the same moment: the step showing that frame
            if not frame.isdigit():
                raise BadInput(f"frame must be a whole number, got {frame!r}")
            return replay.view(view, replay.step_at(view, int(frame)))
        if step == "last":
            return replay.view(view, len(replay.steps(view)) - 1)
        try:
            n = int(step)
        except ValueError:
            raise BadInput(f"step must be a whole number or 'last', got {step!r}") from None
        return replay.view(view, n)

    @app.get("/api/results")
    def results(path: str = "") -> dict[str, Any]:
        folder = resolve(root, path)
        return {"path": path, **list_games(folder)}

    @app.post("/api/replays/results")
    async def results_replay(request: Request) -> dict[str, Any]:
        body = _object(await _json_body(request), ("path", "game"))
        record, title = game_record(resolve(root, body["path"]), body["game"])
        replay = Replay(record, title)
        replays.add(replay.id, replay)
        return replay.view("full", 0)

    return app
