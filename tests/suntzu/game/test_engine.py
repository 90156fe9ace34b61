"""Engine-wide properties: invariants over random play, determinism, the pure-Python path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env import Game
from suntzu_env.suntzu import engine
from suntzu_env.suntzu.game import DEFAULT_ADJ
from suntzu_env.suntzu.layout import LAST_REVEAL
from suntzu_env.suntzu.layout import PLACED
from suntzu_env.suntzu.layout import STATE_SIZE
from suntzu_env.suntzu.records import RecordError
from suntzu_env.suntzu.render import board_text
from suntzu_env.suntzu.rules import CARDS
from suntzu_env.suntzu.rules import N_PROVINCES
from suntzu_env.suntzu.rules import N_ROUNDS
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.rules import VARIANTS

from helpers import expect
from helpers import expect_next_round
from helpers import make_state
from helpers import single_battle

ADJ = np.array(DEFAULT_ADJ, dtype=np.int64)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("events", [False, True])
def test_random_play_invariants(variant: str, events: bool) -> None:
    """I1, I2, card conservation, marker bounds, one side per province, termination: 12,000 games."""
    out = engine.random_playouts_checked(3000, 1000, VARIANTS.index(variant), int(events), ADJ)
    failed = out[out[:, 2] != 0]
    assert not len(failed), f"{engine.INVARIANTS[int(failed[0, 2])]} broken in {len(failed)} games"
    assert set(np.unique(out[:, 0])) <= {0, 1, 2}  # every game ended with a result (R6)
    # termination within 9 rounds: a game is at most 9 rounds of a bounded number of decisions
    assert out[:, 1].max() < N_ROUNDS * 40
    assert (out[:, 0] == 0).mean() > 0.3 and (out[:, 0] == 1).mean() > 0.3
    if events:
        assert (out[:, 3] < 5).mean() > 0.2  # event cards do get applied (R7)


def test_random_play_reaches_every_decision_kind() -> None:
    """Random standard games with events ask every kind of decision of R10 at least once."""
    seen: set[str] = set()
    rng = np.random.default_rng(0)
    for seed in range(300):
        game = Game.new(seed, events=True)
        while not game.is_terminal:
            decision = game.decision
            assert decision is not None and len(game.legal_actions()) >= 2
            seen.add(decision["kind"])
            game.apply(int(rng.choice(game.legal_actions())))
    assert seen == {"warlord", "place", "window", "target", "reveal", "reactive", "source", "shortfall", "keep"}


def _random_game(seed: int, variant: str = "standard", events: bool = True) -> Game:
    rng = np.random.default_rng(seed)
    game = Game.new(seed, variant=variant, events=events)
    while not game.is_terminal:
        game.apply(int(rng.choice(game.legal_actions())))
    return game


def test_determinism_same_seed_same_actions() -> None:
    """R3.5: the same seed and the same actions give the same game."""
    for seed in range(20):
        a, b = _random_game(seed), _random_game(seed)
        assert a.record() == b.record()
        assert a.to_dict() == b.to_dict()
        replayed = Game.replay(json.loads(json.dumps(a.record())))
        assert np.array_equal(replayed.state, a.state)


def _play_to_round_two(seed: int) -> tuple[Game, np.ndarray]:
    """A random beginner game played to the start of round 2, and the cards placed in round 1."""
    rng = np.random.default_rng(seed)
    game = Game.new(seed, variant="beginner")
    placed = game.state[PLACED : PLACED + 2 * N_PROVINCES].copy()
    while game.round == 1:
        placed = game.state[PLACED : PLACED + 2 * N_PROVINCES].copy()
        game.apply(int(rng.choice(game.legal_actions())))
    return game, placed


def test_last_reveal_stays_in_the_state() -> None:
    """R9, R11: the cards of the last finished round, all revealed, stay in the state, its record and its board."""
    game, placed = _play_to_round_two(3)
    assert (placed >= 0).all()  # every province got a card from each side in round 1 (R4.1)
    assert game.state[LAST_REVEAL : LAST_REVEAL + 2 * N_PROVINCES].tolist() == placed.tolist()
    d = game.to_dict()
    names = [CARDS[k] for k in placed]
    assert d["last_reveal"] == {"blue": names[:N_PROVINCES], "red": names[N_PROVINCES:]}
    assert Game.from_dict(d).to_dict() == d
    assert "cards b/r (round 1)" in board_text(game.state)
    assert "last_reveal" not in Game.new(0).to_dict()  # no round has finished


def test_record_last_reveal_is_checked() -> None:
    """R11: `last_reveal` is optional (absent: nothing shown); a bad one is refused naming the key."""
    game, _ = _play_to_round_two(4)
    d = game.to_dict()
    del d["last_reveal"]
    assert "last_reveal" not in Game.from_dict(d).to_dict()
    for bad, field in (
        ({"blue": ["11"] * 5, "red": ["1"] * 5}, "last_reveal.blue[0]"),
        ({"blue": ["1"] * 4, "red": ["1"] * 5}, "last_reveal.blue"),
        ({"blue": ["1"] * 5}, "last_reveal.red"),
        ({seat: ["+2", "1", "2", "3", "4"] for seat in SEATS}, "last_reveal.blue"),  # no +2 in the beginner variant
    ):
        with pytest.raises(RecordError) as error:
            Game.from_dict({**d, "last_reveal": bad})
        assert error.value.field == field
    first = Game.new(0).to_dict()
    with pytest.raises(RecordError, match="round 1") as error:
        Game.from_dict({**first, "last_reveal": {seat: ["1", "2", "3", "4", "5"] for seat in SEATS}})
    assert error.value.field == "last_reveal"


def _round_two_record(results: list | None) -> dict:
    """A hand-made beginner record at round 2's start, round 1 having been 7-3 at QIN and ties elsewhere."""
    d = make_state(round_=2)
    d["last_reveal"] = {"blue": ["7", "2", "8", "4", "5"], "red": ["3", "2", "8", "4", "5"]}
    if results is not None:
        d["battle_results"] = results
    return d


