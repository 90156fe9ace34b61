"""The agents: the protocol, the registry, legal play in every variant and seat, scripted choices."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from agents import AGENT_NAMES
from agents import Agent
from agents import GreedyAgent
from agents import HeuristicAgent
from agents import ISMCTSAgent
from agents import RandomAgent
from agents import make_agent
from experiments.evaluate import play_game
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from suntzu_env import Game
from suntzu_env.suntzu.actions import A_PLACE
from suntzu_env.suntzu.actions import A_RECALL
from suntzu_env.suntzu.actions import ACTION_STRINGS
from suntzu_env.suntzu.baselines.observed import borders
from suntzu_env.suntzu.baselines.observed import decision_province
from suntzu_env.suntzu.baselines.observed import decode
from suntzu_env.suntzu.baselines.observed import opp_hand_estimate
from suntzu_env.suntzu.baselines.observed import round_number
from suntzu_env.suntzu.observation import OBSERVATION_SLICES
from suntzu_env.suntzu.observation import observation_views
from suntzu_env.suntzu.rules import N_BASE_CARDS

from helpers import PROVINCES
from helpers import answer
from helpers import expect
from helpers import load
from helpers import make_state
from helpers import place

CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]
# blue, red, games per variant: 2,080 games over the four variants, every agent in both seats
PLAYS = [
    ("greedy", "random", 120),
    ("random", "greedy", 120),
    ("heuristic", "random", 80),
    ("random", "heuristic", 80),
    ("heuristic", "greedy", 60),
    ("greedy", "heuristic", 60),
]


class Checked:
    """Wraps an agent: checks what it is given (R10: two legal answers at least) and that it answers legally."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert observation.dtype == np.float32 and action_mask.dtype == np.int8
        assert action_mask.sum() >= 2  # R10: a single legal answer is never asked
        action = self.agent.act(observation, action_mask)
        assert isinstance(action, int) and action_mask[action] == 1, ACTION_STRINGS[action]
        self.decisions += 1
        return action


def test_registry_builds_every_named_agent() -> None:
    assert AGENT_NAMES == ("random", "greedy", "heuristic", "ismcts")
    kinds = {"random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent, "ismcts": ISMCTSAgent}
    for name in AGENT_NAMES:
        agent = make_agent(name, seed=3)
        assert isinstance(agent, kinds[name])
        assert isinstance(agent, Agent)


@pytest.mark.parametrize("spec", ["bogus", "", "ppo:", "Random", "ppo"])
def test_unknown_spec_lists_the_valid_ones(spec: str) -> None:
    with pytest.raises(ValueError) as error:
        make_agent(spec)
    message = str(error.value)
    for name in (*AGENT_NAMES, "ppo:<path"):
        assert name in message


def test_ppo_spec_dispatches_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, Any]] = []
    fake = types.ModuleType("agents.ppo")
    fake.load_ppo_agent = lambda path, seed=None: calls.append((path, seed)) or RandomAgent(seed)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agents.ppo", fake)
    agent = make_agent("ppo:runs/some-run", seed=7)
    assert isinstance(agent, RandomAgent)
    assert calls == [("runs/some-run", 7)]


def test_importing_agents_does_not_import_torch() -> None:
    code = "import sys, agents, experiments.evaluate; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_random_agent_is_seeded() -> None:
    game = Game.new(1)
    obs, mask = game.observation("blue"), game.legal_mask()
    first = [RandomAgent(5).act(obs, mask) for _ in range(3)]
    agent = RandomAgent(5)
    again = [agent.act(obs, mask)]
    agent.reset(5)
    again.append(agent.act(obs, mask))
    assert first[0] == again[0] == again[1]
    picks = {RandomAgent(seed).act(obs, mask) for seed in range(40)}
    assert len(picks) > 1  # different seeds, different choices


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
@pytest.mark.parametrize(("blue", "red", "games"), PLAYS)
def test_agents_play_only_legal_actions(blue: str, red: str, games: int, variant: str, events: bool) -> None:
    """Both seats, every variant: every answer is legal (Game.apply raises otherwise)."""
    players = Checked(make_agent(blue)), Checked(make_agent(red))
    winners = set()
    for seed in range(games):
        out = play_game(10_000 + seed, players[0], players[1], options={"variant": variant, "events": events})
        winners.add(out["winner"])
    assert players[0].decisions > 0 and players[1].decisions > 0
    assert winners <= {"blue", "red", "draw"}


def test_agents_decide_from_the_observation_alone() -> None:
    """The same observation and mask give the same answer, whatever game they came from."""
    game = Game.new(4)
    history: list[tuple[np.ndarray, np.ndarray, str]] = []
    players = {"blue": HeuristicAgent(), "red": GreedyAgent()}
    while (seat := game.current_player) is not None:
        obs, mask = game.observation(seat), game.legal_mask()
        history.append((obs.copy(), mask.copy(), seat))
        game.apply(players[seat].act(obs, mask))
    fresh = {"blue": HeuristicAgent(), "red": GreedyAgent()}
    for obs, mask, seat in reversed(history):
        assert fresh[seat].act(obs, mask) == players[seat].act(obs, mask)


