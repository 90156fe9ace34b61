"""The search with a learned value (`ismcts-value:<path>`): its inputs, its positions, its file read as data, the
value it backs up, and its blindness to what its seat may not know (R9)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from agents import make_agent
from agents.ismcts import VALUE_HORIZON
from agents.ismcts import VALUE_ITERATIONS
from agents.ismcts import ISMCTSAgent
from agents.ismcts import learned_value
from suntzu_env import Game
from suntzu_env.core.agent import ModelError
from suntzu_env.core.policy_net import PolicyNet
from suntzu_env.core.protocol import ask
from suntzu_env.suntzu import values
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.game import DEFAULT_ADJ
from suntzu_env.suntzu.layout import ROUND
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.values import VALUE_FILE
from suntzu_env.suntzu.values import VALUE_INPUTS
from suntzu_env.suntzu.values import inputs_of
from suntzu_env.suntzu.values import read_value_net
from suntzu_env.suntzu.values import value_positions

from helpers import assert_blind_to_hidden
from helpers import net_of
from helpers import saved

ITERATIONS = 30


def test_value_inputs_are_both_seats_observations() -> None:
    """The network reads blue's observation, then red's, of the same state."""
    game = Game.new(3)
    for _ in range(7):
        game.apply(game.legal_actions()[-1])
    x = inputs_of(np.asarray(game.state)[None])
    assert x.shape == (1, VALUE_INPUTS)
    np.testing.assert_array_equal(x[0], np.concatenate([game.observation("blue"), game.observation("red")]))
    with pytest.raises(ValueError, match="shape"):
        inputs_of(np.zeros((2, 5), dtype=np.int32))


def test_value_positions_are_round_starts_with_blues_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each game's rows are its rounds' first decisions, 1, 2, ... in order, each labelled with the same result
    (1 blue won, 0 red won, 0.5 a draw); the first is the new game's state; the threads change nothing."""
    adj = np.array(DEFAULT_ADJ)
    states, results = value_positions(12, 500, 0, 0, adj)
    assert len(states) == len(results) > 12
    np.testing.assert_array_equal(states[0], np.asarray(Game.new(500).state))
    rounds = states[:, ROUND]
    starts = np.flatnonzero(rounds == 1)
    assert len(starts) == 12
    for a, b in zip(starts, [*starts[1:], len(rounds)], strict=True):
        np.testing.assert_array_equal(rounds[a:b], np.arange(1, b - a + 1))
        assert len(set(results[a:b].tolist())) == 1 and results[a] in (0.0, 0.5, 1.0)
    monkeypatch.setattr(values, "CHUNK_GAMES", 5)  # three chunks, each with its generator: threads change nothing
    one, two = value_positions(12, 500, 0, 0, adj, threads=1), value_positions(12, 500, 0, 0, adj, threads=2)
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="teacher"):
        value_positions(2, 0, 0, 0, adj, teacher="ppo")


def _policy(seed: int) -> PolicyNet:
    """A small random policy network of Sun Tzu's observation and actions."""
    rng = np.random.default_rng(seed)
    return PolicyNet([rng.normal(0, 0.3, (16, OBSERVATION_SIZE)), rng.normal(0, 1.0, (N_ACTIONS, 16))],
                     [np.zeros(16), np.zeros(N_ACTIONS)], "ReLU")  # fmt: skip


def test_value_positions_of_a_policy_are_its_games_against_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """A policy network playing its argmax in both seats: the positions are the round starts of the game a Python
    loop plays by the same net's masked argmax, each seat reading its own observation; a sampling net's positions
    do not depend on the threads; a net of another shape is refused before compiled code reads it."""
    net, adj = _policy(3), np.array(DEFAULT_ADJ)
    states, results = value_positions(2, 77, 0, 0, adj, policy=(net, True))
    game, starts, last = Game.new(77), [], 0
    while game.current_player is not None:
        state = np.asarray(game.state)
        if state[ROUND] != last:
            last = int(state[ROUND])
            starts.append(state.copy())
        logits = np.where(game.legal_mask(), net.logits(game.observation(game.current_player)), -np.inf)
        game.apply(int(np.argmax(logits)))
    np.testing.assert_array_equal(states[: len(starts)], np.array(starts))
    blue = {"blue": 1.0, "red": 0.0}.get(str(game.winner), 0.5)
    assert set(results[: len(starts)].tolist()) == {blue}
    assert len(states) > len(starts) and states[len(starts), ROUND] == 1  # the second game follows
    monkeypatch.setattr(values, "CHUNK_GAMES", 3)
    one = value_positions(7, 5, 0, 0, adj, threads=1, policy=(net, False))
    two = value_positions(7, 5, 0, 0, adj, threads=2, policy=(net, False))
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)
    argmax = value_positions(7, 5, 0, 0, adj, policy=(net, True))[0]
    assert not np.array_equal(one[0][1:3], argmax[1:3])  # sampled, not the argmax
    with pytest.raises(ValueError, match=f"policy: a policy network of .* the game needs {OBSERVATION_SIZE}"):
        value_positions(2, 0, 0, 0, adj, policy=(net_of(0.0), True))


