"""Bin'Fa's search agent `mcts` (`suntzu_env.binfa.search`): deterministic, legal, blind to the dice to come and
to hidden placements (BD6), finds a winning capture, plays every level with 2, 3 and 6 players, and is registered
as `mcts` / `mcts:<iterations>`. Its time per decision is measured by `python -m suntzu_env.binfa.search_speed`,
never asserted here."""

from __future__ import annotations

import numpy as np
import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.agents import AG_HEURISTIC
from suntzu_env.binfa.agents import agent_action
from suntzu_env.binfa.agents import new_scratch
from suntzu_env.binfa.ladder import agent_id
from suntzu_env.binfa.ladder import ladder
from suntzu_env.binfa.ladder import main
from suntzu_env.binfa.layout import DEC_KIND
from suntzu_env.binfa.layout import DK_DEPLOY
from suntzu_env.binfa.plugin import BINFA
from suntzu_env.binfa.plugin import SearchAgent
from suntzu_env.binfa.search import AG_SEARCH
from suntzu_env.binfa.search import E_SUM
from suntzu_env.binfa.search import ROLLOUT_DECISIONS
from suntzu_env.binfa.search import S_PLAYOUT_SHARE
from suntzu_env.binfa.search import S_PLAYOUT_SHARE_MANY
from suntzu_env.binfa.search import SEARCH_ITERATIONS
from suntzu_env.binfa.search import SEARCH_ITERATIONS_MANY
from suntzu_env.binfa.search import SETTINGS
from suntzu_env.binfa.search import SearchTree
from suntzu_env.binfa.search import search
from suntzu_env.binfa.search import search_action
from suntzu_env.core.asking import ask
from suntzu_env.core.rng import rng_seed
from test_binfa_helpers import game
from test_binfa_helpers import position

R, G = "red", "green"
# green (player 1) to move once (a 2-1 throw): violet-4-5 -> violet-4-6 closes red's border stack on red-4-0 (its
# other side red-4-1 is green's), capturing it; red, left with 3 units, is eliminated (B10-B13)
WIN = {"red-4-0": [R, R], "red-4-1": [G, G], "violet-4-5": [G] * 3, "green-1-0": [G] * 7, "red-1-0": [R] * 3}
WINNING = {"move:violet-4-5>violet-4-6:2", "move:violet-4-5>violet-4-6:3"}


def answer(g: Game, seed: int, iterations: int = 60, rollout: int = ROLLOUT_DECISIONS) -> int:
    return search(g._s, g._legal, g._n, rng_seed(seed), iterations, SearchTree(iterations), rollout)


def winning_position(**kw) -> Game:
    g = game(WIN, dice=[[2, 1]], player=1, army=G, mode="move", **kw)
    g.apply("roll")
    return g


def test_the_search_finds_the_winning_capture():
    """B10-B13: with one move to make, the search plays the move that captures red's last stack of 2 and wins."""
    g = winning_position()
    assert len(g.legal_actions()) > 5
    a = answer(g, 0)
    assert g.action_to_string(a) in WINNING
    g.apply(a)
    assert g.winner == 1


def test_the_search_makes_a_two_move_capture():
    """B5, B10: green throws 3-1 (two moves); its stack of 2 on red-3-1 reaches red-2-1, the open side of red's
    stack of 2 on red-2-2 (its other sides red-3-3 and orange-2-0 held by green), only in two moves (red-3-1 >
    red-2-0 > red-2-1): the capture, found by the tree alone (no playouts: each node valued where it stands)."""
    board = {"red-2-2": [R, R], "red-3-3": [G, G], "orange-2-0": [G, G], "red-3-1": [G, G],
             "green-4-0": [G] * 6, "blue-4-0": [R] * 10}  # fmt: skip
    g = game(board, dice=[[3, 1]], player=1, army=G, mode="move")
    g.apply("roll")
    first = answer(g, 1, 200, rollout=0)
    g.apply(first)
    g.apply(answer(g, 2, 200, rollout=0))
    assert "red-2-2" not in g.to_dict()["board"], g.to_dict()["board"]


