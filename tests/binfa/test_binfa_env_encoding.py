"""Bin'Fa's learning face: the compact action ids and the player's-view observation (BD12)."""

from __future__ import annotations

import numpy as np
import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.encoding import COUNT_SLOTS
from suntzu_env.binfa.encoding import L_MOVE
from suntzu_env.binfa.encoding import L_RETREAT
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS
from suntzu_env.binfa.encoding import learn_action_name
from suntzu_env.binfa.encoding import learn_ids
from suntzu_env.binfa.geometry import STEP
from suntzu_env.binfa.geometry import TRIANGLE_INDEX
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.observation import observation_bounds
from suntzu_env.binfa.observation import observation_views
from test_binfa_helpers import game


def test_sizes_are_declared_once():
    # deploy 96, pawn 42, army 6, roll/resupply/stop 3, dislodge 96 x 3, move 96 x 3 x 13, transfer and
    # retreat 3 x 13 each, advance 12
    assert N_LEARN_ACTIONS == 96 + 42 + 6 + 3 + 288 + 3744 + 39 + 39 + 12 == 4269
    assert COUNT_SLOTS == 13
    assert sum(v.size for v in observation_views(np.zeros(OBSERVATION_SIZE)).values()) == OBSERVATION_SIZE


def test_b0_3_directions():
    # red-2-1 (r = 2, odd p): left red-2-0, right red-2-2, across inward to red-1-0
    t = TRIANGLE_INDEX["red-2-1"]
    assert [int(u) for u in STEP[t]] == [TRIANGLE_INDEX[n] for n in ("red-2-0", "red-2-2", "red-1-0")]
    # red-4-0 (a border triangle, B10): left across the boundary to violet-4-6, no third edge
    t = TRIANGLE_INDEX["red-4-0"]
    assert [int(u) for u in STEP[t]] == [TRIANGLE_INDEX["violet-4-6"], TRIANGLE_INDEX["red-4-1"], -1]


def _moves(g: Game) -> dict[str, int]:
    return {g.learn_action_string(c): c for c in g.learn_actions()}


def test_b4_move_ids_in_the_movers_frame():
    # red (player 0, base sector 0) moves 1 of the 3 units on red-2-1: red-2-1 is triangle 2 of the view,
    # red-2-2 lies to its right (direction 1), one unit is count slot 0
    g = game({"red-2-1": ["red"] * 3, "red-4-0": ["red"] * 9, "green-4-0": ["green"] * 12}, decision="move",
             mode="move", moves_left=1, throw=[3, 2])  # fmt: skip
    ids = _moves(g)
    c = ids["move:red-2-1>red-2-2:1"]
    assert c == L_MOVE + (3 * 2 + 1) * COUNT_SLOTS + 0
    assert learn_action_name(c) == "move:red-2-1>right:1"
    before = g.to_dict()
    with pytest.raises(ValueError, match="for decision 'move'"):
        g.apply_learn(L_MOVE)  # red-1-0 left, 1 unit: no stack there
    assert g.to_dict() == before
    g.apply_learn(c)
    assert g.record()["actions"][-1] == "move:red-2-1>red-2-2:1"


def test_bd12_the_same_move_has_the_same_id_from_every_seat():
    # the position of the test above turned by three sectors, played by green (player 1, base sector 3)
    red = game({"red-2-1": ["red"] * 3, "red-4-0": ["red"] * 9, "green-4-0": ["green"] * 12}, decision="move",
               mode="move", moves_left=1, throw=[3, 2])  # fmt: skip
    green = game({"green-2-1": ["green"] * 3, "green-4-0": ["green"] * 9, "red-4-0": ["red"] * 12},
                 decision="move", mode="move", moves_left=1, throw=[3, 2], player=1, army="green")  # fmt: skip
    assert red.learn_actions() == green.learn_actions()
    assert green.learn_action_string(_moves(red)["move:red-2-1>red-2-2:1"]) == "move:green-2-1>green-2-2:1"
    np.testing.assert_array_equal(red.observation(0), green.observation(1))
    np.testing.assert_array_equal(red.observation(1), green.observation(0))


