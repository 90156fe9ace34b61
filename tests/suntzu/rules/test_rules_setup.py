"""Components (R1), variants (R2) and setup (R3), seen through `Game.new`."""

from __future__ import annotations

from collections import Counter

import pytest
from suntzu_env import Game

from helpers import BASE_CARDS
from helpers import CARD_ORDER
from helpers import DISPLAYS
from helpers import EVENTS
from helpers import FULL_DECK
from helpers import WARLORDS
from helpers import answer
from helpers import choose
from helpers import expect

SEEDS = range(8)
BEGINNER_DECK = {c: n for c, n in FULL_DECK.items() if c not in ("+2", "+3")}


@pytest.mark.parametrize(("variant", "cards"), [("standard", FULL_DECK), ("beginner", BEGINNER_DECK)])
def test_r1_1_r2_2_each_side_has_its_cards(variant: str, cards: dict[str, int]) -> None:
    """R1.1/R2.2: hand and deck together hold the 20 cards (18 without +2, +3 in beginner)."""
    assert sum(FULL_DECK.values()) == 20
    for seed in SEEDS:
        d = Game.new(seed=seed, variant=variant).to_dict()
        for color in ("blue", "red"):
            side = d[color]
            assert Counter(side["hand"]) + Counter(side["deck"]) == Counter(cards)


def test_r1_2_r3_1_score_displays() -> None:
    """R1.2/R3.1: five different displays out of the ten; the seed decides which and where."""
    drawn = set()
    for seed in range(20):
        values = Game.new(seed=seed).to_dict()["province_values"]
        rows = [tuple(v) for v in values]
        assert len(rows) == 5
        assert len(set(rows)) == 5
        assert set(rows) <= set(DISPLAYS)
        drawn.add(tuple(rows))
        assert Game.new(seed=seed).to_dict()["province_values"] == values
    assert len(drawn) > 1


@pytest.mark.parametrize(("variant", "reserve", "set_aside"), [("standard", 18, 3), ("beginner", 21, 0)])
def test_r1_3_r2_1_r2_2_armies_at_setup(variant: str, reserve: int, set_aside: int) -> None:
    """R1.3/R2.1/R2.2: 21 armies each: 18 in reserve and 3 set aside, or 21 in reserve."""
    d = Game.new(seed=0, variant=variant).to_dict()
    for color in ("blue", "red"):
        side = d[color]
        assert (side["reserve"], side["set_aside"], side["marked_armies"]) == (reserve, set_aside, 0)
        assert side["armies"] == [0, 0, 0, 0, 0]
        assert side["six_marks"] == [0, 0, 0, 0, 0]
    assert d["score"] == 0
    assert d["round"] == 1
    assert d["privilege"] is None
    assert d["plague_reveals"] == 0


@pytest.mark.parametrize(("variant", "deck_size"), [("standard", 10), ("beginner", 8)])
def test_r3_2_base_cards_and_four_drawn(variant: str, deck_size: int) -> None:
    """R3.2: base cards `1`..`6` plus the top 4 of a shuffled deck: 10 cards in hand."""
    decks = set()
    for seed in SEEDS:
        d = Game.new(seed=seed, variant=variant).to_dict()
        for color in ("blue", "red"):
            hand = d[color]["hand"]
            assert len(hand) == 10
            assert [c for c in hand if c in BASE_CARDS] == list(BASE_CARDS)
            assert hand == sorted(hand, key=CARD_ORDER.index)  # R11: canonical order
            assert len(d[color]["deck"]) == deck_size
            decks.add(tuple(d[color]["deck"]))
    assert len(decks) > 2  # shuffled, by seed and by side


def test_r2_1_r3_3_standard_starts_with_warlord_choices() -> None:
    """R2.1/R3.3: in the standard variant blue, then red, choose one of their 5 warlords."""
    g = Game.new(seed=0, variant="standard")
    choose(g, "warlord", "blue", {f"warlord:{w}" for w in WARLORDS["blue"]}, "warlord:march")
    choose(g, "warlord", "red", {f"warlord:{w}" for w in WARLORDS["red"]}, "warlord:purge")
    expect(g, "place", "blue", province="QIN")
    d = g.to_dict()
    assert d["score"] == 0
    assert d["blue"]["warlords"]["held"] == ["march"]
    assert sorted(d["blue"]["warlords"]["unchosen"]) == sorted(set(WARLORDS["blue"]) - {"march"})
    assert d["blue"]["warlords"]["used"] == []
    assert d["red"]["warlords"]["held"] == ["purge"]
    assert sorted(d["red"]["warlords"]["unchosen"]) == sorted(set(WARLORDS["red"]) - {"purge"})


def test_r3_3_r8_head_start_moves_marker_once_both_chose() -> None:
    """R3.3/R8: `head_start` moves the marker 1 toward blue, only after red has chosen."""
    g = Game.new(seed=1, variant="standard")
    answer(g, "warlord", "blue", "warlord:head_start")
    expect(g, "warlord", "red")
    assert g.to_dict()["score"] == 0
    g.apply("warlord:double_six")
    d = g.to_dict()
    assert d["score"] == 1
    assert d["blue"]["warlords"]["held"] == []
    assert d["blue"]["warlords"]["used"] == ["head_start"]
    assert "head_start" not in d["blue"]["warlords"]["unchosen"]


def test_r2_2_beginner_has_no_warlords() -> None:
    """R2.2: beginner: no warlord decision; the first decision is blue's QIN placement."""
    g = Game.new(seed=0, variant="beginner")
    expect(g, "place", "blue", province="QIN")
    d = g.to_dict()
    assert d["rules"] == {"version": "1.1", "variant": "beginner", "events": False}
    for color in ("blue", "red"):
        assert d[color]["warlords"] == {"held": [], "used": [], "unchosen": []}


def test_r2_3_r3_4_events_shuffled_top_one_face_up() -> None:
    """R2.3/R3.4: with events the five cards are shuffled and the top one is face up."""
    orders = set()
    for seed in range(12):
        d = Game.new(seed=seed, events=True).to_dict()
        assert d["rules"]["events"] is True
        ev = d["events"]
        order = (ev["face_up"], *ev["deck"])
        assert sorted(order) == sorted(EVENTS)
        orders.add(order)
        assert Game.new(seed=seed, events=True).to_dict()["events"] == ev
    assert len(orders) > 1


def test_r2_3_events_off_by_default() -> None:
    """R2.3: events are off by default."""
    d = Game.new(seed=0).to_dict()
    assert d["rules"] == {"version": "1.1", "variant": "standard", "events": False}
    assert d["events"] == {"face_up": None, "deck": []}


def test_r3_5_same_seed_same_game() -> None:
    """R3.5: the seed fixes everything: two new games with one seed are equal."""
    for variant in ("standard", "beginner"):
        a = Game.new(seed=7, variant=variant, events=True).to_dict()
        b = Game.new(seed=7, variant=variant, events=True).to_dict()
        assert a == b
