"""The batched environment `SunTzuVecEnv`: game for game the games of `SunTzuGymEnv`, SB3 and Gymnasium APIs,
policy opponents, records, determinism, bad arguments."""

from __future__ import annotations

import ast
import itertools
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import suntzu_env
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env import VecMonitor
from suntzu_env import Game
from suntzu_env import IllegalActionWarning
from suntzu_env import SunTzuGymEnv
from suntzu_env.core.threads import max_threads
from suntzu_env.suntzu import vec_core as core
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine import legal_mask
from suntzu_env.suntzu.engine import side_to_act
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.vec_env import SunTzuVecEnv
from suntzu_env.suntzu.vec_env import SunTzuVectorEnv


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic opponent for `SunTzuGymEnv`: its first legal action."""
    return int(np.argmax(mask))


class FirstLegalPolicy:
    """The same opponent as a batched policy, logging the observations and masks it is handed."""

    def __init__(self) -> None:
        self.calls = 0
        self.seen: list[tuple[np.ndarray, np.ndarray]] = []

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.calls += 1
        self.seen += [(o.copy(), m.copy()) for o, m in zip(observations, masks, strict=True)]
        return masks.argmax(axis=1)


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


@pytest.mark.parametrize(
    ("n_envs", "shaped_reward", "illegal_every"), [(1, 0.0, 0), (5, 0.5, 0), (4, 0.25, 37), (3, 0.0, 23)]
)
def test_same_games_as_the_gym_env(n_envs: int, shaped_reward: float, illegal_every: int) -> None:
    """For the same decks, seats and actions, each env plays the game `SunTzuGymEnv` plays against the same
    (deterministic) opponent: observations, masks, rewards, ends, terminal observations, records."""
    policy = FirstLegalPolicy()
    vec = SunTzuVecEnv(n_envs, opponents=policy, seed=1, shaped_reward=shaped_reward, records=True)
    rng = np.random.default_rng(7)
    gym_seen: list[tuple[np.ndarray, np.ndarray]] = []

    def logging_first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        gym_seen.append((observation.copy(), mask.copy()))
        return first_legal(observation, mask)

    games = ends = illegal = 0
    for round_ in range(3):
        gyms = [
            SunTzuGymEnv(
                opponent=logging_first_legal, seat=("blue", "red")[(i + round_) % 2], shaped_reward=shaped_reward
            )
            for i in range(n_envs)
        ]
        seen_before, gym_seen_before = len(policy.seen), len(gym_seen)
        first = [gym.reset(seed=100 * round_ + i)[0] for i, gym in enumerate(gyms)]
        obs = vec.play_games([gym.game.record()["seed"] for gym in gyms], [gym.seat for gym in gyms])
        for i, gym in enumerate(gyms):
            np.testing.assert_array_equal(obs[i], first[i])
            np.testing.assert_array_equal(vec.action_masks()[i], gym.action_masks())
        assert vec.seats == [gym.seat for gym in gyms]
        active = [True] * n_envs
        step = 0
        while any(active):
            step += 1
            masks = vec.action_masks()
            actions = random_legal(rng, masks)
            for i in range(n_envs):
                if active[i] and illegal_every and i % 2 == 0 and (step + 11 * i) % illegal_every == 0:
                    actions[i] = int(np.flatnonzero(~masks[i])[0])  # an illegal action: the learner loses
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", IllegalActionWarning)
                obs, rewards, dones, infos = vec.step(actions)
            for i, gym in enumerate(gyms):
                if not active[i]:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", IllegalActionWarning)
                    g_obs, g_reward, terminated, truncated, g_info = gym.step(int(actions[i]))
                assert rewards[i] == np.float32(g_reward), (i, step)
                assert bool(dones[i]) == terminated and not truncated
                if terminated:
                    info = infos[i]
                    np.testing.assert_array_equal(info["terminal_observation"], g_obs)
                    assert info["seat"] == gym.seat
                    assert info["winner"] == g_info["winner"]
                    assert info.get("illegal_action", False) == g_info.get("illegal_action", False)
                    assert info["record"] == gym.game.record() == vec.last_record(i)
                    np.testing.assert_array_equal(Game.replay(info["record"]).state, gym.game.state)
                    active[i] = False
                    games += 1
                    ends += info["winner"] is not None
                    illegal += "illegal_action" in info
                else:
                    assert infos[i] == {}
                    np.testing.assert_array_equal(obs[i], g_obs)
                    np.testing.assert_array_equal(vec.action_masks()[i], gym.action_masks())
        if n_envs == 1:  # one game at a time: the policy saw, call for call, what the gym env's opponent saw
            gym_round = gym_seen[gym_seen_before:]
            vec_round = policy.seen[seen_before : seen_before + len(gym_round)]  # (then the next game's opening)
            assert len(vec_round) == len(gym_round) > 0
            for (o1, m1), (o2, m2) in zip(vec_round, gym_round, strict=True):
                np.testing.assert_array_equal(o1, o2)
                np.testing.assert_array_equal(m1, m2)
    assert games == 3 * n_envs
    assert policy.calls > 0
    if illegal_every:
        assert illegal > 0 and ends > 0


@pytest.mark.parametrize("opponent", ["greedy", "heuristic"])
def test_compiled_baselines_play_as_in_the_gym_env(opponent: str) -> None:
    """The compiled baselines inside the batched step answer as the same agents do in `SunTzuGymEnv`."""
    n_envs = 4
    vec = SunTzuVecEnv(n_envs, opponents=opponent, seed=2, shaped_reward=0.5, records=True)
    gyms = [SunTzuGymEnv(opponent=opponent, seat=("blue", "red")[i % 2], shaped_reward=0.5) for i in range(n_envs)]
    first = [gym.reset(seed=i)[0] for i, gym in enumerate(gyms)]
    np.testing.assert_array_equal(
        vec.play_games([g.game.record()["seed"] for g in gyms], [g.seat for g in gyms]), first
    )
    rng = np.random.default_rng(3)
    active = [True] * n_envs
    while any(active):
        actions = random_legal(rng, vec.action_masks())
        obs, rewards, dones, infos = vec.step(actions)
        for i, gym in enumerate(gyms):
            if active[i]:
                g_obs, g_reward, terminated, _, _ = gym.step(int(actions[i]))
                assert rewards[i] == np.float32(g_reward) and bool(dones[i]) == terminated
                if terminated:
                    assert infos[i]["record"] == gym.game.record()
                    assert infos[i]["opponent"] == opponent
                    np.testing.assert_array_equal(infos[i]["terminal_observation"], g_obs)
                    active[i] = False
                else:
                    np.testing.assert_array_equal(obs[i], g_obs)


def play(env: SunTzuVecEnv, steps: int, seed: int = 0) -> tuple[list[np.ndarray], list[dict]]:
    rng = np.random.default_rng(seed)
    out = [env.reset()]
    records = []
    for _ in range(steps):
        obs, rewards, dones, infos = env.step(random_legal(rng, env.action_masks()))
        out += [obs, rewards, dones]
        records += [info["record"] for info in infos if "record" in info]
    return out, records


def test_a_seed_gives_the_same_games() -> None:
    a, records_a = play(SunTzuVecEnv(4, seed=3, records=True), 200)
    b, records_b = play(SunTzuVecEnv(4, seed=3, records=True), 200)
    _, records_c = play(SunTzuVecEnv(4, seed=4, records=True), 200)
    assert len(records_a) > 4
    assert records_a == records_b
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert records_a != records_c
    for record in records_a:
        assert Game.replay(record).is_terminal


def test_seats_alternate_and_seed_restarts() -> None:
    env = SunTzuVecEnv(4, seed=5, records=True)
    env.reset()
    assert env.seats == ["blue", "red", "blue", "red"]
    seats_by_env: dict[int, list[str]] = {i: [] for i in range(4)}
    rng = np.random.default_rng(0)
    while min(len(s) for s in seats_by_env.values()) < 3:
        _, _, dones, infos = env.step(random_legal(rng, env.action_masks()))
        for i in np.flatnonzero(dones):
            seats_by_env[i].append(infos[i]["seat"])
    for i, seats in seats_by_env.items():
        first = ("blue", "red")[i % 2]
        other = ("red", "blue")[i % 2]
        assert seats[:3] == [first, other, first]
    assert env.seed(9) == [9] * 4
    first_obs = env.reset()
    np.testing.assert_array_equal(first_obs, SunTzuVecEnv(4, seed=9).reset())
    fixed = SunTzuVecEnv(3, seat="red", seed=0)
    fixed.reset()
    assert fixed.seats == ["red"] * 3


def test_sb3_vec_env_interface() -> None:
    env = SunTzuVecEnv(6, seed=0)
    assert isinstance(env, VecEnv)
    obs = env.reset()
    assert obs.shape == (6, OBSERVATION_SIZE) and obs.dtype == np.float32
    assert all(env.observation_space.contains(o) for o in obs)
    masks = env.action_masks()
    assert masks.shape == (6, N_ACTIONS) and masks.dtype == bool and (masks.sum(axis=1) >= 2).all()
    np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
    assert env.has_attr("action_masks")
    assert env.get_attr("render_mode") == [None] * 6
    assert env.get_attr("seat", indices=[0, 1]) == ["blue", "red"]
    assert env.get_attr("opponent") == ["random"] * 6
    assert env.env_is_wrapped(gymnasium.Wrapper) == [False] * 6
    with pytest.raises(AttributeError, match="no attribute"):
        env.get_attr("nonsense")
    monitored = VecMonitor(env)
    monitored.reset()
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(400):
        obs, rewards, dones, infos = monitored.step(random_legal(rng, env.action_masks()))
        assert obs.shape == (6, OBSERVATION_SIZE) and rewards.dtype == np.float32 and dones.dtype == bool
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (OBSERVATION_SIZE,)
            assert rewards[i] in (-1.0, 0.0, 1.0)
            assert "episode" in infos[i]
            episodes += 1
        assert all(not info for i, info in enumerate(infos) if not dones[i])
    assert episodes > 0
    env.close()


def test_gymnasium_vector_api() -> None:
    envs = SunTzuVectorEnv(3, seed=0)
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    obs, infos = envs.reset(seed=2)
    twin = SunTzuVecEnv(3, seed=2)  # the same games under Stable-Baselines3's API
    np.testing.assert_array_equal(twin.reset(), obs)
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (3, N_ACTIONS)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        actions = random_legal(rng, infos["action_mask"])
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        twin_obs, twin_rewards, twin_dones, twin_infos = twin.step(actions)
        np.testing.assert_array_equal(obs, twin_obs)
        np.testing.assert_array_equal(rewards, twin_rewards)
        np.testing.assert_array_equal(terminations, twin_dones)
        assert obs.shape == (3, OBSERVATION_SIZE) and not truncations.any()
        if terminations.any():
            assert (infos["_final_obs"] == terminations).all()
            for i in range(3):  # Gymnasium's convention: an object array, None where no game ended
                if terminations[i]:
                    np.testing.assert_array_equal(infos["final_obs"][i], twin_infos[i]["terminal_observation"])
                else:
                    assert infos["final_obs"][i] is None
            finished += int(terminations.sum())
    assert finished > 0
    again, _ = envs.reset(seed=2)
    first, _ = SunTzuVectorEnv(3).reset(seed=2)
    np.testing.assert_array_equal(again, first)
    envs.close()


def test_maskable_ppo_learns_on_it() -> None:
    from sb3_contrib import MaskablePPO

    env = SunTzuVecEnv(8, opponents={"random": 1.0, FirstLegalPolicy(): 1.0}, seed=0, shaped_reward=0.1)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [16]}, seed=0
    )
    model.learn(512)
    assert model.num_timesteps >= 512


def test_self_play_policy_opponent_in_one_batch() -> None:
    """A learned policy as the opponent: every waiting game answered in one call per opponent round."""
    from agents.ppo import PolicyActor
    from agents.ppo import PPOAgent
    from sb3_contrib import MaskablePPO

    env = SunTzuVecEnv(6, opponents="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=48, n_epochs=1, policy_kwargs={"net_arch": [16]}, seed=0
    )
    actor = PolicyActor.from_policy(model.policy)
    calls: list[int] = []

    class Counting(PPOAgent):
        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            calls.append(len(observations))
            answers = super().act_batch(observations, action_masks)
            assert all(action_masks[j, a] for j, a in enumerate(answers))
            return answers

    for deterministic in (True, False):
        calls.clear()
        env.set_opponents(Counting(actor, deterministic=deterministic, seed=1))
        env.reset()
        assert env.opponent_names == ["ppo"] * 6
        rng = np.random.default_rng(0)
        for _ in range(60):
            env.step(random_legal(rng, env.action_masks()))
        assert calls and max(calls) > 1  # several games answered in one forward pass
    model.learn(96)


def test_a_policy_network_plays_in_compiled_code_as_from_python() -> None:
    """A `PPOAgent` opponent plays inside the compiled step, never asked from Python, and makes the moves the same
    agent makes when asked from Python; sampling, it draws from each game's generator: the env's seed decides."""
    from agents.ppo import PolicyActor
    from agents.ppo import PPOAgent
    from suntzu_env.suntzu import vec_core as core

    rng = np.random.default_rng(0)
    sizes = (OBSERVATION_SIZE, 32, 24, N_ACTIONS)
    actor = PolicyActor([rng.normal(0, 0.3, (o, i)).astype(np.float32) for i, o in itertools.pairwise(sizes)],
                        [rng.normal(0, 0.3, o).astype(np.float32) for o in sizes[1:]], "ReLU")  # fmt: skip

    class FromPython(PPOAgent):
        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            return super().act_batch(observations, action_masks)

    compiled = SunTzuVecEnv(4, opponents=PPOAgent(actor), seed=5, records=True)
    python = SunTzuVecEnv(4, opponents=FromPython(actor), seed=5, records=True)
    assert compiled._slots.agents.tolist() == [core.AGENT_NET]
    assert python._slots.agents.tolist() == [core.AGENT_POLICY]
    a, records_a = play(compiled, 150)
    b, records_b = play(python, 150)
    assert len(records_a) >= 4 and records_a == records_b
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    sampled = [play(SunTzuVecEnv(4, opponents=PPOAgent(actor, False, seed=s), seed=5, records=True), 150)[1]
               for s in (1, 2)]  # fmt: skip
    assert sampled[0] == sampled[1] != records_a
    wrong = PolicyActor([np.zeros((N_ACTIONS, 7), np.float32)], [np.zeros(N_ACTIONS, np.float32)])
    with pytest.raises(ValueError, match=f"opponents: 'ppo': a policy network of 7 inputs.*{OBSERVATION_SIZE}"):
        SunTzuVecEnv(2, opponents=PPOAgent(wrong))
    tampered = PPOAgent(PolicyActor(actor.weights, actor.biases), name="tampered")
    tampered.actor.net.params = tampered.actor.net.params[:-1]
    with pytest.raises(ValueError, match="opponents: 'tampered': a policy network of widths"):
        SunTzuVecEnv(2, opponents=tampered)


def test_returned_observations_are_never_written_again() -> None:
    """Each step returns a new observation array (no copy is made of it), which later steps, `play_games` on some
    envs and `sit_out` leave as it was; the envs left alone observe what they observed before."""
    env = SunTzuVecEnv(4, opponents=["random", FirstLegalPolicy(), "heuristic", "random"], seed=5)
    rng = np.random.default_rng(0)
    kept = [env.reset()]
    for _ in range(40):
        kept.append(env.step(random_legal(rng, env.action_masks()))[0])
    env.sit_out([3])
    kept.append(env.step(random_legal(rng, env.action_masks()))[0])
    np.testing.assert_array_equal(kept[-1][3], kept[-2][3])  # env 3 sits out: the same observation
    kept.append(env.play_games([7], ["red"], envs=[1]))
    np.testing.assert_array_equal(kept[-1][[0, 2, 3]], kept[-2][[0, 2, 3]])
    values = [obs.copy() for obs in kept]
    for _ in range(10):
        env.step(random_legal(rng, env.action_masks()))
    env.reset()
    assert len({id(obs) for obs in kept}) == len(kept)
    for obs, value in zip(kept, values, strict=True):
        np.testing.assert_array_equal(obs, value)


def test_opponent_mix_and_set_opponent() -> None:
    policy = FirstLegalPolicy()
    env = SunTzuVecEnv(8, opponents={"random": 1.0, policy: 3.0}, seed=0)
    env.reset()
    seen = set(env.opponent_names)
    rng = np.random.default_rng(0)
    names = []
    for _ in range(300):
        _, _, dones, infos = env.step(random_legal(rng, env.action_masks()))
        names += [infos[i]["opponent"] for i in np.flatnonzero(dones)]
    assert seen | set(names) == {"random", "FirstLegalPolicy"}
    env.env_method("set_opponent", "random", indices=[0])
    env.set_attr("opponent", policy, indices=[1])
    for _ in range(300):
        env.step(random_legal(rng, env.action_masks()))
    assert env.opponent_names[0] == "random" and env.opponent_names[1] == "FirstLegalPolicy"


def test_illegal_action_raise_changes_nothing() -> None:
    env = SunTzuVecEnv(3, seed=0, illegal_action="raise")
    env.reset()
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    bad = int(np.flatnonzero(~masks[1])[0])
    actions[1] = bad
    before = env.game(1).record()
    with pytest.raises(ValueError, match=r"env 1: illegal action .* for decision '\w+' .*; legal: "):
        env.step(actions)
    assert env.game(1).record() == before
    np.testing.assert_array_equal(env.action_masks(), masks)
    env.step(masks.argmax(axis=1))  # and it goes on


def test_illegal_action_loss_warns_once() -> None:
    env = SunTzuVecEnv(2, seed=0)
    env.reset()
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[0] = N_ACTIONS + 5
    with pytest.warns(IllegalActionWarning, match="illegal_action='loss'"):
        _, rewards, dones, infos = env.step(actions)
    assert dones[0] and rewards[0] == -1.0 and infos[0]["illegal_action"] and infos[0]["winner"] is None
    assert not dones[1]
    actions = env.action_masks().argmax(axis=1)
    actions[1] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        _, rewards, dones, _ = env.step(actions)
    assert dones[1] and rewards[1] == -1.0


def test_a_policy_answering_illegally_changes_nothing() -> None:
    def bad(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return (masks == 0).argmax(axis=1)  # the first illegal action

    def beyond(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.full(len(observations), N_ACTIONS)  # no action has this id

    def broken(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise RuntimeError("the network fell over")

    for opponent, error, match in (
        (bad, ValueError, r"opponent 'bad' played an illegal action: env \d: illegal action .* legal: "),
        (beyond, ValueError, r"opponent 'beyond' played an illegal action: env \d: "),
        (broken, RuntimeError, "fell over"),
    ):
        env = SunTzuVecEnv(4, opponents=opponent, seed=0, seat="blue")
        obs = env.reset()  # blue is asked first: the opponent has not answered yet
        records = [env.game(i).record() for i in range(4)]
        masks = env.action_masks()
        with pytest.raises(error, match=match):
            env.step(masks.argmax(axis=1))
        assert [env.game(i).record() for i in range(4)] == records
        np.testing.assert_array_equal(env.action_masks(), masks)
        env.set_opponents("random")  # from the next games on; these still meet the failing opponent
        with pytest.raises(error, match=match):
            env.step(masks.argmax(axis=1))
        env.seed(0)
        np.testing.assert_array_equal(env.reset(), SunTzuVecEnv(4, opponents="random", seed=0, seat="blue").reset())
        assert obs.shape == (4, OBSERVATION_SIZE)


class GameReader:
    """An agent that reads the game (`observe_game`) but cannot be asked from a state (no `act_in_state`)."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.argmax(mask))

    def reset(self, seed: int | None = None) -> None:
        pass

    def observe_game(self, game: object, seat: str) -> None:
        pass


