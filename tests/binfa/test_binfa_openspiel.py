"""Bin'Fa inside OpenSpiel (`suntzu_env.binfa.openspiel`, the `openspiel` extra): OpenSpiel's own checks and its
MCTS run on it, every throw a chance node. Skipped where pyspiel is missing, except with CI set."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
from test_binfa_helpers import position

if os.environ.get("CI"):
    import pyspiel  # CI installs the test extra, which holds the openspiel one: these tests must run
else:
    pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots import uniform_random
from suntzu_env.binfa import N_LEARN_ACTIONS
from suntzu_env.binfa import OBSERVATION_SIZE
from suntzu_env.binfa import Game
from suntzu_env.binfa import Options
from suntzu_env.binfa.openspiel import GAME_NAME
from suntzu_env.binfa.openspiel import BinFaGame
from suntzu_env.binfa.openspiel import max_game_length

CHANCE = pyspiel.PlayerId.CHANCE
SHORT = {"players": 2, "level": 1, "deployment": "random", "max_turns": 4, "seed": 1}


def play_randomly(state: pyspiel.State, rng: np.random.Generator, until: int | None = None) -> pyspiel.State:
    """Plays uniformly random answers and throws (by their probabilities) to the end, or `until` actions."""
    while not state.is_terminal() and (until is None or len(state.history()) < until):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def to_throw(state: pyspiel.State, rng: np.random.Generator) -> pyspiel.State:
    """Plays on to a `roll` answer (B3) and plays it: the state is then a chance node."""
    while "roll" not in [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]:
        assert not state.is_terminal(), "no roll before the end"
        play_randomly(state, rng, until=len(state.history()) + 1)
    roll = next(a for a in state.legal_actions() if state.action_to_string(state.current_player(), a) == "roll")
    state.apply_action(roll)
    return state


def test_openspiel_game_facts() -> None:
    """B36: perfect information but the dice; B0.5: 36 throws; the learning ids; the player's observation (BD12)."""
    game = pyspiel.load_game(GAME_NAME, {"players": 4, "level": 3})
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert (game.num_players(), game.min_utility(), game.max_utility()) == (4, -1.0, 1.0)
    assert (game.num_distinct_actions(), game.max_chance_outcomes()) == (N_LEARN_ACTIONS, 36)
    assert game.max_game_length() == max_game_length(Options(players=4, level=3))
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor
    state = game.new_initial_state()
    assert state.current_player() == 0 and not state.is_chance_node()  # B1: player 0 places its first unit
    assert state.action_to_string(0, state.legal_actions()[0]).startswith("deploy:")
    assert state.legal_actions(1) == [] and state.chance_outcomes() == []
    assert state.observation_tensor(0) == state.game.observation(0).tolist()
    assert state.observation_tensor(0) != state.observation_tensor(1)  # each from its own point of view (BD12)


def test_openspiel_every_throw_is_a_chance_node() -> None:
    """B0.5, B3: a roll waits at a chance node over the 36 ordered throws, 1/36 each; the outcome is the throw
    the engine plays. No throw after the setup comes from the game's generator."""
    rng = np.random.default_rng(0)
    game = pyspiel.load_game(GAME_NAME, SHORT)
    state = to_throw(game.new_initial_state(), rng)
    assert state.is_chance_node() and state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(36)) == state.legal_actions()
    assert all(p == pytest.approx(1 / 36) for _, p in outcomes) and sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.action_to_string(CHANCE, 6 * 5 + 1) == "throw:6-2"
    assert "throwing for roll" in str(state) and "throwing for roll" in state.observation_string(0)
    state.apply_action(6 * 5 + 1)
    assert state.game.decision["throw"] == [6, 2] and state.game.decision["moves_left"] == 4
    generator = game.new_initial_state().game.to_dict()["rng"]
    for seed in range(3):
        end = play_randomly(game.new_initial_state(), np.random.default_rng(seed))
        assert end.game.to_dict()["rng"] == generator


def test_openspiel_returns_as_the_engine_scores_them() -> None:
    """B0.8, B12, BD5: +1 the winner, -1 each eliminated player, 0 the others (a game cut by max_turns), at the
    end only; the returns of a random game are its Game's."""
    game = pyspiel.load_game(GAME_NAME, {"players": 3})
    state = game.new_initial_state()
    assert state.returns() == [0.0, 0.0, 0.0]
    armies = {"red": 0, "green": 1, "blue": 2}
    for board, winner, out, expected in (
        ({"red-3-1": ["red"] * 12}, 0, [2, 1], [1.0, -1.0, -1.0]),
        ({"red-3-1": ["red"] * 12, "green-1-0": ["green"] * 12}, "undecided", [2], [0.0, 0.0, -1.0]),
    ):
        d = position(board, players=3, armies=armies, army=None)
        dead = [c for c, p in armies.items() if p in out]
        d.update(phase="over", decision="none", to_act=None, winner=winner, eliminated=out, eliminated_armies=dead)
        d["turn"]["player"] = None
        state.game = Game.from_dict(d)
        assert state.is_terminal() and state.returns() == expected
    end = play_randomly(pyspiel.load_game(GAME_NAME, SHORT).new_initial_state(), np.random.default_rng(1))
    assert end.returns() == [end.game.returns()[p] for p in (0, 1)]


