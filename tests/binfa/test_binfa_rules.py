"""Bin'Fa rule tests: every rule B1-B50 and decision BD1-BD29, values worked out by hand from the rules.

Positions are records (`tests/binfa/test_binfa_helpers.py`) with the throws to come in their `dice` list.
"""

from __future__ import annotations

import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.geometry import BORDER
from suntzu_env.binfa.geometry import CENTRAL
from suntzu_env.binfa.geometry import COLOURS
from suntzu_env.binfa.geometry import DEGREE
from suntzu_env.binfa.geometry import N_TRIANGLES
from suntzu_env.binfa.geometry import NEIGHBOURS
from suntzu_env.binfa.geometry import RING_COLOUR
from suntzu_env.binfa.geometry import TRIANGLE_INDEX
from suntzu_env.binfa.geometry import TRIANGLE_NAMES
from test_binfa_helpers import game
from test_binfa_helpers import position
from test_binfa_helpers import stacks
from test_binfa_helpers import strings

R, G = "red", "green"


def nb(name: str) -> set[str]:
    return {TRIANGLE_NAMES[u] for u in NEIGHBOURS[TRIANGLE_INDEX[name]] if u >= 0}


# ------------------------------------------------------------------ B0: the board (BD1-BD3)


def test_b0_geometry_bd2():
    """B0.2, B0.3, BD2: 96 triangles, 3 neighbours each but the 24 border ones, which have 2 (B10)."""
    assert N_TRIANGLES == 96 and len(BORDER) == 24
    assert sorted(set(DEGREE.tolist())) == [2, 3]
    assert nb("red-1-0") == {"red-2-1", "orange-1-0", "violet-1-0"}
    assert nb("red-2-1") == {"red-2-0", "red-2-2", "red-1-0"}
    assert nb("red-2-0") == {"violet-2-2", "red-2-1", "red-3-1"}
    assert nb("red-4-0") == {"violet-4-6", "red-4-1"}
    assert nb("red-4-3") == {"red-4-2", "red-4-4", "red-3-2"}
    for t in range(N_TRIANGLES):
        for u in NEIGHBOURS[t]:
            assert u < 0 or t in NEIGHBOURS[u]


def test_b0_ring_bd3_bd1():
    """B0.4, BD3, BD1: circles 2-4 of a sector take its colour, 0-1 the previous one's, 5-6 the next one's."""
    assert COLOURS == ("red", "orange", "yellow", "green", "blue", "violet")
    assert [COLOURS[c] for c in RING_COLOUR[:7]] == ["violet", "violet", "red", "red", "red", "orange", "orange"]
    assert all((c == RING_COLOUR).sum() == 7 for c in range(6))
    assert CENTRAL.tolist() == [3, 10, 17, 24, 31, 38]


# ------------------------------------------------------------------ setup (B1, B2, BD4, BD6)


def test_b1_bd6_deployment_unit_by_unit():
    """B1, BD6: player 0 places its 12 units one by one on its 16 base triangles, then player 1."""
    g = Game.new(5)
    first = g.to_dict()
    colour = next(c for c, p in first["armies"].items() if p == 0)
    assert g.decision["kind"] == "deploy" and g.current_player == 0
    assert g.legal_action_strings() == sorted(f"deploy:{colour}-{r}-{p}" for r in range(1, 5) for p in range(2 * r - 1))
    for _ in range(12):
        assert g.current_player == 0
        g.apply(f"deploy:{colour}-4-0")
    assert g.current_player == 1
    assert stacks(g) == {f"{colour}-4-0": [colour] * 12}


def test_b1_random_deployment_on_bases():
    """B1: deployment='random' puts each army's 12 units on its own base."""
    g = Game.new(9, players=3, deployment="random")
    d = g.to_dict()
    counts = {c: 0 for c in d["armies"]}
    for name, stack in d["board"].items():
        assert all(c == name.split("-")[0] for c in stack)
        counts[stack[0]] += len(stack)
    assert counts == {c: 12 for c in d["armies"]}


def test_bd4_armies_adjacent():
    """BD4, B47: with 3 armies each, a player's armies are three adjacent sectors."""
    for seed in range(5):
        d = Game.new(seed, players=2, armies_per_player=3, deployment="random").to_dict()
        mine = sorted(COLOURS.index(c) for c, p in d["armies"].items() if p == 0)
        assert any(sorted((b + k) % 6 for k in range(3)) == mine for b in range(6))


def _last_deploy(dice):
    """Player 1 places its last unit; B2's throws follow."""
    d = position({"red-4-0": [R] * 12, "green-4-0": [G] * 11}, dice=dice, player=1, army=None, decision="deploy")
    d["phase"] = "deploy"
    d["deploying"] = {"index": 1, "left": 1}
    d["turn"]["player"] = None
    return Game.from_dict(d)


