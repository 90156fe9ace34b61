"""The PettingZoo environments: conformance tests, masks, rewards, illegal actions, pictures, docs."""

from __future__ import annotations

import importlib
import os
import pickle
import warnings
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

with warnings.catch_warnings():  # pettingzoo.test loads its own classic envs through a deprecated path
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test
    from pettingzoo.test import parallel_api_test
    from pettingzoo.test import parallel_seed_test
    from pettingzoo.test import performance_benchmark
    from pettingzoo.test import render_test
    from pettingzoo.test import seed_test
    from pettingzoo.test import state_test
    from pettingzoo.test import test_save_obs as save_obs_test  # renamed, or pytest would collect it
    from pettingzoo.utils.conversions import aec_to_parallel
    from pettingzoo.utils.conversions import parallel_to_aec
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from suntzu_env import N_ACTIONS
from suntzu_env import OBSERVATION_SIZE
from suntzu_env import Game
from suntzu_env import IllegalActionWarning
from suntzu_env import describe_observation
from suntzu_env import env
from suntzu_env import parallel_env
from suntzu_env import raw_env
from suntzu_env.suntzu.actions import ACTION_GROUPS
from suntzu_env.suntzu.actions import ACTION_MEANINGS
from suntzu_env.suntzu.actions import ACTION_STRINGS
from suntzu_env.suntzu.episode import EnvSettings
from suntzu_env.suntzu.episode import Episode
from suntzu_env.suntzu.observation import OBSERVATION_INV_SCALE
from suntzu_env.suntzu.observation import OBSERVATION_PIECES
from suntzu_env.suntzu.observation import OBSERVATION_SCALE
from suntzu_env.suntzu.observation import OBSERVATION_SLICES
from suntzu_env.suntzu.observation import observation_views
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.rules import CARDS
from suntzu_env.suntzu.rules import PROVINCES
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.suntzu_v3 import SunTzuParallelEnv
from suntzu_env.suntzu.suntzu_v3 import describe_actions
from suntzu_env.suntzu.suntzu_v3 import flat_observation_box
from suntzu_env.suntzu.suntzu_v3 import observation_box

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # "human" rendering without a display
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

GAME_CONFIGS = [
    {"variant": "standard", "events": False},
    {"variant": "standard", "events": True},
    {"variant": "beginner", "events": False},
]
CONFIGS = [*GAME_CONFIGS, {"variant": "standard", "events": True, "flat_observation": True}]
# What PettingZoo's checks say about choices this project made on purpose: agents named after the seats
# ("blue", "red", R0), a Dict observation holding the action mask, and a reset that names the option key
# the API tests pass (`options={"options": 1}`) as unknown.
EXPECTED_WARNINGS = (
    "We recommend agents to be named",
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "reset(options=...): unknown key(s) 'options' ignored",
)
# Checks that sample actions without the mask meet the default illegal-action rule: the game ends, with a
# warning naming the decision and its legal actions.
ILLEGAL_WARNING = "illegal action "
ENV_MODULE = importlib.import_module("suntzu_env.suntzu.suntzu_v3")


def checked(run: Callable[[], Any], *also: str) -> list[str]:
    """Run a PettingZoo check; any warning but the expected ones (and `also`) fails the test."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    messages = [str(w.message) for w in caught]
    unexpected = [m for m in messages if not m.startswith(EXPECTED_WARNINGS + also)]
    assert not unexpected, unexpected
    return messages


def play_totals(e: Any, seed: int) -> tuple[dict[str, float], int]:
    """Random legal play to the end; the rewards each agent got through `last()`, and the number of
    steps that paid a non-zero reward before the end."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    totals = {"blue": 0.0, "red": 0.0}
    paid = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert not truncated
        totals[agent] += reward
        if terminated:
            e.step(None)
            continue
        paid += reward != 0
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals, paid