def _start_of_round(round_: int, blue: dict[str, Any], red: dict[str, Any], values: list[list[int]]) -> Game:
    """A start-of-round R11 record, beginner variant (no warlords), loaded with `Game.from_dict`."""
    return load(make_state("beginner", round_=round_, values=values, blue=blue, red=red))


BASE = ["1", "2", "3", "4", "5", "6"]
VALUES = [[1, 2, 4], [1, 3, 5], [2, 3, 2], [3, 1, 5], [4, 3, 2]]


def test_heuristic_recalls_its_leftover_cards_in_round_9() -> None:
    """R4.2, R6.4: in round 9 the cards it will not place become reserve armies."""
    game = _start_of_round(9, {"hand": [*BASE, "10", "-1", "-1", "-1"], "set_aside": 2}, {"hand": BASE}, VALUES)
    agent = HeuristicAgent()
    actions = []
    while game.current_player == "blue":
        action = agent.act(game.observation("blue"), game.legal_mask())
        actions.append(action)
        game.apply(action)
    recalls = [a for a in actions if A_RECALL <= a < A_RECALL + 15 - N_BASE_CARDS]
    assert len(recalls) == 2 and {ACTION_STRINGS[a] for a in recalls} == {"recall:-1"}
    assert game.to_dict()["blue"]["set_aside"] == 0
    assert sum(1 for a in actions if A_PLACE <= a < A_PLACE + 15) == 5


def test_greedy_spends_its_strongest_card_where_the_scoring_pays_most() -> None:
    """Round 3 (a scoring round): its 10 goes to the province worth most at that scoring (WU, 4)."""
    game = _start_of_round(3, {"hand": [*BASE, "10", "9"]}, {"hand": BASE}, VALUES)
    agent = GreedyAgent()
    placed = []
    while game.current_player == "blue":
        obs = game.observation("blue")
        placed.append((decision_province(decode(obs)), agent.act(obs, game.legal_mask())))
        game.apply(placed[-1][1])
    by_province = dict(placed)
    assert ACTION_STRINGS[by_province[4]] == "place:10"
    assert ACTION_STRINGS[by_province[3]] == "place:9"


def test_heuristic_keeps_its_ten_for_a_scoring_round() -> None:
    """Saving high cards: with nothing on the board in round 1 the 10 stays in hand."""
    game = _start_of_round(1, {"hand": [*BASE, "10"]}, {"hand": BASE}, VALUES)
    agent = HeuristicAgent()
    cards = []
    while game.current_player == "blue":
        action = agent.act(game.observation("blue"), game.legal_mask())
        cards.append(ACTION_STRINGS[action])
        game.apply(action)
    assert "place:10" not in cards


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
@pytest.mark.parametrize(
    ("armies", "first", "then"),
    [
        # every province held by one army: paying from one empties it before this round's scoring
        ([1, 1, 1, 1, 1], "recall:-1", "reserve"),
        # a stack of five in QIN can spare an army: the `-1` is kept
        ([5, 1, 1, 1, 1], "province:QIN", None),
    ],
)
def test_a_cost_is_paid_by_a_recall_rather_than_by_emptying_a_province(
    name: str, armies: list[int], first: str, then: str | None
) -> None:
    """R4.2/D2, R5.6: with an empty reserve, the `+2`'s cost may come from a recall.

    Round 3 (a scoring round), blue holds every province and has no reserve; `+2` meets red's `+2`
    in QIN (a tie: no movement, both pay 1 army), the other battles are ties of equal numbers.
    """
    blue = {"reserve": 0, "set_aside": 21 - sum(armies), "armies": armies, "hand": [*BASE, "+2", "-1"]}
    red = {"hand": [*BASE, "+2"]}
    game = load(make_state("standard", round_=3, values=VALUES, blue=blue, red=red))
    place(game, ["+2", "2", "3", "4", "5"], ["+2", "2", "3", "4", "5"])
    answer(game, "reveal", "red", "province:QIN")  # R4.3: red has fewer armies on the board
    agent = make_agent(name)
    expect(game, "source", "blue", province="QIN", cause="cost")
    action = ACTION_STRINGS[agent.act(game.observation("blue"), game.legal_mask())]
    assert action == first
    game.apply(action)
    if then is not None:  # the recall filled the reserve; the same decision is asked again
        expect(game, "source", "blue", province="QIN", cause="cost")
        assert ACTION_STRINGS[agent.act(game.observation("blue"), game.legal_mask())] == then