def test_the_search_is_deterministic_and_blind_to_the_dice_to_come():
    """The same position and seed give the same answer, whatever the game's generator and preset throws hold:
    the search draws the dice from its own generator (B0.5)."""
    board = {"red-3-1": [R] * 4, "red-3-2": [G, G], "red-1-0": [R] * 8, "green-1-0": [G] * 10}
    answers = set()
    for rng, dice in ((12345, []), (999, []), (12345, [[6, 1], [6, 6], [2, 1]]), (7, [[3, 3]])):
        record = position(board, dice=dice)
        record["rng"] = rng
        g = Game.from_dict(record)
        assert len(g.legal_actions()) >= 2
        answers.add(answer(g, 5, 80))
    assert len(answers) == 1
    g = Game.from_dict(position(board))
    assert {answer(g, 5, 80) for _ in range(3)} == answers


@pytest.mark.parametrize(("players", "share", "other"), [(2, S_PLAYOUT_SHARE, S_PLAYOUT_SHARE_MANY),
                                                        (3, S_PLAYOUT_SHARE_MANY, S_PLAYOUT_SHARE)])  # fmt: skip
def test_a_node_is_valued_by_its_playout_and_where_it_stands_in_the_share_the_settings_give(players, share, other):
    """The playout's share of a new node's value: `playout_share` with 2 players, `playout_share_many` (0.25 by
    default) with 3 or more, the other never read. At a share of 0 the playouts change nothing (the same answer and
    the same summed values as no playout at all), at 0.25 and 1 they change the summed values."""
    armies = dict(list({"red": 0, "green": 1, "blue": 2}.items())[:players])
    board = {"red-3-1": [R] * 4, "red-3-2": [G, G], "red-1-0": [R] * 8, "green-1-0": [G] * 10}
    record = position(board, players=players, armies=armies)
    if players == 3:
        record["board"]["blue-1-0"] = ["blue"] * 6
    g = Game.from_dict(record)
    assert (SETTINGS[S_PLAYOUT_SHARE], SETTINGS[S_PLAYOUT_SHARE_MANY]) == (0.5, 0.25)
    sums = {}
    for rollout, value in ((0, 0.0), (20, 0.0), (20, 0.25), (20, 1.0)):
        settings = SETTINGS.copy()
        settings[share] = value
        settings[other] = 1.0 - value
        tree = SearchTree(40)
        a = search_action(g._s, g._legal, g._n, rng_seed(3), 40, rollout, settings, tree.arrays)
        sums[rollout, value] = (a, tree.arrays[2][: g._n, E_SUM].round(12).tolist())
    assert sums[0, 0.0] == sums[20, 0.0]
    assert len({str(sums[20, value][1]) for value in (0.0, 0.25, 1.0)}) == 3


def test_the_search_deploys_as_heuristic_without_reading_the_others():
    """BD6: during deployment the search places its units as `heuristic` does, and never reads the other armies'
    placements: the same placement whatever player 0 placed before."""
    placed = []
    for first in (0, 5):
        g = Game.new(3, {"players": 2})
        for _ in range(12):  # player 0 places all 12 units on one of two triangles
            g.apply(g.legal_actions()[first])
        assert g.current_player == 1 and g._s[DEC_KIND] == DK_DEPLOY
        mine = answer(g, 0)
        s = g._s.copy()
        heuristic = agent_action(AG_HEURISTIC, s, g._legal, g._n, rng_seed(0), new_scratch())
        assert mine == heuristic
        placed.append(mine)
    assert placed[0] == placed[1]