def test_value_network_file_is_read_as_data(tmp_path: Path) -> None:
    """A run folder or its `.npz` file is read back exactly; a missing file, a pickle, another shape, NaN or a file
    that is not an archive is refused in one line, nothing run."""
    net = net_of(0.0)
    folder = saved(net, tmp_path / "run")
    for path in (folder, folder / VALUE_FILE):
        np.testing.assert_array_equal(read_value_net(path).params, net.params)
    np.savez(tmp_path / "pickled.npz", w0=np.array([{"a": 1}], dtype=object), b0=np.zeros(1))
    np.savez(tmp_path / "narrow.npz", **PolicyNet([np.zeros((1, 10))], [np.zeros(1)], "ReLU").state())
    wide = PolicyNet([np.zeros((2, VALUE_INPUTS))], [np.zeros(2)], "ReLU")
    np.savez(tmp_path / "two_outputs.npz", **wide.state())
    nan = net.state() | {"b0": np.full(8, np.nan, dtype=np.float32)}
    np.savez(tmp_path / "nan.npz", **nan)
    (tmp_path / "text.npz").write_text("not an archive")
    for name, says in (("missing", "no value network"), ("pickled.npz", "not a value network"),
                       ("narrow.npz", "826 inputs"), ("two_outputs.npz", "one output"), ("nan.npz", "NaN"),
                       ("text.npz", "not a value network")):  # fmt: skip
        with pytest.raises(ModelError, match=says) as refused:
            read_value_net(tmp_path / name)
        assert "\n" not in str(refused.value)


def test_learned_value_is_the_networks_chance_and_the_result_at_the_end() -> None:
    """Mid-game: the sigmoid of the network's logit of both observations; once the game is over: its result."""
    net = net_of(0.0, seed=4)
    params, header = net.params, net.playing(True)
    x, work = np.zeros(VALUE_INPUTS, dtype=np.float32), np.zeros(net.work_size, dtype=np.float32)
    game = Game.new(9)
    while not game.is_terminal:
        s = np.asarray(game.state)
        expected = 1 / (1 + math.exp(-float(net.logits(inputs_of(s[None]))[0, 0])))
        assert learned_value(s, params, header, x, work) == pytest.approx(expected, rel=1e-5)
        game.apply(game.legal_actions()[0])
    s = np.asarray(game.state)
    assert learned_value(s, params, header, x, work) == {"blue": 1.0, "red": 0.0, "draw": 0.5}[game.winner]


@pytest.mark.parametrize("seat", ["blue", "red"])
def test_the_search_backs_up_the_learned_value(seat: str) -> None:
    """A network that gives blue 80% everywhere: every root action's mean reward is 0.8 for blue, 0.2 for red (no
    rollout one round deep ends the game), where the hand-written evaluation gives other values."""
    game = Game.new(11)
    while game.current_player != seat or len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    t = 0 if seat == "blue" else 1
    for value, expected in ((net_of(math.log(0.8 / 0.2)), 0.8 if seat == "blue" else 0.2), (None, None)):
        agent = ISMCTSAgent(seed=1, iterations=ITERATIONS, horizon=1, value=value)
        ask(agent, game, seat)
        visits, wins = agent._visits[t, 0], agent._wins[t, 0]
        means = wins[visits > 0] / visits[visits > 0]
        if expected is not None:
            np.testing.assert_allclose(means, expected, rtol=1e-5)
        else:
            assert not np.allclose(means, 0.8) and not np.allclose(means, 0.2)


def test_ismcts_value_spec(tmp_path: Path) -> None:
    """`ismcts-value:<run folder or file>` is the search at its learned-value settings; a bad path is one line."""
    folder = saved(net_of(0.0), tmp_path / "run")
    agent = make_agent(f"ismcts-value:{folder}", seed=2)
    assert isinstance(agent, ISMCTSAgent) and agent.value is not None
    assert (agent.iterations, agent.horizon) == (VALUE_ITERATIONS, VALUE_HORIZON)
    with pytest.raises(ModelError, match="no value network"):
        make_agent(f"ismcts-value:{tmp_path / 'nowhere'}")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("ismcts-value:")
    with pytest.raises(ValueError, match="value"):
        ISMCTSAgent(value=PolicyNet([np.zeros((1, 10))], [np.zeros(1)], "ReLU"))  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_r9_the_value_search_ignores_hidden_information(variant: str) -> None:
    """R9: handed a game whose hidden parts were resampled from its seat's view, it plays the same move (the network
    reads determinizations only)."""
    rng = np.random.default_rng(5)
    game = Game.new(8, variant, events=True)
    agent = ISMCTSAgent(iterations=ITERATIONS, horizon=1, value=net_of(0.0, seed=6))
    assert_blind_to_hidden(agent, game, rng, decisions=30, agent_seed=321)