class StateSearcher(GameReader):
    """A search as the batched env asks it (`act_in_state`): its first legal move, each call logged."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []  # (seat, generator) of each call

    def act_in_state(self, state: np.ndarray, seat: int, mask: np.ndarray, rng: np.ndarray) -> int:
        assert side_to_act(state) == seat and np.array_equal(mask, legal_mask_of(state))
        self.calls.append((seat, int(rng[0])))
        rng[0] += 1  # a draw: the env keeps the generator the search advanced
        return int(np.argmax(mask))


def legal_mask_of(state: np.ndarray) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    legal_mask(state.copy(), mask)
    return mask


def test_a_search_answers_from_each_games_state_and_generator() -> None:
    """A search (`act_in_state`) is asked game by game for the seat the learner does not hold, with the game's state
    and its generator, which it advances: the games are those of the same first-legal opponent as a policy, and the
    generators it advanced are the env's own (its saved state holds them)."""
    searcher, policy = StateSearcher(), FirstLegalPolicy()
    searched = SunTzuVecEnv(4, opponents=searcher, seed=6, records=True, threads=1)  # one copy: its log whole
    asked = SunTzuVecEnv(4, opponents=policy, seed=6, records=True)
    a, records_a = play(searched, 120)
    b, records_b = play(asked, 120)
    assert records_a == records_b and len(records_a) >= 2 and len(searcher.calls) == len(policy.seen)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    seats = {seat for seat, _ in searcher.calls}
    assert seats == {0, 1}  # the learner alternates seats, so the search plays both
    state = searched.get_state()
    assert state["table"][:, core.T_AGENT_RNG].tolist() != asked.get_state()["table"][:, core.T_AGENT_RNG].tolist()


