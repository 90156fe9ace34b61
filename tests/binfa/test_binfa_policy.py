"""A trained Bin'Fa policy as a player: `ppo:<path>` in the plugin's `make_agent` and the command lines, loaded as
data for Bin'Fa's sizes, playing from its seat's point of view exactly as the learner did in training."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from experiments import evaluate  # noqa: E402
from suntzu_env.binfa.plugin import BINFA  # noqa: E402
from suntzu_env.binfa.plugin import GreedyAgent  # noqa: E402
from suntzu_env.binfa.vec_env import BinFaVecEnv  # noqa: E402
from suntzu_env.core.agent import IncompatibleModelError  # noqa: E402
from suntzu_env.core.protocol import ask  # noqa: E402

from helpers import binfa_model  # noqa: E402

OPTIONS = {"max_turns": 20}
OPPONENT_SALT = 0x5BD1E995  # BinFaVecEnv seeds a game's opponent with its game seed ^ this


def played_in_a_game(players: dict[str, Any], seed: int, seat: int) -> tuple[list[int], int | str | None]:
    """The actions of `seat` in a Bin'Fa game of `seed` played move by move by `players`, and its winner."""
    game = BINFA.new(seed, BINFA.options(OPTIONS))
    played: list[int] = []
    while (current := game.current_player) is not None:
        action = ask(players[current], game, current)
        if current == f"player_{seat}":
            played.append(action)
        game.apply(action)
    return played, game.winner


@pytest.mark.parametrize("network", ["mlp", "cells"])
def test_a_trained_model_plays_the_game_the_learner_played(tmp_path: Path, network: str) -> None:
    """`ppo:<zip>` asked move by move in a Bin'Fa game answers what the model answered in `BinFaVecEnv`, from the
    same seat's observation and learning ids (both seats: the board turns with the seat); an MLP or a board
    network, read back as data and played in compiled code."""
    model, path = binfa_model(tmp_path, network=network)
    for seat in (0, 1):
        env = BinFaVecEnv(1, "greedy", seed=11, seat=seat, options=OPTIONS)
        obs = env.reset()
        trained: list[int] = []
        while True:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)  # type: ignore[attr-defined]
            trained.append(int(action[0]))
            obs, _, done, infos = env.step(action)
            if done[0]:
                break
        players = {f"player_{seat}": BINFA.make_agent(f"ppo:{path}", 0),
                   f"player_{1 - seat}": GreedyAgent(11 ^ OPPONENT_SALT)}  # fmt: skip
        assert played_in_a_game(players, 11, seat) == (trained, infos[0]["winner"]), seat


def test_a_model_of_another_game_is_refused_in_one_line(tmp_path: Path) -> None:
    """A Sun Tzu model given to Bin'Fa, and a Bin'Fa model given to Sun Tzu, are refused naming both sizes."""
    from agents import make_agent
    from sb3_contrib import MaskablePPO
    from suntzu_env.suntzu.gym_env import SunTzuGymEnv

    suntzu = tmp_path / "suntzu.zip"
    MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu",
                policy_kwargs={"net_arch": [8]}).save(suntzu)  # fmt: skip
    _, binfa = binfa_model(tmp_path)
    for load, path, game in ((BINFA.make_agent, suntzu, "binfa"), (make_agent, binfa, "suntzu-env")):
        with pytest.raises(IncompatibleModelError) as refused:
            load(f"ppo:{path}")
        message = str(refused.value)
        assert "\n" not in message and str(path) in message and game in message, message
    valid = "valid: random, greedy, heuristic, mcts, mcts:<iterations>, or ppo:<path-to-model>"
    with pytest.raises(ValueError, match=valid):
        BINFA.make_agent("ismcts")
    assert BINFA.trained_model(f"ppo:{binfa}") == str(binfa) and BINFA.trained_model("greedy") is None


