"""Bin'Fa rules v1.1 (docs/binfa-rules.md, "What changed in v1.1"): BD30, BD31, BD32 and the hidden deployment of
BD6, each against the same position under rules v1, values worked out by hand; records name their rules, and a
position written with only the contract's fields loads.

Positions are records (`tests/binfa/test_binfa_helpers.py`) with the throws to come in their `dice` list.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.observation import observation_views
from test_binfa_helpers import game
from test_binfa_helpers import position
from test_binfa_helpers import stacks
from test_binfa_helpers import strings

R, G, B = "red", "green", "blue"
POOLS = ["red-3-2", "green-3-2", "blue-3-2"]


def counts(g: Game, prefix: str) -> set[int]:
    """The unit counts offered by the legal answers starting with `prefix`."""
    return {int(a.rsplit(":", 1)[1]) for a in strings(g, prefix)}


def wh(board, **kw) -> Game:
    kw.setdefault("tokens", {"red": 20, "green": 20})
    kw.setdefault("store", 20)
    kw.setdefault("pawns", {"red": 0, "green": 21})
    return game(board, level=4, whirlpools=POOLS, **kw)


# ------------------------------------------------------------------ BD30: the first throw is compulsory

DISLODGE = {"red-3-1": [R] * 6, "red-3-2": [G], "red-1-0": [R] * 6, "green-1-0": [G] * 11}


def test_bd30_no_stop_before_the_first_throw():
    """BD30: before its first throw the player may roll or dislodge (6 red against 1 green), not stop; after the
    throw (3-1: two moves) it may stop. Under rules v1 the stop came before any throw too."""
    g = game(DISLODGE, dice=[[3, 1]])
    assert set(g.legal_action_strings()) == {"roll", "dislodge:red-3-1>red-3-2"}
    g.apply("roll")
    g.apply("move:red-1-0>red-2-1:1")
    g.apply("move:red-2-1>red-1-0:1")
    assert set(g.legal_action_strings()) == {"roll", "dislodge:red-3-1>red-3-2", "stop"}
    v1 = game(DISLODGE, rules_version=1)
    assert set(v1.legal_action_strings()) == {"roll", "dislodge:red-3-1>red-3-2", "stop"}


def test_bd30_an_army_in_a_whirlpool_cannot_wait_there_forever():
    """BD30 with B41: red's two units in a whirlpool could wait under v1 by stopping before every throw; under
    v1.1 red must throw (or dislodge from the whirlpool, 2 against green's lone unit, B46): a double (2-2) loses
    them and ends the turn."""
    pools = {"green-3-2": [R, R]}
    board = {"red-1-0": [R] * 10, "green-3-1": [G], "green-3-3": [G, G], "green-4-3": [G, G], "green-1-0": [G] * 7}
    g = wh(board, in_whirlpools=pools, dice=[[2, 2], [2, 1]])
    assert set(g.legal_action_strings()) == {"roll", "dislodge:green-3-2>green-3-1", "resupply"}
    g.apply("roll")
    d = g.to_dict()
    assert d["in_whirlpools"] == {} and d["turns"] == 1 and d["tokens"] == {"red": 19, "green": 20}
    assert "stop" in wh(board, in_whirlpools=pools, rules_version=1).legal_action_strings()


def test_bd30_b35_a_player_who_cannot_throw_passes_as_before():
    """B35, BD30: the store empty and red without tokens, red can neither throw nor resupply, so it passes; green
    pays its token to the store and throws 2-1 at once (its one answer): one move."""
    board = {"red-3-1": [R] * 12, "green-3-1": [G] * 12}
    g = game(board, level=3, store=0, tokens={"red": 0, "green": 60}, pawns={"red": 0, "green": 21}, dice=[[2, 1]])
    d = g.to_dict()
    assert g.current_player == 1 and d["turns"] == 1 and g.decision["kind"] == "move"
    assert d["store"] == 1 and d["tokens"] == {"red": 0, "green": 59} and g.decision["moves_left"] == 1


def test_bd30_a_v1_record_with_a_stop_before_any_throw_replays_only_under_v1():
    """A record of rules 1 whose first turn stops before any throw replays under v1; named as a v1.1 record, its
    stop is refused (BD30)."""
    v1 = game(DISLODGE, rules_version=1)
    v1.apply("stop")
    record = v1.record()
    assert record["rules_version"] == 1 and record["actions"] == ["stop"]
    assert Game.replay(json.loads(json.dumps(record))).to_dict() == v1.to_dict()
    start = {k: v for k, v in record["start"].items() if k != "rules_version"}
    with pytest.raises(ValueError, match=r"record\.actions\[0\]: illegal action 'stop'"):
        Game.replay({**record, "start": start, "rules_version": "1.1"})
    assert Game.replay({**record, "start": start}).turns == 1  # the record's rules_version 1 governs


# ------------------------------------------------------------------ BD31: no stack over 12 units


def test_bd31_a_move_never_makes_a_stack_over_12():
    """BD31: 4 red units beside 8 red may all go there (12); 6 red beside 12 topped by red (6 green under 6 red)
    none of them; v1: 1..6."""
    board = {"red-3-1": [R] * 4, "red-3-0": [R] * 8, "green-1-0": [G] * 12}
    g = game(board, dice=[[3, 1]], mode="move")
    g.apply("roll")
    assert counts(g, "move:red-3-1>red-3-0:") == {1, 2, 3, 4}
    board = {"red-3-1": [R] * 6, "red-2-0": [G] * 6 + [R] * 6, "green-1-0": [G] * 6}
    g = game(board, dice=[[3, 1]], mode="move")
    g.apply("roll")
    assert not strings(g, "move:red-3-1>red-2-0:") and counts(g, "move:red-3-1>red-3-0:") == set(range(1, 7))
    v1 = game(board, dice=[[3, 1]], mode="move", rules_version=1)
    v1.apply("roll")
    assert counts(v1, "move:red-3-1>red-2-0:") == set(range(1, 7))


def test_bd31_covering_a_lone_unit_takes_11_units_at_most():
    """BD31, B7: 12 red units may cover green's lone unit with 1..11 of them (1 + 11 = 12), not all 12; v1 all."""
    board = {"red-3-1": [R] * 12, "red-3-2": [G], "green-1-0": [G] * 11}
    g = game(board, dice=[[2, 1]])
    g.apply("roll")
    assert counts(g, "move:red-3-1>red-3-2:") == set(range(1, 12))
    v1 = game(board, dice=[[2, 1]], rules_version=1)
    v1.apply("roll")
    assert counts(v1, "move:red-3-1>red-3-2:") == set(range(1, 13))


def _three(board, dice):
    """A 3-player position (red, green, blue; no tokens) whose next throw is `dice`."""
    d = position(board, players=3, armies={"red": 0, "green": 1, "blue": 2}, tokens={"red": 0, "green": 0, "blue": 0})
    d["dice"] = [dice]
    return d


def test_bd31_b20_a_retreat_with_no_room_loses_its_units():
    """BD31, B20: 6 red dislodge 3 green (a 6: 6-1); green's only open way, red-3-3, holds 10 (a blue unit under 9
    green): 2 fit (2 options: 1 or 2), the third unit has nowhere to go and is lost; red advances (6 units) and
    makes its 5 moves."""
    board = {
        "red-3-1": [R] * 6,
        "red-3-2": [G] * 3,
        "red-3-3": [B] + [G] * 9,
        "red-4-3": [R, R],
        "red-1-0": [R] * 4,
        "blue-1-0": [B] * 11,
    }
    d = _three(board, [6, 1])
    g = Game.from_dict(d)
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.current_player == 1 and g.legal_action_strings() == ["retreat:red-3-3:1", "retreat:red-3-3:2"]
    g.apply("retreat:red-3-3:2")
    assert stacks(g)["red-3-3"] == [B] + [G] * 11 and stacks(g)["red-3-2"] == [R] * 6
    assert "red-3-1" not in stacks(g) and g.current_player == 0 and g.decision["moves_left"] == 5
    v1 = Game.from_dict({**d, "rules_version": 1})
    v1.apply("dislodge:red-3-1>red-3-2")
    assert "retreat:red-3-3:3" in v1.legal_action_strings()


def test_bd31_bd23_the_attacker_stays_when_its_advance_would_make_13():
    """BD31, BD23: 12 units topped by red (a blue unit under 11 red) dislodge 2 green covering a red unit (6-2);
    green retreats both to red-3-3; the red unit revealed stays, and the attacker may not join it (12 + 1 = 13):
    it stays and red makes its 4 moves. Under v1 it joins it (13 units)."""
    board = {
        "red-3-1": [B] + [R] * 11,
        "red-3-2": [R, G, G],
        "green-1-0": [G] * 10,
        "blue-1-0": [B] * 11,
    }
    d = _three(board, [6, 2])
    g = Game.from_dict(d)
    g.apply("dislodge:red-3-1>red-3-2")
    g.apply("retreat:red-3-3:2")
    board_now = stacks(g)
    assert board_now["red-3-2"] == [R] and board_now["red-3-1"] == [B] + [R] * 11 and board_now["red-3-3"] == [G, G]
    assert g.decision["kind"] == "move" and g.decision["moves_left"] == 4
    v1 = Game.from_dict({**d, "rules_version": 1})
    v1.apply("dislodge:red-3-1>red-3-2")
    v1.apply("retreat:red-3-3:2")
    assert stacks(v1)["red-3-2"] == [R, B] + [R] * 11


def test_bd31_a_whirlpool_exit_never_makes_a_stack_over_12():
    """BD31, B40: 3 red units leave a whirlpool beside 10 topped by red (a green unit under 9 red): 1 or 2 of them
    may go there, not 3; v1: 1..3."""
    pools = {"green-3-2": [R] * 3}
    board = {"green-3-1": [G] + [R] * 9, "green-3-3": [G, G], "green-4-3": [G, G], "green-1-0": [G] * 7}
    g = wh(board, in_whirlpools=pools, dice=[[2, 1]])
    g.apply("roll")
    assert counts(g, "move:green-3-2>green-3-1:") == {1, 2}
    v1 = wh(board, in_whirlpools=pools, dice=[[2, 1]], rules_version=1)
    v1.apply("roll")
    assert counts(v1, "move:green-3-2>green-3-1:") == {1, 2, 3}


# ------------------------------------------------------------------ BD32: a whirlpool exit onto a lone unit dislodges


def test_bd32_a_whirlpool_exit_onto_a_lone_unit_is_a_dislodge():
    """BD32, B46: 2 red units in a whirlpool beside green's lone unit may not cover it (v1's BD14 let them); they
    dislodge it (2 > 1): a 6 (6-1) sends it back to green-3-0 or green-2-0, the two red units advance out of the
    whirlpool onto green-3-1, and red makes its 5 moves."""
    pools = {"green-3-2": [R, R]}
    board = {"red-1-0": [R] * 10, "green-3-1": [G], "green-3-3": [G, G], "green-4-3": [G, G], "green-1-0": [G] * 7}
    g = wh(board, in_whirlpools=pools, dice=[[2, 1]])
    g.apply("roll")
    assert not strings(g, "move:green-3-2>green-3-1")
    g = wh(board, in_whirlpools=pools, dice=[[6, 1]])
    g.apply("dislodge:green-3-2>green-3-1")
    assert g.current_player == 1 and g.legal_action_strings() == ["retreat:green-2-0:1", "retreat:green-3-0:1"]
    g.apply("retreat:green-3-0:1")
    d = g.to_dict()
    assert d["board"]["green-3-1"] == [R, R] and d["board"]["green-3-0"] == [G] and d["in_whirlpools"] == {}
    assert g.current_player == 0 and g.decision["moves_left"] == 5
    v1 = wh(board, in_whirlpools=pools, dice=[[2, 1]], rules_version=1)
    v1.apply("roll")
    assert "move:green-3-2>green-3-1:2" in v1.legal_action_strings()


# ------------------------------------------------------------------ BD6: hidden deployment


def _deploying(first_unit: str) -> Game:
    """Seed 5 (2 players): player 0 places its 12 units, 11 on its row 4 and one on `first_unit`; player 1 places
    one unit."""
    g = Game.new(5)
    mine = next(c for c, p in g.to_dict()["armies"].items() if p == 0)
    g.apply(f"deploy:{mine}-{first_unit}")
    for _ in range(11):
        g.apply(f"deploy:{mine}-4-0")
    theirs = next(c for c, p in g.to_dict()["armies"].items() if p == 1)
    g.apply(f"deploy:{theirs}-1-0")
    return g


def test_bd6_a_player_sees_only_its_own_placements_until_every_unit_stands():
    """BD6: player 1 does not see where player 0 placed (its observation, text and record view are the same
    whatever player 0 placed), and player 0 does not see player 1's unit; both are in the engine's `to_dict`.
    Once every unit stands, both see everything."""
    a, b = _deploying("1-0"), _deploying("3-1")
    assert a.to_dict()["board"] != b.to_dict()["board"]
    assert np.array_equal(a.observation(1), b.observation(1))
    assert a.render(1) == b.render(1) and a.view_dict(1) == b.view_dict(1)
    assert not np.array_equal(a.observation(0), b.observation(0))
    theirs = next(c for c, p in a.to_dict()["armies"].items() if p == 1)
    mine = next(c for c, p in a.to_dict()["armies"].items() if p == 0)
    assert a.view_dict(0)["board"] == {f"{mine}-1-0": [mine], f"{mine}-4-0": [mine] * 11}
    assert a.view_dict(1)["board"] == {f"{theirs}-1-0": [theirs]} and a.to_dict()["board"][f"{theirs}-1-0"]
    views = observation_views(a.observation(1))
    assert views["height"].sum() == pytest.approx(1 / 12) and views["army_units"].sum() == pytest.approx(1 / 12)
    line = next(line for line in a.render(1).splitlines() if line.startswith(f"{mine:>7} |"))
    assert line.strip() == f"{mine} |" and "4-0:" + mine[0].upper() * 11 in a.render(0)
    for _ in range(11):
        a.apply(f"deploy:{theirs}-4-0")
    assert a.to_dict()["phase"] == "play" and a.view_dict(1) == a.to_dict()
    assert observation_views(a.observation(1))["height"].sum() == pytest.approx(24 / 12)


def test_bd6_pictures_for_a_player_hide_the_others():
    """BD6: a picture for player 1 is the same whatever player 0 placed; the whole picture is not."""
    pytest.importorskip("PIL")
    a, b = _deploying("1-0"), _deploying("3-1")
    assert a.picture(200, player=1).tobytes() == b.picture(200, player=1).tobytes()
    assert a.picture(200).tobytes() != b.picture(200).tobytes()


def test_bd6_the_environment_hides_deployment():
    """BD6: in the AEC environment, player_1's observation during deployment shows none of player_0's units, and
    render shows the board as the agent to act sees it."""
    from suntzu_env.binfa import raw_env

    env = raw_env(render_mode="ansi")
    env.reset(seed=3)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.infos["player_0"]["action_mask"])[0]))
    assert env.agent_selection == "player_1"
    assert observation_views(env.observe("player_1")["observation"])["height"].sum() == 0
    assert observation_views(env.observe("player_0")["observation"])["height"].sum() == pytest.approx(1.0)
    assert env.render() == env.game.render(1) != env.game.render()