def random_play(e: Any, seed: int) -> Iterator[tuple[str, dict[str, np.ndarray]]]:
    """Play an AEC env with random legal actions, yielding (agent, observation) before each live step."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        yield agent, obs
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def random_actions(observations: dict[str, Any], rng: np.random.Generator) -> dict[str, int]:
    """A random legal action for every agent of a Parallel step whose mask is not all zero."""
    masks = {agent: obs["action_mask"] for agent, obs in observations.items()}
    return {agent: int(rng.choice(np.flatnonzero(mask))) for agent, mask in masks.items() if mask.any()}


# ---------------------------------------------------------------- PettingZoo conformance, defaults first


def test_every_pettingzoo_check_passes_on_the_default_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`env()` and `parallel_env()` as they come; the checks that sample without the mask end games early."""
    checked(lambda: api_test(env(), num_cycles=1000))
    checked(lambda: parallel_api_test(parallel_env(), num_cycles=1000))
    checked(lambda: seed_test(env, num_cycles=500))
    checked(lambda: parallel_seed_test(parallel_env, num_cycles=500), ILLEGAL_WARNING)
    checked(lambda: state_test(env(), parallel_env(), num_cycles=50), ILLEGAL_WARNING)
    monkeypatch.setitem(raw_env.metadata, "render_fps", 1000)  # no pause between frames in the test
    checked(lambda: render_test(env))
    monkeypatch.chdir(tmp_path)  # test_save_obs saves nothing for a Dict observation, but would write here
    checked(lambda: save_obs_test(env()))


def test_performance_benchmark_runs() -> None:
    """PettingZoo's benchmark plays the default AEC environment for its fixed five seconds, resetting at
    each end (it prints its figures and checks none: speed is measured by `python -m suntzu_env.bench`)."""
    checked(lambda: performance_benchmark(env()))


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_pettingzoo_api_test(kwargs: dict[str, Any]) -> None:
    checked(lambda: api_test(env(**kwargs), num_cycles=1000))
    checked(lambda: api_test(raw_env(**kwargs), num_cycles=1000))


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_pettingzoo_parallel_api_test(kwargs: dict[str, Any]) -> None:
    """With a flat observation the test finds no mask to sample with (it reads only a Dict's), so some of
    its actions are illegal and end the game."""
    also = (ILLEGAL_WARNING,) if kwargs.get("flat_observation") else ()
    checked(lambda: parallel_api_test(parallel_env(**kwargs), num_cycles=1000), *also)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_pettingzoo_seed_test(kwargs: dict[str, Any]) -> None:
    checked(lambda: seed_test(lambda: env(**kwargs), num_cycles=500))


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_pettingzoo_parallel_seed_test(kwargs: dict[str, Any]) -> None:
    """PettingZoo's parallel seed test samples actions without the mask: illegal ones end the game."""
    checked(lambda: parallel_seed_test(lambda: parallel_env(**kwargs), num_cycles=500), ILLEGAL_WARNING)


def test_pickle_round_trip_mid_game() -> None:
    """A pickled environment, mid-game, goes on exactly as the original."""
    e = env(variant="standard", events=True)
    play = random_play(e, seed=5)
    for _ in range(70):
        next(play)
    copy = pickle.loads(pickle.dumps(e))
    assert copy.agent_selection == e.agent_selection
    rng = np.random.default_rng(1)
    while True:
        agent = e.agent_selection
        obs, reward, terminated, _, _ = e.last()
        obs2, reward2, terminated2, _, _ = copy.last()
        assert agent == copy.agent_selection and reward == reward2 and terminated == terminated2
        assert all(np.array_equal(obs[k], obs2[k]) for k in obs)
        if terminated:
            break
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
        copy.step(action)
    assert copy.unwrapped.game.record() == e.unwrapped.game.record()


# ---------------------------------------------------------------- observations and masks


@pytest.mark.parametrize("kwargs", GAME_CONFIGS)
def test_mask_is_the_engine_legal_set_and_observation_is_in_bounds(kwargs: dict[str, Any]) -> None:
    """The acting agent's int8 mask is the engine's legal set (>= 2 answers, R10); the other's is all zero."""
    e = raw_env(**kwargs)
    box = observation_box()
    for seed in range(8):
        for agent, obs in random_play(e, seed):
            game = e.game
            assert agent == game.current_player
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
            assert np.array_equal(mask, game.legal_mask()) and mask.sum() >= 2
            other = e.observe("red" if agent == "blue" else "blue")
            assert not other["action_mask"].any()
            for o in (obs["observation"], other["observation"]):
                assert o.dtype == np.float32 and o.shape == (OBSERVATION_SIZE,) and box.contains(o)
            assert np.array_equal(obs["observation"], game.observation(agent))


