"""Bin'Fa in the play app, in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

A game is played by clicking triangles, circles and buttons, the board checked against the server's game after
every answer; a short game (BD5: a turn limit of 3) is played to its end and replayed; a record file is stepped
through; an illegal action posted by hand gets a clear message and changes nothing. Screenshots go to
`$SUNTZU_SCREENSHOTS` (docs/img/binfa-play.png comes from `SUNTZU_SCREENSHOTS=docs/img python -m pytest
tests/play/test_binfa_play_browser.py`), else to a temporary folder.
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
from suntzu_env.binfa import Game
from suntzu_env.binfa.web.live import BinFaGame
from suntzu_env.binfa.web.live import BinFaReplay
from suntzu_env.play.app import create_app

from play_helpers import open_page
from play_helpers import open_record_file
from play_helpers import serve
from play_helpers import wait_ready


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the app serves results folders from."""
    return tmp_path_factory.mktemp("root")


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[tuple[Any, str]]:
    app = create_app(root)
    with serve(app, start_within=30) as url:
        yield app, url


def _shown(page: Any) -> dict[str, Any]:
    """What the page draws: its stacks (bottom to top), dice, pawns and whose turn."""
    stacks = page.eval_on_selector_all("svg g.stack", "gs => gs.map(g => [g.dataset.stack, g.dataset.colours])")
    pawns = page.eval_on_selector_all(
        "svg circle.pawn", "ps => ps.map(p => [p.dataset.pawn, +p.parentNode.dataset.circle])"
    )
    return {
        "stacks": {name: colours.split(",") for name, colours in stacks},
        "dice": [int(d) for d in page.get_attribute("#dice", "data-dice").split(",")],
        "pawns": dict(pawns),
        "whose": page.get_attribute("#whose", "data-player") if page.query_selector("#whose") else None,
    }


def _check_board(page: Any, live: BinFaGame) -> None:
    view = live.view()
    shown = _shown(page)
    assert shown["stacks"] == view["stacks"]
    assert shown["dice"] == view["dice"]
    assert shown["pawns"] == {a["colour"]: a["pawn"] for a in view["armies"] if a.get("pawn") is not None}
    d = view["decision"]
    assert shown["whose"] == (None if d is None else str(d["player"]))


def _answer(page: Any, legal: list[dict[str, Any]], chosen: dict[str, Any]) -> str:
    """Answers `chosen` as a person does: its triangles on the board (then a button when they leave several
    answers open), its circle, or its button. Returns how it was answered."""
    action, spots = chosen["action"], chosen["places"]
    if "circle" in chosen:
        page.click(f"svg g[data-circle='{chosen['circle']}']")
        return "circle"
    if not spots:
        page.click(f"#decision button[data-action='{action}']")
        return "button"
    page.click(f"svg polygon[data-tri='{spots[0]}']")
    left = [a for a in legal if a["places"][:1] == spots[:1]]
    if len(spots) == 2 and len(left) > 1:
        page.click(f"svg polygon[data-tri='{spots[1]}']")
        left = [a for a in left if a["places"][1:] == spots[1:]]
    if len(left) > 1:  # the counts of a move, a transfer or a retreat: the buttons left open
        shown = page.eval_on_selector_all("#decision button[data-action]", "bs => bs.map(b => b.dataset.action)")
        assert shown == [a["action"] for a in left]
        page.click(f"#decision button[data-action='{action}']")
        return "board+button"
    return "board"


def _play(page: Any, live: BinFaGame, rng: random.Random, clicks: int) -> tuple[set[str], set[str]]:
    kinds, ways = set(), set()
    for _ in range(clicks):
        wait_ready(page)
        _check_board(page, live)
        view = live.view()
        if view["winner"] is not None:
            break
        kinds.add(view["decision"]["kind"])
        # the page's answers are the server's: a button for every legal action string
        buttons = page.eval_on_selector_all("#decision button[data-action]", "bs => bs.map(b => b.dataset.action)")
        assert buttons == [a["action"] for a in view["legal"]]
        chosen = rng.choice([a for a in view["legal"] if a["action"] != "stop"] or view["legal"])
        ways.add(_answer(page, view["legal"], chosen))
        wait_ready(page)
        assert live.log[-1]["action"] == chosen["action"] or chosen["action"] in [e["action"] for e in live.log]
    return kinds, ways