def test_bd6_a_v1_deployment_is_visible():
    """Rules v1 showed the placements as they were made: a v1 position in deployment hides nothing."""
    d = _deploying("1-0").to_dict()
    v1 = Game.from_dict({**d, "rules_version": 1})
    assert v1.view_dict(1) == v1.to_dict() and observation_views(v1.observation(1))["height"].sum() == pytest.approx(
        13 / 12
    )


def test_bd6_resampled_placements_of_the_others_keep_every_observation():
    """BD6: at every deployment decision of random games (2 to 4 players, with terrain), the other players'
    placements drawn again (`sample_determinization`) change nothing a player observes, nor, for the player to
    act, its legal answers; the check catches a v1 deployment, which shows them."""
    rng = np.random.default_rng(0)
    changed = 0
    for seed, options in enumerate([{"players": 2}, {"players": 3, "level": 2}, {"players": 4, "level": 4}] * 2):
        g = Game.new(seed, **options)
        while g.to_dict()["phase"] == "deploy":
            for p in range(g.players):
                other = g.sample_determinization(p, rng)
                changed += other.to_dict() != g.to_dict()
                assert np.array_equal(other.observation(p), g.observation(p)), (seed, p)
                if p == g.current_player:
                    assert other.legal_actions() == g.legal_actions()
            g.apply(g.legal_actions()[int(rng.integers(len(g.legal_actions())))])
    assert changed > 100
    v1 = Game.from_dict({**_deploying("1-0").to_dict(), "rules_version": 1})
    leaky = Game.from_dict({**_deploying("3-1").to_dict(), "rules_version": 1})
    assert not np.array_equal(v1.observation(1), leaky.observation(1))