def test_placement_is_hidden_until_reveal() -> None:
    """R4.1, R9: red's view when it places is the same whatever blue put face down."""
    views, placed = [], []
    for pick in (min, max):  # blue places its lowest or its highest legal card id each time
        e = raw_env(variant="beginner")
        e.reset(seed=11)
        while e.agent_selection == "blue":
            mask = e.observe("blue")["action_mask"]
            legal = [a for a in np.flatnonzero(mask) if ACTION_STRINGS[a].startswith("place:")]
            e.step(int(pick(legal)))
        views.append(e.observe("red"))
        placed.append(e.game.to_dict()["engine"]["placed"][:5])
    assert placed[0] != placed[1]
    assert np.array_equal(views[0]["observation"], views[1]["observation"])
    assert np.array_equal(views[0]["action_mask"], views[1]["action_mask"])
    assert not observation_views(views[0]["observation"])["opp_revealed"].any()


def test_observation_views_agree_with_the_game() -> None:
    """The declared pieces name what the encoder writes (a few pieces checked against the game)."""
    e = raw_env()
    for agent, obs in random_play(e, seed=3):
        v = observation_views(obs["observation"])
        game = e.game
        side = game.to_dict()[agent]
        assert v["my_seat"].tolist() == ([1.0, 0.0] if agent == "blue" else [0.0, 1.0])
        assert v["round"].argmax() == game.round - 1 and v["round"].sum() == 1
        assert round(float(v["my_score"][0]) * 9) == (game.score if agent == "blue" else -game.score)
        hand = np.array([side["hand"].count(c) for c in CARDS], dtype=np.float32) / 3
        assert np.allclose(v["my_hand"], hand)
        assert np.allclose(v["my_armies"] * 21, side["armies"])


def test_encoder_multiplying_by_the_inverse_scale_gives_each_count_over_its_scale() -> None:
    """The encoder multiplies a count by 1/scale in place of dividing by its scale: for every whole count of
    magnitude up to 1,000 (far above any the state holds) and every piece's scale, the float32 entry is the same."""
    counts = np.arange(-1000, 1001, dtype=np.float64)
    for scale, inverse in zip(OBSERVATION_SCALE, OBSERVATION_INV_SCALE, strict=True):
        divided = (counts / scale).astype(np.float32)
        multiplied = (counts * inverse).astype(np.float32)
        assert np.array_equal(divided.view(np.int32), multiplied.view(np.int32)), scale


def test_docstring_tables_are_generated_from_the_declarations() -> None:
    """The Observation Space and Action Space tables come from OBSERVATION_PIECES and ACTION_GROUPS."""
    doc = ENV_MODULE.__doc__
    assert describe_observation() in doc and describe_actions() in doc
    for heading in ("Arguments", "Observation Space", "Action Space", "Rewards", "Episode End", "Version History"):
        assert f"## {heading}" in doc
    assert f"Discrete({N_ACTIONS})" in doc and f"({OBSERVATION_SIZE},)" in doc
    rows = describe_observation().splitlines()[2:]
    assert len(rows) == len(OBSERVATION_PIECES)
    for row, (name, size, *_) in zip(rows, OBSERVATION_PIECES, strict=True):
        sl = OBSERVATION_SLICES[name]
        assert sl.stop - sl.start == size and f"`{name}`" in row and row.startswith(f"| {sl.start}")
    assert sum(piece.size for piece in OBSERVATION_PIECES) == OBSERVATION_SIZE == observation_box().shape[0]
    action_rows = describe_actions().splitlines()[2:]
    assert len(action_rows) == N_ACTIONS
    for i, action in enumerate(ACTION_STRINGS):
        assert action_rows[i].startswith(f"| {i} | `{action}` |")
    assert {group for group, _ in ACTION_GROUPS} == set(ACTION_MEANINGS)


