"""Invariants in random play (R1.3 I1, R4.2 I2), determinism (R3.5), hidden information
(R9), the decision model (R10) and the record's shape (R11)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from suntzu_env import Game

from helpers import PROVINCES
from helpers import RECORD_CARD_ORDER
from helpers import TOTAL_ARMIES
from helpers import State
from helpers import expect
from helpers import load
from helpers import make_state

KINDS = {"warlord", "place", "window", "target", "reveal", "reactive", "source", "shortfall", "keep"}
CARD = r"(10|[1-9]|\+[123]|-1|P)"
ACTION = re.compile(
    rf"place:{CARD}|recall:{CARD}|keep:{CARD}|province:({'|'.join(PROVINCES)})"
    r"|reserve|warlord:[a-z_]+|use|pass"
)
TOP_KEYS = {
    "rules", "round", "score", "province_values", "privilege", "plague_reveals",
    "events", "blue", "red", "phase", "winner",
}  # fmt: skip
SIDE_KEYS = {
    "reserve", "set_aside", "marked_armies", "armies", "six_marks", "hand", "deck",
    "sixes_revealed", "plagues_revealed", "warlords",
}  # fmt: skip
CONFIGS = [("standard", True), ("standard", False), ("beginner", True), ("beginner", False)]


def check_state(g: Game) -> None:
    """R1.3 (I1), R7, R10 and R11 checks that hold after every action."""
    d = g.to_dict()
    for color in ("blue", "red"):
        s = d[color]
        parts = (s["reserve"], s["set_aside"], s["marked_armies"], *s["armies"])
        assert min(parts) >= 0
        assert sum(parts) == TOTAL_ARMIES, f"I1 broken for {color}: {s}"
        assert all(0 <= m <= 2 for m in s["six_marks"])
        assert s["marked_armies"] <= sum(s["six_marks"])
        assert s["hand"] == sorted(s["hand"], key=RECORD_CARD_ORDER.index)
        # R5.5/R7.4: every mark was made by a revealed `6`.
        assert sum(s["six_marks"]) <= s["sixes_revealed"]
        # R7.1/R11: copies revealed at least once; a recycled copy `P*` is one of them, a `P`
        # in hand or deck is one that never was.
        cards = s["hand"] + s["deck"]
        assert 0 <= s["plagues_revealed"] <= 2
        assert cards.count("P*") <= s["plagues_revealed"]
        assert cards.count("P") <= 2 - s["plagues_revealed"]
    for b, r in zip(d["blue"]["armies"], d["red"]["armies"], strict=True):
        assert b == 0 or r == 0, "two sides in one province"
    assert -9 <= d["score"] <= 9
    assert d["blue"]["plagues_revealed"] + d["red"]["plagues_revealed"] <= d["plague_reveals"]
    # R7: a face-up event whose condition holds is applied at once, so none waits at a placement.
    if g.decision is not None and g.decision["kind"] == "place":
        face_up = d["events"]["face_up"]
        assert face_up != "pandemic" or d["blue"]["plagues_revealed"] + d["red"]["plagues_revealed"] < 4
        assert face_up != "war_chariot" or max(d["blue"]["sixes_revealed"], d["red"]["sixes_revealed"]) < 3
    if g.is_terminal:
        assert g.decision is None and g.current_player is None
        assert g.winner in ("blue", "red", "draw")
        return
    dec = g.decision
    assert dec is not None
    assert dec["kind"] in KINDS
    assert dec["player"] == g.current_player
    strings = g.legal_action_strings()
    # R10: a decision with a single legal answer is never shown; I2: never none.
    assert len(strings) >= 2, f"{dec} shown with {strings}"
    assert strings == [g.action_to_string(a) for a in g.legal_actions()]
    assert [g.string_to_action(s) for s in strings] == g.legal_actions()
    assert all(ACTION.fullmatch(s) for s in strings), strings


def playout(g: Game, seed: int, check: bool = True) -> list[str]:
    """Play random legal actions to the end; return them."""
    rng = random.Random(seed)
    played: list[str] = []
    while not g.is_terminal:
        assert len(played) < 2000
        action = rng.choice(g.legal_action_strings())
        g.apply(action)
        played.append(action)
        if check:
            check_state(g)
    return played


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
def test_r1_3_r4_2_r10_invariants_in_random_play(variant: str, events: bool) -> None:
    """R1.3 (I1), R4.2 (I2), R10, R11: checked after every action of random games."""
    for seed in range(10):
        g = Game.new(seed=seed, variant=variant, events=events)
        check_state(g)
        playout(g, seed)


def test_r6_5_returns_are_zero_sum() -> None:
    """R6.5: +1 to the winner, -1 to the loser, 0 each on a draw."""
    for seed in range(4):
        g = Game.new(seed=seed, variant="beginner", events=True)
        playout(g, seed, check=False)
        r = g.returns()
        if g.winner == "draw":
            assert r == {"blue": 0.0, "red": 0.0}
        else:
            loser = "red" if g.winner == "blue" else "blue"
            assert r == {g.winner: 1.0, loser: -1.0}


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
def test_r3_5_same_seed_and_actions_same_game(variant: str, events: bool) -> None:
    """R3.5: replaying a seed with the same actions reproduces every state."""
    a = Game.new(seed=3, variant=variant, events=events)
    actions = playout(a, 11, check=False)
    b = Game.new(seed=3, variant=variant, events=events)
    for action in actions:
        b.apply(action)
    assert b.to_dict() == a.to_dict()
    assert b.winner == a.winner


# --- R9 hidden information --------------------------------------------------------------


def red_first_view(blue_cards: list[str]) -> tuple[dict, list[str], State]:
    """Red's first placement decision after blue placed `blue_cards`, and the public board."""
    g = load(make_state(blue={"armies": [0, 2, 0, 0, 0]}))
    for card in blue_cards:
        g.apply(f"place:{card}")
    expect(g, "place", "red", province="QIN")
    d = g.to_dict()
    public = {k: d[k] for k in ("round", "score", "privilege", "plague_reveals", "events")}
    public["board"] = [d[c]["armies"] for c in ("blue", "red")]
    return dict(g.decision), g.legal_action_strings(), public


