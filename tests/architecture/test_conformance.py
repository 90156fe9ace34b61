"""What every registered game passes to plug into the experiments (`suntzu_env.games`), as pgx's and
PettingZoo's test suites check theirs: its facts and options, random playouts (dtypes, masks, illegal
actions, ends), records that replay, the same game in another process from the same seed, the ecosystem's
checkers on its environments, its batched play equal to playing alone, and, for a game with hidden
information (one whose games can `sample_determinization`), observations that show nothing a seat may not know.
Games are played under the options the game's `playout_options` names (where random play would go on long).

The games are `suntzu_env.games.names()`, and Duel (`tests/toy_game`), loaded from its folder the way a command
line names a game of one's own: a new game proves it plugged in by passing this file and
`tests/architecture/test_seam.py`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suntzu_env import games
from suntzu_env.protocol import GameRules, LearnerEnv, TurnGame, ask

TESTS = Path(__file__).resolve().parents[1]
TOY = "toy_game:DUEL"
games.load(TOY)
NAMES = games.names()
PLAYOUTS = 3  # random games per check
# PettingZoo's advice on names and spaces, and what an unmasked action sampled by a checker meets
EXPECTED_WARNINGS = ("We recommend agents to be named", "Observation is not a NumPy array",
                     "Observation space for each agent probably should be", "reset(options=...): unknown key(s)",
                     "illegal action ")  # fmt: skip


def playout_options(rules: GameRules[Any]) -> Any:
    """The options the tests play under: the game's `playout_options` (a game random play ends soon), if any."""
    return rules.options(dict(getattr(rules, "playout_options", {})))


def random_game(rules: GameRules[Any], seed: int) -> tuple[TurnGame, list[TurnGame]]:
    """A game played to its end by random legal actions drawn from `seed`, and a copy of it at every decision."""
    rng = np.random.default_rng(seed)
    game = rules.new(seed, playout_options(rules))
    states = []
    while game.current_player is not None:
        states.append(rules.replay(game.record()))
        game.apply(int(rng.choice(game.legal_actions())))
    return game, states


@pytest.fixture(params=NAMES)
def rules(request: pytest.FixtureRequest) -> GameRules[Any]:
    return games.load(request.param)


def test_facts_and_options(rules: GameRules[Any]) -> None:
    assert isinstance(rules, GameRules)
    assert len(rules.seats) == 2 and len(set(rules.seats)) == 2 and rules.n_actions > 0 < rules.observation_size
    defaults = rules.options()
    assert tuple(rules.seats_of(defaults)) == tuple(rules.seats_of()) == tuple(rules.seats)  # the defaults' seats
    assert rules.options_from_flags({flag.name: flag.default for flag in rules.option_flags}) == defaults
    fields = json.loads(json.dumps(rules.option_fields(defaults)))
    assert rules.options(fields) == defaults and rules.describe_options(fields)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", f"{rules.name}-{rules.label(defaults)}")
    with pytest.raises(ValueError, match="options"):
        rules.options({"no_such_option": 1})
    assert set(rules.scripted_agents) <= set(rules.agent_names) and rules.eval_opponents
    for spec in {*rules.agent_names, *rules.eval_opponents, rules.teacher or rules.agent_names[0]}:
        rules.check_agent(spec)
    with pytest.raises(ValueError, match="no_such_agent"):
        rules.check_agent("no_such_agent")
    for a, b, bar in rules.ladder:
        rules.check_agent(a), rules.check_agent(b)
        assert 0 < bar < 1