def test_b2_lowest_throw_starts_ties_throw_again():
    """B2: lowest total starts (3+4 against 1+2: player 1); a tie throws again. BD30: player 1's only answer is
    its compulsory first throw (no dislodge in reach), which applies itself: 5-2, three moves."""
    g = _last_deploy([[3, 4], [1, 2], [5, 2]])
    g.apply("deploy:green-4-0")
    assert g.decision["kind"] == "move" and g.current_player == 1
    assert g.decision["throw"] == [5, 2] and g.decision["moves_left"] == 3
    g = _last_deploy([[2, 2], [1, 3], [6, 5], [1, 1], [5, 2]])
    g.apply("deploy:green-4-0")
    assert g.current_player == 1 and g.decision["throw"] == [5, 2]


# ------------------------------------------------------------------ a turn (B3-B9)

BASE = {"red-3-1": [R] * 6, "red-1-0": [R] * 6, "green-3-1": [G] * 12}


def test_b3_b5_difference_moves_exactly():
    """B3, B5: 6 and 1 give five moves, all to be made; then the player declares again."""
    g = game(BASE, dice=[[6, 1]], mode="move")
    g.apply("roll")
    assert g.decision["kind"] == "move" and g.decision["moves_left"] == 5
    assert "stop" not in g.legal_action_strings()
    for i in range(5):
        g.apply("move:red-3-1>red-3-0:1" if i % 2 == 0 else "move:red-3-0>red-3-1:1")
    assert g.decision["kind"] == "declare" and g.current_player == 0
    assert stacks(g)["red-3-0"] == [R] and stacks(g)["red-3-1"] == [R] * 5


def test_b4_move_some_or_all_units_across_an_edge():
    """B4: a move carries 1..all units of a stack to an edge neighbour (not through a corner)."""
    g = game(BASE, dice=[[2, 1]], mode="move")
    g.apply("roll")
    moves = strings(g, "move:red-3-1>")
    assert sorted({m.split(":")[1] for m in moves}) == ["red-3-1>red-2-0", "red-3-1>red-3-0", "red-3-1>red-3-2"]
    assert {int(m.split(":")[2]) for m in moves} == set(range(1, 7))


def test_b8_double_ends_turn_b9_stop():
    """B8: a double ends the turn with no move; B9: the player may stop between throws (BD30: once it threw)."""
    g = game(BASE, dice=[[4, 4], [2, 1]], mode="move")
    g.apply("roll")  # green's compulsory first throw (BD30), 2-1, applies itself
    assert g.current_player == 1 and g.decision["kind"] == "move" and g.turns == 1
    g = game(BASE, mode="move")
    g.apply("stop")
    assert g.current_player == 1 and g.turns == 1


def test_b6_b7_bd8_blocked_covered_stack_colour():
    """B6: no entry onto 2+ units of another colour; B7: a single one is covered, the stack takes the top's
    colour; BD8: the covered unit moves only with the whole stack."""
    board = {"red-3-1": [R] * 4, "red-4-5": [R] * 8, "red-3-0": [G, G], "red-3-2": [G], "green-3-1": [G] * 9}
    g = game(board, dice=[[3, 1]])
    g.apply("roll")
    assert not strings(g, "move:red-3-1>red-3-0")
    g.apply("move:red-3-1>red-3-2:2")
    assert stacks(g)["red-3-2"] == [G, R, R]
    assert {m.split(":")[2] for m in strings(g, "move:red-3-2>red-3-3")} == {"1", "2", "3"}
    g.apply("move:red-3-2>red-3-3:3")
    assert stacks(g)["red-3-3"] == [G, R, R] and "red-3-2" not in stacks(g)


# ------------------------------------------------------------------ capture and elimination (B10-B13, BD9)


def _capture_board(red_at_edge: list[str], red_elsewhere: int):
    board = {"red-4-0": red_at_edge, "red-4-1": [G, G], "violet-4-5": [G] * 3, "green-1-0": [G] * 7}
    if red_elsewhere:
        board["red-1-0"] = [R] * red_elsewhere
    g = game(board, dice=[[2, 1]], player=1, army=G, mode="move")
    g.apply("roll")
    return g


def test_b10_b11_border_stack_surrounded_on_two_sides():
    """B10, B11, BD9: a border stack of 2 with both neighbours held by 2+ enemy units is captured."""
    g = _capture_board([R, R], 10)
    g.apply("move:violet-4-5>violet-4-6:2")
    board = stacks(g)
    assert "red-4-0" not in board and board["violet-4-6"] == [G, G] and board["red-1-0"] == [R] * 10
    assert g.current_player == 1  # the move ended the throw: green declares again


def test_b11_single_unit_never_captured():
    """B11: only a stack of 2 to 12 units is surrounded; a single unit stays."""
    g = _capture_board([R], 11)
    g.apply("move:violet-4-5>violet-4-6:2")
    assert stacks(g)["red-4-0"] == [R]


def test_b12_b13_elimination_and_winner():
    """B12: an army at 3 units or fewer leaves the board; B13: the last player with units wins."""
    g = _capture_board([R, R], 3)
    g.apply("move:violet-4-5>violet-4-6:2")
    assert g.is_terminal and g.winner == 1 and g.eliminated() == [0]
    assert all(R not in s for s in stacks(g).values())
    assert g.returns() == {0: -1.0, 1: 1.0}