def test_openspiel_clones_and_copies_keep_the_settings() -> None:
    """The state reads its settings from the game's parameters: `clone`, `child`, `new_initial_state` of a copied
    or pickled game and deserialized states all play the same game (3 players, level 2, chosen terrain)."""
    options = Options(players=3, level=2, terrain=("red-4-6", "blue-2-1"), deployment="random", max_turns=8)
    params = {**options.to_dict(), "terrain": "red-4-6 blue-2-1", "seed": 9}
    game = pyspiel.load_game(GAME_NAME, params)
    start = game.new_initial_state()
    assert start.game.options == options and start.game.to_dict() == Game.new(9, options).to_dict()
    state = play_randomly(start.clone(), np.random.default_rng(2), until=12)
    copies = {
        "clone": state.clone(),
        "child": state.child(state.legal_actions()[0]) if not state.is_chance_node() else state.child(0),
        "deserialized": game.deserialize_state(state.serialize()),
        "pickled game": pickle.loads(pickle.dumps(game)).new_initial_state(),
        "new state": game.new_initial_state(),
    }
    for name, copy in copies.items():
        assert copy.game.options == options, name
        assert copy.get_game().get_parameters() == game.get_parameters(), name
        assert len(copy.returns()) == 3, name
    assert copies["pickled game"].game.to_dict() == start.game.to_dict()
    with pytest.raises(ValueError, match="terrain: unknown triangle 'red-9-9'"):
        pyspiel.load_game(GAME_NAME, {"level": 2, "terrain": "red-9-9"})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 7}, r"players must be an integer 2\.\.6"),
        ({"level": 0}, "level must be one of 1, 2, 3, 4"),
        ({"players": 2, "armies_per_player": 2}, "armies_per_player=2 needs players=3"),
        ({"deployment": "later"}, "deployment must be one of"),
        ({"max_turns": 0}, "max_turns"),
        ({"seed": -1}, "seed must lie in"),
        ({"level": 1, "terrain": "red-4-6"}, "level 1 has no terrain"),
        ({"level": 2, "terrain": "red-4-6,blue-2-1"}, "triangle names separated by spaces"),
    ],
)
def test_openspiel_bad_parameters_name_what_is_allowed(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(GAME_NAME, params)


def test_openspiel_unknown_parameters_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):  # pyspiel's own check
        pyspiel.load_game(GAME_NAME, {"colour": "red"})
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['colour'\]; the game takes"):
        BinFaGame({"colour": "red"})


def test_openspiel_illegal_actions_raise_and_change_nothing() -> None:
    """An illegal learning id names the decision and its legal answers; an outcome that is no throw is refused."""
    state = pyspiel.load_game(GAME_NAME, SHORT).new_initial_state()
    before = (state.history(), str(state))
    illegal = next(a for a in range(N_LEARN_ACTIONS) if a not in state.legal_actions())
    # the first player's first throw is compulsory (BD30), so it came with the seeded setup: it moves
    with pytest.raises(ValueError, match=r"illegal action learning id .* for decision 'move'.*legal: move:"):
        state.apply_action(illegal)
    assert (state.history(), str(state)) == before
    to_throw(state, np.random.default_rng(3))
    before = (state.history(), str(state))
    with pytest.raises(ValueError, match=r"a chance outcome is a throw of two dice, 0\.\.35, got 36"):
        state.apply_action(36)
    assert (state.history(), str(state)) == before


def test_openspiel_serialize_round_trip() -> None:
    """`serialize`/`deserialize_state`, pickles and clones give the same state, at decisions and chance nodes."""
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "level": 3, "max_turns": 6, "seed": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    for step in ("decision", "chance", "decision", "later"):
        if step == "chance":
            to_throw(state, rng)
        else:
            play_randomly(state, rng, until=len(state.history()) + (1 if step == "decision" else 60))
        assert state.is_chance_node() == (step == "chance")
        for copy in (game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state)), state.clone()):
            assert copy.history() == state.history() and str(copy) == str(state)
            assert copy.legal_actions() == state.legal_actions() and copy.chance_outcomes() == state.chance_outcomes()
            assert copy.observation_tensor(1) == state.observation_tensor(1)
            assert copy.information_state_string(2) == state.information_state_string(2)
            if not state.is_terminal():
                action = state.legal_actions()[0]
                assert str(copy.child(action)) == str(state.child(action))


def test_openspiel_mcts_bot_plays_through_chance_nodes() -> None:
    """OpenSpiel's MCTSBot with random rollouts: its tree holds chance nodes under a roll, and it plays short games
    of 2 and 3 players to the end against random bots in `evaluate_bots`."""
    game = pyspiel.load_game(GAME_NAME, SHORT)
    root_state = game.new_initial_state()  # the first player moves (deployment, B2 and its first throw, BD30)
    rng = np.random.default_rng(0)
    while root_state.is_chance_node() or "roll" not in [
        root_state.action_to_string(root_state.current_player(), a) for a in root_state.legal_actions()
    ]:  # its moves made, it may throw again or stop
        root_state.apply_action(int(rng.integers(36)) if root_state.is_chance_node() else root_state.legal_actions()[0])
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    root = mcts.MCTSBot(game, 2.0, 30, evaluator, random_state=np.random.RandomState(2)).mcts_search(root_state)
    assert CHANCE in {node.player for child in root.children for node in child.children}  # the throws (B3)
    for params in ({**SHORT, "max_turns": 12}, {**SHORT, "players": 3, "level": 3, "max_turns": 9, "seed": 2}):
        game = pyspiel.load_game(GAME_NAME, params)
        rng = np.random.RandomState(0)
        bots = [mcts.MCTSBot(game, 2.0, 16, evaluator, random_state=np.random.RandomState(3))]
        bots += [uniform_random.UniformRandomBot(p, rng) for p in range(1, game.num_players())]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert len(returns) == game.num_players() and all(r in (-1.0, 0.0, 1.0) for r in returns)