def test_random_playouts_keep_the_protocol(rules: GameRules[Any]) -> None:
    """At every decision: int8 masks of `n_actions` with a legal action, legal_actions the mask's, float32 finite
    observations of `observation_size` for both seats, an illegal action refused with nothing changed; at the end:
    no seat asked, an empty mask, returns of a zero-sum result and the winner they say."""
    for seed in range(PLAYOUTS):
        rng = np.random.default_rng(seed)
        game = rules.new(seed, playout_options(rules))
        while (seat := game.current_player) is not None:
            assert seat in rules.seats and not game.is_terminal and game.winner is None
            mask = game.legal_mask()
            assert mask.dtype == np.int8 and mask.shape == (rules.n_actions,) and set(np.unique(mask)) <= {0, 1}
            assert game.legal_actions() == [int(a) for a in np.flatnonzero(mask)] and mask.any()
            for s in rules.seats:
                seen = game.observation(s)
                assert seen.dtype == np.float32 and seen.shape == (rules.observation_size,)
                assert np.isfinite(seen).all()
            illegal = np.flatnonzero(mask == 0)
            if illegal.size:
                before = game.record()
                with pytest.raises(ValueError):
                    game.apply(int(rng.choice(illegal)))
                assert game.record() == before and game.current_player == seat
            action = int(rng.choice(np.flatnonzero(mask)))
            assert isinstance(rules.action_string(action), str)
            game.apply(action)
        assert game.is_terminal and not game.legal_mask().any()
        returns = game.returns()
        assert set(returns) == set(rules.seats) and sum(returns.values()) == 0
        assert game.winner == ("draw" if not any(returns.values()) else max(returns, key=returns.get))


