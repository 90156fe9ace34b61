"""The play app in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

A whole game against `random` is played by clicking, a record is opened in the replay viewer and stepped
through, bad input shows a clear message and changes nothing; every JSON response the page received is
checked for hidden information (R9). Screenshots go to `$SUNTZU_SCREENSHOTS` (the README's come from
`SUNTZU_SCREENSHOTS=docs/img python -m pytest tests/play/test_play_browser.py`), else to a temporary folder.
"""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from play_helpers import require_play_extra

require_play_extra()
pytest.importorskip("playwright.sync_api", reason="playwright is not installed")  # the module skips without it
from suntzu_env import Game
from suntzu_env.play.app import create_app
from suntzu_env.suntzu.web.chronicle import Chronicle

from play_helpers import check_seat_view
from play_helpers import open_page
from play_helpers import open_record_file
from play_helpers import serve
from play_helpers import wait_ready


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, Path]]:
    """The app served by uvicorn on a free port of this machine, in a thread of the test process."""
    root = tmp_path_factory.mktemp("root")
    app = create_app(root)
    with serve(app, start_within=30) as url:
        yield app, url, root


@pytest.mark.slow  # a whole game of clicks: half a minute; the replay viewer stays in the first check
def test_whole_game_by_clicks_against_random(server: tuple[Any, str, Path], browser: Any, shots: Path) -> None:
    """A person plays blue against `random` with events on, by clicking cards, provinces and buttons."""
    app, url, _ = server
    page, responses = open_page(browser)
    page.goto(f"{url}/?speed=0")
    wait_ready(page)
    page.select_option("#agent", "random")
    page.check("input[name=seat][value=blue]")
    page.check("#events")
    page.fill("#seed", "12")
    page.click("#start")
    page.wait_for_url("**/play/*")
    wait_ready(page)
    game_id = page.url.split("/play/")[1].split("?")[0]
    live = app.state.games["suntzu"].get(game_id)
    rng = random.Random(3)
    clicks, kinds, shot = 0, set(), False
    while True:
        wait_ready(page)
        if page.query_selector("#game-over"):
            break
        view = live.view()
        check_seat_view(view, "blue", live.game)
        d = view["decision"]
        if d["kind"] == "warlord" and d["kind"] not in kinds:  # each warlord's rule, in a line under the buttons
            helps = page.eval_on_selector_all("#decision .rules-help li", "items => items.map(i => i.textContent)")
            assert helps == [a["help"] for a in d["actions"]]
        kinds.add(d["kind"])
        # what the page shows is the server's view: the hand and the marker
        hand = page.eval_on_selector_all("#me .hand-card", "cards => cards.map(c => c.textContent.trim())")
        assert len(hand) == len(view["private"]["blue"]["hand"])
        assert page.get_attribute("#marker", "data-score") == str(view["score"])
        revealed = sum(p["revealed"] for p in view["provinces"])
        if not shot and d["kind"] == "reveal" and view["round"] >= 3 and revealed >= 2:
            page.screenshot(path=str(shots / "play.png"))
            shot = True
        action = rng.choice(d["actions"])["action"]
        if action.startswith("place:") and page.query_selector(f"#me [data-action='{action}']"):
            page.click(f"#me [data-action='{action}']")  # a card from the hand
        elif action.startswith("province:") and d["kind"] == "reveal":
            page.click(f"svg g[data-action='{action}']")  # a province on the board
        else:
            page.click(f"#decision [data-action='{action}']")
        clicks += 1
        assert clicks < 400, "the game did not end"
    wait_ready(page)
    assert live.game.is_terminal
    outcome = page.inner_text("#game-over")
    assert outcome in ("You win!", "A draw.", f"{live.game.winner.capitalize()} wins. You lose.")
    if not shot:
        page.screenshot(path=str(shots / "play.png"))
    assert {"warlord", "place", "reveal", "keep"} <= kinds
    # every response the page received: the person's view only
    views = [body for u, body in responses if "/api/games" in u and "view" in body]
    assert len(views) == clicks + 1
    for body in views:
        for frame in [*body["frames"], body["view"]]:
            check_seat_view(frame, "blue")
    # the record is offered once the game is over, and replays to the same end
    page.click("#replay-this")
    page.wait_for_url("**/replay/*")
    wait_ready(page)
    assert live.game.winner in page.inner_text("#replay-title")
    page.close()


