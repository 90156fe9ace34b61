"""The single-agent Gymnasium wrapper: checkers, seeding, opponents, masks, rewards, a MaskablePPO run."""

from __future__ import annotations

import os
import pickle
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from agents import RandomAgent
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from suntzu_env import ENV_ID
from suntzu_env import N_ACTIONS
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import IllegalActionWarning
from suntzu_env import SunTzuGymEnv
from suntzu_env.suntzu.observation import observation_views

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # check_env builds the "human" mode too: no display here
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

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

# Gymnasium's and SB3's checkers sample actions without the mask; by default an illegal one ends the episode,
# with a warning naming the decision and its legal actions.
ILLEGAL_WARNING = "illegal action "


def unexpected_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if not issubclass(w.category, IllegalActionWarning)]


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_gymnasium_check_env(kwargs: dict[str, Any]) -> None:
    """Made from the registry id, so the checker also builds the environment in every render mode."""
    env = gymnasium.make(ENV_ID, **kwargs)
    assert env.spec is not None and env.spec.id == "SunTzu-v3"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    assert not unexpected_warnings(caught), unexpected_warnings(caught)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_sb3_check_env(kwargs: dict[str, Any]) -> None:
    sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_env_checker.check_env(SunTzuGymEnv(**kwargs))
    assert not unexpected_warnings(caught), unexpected_warnings(caught)


def test_registered_id_takes_the_arguments() -> None:
    env = gymnasium.make("SunTzu-v3", opponent="greedy", seat="red", variant="beginner")
    _, info = env.reset(seed=0)
    assert info["seat"] == "red" and env.unwrapped.variant == "beginner"
    assert np.array_equal(info["action_mask"], env.unwrapped.game.legal_mask())
    env.close()


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
    """By default an illegal action ends the episode with -1 (a warning the first time); "raise" raises."""
    env = SunTzuGymEnv(seat="blue", illegal_action="raise")
    env.reset(seed=0)
    before = env.game.to_dict()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=r"illegal action \d+ .*legal:"):
        env.step(np.int64(illegal))
    assert env.game.to_dict() == before
    env = SunTzuGymEnv(seat="blue")
    for seed in (0, 1):
        env.reset(seed=seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, reward, terminated, truncated, info = env.step(illegal)
        assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
        assert not info["action_mask"].any() and not env.action_masks().any()
        warned = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
        assert len(warned) == (1 if seed == 0 else 0)  # once per environment
        assert all("legal: " in str(w.message) for w in warned)
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)


def test_action_masks_before_reset_is_a_clear_error() -> None:
    env = SunTzuGymEnv()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        env.action_masks()
    _, info = env.reset(seed=0)
    assert env.action_masks().sum() >= 2
    assert np.array_equal(info["action_mask"], env.action_masks()) and info["action_mask"].dtype == np.int8


def test_info_action_mask_follows_every_step() -> None:
    env = SunTzuGymEnv(variant="beginner")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        action = env.action_space.sample(mask=info["action_mask"])  # Gymnasium's masked sampling takes int8
        _, _, done, _, info = env.step(action)
        rng.random()
    assert not info["action_mask"].any()


def test_bad_arguments_and_reset_arguments_are_named() -> None:
    """A value that is not allowed raises ValueError, a value of the wrong type TypeError; each names the argument."""
    for kwargs, word, error in [
        ({"seat": "green"}, "seat", ValueError),
        ({"shaped_reward": float("nan")}, "shaped_reward", ValueError),
        ({"events": 0}, "events", TypeError),
        ({"illegal_action": "ignore"}, "illegal_action", ValueError),
    ]:
        with pytest.raises(error, match=word):
            SunTzuGymEnv(**kwargs)
    env = SunTzuGymEnv()
    with pytest.raises(ValueError, match="seed must lie in"):
        env.reset(seed=-1)
    for seed in (2.0, True):
        with pytest.raises(TypeError, match="seed must be an integer or None"):
            env.reset(seed=seed)
    obs, _ = env.reset(seed=np.int64(5))  # numpy integers are seeds too
    assert np.array_equal(obs, env.reset(seed=5)[0])
    with pytest.warns(UserWarning, match=r"unknown key\(s\) 'seat' ignored"):
        env.reset(options={"seat": "red"})
    with pytest.raises(TypeError, match="options must be None or a dict"):
        env.reset(options="red")


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
    env.set_opponent(RandomAgent(3))
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
    with pytest.raises(RuntimeError, match="reset"):  # no half-made episode is left to step
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()


class FailingOpponent:
    """Plays the first legal action until `fail` is set, then raises or answers with an illegal action."""

    def __init__(self) -> None:
        self.fail: str | None = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> Any:
        if self.fail == "raise":
            raise RuntimeError("opponent crashed")
        if self.fail == "illegal":
            return int(np.flatnonzero(action_mask == 0)[0])
        if self.fail == "junk":
            return "not an action"
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.parametrize("fail", ["raise", "illegal", "junk"])
def test_a_failing_opponent_leaves_the_episode_as_it_was(fail: str) -> None:
    """The step is undone: the same learner decision is pending, the opponent's never reaches the learner,
    and once the opponent behaves the episode goes on as if the failed step had not been tried."""
    opponent = FailingOpponent()
    env = SunTzuGymEnv(opponent=opponent, seat="blue", variant="beginner", render_mode="ansi")
    reference = SunTzuGymEnv(opponent=FailingOpponent(), seat="blue", variant="beginner", render_mode="ansi")
    env.reset(seed=8)
    reference.reset(seed=8)
    rng = np.random.default_rng(8)
    failures = 0
    for step in range(60):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        before, decision, mask, picture = env.game.to_dict(), env.game.decision, env.action_masks(), env.render()
        a = None
        if step % 7 == 3:  # the opponent fails at this step, if the learner's action hands it the turn
            opponent.fail = fail
            try:
                a = env.step(action)
            except (RuntimeError, ValueError) as error:
                failures += 1
                assert "the learner's action was undone" in "".join(getattr(error, "__notes__", []))
                assert env.game.to_dict() == before and env.game.decision == decision
                assert env.game.current_player == "blue" and np.array_equal(env.action_masks(), mask)
                assert env.render() == picture
            opponent.fail = None
        if a is None:
            a = env.step(action)
        b = reference.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        assert env.game.record() == reference.game.record()
        if a[2]:
            break
    assert failures >= 3


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


def test_options_come_as_one_value_or_as_keywords() -> None:
    """`options=Options(...)` reaches the game, through `gymnasium.make` too; keywords go on top."""
    from suntzu_env.suntzu.options import Options

    rules = Options(variant="beginner", events=True)
    env = gymnasium.make(ENV_ID, options=rules, seat="blue")
    env.reset(seed=2)
    assert env.unwrapped.game.options == rules
    same = SunTzuGymEnv(seat="blue", variant="beginner", events=True)
    same.reset(seed=2)
    assert same.game.record() == env.unwrapped.game.record()
    with pytest.raises(ValueError, match="flat_observation"):
        SunTzuGymEnv(flat_observation=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        SunTzuGymEnv(colour="blue")


def test_an_object_with_only_act_is_an_opponent() -> None:
    """The agent protocol's `reset` is optional for an opponent: `.act` alone is enough."""

    class FirstLegal:
        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return int(np.flatnonzero(action_mask)[0])

    env = SunTzuGymEnv(opponent=FirstLegal(), seat="red")
    _, info = env.reset(seed=0)
    assert info["action_mask"].any()