def test_b12_covered_units_count_for_the_coverer():
    """B7, B12: covering green's fourth unit leaves green 3 units: green is eliminated; the covered unit
    stays in red's stack and counts for red."""
    board = {"red-3-1": [R] * 12, "red-3-2": [G], "green-1-0": [G] * 3}
    g = game(board, dice=[[2, 1]])
    g.apply("roll")
    g.apply("move:red-3-1>red-3-2:1")
    assert g.winner == 0 and stacks(g) == {"red-3-1": [R] * 11, "red-3-2": [G, R]}


def test_bd9_checked_after_the_attackers_advance():
    """BD9, B16: green's stack retreats into a pocket; when red's attacker fills the freed triangle the
    pocket is closed and the green stack is captured."""
    board = {"red-3-1": [R] * 3, "red-3-4": [R] * 2, "red-2-2": [R] * 2, "red-4-3": [R] * 2, "red-1-0": [R] * 3,
             "red-3-2": [G, G], "green-1-0": [G] * 10}  # fmt: skip
    g = game(board, dice=[[6, 5]])
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.legal_action_strings() == ["retreat:red-3-3:1", "retreat:red-3-3:2"]
    g.apply("retreat:red-3-3:2")
    board = stacks(g)
    assert "red-3-3" not in board and board["red-3-2"] == [R] * 3 and g.decision["moves_left"] == 1


# ------------------------------------------------------------------ dislodging (B14-B20, BD10, BD17, BD23)

DL = {"red-3-1": [R] * 3, "red-1-0": [R] * 9, "red-3-2": [G, G], "green-1-0": [G] * 10}


def test_b14_b15_dislodge_needs_a_higher_adjacent_stack():
    """B14, B15: declared before the throw, by a strictly higher stack next to the attacked one."""
    assert "dislodge:red-3-1>red-3-2" in game(DL).legal_action_strings()
    level = {**DL, "red-3-2": [G] * 3, "green-1-0": [G] * 9}
    assert "dislodge:red-3-1>red-3-2" not in game(level).legal_action_strings()


def test_b16_one_six_retreat_split_attacker_advances():
    """B16: a 6 (6-2): the attacked owner retreats its units (may split), the attacker moves onto the freed
    triangle, then 4 moves."""
    g = game(DL, dice=[[6, 2]])
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.decision["kind"] == "retreat" and g.current_player == 1
    assert g.legal_action_strings() == [
        "retreat:red-3-3:1", "retreat:red-3-3:2", "retreat:red-4-3:1", "retreat:red-4-3:2",
    ]  # fmt: skip
    g.apply("retreat:red-3-3:1")
    g.apply("retreat:red-4-3:1")
    board = stacks(g)
    assert board["red-3-2"] == [R] * 3 and "red-3-1" not in board
    assert board["red-3-3"] == [G] and board["red-4-3"] == [G]
    assert g.current_player == 0 and g.decision["kind"] == "move" and g.decision["moves_left"] == 4


def test_b17_no_six_nothing_moves():
    """B17: no 6: nothing moves, the player goes on; a double without a 6 ends the turn."""
    g = game(DL, dice=[[3, 2]])
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.decision["kind"] == "declare" and g.current_player == 0 and stacks(g) == game(DL).to_dict()["board"]
    g = game(DL, dice=[[3, 3]])
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.current_player == 1


def test_b18_bd10_bd17_double_six_two_steps():
    """B18, BD10, BD17: on 6-6 the attacked stack retreats two triangles whole; the attacker occupies the
    second triangle left; no moves, the turn ends."""
    g = game(DL, dice=[[6, 6]])
    g.apply("dislodge:red-3-1>red-3-2")
    assert g.legal_action_strings() == ["retreat:red-3-3:2", "retreat:red-4-3:2"]
    g.apply("retreat:red-3-3:2")
    assert g.legal_action_strings() == ["retreat:red-2-2:2", "retreat:red-3-4:2"]  # not back to red-3-2
    g.apply("retreat:red-3-4:2")
    board = stacks(g)
    assert board["red-3-3"] == [R] * 3 and board["red-3-4"] == [G, G] and "red-3-2" not in board
    assert g.current_player == 1


def test_b19_second_step_only_the_retreating_units():
    """B19: reaching green units first, the two retreating units still make the second step; the one
    already there stays (and the attacker covers it, BD17)."""
    board = {**DL, "red-3-3": [G], "green-1-0": [G] * 9}
    g = game(board, dice=[[6, 6]])
    g.apply("dislodge:red-3-1>red-3-2")
    g.apply("retreat:red-3-3:2")
    assert stacks(g)["red-3-3"] == [G, G, G]
    assert g.legal_action_strings() == ["retreat:red-2-2:2", "retreat:red-3-4:2"]
    g.apply("retreat:red-2-2:2")
    board = stacks(g)
    assert board["red-2-2"] == [G, G] and board["red-3-3"] == [G, R, R, R]


def test_b20_units_that_cannot_retreat_are_lost():
    """B20: a single green unit on the border with both exits held by red stacks is lost."""
    board = {"red-4-1": [R] * 2, "violet-4-6": [R] * 2, "red-1-0": [R] * 8, "red-4-0": [G], "green-1-0": [G] * 11}
    g = game(board, dice=[[6, 1]])
    g.apply("dislodge:red-4-1>red-4-0")
    assert stacks(g)["red-4-0"] == [R, R] and g.to_dict()["board"]["green-1-0"] == [G] * 11
    assert g.decision["moves_left"] == 5