def test_evaluate_plays_a_trained_binfa_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`experiments.evaluate --game binfa --agents ppo:<run folder> greedy` plays it (its final model.zip)."""
    run = tmp_path / "run"
    run.mkdir()
    binfa_model(run)
    out = tmp_path / "eval"
    results = evaluate.main(["--game", "binfa", "--max-turns", "20", "--agents", f"ppo:{run}", "greedy",
                             "--games", "4", "--workers", "1", "--out", str(out), "--no-progress"])  # fmt: skip
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all(r["record"]["game"] == "binfa" for r in rows)
    assert results["config"]["agents"] == [f"ppo:{run}", "greedy"]
    assert "ppo:run vs greedy" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:  # a Sun Tzu spec that Bin'Fa does not know: one line, exit 2
        evaluate.main(["--game", "binfa", "--agents", "ismcts", "greedy", "--games", "2", "--out", str(tmp_path / "x")])
    assert stopped.value.code == 2


def test_the_agent_s_observations_are_its_seat_s(tmp_path: Path) -> None:
    """What the agent is asked with is the seat's own view and learning mask (the view turns with the seat)."""
    _, path = binfa_model(tmp_path)
    agent = BINFA.make_agent(f"ppo:{path}", 0)
    game = BINFA.new(4, BINFA.options(OPTIONS))
    seat = game.current_player
    assert seat is not None
    x, mask = game.observation(seat), game.legal_mask()
    logits = agent.actor.logits(x)  # type: ignore[attr-defined]
    assert ask(agent, game, seat) == int(np.flatnonzero(mask)[np.argmax(logits[mask == 1])])


def test_play_batched_plays_policies_game_for_game_as_played_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A policy against a compiled agent, a sampling policy, and another policy: `play_batched` (in blocks and
    chunks, made small here) gives each game's record, winner and decisions as `play_game` plays it alone."""
    import copy

    from agents.ppo import load_ppo_agent
    from experiments.matches import agent_seed
    from experiments.matches import play_game
    from suntzu_env.binfa import plugin

    monkeypatch.setattr(plugin, "PLAY_BLOCK", 4)
    monkeypatch.setattr(plugin, "PLAY_CHUNK", 7)
    _, path = binfa_model(tmp_path)
    _, other = binfa_model(tmp_path, "other.zip", seed=1, network="cells")  # a board network
    argmax = BINFA.make_agent(f"ppo:{path}")
    sampling = load_ppo_agent(path, deterministic=False, game=BINFA)
    options = BINFA.options(OPTIONS)
    games = [(s, seat, agent_seed(s, i), agent_seed(s, 1 - i)) for s in range(3) for i, seat in enumerate(BINFA.seats)]
    ended: list[int] = []
    for a, b in ((argmax, "greedy"), ("heuristic", sampling), (f"ppo:{other}", argmax)):
        assert BINFA.batchable(a) and BINFA.batchable(b)
        ended.clear()
        batched = BINFA.play_batched(a, b, games, options, on_game=lambda k, _: ended.append(k))
        assert sorted(ended) == list(range(len(games)))
        agent_a, agent_b = (BINFA.make_agent(x) if isinstance(x, str) else copy.deepcopy(x) for x in (a, b))
        for (seed, seat, _, _), result in zip(games, batched, strict=True):
            alone = play_game(seed, *((agent_a, agent_b) if seat == "player_0" else (agent_b, agent_a)),
                              options=options, game="binfa")  # fmt: skip
            assert result == alone, (a, b, seed, seat)
    assert not BINFA.batchable("ismcts") and not BINFA.batchable(object())
    with pytest.raises(ValueError, match="play_batched plays the compiled agents"):
        BINFA.play_batched("greedy", object(), games, options)
    ended.clear()
    with pytest.raises(ValueError, match="seat must be one of player_0, player_1"):  # checked before any game
        BINFA.play_batched("greedy", "random", [*games, (0, "player_9", 1, 2)], options, lambda k, _: ended.append(k))
    assert not ended