TIE = {"outcome": "combat", "margin": 0}


def test_battle_results_stay_in_the_state() -> None:
    """R5.7, R11: each battle's result is public once decided and stays until the province's next battle."""
    g = single_battle(make_state("standard", blue={"held": ["feint"]}), "9", "8")
    expect(g, "reactive", "blue", warlord="feint", province="WU")
    assert g.battle_results() == [TIE] * 4 + [None]  # WU's battle is under way: not decided yet
    assert g.to_dict()["battle_results"] == [TIE] * 4 + [None]
    g.apply("use")  # R8 feint: blue's 9 counts as 6 against red's 8, red wins by 2
    d = expect_next_round(g, 2)
    assert g.battle_results() == d["battle_results"] == [TIE] * 4 + [{"outcome": "combat", "margin": -2}]
    assert Game.from_dict(d, hand_made=True).to_dict() == d  # the game began from a scenario
    assert "battle_results" not in Game.new(0).to_dict()  # no battle fought yet


def test_record_battle_results_are_checked() -> None:
    """R11: `battle_results` is optional (absent: none shown), must fit the cards, and a bad one names the key."""
    good = [{"outcome": "combat", "margin": 4}] + [TIE] * 4  # R5.1: 7 - 3
    assert Game.from_dict(_round_two_record(good), hand_made=True).to_dict()["battle_results"] == good
    assert "battle_results" not in Game.from_dict(_round_two_record(None), hand_made=True).to_dict()
    assert "battle_results" not in Game.from_dict(_round_two_record([None] * 5), hand_made=True).to_dict()
    for bad, field in (
        ([{"outcome": "won", "margin": 4}] + [TIE] * 4, "battle_results[0].outcome"),
        ([{"outcome": "combat"}] + [TIE] * 4, "battle_results[0].margin"),
        ([{"outcome": "combat", "margin": 4, "by": 4}] + [TIE] * 4, "battle_results[0].by"),
        ([{"outcome": "plague", "margin": 2}] + [TIE] * 4, "battle_results[0].margin"),  # R5.2: no combat
        ([{"outcome": "light_infantry", "margin": 2}] + [TIE] * 4, "battle_results[0].margin"),  # R7.5: by 1
        ([TIE] * 4, "battle_results"),
        ({"QIN": TIE}, "battle_results"),
        ([{"outcome": "combat", "margin": 3}] + [TIE] * 4, "battle_results[0]"),  # not 7 - 3
        ([{"outcome": "plague", "margin": 0}] + [TIE] * 4, "battle_results[0]"),  # no Plague revealed
        ([*good[:4], {"outcome": "combat", "margin": 1}], "battle_results[4]"),  # 5 - 5 ties
        ([good[0], {"outcome": "light_infantry", "margin": 0}, *good[2:]], "battle_results[1]"),  # no 1s, no events
    ):
        with pytest.raises(RecordError) as error:
            Game.from_dict(_round_two_record(bad), hand_made=True)
        assert error.value.field == field, bad
    with pytest.raises(RecordError, match="round 1") as error:
        Game.from_dict({**Game.new(0).to_dict(), "battle_results": [TIE] * 5})
    assert error.value.field == "battle_results[0]"