def test_b7_bd8_a_whole_stack_over_12_has_the_slot_all():
    # 12 red units over a covered green one (rules v1, which let stacks grow over 12; v1.1 stops at 12, BD31):
    # red may move 1..12 (its run) or all 13 (B7: the covered unit goes with the whole stack); 13 takes the
    # count slot `all`
    g = game({"red-2-1": ["green"] + ["red"] * 12, "green-4-0": ["green"] * 11}, decision="move", mode="move",
             moves_left=1, throw=[3, 2], rules_version=1)  # fmt: skip
    ids = _moves(g)
    whole = ids["move:red-2-1>red-2-2:13"]
    assert whole == L_MOVE + (3 * 2 + 1) * COUNT_SLOTS + 12
    assert learn_action_name(whole) == "move:red-2-1>right:all"
    assert ids["move:red-2-1>red-2-2:12"] == whole - 1


def test_b16_retreat_ids_by_direction():
    # red dislodges the green unit on red-2-2 with a 6 (B16): green (player 1, base sector 3) retreats from
    # red-2-2, to red-2-1 is left, to orange-2-0 right, to red-3-3 across (outward); red-2-1 holds the attacker
    g = game({"red-2-1": ["red"] * 3, "red-4-0": ["red"] * 9, "red-2-2": ["green"],
              "green-4-0": ["green"] * 11}, dice=[[6, 2]])  # fmt: skip
    g.apply("dislodge:red-2-1>red-2-2")
    assert g.current_player == 1
    ids = _moves(g)
    assert ids == {
        "retreat:orange-2-0:1": L_RETREAT + 1 * COUNT_SLOTS,
        "retreat:red-3-3:1": L_RETREAT + 2 * COUNT_SLOTS,
    }


@pytest.mark.parametrize(
    "fields",
    [{}, {"players": 3, "level": 2}, {"players": 2, "armies_per_player": 3, "level": 3}, {"players": 4, "level": 4}],
)
def test_ids_map_to_and_from_engine_actions_exactly(fields):
    # over random games of every level: the legal engine actions get distinct ids, each id maps back to its
    # action, the mask holds exactly those ids, and every observation lies in its bounds
    low, high = observation_bounds()
    rng = np.random.default_rng(7)
    for seed in range(3):
        g = Game.new(seed, deployment="random", **fields)
        for _ in range(300):
            if g.current_player is None:
                break
            legal = g.legal_actions()
            ids = learn_ids(g._s, np.array(legal), g._rotation())
            assert len(set(ids.tolist())) == len(legal)
            assert [g.learn_to_action(int(c)) for c in ids] == legal
            assert sorted(ids.tolist()) == g.learn_actions()
            for p in range(g.players):
                obs = g.observation(p)
                assert obs.dtype == np.float32 and (obs >= low).all() and (obs <= high).all()
            g.apply_learn(int(rng.choice(g.learn_actions())))


def test_observation_values_by_hand():
    # player 1 (green, base sector 3) sees green-2-1 as view triangle 2: 3 units of its own army (colour 0)
    g = game({"red-2-1": ["red"] * 3, "red-4-0": ["red"] * 8, "green-2-1": ["green"] * 2 + ["red"],
              "green-4-0": ["green"] * 10}, decision="move", mode="move", moves_left=1, throw=[3, 2])  # fmt: skip
    v = observation_views(g.observation(1))
    assert v["height"][2] == pytest.approx(3 / 12)
    assert v["colour"][3 * 96 + 2] == 1.0  # red tops it: colour 3 clockwise from green (B7)
    assert v["own_units"][2] == pytest.approx(2 / 12)  # its two covered units
    assert v["army_units"][0] == pytest.approx(10 / 12) and v["army_units"][3] == pytest.approx(14 / 12)  # B12
    assert v["army_mine"].tolist() == [1, 0, 0, 0, 0, 0]
    assert v["me_to_act"][0] == 0.0 and v["my_turn"][0] == 0.0
    assert v["dice"].tolist() == [0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]
    assert v["moves_left"][0] == pytest.approx(1 / 5)


