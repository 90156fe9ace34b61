"""`parallel_env(idle="noop")`, the observation formats of `suntzu_env.core.formats`, and the `human` extra."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from test_env import checked

with warnings.catch_warnings():  # pettingzoo.test loads its own classic envs through a deprecated path
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test
    from pettingzoo.test import parallel_api_test

from suntzu_env import N_ACTIONS
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import IllegalActionWarning
from suntzu_env import SunTzuGymEnv
from suntzu_env import env
from suntzu_env import parallel_env
from suntzu_env.core.formats import agilerl_observations
from suntzu_env.core.formats import bool_masks
from suntzu_env.core.formats import box_observations
from suntzu_env.core.formats import observation_format
from suntzu_env.core.formats import rllib_observations
from suntzu_env.suntzu import episode as episode_module
from suntzu_env.suntzu.suntzu_v3 import NOOP

NOOP_CONFIGS = [{"variant": "standard", "events": True}, {"variant": "beginner", "flat_observation": True}]


def legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("kwargs", NOOP_CONFIGS)
def test_idle_noop_passes_pettingzoo_parallel_api_test(kwargs: dict[str, Any]) -> None:
    """With a flat observation the test finds no mask to sample with, so some of its actions are illegal."""
    also = ("illegal action ", "standard has nothing to decide") if kwargs.get("flat_observation") else ()
    also = (*also, "blue has nothing", "red has nothing")
    e = parallel_env(idle="noop", **kwargs)
    assert e.action_space("blue") == spaces.Discrete(N_ACTIONS + 1)
    checked(lambda: parallel_api_test(e, num_cycles=1000), *also)


def test_idle_noop_plays_the_same_games_with_one_legal_noop_for_the_idle_side() -> None:
    """The same seed and actions give the same game as `idle="empty"`; each mask is the empty mode's with the noop
    added where that one is all zero (never all zero itself); `active` says which; R4.1: both place at once."""
    noop, empty = parallel_env(idle="noop"), parallel_env()
    (obs, infos), (e_obs, _) = noop.reset(seed=3), empty.reset(seed=3)
    rng = np.random.default_rng(3)
    both = one = 0
    while noop.agents:
        for agent in ("blue", "red"):
            mask, e_mask = obs[agent]["action_mask"], e_obs[agent]["action_mask"]
            assert mask.shape == (N_ACTIONS + 1,) and np.array_equal(mask[:N_ACTIONS], e_mask)
            assert mask[NOOP] == (not e_mask.any()) and infos[agent]["active"] == e_mask.any()
            assert np.array_equal(infos[agent]["action_mask"], mask)
            assert np.array_equal(obs[agent]["observation"], e_obs[agent]["observation"])
        actions = {a: legal(obs[a]["action_mask"], rng) for a in ("blue", "red")}
        active = [a for a in actions if infos[a]["active"]]
        both += len(active) == 2
        one += len(active) == 1
        assert all(actions[a] == NOOP for a in actions if a not in active)
        obs, rewards, terms, _, infos = noop.step(actions)
        e_obs, e_rewards, e_terms, _, _ = empty.step({a: actions[a] for a in active})
        assert rewards == e_rewards and terms == e_terms
    assert both > 0 and one > 0
    assert all(obs[a]["action_mask"][NOOP] == 1 and obs[a]["action_mask"].sum() == 1 for a in obs)  # the end
    assert noop.game.record() == empty.game.record()


def test_idle_noop_illegal_actions() -> None:
    """An active agent's noop and an idle agent's other action are illegal: the game ends under "loss", and
    under "raise" a ValueError names the agent and nothing changes. An idle agent's entry may be left out."""
    e = parallel_env(idle="noop")  # standard: blue chooses its warlord first (R3.3), red is idle
    obs, infos = e.reset(seed=0)
    assert infos["blue"]["active"] and not infos["red"]["active"]
    with pytest.warns(IllegalActionWarning):
        _, rewards, terms, _, infos = e.step({"blue": NOOP, "red": NOOP})
    assert rewards == {"blue": -1.0, "red": 1.0} and all(terms.values()) and infos["blue"]["illegal_action"]
    e = parallel_env(idle="noop")  # a new one: the warning comes once per environment
    obs, _ = e.reset(seed=0)
    warlord = int(np.flatnonzero(obs["blue"]["action_mask"])[0])
    with pytest.warns(IllegalActionWarning):
        _, rewards, _, _, infos = e.step({"blue": warlord, "red": warlord})
    assert rewards == {"blue": 1.0, "red": -1.0} and infos["red"]["illegal_action"]
    strict = parallel_env(idle="noop", illegal_action="raise")
    obs, _ = strict.reset(seed=0)
    before = strict.game.record()
    with pytest.raises(ValueError, match="red has nothing to decide now: its one legal action is 57"):
        strict.step({"blue": warlord, "red": warlord})
    assert strict.game.record() == before
    _, rewards, _, _, infos = strict.step({"blue": warlord})  # the idle entry left out
    assert strict.game.record() != before and not any(i.get("illegal_action") for i in infos.values())
    with pytest.raises(ValueError, match="idle must be one of"):
        parallel_env(idle="skip")
    with pytest.raises(TypeError, match="idle"):
        env(idle="noop")  # the AEC environment asks only the agent to act: it has no idle side