# ---------------------------------------------------------------- rewards and the end


@pytest.mark.parametrize("kwargs", GAME_CONFIGS)
def test_rewards_only_at_the_end(kwargs: dict[str, Any]) -> None:
    """R6.5: +1/-1/0 at the end, zero before; terminated at the natural end, never truncated."""
    e = raw_env(**kwargs)
    for seed in range(6):
        totals, paid = play_totals(e, seed)
        assert e.game.is_terminal and not e.agents
        assert totals == e.game.returns() and paid == 0


def test_final_rewards_reach_both_agents_through_last() -> None:
    e = env()
    rng = np.random.default_rng(0)
    e.reset(seed=2)
    final = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert not truncated
        if terminated:
            final[agent] = reward
            e.step(None)
        else:
            assert reward == 0
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert final == e.unwrapped.game.returns()


def test_shaped_reward_telescopes_to_the_result() -> None:
    """The optional shaping sums to zero over a game: the totals still equal the result (R6.5)."""
    e = raw_env(shaped_reward=0.5)
    for seed in range(4):
        totals, paid = play_totals(e, seed)
        assert totals["blue"] == pytest.approx(e.game.returns()["blue"])
        assert totals["red"] == pytest.approx(e.game.returns()["red"])
        assert paid > 0


# ---------------------------------------------------------------- illegal actions


def test_raw_env_raises_on_an_illegal_action_and_changes_nothing() -> None:
    e = raw_env()
    e.reset(seed=0)
    before = e.game.to_dict()
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .*legal: warlord:"):
        e.step(np.int64(illegal))
    with pytest.raises(ValueError, match=r"illegal action 'place:11'"):
        e.step("place:11")
    assert e.game.to_dict() == before
    e.step(ACTION_STRINGS[int(np.flatnonzero(mask)[0])])  # strings are accepted too
    wrapped = env(illegal_action="raise")  # the wrapped AEC env raises too when asked to
    wrapped.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        wrapped.step(illegal)