def test_bd23_revealed_units_retreat_too():
    """BD23: a covered unit revealed during a split retreat retreats as well, chosen by its own player."""
    board = {"red-3-1": [R] * 4, "red-1-0": [R] * 7, "red-3-2": [R, G, G], "green-1-0": [G] * 10}
    armies = {"red": 0, "green": 1}
    g = game(board, dice=[[6, 2]], armies=armies)
    g.apply("dislodge:red-3-1>red-3-2")
    g.apply("retreat:red-3-3:2")
    # the revealed red unit is red's own: the attacker joins it
    assert stacks(g)["red-3-2"] == [R] * 5


# ------------------------------------------------------------------ terrain (B21-B23)


def test_b21_random_terrain_connected():
    """B21: the seed places 9 markers leaving the battlefield connected; a cutting layout is refused."""
    from suntzu_env.binfa.engine import connected

    for seed in range(5):
        d = Game.new(seed, level=2).to_dict()
        assert len(d["terrain"]) == 9 and d["whirlpools"] == []
        blocked = [1 if n in d["terrain"] else 0 for n in TRIANGLE_NAMES]
        import numpy as np

        assert connected(np.array(blocked, dtype=np.int8))
    with pytest.raises(ValueError, match="B21"):
        Game.new(0, level=2, terrain=["red-4-1", "violet-4-6"])


def test_b22_no_unit_on_terrain_b23_terrain_surrounds():
    """B22: no deployment or move onto terrain; B23: terrain helps surround."""
    g = Game.new(0, level=2, terrain=["red-4-1", "orange-4-1", "yellow-4-1", "green-4-1", "blue-4-1", "violet-4-1"])
    assert not any(a.endswith("-4-1") for a in g.legal_action_strings())
    board = {"red-4-0": [R, R], "red-1-0": [R] * 10, "violet-4-5": [G] * 3, "green-1-0": [G] * 9}
    g = game(board, level=2, terrain=["red-4-1"], dice=[[2, 1]], player=1, army=G, mode="move")
    g.apply("roll")
    g.apply("move:violet-4-5>violet-4-6:2")
    assert "red-4-0" not in stacks(g)


# ------------------------------------------------------------------ supply (B24-B37)

SUP = {"red-3-1": [R] * 6, "red-1-0": [R] * 6, "green-3-1": [G] * 12}


def sup(**kw):
    kw.setdefault("tokens", {"red": 5, "green": 5})
    kw.setdefault("store", 50)
    kw.setdefault("pawns", {"red": 0, "green": 21})
    return game(kw.pop("board", SUP), level=3, **kw)


def test_b24_b25_pawns_then_tokens_fewest_starts():
    """B24: each army's pawn on one of the 7 circles facing its base; B25: tokens from two dice, the army
    with fewest starts."""
    g = Game.new(4, level=3, deployment="random")
    colour = next(c for c, p in g.to_dict()["armies"].items() if p == 0)
    k = COLOURS.index(colour)
    assert g.decision["kind"] == "pawn" and set(g.legal_action_strings()) == {f"pawn:{7 * k + i}" for i in range(7)}
    while g.decision["kind"] == "pawn":
        g.apply(g.legal_action_strings()[0])
    d = g.to_dict()
    assert all(2 <= n <= 12 for n in d["tokens"].values()) and d["store"] == 60 - sum(d["tokens"].values())
    assert d["tokens"][g.decision["army"]] == min(d["tokens"].values())


def test_b26_b28_move_throw_costs_a_token():
    """B26, B28: move or resupply, declared before the first throw (no stop before it, BD30); each move throw
    pays a token."""
    g = sup(dice=[[5, 3]])
    assert g.legal_action_strings() == ["roll", "resupply"]
    g.apply("roll")
    d = g.to_dict()
    assert d["tokens"]["red"] == 4 and d["store"] == 51
    g.apply("move:red-3-1>red-3-0:1")
    g.apply("move:red-3-0>red-3-1:1")
    assert g.legal_action_strings() == ["roll", "stop"]  # no resupply once moving (B26)


def test_b28_no_token_no_throw():
    """B28: with no token, the army cannot throw to move; BD30: nor stop before a throw, so it resupplies at once
    (its one answer): 2-1 moves the pawn from circle 0 by 1, 2 or 3."""
    g = sup(tokens={"red": 0, "green": 10}, dice=[[2, 1]])
    assert g.decision["kind"] == "resupply" and g.decision["throw"] == [2, 1]
    assert g.legal_action_strings() == ["pawn:+1", "pawn:+2", "pawn:+3"]


def test_b29_b30_resupply_own_colour():
    """B29: the pawn moves by one die or the total; B30: on its own colour it takes as many tokens."""
    g = sup(dice=[[2, 4]])
    g.apply("resupply")
    assert g.legal_action_strings() == ["pawn:+2", "pawn:+4", "pawn:+6"]
    g.apply("pawn:+4")  # circle 4: red
    d = g.to_dict()
    assert d["pawns"]["red"] == 4 and d["tokens"]["red"] == 9 and d["store"] == 46 and g.current_player == 1


