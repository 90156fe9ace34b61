"""The rules explained where people play: one line per card, warlord, event and battle outcome, served by the app
and printed by the terminal mode; replays that keep their place across views; short agent labels."""

# ruff: noqa: E402  (the play extra is checked before it is imported)
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from play_helpers import require_play_extra

require_play_extra()
from agents import short_label
from fastapi.testclient import TestClient
from suntzu_env import Game
from suntzu_env.play.app import create_app
from suntzu_env.suntzu.rules import CARDS
from suntzu_env.suntzu.rules import EVENTS
from suntzu_env.suntzu.rules import WARLORD_NAMES
from suntzu_env.suntzu.web.chronicle import Chronicle
from suntzu_env.suntzu.web.explain import OUTCOME_TEXT
from suntzu_env.suntzu.web.explain import RULES_DOC
from suntzu_env.suntzu.web.explain import action_help
from suntzu_env.suntzu.web.explain import glossary
from suntzu_env.suntzu.web.live import Replay
from suntzu_env.suntzu.web.text import play_in_terminal

from helpers import battle_cards
from helpers import load
from helpers import make_state
from helpers import with_hands

FEINT = make_state("standard", blue={"held": ["feint"]})
COUNTER = make_state("standard", red={"held": ["counter_plague"]})
TAIL = " (R5.1; armies move as in R5.3)"


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    # the app answers its own origin only (a Host it is bound to) and JSON bodies only
    return TestClient(create_app(tmp_path), base_url="http://127.0.0.1", headers={"Content-Type": "application/json"})


def _wu_result(state: dict, blue: str, red: str) -> dict:
    """The result of WU's battle (the last province) of a round played with these cards, every warlord used."""
    blue_cards, red_cards = battle_cards(blue, red)
    chronicle = Chronicle(load(with_hands(state, blue_cards, red_cards)))
    for card in blue_cards + red_cards:
        chronicle.apply(f"place:{card}")
    while chronicle.game.round == 1:
        decision = chronicle.game.decision
        assert decision is not None
        chronicle.apply("use" if decision["kind"] == "reactive" else chronicle.game.legal_action_strings()[0])
    (entry,) = [e for e in chronicle.log if e.province == "WU" and e.result]
    return entry.result


@pytest.mark.parametrize(
    ("state", "blue", "red", "why"),
    [
        (make_state("standard"), "+1", "10",  # R5.1: +1 is worth the opposing 10 plus 1
         "blue +1 = 10 + 1 = 11 against red 10: blue wins by 1" + TAIL),
        (make_state("standard"), "7", "3", "blue 7 against red 3: blue wins by 4" + TAIL),
        (make_state("standard"), "4", "-1",  # R5.1: -1 is the opposing 4 minus 1 = 3
         "blue 4 against red -1 = 4 - 1 = 3: blue wins by 1" + TAIL),
        (make_state("standard"), "-1", "+3",  # R5.1 table: -1 counts as 0 against a bonus, +3 wins by 3
         "blue -1 (counts as 0 against a bonus) against red +3 (bonus 3): red wins by 3" + TAIL),
        (make_state("standard"), "+1", "+1",
         "blue +1 (bonus 1) against red +1 (bonus 1): equal values, nothing happens (R5.1)"),
        (FEINT, "9", "8",  # R8 feint: blue's 9 counts as 6, red's 8 wins by 2
         "blue 9 counted as 6 (feint) against red 8: red wins by 2" + TAIL),
        (COUNTER, "P", "2",  # R8 counter_plague: the Plague is a 0
         "blue P counted as 0 (counter plague) against red 2: red wins by 2" + TAIL),
        (make_state("standard"), "9", "P", OUTCOME_TEXT["plague"]),  # R5.2
    ],
)  # fmt: skip
def test_a_battle_says_why_it_ended_so(state: dict, blue: str, red: str, why: str) -> None:
    assert _wu_result(state, blue, red)["why"] == why