@pytest.mark.parametrize("make", [env, parallel_env])
def test_default_environments_end_the_game_on_an_illegal_action(make: Callable[..., Any]) -> None:
    """PettingZoo classic's rule, by default: the offender gets -1, the other side +1, the game ends, the
    offender's info says so, and the first time a warning names the decision and its legal actions."""
    e = make(shaped_reward=0.2)
    for seed in (4, 5):
        out = e.reset(seed=seed)
        game = e.unwrapped.game
        agent = game.current_player
        illegal = int(np.flatnonzero(game.legal_mask() == 0)[0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if isinstance(e, SunTzuParallelEnv):
                _, rewards, terminations, truncations, infos = e.step({agent: illegal})
                assert out[0][agent]["action_mask"].any() and not e.agents
            else:
                e.step(illegal)
                rewards, terminations, truncations, infos = e.rewards, e.terminations, e.truncations, e.infos
                assert not e.observe(agent)["action_mask"].any()
        warned = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
        assert len(warned) == (1 if seed == 4 else 0)  # once per environment
        if warned:
            assert f"for decision '{game.decision['kind']}'" in str(warned[0].message)
            assert "legal: " in str(warned[0].message)
        other = "red" if agent == "blue" else "blue"
        assert rewards == {agent: -1.0, other: 1.0}
        assert all(terminations.values()) and not any(truncations.values())
        assert infos[agent]["illegal_action"] is True and "illegal_action" not in infos[other]
        assert not infos[agent]["action_mask"].any() and not infos[other]["action_mask"].any()
        assert not game.is_terminal  # the game itself stands where it was: the environment ended it


def test_aec_illegal_loss_reaches_both_agents_through_last() -> None:
    """After an illegal action both agents see their final reward in `last()`, then step with None."""
    e = env()
    e.reset(seed=1)
    offender = e.agent_selection
    with pytest.warns(IllegalActionWarning):
        e.step(int(np.flatnonzero(e.unwrapped.game.legal_mask() == 0)[0]))
    seen = {}
    for agent in e.agent_iter():
        _, reward, terminated, _, _ = e.last()
        assert terminated
        seen[agent] = reward
        e.step(None)
    assert seen == {offender: -1.0, ("red" if offender == "blue" else "blue"): 1.0}


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize("make", [raw_env, env, parallel_env])
def test_bad_arguments_are_named(make: Callable[..., Any]) -> None:
    """A value that is not allowed raises ValueError, a value of the wrong type TypeError; each names the argument."""
    for kwargs, word, error in [
        ({"variant": "expert"}, "variant", ValueError),
        ({"variant": ["standard"]}, "variant", TypeError),
        ({"render_mode": "video"}, "render_mode", ValueError),
        ({"illegal_action": "ignore"}, "illegal_action", ValueError),
        ({"shaped_reward": -1}, "shaped_reward", ValueError),
        ({"shaped_reward": float("nan")}, "shaped_reward", ValueError),
        ({"shaped_reward": float("inf")}, "shaped_reward", ValueError),
        ({"shaped_reward": True}, "shaped_reward", TypeError),
        ({"shaped_reward": "0.1"}, "shaped_reward", TypeError),
        ({"events": "yes"}, "events", TypeError),
        ({"events": 1}, "events", TypeError),
        ({"flat_observation": 1}, "flat_observation", TypeError),
        ({"adjacency": (("QIN", "ROME"),)}, "adjacency", ValueError),
        ({"adjacency": 5}, "adjacency", TypeError),
    ]:
        with pytest.raises(error, match=word):
            make(**kwargs)


@pytest.mark.parametrize("make", [raw_env, parallel_env])
def test_numpy_numbers_and_bools_are_accepted(make: Callable[..., Any]) -> None:
    """numpy integers, floats and bools are as good as Python's: in the constructor and in reset's seed."""
    e = make(events=np.True_, shaped_reward=np.float32(0.5), flat_observation=np.False_)
    assert e.events is True and e.shaped_reward == 0.5 and e.flat_observation is False
    e.reset(seed=np.int64(5))
    first = e.game.to_dict()
    e.reset(seed=5)
    assert e.game.to_dict() == first


@pytest.mark.parametrize("make", [raw_env, parallel_env])
def test_reset_arguments_are_checked(make: Callable[..., Any]) -> None:
    e = make()
    with pytest.raises(ValueError, match=r"seed must lie in \[0, 2\*\*63\)"):
        e.reset(seed=-1)
    for seed in (1.5, "3", True):
        with pytest.raises(TypeError, match="seed must be an integer or None"):
            e.reset(seed=seed)
    with pytest.raises(TypeError, match="options must be None or a dict"):
        e.reset(options=["seat"])
    with pytest.warns(UserWarning, match=r"unknown key\(s\) 'seat' ignored"):
        e.reset(seed=0, options={"seat": "red"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=0, options={})


# ---------------------------------------------------------------- infos, flat observations, converters


def test_infos_hold_each_agents_action_mask() -> None:
    """After every reset and step, infos[agent]["action_mask"] is the mask of that agent's observation."""
    e = env(events=True)
    for agent, _ in random_play(e, seed=2):
        for a in e.agents:
            assert np.array_equal(e.infos[a]["action_mask"], e.observe(a)["action_mask"])
        assert e.infos[agent]["action_mask"].any() and e.infos[agent]["action_mask"].dtype == np.int8
    p = parallel_env(events=True)
    obs, infos = p.reset(seed=2)
    rng = np.random.default_rng(2)
    while p.agents:
        for a in p.agents:
            assert np.array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
        actions = {
            a: int(rng.choice(np.flatnonzero(m["action_mask"]))) for a, m in obs.items() if m["action_mask"].any()
        }
        obs, _, _, _, infos = p.step(actions)


@pytest.mark.parametrize("make", [raw_env, parallel_env])
def test_flat_observation_is_the_observation_then_the_mask(make: Callable[..., Any]) -> None:
    """flat_observation=True: one float32 Box vector, the agent's observation followed by its mask."""
    e = make(flat_observation=True, variant="beginner")
    space = e.observation_space("red")
    assert space == flat_observation_box() and space.shape == (OBSERVATION_SIZE + N_ACTIONS,)
    out = e.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(40):
        game = e.game
        for agent in SEATS:
            if isinstance(e, SunTzuParallelEnv):
                flat, info = out[0][agent], out[-1][agent]
            else:
                flat, info = e.observe(agent), e.infos[agent]
            assert flat.dtype == np.float32 and space.contains(flat)
            assert np.array_equal(flat[:OBSERVATION_SIZE], game.observation(agent))
            assert np.array_equal(flat[OBSERVATION_SIZE:], info["action_mask"])
        if isinstance(e, SunTzuParallelEnv):
            masks = {agent: {"action_mask": info["action_mask"]} for agent, info in out[-1].items()}
            out = e.step(random_actions(masks, rng))
        else:
            e.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))


def test_pettingzoo_converters() -> None:
    """is_parallelizable is False (agents do not act in a fixed cycle), so aec_to_parallel refuses; the
    turn-based converter and parallel_to_aec both play whole games."""
    assert env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env())
    turn_based = turn_based_aec_to_parallel(env(variant="beginner"))
    obs, _ = turn_based.reset(seed=3)
    rng = np.random.default_rng(3)
    while turn_based.agents:
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()
        }
        obs, rewards, _, _, infos = turn_based.step(actions)
        if turn_based.agents:
            active = {infos[a]["active_agent"] for a in turn_based.agents}
            assert active == {turn_based.unwrapped.game.current_player}
    assert rewards == turn_based.unwrapped.game.returns()
    aec = parallel_to_aec(parallel_env(variant="beginner"))
    aec.reset(seed=3)
    for _ in aec.agent_iter():
        obs, _, terminated, _, _ = aec.last()
        mask = obs["action_mask"]
        aec.step(None if terminated else int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0)
    assert aec.unwrapped.game.is_terminal