def test_b29_other_colour_nothing():
    """B30, B31: circle 6 is orange (BD3); red has no unit in orange's sector: nothing."""
    g = sup(dice=[[2, 4]])
    g.apply("resupply")
    g.apply("pawn:+6")
    assert g.to_dict()["tokens"]["red"] == 5


def test_b31_units_in_that_sector():
    """B31: with a unit in orange's sector, landing on an orange circle pays as many tokens."""
    g = sup(board={**SUP, "red-1-0": [R] * 5, "orange-2-1": [R]}, dice=[[2, 4]])
    g.apply("resupply")
    g.apply("pawn:+6")
    assert g.to_dict()["tokens"]["red"] == 11


def test_b27_double_throws_again():
    """B27: a double keeps the dice: 3-3 then 1-2."""
    g = sup(dice=[[3, 3], [1, 2]])
    g.apply("resupply")
    assert g.legal_action_strings() == ["pawn:+3", "pawn:+6"]
    g.apply("pawn:+3")  # circle 3, red's own central circle: B30
    assert g.current_player == 0 and g.legal_action_strings() == ["pawn:+1", "pawn:+2", "pawn:+3"]
    g.apply("pawn:+1")  # circle 4: red
    assert g.to_dict()["tokens"]["red"] == 9 and g.current_player == 1


def test_b32_bd11_central_circle_takes_from_that_army_b33():
    """B32, BD11: on green's central circle (24), red takes as many tokens from green, at most what it has (B33)."""
    g = sup(pawns={"red": 18, "green": 21}, tokens={"red": 5, "green": 4}, store=51, dice=[[6, 2]])
    g.apply("resupply")
    g.apply("pawn:+6")
    d = g.to_dict()
    assert d["tokens"] == {"red": 9, "green": 0} and d["store"] == 51


def test_b33_store_short():
    """B33: the store pays what it holds."""
    g = sup(tokens={"red": 30, "green": 29}, store=1, dice=[[2, 4]])
    g.apply("resupply")
    g.apply("pawn:+4")
    d = g.to_dict()
    assert d["tokens"]["red"] == 31 and d["store"] + d["tokens"]["green"] == 29  # green then must pay (B35)


def test_b34_no_landing_on_a_pawn():
    """B34: a pawn never ends on an occupied circle."""
    g = sup(pawns={"red": 0, "green": 2}, dice=[[2, 4]])
    g.apply("resupply")
    assert g.legal_action_strings() == ["pawn:+4", "pawn:+6"]


def test_b35_empty_store_must_move_or_pass():
    """B35: with the store empty, the player must pay and throw; with no token it passes."""
    g = sup(tokens={"red": 30, "green": 30}, store=0, dice=[[4, 1]])
    # roll is the only answer: it applies itself (paying a token)
    assert g.decision["kind"] == "move" and g.decision["moves_left"] == 3
    assert g.to_dict()["tokens"]["red"] == 29 and g.to_dict()["store"] == 1
    g = sup(tokens={"red": 0, "green": 60}, store=0)
    assert g.current_player == 1 and g.turns == 1


def test_b36_tokens_public():
    """B36: every army's tokens and pawn are in the position anyone reads."""
    d = sup().to_dict()
    assert d["tokens"] == {"red": 5, "green": 5} and d["pawns"] == {"red": 0, "green": 21}


def test_b37_eliminator_takes_tokens():
    """B37, BD19: red eliminates green by covering its fourth unit and takes green's tokens."""
    board = {"red-3-1": [R] * 12, "red-3-2": [G], "green-1-0": [G] * 3}
    g = sup(board=board, tokens={"red": 5, "green": 7}, store=48, dice=[[2, 1]])
    g.apply("roll")
    g.apply("move:red-3-1>red-3-2:1")
    d = g.to_dict()
    assert d["tokens"] == {"red": 11, "green": 0} and g.winner == 0


# ------------------------------------------------------------------ whirlpools (B38-B46, BD13-BD18)

POOLS = ["red-3-2", "green-3-2", "blue-3-2"]
WH = {"red-3-1": [R] * 4, "red-1-0": [R] * 8, "green-1-0": [G] * 12}


def wh(board=None, **kw):
    kw.setdefault("tokens", {"red": 20, "green": 20})
    kw.setdefault("store", 20)
    kw.setdefault("pawns", {"red": 0, "green": 21})
    return game(board or WH, level=4, whirlpools=POOLS, **kw)


def test_b38_three_whirlpools():
    """B38: level 4 places 3 whirlpools with the 9 markers; level 1 with whirlpools is refused."""
    d = Game.new(2, level=4).to_dict()
    assert len(d["whirlpools"]) == 3 and len(d["terrain"]) == 9
    with pytest.raises(ValueError, match="whirlpools"):
        Game.new(0, level=1, whirlpools=POOLS)