# ------------------------------------------------------------------ records


def test_records_name_their_rules():
    """New games are rules "1.1"; their records and positions say so and replay under them."""
    g = Game.new(2, deployment="random")
    assert g.rules_version == "1.1" and g.record()["rules_version"] == "1.1" and g.to_dict()["rules_version"] == "1.1"
    with pytest.raises(ValueError, match=r"record\.rules_version: expected 1 or '1\.1'"):
        Game.replay({**g.record(), "rules_version": 2})
    with pytest.raises(ValueError, match=r"record\.start\.rules_version"):
        Game.replay({**game(DISLODGE).record(), "rules_version": 1})


def test_a_position_with_only_the_contract_fields_loads_at_the_start_of_a_turn():
    """BINFA.md, Records: a position written by hand with only the contract's fields, at the start of a turn,
    loads as a turn about to be declared, under rules v1.1, its preset dice thrown first."""
    d = position(DISLODGE, dice=[[3, 1]])
    full = Game.from_dict(d).to_dict()
    contract = {k: d[k] for k in ("options", "armies", "board", "terrain", "whirlpools", "in_whirlpools", "store")}
    contract |= {k: d[k] for k in ("tokens", "pawns", "to_act", "turns", "eliminated", "winner", "dice")}
    contract["turn"] = {"army": "red", "mode": None, "moves_left": 0, "dislodge": None}
    g = Game.from_dict(json.loads(json.dumps(contract)))
    got = g.to_dict()
    assert got["phase"] == "play" and got["decision"] == "declare" and got["rules_version"] == "1.1"
    assert {k: v for k, v in got.items() if k not in ("rng", "generator")} == {
        k: v for k, v in full.items() if k not in ("rng", "generator")
    }
    assert got["turn"]["player"] == 0 and got["eliminated_armies"] == [] and got["fresh_whirlpools"] == []
    g.apply("roll")
    assert g.decision["throw"] == [3, 1] and g.decision["moves_left"] == 2
    with pytest.raises(ValueError, match=r"record\.turn\.army: missing"):
        Game.from_dict({**contract, "turn": {"mode": None, "moves_left": 0, "dislodge": None}})
