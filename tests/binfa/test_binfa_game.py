"""Bin'Fa's public face: options, errors that change nothing, records and round trips, text."""

from __future__ import annotations

import json
import random

import pytest
from suntzu_env.binfa import N_ACTIONS
from suntzu_env.binfa import Game
from suntzu_env.binfa import action_to_string
from suntzu_env.binfa import string_to_action
from test_binfa_helpers import position


def test_actions_round_trip():
    for a in range(0, N_ACTIONS, 7):
        assert string_to_action(action_to_string(a)) == a
    with pytest.raises(ValueError, match="unknown action"):
        string_to_action("move:red-1-0>red-4-0:1")  # not neighbours


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"level": 5}, "level must be one of 1, 2, 3, 4"),
        ({"players": 7}, r"players must be an integer 2\.\.6"),
        ({"players": 4, "armies_per_player": 3}, "armies_per_player=3 needs players=2"),
        ({"deployment": "later"}, "deployment must be one of"),
        ({"max_turns": 0}, "max_turns"),
        ({"colour": "red"}, "unknown option 'colour'"),
        ({"level": 1, "whirlpools": ["red-1-0", "red-2-1", "red-3-1"]}, "only level 4 has whirlpools"),
        ({"level": 2, "terrain": ["red-9-9"]}, "unknown triangle"),
    ],
)
def test_bad_options_one_line(fields, message):
    with pytest.raises(ValueError, match=message) as info:
        Game.new(0, **fields)
    assert "\n" not in str(info.value)


def test_illegal_action_names_decision_and_changes_nothing():
    g = Game.new(1)
    before = g.to_dict()
    for bad in ("roll", "deploy:nowhere", 10**6, -1, True, 3.0):
        with pytest.raises(ValueError, match=r"for decision 'deploy'.*legal: deploy:"):
            g.apply(bad)
    assert g.to_dict() == before and g.record()["actions"] == []


def test_bad_record_names_the_field():
    good = position({"red-1-0": ["red"] * 12, "green-1-0": ["green"] * 12})
    Game.from_dict(good)
    cases = [
        ("board", {"red-1-0": ["red"] * 13, "green-1-0": ["green"] * 12}, "record.board"),
        ("store", 61, "record.store"),
        ("tokens", {"red": 1, "green": 0}, "record.tokens"),
        ("armies", {"red": 0, "green": 0}, "record.armies"),
        ("dice", [[7, 1]], r"record.dice\[0\]\[0\]"),
        ("phase", "lunch", "record.phase"),
        ("terrain", ["red-1-0"], "record.terrain"),
    ]
    for key, value, message in cases:
        d = json.loads(json.dumps(good))
        d[key] = value
        with pytest.raises(ValueError, match=message):
            Game.from_dict(d)
    d = json.loads(json.dumps(good))
    del d["store"]
    with pytest.raises(ValueError, match=r"record\.store: missing"):
        Game.from_dict(d)
    with pytest.raises(ValueError, match=r"record\.rules_version"):
        Game.from_dict({**good, "rules_version": 2})


@pytest.mark.parametrize(
    "options",
    [
        {"level": 1},
        {"level": 2, "players": 3},
        {"level": 3, "players": 2, "armies_per_player": 3},
        {"level": 4, "players": 4},
        {"level": 4, "players": 3, "armies_per_player": 2},
    ],
)
def test_record_round_trips(options):
    """to_dict/from_dict at every decision, and record/replay at the end, give the same game."""
    g = Game.new(21, max_turns=25, **options)
    chooser = random.Random(3)
    while not g.is_terminal:
        d = json.loads(json.dumps(g.to_dict()))
        h = Game.from_dict(d)
        assert h.to_dict() == d and h.legal_action_strings() == g.legal_action_strings()
        legal = g.legal_action_strings()
        action = chooser.choice([a for a in legal if a != "stop"] or legal)
        h.apply(action)
        g.apply(action)
        assert h.to_dict() == g.to_dict()
    replayed = Game.replay(json.loads(json.dumps(g.record())))
    assert replayed.to_dict() == g.to_dict() and replayed.winner == g.winner
    assert g.record()["game"] == "binfa" and g.record()["rules_version"] == "1.1"