def test_the_search_plays_in_the_batched_env_and_a_saved_env_goes_on_exactly() -> None:
    """`ismcts` as the batched env's opponent: every game ends and replays; saved after 40 steps and restored into a
    new env on another number of threads (the searches run on the step's threads), the env plays on exactly as the
    one that was not stopped."""
    env = SunTzuVecEnv(4, opponents="ismcts:8", seed=4, records=True, threads=min(2, max_threads()))
    rng = np.random.default_rng(5)
    env.reset()
    for _ in range(40):
        env.step(random_legal(rng, env.action_masks()))
    saved = env.get_state()
    restored = SunTzuVecEnv(4, opponents="random", seed=0, records=True, threads=1)
    restored.set_state(saved)
    records: list[list[dict]] = [[], []]
    for _ in range(150):
        actions = random_legal(rng, env.action_masks())
        for k, e in enumerate((env, restored)):
            obs, rewards, dones, infos = e.step(actions)
            records[k] += [info["record"] for info in infos if "record" in info]
            if k == 0:
                first = (obs, rewards, dones)
        for x, y in zip(first, (obs, rewards, dones), strict=True):
            np.testing.assert_array_equal(x, y)
    assert records[0] == records[1] and len(records[0]) >= 2
    for record in records[0]:
        assert Game.replay(record).is_terminal