def _new_game(server: tuple[Any, str], page: Any, agent: str, seed: int, **choices: str) -> BinFaGame:
    """A game started from the page's form: `agent`, the form's other choices (`players`, `level`) and `seed`."""
    app, url = server
    page.goto(f"{url}/binfa")
    wait_ready(page)
    page.select_option("#agent", agent)
    for name, value in choices.items():
        page.select_option(f"#{name}", value)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_url("**/binfa/play/*")
    wait_ready(page)
    return app.state.games["binfa"].get(page.url.split("/binfa/play/")[1])  # type: ignore[no-any-return]


@pytest.mark.slow  # half a minute of clicks; the short game below stays in the first check
def test_a_game_played_by_clicks(server: tuple[Any, str], browser: Any, shots: Path) -> None:
    """Level 3 against `greedy`: units placed by clicking triangles, the pawn by clicking a circle, the dice
    thrown by a button, stacks moved by clicking a stack and then where it goes."""
    page, responses = open_page(browser)
    live = _new_game(server, page, "greedy", 6, players="2", level="3")
    assert live.seats == (0,) and live.game.options.level == 3
    kinds, ways = _play(page, live, random.Random(6), 70)
    assert {"deploy", "pawn", "declare", "move"} <= kinds
    assert {"board", "circle", "button"} <= ways
    page.screenshot(path=str(shots / "binfa-play.png"))
    for u, body in responses:  # the seed throws the dice to come: never sent while the game is on
        if "/api/binfa/games" in u and body["view"]["winner"] is None:
            assert "seed" not in body["view"]["game"]
    page.close()


def test_a_short_game_to_its_end_and_its_replay(server: tuple[Any, str], browser: Any) -> None:
    """BD5: a game of 3 turns for 3 players, the person in two seats, played to its end by clicks; its record
    opens in the viewer."""
    app, url = server
    page, _ = open_page(browser)
    page.goto(f"{url}/binfa")
    wait_ready(page)
    body = {"agent": "heuristic", "seats": [0, 2], "players": 3, "level": 4, "seed": 2, "max_turns": 3}
    game_id = page.evaluate(
        """async (body) => {
            const r = await fetch("/api/binfa/games", {method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify(body)});
            return (await r.json()).view.game.id;
        }""",
        body,
    )
    page.goto(f"{url}/binfa/play/{game_id}")
    wait_ready(page)
    live = app.state.games["binfa"].get(game_id)
    _play(page, live, random.Random(2), 400)
    assert live.game.is_terminal
    wait_ready(page)
    outcome = page.inner_text("#game-over")
    w = live.game.winner
    assert outcome == (
        "Undecided: nobody won." if w == "undecided" else "You win!" if w in (0, 2) else f"Player {w} wins. You lose."
    )
    page.click("#replay-this")
    page.wait_for_url("**/binfa/replay/*")
    wait_ready(page)
    steps = len(live.game.record()["actions"]) + 1
    assert page.inner_text("#replay-step") == f"step 1 of {steps}"
    page.click("#replay-last")
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step {steps} of {steps}"
    assert page.inner_text("#game-over") == ("Undecided: nobody won." if w == "undecided" else f"Player {w} wins.")
    assert _shown(page)["stacks"] == live.view()["stacks"]
    page.close()


def test_a_record_file_steps_through(server: tuple[Any, str], browser: Any, shots: Path, tmp_path: Path) -> None:
    game = Game.new(9, players=4, level=4, max_turns=12)
    rng = random.Random(9)
    while not game.is_terminal:
        game.apply(rng.choice(game.legal_actions()))
    record = game.record()
    (tmp_path / "binfa.json").write_text(json.dumps(record))
    replay = BinFaReplay(record)
    page, _ = open_page(browser)
    page.goto(f"{server[1]}/binfa")
    wait_ready(page)
    page.set_input_files("#record-file", str(tmp_path / "binfa.json"))
    page.wait_for_url("**/binfa/replay/*")
    wait_ready(page)
    steps = len(record["actions"]) + 1
    assert page.inner_text("#replay-step") == f"step 1 of {steps}"
    for _ in range(5):
        page.click("#replay-next")
        wait_ready(page)
    page.keyboard.press("ArrowRight")
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step 7 of {steps}"
    assert _shown(page)["stacks"] == replay.view(6)["stacks"]
    assert page.inner_text("#next-action") == record["actions"][6]
    slide = "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }"
    page.eval_on_selector("#replay-slider", slide, steps - 40)
    wait_ready(page)
    assert page.inner_text("#replay-step") == f"step {steps - 39} of {steps}"
    assert _shown(page)["stacks"] == replay.view(steps - 40)["stacks"]
    assert page.query_selector_all("svg circle.whirlpool") and page.query_selector_all("svg polygon.terrain")
    page.screenshot(path=str(shots / "binfa-replay.png"))
    page.click("#replay-last")
    wait_ready(page)
    assert page.query_selector("#game-over")
    page.close()