def test_b10_b11_b3_tactical_pieces_by_hand():
    # green's 2 on red-3-2 (6) is closed by red's 2s on red-3-1 and red-3-3; its side red-4-3 (12) is open.
    # Red's 2 on red-4-5 (14) is 2 steps from red-4-3 (red-4-4 between): one throw brings it there with chance
    # 20/36 (B3: a difference of 2 or more). The red 2s beside it close a side each and cannot spare a pair.
    # Green's lone unit on red-2-1 (2) is 2 steps from red's 2s on red-3-1 and red-3-3: again 20/36.
    g = game({"red-3-1": ["red"] * 2, "red-3-3": ["red"] * 2, "red-4-5": ["red"] * 2, "red-3-2": ["green"] * 2,
              "red-2-1": ["green"], "green-4-0": ["green"] * 9}, decision="declare")  # fmt: skip
    v = observation_views(g.observation(0))  # red's base is sector 0: view triangle = triangle
    assert v["one_side_open"].nonzero()[0].tolist() == [6]
    assert v["capture_chance"].nonzero()[0].tolist() == [6]
    assert v["capture_chance"][6] == pytest.approx(20 / 36)
    assert not v["danger_chance"].any()
    assert v["lone_reach"].nonzero()[0].tolist() == [2] and v["lone_reach"][2] == pytest.approx(20 / 36)
    assert v["enemy_closeness"][6] == 1.0
    assert v["enemy_closeness"][14] == pytest.approx(1 - 3 / 15)  # red-4-5 -> red-4-4 -> red-4-3 -> red-3-2
    # green sees the same stack from its own base (sector 3: view triangle 6 + 96 - 48) in danger, not to capture
    w = observation_views(g.observation(1))
    assert w["one_side_open"].nonzero()[0].tolist() == [54]
    assert w["danger_chance"][54] == pytest.approx(20 / 36) and not w["capture_chance"].any()
    assert w["lone_reach"][50] == pytest.approx(20 / 36)  # its own lone unit, within reach of red's 2s


def test_b5_capture_chance_is_sure_within_the_moves_left():
    # red is moving with 2 moves left: its 2 on red-4-5 reaches the open side red-4-3 surely (B5)
    g = game({"red-3-1": ["red"] * 2, "red-3-3": ["red"] * 2, "red-4-5": ["red"] * 2, "red-3-2": ["green"] * 2,
              "green-4-0": ["green"] * 10}, decision="move", mode="move", moves_left=2, throw=[4, 2])  # fmt: skip
    assert observation_views(g.observation(0))["capture_chance"][6] == 1.0


def test_bd6_tactical_pieces_are_blank_during_deployment():
    # the pieces would tell where the other armies' hidden units stand: written only once play starts
    g = Game.new(seed=5)
    while g.to_dict()["phase"] == "deploy":
        v = observation_views(g.observation(g.current_player))
        for name in ("enemy_closeness", "one_side_open", "capture_chance", "danger_chance", "lone_reach"):
            assert not v[name].any(), name
        g.apply_learn(int(g.learn_actions()[0]))
    assert observation_views(g.observation(g.current_player))["enemy_closeness"].any()


def test_b0_3_steps_to_the_nearest_stack_agree_with_the_distances() -> None:
    # each triangle gets the least DISTANCE to any stack of the side
    from suntzu_env.binfa.layout import ARMY_PLAYER
    from suntzu_env.binfa.layout import HEIGHT
    from suntzu_env.binfa.layout import TOP
    from suntzu_env.binfa.tactics import DISTANCE
    from suntzu_env.binfa.tactics import FAR
    from suntzu_env.binfa.tactics import steps_to_stacks

    rng = np.random.default_rng(3)
    g = Game.new(seed=4)
    steps = np.empty(96, np.int8)
    checked = 0
    while not g.is_terminal and checked < 40:
        g.apply_learn(int(rng.choice(g.learn_actions())))
        s = g._s
        for own in (True, False):
            stacks = [t for t in range(96) if s[HEIGHT + t] > 0 and (s[ARMY_PLAYER + s[TOP + t]] == 0) == own]
            assert steps_to_stacks(s, 0, own, steps) == len(stacks)
            expected = DISTANCE[:, stacks].min(axis=1) if stacks else np.full(96, FAR + 1)
            assert steps.tolist() == expected.tolist()
        checked += 1