BAD_ARGUMENTS: list[tuple[int, dict[str, Any], type[Exception], str]] = [
    (2, {"opponents": "champion"}, ValueError, "unknown agent 'champion'"),
    (2, {"opponents": 42}, TypeError, "each opponent must be"),
    (3, {"opponents": ["random", "random"]}, ValueError, "one opponent per env"),
    (2, {"opponents": {}}, ValueError, "empty mix"),
    (2, {"opponents": {"random": -1.0}}, ValueError, "weight"),
    (2, {"opponents": {"random": 0.0}}, ValueError, "add up to 0"),
    (2, {"opponents": GameReader()}, ValueError, "searches the game itself and cannot play in SunTzuVecEnv"),
    (2, {"seed": -1}, ValueError, r"seed must lie in \[0, 2\*\*63\)"),
    (2, {"seed": "0"}, TypeError, "seed must be an integer or None"),
    (2, {"seat": "green"}, ValueError, "seat must be one of"),
    (2, {"shaped_reward": -1.0}, ValueError, "shaped_reward"),
    (2, {"illegal_action": "ignore"}, ValueError, "illegal_action"),
    (2, {"variant": "expert"}, ValueError, "variant"),
    (2, {"colour": "blue"}, TypeError, "unexpected keyword argument 'colour'"),
    (2, {"render_mode": "ansi"}, ValueError, "render_mode"),
]


