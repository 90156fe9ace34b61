"""Shared pieces of the play app's tests: serving the app, a real browser, and what a seat's view may hold (R9)."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from suntzu_env import Game
from suntzu_env.suntzu.rules import PROVINCES
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.rules import WARLORDS


def require_play_extra() -> None:
    """Skip without the play extra (fastapi, uvicorn), except in CI, which installs it: there it fails."""
    for module in ("fastapi", "uvicorn"):
        if os.environ.get("CI"):
            importlib.import_module(module)
        else:
            pytest.importorskip(module, reason="the play extra is not installed: pip install -e '.[play]'")


@contextlib.contextmanager
def serve(app: Any, start_within: float = 60) -> Iterator[str]:
    """`app` served by uvicorn on a free port of this machine, in a thread of the test process: its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_within
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


CHROMIUM = os.environ.get("SUNTZU_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def chromium_path() -> str:
    """Debian's Chromium, which the browser tests drive: a skip without it, a failure in CI (which installs it)."""
    if Path(CHROMIUM).is_file():
        return CHROMIUM
    message = f"no Chromium at {CHROMIUM} (apt-get install chromium, or set SUNTZU_CHROMIUM)"
    if os.environ.get("CI"):
        pytest.fail(message)  # CI installs it: a missing browser is a failure there, not a skip
    pytest.skip(message)


@contextlib.contextmanager
def launch_browser() -> Iterator[Any]:
    """Headless Chromium driven by Playwright (imported here: the browser tests skip without it)."""
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    path = chromium_path()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


def screenshot_folder(tmp_path: Path) -> Path:
    """`$SUNTZU_SCREENSHOTS` (e.g. docs/img), else `tmp_path`."""
    folder = Path(os.environ.get("SUNTZU_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """A page of 1400x1000 that keeps every JSON response of the app's API."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    responses: list[tuple[str, Any]] = []

    def keep(response: Any) -> None:
        if "/api/" in response.url:
            with contextlib.suppress(Exception):  # a response torn down with its page
                responses.append((response.url, response.json()))

    page.on("response", keep)
    return page, responses


def wait_ready(page: Any) -> None:
    """Until the page has drawn the server's last answer (`body[data-ready='1']`)."""
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)


# Keys a view may have for the opponent's side: counts and public cards only (R9).
PUBLIC_SIDE_KEYS = {
    "reserve",
    "set_aside",
    "marked",
    "hand_size",
    "deck_size",
    "out",
    "sixes_revealed",
    "plagues_revealed",
    "warlords_used",
    "cards_total",
}


def check_seat_view(view: dict[str, Any], seat: str, truth: Game | None = None) -> None:
    """Assert that `view`, sent to `seat`'s page, holds nothing R9 hides from that seat.

    With `truth` (the server's game at the time of the view), also check it against the engine's hidden state:
    the opponent's face-down cards, hand, deck order and unused warlords.
    """
    opp = SEATS[1 - SEATS.index(seat)]
    assert view["seat"] == seat
    assert set(view["private"]) == {seat}, "another seat's hand, deck or warlords were sent"
    assert set(view["sides"][opp]) == PUBLIC_SIDE_KEYS
    if view["decision"] is not None:
        assert view["decision"]["player"] == seat, "the opponent's decision was sent"
    assert "deck" not in view["events"], "the event deck's order was sent"
    for prov in view["provinces"]:
        slot = prov["cards"][opp]
        if slot is not None and not prov["revealed"]:
            assert slot == {"card": None, "face_down": True}, f"a face-down card of {opp} was sent"
    assert [line["n"] for line in view["log"]] == list(range(len(view["log"]))), "the log's numbers show gaps"
    text = json.dumps(view)
    if not view.get("winner"):
        assert '"seed"' not in text, "the seed (which fixes every hidden card) was sent during the game"
    if truth is None:
        return
    d = truth.to_dict()
    hidden_warlords = set(WARLORDS[SEATS.index(opp)]) - set(d[opp]["warlords"]["used"])
    for name in hidden_warlords:
        assert name not in text, f"{opp}'s unused warlord {name} was sent"
    placed = d.get("engine", {}).get("placed")
    revealed = d.get("engine", {}).get("revealed", [0] * len(PROVINCES))
    for p, prov in enumerate(view["provinces"]):
        if placed is not None and placed[SEATS.index(opp) * len(PROVINCES) + p] >= 0 and not revealed[p]:
            assert prov["cards"][opp]["card"] is None
    assert view["sides"][opp]["hand_size"] == len(d[opp]["hand"])
    for key in ("hand", "deck", "drawn"):
        for value in _values_named(view, key):
            assert value in (view["private"][seat].get(key),), f"a {key!r} other than {seat}'s own was sent"


def _values_named(tree: Any, key: str) -> list[Any]:
    """Every value stored under `key` anywhere in a JSON tree."""
    out = []
    if isinstance(tree, dict):
        for k, v in tree.items():
            if k == key:
                out.append(v)
            out.extend(_values_named(v, key))
    elif isinstance(tree, list):
        for v in tree:
            out.extend(_values_named(v, key))
    return out


def open_record_file(page: Any, folder: Path, text: str) -> None:
    """Open a record file holding `text` (written to `folder/broken.json`) with the page's file input."""
    bad = folder / "broken.json"
    bad.write_text(text)
    page.set_input_files("#record-file", str(bad))