# ---------------------------------------------------------------- parallel specifics


def test_parallel_env_places_simultaneously_then_steps_the_agent_to_act() -> None:
    """R4.1 in the Parallel API: both sides place their next card in the same step; at every other
    decision only the agent asked acts and the other's entry is ignored. The record keeps R4.1's order."""
    e = parallel_env(variant="beginner")
    obs, infos = e.reset(seed=9)
    assert set(obs) == set(infos) == {"blue", "red"}
    rng = np.random.default_rng(0)
    steps = both = 0
    while e.agents:
        game = e.game
        acting = [a for a in e.agents if obs[a]["action_mask"].any()]
        placing = [a for a in SEATS if game.placement_mask(a).any()]
        if placing:
            assert acting == placing
            for agent in placing:
                assert np.array_equal(obs[agent]["action_mask"], game.placement_mask(agent))
        else:
            assert acting == [game.current_player]
            assert np.array_equal(obs[acting[0]]["action_mask"], game.legal_mask())
        both += len(acting) == 2
        actions = dict.fromkeys(SEATS, 0) | random_actions(obs, rng)  # the idle agent's entry is ignored
        obs, rewards, terminations, truncations, _ = e.step(actions)
        steps += 1
        assert not any(truncations.values())
    assert rewards == e.game.returns() and all(terminations.values()) and steps > 50
    assert both >= 5  # at least the first round's five placements were made by both sides at once
    assert Game.replay(e.game.record()).to_dict() == e.game.to_dict()
    with pytest.raises(RuntimeError, match="reset"):
        e.step({})
    e.reset(seed=9)
    with pytest.raises(ValueError, match="no action for 'blue', an agent to act"):
        e.step({"red": int(np.flatnonzero(e.game.placement_mask("red"))[0])})


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_simultaneous_placement_keeps_the_other_sides_card_hidden() -> None:
    """R9: after a placement step, each side's observation is the same whatever card the other side put down."""
    views: dict[str, list[np.ndarray]] = {"blue": [], "red": []}
    for pick in (min, max):
        for seat in SEATS:
            e = parallel_env(variant="beginner")
            obs, _ = e.reset(seed=11)
            other = "red" if seat == "blue" else "blue"
            legal = [a for a in np.flatnonzero(obs[other]["action_mask"]) if ACTION_STRINGS[a].startswith("place:")]
            obs, *_ = e.step({seat: first_legal(obs[seat]["action_mask"]), other: int(pick(legal))})
            views[seat].append(obs[seat]["observation"])
    for seat in SEATS:
        assert np.array_equal(views[seat][0], views[seat][1])