@pytest.mark.parametrize("level", [1, 2, 3, 4])
@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_search_plays_legal_answers_at_every_level(level, players):
    """Every seat searching (20 iterations), a game of each level with 2, 3 and 6 players: every answer legal, the
    state's invariants kept (the engine's own check), until the game ends (`max_turns` 6)."""
    from suntzu_env.binfa.engine import check_invariants

    g = Game.new(level * 10 + players, {"level": level, "players": players, "max_turns": 6})
    tree = SearchTree(20)
    rng = rng_seed(level)
    spare = np.zeros_like(g._legal)
    decisions = 0
    while not g.is_terminal:
        legal = g.legal_actions()
        a = search(g._s, g._legal, g._n, rng, 20, tree)
        assert a in legal
        g.apply(a)
        assert check_invariants(g._s, spare) == 0
        decisions += 1
    assert decisions > 12 * players


def test_the_search_keeps_a_value_per_player():
    """Max^n: with 3 players the search at the winning position still wins for its own seat (green), and red, to
    act in a retreat or a move of its own, is never played as green's ally (its answers are its own best)."""
    record = position(WIN, dice=[[2, 1]], player=1, army=G, mode="move", players=3,
                      armies={"red": 0, "green": 1, "blue": 2})  # fmt: skip
    record["board"]["blue-1-0"] = ["blue"] * 6
    g = Game.from_dict(record)
    g.apply("roll")
    a = answer(g, 0)
    assert g.action_to_string(a) in WINNING
    g.apply(a)
    assert g.eliminated() == [0] and not g.is_terminal


def test_mcts_is_registered_with_its_budget():
    """`mcts` and `mcts:<iterations>` name the search in the plugin (the evaluation, the app) and the ladder; a bad
    budget is refused naming the spec."""
    assert "mcts" in BINFA.agent_names and "mcts" not in BINFA.scripted_agents
    assert "mcts:<iterations>" in BINFA.valid_agents()
    agent = BINFA.make_agent("mcts:15", seed=3)
    assert isinstance(agent, SearchAgent) and agent.iterations == 15
    assert BINFA.make_agent("mcts").iterations is None  # by the game's players
    for bad in ("mcts:0", "mcts:x", "mcts:", "mcts:10000000", "mcts:٣"):
        with pytest.raises(ValueError, match="iterations"):
            BINFA.check_agent(bad)
    assert not BINFA.batchable("mcts")
    assert agent_id("mcts:7") == (AG_SEARCH, 7) == agent_id("mcts:7", players=3)
    assert agent_id("mcts") == (AG_SEARCH, SEARCH_ITERATIONS) == (AG_SEARCH, 50)
    assert (
        agent_id("mcts", players=3)
        == agent_id("mcts", players=6)
        == (AG_SEARCH, SEARCH_ITERATIONS_MANY)
        == (AG_SEARCH, 100)
    )
    with pytest.raises(ValueError, match="mcts:<iterations>"):
        agent_id("mcts7")


@pytest.mark.parametrize(("players", "budget"), [(2, 50), (3, 100)])
def test_mcts_searches_50_iterations_with_2_players_and_100_with_more(players, budget):
    """`mcts` without a budget answers as `mcts:50` with 2 players and `mcts:100` with 3 (`default_iterations`),
    and unlike a budget 10 times smaller in at least one of the first decisions after deployment."""
    g = BINFA.new(5, BINFA.options({"players": players, "deployment": "random"}))
    same, other = [], []
    for _ in range(6):
        seat = g.current_player
        answers = [
            ask(BINFA.make_agent(spec, seed=4), g, seat) for spec in ("mcts", f"mcts:{budget}", f"mcts:{budget // 10}")
        ]
        same.append(answers[0] == answers[1])
        other.append(answers[0] != answers[2])
        g.apply(answers[0])
    assert all(same) and any(other)


