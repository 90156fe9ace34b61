"""The adapters the core makes from any game's turn games (`GamePlugin`'s defaults), shown on Duel (`tests/toy_game`),
which writes none of them: the Parallel env, the Gymnasium learner env, games played through `play_batched`, the
`ansi` text, truncation at a turn limit its options set, and the OpenSpiel game `python_duel`."""

from __future__ import annotations

import dataclasses
import importlib.util
import pickle
from typing import Any

import numpy as np
import pytest
from suntzu_env.core.checks import IllegalActionWarning
from suntzu_env.core.turn_gym import TurnLearnerEnv
from suntzu_env.core.turn_limit import TurnLimited
from suntzu_env.core.turn_limit import text_of
from suntzu_env.core.turn_limit import truncated

from toy_game import DUEL
from toy_game import SEATS
from toy_game import Duel
from toy_game import DuelRules

needs_openspiel = pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None, reason="OpenSpiel is not installed")


def test_the_parallel_env_plays_the_seat_asked() -> None:
    """`parallel_env` is PettingZoo's turn-based conversion of the AEC env: each step plays the asked seat's action
    and ignores the others'."""
    env = DUEL.parallel_env({"cards": 2})
    observations, _ = env.reset(seed=4)
    assert env.agents == list(SEATS) and set(observations) == set(SEATS)
    assert observations["north"]["action_mask"].tolist() == [1, 1, 0, 0, 0]
    assert not observations["south"]["action_mask"].any()
    env.step({"north": 1, "south": 0})  # south is not asked: its 0 is ignored
    env.step({"north": 0, "south": 0})
    assert env.aec_env.unwrapped.game.record()["actions"] == [1, 0]


def learner_episode(env: Any, seed: int, pick: Any = max) -> tuple[list[tuple[float, bool, bool]], Any]:
    env.reset(seed=seed)
    steps = []
    while True:
        _, reward, terminated, truncated_, _ = env.step(pick(np.flatnonzero(env.action_masks()).tolist()))
        steps.append((reward, terminated, truncated_))
        if terminated or truncated_:
            return steps, env.game


def test_the_learner_env_plays_one_seat_against_an_agent() -> None:
    """The learner plays its seat only, the opponent (an agent by name, or a callable) every other decision; the
    episode's last reward is the learner's result."""
    env = DUEL.learner_env({"cards": 3})
    assert isinstance(env, TurnLearnerEnv) and env.observation_space.shape == (DUEL.observation_size,)
    env.seat_choice = "south"
    env.set_opponent(lambda observation, mask: int(np.flatnonzero(mask)[0]))  # its lowest card
    steps, game = learner_episode(env, seed=1)
    assert len(steps) == 3 and [r for r, *_ in steps[:-1]] == [0.0, 0.0]
    assert game.record()["actions"][0::2] == [0, 1, 2]  # north, the opponent: 1, 2, 3
    assert game.record()["actions"][1::2] == [2, 1, 0]  # south, the learner: max of its cards
    assert steps[-1] == (game.returns()["south"], True, False)
    env.set_opponent("high")
    _, game = learner_episode(env, seed=1, pick=min)
    assert game.record()["actions"][0::2] == [2, 1, 0]
    with pytest.raises(ValueError, match="unknown agent 'nobody'; valid: random, high"):
        env.set_opponent("nobody")
    with pytest.raises(ValueError, match="opponent must be one of random, high, an agent"):
        env.set_opponent(3)


def test_the_learner_env_s_illegal_actions() -> None:
    """An illegal action ends the episode with -1 and one warning ("loss"), or raises and changes nothing."""
    env = DUEL.learner_env()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(IllegalActionWarning, match="illegal action"):
        _, reward, terminated, truncated_, info = env.step(illegal)
    assert (reward, terminated, truncated_, info["illegal_action"]) == (-1.0, True, False, True)
    strict = TurnLearnerEnv(DUEL, illegal_action="raise")
    strict.reset(seed=0)
    before = strict.game.record()
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)
    assert strict.game.record() == before
    with pytest.raises(ValueError, match="shaped_reward"):
        DUEL.learner_env(shaped_reward=0.1)


def test_batchable_agents_are_the_scripted_ones_by_name() -> None:
    """Evaluation plays the scripted agents' games through `play_batched`, one after another in its process; any
    other agent's (an object, a search) over worker processes."""
    assert DUEL.batchable("random") and DUEL.batchable("high")
    assert not DUEL.batchable(DUEL.make_agent("high")) and not DUEL.batchable("nobody")
    counted: list[int] = []
    out = DUEL.play_batched("high", "high", [(0, "north", 1, 2), (0, "south", 1, 2)],
                            on_game=lambda k, result: counted.append(k))  # fmt: skip
    assert counted == [0, 1] and [o["decisions"] for o in out] == [6, 6]
    assert all(o["record"]["actions"] == [2, 2, 1, 1, 0, 0] and o["winner"] == "draw" for o in out)


class PlainDuel(Duel):
    """Duel without a text of its own."""

    __str__ = object.__str__


class PlainRules(DuelRules):
    name = "plainduel"

    def new(self, seed: int, options: Any = None) -> Any:
        options = self.options(options)
        return self.turn_limited(PlainDuel(self, seed, options), options)


def test_the_ansi_text_is_the_game_s_own() -> None:
    """The AEC and learner envs render "ansi" from the game's text (its `__str__` or `render_text()`); a game without
    one lists no render mode and refuses "ansi"."""
    env = DUEL.env(render_mode="ansi")
    assert env.metadata["render_modes"] == ["ansi"] and env.render() is None
    env.reset(seed=2)
    assert env.render() == str(env.unwrapped.game.inner) and env.render().startswith("round 0, prize")
    learner = DUEL.learner_env()
    assert learner.metadata["render_modes"] == ["ansi"]
    plain = PlainRules()
    assert plain.env().metadata["render_modes"] == [] and text_of(plain.new(0)) is None
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        plain.env(render_mode="ansi")

    class Texted(PlainDuel):
        def render_text(self) -> str:
            return "a text"

    assert text_of(Texted(plain, 0, plain.options())) == "a text"