def test_bad_input_shows_a_message_and_changes_nothing(server: tuple[Any, str], browser: Any, tmp_path: Path) -> None:
    app, url = server
    page, _ = open_page(browser)
    page.goto(f"{url}/binfa")
    wait_ready(page)
    open_record_file(
        page, tmp_path, '{"game": "binfa", "rules_version": 1, "options": {}, "seed": 1, "actions": ["fly"]}'
    )
    page.locator("#message", has_text="record.actions[0]").wait_for()
    assert page.inner_text("#message").startswith("broken.json: record.actions[0]: illegal action 'fly'")
    page.click("#start")
    page.wait_for_url("**/binfa/play/*")
    wait_ready(page)
    game_id = page.url.split("/binfa/play/")[1]
    before = app.state.games["binfa"].get(game_id).game.to_dict()
    status, body = page.evaluate(
        """async (id) => {
            const r = await fetch(`/api/binfa/games/${id}/actions`, {method: "POST",
                headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: "roll"})});
            return [r.status, await r.json()];
        }""",
        game_id,
    )
    assert (
        status == 400 and "illegal action 'roll' for decision 'deploy'" in body["error"] and "legal:" in body["error"]
    )
    assert app.state.games["binfa"].get(game_id).game.to_dict() == before
    page.click("svg polygon.tri:not(.can)")  # a triangle no answer names: nothing is sent
    wait_ready(page)
    assert app.state.games["binfa"].get(game_id).game.to_dict() == before
    page.reload()
    wait_ready(page)
    assert page.query_selector_all("#decision button[data-action]")
    page.close()


def test_an_evaluation_s_games_open_in_binfa_s_viewer(server: tuple[Any, str], root: Path, browser: Any) -> None:
    """The results page of a Bin'Fa evaluation names the game, a column per seat, and links each game to Bin'Fa's
    viewer, which replays its record (B0.9)."""
    from experiments.evaluate import main as evaluate

    _, url = server
    evaluate(["--game", "binfa", "--agents", "random", "greedy", "--games", "2", "--max-turns", "12", "--workers", "1",
              "--no-progress", "--out", str(root / "bf")])  # fmt: skip
    page, _ = open_page(browser)
    page.goto(f"{url}/results?path=bf")
    wait_ready(page)
    assert "2 games of Bin'Fa, level 1" in page.inner_text("#results-about")
    headers = page.eval_on_selector_all("#results-table thead th", "ths => ths.map(t => t.textContent)")
    assert headers[3:5] == ["player_0", "player_1"]
    links = page.query_selector_all("#results-table a")
    assert len(links) == 2 and all(link.get_attribute("href").startswith("/binfa/replay?results=bf") for link in links)
    links[1].click()
    page.wait_for_url("**/binfa/replay/*")
    wait_ready(page)
    assert "greedy (player_0) vs random (player_1), deck seed 0" in page.inner_text("#replay-title")
    page.close()


def test_several_units_are_placed_with_one_click(server: tuple[Any, str], browser: Any) -> None:
    """BD6: the "units per click" chooser places that many units on the triangle clicked, "all" the rest; the
    agent's units appear only once every unit stands."""
    page, _ = open_page(browser)
    live = _new_game(server, page, "greedy", 4)
    first = live.view()["legal"][0]["action"]
    page.select_option("#deploy-count", "3")
    page.click(f"polygon[data-tri='{first.split(':')[1]}']")
    wait_ready(page)
    assert [e["action"] for e in live.log] == [first] * 3
    _check_board(page, live)
    assert page.input_value("#deploy-count") == "3"
    page.select_option("#deploy-count", "9")  # "all 9 left"
    page.click(f"polygon[data-tri='{first.split(':')[1]}']")
    wait_ready(page)
    assert [e["action"] for e in live.log[:12]] == [first] * 12
    assert live.game.to_dict()["phase"] != "deploy"
    _check_board(page, live)