def test_new_is_deterministic_and_renders():
    a, b = Game.new(8, level=4, players=3), Game.new(8, level=4, players=3)
    assert a.to_dict() == b.to_dict()
    assert "red" in a.render() and "deploy for player 0" in a.render()
    assert a.returns() == {0: 0.0, 1: 0.0, 2: 0.0} and a.winner is None and not a.is_terminal


def test_record_dice_used_before_the_generator():
    """B0.5: a position's `dice` are thrown first, in order."""
    d = position({"red-3-1": ["red"] * 12, "green-1-0": ["green"] * 12}, dice=[[6, 2], [5, 5]], mode="move")
    g = Game.from_dict(d)
    g.apply("roll")
    assert g.decision["throw"] == [6, 2] and g.decision["moves_left"] == 4
    assert g.to_dict()["dice"] == [[5, 5]]


def test_apply_with_dice_throws_the_given_dice():
    """B0.5, B3, B8: an answer played with given throws is the engine's step with those throws (a record's `dice`);
    too few change nothing and ask for more; too many, a bad die or an illegal answer raise and change nothing."""
    board = {"red-3-1": ["red"] * 12, "green-1-0": ["green"] * 12}
    g = Game.from_dict(position(board, mode="move"))
    before = g.to_dict()
    assert g.apply_with_dice("roll", []) is False and g.to_dict() == before  # B3: the roll throws
    for dice, message in (([[6, 2], [1, 1]], r"threw 1 time\(s\), 2 throws given"), ([[7, 1]], r"dice\[0\]\[0\]")):
        with pytest.raises(ValueError, match=message):
            g.apply_with_dice("roll", dice)
        assert g.to_dict() == before
    with pytest.raises(ValueError, match="legal: roll, stop"):
        g.apply_with_dice("pawn:+3", [[6, 2]])
    assert g.apply_with_dice("roll", [[6, 2]]) is True
    preset = Game.from_dict(position(board, dice=[[6, 2]], mode="move"))
    preset.apply("roll")
    assert g.to_dict() == preset.to_dict() and g.decision["moves_left"] == 4
    doubled = Game.from_dict(position(board, mode="move"))
    assert not doubled.apply_with_dice("roll", [[3, 3]])  # B8: a double ends the turn; green throws next (BD30)
    assert doubled.apply_with_dice("roll", [[3, 3], [2, 1]]) and doubled.current_player == 1
    with pytest.raises(ValueError, match=r"throws were given \(apply_with_dice\)"):
        g.record()
    placed = Game.new(1)  # B1: a deployment throws nothing, so the game still replays from its seed
    assert placed.apply_with_dice(placed.legal_actions()[0], []) is True
    assert Game.replay(placed.record()).to_dict() == placed.to_dict()


def test_apply_with_dice_takes_every_throw_before_the_next_decision():
    """B2: the last unit placed, every player throws and ties throw again, and the first player makes its
    compulsory first throw (BD30, its one answer), all before the next decision; each throw short asks for one
    more."""
    d = position({"red-4-0": ["red"] * 12, "green-4-0": ["green"] * 11}, player=1, army=None, decision="deploy")
    d["phase"], d["deploying"], d["turn"]["player"] = "deploy", {"index": 1, "left": 1}, None
    g = Game.from_dict(d)
    throws = [[2, 2], [1, 3], [6, 5], [1, 1], [4, 1]]  # a tie at 4, then 11 against 2: player 1 starts, throws 4-1
    for k in range(len(throws)):
        assert g.apply_with_dice("deploy:green-4-0", throws[:k]) is False
    assert g.apply_with_dice("deploy:green-4-0", throws) is True
    assert g.decision["kind"] == "move" and g.current_player == 1 and g.decision["throw"] == [4, 1]


def test_picture():
    pytest.importorskip("PIL")
    g = Game.new(5, level=4, players=3, deployment="random")
    image = g.picture(320)
    assert image.size == (320, 320)
    assert len(image.getcolors(1 << 20)) > 10  # triangles, terrain, stacks and the ring are drawn