# R1.4 / D1: the declared map, and a ring around the board, as bordering pairs.
DECLARED_MAP = (("QIN", "CHU"), ("QIN", "JIN-YAN"), ("CHU", "JIN-YAN"), ("CHU", "HAN-QI"), ("CHU", "WU"),
                ("JIN-YAN", "HAN-QI"), ("HAN-QI", "WU"))  # fmt: skip
RING = (("QIN", "CHU"), ("CHU", "JIN-YAN"), ("JIN-YAN", "HAN-QI"), ("HAN-QI", "WU"), ("WU", "QIN"))
# The `map` piece, by hand: one entry per pair in board order QIN/CHU, QIN/JIN-YAN, QIN/HAN-QI, QIN/WU,
# CHU/JIN-YAN, CHU/HAN-QI, CHU/WU, JIN-YAN/HAN-QI, JIN-YAN/WU, HAN-QI/WU.
ALL_PAIRS = tuple(itertools.combinations(PROVINCES, 2))


@pytest.mark.parametrize(
    ("adjacency", "piece", "neighbours"),
    [
        (None, [1, 1, 0, 0, 1, 1, 1, 1, 0, 1], [(1, 2), (0, 2, 3, 4), (0, 1, 3), (1, 2, 4), (1, 3)]),
        (DECLARED_MAP, [1, 1, 0, 0, 1, 1, 1, 1, 0, 1], [(1, 2), (0, 2, 3, 4), (0, 1, 3), (1, 2, 4), (1, 3)]),
        (RING, [1, 0, 0, 1, 1, 0, 0, 1, 0, 1], [(1, 4), (0, 2), (1, 3), (2, 4), (0, 3)]),
    ],
)
def test_the_observation_carries_the_games_map(
    adjacency: tuple[tuple[str, str], ...] | None, piece: list[int], neighbours: list[tuple[int, ...]]
) -> None:
    """R1.4/D1: both sides see the map the game was made with, and the baselines decode its borders."""
    game = Game.new(5, adjacency=adjacency)
    for seat in ("blue", "red"):
        obs = game.observation(seat)
        assert observation_views(obs)["map"].tolist() == piece
        assert _neighbours(obs) == neighbours


def _neighbours(obs: np.ndarray) -> list[tuple[int, ...]]:
    """Per province, its neighbours in board order as the baselines read them off an observation."""
    x = decode(obs)
    return [tuple(q for q in range(len(PROVINCES)) if borders(x, p, q)) for p in range(len(PROVINCES))]


_borders = borders  # the test below names its drawn pairs `borders`


@given(borders=st.lists(st.sampled_from(ALL_PAIRS), unique=True))
@settings(max_examples=40, deadline=None)
def test_any_map_is_seen_as_given(borders: list[tuple[str, str]]) -> None:
    """R1.4: whatever pairs border, the `map` piece is 1 exactly at them (either way round) and 0 elsewhere."""
    game = Game.new(0, adjacency=tuple((b, a) if i % 2 else (a, b) for i, (a, b) in enumerate(borders)))
    seen = observation_views(game.observation("blue"))["map"].tolist()
    assert seen == [1.0 if pair in borders else 0.0 for pair in ALL_PAIRS]
    x = decode(game.observation("red"))
    for a, b in ALL_PAIRS:
        i, j = PROVINCES.index(a), PROVINCES.index(b)
        assert _borders(x, i, j) == _borders(x, j, i) == ((a, b) in borders)


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
@pytest.mark.parametrize(("adjacency", "target"), [(RING, "province:WU"), (None, None)])
def test_march_follows_the_games_own_borders(name: str, adjacency: tuple[tuple[str, str], ...] | None,
                                             target: str | None) -> None:  # fmt: skip
    """R8 (march), R1.4: blue marches from its stack in QIN into an empty neighbour worth most at round 3.

    QIN's neighbours are CHU and JIN-YAN on the declared map, CHU and WU on the ring. WU (4 at this
    scoring) beats CHU (1), so on the ring both agents march into WU, which the declared map does
    not allow; on the declared map neither may (it picks JIN-YAN or passes).
    """
    values = [[1, 2, 4], [1, 3, 5], [3, 2, 3], [2, 3, 2], [4, 3, 2]]
    state = make_state("standard", round_=3, values=values, blue={"armies": [3, 0, 0, 0, 0], "hand": BASE,
                       "held": ["march"]}, red={"armies": [0, 0, 0, 1, 0], "hand": BASE})  # fmt: skip
    if adjacency is not None:
        state["rules"]["adjacency"] = [list(pair) for pair in adjacency]
    game = load(state)
    place(game, ["6", "2", "3", "4", "5"], ["2", "3", "4", "5", "6"])
    agent = make_agent(name)
    expect(game, "window", "blue", warlord="march")
    chosen = []
    while game.current_player == "blue" and game.decision["kind"] in ("window", "target"):
        chosen.append(ACTION_STRINGS[agent.act(game.observation("blue"), game.legal_mask())])
        game.apply(chosen[-1])
    if target is not None:
        assert chosen == ["use", target]
    else:
        assert "province:WU" not in chosen