def test_b39_enter_transfer_one_move_stay_until_next_throw():
    """B39: entering a whirlpool sends the units on to the others (they may split), all as one move; they
    cannot leave during that throw."""
    g = wh(dice=[[5, 2]])
    g.apply("roll")
    g.apply("move:red-3-1>red-3-2:3")
    assert g.decision["kind"] == "transfer"
    assert g.legal_action_strings() == [f"transfer:{w}:{n}" for w in ("green-3-2", "blue-3-2") for n in (1, 2, 3)]
    g.apply("transfer:green-3-2:2")
    g.apply("transfer:blue-3-2:1")
    d = g.to_dict()
    assert d["in_whirlpools"] == {"green-3-2": [R, R], "blue-3-2": [R]} and g.decision["moves_left"] == 2
    assert not strings(g, "move:green-3-2") and not strings(g, "move:blue-3-2")


def test_b39_last_units_only_with_the_last_move():
    """B39: an army's last units on the board enter a whirlpool only with the throw's last move."""
    board = {"red-3-1": [R] * 12, "green-1-0": [G] * 12}
    g = wh(board, dice=[[5, 2]])
    g.apply("roll")
    assert "move:red-3-1>red-3-2:12" not in g.legal_action_strings()
    g = wh(board, dice=[[3, 2]])
    g.apply("roll")
    assert "move:red-3-1>red-3-2:12" in g.legal_action_strings()


def test_b40_b42_exit_with_the_next_throw_or_be_lost():
    """B40: at the next throw units leave a whirlpool as moves; B42: those still inside at the end are lost."""
    g = wh(in_whirlpools={"green-3-2": [R, R], "blue-3-2": [R]}, board={"red-1-0": [R] * 9, "green-1-0": [G] * 12},
           dice=[[4, 3]])  # fmt: skip
    g.apply("roll")
    assert strings(g, "move:green-3-2>") and strings(g, "move:blue-3-2>")
    g.apply("move:green-3-2>green-3-1:2")
    d = g.to_dict()
    assert d["in_whirlpools"] == {} and d["board"]["green-3-1"] == [R, R]
    assert sum(len(s) for s in d["board"].values() if s[0] == R) == 11


def test_b41_double_loses_whirlpool_units():
    """B41: a double at the next throw loses the units in whirlpools; the turn ends."""
    g = wh(in_whirlpools={"green-3-2": [R, R]}, board={"red-1-0": [R] * 10, "green-1-0": [G] * 12}, dice=[[2, 2]])
    g.apply("roll")
    assert g.to_dict()["in_whirlpools"] == {} and g.current_player == 1


def test_b43_b44_dislodged_into_whirlpool_lost_tokens_to_store():
    """B43, BD24: units pushed toward a whirlpool only are lost (a retreat never ends in one); B44, BD19: an
    army eliminated so gives its tokens back to the store."""
    board = {"red-4-1": [R] * 2, "red-1-0": [R] * 10, "red-4-0": [G], "green-1-0": [G] * 3}
    g = game(board, level=4, whirlpools=["violet-4-6", "green-3-2", "blue-3-2"], dice=[[6, 1]],
             tokens={"red": 20, "green": 7}, store=33, pawns={"red": 0, "green": 21})  # fmt: skip
    g.apply("dislodge:red-4-1>red-4-0")
    d = g.to_dict()
    assert g.winner == 0 and d["tokens"]["red"] == 19 and d["store"] == 41


def test_b45_second_step_not_into_whirlpool():
    """B45: on 6-6 the second step may not end in a whirlpool."""
    board = {"red-3-1": [R] * 3, "red-1-0": [R] * 9, "red-3-0": [G, G], "green-1-0": [G] * 10}
    g = game(board, level=4, whirlpools=["red-4-2", "green-3-2", "blue-3-2"], dice=[[6, 6]],
             tokens={"red": 20, "green": 20}, store=20, pawns={"red": 0, "green": 21})  # fmt: skip
    g.apply("dislodge:red-3-1>red-3-0")
    g.apply("retreat:red-4-1:2")  # red-4-1's neighbours: red-4-0, red-4-2 (whirlpool), red-3-0 (left)
    d = g.to_dict()
    assert d["board"]["red-4-0"] == [G, G] and d["board"]["red-4-1"] == [R] * 3


def test_b46_leaving_onto_enemy_is_a_dislodge():
    """B46: units leave a whirlpool onto enemy units only by a dislodge; without a 6 they wait."""
    g = wh(in_whirlpools={"green-3-2": [R] * 3}, board={"red-1-0": [R] * 9, "green-3-1": [G, G], "green-1-0": [G] * 10},
           dice=[[2, 3], [6, 1]])  # fmt: skip
    assert "dislodge:green-3-2>green-3-1" in g.legal_action_strings()
    g.apply("dislodge:green-3-2>green-3-1")
    assert g.to_dict()["in_whirlpools"] == {"green-3-2": [R] * 3}
    g.apply("dislodge:green-3-2>green-3-1")
    g.apply("retreat:green-3-0:2")
    d = g.to_dict()
    assert d["board"]["green-3-1"] == [R] * 3 and d["in_whirlpools"] == {}


# ------------------------------------------------------------------ several armies (B47-B50)