def test_the_agent_plays_through_the_protocol():
    """The plugin's agent answers a learning id of a legal answer, the same for the same seed."""
    g = BINFA.new(0, BINFA.options({"max_turns": 4}))
    agents = [BINFA.make_agent("mcts:10", seed=1), BINFA.make_agent("heuristic", seed=2)]
    while not g.is_terminal:
        seat = g.current_player
        agent = agents[g.seats.index(seat)]
        action = ask(agent, g, seat)
        assert action in g.legal_actions()
        g.apply(action)
    a, b = BINFA.make_agent("mcts:10", seed=1), BINFA.make_agent("mcts:10", seed=1)
    g = BINFA.new(1, BINFA.options({"deployment": "random"}))
    assert ask(a, g, g.current_player) == ask(b, g, g.current_player)


def test_the_search_s_shares_of_its_root_visits_teach_what_it_thought_of_every_answer():
    """`policy_target()`: the visits of each root answer as shares of the learning actions, summing to 1, on legal
    actions only, the move played among the most visited (40 iterations: 40 visits); at a deployment (BD6, not
    searched) the move alone."""
    g = BINFA.new(2, BINFA.options({"max_turns": 6}))
    agent = BINFA.make_agent("mcts:40", seed=3)
    with pytest.raises(RuntimeError, match="has not decided yet"):
        agent.policy_target()
    searched = 0
    while not g.is_terminal:
        seat, mask = g.current_player, g.legal_mask()
        action = ask(agent, g, seat)
        target = agent.policy_target()
        assert target.dtype == np.float32 and target.shape == mask.shape and abs(target.sum() - 1) < 1e-6
        assert not target[~mask.astype(bool)].any() and target[action] == target.max()
        if g.game._s[DEC_KIND] == DK_DEPLOY:
            assert target[action] == 1.0
        elif mask.sum() > 1:
            searched += 1
            assert np.allclose(target * 40, np.round(target * 40), atol=1e-4)  # whole visits of 40
        g.apply(action)
    assert searched > 10


def test_the_ladder_plays_the_search():
    """The ladder seats the search against copies of another agent, with 3 players every seed from every seat."""
    r = ladder("mcts:10", "random", 3, max_turns=6, players=3)
    assert r["games"] == 3 and r["wins"] + r["undecided"] + r["losses"] == 3 and r["seat_share"] == 1 / 3
    assert r["decisions"] > 0


def test_the_ladder_plays_the_same_games_with_any_number_of_workers():
    """`workers` processes share the games: the rows, the search's included, are those of one process."""
    one = ladder("mcts:5", "greedy", 6, seed=4, max_turns=8, players=3)
    assert ladder("mcts:5", "greedy", 6, seed=4, max_turns=8, players=3, workers=2) == one
    assert main(["--games", "4", "--max-turns", "9", "--workers", "2"]) == 0
    assert main(["--games", "4", "--workers", "0"]) == 2
    with pytest.raises(ValueError, match="workers"):
        ladder("greedy", "random", 2, workers=0)


def test_the_ladder_writes_its_rows(tmp_path, capsys):
    """`--csv` writes a pairing's row, replacing the row of the same pairing, level and players; a file that is
    not a ladder file is refused in one line and left as it was."""
    from suntzu_env.binfa.ladder import CSV_FIELDS

    path = tmp_path / "ladder.csv"
    short = ["--a", "greedy", "--b", "random", "--max-turns", "10", "--csv", str(path)]
    assert main([*short, "--games", "2"]) == 0
    assert main([*short, "--games", "4"]) == 0
    assert main([*short, "--games", "3", "--players", "3"]) == 0
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(CSV_FIELDS) and len(lines) == 3
    assert lines[1].startswith("greedy,random,1,2,4,") and lines[2].startswith("greedy,random,1,3,3,")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    capsys.readouterr()
    assert main([*short[:-1], str(other), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Bin'Fa ladder file" in err and other.read_text() == "a,b\n1,2\n"
    assert main([*short[:-1], str(tmp_path / "nowhere" / "x.csv"), "--games", "2"]) == 2
    assert main(["--games", "4", "--players", "3"]) == 2 and "multiple of 3" in capsys.readouterr().err
    assert main(["--games", "2", "--a", "mcts:0"]) == 2 and "iterations" in capsys.readouterr().err