def test_different_seeds_deal_differently() -> None:
    """R3.1, R3.2: setup is random: seeds change province values and hands."""
    deals = {json.dumps([Game.new(s).to_dict()[k] for k in ("province_values", "blue", "red")]) for s in range(50)}
    assert len(deals) == 50


def test_setup_r3() -> None:
    """R3.1-R3.4: five distinct displays, 10 cards in hand, 10 (beginner 8) in deck, events dealt."""
    from suntzu_env.suntzu.rules import SCORE_DISPLAYS

    for seed in range(30):
        d = Game.new(seed, events=True).to_dict()
        rows = [tuple(r) for r in d["province_values"]]
        assert len(set(rows)) == 5 and set(rows) <= set(SCORE_DISPLAYS)
        for seat in ("blue", "red"):
            assert len(d[seat]["hand"]) == 10 and len(d[seat]["deck"]) == 10
            assert {"1", "2", "3", "4", "5", "6"} <= set(d[seat]["hand"])
            assert (d[seat]["reserve"], d[seat]["set_aside"]) == (18, 3)
        assert d["events"]["face_up"] is not None and len(d["events"]["deck"]) == 4
        b = Game.new(seed, variant="beginner").to_dict()
        assert len(b["blue"]["hand"]) == 10 and len(b["blue"]["deck"]) == 8
        assert (b["red"]["reserve"], b["red"]["set_aside"]) == (21, 0)
        assert "+2" not in b["blue"]["hand"] + b["blue"]["deck"]


def test_clone_is_independent() -> None:
    game = Game.new(5)
    copy = game.clone()
    copy.apply(copy.legal_actions()[0])
    assert game.to_dict() == Game.new(5).to_dict()
    assert copy.to_dict() != game.to_dict()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), variant=st.sampled_from(VARIANTS), events=st.booleans(),
       choices=st.lists(st.integers(0, 10**6), min_size=0, max_size=200))  # fmt: skip
def test_any_state_round_trips_through_to_dict(seed: int, variant: str, events: bool, choices: list[int]) -> None:
    """R11: to_dict/from_dict is exact at any point of any game, and the game goes on identically."""
    game = Game.new(seed, variant=variant, events=events)
    for c in choices:
        if game.is_terminal:
            break
        legal = game.legal_actions()
        game.apply(legal[c % len(legal)])
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert np.array_equal(loaded.state, game.state)
    assert loaded.legal_actions() == game.legal_actions()


def test_batch_step_matches_single_games() -> None:
    """The batched engine is the same engine: an (N, S) batch follows N single games."""
    from suntzu_env.suntzu.actions import N_ACTIONS

    n = 16
    games = [Game.new(seed) for seed in range(n)]
    states = np.stack([g.state.copy() for g in games])
    masks = np.stack([g.legal_mask() for g in games])
    assert states.shape == (n, STATE_SIZE)
    rng = np.random.default_rng(1)
    while not all(g.is_terminal for g in games):
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            if not g.is_terminal:
                actions[i] = rng.choice(g.legal_actions())
                g.apply(int(actions[i]))
        engine.step_batch(states, actions, masks)
        for i, g in enumerate(games):
            assert np.array_equal(states[i], g.state)
            assert np.array_equal(masks[i], g.legal_mask() if not g.is_terminal else np.zeros(N_ACTIONS, np.int8))


PURE_PYTHON_SCRIPT = """
import json, numpy as np
from suntzu_env import Game
records = []
for seed, variant, events in [(0, "standard", True), (1, "beginner", True), (2, "standard", False)]:
    rng = np.random.default_rng(seed)
    game = Game.new(seed, variant=variant, events=events)
    while not game.is_terminal:
        game.apply(int(rng.choice(game.legal_actions())))
    records.append(game.to_dict())
print(json.dumps(records))
"""


def test_pure_python_engine_matches_compiled() -> None:
    """The same source runs uncompiled under NUMBA_DISABLE_JIT=1 and plays the same games."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", PURE_PYTHON_SCRIPT], env=env, capture_output=True, text=True,
                          check=True, cwd=str(Path(__file__).resolve().parents[3]))  # fmt: skip
    pure = json.loads(done.stdout)
    for (seed, variant, events), record in zip([(0, "standard", True), (1, "beginner", True), (2, "standard", False)],
                                               pure, strict=True):  # fmt: skip
        rng = np.random.default_rng(seed)
        game = Game.new(seed, variant=variant, events=events)
        while not game.is_terminal:
            game.apply(int(rng.choice(game.legal_actions())))
        assert game.to_dict() == record