SIX = {"red": 0, "orange": 0, "yellow": 0, "green": 1, "blue": 1, "violet": 1}


def test_b47_b48_b49_b50_multiple_armies():
    """B48: the player names the army before throwing; B50: each army pays with its own tokens; B49: the
    same rules between a player's own armies (red may cover orange's lone unit)."""
    board = {f"{c}-1-0": [c] * 11 for c in SIX} | {"red-2-2": [R], "orange-2-0": ["orange"]}
    tokens = {c: 5 for c in SIX} | {"red": 0}
    pawns = {c: 7 * i for i, c in enumerate(COLOURS)}
    g = game(board, level=3, armies=SIX, players=2, armies_per_player=3, army=None, decision="army", tokens=tokens,
             store=35, pawns=pawns, dice=[[2, 1]])  # fmt: skip
    assert g.legal_action_strings() == ["army:red", "army:orange", "army:yellow"]
    g.apply("army:red")
    assert g.decision["kind"] == "resupply"  # B50: red has no token, so it resupplies (BD30: no stop before a throw)
    g = game(board, level=1, armies=SIX, players=2, armies_per_player=3, army=None, decision="army", dice=[[2, 1]])
    g.apply("army:red")  # BD30: its one answer, roll, applies itself: 2-1, one move
    g.apply("move:red-2-2>orange-2-0:1")
    assert stacks(g)["orange-2-0"] == ["orange", R]
    assert g.current_player == 0 and g.decision["kind"] == "declare"
    g.apply("stop")
    assert g.current_player == 1 and g.decision["kind"] == "army"  # B47: play passes player to player


# ------------------------------------------------------------------ the end (BD5)


def test_bd5_max_turns_undecided():
    """BD5: after max_turns turns the game ends undecided, 0 to everyone still in."""
    g = Game.new(0, max_turns=3, deployment="random")
    while not g.is_terminal:
        g.apply("stop" if "stop" in g.legal_action_strings() else g.legal_action_strings()[0])
    assert g.winner == "undecided" and g.turns == 3 and g.returns() == {0: 0.0, 1: 0.0}


# ------------------------------------------------------------------ the project's further decisions (BD7-BD29)


def test_bd7_clockwise_by_sector():
    """BD7: play goes clockwise by sector: red (0), orange (1), green (3), whatever the seats. Red stops; orange
    (player 2) throws at once (BD30: roll is its one answer) a double, which ends its turn (B8); then green
    (player 1) throws 2-1 and moves."""
    board = {"red-1-0": [R] * 12, "orange-1-0": ["orange"] * 12, "green-1-0": [G] * 12}
    g = game(board, players=3, armies={"red": 0, "green": 1, "orange": 2}, mode="move", dice=[[3, 3], [2, 1]])
    g.apply("stop")
    assert g.current_player == 1 and g.turns == 2 and g.decision["throw"] == [2, 1]


def test_bd15_no_legal_move_lapses():
    """BD15: red's four lone units are all blocked: the throw's moves lapse and red declares again."""
    board = {t: [R] for t in ("red-4-0", "red-4-2", "red-4-4", "red-4-6")}
    board |= {t: [G, G] for t in ("red-4-1", "red-4-3", "red-4-5", "violet-4-6", "orange-4-0", "green-1-0")}
    g = game(board, dice=[[3, 1]])
    g.apply("roll")
    assert g.decision["kind"] == "declare" and g.current_player == 0 and g.legal_action_strings() == ["roll", "stop"]


def test_bd14_exit_covers_a_lone_unit_bd25_not_surrounded():
    """BD14 (rules v1): leaving a whirlpool is an ordinary move: it may cover a lone enemy unit (v1.1: BD32).
    BD25: units waiting in a whirlpool are never surrounded, even with 2+ enemy units all around."""
    pools = {"green-3-2": [R, R]}
    board = {"red-1-0": [R] * 10, "green-3-1": [G], "green-3-3": [G, G], "green-4-3": [G, G], "green-1-0": [G] * 7}
    g = wh(board, in_whirlpools=pools, dice=[[2, 1]], rules_version=1)
    assert g.to_dict()["in_whirlpools"] == pools
    g.apply("roll")
    assert "move:green-3-2>green-3-1:2" in g.legal_action_strings()
    g.apply("move:green-3-2>green-3-1:2")
    assert stacks(g)["green-3-1"] == [G, R, R]


def test_bd16_resupply_throws_leave_whirlpool_units_waiting():
    """BD16: a resupply throw is not the army's next move throw: its units in a whirlpool keep waiting."""
    pools = {"green-3-2": [R, R]}
    g = wh({"red-1-0": [R] * 10, "green-1-0": [G] * 12}, in_whirlpools=pools, dice=[[2, 1]])
    g.apply("resupply")
    g.apply("pawn:+2")
    assert g.to_dict()["in_whirlpools"] == pools and g.current_player == 1