def test_r9_red_places_without_seeing_blue_cards() -> None:
    """R9: red's placement decision, its answers and the public state do not depend on
    the cards blue placed face down."""
    assert red_first_view(["1", "2", "3", "4", "5"]) == red_first_view(["10", "9", "8", "7", "6"])


def test_r9_r3_3_red_chooses_without_seeing_blue_warlord() -> None:
    """R9/R3.3: red's warlord decision is the same whatever blue chose; even `head_start`
    does not show on the marker before red has chosen."""
    views = []
    for choice in ("march", "head_start", "feint"):
        g = Game.new(seed=5, variant="standard")
        g.apply(f"warlord:{choice}")
        expect(g, "warlord", "red")
        views.append((dict(g.decision), g.legal_action_strings(), g.to_dict()["score"]))
    assert views[0] == views[1] == views[2]


def observed(state: State, seat: str) -> np.ndarray:
    """`seat`'s observation (R9) of a start-of-round state."""
    return load(state).observation(seat)


def test_r9_opponent_hand_and_deck_order_are_hidden() -> None:
    """R9: blue's observation does not change with the split of red's unseen cards between
    hand and deck (same sizes), red's deck order or blue's own deck order; it does change
    with blue's own hand."""
    base = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "7", "P"], "deck": ["8", "9"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "7", "8"], "deck": ["9", "10", "P"]},
    )
    seen = observed(base, "blue")
    other = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "7", "P"], "deck": ["9", "8"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "10", "P"], "deck": ["8", "7", "9"]},
    )
    assert np.array_equal(observed(other, "blue"), seen)
    own = make_state(
        blue={"hand": ["1", "2", "3", "4", "5", "6", "8", "P"], "deck": ["7", "9"]},
        red={"hand": ["1", "2", "3", "4", "5", "6", "7", "8"], "deck": ["9", "10", "P"]},
    )
    assert not np.array_equal(observed(own, "blue"), seen)


def test_r9_face_down_cards_are_hidden() -> None:
    """R9: at red's first placement red observes the same whatever blue placed face down."""
    views = []
    for cards in (["1", "2", "3", "4", "5"], ["10", "9", "8", "7", "6"]):
        g = load(make_state())
        for card in cards:
            g.apply(f"place:{card}")
        views.append(g.observation("red"))
    assert np.array_equal(views[0], views[1])


def test_r9_unused_opposing_warlord_is_hidden() -> None:
    """R9: red does not see which warlord blue holds unused; blue sees its own."""
    march = make_state("standard", blue={"held": ["march"]})
    feint = make_state("standard", blue={"held": ["feint"]})
    assert np.array_equal(observed(march, "red"), observed(feint, "red"))
    assert not np.array_equal(observed(march, "blue"), observed(feint, "blue"))


# --- R11 the record ---------------------------------------------------------------------


def test_r11_shape_at_the_start_of_a_round() -> None:
    """R11: the record's keys at the start of a round (no `engine`) and inside one."""
    g = Game.new(seed=0, variant="beginner", events=True)
    d = g.to_dict()
    assert set(d) == TOP_KEYS
    assert d["phase"] == "placement"
    assert d["winner"] is None
    assert set(d["rules"]) == {"version", "variant", "events"}
    assert set(d["events"]) == {"face_up", "deck"}
    for color in ("blue", "red"):
        assert set(d[color]) == SIDE_KEYS
        assert set(d[color]["warlords"]) == {"held", "used", "unchosen"}
        assert len(d[color]["armies"]) == len(d[color]["six_marks"]) == 5
    assert len(d["province_values"]) == 5
    g.apply(g.legal_action_strings()[0])
    inside = g.to_dict()
    assert set(inside) == TOP_KEYS | {"engine"}


def test_r11_round_trip_of_a_hand_made_record() -> None:
    """R11: `from_dict` then `to_dict` gives back a start-of-round record unchanged."""
    s = make_state(
        "standard",
        round_=4,
        score=-3,
        privilege="red",
        plague_reveals=2,
        events=["hero", "pandemic", "champion"],
        blue={
            "set_aside": 2,
            "armies": [3, 0, 1, 0, 0],
            "six_marks": [0, 1, 0, 0, 0],
            "marked_armies": 1,
            "held": ["march"],
            "hand": ["1", "2", "3", "4", "5", "6", "9", "+2"],
            "deck": ["P", "7"],
            "plagues_revealed": 1,
        },
        red={
            "armies": [0, 2, 0, 0, 5],
            "six_marks": [2, 0, 0, 0, 1],
            "marked_armies": 2,
            "held": ["double_six"],
            "used": ["recycle_plague"],  # picked with war_chariot (no longer among the events)
            "deck": ["-1", "P*"],
            "sixes_revealed": 4,
            "plagues_revealed": 1,
        },
    )
    assert load(s).to_dict() == s


def test_r11_round_trip_of_a_new_game() -> None:
    """R11: a new beginner game's record loads back to an equal game."""
    d = Game.new(seed=2, variant="beginner", events=True).to_dict()
    assert Game.from_dict(d).to_dict() == d
