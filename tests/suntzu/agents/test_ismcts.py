"""The `ismcts` agent: named in the registry, seeded, acting through the agent protocol with the game handed
over by `suntzu_env.core.protocol.ask`, and blind to what its seat may not know (R9)."""

from __future__ import annotations

import numpy as np
import pytest
from agents import make_agent
from agents.ismcts import DEFAULT_ROLLOUT
from agents.ismcts import ROLLOUTS
from agents.ismcts import ISMCTSAgent
from experiments.evaluate import play_games
from suntzu_env import Game
from suntzu_env.core.protocol import ask
from suntzu_env.suntzu.rules import SEATS

from helpers import assert_blind_to_hidden

ITERATIONS = 30


def test_ismcts_specs_in_the_registry() -> None:
    """`ismcts` and `ismcts:<iterations>` build the agent; a bad count is refused by name."""
    assert make_agent("ismcts").iterations == ISMCTSAgent().iterations
    assert make_agent("ismcts:25", seed=1).iterations == 25
    for bad in ("ismcts:0", "ismcts:x", "ismcts:"):
        with pytest.raises(ValueError, match="ismcts"):
            make_agent(bad)


def test_ismcts_settings_are_checked() -> None:
    """Each rollout policy plays a legal move; a bad setting is refused by name."""
    game = Game.new(2)
    seat = game.current_player
    assert ISMCTSAgent().rollout == DEFAULT_ROLLOUT == "heuristic"
    for rollout in ROLLOUTS:
        agent = ISMCTSAgent(seed=0, iterations=ITERATIONS, rollout=rollout, horizon=0 if rollout == "fast" else 1)
        assert game.legal_mask()[ask(agent, game, seat)]
    assert ISMCTSAgent().rewind
    while game.decision["kind"] != "place" or game.current_player != "red":  # where rewinding applies
        game.apply(game.legal_actions()[0])
    for rewind in (True, False):
        agent = ISMCTSAgent(seed=0, iterations=ITERATIONS, rewind=rewind)
        assert game.legal_mask()[ask(agent, game, "red")]
    for bad, name in (({"rollout": "ppo"}, "rollout"), ({"horizon": -1}, "horizon"), ({"horizon": 1.5}, "horizon"),
                      ({"horizon": (2, -1)}, "horizon"), ({"horizon": (1, 2, 3)}, "horizon"),
                      ({"horizon": [2, 1]}, "horizon"),
                      ({"iterations": 0}, "iterations"), ({"exploration": float("nan")}, "exploration"),
                      ({"rewind": 1}, "rewind")):  # fmt: skip
        with pytest.raises(ValueError, match=name):
            ISMCTSAgent(**bad)


def test_ismcts_horizon_per_seat() -> None:
    """A pair of horizons (blue's, red's): each seat's root statistics are those of the agent with that seat's
    horizon, and not those of the other seat's."""
    game = Game.new(4)
    differs = {"blue": 0, "red": 0}

    def root_visits(horizon: int | tuple[int, int], seat: str) -> np.ndarray:
        agent = ISMCTSAgent(seed=3, iterations=ITERATIONS, horizon=horizon)
        ask(agent, game, seat)
        return agent._visits[SEATS.index(seat), 0].copy()

    while sum(differs.values()) < 6 and (seat := game.current_player) is not None:
        if len(game.legal_actions()) > 1:
            own, other = (2, 1) if seat == "blue" else (1, 2)
            pair = root_visits((2, 1), seat)
            np.testing.assert_array_equal(pair, root_visits(own, seat))
            differs[seat] += not np.array_equal(pair, root_visits(other, seat))
        game.apply(game.legal_actions()[0])
    assert differs["blue"] and differs["red"]


def test_ismcts_policy_target_is_its_share_of_the_root_visits() -> None:
    """After each decision: the root's visits as shares of the legal actions (summing to 1, none on an illegal
    action), the most visited being the move played."""
    agent = ISMCTSAgent(seed=1, iterations=200)
    with pytest.raises(RuntimeError, match="not decided"):
        agent.policy_target()
    game, rng, weighed = Game.new(4), np.random.default_rng(0), 0
    for _ in range(30):
        seat, mask = game.current_player, game.legal_mask()
        action = ask(agent, game, seat)
        target = agent.policy_target()
        assert target.shape == mask.shape and target.dtype == np.float32
        assert np.isclose(target.sum(), 1.0) and np.all(target[mask == 0] == 0)
        assert int(np.argmax(target)) == action
        weighed += int(np.count_nonzero(target) > 1)  # it weighed more than one move
        game.apply(int(rng.choice(np.flatnonzero(mask))) if rng.random() < 0.5 else action)
    assert weighed > 20


def test_ismcts_needs_the_game() -> None:
    """Asked to act without the game, it says how to hand it over."""
    game = Game.new(0)
    agent = make_agent(f"ismcts:{ITERATIONS}")
    with pytest.raises(RuntimeError, match="observe_game"):
        agent.act(game.observation("blue"), game.legal_mask())


def play(seed: int, agent_seed: int) -> list[str]:
    game = Game.new(seed, "beginner")
    agents = [make_agent(f"ismcts:{ITERATIONS}", seed=agent_seed), make_agent("heuristic")]
    for agent in agents:
        agent.reset(agent_seed)
    while (seat := game.current_player) is not None:
        game.apply(ask(agents[0] if seat == "blue" else agents[1], game, seat))
    return game.record()["actions"]


def test_ismcts_is_deterministic_for_a_seed() -> None:
    """Same seeds, same game; another agent seed, another game."""
    assert play(4, 1) == play(4, 1)
    assert play(4, 1) != play(4, 2)


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_r9_ismcts_ignores_hidden_information(variant: str) -> None:
    """R9: handed a game whose hidden parts were resampled from its seat's view, it plays the same move."""
    rng = np.random.default_rng(3)
    game = Game.new(8, variant, events=True)
    assert_blind_to_hidden(ISMCTSAgent(iterations=ITERATIONS), game, rng, decisions=40, agent_seed=123)


def test_ismcts_plays_through_the_evaluation() -> None:
    """Whole seat-swapped games through experiments.evaluate, by spec."""
    (rows,) = play_games([(f"ismcts:{ITERATIONS}", "random")], games=2, seed=0)
    assert len(rows) == 2 and {r["a_seat"] for r in rows} == {"blue", "red"}
    assert all(r["result"] in (-1, 0, 1) and r["decisions"] > 0 for r in rows)
