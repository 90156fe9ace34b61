"""The game inside OpenSpiel (`suntzu_env.suntzu.openspiel`, the `openspiel` extra): OpenSpiel's own checks and
algorithms run on it. The test extra installs it; skipped where pyspiel is missing, except with CI set."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

if os.environ.get("CI"):
    import pyspiel  # CI installs the test extra, which holds the openspiel one: these tests must run
else:
    pyspiel = pytest.importorskip("pyspiel")

from agents import make_agent
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import get_all_states
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms import outcome_sampling_mccfr
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import Game
from suntzu_env import Options
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.openspiel import GAME_NAME
from suntzu_env.suntzu.openspiel import MAX_GAME_LENGTH
from suntzu_env.suntzu.openspiel import AgentBot
from suntzu_env.suntzu.openspiel import ISMCTSBot
from suntzu_env.suntzu.openspiel import random_playout

# A tiny game: one deal of the standard variant, the players taking over 6 decisions before the end of its random
# playout (`endgame`; 1,241 states, where the last decisions change the result): small enough for tabular CFR.
TINY = {"variant": "standard", "deals": 1, "endgame": 6}


def dealt(game: pyspiel.Game, deal: int = 0) -> pyspiel.State:
    state = game.new_initial_state()
    state.apply_action(deal)
    return state


def test_openspiel_game_facts() -> None:
    """R0, R6.5, R9, R10: two players, zero-sum utilities in [-1, 1], imperfect information, our actions."""
    game = pyspiel.load_game(GAME_NAME)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert (game.num_players(), game.min_utility(), game.max_utility()) == (2, -1.0, 1.0)
    assert game.num_distinct_actions() == N_ACTIONS and game.max_game_length() == MAX_GAME_LENGTH
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert kind.provides_information_state_string and not kind.provides_information_state_tensor  # not perfect recall
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 1024
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "deal:7"
    state.apply_action(7)
    assert state.current_player() == 0  # blue chooses its warlord first (R3.3)
    assert state.action_to_string(0, state.legal_actions()[0]).startswith("warlord:")
    with pytest.raises(ValueError, match="variant"):
        pyspiel.load_game(GAME_NAME, {"variant": "expert"})


def test_openspiel_resample_from_infostate_keeps_what_the_player_knows() -> None:
    """R9: a resampled state has the player's information state, observation and legal actions."""
    game = pyspiel.load_game(GAME_NAME, {"variant": "standard", "events": True})
    rng = np.random.default_rng(0)
    state = dealt(game, 3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = 0
    for _ in range(60):
        player = state.current_player()
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.observation_tensor(player) == state.observation_tensor(player)
        assert other.legal_actions() == state.legal_actions()
        differs += other.information_state_string(1 - player) != state.information_state_string(1 - player)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert differs == 60  # the other seat's history is never carried over


def test_openspiel_ismcts_bot_plays_our_agents() -> None:
    """OpenSpiel's ISMCTSBot (`suntzu_env.suntzu.openspiel.ISMCTSBot`: its `restart_at`, on our determinization) against
    `heuristic` and `ismcts`, both seats, in OpenSpiel's `evaluate_bots`."""
    game = pyspiel.load_game(GAME_NAME, {"variant": "beginner", "events": False})
    rng = np.random.RandomState(0)
    for spec in ("heuristic", "ismcts:20"):
        for bot_seat in (0, 1):
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
            search = ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng)
            ours = AgentBot(make_agent(spec, seed=0), 1 - bot_seat)
            bots = [search, ours] if bot_seat == 0 else [ours, search]
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiel_outcome_sampling_mccfr_on_the_beginner_variant() -> None:
    """A few iterations of outcome-sampling MCCFR run and give a policy over the legal actions."""
    game = pyspiel.load_game(GAME_NAME, {"variant": "beginner", "events": False, "deals": 4})
    np.random.seed(0)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(3):
        solver.iteration()
    policy = solver.average_policy()
    state = dealt(game)
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert abs(sum(probs.values()) - 1.0) < 1e-9


def test_openspiel_children_clones_and_pickles_keep_the_settings() -> None:
    """A state reads the game's settings from its parameters: `child`, `clone`, pickled games and states and
    `deserialize_state` all play the same game (the beginner variant with events: no warlord decisions)."""
    params = {"variant": "beginner", "events": True, "deals": 5}
    game = pyspiel.load_game(GAME_NAME, params)
    state = game.new_initial_state().child(2)  # the deal, through a clone
    assert len(game.new_initial_state().clone().chance_outcomes()) == 5
    assert state.game.options == Options(variant="beginner", events=True)
    assert not state.action_to_string(0, state.legal_actions()[0]).startswith("warlord:")  # R2.2: no warlords
    unpickled = pickle.loads(pickle.dumps(game))
    assert unpickled.get_parameters() == game.get_parameters()
    assert len(unpickled.new_initial_state().chance_outcomes()) == 5
    assert unpickled.new_initial_state().child(2).observation_tensor(0) == state.observation_tensor(0)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state = state.child(int(rng.choice(state.legal_actions())))
    for copy in (pickle.loads(pickle.dumps(state)), game.deserialize_state(state.serialize()), state.clone()):
        assert copy.history() == state.history() and str(copy) == str(state)
        assert copy.legal_actions() == state.legal_actions()
        assert [copy.information_state_string(p) for p in (0, 1)] == [state.information_state_string(p) for p in (0, 1)]
        action = state.legal_actions()[0]
        assert str(copy.child(action)) == str(state.child(action))


def test_openspiel_endgame_hands_over_the_last_decisions_of_a_random_playout() -> None:
    """`endgame` k: after the deal the game stands where its random playout (drawn from the deal) has k decisions
    left; playing those k decisions ends it."""
    game = pyspiel.load_game(GAME_NAME, TINY)
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 1.0)]
    state.apply_action(0)
    playout = random_playout(Game.new(0, Options(variant="standard")), 0)  # TINY: deal 0, endgame 6
    assert state.game.record()["actions"] == [Game.action_to_string(a) for a in playout[:-6]]
    for action in playout[-6:]:
        assert not state.is_terminal()
        state.apply_action(action)
    assert state.is_terminal() and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="endgame"):
        pyspiel.load_game(GAME_NAME, {"endgame": -1})


def test_openspiel_tabular_cfr_solves_the_tiny_game() -> None:
    """On the tiny game `get_all_states` lists the tree, and tabular CFR runs to a policy far less exploitable
    than the uniform one; external-sampling MCCFR runs on it too. (On the full game these are out of reach.)"""
    game = pyspiel.load_game(GAME_NAME, TINY)
    states = get_all_states.get_all_states(game, include_terminals=True, include_chance_states=True)
    assert 10 < len(states) < 5000
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(10):
        solver.evaluate_and_update_policy()
    solved = exploitability.nash_conv(game, solver.average_policy())
    assert uniform > 0.5 and solved < uniform / 4
    np.random.seed(0)
    sampling = external_sampling_mccfr.ExternalSamplingSolver(game)
    for _ in range(3):
        sampling.iteration()
    state = game.new_initial_state().child(0)
    probs = sampling.average_policy().action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1.0) < 1e-9