def test_a_turn_limit_stops_the_game_undecided() -> None:
    """Under `max_rounds=1` a game of three rounds stops after the first: no seat asked, a draw, every return 0,
    `truncated`, nothing more accepted; its record replays to the same stop. A game its rules end at the limit is
    decided as usual."""
    options = DUEL.options(cards=3, max_rounds=1)
    game = DUEL.new(0, options)
    assert isinstance(game, TurnLimited) and not truncated(game)
    game.apply(2), game.apply(0)
    assert (game.current_player, game.winner, game.is_terminal, truncated(game)) == (None, "draw", True, True)
    assert game.returns() == {"north": 0.0, "south": 0.0} and game.score > 0 and not game.legal_mask().any()
    with pytest.raises(ValueError, match="turn limit"):
        game.apply(1)
    again = DUEL.replay(game.record())
    assert truncated(again) and again.record() == game.record()
    assert not truncated(DUEL.new(0, DUEL.options(cards=3, max_rounds=5)))
    resampled = DUEL.new(0, options).sample_determinization("south", 0)
    assert isinstance(resampled, TurnLimited) and resampled.limit == 1
    whole = DUEL.new(0, DUEL.options(cards=1, max_rounds=1))
    whole.apply(0), whole.apply(0)
    assert whole.is_terminal and not truncated(whole) and whole.winner == "draw"
    assert pickle.loads(pickle.dumps(game)).record() == game.record()


def test_the_environments_end_a_stopped_game_truncated() -> None:
    """The AEC env truncates every seat, the learner env its episode, the batched env says so in the last info."""
    options = DUEL.options(cards=3, max_rounds=1)
    env = DUEL.env(options)
    env.reset(seed=0)
    env.step(0), env.step(0)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    learner = DUEL.learner_env(options)
    steps, _ = learner_episode(learner, seed=0)
    assert steps == [(0.0, False, True)]
    venv = DUEL.batched_env(2, "random", seed=0, options=options)
    venv.reset()
    _, rewards, dones, infos = venv.step(np.array([0, 0]))
    assert dones.all() and not rewards.any() and all(info["TimeLimit.truncated"] for info in infos)
    decided = DUEL.batched_env(1, "random", seed=0, options=DUEL.options(cards=1))
    decided.reset()
    _, _, dones, infos = decided.step(np.array([0]))
    assert dones[0] and not infos[0]["TimeLimit.truncated"]


@needs_openspiel
def test_the_openspiel_game_plays_the_turn_games() -> None:
    """`python_duel` plays what Duel plays: its players the seats, its actions and strings the game's, its returns
    the game's at the end; its parameters the options and the seed; a serialized state reads back."""
    import pyspiel

    game = DUEL.openspiel_game({"cards": 4})
    assert str(game) == "python_duel(cards=4,max_rounds=5,seed=0)" and game.max_game_length() == 8
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert pyspiel.load_game("python_duel", {"cards": 4, "seed": 3}).new_initial_state() is not None
    state, turn, rng = game.new_initial_state(), DUEL.new(0, DUEL.options(cards=4)), np.random.default_rng(0)
    while not state.is_terminal():
        assert state.current_player() == SEATS.index(turn.current_player)
        assert state.legal_actions() == turn.legal_actions()
        assert np.array_equal(state.observation_tensor(1), turn.observation("south"))
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action), turn.apply(action)
        copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
        assert copy.history() == state.history() and str(copy) == str(state)
    assert state.returns() == [turn.returns()[seat] for seat in SEATS]
    assert state.action_to_string(0, 3) == DUEL.action_string(3)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'rounds'"):
        pyspiel.load_game("python_duel", {"rounds": 2})


@needs_openspiel
def test_the_information_state_hides_what_the_game_hides() -> None:
    """South cannot tell which card north chose this round: its information state and observation are the same
    after either; north's differ. Resampling from south's information state keeps them."""
    import pyspiel

    game = DUEL.openspiel_game()
    one, two = game.new_initial_state(), game.new_initial_state()
    one.apply_action(0), two.apply_action(2)
    assert one.information_state_string(1) == two.information_state_string(1)
    assert one.observation_string(1) == two.observation_string(1)
    assert one.information_state_string(0) != two.information_state_string(0)
    sample = one.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.observation_string(1) == one.observation_string(1)


@dataclasses.dataclass(frozen=True)
class ListedOptions:
    cards: int = 3
    max_rounds: int = 5
    names: tuple[str, ...] = ("a", "b")


class OtherFactsDuel(DuelRules):
    n_actions = 7


class ListedDuel(DuelRules):
    name = "listedduel"
    options_type = ListedOptions


@needs_openspiel
def test_openspiel_takes_the_options_it_can_hold() -> None:
    """A field OpenSpiel parameters cannot hold (a tuple) keeps its default, and options that change it have no
    OpenSpiel game; a game of the same name but other facts is refused."""
    listed = ListedDuel()
    game = listed.openspiel_game()
    assert "names" not in game.get_parameters() and game.get_parameters()["cards"] == 3
    assert listed.openspiel_game({"names": ("c",)}) is None
    with pytest.raises(ValueError, match="python_duel is registered with OpenSpiel already"):
        DUEL.openspiel_game(), OtherFactsDuel().openspiel_game()
    assert DuelRules().openspiel_game() is not None  # the same facts: it takes the name
    DUEL.openspiel_game()