@pytest.mark.parametrize(("deterministic", "network"), [(True, "mlp"), (False, "mlp"), (False, "cells")])
def test_the_batched_env_plays_a_policy_opponent_as_the_game_plays_it(
    tmp_path: Path, deterministic: bool, network: str
) -> None:
    """A policy opponent inside `BinFaVecEnv`'s compiled step (its own seat's view; sampling from the game's
    generator) answers as the same agent asked move by move in a Bin'Fa game: the learner's games are the same."""
    from agents.ppo import load_ppo_agent
    from suntzu_env.binfa.vec_env import NET_SALT

    _, path = binfa_model(tmp_path, network=network)
    _, other = binfa_model(tmp_path, "other.zip", seed=1)
    learner = BINFA.make_agent(f"ppo:{other}")
    opponent = load_ppo_agent(path, deterministic=deterministic, game=BINFA)
    for seat in (0, 1):
        env = BinFaVecEnv(1, opponent, seed=5, seat=seat, options=OPTIONS)
        obs = env.reset()
        trained: list[int] = []
        while True:
            trained.append(learner.act(obs[0], env.action_masks()[0].astype(np.int8)))
            obs, _, done, infos = env.step(np.array(trained[-1:]))
            if done[0]:
                break
        assert infos[0]["opponent"] == str(path)
        opponent.reset(5 ^ NET_SALT)
        players = {f"player_{seat}": learner, f"player_{1 - seat}": opponent}
        assert played_in_a_game(players, 5, seat) == (trained, infos[0]["winner"]), seat


@pytest.mark.parametrize("network", ["mlp", "cells"])
def test_a_state_with_policy_opponents_continues_exactly(tmp_path: Path, network: str) -> None:
    """`get_state` holds the policy networks' slots: an env restored from it (given the pool's agents, or from the
    saved networks alone, or a trained model's spec made again) plays on exactly as the original."""
    from agents.ppo import load_ppo_agent

    _, path = binfa_model(tmp_path, network=network)
    snapshot = load_ppo_agent(path, deterministic=False, game=BINFA)
    mix = {"greedy": 1.0, snapshot: 1.0, f"ppo:{path}": 1.0}
    env = BinFaVecEnv(4, mix, seed=3, options=OPTIONS, make_agent=BINFA.make_agent)
    env.reset()

    def play(env: BinFaVecEnv, steps: int, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        out = []
        for _ in range(steps):
            masks = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, _ = env.step(actions)
            out += [obs.copy(), rewards, dones]
        return out

    play(env, 30, 1)
    state = env.get_state()
    slot = env.opponent_slot(snapshot)
    assert env.opponent_slot(f"ppo:{path}") != slot and state["mix"].size == 5
    assert state[f"slot{slot}_net"][0] == {"mlp": "Tanh", "cells": "cells"}[network]
    assert (f"slot{slot}_layer_w" if network == "cells" else f"slot{slot}_w0") in state
    expected = play(env, 60, 2)
    for opponents in ({slot: snapshot}, None):
        again = BinFaVecEnv(4, "random", seed=99, options=OPTIONS, make_agent=BINFA.make_agent)
        again.set_state(state, opponents)
        assert all(np.array_equal(a, b) for a, b in zip(play(again, 60, 2), expected, strict=True))
        if opponents:
            assert again.opponent_slot(snapshot) == slot

    from sb3_contrib import MaskablePPO
    from suntzu_env.suntzu.gym_env import SunTzuGymEnv

    with pytest.raises(ValueError, match="opponents: Bin'Fa's batched env plays random, greedy, heuristic"):
        BinFaVecEnv(2, {"greedy": 1, "ismcts": 1})
    MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu",
                policy_kwargs={"net_arch": [8]}).save(tmp_path / "suntzu.zip")  # fmt: skip
    with pytest.raises(ValueError, match="the game needs"):
        BinFaVecEnv(2, load_ppo_agent(tmp_path / "suntzu.zip"))