def test_baselines_decode_counts_with_the_declared_scales() -> None:
    """The decoded observation gives back the record's counts (armies, values, hand, marker, card counts)."""
    blue = {"armies": [3, 0, 2, 0, 0], "hand": [*BASE, "10", "-1", "-1"], "deck": ["7", "P"], "set_aside": 4}
    red = {"armies": [0, 5, 0, 0, 1], "hand": BASE, "deck": ["8"]}
    game = load(make_state("standard", round_=4, score=-3, values=VALUES, blue=blue, red=red))
    record = game.to_dict()
    x = decode(game.observation("blue"))
    view = {name: x[sl].tolist() for name, sl in OBSERVATION_SLICES.items()}
    assert view["my_armies"] == [3, 0, 2, 0, 0] and view["opp_armies"] == [0, 5, 0, 0, 1]
    assert view["province_values"] == [v for row in VALUES for v in row]
    assert view["my_score"] == [-3] and round_number(x) == 4
    assert view["my_pools"][:2] == [record["blue"]["reserve"], 4]
    assert view["my_hand"] == [1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0]
    assert view["my_deck"] == [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    assert view["card_counts"][1::2] == [6, 1]  # the opponent's hand and deck sizes
    red_view = {name: decode(game.observation("red"))[sl].tolist() for name, sl in OBSERVATION_SLICES.items()}
    assert red_view["my_score"] == [3] and red_view["my_armies"] == [0, 5, 0, 0, 1]


def test_the_opponent_hand_estimate_counts_what_is_unseen() -> None:
    """R9: red's six base cards are in hand for sure; its one unseen non-base card (the `8`) is in its deck."""
    blue = {"hand": [*BASE, "10"]}
    red = {"hand": BASE, "deck": ["8"]}
    game = load(make_state("standard", round_=4, values=VALUES, blue=blue, red=red))
    est = opp_hand_estimate(decode(game.observation("blue")))
    assert est.tolist() == [1.0] * 6 + [0.0] * 9


UNCOMPILED_GAME = """
import json
from agents import make_agent
from suntzu_env import Game

game = Game.new(3, variant="standard", events=True)
players = {"blue": make_agent("heuristic"), "red": make_agent("greedy")}
actions = []
while (seat := game.current_player) is not None:
    actions.append(players[seat].act(game.observation(seat), game.legal_mask()))
    game.apply(actions[-1])
chooser = make_agent("random", seed=5)
game = Game.new(4)
picks = [chooser.act(game.observation("blue"), game.legal_mask()) for _ in range(20)]
print(json.dumps([actions, picks]))
"""


def test_uncompiled_baselines_decide_as_compiled() -> None:
    """The baselines' source runs as plain Python under NUMBA_DISABLE_JIT=1 and makes the same decisions."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", UNCOMPILED_GAME], env=env, capture_output=True, text=True,
                          check=True, cwd=str(Path(__file__).resolve().parents[3]))  # fmt: skip
    actions, picks = json.loads(done.stdout)
    game = Game.new(3, variant="standard", events=True)
    players = {"blue": make_agent("heuristic"), "red": make_agent("greedy")}
    for action in actions:
        seat = game.current_player
        assert players[seat].act(game.observation(seat), game.legal_mask()) == action
        game.apply(action)
    assert game.is_terminal
    chooser = make_agent("random", seed=5)
    game = Game.new(4)
    assert [chooser.act(game.observation("blue"), game.legal_mask()) for _ in range(20)] == picks


def test_heuristic_params_are_checked() -> None:
    """A bad parameter is named before anything reaches compiled code; good ones change the array."""
    from agents.heuristic import HeuristicParams

    for bad in ({"sigma": 0.0}, {"card_worth": (1.0,)}, {"blue_picks": (12,)}, {"save": float("nan")}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            HeuristicAgent(params=HeuristicParams(**bad))  # type: ignore[arg-type]
    assert (
        HeuristicAgent(params=HeuristicParams(save=2.0)).params_array.tolist() != HeuristicAgent().params_array.tolist()
    )


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic"])
def test_bad_input_is_refused_before_compiled_code(name: str) -> None:
    game = Game.new(0)
    obs, mask = game.observation("blue"), game.legal_mask()
    agent = make_agent(name, seed=0)
    with pytest.raises(ValueError, match="observation"):
        agent.act(obs[:-1], mask)
    with pytest.raises(ValueError, match="action_mask"):
        agent.act(obs, np.zeros_like(mask))