def test_replay_viewer_steps_through_a_record(server: tuple[Any, str, Path], browser: Any, shots: Path,
                                              tmp_path: Path) -> None:  # fmt: skip
    """A record opened from a file: forward, back, from each seat's view and with everything shown."""
    _, url, _ = server
    game = Game.new(21, variant="standard", events=True)
    rng = random.Random(21)
    while not game.is_terminal:
        game.apply(rng.choice(game.legal_actions()))
    record_file = tmp_path / "game.json"
    record_file.write_text(json.dumps(game.record()))
    page, responses = open_page(browser)
    page.goto(f"{url}/?speed=0")
    wait_ready(page)
    page.set_input_files("#record-file", str(record_file))
    page.wait_for_url("**/replay/*")
    wait_ready(page)
    steps = len(game.record()["actions"]) + 1
    assert page.inner_text("#replay-step") == f"step 1 of {steps}"
    for _ in range(12):
        page.click("#replay-next")
        wait_ready(page)
    assert page.inner_text("#replay-step") == f"step 13 of {steps}"
    page.click("#replay-prev")
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step 12 of {steps}"
    page.keyboard.press("ArrowRight")
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step 13 of {steps}"
    assert page.query_selector_all("#opp .hand-card")  # everything shown: red's hand too
    page.select_option("#replay-view", "blue")
    wait_ready(page)
    assert not page.query_selector_all("#opp .hand-card") and page.query_selector_all("#opp .hand-back")
    assert page.inner_text("#replay-step") != f"step 1 of {steps}"  # the view changed, the moment stayed
    for _ in range(10):
        page.click("#replay-next")
        wait_ready(page)
    shown_blue = page.inner_text("#replay-step")
    for _ in range(200):  # the response events of the last click may be handed to the test after the page drew it
        (frame,) = [body["replay"]["frame"] for u, body in responses if "view=blue" in u][-1:]
        if f"step {frame + 1} of {steps}" == shown_blue:
            break
        page.wait_for_timeout(50)
    assert shown_blue == f"step {frame + 1} of {steps}"  # the server's last frame for blue's view is what it showed
    page.select_option("#replay-view", "full")
    wait_ready(page)
    assert page.inner_text("#replay-step") == shown_blue  # the full view shows the same moment
    slide = "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }"
    shown = _mid_reveals(game.record())
    page.eval_on_selector("#replay-slider", slide, shown)  # a late round, in the middle of its reveals
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step {shown + 1} of {steps}"
    page.screenshot(path=str(shots / "replay.png"))
    page.click("#replay-last")
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step {steps} of {steps}"
    assert page.query_selector("#game-over")
    for u, body in responses:
        if "view=blue" in u:
            check_seat_view(body, "blue")
    page.close()


def _mid_reveals(record: dict[str, Any]) -> int:
    """A step of the last rounds where some provinces are revealed and some are not (for the screenshot)."""
    chronicle = Chronicle.replay(record)
    best = 0
    for i, frame in enumerate(chronicle.frames):
        if 2 <= sum(frame.table.revealed) <= 3 and not frame.table.finished and frame.game.round >= 4:
            best = i
    return best


def test_evaluation_games_open_in_the_viewer(server: tuple[Any, str, Path], browser: Any) -> None:
    """The results page of an evaluation links each game to its replay."""
    from experiments.evaluate import main

    _, url, root = server
    main(["--agents", "random", "greedy", "--games", "2", "--workers", "1", "--no-progress", "--out", str(root / "ev")])
    page, _ = open_page(browser)
    page.goto(f"{url}/results?path=ev")
    wait_ready(page)
    links = page.query_selector_all("#results-table a")
    assert len(links) == 2
    assert len(page.query_selector_all("#results-summary table.summary tbody tr")) == 1  # one pairing
    rates = page.eval_on_selector_all("#results-heatmap td[data-rate]", "cells => cells.map(c => +c.dataset.rate)")
    assert len(rates) == 2 and abs(sum(rates) - 1) < 1e-3  # each agent's win rate against the other
    assert "mean 0, heuristic not rated" in page.inner_text("#results-summary")
    page.select_option("#results-winner", "draw")
    assert len(page.query_selector_all("#results-table a")) == len(page.query_selector_all("#results-table td.draw"))
    page.select_option("#results-winner", "")
    links = page.query_selector_all("#results-table a")
    assert len(links) == 2
    links[1].click()
    page.wait_for_url("**/replay/*")
    wait_ready(page)
    assert "deck seed 0" in page.inner_text("#replay-title")
    page.close()


def test_bad_input_shows_a_message_and_changes_nothing(server: tuple[Any, str, Path], browser: Any,
                                                       tmp_path: Path) -> None:  # fmt: skip
    """An illegal move posted by hand and a malformed record file: a clear message, nothing changed."""
    app, url, _ = server
    page, _ = open_page(browser)
    page.goto(f"{url}/?speed=0")
    wait_ready(page)
    broken = '{"seed": 3, "rules": {"variant": "standard", "events": false}, "actions": ["warlord:march", 7'
    open_record_file(page, tmp_path, broken)
    page.wait_for_selector("#message:not([hidden])")
    assert page.inner_text("#message").startswith("broken.json: the file is not JSON")
    assert page.url == f"{url}/?speed=0" and page.is_visible("#home")
    open_record_file(
        page, tmp_path, '{"seed": 3, "rules": {"variant": "standard", "events": false}, "actions": ["use"]}'
    )
    page.locator("#message", has_text="actions[0]").wait_for()  # no string evaluated: the page's CSP forbids eval
    page.click("#start")
    page.wait_for_url("**/play/*")
    wait_ready(page)
    game_id = page.url.split("/play/")[1].split("?")[0]
    before = app.state.games["suntzu"].get(game_id).game.to_dict()
    status, body = page.evaluate(
        """async (id) => {
            const r = await fetch(`/api/games/${id}/actions`, {method: "POST",
                headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: "province:WU"})});
            return [r.status, await r.json()];
        }""",
        game_id,
    )
    assert status == 400 and "illegal action 'province:WU' for decision" in body["error"] and "legal:" in body["error"]
    assert app.state.games["suntzu"].get(game_id).game.to_dict() == before
    page.reload()
    wait_ready(page)
    assert page.query_selector_all("#decision [data-action]")
    page.close()