def test_records_replay_the_game(rules: GameRules[Any]) -> None:
    """A record survives JSON and replays to the same game, decision by decision; action strings replay it too."""
    for seed in range(PLAYOUTS):
        game, states = random_game(rules, seed)
        record = json.loads(json.dumps(game.record()))
        again = rules.replay(record)
        assert (again.winner, again.score, again.record()) == (game.winner, game.score, game.record())
        by_strings = rules.new(seed, playout_options(rules))
        for action in record["actions"]:
            by_strings.apply(rules.action_string(action) if isinstance(action, int) else action)
        assert by_strings.record() == game.record()
        for state in states[:: max(1, len(states) // 10)]:
            for seat in rules.seats:
                assert np.array_equal(rules.replay(state.record()).observation(seat), state.observation(seat))


PLAYOUT_SCRIPT = """
import json, sys
import numpy as np
from suntzu_env import games
rules = games.load(sys.argv[1])
rng = np.random.default_rng(11)
game = rules.new(11, rules.options(json.loads(sys.argv[2])))
while game.current_player is not None:
    game.apply(int(rng.choice(game.legal_actions())))
print(json.dumps(game.record()))
"""


def test_the_same_seed_plays_the_same_game_in_another_process(rules: GameRules[Any]) -> None:
    """Nothing but the seed and the actions decides a game: not the process, its hash seed or its history."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
                        "PYTHONHASHSEED": "123"}  # fmt: skip
    fields = json.dumps(rules.option_fields(playout_options(rules)))
    done = subprocess.run([sys.executable, "-c", PLAYOUT_SCRIPT, games.key(rules), fields], env=env,
                          capture_output=True, text=True, timeout=600, cwd=TESTS.parent)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rng = np.random.default_rng(11)
    random_game(rules, 7)  # this process has played other games first
    game = rules.new(11, playout_options(rules))
    while game.current_player is not None:
        game.apply(int(rng.choice(game.legal_actions())))
    assert json.loads(done.stdout) == json.loads(json.dumps(game.record()))


def checked(run: Any) -> None:
    """Run an ecosystem's checker; a warning other than the expected ones fails."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)]
    assert not unexpected, unexpected


@pytest.mark.slow  # PettingZoo's and Gymnasium's checkers on every game
def test_the_ecosystem_s_checkers_pass(rules: GameRules[Any]) -> None:
    """PettingZoo's api_test (and parallel_api_test where the game has a Parallel environment), Gymnasium's
    check_env where it has a single-learner one, and its batched learner environment stepped as SB3 steps it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.test import api_test, parallel_api_test
    options = playout_options(rules)
    checked(lambda: api_test(rules.env(options), num_cycles=300))
    parallel = rules.parallel_env(options)
    if parallel is not None:
        checked(lambda: parallel_api_test(parallel, num_cycles=300))
    try:
        learner = rules.learner_env(options)
    except NotImplementedError:
        learner = None
    if learner is not None:
        from gymnasium.utils.env_checker import check_env

        assert isinstance(learner.unwrapped, LearnerEnv)
        checked(lambda: check_env(learner.unwrapped, skip_render_check=True))
    venv = rules.batched_env(3, rules.scripted_agents[0], seed=0, options=options)
    rng = np.random.default_rng(0)
    obs, ended = venv.reset(), []
    for _ in range(300):
        assert obs.shape == (3, rules.observation_size) and obs.dtype == np.float32
        masks = np.asarray(venv.action_masks())
        assert masks.shape == (3, rules.n_actions) and masks.any(axis=1).all()
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ended += [(r, info) for r, d, info in zip(rewards, dones, infos, strict=True) if d]
    assert ended
    for reward, info in ended:
        assert info["seat"] in rules.seats and info["winner"] in (*rules.seats, "draw")
        assert info["opponent"] == rules.scripted_agents[0]
        assert reward == (0 if info["winner"] == "draw" else 1 if info["winner"] == info["seat"] else -1)
    venv.close()


def test_batched_play_equals_playing_alone(rules: GameRules[Any]) -> None:
    """`play_batched` gives, game by game, what the same agents reset to the same seeds play one game at a time."""
    batchable = [spec for spec in rules.scripted_agents if rules.batchable(spec)]
    if not batchable:
        pytest.skip(f"{rules.name} plays no games in batches")
    a, b = batchable[0], batchable[-1]
    plan = [(seed, rules.seats[seed % 2], 100 + seed, 200 + seed) for seed in range(6)]
    options = playout_options(rules)
    batched = rules.play_batched(a, b, plan, options)
    for (seed, a_seat, a_seed, b_seed), out in zip(plan, batched, strict=True):
        players = {a_seat: rules.make_agent(a), rules.seats[1 - rules.seats.index(a_seat)]: rules.make_agent(b)}
        players[a_seat].reset(a_seed)
        players[rules.seats[1 - rules.seats.index(a_seat)]].reset(b_seed)
        game = rules.new(seed, options)
        while (seat := game.current_player) is not None:
            game.apply(ask(players[seat], game, seat))
        assert (out["winner"], out["score"], out["record"]) == (game.winner, game.score, game.record())


def leaks(rules: GameRules[Any], seeds: range, every: int = 1) -> list[str]:
    """Where a seat's observation (or its mask, when asked) differs in a game resampled from what it may know."""
    found = []
    for seed in seeds:
        _, states = random_game(rules, seed)
        rng = np.random.default_rng([seed, 1])  # not the playout's draws
        for k, state in enumerate(states[::every]):
            for seat in rules.seats:
                resampled = state.sample_determinization(seat, rng)
                if not np.array_equal(resampled.observation(seat), state.observation(seat)):
                    found.append(f"seed {seed}, decision {k * every}: {seat}'s observation")
                if seat == state.current_player and not np.array_equal(resampled.legal_mask(), state.legal_mask()):
                    found.append(f"seed {seed}, decision {k * every}: {seat}'s mask")
    return found


def test_hidden_information_stays_hidden(rules: GameRules[Any]) -> None:
    """For a game with hidden information: what a seat observes is the same in every game consistent with what it
    may know (its games' `sample_determinization`), at decisions of random games."""
    if not hasattr(rules.new(0, playout_options(rules)), "sample_determinization"):
        pytest.skip(f"{rules.name} has no hidden information to keep")
    assert not leaks(rules, range(PLAYOUTS), every=5)


def test_the_leak_check_catches_a_leak() -> None:
    """Duel's first choice of a round is hidden from the other seat; an observation that shows it is caught."""
    duel = games.load(TOY)

    class Leaky(type(duel)):  # type: ignore[misc]
        def new(self, seed: int, options: Any = None) -> Any:
            game = super().new(seed, options)
            plain = game.observation
            game.observation = lambda seat: plain(seat) + sum(game.pending.values(), 0)
            return game

    assert not leaks(duel, range(4))
    assert leaks(Leaky(), range(4))
