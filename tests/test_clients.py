"""Real clients: the environments driven by the RL libraries researchers use, each for a few seconds.

Marked `clients` (`python -m pytest -m clients` runs only these). Tianshou and SuperSuit come with the
`clients` extra (`pip install -e ".[clients]"`); sb3-contrib with the `train` extra.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from conftest import require

from suntzu_env import N_ACTIONS, OBSERVATION_SIZE, IllegalActionWarning, SunTzuGymEnv, env, parallel_env

pytestmark = pytest.mark.clients


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec(mode: str) -> None:
    """`gymnasium.make_vec("SunTzu-v2")`: masked random play through vector infos, across episode ends."""
    envs = gymnasium.make_vec("SunTzu-v2", num_envs=2, vectorization_mode=mode, variant="beginner")
    try:
        assert envs.single_observation_space.shape == (OBSERVATION_SIZE,)
        _, infos = envs.reset(seed=0)
        ended = 0
        for _ in range(300):
            masks = infos["action_mask"]
            assert masks.shape == (2, N_ACTIONS) and masks.dtype == np.int8
            actions = np.array([envs.single_action_space.sample(mask=m) if m.any() else 0 for m in masks])
            assert all(m[a] for m, a in zip(masks, actions, strict=True) if m.any())  # legal, or a reset step
            _, _, terminations, _, infos = envs.step(actions)
            assert not infos.get("illegal_action", np.zeros(2, bool)).any()
            ended += int(terminations.sum())
        assert ended >= 1
    finally:
        envs.close()


def test_maskable_ppo_subproc_and_masked_evaluation() -> None:
    """sb3-contrib: MaskablePPO through SubprocVecEnv (`action_masks()` reaches the policy in each process),
    then its masked `evaluate_policy`."""
    sb3_contrib = require("sb3_contrib")
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(
        SunTzuGymEnv,
        n_envs=2,
        seed=0,
        env_kwargs={"variant": "beginner", "opponent": "greedy"},
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": "fork"},  # the test's own interpreter, already loaded, in each process
    )
    try:
        model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=256)
        obs = vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
    finally:
        vec.close()
    eval_env = make_vec_env("SunTzu-v2", n_envs=1, seed=1, env_kwargs={"variant": "beginner"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)  # masked: never an illegal action
        rewards, lengths = evaluate_policy(model, eval_env, n_eval_episodes=3, return_episode_rewards=True)
    assert len(rewards) == 3 and all(r in (-1.0, 0.0, 1.0) for r in rewards) and min(lengths) > 10


def test_tianshou_pettingzoo_env_masked_collect() -> None:
    """Tianshou's PettingZooEnv over the AEC env: a DQN policy for blue and the masked random policy for red
    collect whole games; every collected action is legal under the mask the policy saw."""
    require("tianshou")
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.utils.net.common import Net

    probe = PettingZooEnv(env(variant="beginner"))
    observation_space = probe.observation_space["observation"]
    net = Net(state_shape=observation_space.shape, action_shape=probe.action_space.n, hidden_sizes=[32])
    dqn = DiscreteQLearningPolicy(model=net, action_space=probe.action_space, observation_space=observation_space)
    randomly = MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
    policy = MultiAgentPolicy({"blue": dqn, "red": randomly})
    venv = DummyVectorEnv([lambda: PettingZooEnv(env(variant="beginner")) for _ in range(2)])
    venv.seed(0)
    collector = Collector(policy, venv, VectorReplayBuffer(4000, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        warnings.simplefilter("ignore", UserWarning)  # Tianshou's notes on its own statistics
        stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2
    returns = np.asarray(stats.returns)
    assert returns.shape == (2, 2) and np.all(returns.sum(axis=1) == 0)  # zero-sum: +1/-1 or 0/0
    data, _ = collector.buffer.sample(0)
    assert set(np.unique(data.obs.agent_id)) == {"blue", "red"}
    assert all(mask[action] for mask, action in zip(data.obs.mask, data.act, strict=True))


def test_supersuit_vector_env() -> None:
    """SuperSuit: the Parallel env with flat observations becomes a vector env of seat slots (both seats
    of each game), steps with masks read from infos across episode ends, and trains SB3's PPO briefly."""
    ss = require("supersuit")
    from stable_baselines3 import PPO

    vec = ss.pettingzoo_env_to_vec_env_v1(parallel_env(variant="beginner", flat_observation=True))
    vec = ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="gymnasium")
    obs, infos = vec.reset(seed=0)
    assert obs.shape == (4, OBSERVATION_SIZE + N_ACTIONS)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        masks = [info["action_mask"] for info in infos]
        assert all(np.array_equal(o[OBSERVATION_SIZE:], m) for o, m in zip(obs, masks, strict=True))
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, _, terminations, _, infos = vec.step(actions)
        assert not any(info.get("illegal_action") for info in infos)
        ended += int(np.sum(terminations))
    vec.close()
    assert ended >= 2  # both slots of a game end together
    sb3_vec = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(parallel_env(variant="beginner", flat_observation=True)),
        2,
        num_cpus=0,
        base_class="stable_baselines3",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)  # unmasked PPO: an illegal action loses
        # no seed=: SuperSuit 3.11's SB3 wrapper has no seed() for SB3 2.x to call; the envs were seeded above
        PPO("MlpPolicy", sb3_vec, n_steps=32, batch_size=64, n_epochs=1, device="cpu").learn(128)
    sb3_vec.close()
