"""The game inside OpenSpiel (`suntzu_env.openspiel`, the `openspiel` extra): OpenSpiel's own checks and
algorithms run on it. The test extra installs it; skipped where pyspiel is missing, except with CI set."""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("CI"):
    import pyspiel  # CI installs the test extra, which holds the openspiel one: these tests must run
else:
    pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts, outcome_sampling_mccfr

from agents import make_agent
from suntzu_env import OBSERVATION_SIZE
from suntzu_env.actions import N_ACTIONS
from suntzu_env.openspiel import GAME_NAME, MAX_GAME_LENGTH, AgentBot

CONFIGS = [{"variant": "standard", "events": False}, {"variant": "beginner", "events": True}]


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTSBot, which searches afresh at every step: nothing to restart."""

    def restart_at(self, state: pyspiel.State) -> None:
        pass


def dealt(game: pyspiel.Game, deal: int = 0) -> pyspiel.State:
    state = game.new_initial_state()
    state.apply_action(deal)
    return state


@pytest.mark.parametrize("params", CONFIGS)
def test_openspiel_random_simulation(params: dict) -> None:
    """OpenSpiel's random simulation test: legal actions, chance, returns, tensors, strings, clones."""
    game = pyspiel.load_game(GAME_NAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


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
    """OpenSpiel's ISMCTSBot (on our determinization) against `heuristic` and `ismcts`, both seats."""
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