def test_every_card_warlord_event_and_outcome_has_its_line(client: TestClient) -> None:
    served = client.get("/api/rules").json()
    assert served == glossary()
    assert set(served["cards"]) == {*CARDS, "P*"} and set(served["warlords"]) == set(WARLORD_NAMES)
    assert set(served["events"]) == set(EVENTS)
    assert set(served["outcomes"]) == {"win", "tie", "plague", "devastating_plague", "light_infantry"}
    lines = [*served["cards"].values(), *served["warlords"].values(), *served["events"].values()]
    assert all("\n" not in line and "(R" in line for line in lines), "one line each, citing its rules"
    assert served["doc"] == RULES_DOC and client.get(served["url"]).text.startswith("# Sun Tzu")
    assert action_help("warlord:feint") == served["warlords"]["feint"]
    assert action_help("use", "march") == served["warlords"]["march"]
    assert action_help("place:+2", None) == "+2: " + served["cards"]["+2"]
    assert "costs 1 army" in served["cards"]["+2"] and "costs 2 armies" in served["cards"]["+3"]  # R5.6


def test_the_favicon_is_served(client: TestClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")


def test_decisions_carry_their_rule(client: TestClient) -> None:
    view = client.post("/api/games", json={"agent": "random", "seat": "blue", "seed": 3}).json()["view"]
    decision = view["decision"]
    assert decision["kind"] == "warlord"
    for action in decision["actions"]:
        name = action["action"].split(":")[1]
        assert action["help"] == glossary()["warlords"][name]
    assert view["game"]["agent_label"] == "random"


def test_text_mode_help_explains_the_commands_and_the_rules() -> None:
    answers = iter(["help", "rules", "quit"])
    out: list[str] = []
    code = play_in_terminal("random", "blue", seed=2, read=lambda _: next(answers), write=out.append)
    assert code == 1
    text = "\n".join(out)
    assert "Commands:" in text and "rules " in text and RULES_DOC in text
    assert text.count(glossary()["warlords"]["purge"]) == 1  # red's warlord: only in the `rules` listing
    assert glossary()["warlords"]["march"] in text  # blue is asked for a warlord: each is explained
    assert all(line in text for line in glossary()["cards"].values())


def test_switching_the_replay_view_keeps_the_moment(client: TestClient) -> None:
    """Another view opened at a frame shows the last step of that view at or before the frame."""
    chronicle = Chronicle(Game.new(8, variant="standard", events=False))
    rng = random.Random(8)
    while chronicle.game.current_player is not None:
        chronicle.apply(rng.choice(chronicle.game.legal_action_strings()))
    record = chronicle.game.record()
    replay = client.post("/api/replays", content=json.dumps(record).encode()).json()["replay"]
    for frame in (0, 1, 7, 40, replay["steps"] - 1):
        full = client.get(f"/api/replays/{replay['id']}?view=full&step={frame}").json()["replay"]
        assert full["frame"] == frame
        blue = client.get(f"/api/replays/{replay['id']}?view=blue&frame={frame}").json()["replay"]
        assert blue["frame"] <= frame
        if blue["step"] + 1 < blue["steps"]:
            later = client.get(f"/api/replays/{replay['id']}?view=blue&step={blue['step'] + 1}").json()["replay"]
            assert frame < later["frame"]
    response = client.get(f"/api/replays/{replay['id']}?view=blue&frame=x")
    assert response.status_code == 400 and "frame must be a whole number" in response.json()["error"]
    response = client.get(f"/api/replays/{replay['id']}?view=blue&frame={replay['steps']}")
    assert response.status_code == 400 and "frame must be a whole number in [0, " in response.json()["error"]
    # a view that folds steps away (one that changed nothing it sees) maps a folded frame to the step before it
    folded = Replay(record)
    folded._steps["red"] = [0, 3, 4, 10]
    assert [folded.step_at("red", f) for f in (0, 2, 3, 4, 9, 10, 50)] == [0, 0, 1, 2, 2, 3, 3]


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        ("heuristic", "heuristic"),
        ("ppo:runs/ppo_mix__0__20260101-120000", "ppo:ppo_mix__0__20260101-120000"),  # 31 characters: kept
        ("ppo:runs/long/model.zip", "ppo:long"),
        ("ppo:/home/me/runs/long/checkpoints/ppo_256_steps.zip", "ppo:long/ppo_256_steps"),
        ("rllib:runs/rllib/", "rllib:rllib"),
    ],
)
def test_short_labels_name_the_run(spec: str, label: str) -> None:
    assert short_label(spec, 40) == label


def test_short_labels_lose_their_middle() -> None:
    # 24 characters: the first 11, an ellipsis, the last 12
    spec = "ppo:runs/a_very_long_experiment_name_indeed__0__20260101-120000"
    assert short_label(spec, 24) == "ppo:a_very_…60101-120000"
