"""Real clients: the environments driven by the RL libraries researchers use, each for a few seconds.

Marked `clients` (`python -m pytest -m clients` runs only these). Tianshou and SuperSuit come with the
`clients` extra (`pip install -e ".[clients]"`); sb3-contrib with the `train` extra.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from suntzu_env import N_ACTIONS
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import IllegalActionWarning
from suntzu_env import SunTzuGymEnv
from suntzu_env import env
from suntzu_env import parallel_env

from conftest import require

pytestmark = pytest.mark.clients


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec(mode: str) -> None:
    """`gymnasium.make_vec("SunTzu-v3")`: masked random play through vector infos, across episode ends."""
    envs = gymnasium.make_vec("SunTzu-v3", num_envs=2, vectorization_mode=mode, variant="beginner")
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
    eval_env = make_vec_env("SunTzu-v3", n_envs=1, seed=1, env_kwargs={"variant": "beginner"})
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
    from tianshou.data import Collector
    from tianshou.data import VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env import PettingZooEnv
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


def test_gymnasium_make_vec_reaches_the_compiled_vector_env() -> None:
    """`vectorization_mode="vector_entry_point"` (and no mode at all) gives `SunTzuVectorEnv`, with the
    `opponent=` that `SunTzuGymEnv` takes: the same games as `SunTzuVectorEnv(opponents=...)` made directly."""
    from suntzu_env.suntzu.vec_env import SunTzuVectorEnv

    kwargs = {"variant": "beginner", "opponent": "greedy"}
    envs = gymnasium.make_vec("SunTzu-v3", num_envs=3, vectorization_mode="vector_entry_point", **kwargs)
    default = gymnasium.make_vec("SunTzu-v3", num_envs=3, **kwargs)
    direct = SunTzuVectorEnv(3, opponents="greedy", variant="beginner")
    assert isinstance(envs, SunTzuVectorEnv) and isinstance(default, SunTzuVectorEnv)
    assert envs.env.opponent_names == ["greedy"] * 3 and envs.spec.id == "SunTzu-v3"
    (obs, infos), (direct_obs, _) = envs.reset(seed=4), direct.reset(seed=4)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        assert envs.observation_space.contains(obs) and np.array_equal(obs, direct_obs)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rewards, terminations, _, infos = envs.step(actions)
        direct_obs, direct_rewards, _, _, _ = direct.step(actions)
        assert np.array_equal(rewards, direct_rewards)
        ended += int(terminations.sum())
    assert ended >= 1
    for e in (envs, default, direct):
        e.close()
    with pytest.raises(TypeError, match="not both"):
        SunTzuVectorEnv(2, opponent="greedy", opponents="random")


def test_torchrl_pettingzoo_wrapper_check_env_specs_and_masked_policy() -> None:
    """TorchRL's `PettingZooWrapper` (`use_mask=True`) over `box_observations(parallel_env(idle="noop"))`: its own
    `check_env_specs`, then a rollout across a game's end of a policy per seat sampling TorchRL's `MaskedCategorical`
    from the mask: every action legal, the idle seat's the noop."""
    require("torchrl")
    import torch
    from suntzu_env.core.formats import box_observations
    from suntzu_env.suntzu.suntzu_v3 import NOOP
    from tensordict.nn import TensorDictModule
    from tensordict.nn import TensorDictSequential
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs
    from torchrl.modules import MLP
    from torchrl.modules import MaskedCategorical
    from torchrl.modules import ProbabilisticActor

    torch.manual_seed(0)
    env = PettingZooWrapper(box_observations(parallel_env(variant="beginner", idle="noop")), use_mask=True, seed=0)
    actors = []
    for group in ("blue", "red"):
        logits = MLP(out_features=N_ACTIONS + 1, num_cells=[32])
        net = TensorDictModule(logits, in_keys=[(group, "observation")], out_keys=[(group, "logits")])
        keys = {"logits": (group, "logits"), "mask": (group, "action_mask")}
        actors.append(ProbabilisticActor(net, in_keys=keys, out_keys=[(group, "action")],
                                         distribution_class=MaskedCategorical))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        check_env_specs(env, seed=0)
        rollout = env.rollout(400, TensorDictSequential(*actors), break_when_any_done=False)
    for group in ("blue", "red"):
        masks, actions = rollout[group, "action_mask"], rollout[group, "action"]
        assert masks.dtype == torch.bool and masks.shape[-1] == N_ACTIONS + 1
        assert bool(masks.gather(-1, actions.unsqueeze(-1)).all())  # every action within its mask
        active = rollout[group, "info", "active"].bool()
        assert bool((actions[~active] == NOOP).all()) and bool((actions[active] != NOOP).all())
        assert set(rollout["next", group, "reward"].unique().tolist()) <= {-1.0, 0.0, 1.0}
    assert bool(rollout["next", "done"].any())  # a game ended and the next one began
    env.close()


def test_agilerl_ippo_trains_on_the_parallel_env() -> None:
    """AgileRL's IPPO on `agilerl_observations(parallel_env(idle="noop"))` (a Box observation, the mask in the
    infos), in the loop of AgileRL's `train_multi_agent_on_policy`: `get_action(obs, infos)` then `learn`, across
    games' ends, every action legal and the idle seat's the noop. (Its vector envs cannot serve masks: the
    dummy one hands the last step's infos to the next game's first action, the async one stacks masks into
    arrays that IPPO compares with None.)"""
    require("agilerl")
    import torch
    from agilerl.algorithms import IPPO
    from suntzu_env.core.formats import agilerl_observations
    from suntzu_env.suntzu.suntzu_v3 import NOOP

    torch.manual_seed(0)
    env = agilerl_observations(parallel_env(variant="beginner", idle="noop"))
    agent_ids = env.possible_agents
    ippo = IPPO(
        observation_spaces=[env.observation_space(a) for a in agent_ids],
        action_spaces=[env.action_space(a) for a in agent_ids],
        agent_ids=agent_ids,
        net_config={"encoder_config": {"hidden_size": [32]}},
        batch_size=32,
        learn_step=64,
        update_epochs=1,
        device="cpu",
    )
    obs, info = env.reset(seed=0)
    done = {a: np.zeros(1) for a in agent_ids}
    games = learned = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)  # masked: never an illegal action
        while games < 1 or learned < 2:
            fields: list[dict[str, list]] = [{a: [] for a in agent_ids} for _ in range(6)]
            for _ in range(ippo.learn_step):
                batch = {a: obs[a][None] for a in agent_ids}  # one env: a batch of one
                action, log_prob, _, value = ippo.get_action(obs=batch, infos=info)
                chosen = {a: int(action[a][0]) for a in agent_ids}
                for a in agent_ids:
                    assert info[a]["action_mask"][chosen[a]] and (chosen[a] == NOOP) != info[a]["active"]
                obs, reward, terminated, _, info = env.step(chosen)
                for field, value_ in zip(fields, (batch, action, log_prob, reward, done, value), strict=True):
                    for a in agent_ids:
                        field[a].append(np.atleast_1d(value_[a]))
                done = {a: np.array([float(terminated[a])]) for a in agent_ids}
                if all(terminated.values()):
                    games += 1
                    obs, info = env.reset()
            ippo.learn((*fields, {a: obs[a][None] for a in agent_ids}, done))
            learned += 1
    assert games >= 1 and learned >= 2