@pytest.mark.parametrize("idle", ["empty", "noop"])
def test_rllib_observations_pass_pettingzoo_api_tests(idle: str) -> None:
    """The keys RLlib's action masking reads, for the AEC and the Parallel environment; the same values."""
    aec = rllib_observations(env(variant="beginner"))
    # PettingZoo checks a mask only beside a key other than "observation": here it sees a finished game's
    # agents, whose masks are all zero (they have nothing left to decide)
    checked(lambda: api_test(aec, num_cycles=300), "Action mask numpy array is all zeros")
    par = rllib_observations(parallel_env(variant="beginner", idle=idle))
    checked(lambda: parallel_api_test(par, num_cycles=300))
    seen, infos = par.reset(seed=1)
    raw, raw_infos = parallel_env(variant="beginner", idle=idle).reset(seed=1)
    for agent in ("blue", "red"):
        assert set(seen[agent]) == {"observations", "action_mask"}
        assert par.observation_space(agent).contains(seen[agent])
        assert np.array_equal(seen[agent]["observations"], raw[agent]["observation"])
        assert np.array_equal(seen[agent]["action_mask"], raw[agent]["action_mask"])
        assert np.array_equal(infos[agent]["action_mask"], raw_infos[agent]["action_mask"])
    aec.reset(seed=1)
    first = aec.agent_selection
    assert set(aec.observe(first)) == {"observations", "action_mask"} and aec.last()[4]["action_mask"].any()


def test_box_agilerl_and_bool_formats() -> None:
    """The vector alone with the mask in the infos (int8, or lists for AgileRL); bool masks everywhere."""
    raw, raw_infos = parallel_env(idle="noop").reset(seed=2)
    box = box_observations(parallel_env(idle="noop"))
    seen, infos = box.reset(seed=2)
    space = box.observation_space("red")
    assert isinstance(space, spaces.Box) and space.shape == (OBSERVATION_SIZE,) and space.contains(seen["red"])
    assert np.array_equal(seen["red"], raw["red"]["observation"]) and infos["red"]["action_mask"].dtype == np.int8
    agile = agilerl_observations(parallel_env(idle="noop"))
    seen, infos = agile.reset(seed=2)
    assert infos["blue"]["action_mask"] == raw_infos["blue"]["action_mask"].tolist() and infos["blue"]["active"]
    steps = agile.step({"blue": legal(raw["blue"]["action_mask"], np.random.default_rng(0))})
    assert isinstance(steps[4]["red"]["action_mask"], list) and isinstance(steps[0]["red"], np.ndarray)
    flags = bool_masks(env())
    flags.reset(seed=2)
    agent = flags.agent_selection
    assert flags.observe(agent)["action_mask"].dtype == bool and flags.infos[agent]["action_mask"].dtype == bool
    assert flags.observation_space(agent).contains(flags.observe(agent))
    with pytest.raises(ValueError, match="flat_observation=False"):
        box_observations(parallel_env(flat_observation=True))
    with pytest.raises(ValueError, match="masks must be one of"):
        observation_format(env(), masks="float")
    with pytest.raises(TypeError, match="PettingZoo AEC or Parallel"):
        rllib_observations(SunTzuGymEnv())


def test_human_render_mode_without_pygame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pygame (the `human` extra) "human" is not offered, and asking for it names the extra at once."""
    monkeypatch.setattr(episode_module, "pygame_installed", lambda: False)
    assert episode_module.render_modes() == ["ansi", "rgb_array"]
    for make in (env, parallel_env, SunTzuGymEnv):
        with pytest.raises(ModuleNotFoundError, match=r'pip install "suntzu-env\[human\]"'):
            make(render_mode="human")
    monkeypatch.setattr(episode_module, "pygame_installed", lambda: True)
    assert episode_module.render_modes() == ["ansi", "rgb_array", "human"]
