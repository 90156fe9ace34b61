"""Bin'Fa's environments: PettingZoo AEC (2-6 agents, eliminations), Gymnasium learner env, the plug-in value."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.test import parallel_api_test
from pettingzoo.test import seed_test
from suntzu_env.binfa import env
from suntzu_env.binfa import parallel_env
from suntzu_env.binfa import raw_env
from suntzu_env.binfa.agents import AG_GREEDY
from suntzu_env.binfa.agents import AG_RANDOM
from suntzu_env.binfa.agents import agent_action
from suntzu_env.binfa.agents import new_scratch
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS
from suntzu_env.binfa.encoding import learn_id
from suntzu_env.binfa.gym_env import BinFaGymEnv
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.observation import observation_views
from suntzu_env.binfa.plugin import BINFA
from suntzu_env.core.checks import IllegalActionWarning
from suntzu_env.core.protocol import GameRules
from suntzu_env.core.protocol import TurnGame
from suntzu_env.core.rng import rng_seed


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)
        fn()


@pytest.mark.parametrize("fields", [{}, {"players": 3, "deployment": "random"}, {"players": 6, "level": 4}])
def test_pettingzoo_api_test(fields):
    _quiet(lambda: api_test(env(**fields), num_cycles=300))


@pytest.mark.parametrize("players", [2, 3, 6])
def test_pettingzoo_parallel_api_test(players):
    """The Parallel environment, turn by turn: PettingZoo's checker with 2, 3 and 6 players."""
    _quiet(lambda: parallel_api_test(parallel_env(players=players, max_turns=30, deployment="random"), num_cycles=200))


def test_the_parallel_env_plays_the_agent_to_act_and_ignores_the_others():
    """Each step plays the action of the one agent whose mask is not all zero; the others' actions change nothing."""
    par = parallel_env(players=3, deployment="random")
    observations, _ = par.reset(seed=4)
    for _ in range(20):
        acting = [a for a in par.agents if observations[a]["action_mask"].any()]
        assert len(acting) == 1
        mover = acting[0]
        move = int(np.flatnonzero(observations[mover]["action_mask"])[0])
        actions = {a: (move if a == mover else 0) for a in par.agents}
        observations = par.step(actions)[0]
        if not par.agents:
            break


def test_pettingzoo_seed_test():
    _quiet(lambda: seed_test(lambda: env(players=3), num_cycles=200))


def test_b12_an_eliminated_player_gets_minus_one_and_leaves_agents():
    # three players, player_0 answered by the compiled greedy agent and the others by random, until the game
    # ends: a player eliminated (B12) gets
    # -1 in that step, stays listed (terminated) until its own None step, then leaves `agents`; the winner
    # gets +1 (B13)
    e = env(players=3, deployment="random")
    e.reset(seed=2)
    game = e.unwrapped.game
    scratch = new_scratch()
    totals = dict.fromkeys(e.possible_agents, 0.0)
    rng = rng_seed(0)
    left: list[str] = []
    while e.agents:
        agent = e.agent_selection
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            assert agent not in e.agents
            left.append(agent)
            continue
        kind = AG_GREEDY if agent == "player_0" else AG_RANDOM
        a = int(agent_action(kind, game._s, game._legal, game._n, rng, scratch))
        e.step(int(learn_id(game._s, a, game._rotation())))
        for a in e.agents:
            totals[a] += e.rewards[a]
            if e.terminations[a] and game.current_player is not None:
                assert e.rewards[a] == -1.0 and totals[a] == -1.0  # out while the game goes on
    assert isinstance(game.winner, int)
    assert totals == {a: game.returns()[p] for p, a in enumerate(e.possible_agents)}
    assert sorted(totals.values()) == [-1.0, -1.0, 1.0]
    assert sorted(left) == e.possible_agents


def test_illegal_action_raise_changes_nothing_and_loss_ends_the_game():
    e = raw_env()
    e.reset(seed=0)
    before = e.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="for decision 'deploy'"):
        e.step(N_LEARN_ACTIONS - 1)
    assert e.unwrapped.game.to_dict() == before
    e = env()
    e.reset(seed=0)
    first = e.agent_selection
    with pytest.warns(IllegalActionWarning):
        e.step(N_LEARN_ACTIONS - 1)
    assert e.rewards[first] == -1.0 and sum(e.rewards.values()) == 0.0
    assert all(e.terminations.values())
    assert e.infos[first]["illegal_action"] is True


def test_step_takes_engine_strings():
    e = env()
    e.reset(seed=3)
    legal = e.unwrapped.game.legal_action_strings()
    e.step(legal[0])
    assert e.unwrapped.game.record()["actions"] == [legal[0]]


def test_observation_dict_and_masks():
    e = env(players=4)
    e.reset(seed=1)
    for agent in e.agents:
        obs = e.observe(agent)
        assert obs["observation"].shape == (OBSERVATION_SIZE,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].any() == (agent == e.agent_selection)
        np.testing.assert_array_equal(obs["action_mask"], e.infos[agent]["action_mask"])


def test_gymnasium_check_env_and_registration():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(BinFaGymEnv(opponent="greedy"), skip_render_check=True)
        made = gymnasium.make("BinFa-v3", opponent="random", players=3)
    assert made.unwrapped.rules.players == 3


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_gym_episode_rewards_and_seats(opponent):
    # B0.8: the learner's episode ends with +1 (it won), -1 (it was eliminated, B12) or 0 (max_turns, BD5)
    for seat in (0, 1):
        g = BinFaGymEnv(opponent=opponent, seat=seat)
        _, info = g.reset(seed=seat)
        assert info["seat"] == seat
        rng = np.random.default_rng(0)
        done = False
        reward = 0.0
        while not done:
            assert g.game.current_player == seat
            _, reward, term, trunc, info = g.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
        assert reward == g.game.returns()[seat]
        assert reward in (-1.0, 1.0) or trunc


def test_gym_callable_opponent_sees_its_own_seat():
    seen = []

    def first(observation, mask):
        seen.append(observation_views(observation)["me_to_act"][0])  # its own point of view (BD12)
        return int(np.flatnonzero(mask)[0])

    g = BinFaGymEnv(opponent=first, seat=1)
    g.reset(seed=0)
    assert seen and set(seen) == {1.0} and g.game.current_player == 1


def test_plugin_value_is_game_rules():
    assert isinstance(BINFA, GameRules)
    game = BINFA.new(5)
    assert isinstance(game, TurnGame)
    assert BINFA.n_actions == N_LEARN_ACTIONS and BINFA.observation_size == OBSERVATION_SIZE
    game.apply(game.legal_actions()[0])
    again = BINFA.replay(game.record())
    assert again.record() == game.record()
    assert BINFA.label(BINFA.options(level=3, players=2, armies_per_player=3)) == "level3-2p-3armies"
    results = BINFA.play_batched("greedy", "random", [(4, "player_1", 1, 2)])
    replayed = BINFA.replay(results[0]["record"])
    assert replayed.is_terminal and replayed.winner == results[0]["winner"]