@pytest.mark.parametrize("offender", ["blue", "red", "both"])
def test_an_illegal_placement_in_a_simultaneous_step(offender: str) -> None:
    """Both placements are one move: with one illegal card, neither stands; the offender loses (both lose
    when both are illegal); with illegal_action="raise" the step raises and changes nothing."""
    e = parallel_env(variant="beginner", illegal_action="raise")
    obs, _ = e.reset(seed=2)
    before = e.game.to_dict()
    actions = {a: first_legal(obs[a]["action_mask"]) for a in SEATS}
    for a in SEATS if offender == "both" else [offender]:
        actions[a] = int(np.flatnonzero(obs[a]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .*'place'"):
        e.step(actions)
    assert e.game.to_dict() == before and e.game.record()["actions"] == []
    e = parallel_env(variant="beginner")
    e.reset(seed=2)
    with pytest.warns(IllegalActionWarning):
        _, rewards, terminations, _, infos = e.step(actions)
    assert e.game.to_dict() == before and e.game.record()["actions"] == []
    if offender == "both":
        assert rewards == {"blue": -1.0, "red": -1.0}
    else:
        other = "red" if offender == "blue" else "blue"
        assert rewards == {offender: -1.0, other: 1.0} and "illegal_action" not in infos[other]
    assert all(terminations.values()) and not e.agents
    assert all(infos[a].get("illegal_action") for a in (SEATS if offender == "both" else [offender]))


def test_state_is_both_observations() -> None:
    e = raw_env()
    e.reset(seed=1)
    state = e.state()
    assert state.shape == e.state_space.shape
    assert np.array_equal(state, np.concatenate([e.observe("blue")["observation"], e.observe("red")["observation"]]))


def test_adjacency_argument_reaches_the_game() -> None:
    borders = (("QIN", "CHU"), ("CHU", "JIN-YAN"), ("JIN-YAN", "HAN-QI"), ("HAN-QI", "WU"))
    e = raw_env(adjacency=borders)
    e.reset(seed=0)
    assert e.game.record()["rules"]["adjacency"] == [list(pair) for pair in borders]


def test_reset_seed_reproduces_the_game_and_reset_without_seed_moves_on() -> None:
    e = raw_env()
    e.reset(seed=123)
    first = e.game.to_dict()
    e.reset()
    second = e.game.to_dict()
    e.reset(seed=123)
    assert e.game.to_dict() == first != second


# ---------------------------------------------------------------- pictures


def test_ansi_and_rgb_show_the_last_reveal() -> None:
    """The text and the image show the last round's cards while the next round is being placed."""
    e = raw_env(render_mode="ansi", variant="beginner")
    e.reset(seed=7)
    rng = np.random.default_rng(0)
    while e.game.round == 1:
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    text = e.render()
    assert isinstance(text, str) and "round 2/9" in text and "(round 1)" in text
    assert all(name in text for name in PROVINCES) and "?" not in text.split("(round 1)")[1]
    e.render_mode = "rgb_array"
    image = e.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 4  # something is drawn


def test_hidden_cards_never_rendered() -> None:
    """The text board shows face-down cards as `?` and never a hand."""
    e = raw_env(render_mode="ansi", variant="beginner")
    e.reset(seed=3)
    game = e.game
    for _ in range(5):
        e.step(int(np.flatnonzero(game.legal_mask())[0]))
    text = e.render()
    rows = text.splitlines()[2:7]
    assert all(row.split()[-3:] == ["?", "/", "."] for row in rows), text
    assert "hand:" not in text


def test_render_without_mode_warns_and_returns_none() -> None:
    e = raw_env()
    e.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert e.render() is None
    assert caught


def test_observation_space_of_each_agent_is_fixed() -> None:
    e = raw_env()
    assert e.observation_space("blue") is e.observation_space("blue")
    space = e.observation_space("red")
    assert space["observation"].shape == (OBSERVATION_SIZE,) and space["action_mask"].dtype == np.int8
    assert space["action_mask"].shape == (N_ACTIONS,)


def test_bench_aec_runs() -> None:
    """The benchmark's AEC loop (python -m suntzu_env.bench) plays whole games."""
    from suntzu_env.suntzu.bench import bench_aec

    assert bench_aec(0.05) > 0


@pytest.mark.parametrize("face", ["sb3", "gymnasium"])
def test_bench_vec_env_runs(face: str) -> None:
    """The benchmark's batched loop (python -m suntzu_env.bench) steps through either face; a bad face is named."""
    from suntzu_env.suntzu.bench import bench_vec_env

    assert bench_vec_env(0.05, 8, "random", face=face) > 0  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="face must be 'sb3' or 'gymnasium'"):
        bench_vec_env(0.05, 8, "random", face="torch")  # type: ignore[arg-type]


# ---------------------------------------------------------------- settings and the episode core


@pytest.mark.parametrize("make", [raw_env, env, parallel_env])
def test_options_come_as_one_value_or_as_keywords(make: Callable[..., Any]) -> None:
    """`options=Options(...)` and its fields as keywords make the same environment; keywords go on top."""
    rules = Options(variant="beginner", events=True)
    by_value, by_keywords = make(options=rules), make(variant="beginner", events=True)
    assert by_value.unwrapped.settings == by_keywords.unwrapped.settings
    assert make(options=Options(), variant="beginner", events=True).unwrapped.options == rules
    for e in (by_value, by_keywords):
        e.reset(seed=3)
    assert by_value.unwrapped.game.record() == by_keywords.unwrapped.game.record()
    assert by_value.unwrapped.game.options == rules
    with pytest.raises(TypeError, match="unexpected keyword argument 'seat'"):
        make(seat="blue")


def test_each_environment_has_its_own_illegal_action_default() -> None:
    assert raw_env().illegal_action == "raise"
    assert env().unwrapped.illegal_action == parallel_env().illegal_action == "loss"
    assert raw_env(illegal_action="loss").settings == EnvSettings()


def test_episode_core_serves_without_pettingzoo() -> None:
    """The core alone: a seeded generator as Gymnasium's, masks, rewards with shaping adding up to the result."""
    from gymnasium.utils import seeding

    core = Episode(EnvSettings(Options(variant="beginner"), shaped_reward=0.5))
    core.seed(11)
    assert core.rng.integers(2**63) == seeding.np_random(11)[0].integers(2**63)
    core.seed(11)
    game = core.new_game()
    rng = np.random.default_rng(0)
    totals = {"blue": 0.0, "red": 0.0}
    while not core.over:
        seat = game.current_player
        other = "red" if seat == "blue" else "blue"
        assert not core.mask(other).any()
        mask = core.mask(seat)
        assert np.array_equal(mask, game.legal_mask())
        core.play(seat, int(rng.choice(np.flatnonzero(mask))))
        for side, reward in core.settle().items():
            totals[side] += reward
    assert totals == pytest.approx(game.returns())
    assert not core.mask("blue").any() and not core.mask("red").any()


def test_episode_core_undoes_a_simultaneous_step() -> None:
    """R4.1: both placements are one move; when one is illegal (under "loss") neither stands."""
    core = Episode(EnvSettings(Options(variant="beginner")))
    game = core.new_game(5)
    while not (core.mask("blue", simultaneous=True).any() and core.mask("red", simultaneous=True).any()):
        game.apply(game.legal_actions()[0])
    before = game.to_dict()
    blue = int(np.flatnonzero(core.mask("blue", simultaneous=True))[0])
    red_illegal = int(np.flatnonzero(core.mask("red", simultaneous=True) == 0)[0])
    errors = core.attempt_simultaneous({"blue": blue, "red": red_illegal})
    assert list(errors) == ["red"] and core.game.to_dict() == before
    assert core.settle(errors) == {"blue": 1.0, "red": -1.0} and core.over