def test_bd20_uncovered_unit_of_an_eliminated_army_leaves():
    """BD20: green is out; its unit covered by red stays while covered and leaves once left alone."""
    board = {"red-3-2": [G, R, R], "red-1-0": [R] * 10, "blue-1-0": ["blue"] * 12}
    d = position(board, players=3, armies={"red": 0, "green": 1, "blue": 2}, dice=[[2, 1]], mode="move")
    d["eliminated_armies"], d["eliminated"] = ["green"], [1]
    g = Game.from_dict(d)
    g.apply("roll")
    g.apply("move:red-3-2>red-3-3:2")
    board = stacks(g)
    assert "red-3-2" not in board and board["red-3-3"] == [R, R]


def test_bd22_whirlpools_count_for_connectedness():
    """BD22, B21: a marker and a whirlpool that cut red-4-0 off are refused."""
    with pytest.raises(ValueError, match="B21"):
        Game.new(0, level=4, terrain=["red-4-1"], whirlpools=["violet-4-6", "green-3-2", "blue-3-2"])


def test_bd29_empty_store_names_an_army_that_can_pay():
    """BD29, B35, B48: with the store empty, only an army with tokens may be named (here orange, alone)."""
    board = {f"{c}-1-0": [c] * 12 for c in SIX}
    tokens = {c: 10 for c in SIX} | {"red": 0, "yellow": 0, "orange": 30}
    pawns = {c: 7 * i for i, c in enumerate(COLOURS)}
    g = game(board, level=3, armies=SIX, armies_per_player=3, army=None, decision="army", tokens=tokens, store=0,
             pawns=pawns, dice=[[4, 1]])  # fmt: skip
    assert g.decision["army"] == "orange" and g.decision["kind"] == "move" and g.decision["moves_left"] == 3


# ------------------------------------------------------------------ the end and the dice (BD21, BD27, BD28)


def test_bd21_everybody_out_at_once_is_undecided():
    """BD21: when the last players all go out at once, B13 names no winner: the game ends undecided and every
    player gets -1. Captures by a move take only other colours' stacks, so play rarely brings it about; here one
    unit of each army leaves at once (the engine's own `remove_top`), and the check that follows every step
    (`settle`) ends the game."""
    from suntzu_env.binfa import engine
    from suntzu_env.binfa.layout import OUT_RANK
    from suntzu_env.binfa.layout import UNDECIDED
    from suntzu_env.binfa.layout import WINNER

    g = game({"red-1-0": [R] * 4, "green-1-0": [G] * 4})
    s = g._s.copy()
    for name in ("red-1-0", "green-1-0"):
        engine.remove_top(s, TRIANGLE_INDEX[name], 1)  # 3 units each: both armies fall under B12 together
    assert engine.settle(s, False)
    assert s[WINNER] == UNDECIDED and s[OUT_RANK] > 0 and s[OUT_RANK + 1] > 0  # both out: -1 each (B0.8)
    one_out = g._s.copy()
    engine.remove_top(one_out, TRIANGLE_INDEX["green-1-0"], 1)  # B13 as usual: only green goes out, red wins
    assert engine.settle(one_out, False) and one_out[WINNER] == 0


def test_bd27_setup_throws_come_from_the_games_dice_each_army_its_own():
    """BD27: B25's throws are the game's dice (given throws here, in the army order red, orange, yellow, green,
    blue, violet), each army taking its own throw's total; the fewest tokens start (B25: player 0 holds
    2 + 3 + 4 = 9 against 6 + 8 + 11 = 25). Drawn from the seed, they come back when the record replays."""
    g = Game.new(2, level=3, players=2, armies_per_player=3, deployment="random")  # player 0: red, orange, yellow
    while True:
        nxt = g.clone()
        nxt.apply(g.legal_action_strings()[0])
        if nxt.decision["kind"] != "pawn":
            break
        g.apply(g.legal_action_strings()[0])
    drawn = g.clone()
    g.apply_with_dice(g.legal_action_strings()[0], [[1, 1], [1, 2], [2, 2], [3, 3], [4, 4], [5, 6]])
    d = g.to_dict()
    assert d["tokens"] == {"red": 2, "orange": 3, "yellow": 4, "green": 6, "blue": 8, "violet": 11}
    assert d["store"] == 60 - 34 and g.current_player == 0
    drawn.apply(drawn.legal_action_strings()[0])
    again = Game.replay(drawn.record())
    assert again.to_dict()["tokens"] == drawn.to_dict()["tokens"] and again.to_dict()["dice"] == []


def test_bd28_a_turn_is_each_passing_of_the_dice():
    """BD28, BD5: a double (B8) and a stop (B9) each pass the dice and count one turn; with max_turns 2 the
    second ends the game undecided, nobody eliminated, every reward 0. (Green's first throw, 2-1, is compulsory,
    BD30: it applies itself, and green stops after its one move.)"""
    d = position(BASE, dice=[[4, 4], [2, 1]], mode="move")
    d["options"]["max_turns"] = 2
    g = Game.from_dict(d)
    g.apply("roll")
    assert g.turns == 1 and g.current_player == 1 and not g.is_terminal
    g.apply("move:green-3-1>green-3-0:1")
    g.apply("stop")
    assert g.turns == 2 and g.is_terminal and g.winner == "undecided"
    assert g.returns() == {0: 0.0, 1: 0.0}