def test_bad_arguments_are_named() -> None:
    for n_envs, error in ((0, ValueError), (-2, ValueError), ("4", TypeError), (True, TypeError), (2.0, TypeError)):
        with pytest.raises(error, match="n_envs"):
            SunTzuVecEnv(n_envs)
    for n_envs, kwargs, error, match in BAD_ARGUMENTS:
        with pytest.raises(error, match=match):
            SunTzuVecEnv(n_envs, **kwargs)
    env = SunTzuVecEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    env.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="integer action ids"):
        env.step(np.zeros(2, dtype=np.float32))
    with pytest.raises(ValueError, match="has not finished a game"):
        env.last_record(0)
    with pytest.raises(ValueError, match=r"env index must be an integer in \[0, 2\)"):
        env.last_record(2)
    with pytest.raises(ValueError, match=r"game_seeds\[1\] must lie"):
        env.play_games([0, -5], ["blue", "red"])
    with pytest.raises(ValueError, match=r"seats\[0\] must be one of"):
        env.play_games([0, 1], ["green", "red"])
    with pytest.raises(ValueError, match="2 deck seeds and 2 seats"):
        env.play_games([0], ["blue"])


def test_variant_events_and_a_custom_map() -> None:
    adjacency = [["QIN", "CHU"], ["CHU", "JIN-YAN"], ["JIN-YAN", "HAN-QI"], ["HAN-QI", "WU"]]
    for options in ({"variant": "beginner", "events": True}, {"adjacency": adjacency}):
        env = SunTzuVecEnv(3, seed=0, records=True, **options)
        env.reset()
        rng = np.random.default_rng(0)
        records = []
        while len(records) < 3:
            _, _, _, infos = env.step(random_legal(rng, env.action_masks()))
            records += [info["record"] for info in infos if "record" in info]
        for record in records:
            game = Game.replay(record)
            assert game.is_terminal
            assert game.options == Game.new(0, **options).options


