"""The single-agent Gymnasium wrapper: checkers, seeding, opponents, masks, rewards, a MaskablePPO run."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

from suntzu_env import N_ACTIONS, OBSERVATION_SIZE, SunTzuGymEnv
from suntzu_env.gym_env import RandomOpponent
from suntzu_env.observation import observation_views

CONFIGS = [
    {"variant": "standard", "events": False},
    {"variant": "standard", "events": True, "render_mode": "rgb_array"},
    {"variant": "beginner", "events": False, "render_mode": "ansi"},
]


def play(env: SunTzuGymEnv, seed: int) -> tuple[list[np.ndarray], list[float], dict[str, Any]]:
    """One episode of random legal learner moves: the observations, the rewards and the last info."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    observations, rewards = [obs], []
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.sum() >= 2
        assert env.game.current_player == env.seat
        assert np.array_equal(mask, env.game.legal_mask().astype(bool))
        obs, reward, done, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
    return observations, rewards, info


# ---------------------------------------------------------------- checkers


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_gymnasium_check_env(kwargs: dict[str, Any]) -> None:
    """Gymnasium's checker samples actions without the mask, so illegal ones must end the episode."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(SunTzuGymEnv(illegal_action="loss", **kwargs), skip_render_check=False)
    unexpected = [str(w.message) for w in caught if "not having a spec" not in str(w.message)]
    assert not unexpected, unexpected


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_sb3_check_env(kwargs: dict[str, Any]) -> None:
    sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_env_checker.check_env(SunTzuGymEnv(illegal_action="loss", **kwargs))
    assert not caught, [str(w.message) for w in caught]


def test_spaces() -> None:
    env = SunTzuGymEnv()
    assert isinstance(env.observation_space, spaces.Box) and env.observation_space.shape == (OBSERVATION_SIZE,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space == spaces.Discrete(N_ACTIONS)


# ---------------------------------------------------------------- episodes


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_episode_rewards_and_masks(kwargs: dict[str, Any]) -> None:
    """R6.5: 0 until the end, then the learner's result; the mask is the engine's legal set."""
    env = SunTzuGymEnv(**kwargs)
    seats = set()
    for seed in range(6):
        observations, rewards, info = play(env, seed)
        seats.add(env.seat)
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == env.game.returns()[env.seat] and info["winner"] == env.game.winner
        assert all(env.observation_space.contains(o) for o in observations)
        seat_view = observation_views(observations[0])["my_seat"]
        assert seat_view[0] == (env.seat == "blue")
        assert not env.action_masks().any()
    assert seats == {"blue", "red"}


def test_reset_seed_reproduces_the_episode() -> None:
    env = SunTzuGymEnv()
    first = play(env, 7)
    second = play(env, 7)
    assert len(first[0]) == len(second[0])
    assert all(np.array_equal(a, b) for a, b in zip(first[0], second[0], strict=True))
    assert first[1] == second[1]
    other = play(env, 8)
    assert len(other[0]) != len(first[0]) or any(
        not np.array_equal(a, b) for a, b in zip(first[0], other[0], strict=True)
    )


@pytest.mark.parametrize("seat", ["blue", "red"])
def test_fixed_seat(seat: str) -> None:
    env = SunTzuGymEnv(seat=seat)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info["seat"] == seat == env.seat == env.game.current_player


def test_shaped_reward_telescopes_to_the_result() -> None:
    env = SunTzuGymEnv(shaped_reward=1.0)
    for seed in range(4):
        _, rewards, _ = play(env, seed)
        assert sum(rewards) == pytest.approx(env.game.returns()[env.seat])
        assert any(r != 0 for r in rewards[:-1])


def test_illegal_action() -> None:
    env = SunTzuGymEnv(seat="blue")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=r"illegal action \d+ .*legal:"):
        env.step(np.int64(illegal))
    env = SunTzuGymEnv(seat="blue", illegal_action="loss")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_strings_are_accepted() -> None:
    env = SunTzuGymEnv(seat="blue", variant="beginner")
    env.reset(seed=0)
    legal = env.game.legal_action_strings()
    env.step(legal[0])


# ---------------------------------------------------------------- opponents


class Recorder:
    """An opponent object: plays the first legal action and records what it was shown."""

    def __init__(self) -> None:
        self.seeds: list[int | None] = []
        self.seen: list[tuple[np.ndarray, np.ndarray]] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.seen.append((observation, action_mask))
        return int(np.flatnonzero(action_mask)[0])


def test_opponent_object_sees_its_own_seat() -> None:
    opponent = Recorder()
    env = SunTzuGymEnv(opponent=opponent, seat="red")
    play(env, 1)
    play(env, 1)
    assert opponent.seeds[0] == opponent.seeds[1] is not None
    assert opponent.seen
    for observation, mask in opponent.seen:
        assert observation.dtype == np.float32 and mask.dtype == np.int8 and mask.sum() >= 2
        assert observation_views(observation)["my_seat"].tolist() == [1.0, 0.0]  # blue's view


def test_opponent_callable_and_set_opponent() -> None:
    calls = []

    def last_legal(observation: np.ndarray, action_mask: np.ndarray) -> np.int64:
        calls.append(1)
        return np.flatnonzero(action_mask)[-1]

    env = SunTzuGymEnv(opponent=last_legal)
    play(env, 0)
    assert calls
    env.set_opponent(RandomOpponent(3))
    n = len(calls)
    play(env, 0)
    assert len(calls) == n
    env.set_opponent("random")
    play(env, 0)


def test_opponent_errors() -> None:
    with pytest.raises(ValueError, match="opponent"):
        SunTzuGymEnv(opponent=42)
    env = SunTzuGymEnv(opponent=lambda o, m: int(np.flatnonzero(m == 0)[0]), seat="red")
    with pytest.raises(ValueError, match=r"the opponent \(blue\) played an illegal action"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="seat"):
        SunTzuGymEnv(seat="green")


def test_pickle_mid_episode() -> None:
    env = SunTzuGymEnv(opponent="random", render_mode="ansi")
    env.reset(seed=2)
    for _ in range(20):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    copy = pickle.loads(pickle.dumps(env))
    while True:
        action = int(np.flatnonzero(env.action_masks())[0])
        a, ra, da, _, _ = env.step(action)
        b, rb, db, _, _ = copy.step(action)
        assert np.array_equal(a, b) and ra == rb and da == db
        if da:
            break
    assert env.render() == copy.render()


# ---------------------------------------------------------------- training smoke run


def test_maskable_ppo_smoke_run() -> None:
    """A few MaskablePPO updates through SubprocVecEnv: `action_masks()` reaches the policy."""
    MaskablePPO = pytest.importorskip("sb3_contrib").MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(
        SunTzuGymEnv,
        n_envs=2,
        seed=0,
        env_kwargs={"variant": "beginner"},
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": "fork"},
    )
    try:
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=256)
        obs = vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
    finally:
        vec.close()