def test_functions_inlined_into_the_kernels_raise_nothing_themselves() -> None:
    """A `raise` (or `assert`) inlined into a `prange` loop makes numba run it on one thread: the functions
    inlined into the batched kernels leave raising to functions they call."""
    inlined = 0
    for path in Path(suntzu_env.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                keyword.arg == "inline" and ast.literal_eval(keyword.value) == "always"
                for decorator in node.decorator_list
                if isinstance(decorator, ast.Call)
                for keyword in decorator.keywords
            ):
                inlined += 1
                raising = [n for n in ast.walk(node) if isinstance(n, ast.Raise | ast.Assert)]
                assert not raising, f"{path.name}: {node.name} raises in its own body (line {raising[0].lineno})"
    assert inlined >= 5  # run_game, compiled_action, step, advance, random_action, ...


def test_the_kernels_take_the_batch_as_declared() -> None:
    """`vec_core.Batch` declares what the kernels play on once: each kernel (and `run_game`, inlined into them)
    takes its fields as its last parameters, in the declaration's order, which is how `SunTzuVecEnv` passes them
    (`*batch`); the table's columns are numbered by their declaration (`TABLE_FIELDS`)."""
    from suntzu_env.suntzu import vec_core as core

    fields = list(core.Batch._fields)
    assert [f.offset for f in core.TABLE_FIELDS] == list(range(core.TABLE_COLUMNS))
    assert len({f.name for f in core.TABLE_FIELDS}) == core.TABLE_COLUMNS
    tree = ast.parse(Path(core.__file__).read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("step_games", "resume_games", "start_games", "run_game"):
        params = [a.arg for a in functions[name].args.args]
        assert params[-len(fields) :] == fields, name


def test_an_opponent_mix_draws_no_slot_after_its_last_weighted_one() -> None:
    """`mix_cdf`, shared by both games' batched envs: weights merged by slot, normalised, and 1.0 from the last
    weighted slot on, so a slot the mix leaves out is never drawn however the sums round."""
    from suntzu_env.core.checks import mix_cdf

    slots = {"random": 0, "greedy": 1, "heuristic": 2, "pool": 3}
    cdf = mix_cdf({"greedy": 0.1, "random": 0.2, "heuristic": 0.0, "again": 0.0}, lambda o: slots.get(o, 1), lambda: 4)
    assert cdf.tolist() == pytest.approx([2 / 3, 1.0, 1.0, 1.0]) and cdf[1] == 1.0
    assert mix_cdf({"heuristic": 3}, slots.__getitem__, lambda: 4).tolist() == [0.0, 0.0, 1.0, 1.0]
