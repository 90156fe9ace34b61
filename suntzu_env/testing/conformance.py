"""What a game (a `suntzu_env.core.protocol.GameRules`) passes to plug in, as pgx's `api_test` and PettingZoo's
`pettingzoo.test` check theirs: one function per check, each taking the game, and `conformance_test` running them all.

A check that fails raises `ConformanceError` (an AssertionError) naming the game, the options it played under and
what failed; one that finds nothing to check in this game (no OpenSpiel game, no render mode, no turn limit)
raises `NotApplicable`, which `conformance_test` reports as such. Games are played under the options the game's
`playout_options` names (where random play would go on long), and, for a game whose options set the number of
seats (`seats_option`), at the largest count and one between too.

The checks: its facts and options; random playouts (dtypes, masks, illegal actions refused with nothing changed,
results); records that replay; seeding (the same seed gives the same game, environment and batch, reset twice or
made twice); the same game in another process; the ecosystem's checkers (PettingZoo's `api_test`, Gymnasium's
`check_env`, the batched env stepped as Stable-Baselines3 steps it); batched play equal to playing alone; hidden
information that stays hidden; rendering in each render mode; truncation at the turn limit; pickling and deep
copies of a game and an environment in play; stepping after the end; more than two seats; OpenSpiel's random
simulation test.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import pickle
import re
import subprocess
import sys
import typing
import warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

import numpy as np

from suntzu_env.core.protocol import GameRules, LearnerEnv, TurnGame, ask

PLAYOUTS = 3  # random games per check
STEPS = 300  # environment steps per check
# PettingZoo's advice on names and spaces, and what an unmasked action sampled by a checker meets
EXPECTED_WARNINGS = ("We recommend agents to be named", "Observation is not a NumPy array",
                     "Observation space for each agent probably should be", "reset(options=...): unknown key(s)",
                     "illegal action ")  # fmt: skip
WINDOW_MODES = ("human",)  # render modes that open a window: not rendered by the checks


class ConformanceError(AssertionError):
    """A check failed; the message names the game, its options and what failed."""


class NotApplicable(Exception):
    """The game offers nothing a check checks (an OpenSpiel game, a render mode, a turn limit, ...)."""


# ---------------------------------------------------------------------------------------------------- helpers
def where(rules: GameRules[Any], options: Any = None) -> str:
    """`binfa` or `binfa-level1-6p-turns12`: the game, and the options played when given."""
    return rules.name if options is None else f"{rules.name}-{rules.label(options)}"


def expect(ok: Any, place: str, what: str) -> None:
    """Raise `ConformanceError` "place: what" unless `ok`."""
    if not ok:
        raise ConformanceError(f"{place}: {what}")


def expect_raises(error: type[Exception], run: Callable[[], Any], place: str, what: str) -> Exception:
    """Run `run`, which must raise `error`; anything else is a `ConformanceError` saying `what` was expected."""
    try:
        run()
    except error as raised:
        return raised
    except Exception as other:
        raise ConformanceError(f"{place}: {what}; it raised {type(other).__name__}: {other}") from other
    raise ConformanceError(f"{place}: {what}; nothing was raised")


def same(a: Any, b: Any) -> bool:
    """Equal all the way down: dicts by keys, sequences and arrays item by item (dtype and shape included)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def playout_options(rules: GameRules[Any], **fields: Any) -> Any:
    """The options the checks play under: the game's `playout_options` (random games end soon), `fields` on top."""
    return rules.options({**dict(getattr(rules, "playout_options", {})), **fields})


def seat_counts(rules: GameRules[Any]) -> list[int]:
    """The seat counts the checks play: the defaults', then one between and the largest its `seats_option` allows."""
    default = len(rules.seats_of(playout_options(rules)))
    field = getattr(rules, "seats_option", None)
    if field is None:
        return [default]
    flag = next((flag for flag in rules.option_flags if flag.name == field), None)
    counts = sorted(typing.get_args(flag.type)) if flag is not None else []
    expect(counts and all(isinstance(n, int) for n in counts), rules.name,
           f"seats_option {field!r} names no option flag whose type is a Literal of seat counts")  # fmt: skip
    return list(dict.fromkeys([default, counts[len(counts) // 2], counts[-1]]))


def options_by_seats(rules: GameRules[Any]) -> list[Any]:
    """The playout options at each of `seat_counts`."""
    field = getattr(rules, "seats_option", None)
    counts = seat_counts(rules)
    if field is None:
        return [playout_options(rules)]
    return [playout_options(rules, **{field: n}) for n in counts]


def random_game(rules: GameRules[Any], seed: int, options: Any) -> tuple[TurnGame, list[TurnGame]]:
    """A game played to its end by random legal actions drawn from `seed`, and a replayed copy at every decision."""
    rng = np.random.default_rng(seed)
    game = rules.new(seed, options)
    states = []
    while game.current_player is not None:
        states.append(rules.replay(game.record()))
        game.apply(int(rng.choice(game.legal_actions())))
    return game, states


def legal_of(env: Any, agent: str, observation: Any) -> np.ndarray:
    """The legal actions of an AEC env's agent: its observation's or its info's `action_mask`, else all."""
    mask = observation.get("action_mask") if isinstance(observation, dict) else None
    if mask is None:
        mask = env.infos.get(agent, {}).get("action_mask")
    if mask is None:
        return np.arange(env.action_space(agent).n)
    return np.flatnonzero(np.asarray(mask))


def aec_steps(env: Any, seed: int, steps: int = STEPS) -> Iterator[tuple[str, Any]]:
    """Reset an AEC env with `seed` and play random legal actions (drawn from `seed`), a finished agent's None, to
    its end or `steps`: yields each agent asked and its observation, before its action."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for k, agent in enumerate(env.agent_iter()):
        if k >= steps:
            return
        observation, _, terminated, truncated, _ = env.last()
        yield agent, observation
        env.step(None if terminated or truncated else int(rng.choice(legal_of(env, agent, observation))))


def ecosystem_checked(run: Callable[[], Any], place: str, checker: str) -> None:
    """Run an ecosystem's checker; an error it raises, or a warning other than the expected ones, fails."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run()
        except Exception as error:
            raise ConformanceError(f"{place}: {checker}: {type(error).__name__}: {error}") from error
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)]
    expect(not unexpected, place, f"{checker}: unexpected warnings: {unexpected}")


def result_of(game: TurnGame, seats: tuple[str, ...], place: str) -> None:
    """A finished game's returns: every seat's, +1 to its winner and -1 to the others, 0 to all in a draw."""
    returns = game.returns()
    expect(set(returns) == set(seats), place, f"returns name seats {sorted(returns)}, not {sorted(seats)}")
    if game.winner == "draw":
        expect(not any(returns.values()), place, f"a draw returns {returns}, not 0 to every seat")
    else:
        expect(game.winner in seats, place, f"winner {game.winner!r} is neither a seat nor 'draw'")
        expected = {seat: 1.0 if seat == game.winner else -1.0 for seat in seats}
        expect(returns == expected, place, f"{game.winner} won but the returns are {returns}")


# ---------------------------------------------------------------------------------------------------- the checks
def check_facts_and_options(rules: GameRules[Any]) -> None:
    """Its facts, its options (flags, fields read back, labels fit for folders, an unknown key refused), its agents
    and its ladder."""
    place = rules.name
    expect(isinstance(rules, GameRules), place, "is not a GameRules (suntzu_env.core.protocol)")
    expect(len(rules.seats) >= 2 and len(set(rules.seats)) == len(rules.seats), place,
           f"seats {rules.seats!r}: two or more distinct names expected")  # fmt: skip
    expect(rules.n_actions > 0 < rules.observation_size, place, "n_actions and observation_size must be > 0")
    defaults = rules.options()
    expect(tuple(rules.seats_of(defaults)) == tuple(rules.seats_of()) == tuple(rules.seats), place,
           "seats_of(the default options) and seats_of() must be seats")  # fmt: skip
    from_flags = rules.options_from_flags({flag.name: flag.default for flag in rules.option_flags})
    expect(from_flags == defaults, place, "the option flags' defaults do not make the default options")
    fields = json.loads(json.dumps(rules.option_fields(defaults)))
    expect(rules.options(fields) == defaults, place, "option_fields read back through JSON are other options")
    expect(rules.describe_options(fields), place, "describe_options says nothing")
    expect(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", f"{rules.name}-{rules.label(defaults)}"), place,
           f"name and label {rules.name}-{rules.label(defaults)!r} are unfit for a folder name")  # fmt: skip
    error = expect_raises(ValueError, lambda: rules.options({"no_such_option": 1}), place,
                          "options({'no_such_option': 1}) must raise ValueError")  # fmt: skip
    expect("options" in str(error), place, f"an unknown option's error does not say 'options': {error}")
    expect(set(rules.scripted_agents) <= set(rules.agent_names), place, "scripted_agents must be agent_names")
    expect(rules.eval_opponents, place, "eval_opponents is empty")
    for spec in {*rules.agent_names, *rules.eval_opponents, rules.teacher or rules.agent_names[0]}:
        rules.check_agent(spec)
    error = expect_raises(ValueError, lambda: rules.check_agent("no_such_agent"), place,
                          "check_agent('no_such_agent') must raise ValueError")  # fmt: skip
    expect("no_such_agent" in str(error), place, f"an unknown agent's error does not name it: {error}")
    for a, b, bar in rules.ladder:
        rules.check_agent(a), rules.check_agent(b)
        expect(0 < bar < 1, place, f"the ladder's bar {bar} for {a} over {b} is not between 0 and 1")


def check_random_playouts(rules: GameRules[Any], playouts: int = PLAYOUTS) -> None:
    """At every decision of random games: int8 masks of `n_actions` with a legal action, legal_actions the mask's,
    float32 finite observations of `observation_size` for every seat, an illegal action refused with nothing
    changed; at the end: no seat asked, an empty mask, each seat's return and the winner they say."""
    for options in options_by_seats(rules):
        place, seats = where(rules, options), tuple(rules.seats_of(options))
        for seed in range(playouts):
            rng = np.random.default_rng(seed)
            game = rules.new(seed, options)
            while (seat := game.current_player) is not None:
                at = f"{place}, seed {seed}, decision {len(game.record()['actions'])}"
                expect(seat in seats and not game.is_terminal and game.winner is None, at,
                       f"seat {seat!r} asked in a game that is over or by a seat not in {seats}")  # fmt: skip
                mask = game.legal_mask()
                expect(mask.dtype == np.int8 and mask.shape == (rules.n_actions,) and set(np.unique(mask)) <= {0, 1},
                       at, f"the mask is {mask.dtype} {mask.shape}, not int8 0/1 of ({rules.n_actions},)")  # fmt: skip
                expect(mask.any(), at, "no legal action")
                expect(game.legal_actions() == [int(a) for a in np.flatnonzero(mask)], at,
                       "legal_actions() is not the mask's")  # fmt: skip
                for s in seats:
                    seen = game.observation(s)
                    expect(seen.dtype == np.float32 and seen.shape == (rules.observation_size,), at,
                           f"{s}'s observation is {seen.dtype} {seen.shape}, not float32 "
                           f"({rules.observation_size},)")  # fmt: skip
                    expect(np.isfinite(seen).all(), at, f"{s}'s observation is not finite")
                illegal = np.flatnonzero(mask == 0)
                if illegal.size:
                    before, action = game.record(), int(rng.choice(illegal))
                    expect_raises(ValueError, lambda game=game, action=action: game.apply(action), at,
                                  f"the illegal action {action} must raise ValueError")  # fmt: skip
                    expect(game.record() == before and game.current_player == seat, at,
                           f"the refused illegal action {action} changed the game")  # fmt: skip
                action = int(rng.choice(np.flatnonzero(mask)))
                expect(isinstance(rules.action_string(action), str), at, f"action_string({action}) is no str")
                game.apply(action)
            at = f"{place}, seed {seed}, the end"
            expect(game.is_terminal and not game.legal_mask().any(), at, "is_terminal is False or the mask not empty")
            result_of(game, seats, at)


def check_records_replay(rules: GameRules[Any], playouts: int = PLAYOUTS) -> None:
    """A record survives JSON and replays to the same game, decision by decision; action strings replay it too."""
    for options in options_by_seats(rules):
        place = where(rules, options)
        for seed in range(playouts):
            at = f"{place}, seed {seed}"
            game, states = random_game(rules, seed, options)
            record = json.loads(json.dumps(game.record()))
            again = rules.replay(record)
            expect((again.winner, again.score, again.record()) == (game.winner, game.score, game.record()), at,
                   "its record, through JSON, replays to another game")  # fmt: skip
            by_strings = rules.new(seed, options)
            for action in record["actions"]:
                by_strings.apply(rules.action_string(action) if isinstance(action, int) else action)
            expect(by_strings.record() == game.record(), at, "its actions' strings play another game")
            for k, state in enumerate(states[:: max(1, len(states) // 10)]):
                for seat in rules.seats_of(options):
                    expect(np.array_equal(rules.replay(state.record()).observation(seat), state.observation(seat)),
                           at, f"{seat} observes another position in the replay of decision {k}")  # fmt: skip


def check_seeding(rules: GameRules[Any], seed: int = 5) -> None:
    """The same seed gives the same game (`new` twice), the same AEC episode (two envs, and one env reset twice), the
    same single-learner episode and the same batched steps (two envs made with the seed)."""
    options = playout_options(rules)
    place = where(rules, options)
    a, b = rules.new(seed, options), rules.new(seed, options)
    rng = np.random.default_rng(seed)
    while True:
        at = f"{place}, new({seed}) twice, decision {len(a.record()['actions'])}"
        expect(a.current_player == b.current_player and np.array_equal(a.legal_mask(), b.legal_mask()), at,
               "other seats asked or other masks")  # fmt: skip
        for s in rules.seats_of(options):
            expect(np.array_equal(a.observation(s), b.observation(s)), at, f"{s} observes other positions")
        if a.current_player is None:
            break
        action = int(rng.choice(a.legal_actions()))
        a.apply(action), b.apply(action)
    expect(a.record() == b.record(), place, f"new({seed}) twice plays other games")

    def episode(env: Any) -> list[tuple[str, Any]]:
        return [(agent, copy.deepcopy(seen)) for agent, seen in aec_steps(env, seed)]

    env = rules.env(options)
    first, again, other = episode(env), episode(env), episode(rules.env(options))
    expect(same(first, other), place, f"two AEC envs reset with seed {seed} play other episodes")
    expect(same(first, again), place, f"an AEC env reset twice with seed {seed} plays another episode")
    try:
        learner = rules.learner_env(options)
    except NotImplementedError:
        learner = None
    if learner is not None:

        def solo(env: Any) -> list[Any]:
            seen, _ = env.reset(seed=seed)
            out, rng = [seen], np.random.default_rng(seed)
            for _ in range(STEPS):
                mask = np.asarray(env.unwrapped.action_masks())
                seen, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
                out.append((seen, reward, terminated, truncated))
                if terminated or truncated:
                    break
            return out

        expect(same(solo(learner), solo(rules.learner_env(options))), place,
               f"two learner envs reset with seed {seed} play other episodes")  # fmt: skip
        expect(same(solo(learner), solo(learner)), place,
               f"a learner env reset twice with seed {seed} plays another episode")  # fmt: skip

    def batch(venv: Any) -> list[Any]:
        out, rng = [venv.reset()], np.random.default_rng(seed)
        for _ in range(50):
            masks = np.asarray(venv.action_masks())
            obs, rewards, dones, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            out.append((obs, rewards, dones))
        venv.close()
        return out

    opponent = rules.scripted_agents[0]
    expect(same(batch(rules.batched_env(2, opponent, seed=seed, options=options)),
                batch(rules.batched_env(2, opponent, seed=seed, options=options))), place,
           f"two batched envs made with seed {seed} step differently")  # fmt: skip


PLAYOUT_SCRIPT = """
import importlib, json, sys
from suntzu_env.testing.conformance import seeded_playout
rules = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
print(json.dumps(seeded_playout(rules, rules.options(json.loads(sys.argv[3])))))
"""


def seeded_playout(rules: GameRules[Any], options: Any, seed: int = 11) -> dict[str, Any]:
    """Game `seed` played by random legal actions drawn from `seed`: its record, winner and score, and a digest of
    every seat's observations at every decision, as JSON."""
    rng = np.random.default_rng(seed)
    game = rules.new(seed, options)
    seen = hashlib.sha256()
    while True:
        for seat in rules.seats_of(options):
            seen.update(np.ascontiguousarray(game.observation(seat)).tobytes())
        if game.current_player is None:
            break
        game.apply(int(rng.choice(game.legal_actions())))
    out = {"record": game.record(), "winner": game.winner, "score": game.score, "observations": seen.hexdigest()}
    return json.loads(json.dumps(out))


def importable_name(rules: GameRules[Any]) -> tuple[str, str]:
    """The module and the attribute that hold the game (`suntzu_env.binfa.plugin`, `BINFA`)."""
    module = sys.modules.get(type(rules).__module__)
    names = [name for name, value in vars(module).items() if value is rules] if module is not None else []
    if not names:
        raise NotApplicable(f"{rules.name}: no module attribute holds the game, so another process cannot load it")
    return type(rules).__module__, names[0]


def check_the_same_game_in_another_process(rules: GameRules[Any]) -> None:
    """Nothing but the seed and the actions decides a game (its record, result and every observation): not the
    process, its hash seed or its history."""
    module, attribute = importable_name(rules)
    options = playout_options(rules)
    place = where(rules, options)
    env = os.environ | {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "PYTHONHASHSEED": "123"}
    fields = json.dumps(rules.option_fields(options))
    done = subprocess.run([sys.executable, "-c", PLAYOUT_SCRIPT, module, attribute, fields], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    expect(done.returncode == 0, place, f"the game failed in another process: {done.stderr[-2000:]}")
    random_game(rules, 7, options)  # this process has played other games first
    there, here = json.loads(done.stdout), seeded_playout(rules, options)
    differ = [key for key in here if here[key] != there.get(key)]
    expect(not differ, place, f"seed 11 played in another process gives another {', '.join(differ)}")


def check_the_ecosystem_s_checkers(rules: GameRules[Any]) -> None:
    """PettingZoo's api_test (and parallel_api_test where the game has a Parallel environment) at each seat count,
    Gymnasium's check_env where it has a single-learner environment, and its batched learner environment stepped
    as Stable-Baselines3 steps it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.test import api_test, parallel_api_test
    for options in options_by_seats(rules):
        place = where(rules, options)
        aec = rules.env(options)
        ecosystem_checked(lambda aec=aec: api_test(aec, num_cycles=STEPS), place, "PettingZoo's api_test")
        parallel = rules.parallel_env(options)
        if parallel is not None:
            ecosystem_checked(
                lambda parallel=parallel: parallel_api_test(parallel, num_cycles=STEPS),
                place,
                "PettingZoo's parallel_api_test",
            )
    options = playout_options(rules)
    place = where(rules, options)
    try:
        learner = rules.learner_env(options)
    except NotImplementedError:
        learner = None
    if learner is not None:
        from gymnasium.utils.env_checker import check_env

        expect(isinstance(learner.unwrapped, LearnerEnv), place, "learner_env's unwrapped is not a LearnerEnv")
        ecosystem_checked(lambda: check_env(learner.unwrapped, skip_render_check=True), place, "Gymnasium's check_env")
    opponent = rules.scripted_agents[0]
    venv = rules.batched_env(3, opponent, seed=0, options=options)
    rng = np.random.default_rng(0)
    obs, ended = venv.reset(), []
    for _ in range(STEPS):
        expect(obs.shape == (3, rules.observation_size) and obs.dtype == np.float32, place,
               f"the batched env's observations are {obs.dtype} {obs.shape}")  # fmt: skip
        masks = np.asarray(venv.action_masks())
        expect(masks.shape == (3, rules.n_actions) and masks.any(axis=1).all(), place,
               f"the batched env's masks are {masks.shape} or one has no legal action")  # fmt: skip
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ended += [(r, info) for r, d, info in zip(rewards, dones, infos, strict=True) if d]
    check_vec_env_methods(venv, rules.seats_of(options), opponent, place)
    venv.close()
    expect(ended, place, f"the batched env ended no game in {STEPS} steps")
    for reward, info in ended:
        expect(info["seat"] in rules.seats and info["winner"] in (*rules.seats, "draw"), place,
               f"an episode's last info names seat {info['seat']!r} and winner {info['winner']!r}")  # fmt: skip
        expect(info["opponent"] == opponent, place, f"an episode's last info names opponent {info['opponent']!r}")
        won = 0 if info["winner"] == "draw" else 1 if info["winner"] == info["seat"] else -1
        expect(reward == won, place, f"an episode's last reward is {reward}, its winner {info['winner']}")


def check_vec_env_methods(venv: Any, seats: Sequence[str], opponent: str, place: str) -> None:
    """The rest of SB3's `VecEnv` on a batched env of 3 games against `opponent`: each env's seat and opponent by
    `get_attr`, the masks by `env_method`, no wrappers, and an unknown attribute refused."""
    got = venv.get_attr("seat")
    expect(len(got) == 3 and set(got) <= set(seats), place, f"the batched env's get_attr('seat') gives {got!r}")
    expect(venv.get_attr("seat", indices=[2]) == got[2:], place, "get_attr('seat', indices=[2]) is not env 2's seat")
    got = venv.get_attr("opponent")
    expect(got == [opponent] * 3, place, f"the batched env's get_attr('opponent') gives {got!r}, not {opponent!r}")
    rows = venv.env_method("action_masks", indices=[0, 2])
    expect(same(np.stack(rows), np.asarray(venv.action_masks())[[0, 2]]), place,
           "env_method('action_masks') gives other rows than action_masks()")  # fmt: skip
    expect(venv.env_is_wrapped(object) == [False] * 3, place, "the batched env says its envs are wrapped")
    expect_raises(AttributeError, lambda: venv.get_attr("no_such_attribute"), place,
                  "the batched env's get_attr of an attribute it lacks")  # fmt: skip


def check_batched_play(rules: GameRules[Any]) -> None:
    """`play_batched` gives, game by game, what the same agents reset to the same seeds play one game at a time,
    at each seat count."""
    batchable = [spec for spec in rules.scripted_agents if rules.batchable(spec)]
    if not batchable:
        raise NotApplicable(f"{rules.name} plays no games in batches")
    a, b = batchable[0], batchable[-1]
    for options in options_by_seats(rules):
        seats = tuple(rules.seats_of(options))
        plan = [(seed, seats[seed % len(seats)], 100 + seed, *(200 + 10 * seed + k for k in range(len(seats) - 1)))
                for seed in range(6)]  # fmt: skip
        batched = rules.play_batched(a, b, plan, options)
        expect(len(batched) == len(plan), where(rules, options), "play_batched returned another number of games")
        for (seed, a_seat, a_seed, *b_seeds), out in zip(plan, batched, strict=True):
            players, seeds = {}, iter(b_seeds)
            for seat in seats:
                players[seat] = rules.make_agent(a if seat == a_seat else b)
                players[seat].reset(a_seed if seat == a_seat else next(seeds))
            game = rules.new(seed, options)
            while (seat := game.current_player) is not None:
                game.apply(ask(players[seat], game, seat))
            expect((out["winner"], out["score"], out["record"]) == (game.winner, game.score, game.record()),
                   f"{where(rules, options)}, seed {seed}", f"play_batched({a}, {b}) played another game than one "
                   "at a time")  # fmt: skip


def leaks(rules: GameRules[Any], seeds: range, every: int | None = 1, options: Any = None) -> list[str]:
    """Where a seat's observation (or its mask, when asked) differs in a game resampled from what it may know, at
    every `every`th decision (None: every 5th, every decision of a game shorter than 100)."""
    options = playout_options(rules) if options is None else options
    found = []
    for seed in seeds:
        _, states = random_game(rules, seed, options)
        stride = every or max(1, min(5, len(states) // 20))
        rng = np.random.default_rng([seed, 1])  # not the playout's draws
        for k, state in enumerate(states[::stride]):
            for seat in rules.seats_of(options):
                resampled = state.sample_determinization(seat, rng)  # type: ignore[attr-defined]
                if not np.array_equal(resampled.observation(seat), state.observation(seat)):
                    found.append(f"seed {seed}, decision {k * stride}: {seat}'s observation")
                if seat == state.current_player and not np.array_equal(resampled.legal_mask(), state.legal_mask()):
                    found.append(f"seed {seed}, decision {k * stride}: {seat}'s mask")
    return found


def check_hidden_information(rules: GameRules[Any], playouts: int = PLAYOUTS) -> None:
    """For a game with hidden information (its games can `sample_determinization`): what a seat observes is the
    same in every game consistent with what it may know, at decisions of random games, at each seat count."""
    if not hasattr(rules.new(0, playout_options(rules)), "sample_determinization"):
        raise NotApplicable(f"{rules.name} has no hidden information to keep (no sample_determinization)")
    for options in options_by_seats(rules):
        found = leaks(rules, range(playouts), every=None, options=options)
        expect(not found, where(rules, options), f"a seat sees what it may not know: {found[:5]}")


def check_rendering(rules: GameRules[Any]) -> None:
    """Each render mode the AEC env lists (but a window's, `human`) renders what it says after reset and in play:
    `ansi` a str, `rgb_array` an (H, W, 3) uint8 image; `render_mode` is the one asked for."""
    options = playout_options(rules)
    place = where(rules, options)
    modes = [m for m in rules.env(options).metadata.get("render_modes", []) if m not in WINDOW_MODES]
    if not modes:
        raise NotApplicable(f"{rules.name}'s AEC env lists no render mode but a window's")
    for mode in modes:
        env = rules.env(options, render_mode=mode)
        expect(env.render_mode == mode, place, f"env(render_mode={mode!r}).render_mode is {env.render_mode!r}")
        for k, _ in enumerate(aec_steps(env, seed=3, steps=40)):
            if k % 10:
                continue
            out = env.render()
            if mode == "ansi":
                expect(isinstance(out, str) and out, place, f"render() in 'ansi' gave {type(out).__name__}, not text")
            elif mode == "rgb_array":
                ok = isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
                expect(ok, place, f"render() in 'rgb_array' gave {getattr(out, 'shape', type(out).__name__)}, "
                                  "not an (H, W, 3) uint8 image")  # fmt: skip
        env.close()


def smallest_limit(rules: GameRules[Any], field: str) -> tuple[int, Any]:
    """The smallest turn limit the options take (1, 2, ...) and the playout options with it."""
    for limit in range(1, 100):
        try:
            return limit, playout_options(rules, **{field: limit})
        except ValueError:
            continue
    raise ConformanceError(f"{rules.name}: turn_limit_option {field!r} takes no limit from 1 to 99")


def check_truncation(rules: GameRules[Any], playouts: int = PLAYOUTS) -> None:
    """For a game with a turn limit (`turn_limit_option`): under the smallest limit, no game goes past it, a game it
    cuts has no winner ("draw", every return 0; the game's `no_winner` is "undecided"), and the environments end
    such a game truncated, not terminated (the AEC env for every seat still in it, the learner env), and a game
    decided otherwise never truncated."""
    field = getattr(rules, "turn_limit_option", None)
    if field is None:
        raise NotApplicable(f"{rules.name} has no turn limit (turn_limit_option)")
    expect(rules.no_winner == "undecided", rules.name,
           f"a game cut by its turn limit is undecided, but no_winner is {rules.no_winner!r}")  # fmt: skip
    limit, options = smallest_limit(rules, field)
    place = where(rules, options)

    def cut(record: dict[str, Any]) -> bool:
        game = rules.replay(record)
        expect(game.is_terminal, place, "the environment ended an episode whose game is not over")
        return game.round >= limit and game.winner == "draw"

    cuts = 0
    for seed in range(playouts):
        game, _ = random_game(rules, seed, options)
        expect(game.round <= limit, f"{place}, seed {seed}", f"the game went on to turn {game.round}")
        if game.round >= limit and game.winner is not None:
            expect(game.winner == "draw" and not any(game.returns().values()), f"{place}, seed {seed}",
                   f"a game stopped by the limit has winner {game.winner!r} and returns {game.returns()}")  # fmt: skip
            cuts += 1
    expect(cuts, place, f"none of {playouts} random games reached the turn limit {limit}")
    cuts = 0
    for seed in range(playouts):
        env = rules.env(options)
        ended: dict[str, tuple[int, bool, bool, float]] = {}  # agent: (actions played before, flags, reward)
        played = 0
        for agent, _ in aec_steps(env, seed, steps=10**6):
            _, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                ended.setdefault(agent, (played, terminated, truncated, reward))
            else:
                played += 1
        at = f"{place}, AEC env seed {seed}"
        expect(not env.agents and ended, at, "agents are left after the episode, or none ended")
        at_the_end = {agent: flags for agent, (k, *flags) in ended.items() if k == played}
        if cut(env.unwrapped.game.record()):
            cuts += 1
            for agent, (terminated, truncated, reward) in at_the_end.items():
                expect(truncated and not terminated, at,
                       f"{agent} ends a game cut by the limit {terminated=}, {truncated=}")  # fmt: skip
                expect(reward == 0, at, f"{agent} is rewarded {reward} in a game cut by the limit")
        else:
            expect(not any(truncated for _, _, truncated, _ in ended.values()), at, "a decided game ends truncated")
    expect(cuts, place, f"none of {playouts} AEC episodes reached the turn limit {limit}")
    try:
        learner = rules.learner_env(options)
    except NotImplementedError:
        return
    for seed in range(playouts):
        learner.reset(seed=seed)
        rng, at = np.random.default_rng(seed), f"{place}, learner env seed {seed}"
        terminated = truncated = False
        while not (terminated or truncated):
            mask = np.asarray(learner.unwrapped.action_masks())
            _, _, terminated, truncated, _ = learner.step(int(rng.choice(np.flatnonzero(mask))))
        game = learner.unwrapped.game
        if game.current_player is None and cut(game.record()):
            expect(truncated and not terminated, at, "a game cut by the limit ends terminated, not truncated")
        else:
            expect(terminated and not truncated, at, "an episode that the limit did not cut ends truncated")


def check_pickling(rules: GameRules[Any], seed: int = 2) -> None:
    """A game in play and an AEC env in play survive a pickle round trip and a deep copy: the copy shows the same
    position, plays on as the original does, and playing it leaves the original as it was."""
    options = playout_options(rules)
    place = where(rules, options)
    rng = np.random.default_rng(seed)
    _, states = random_game(rules, seed, options)
    game = states[len(states) // 2]  # a game in play: its middle decision
    decisions = len(states) // 2

    def round_trip(thing: Any) -> Any:
        return pickle.loads(pickle.dumps(thing))

    for how, copier in (("a pickle round trip", round_trip), ("deepcopy", copy.deepcopy)):

        def make(thing: Any, how: str = how, copier: Callable[[Any], Any] = copier) -> Any:
            try:
                return copier(thing)
            except Exception as error:
                raise ConformanceError(f"{place}: {how} of {type(thing).__name__} failed: {error}") from error

        twin = make(game)
        before = game.record()
        expect(twin.record() == before and np.array_equal(twin.legal_mask(), game.legal_mask()), place,
               f"the game after {how} has another record or mask")  # fmt: skip
        for s in rules.seats_of(options):
            expect(np.array_equal(twin.observation(s), game.observation(s)), place,
                   f"{s} observes another position after {how}")  # fmt: skip
        actions = []
        while twin.current_player is not None:
            actions.append(int(rng.choice(twin.legal_actions())))
            twin.apply(actions[-1])
        expect(game.record() == before, place, f"playing the game's copy ({how}) changed the original")
        original = make(game)
        for action in actions:
            original.apply(action)
        expect(original.record() == twin.record(), place, f"the game after {how} plays on differently")

        env = rules.env(options)
        steps = aec_steps(env, seed)
        for _ in range(decisions):
            next(steps, None)
        env_twin = make(env)
        agents = list(env.possible_agents)
        expect(env_twin.agent_selection == env.agent_selection, place, f"the AEC env after {how} asks another agent")
        expect(same([env_twin.observe(a) for a in env.agents], [env.observe(a) for a in env.agents]), place,
               f"the AEC env after {how} shows other observations")  # fmt: skip
        for _ in range(decisions):
            if not env.agents:
                break
            observation, _, terminated, truncated, _ = env.last()
            agent = env.agent_selection
            action = None if terminated or truncated else int(rng.choice(legal_of(env, agent, observation)))
            env.step(action), env_twin.step(action)
            expect(env_twin.agent_selection == env.agent_selection and same(
                [env_twin.observe(a) for a in agents if a in env.agents],
                [env.observe(a) for a in agents if a in env.agents]), place,
                f"the AEC env after {how} plays on differently")  # fmt: skip


def check_after_the_end(rules: GameRules[Any]) -> None:
    """After the end: every action `apply`d to a finished game raises ValueError and changes nothing; the AEC env,
    as PettingZoo documents, refuses an action for a finished agent (ValueError, nothing changed) and takes None
    for each until no agent is left."""
    options = playout_options(rules)
    place = where(rules, options)
    game, _ = random_game(rules, 0, options)
    before = game.record(), game.winner, game.returns()
    for action in sorted({0, rules.n_actions - 1, rules.n_actions // 2}):
        expect_raises(ValueError, lambda action=action: game.apply(action), place,
                      f"apply({action}) after the end must raise ValueError")  # fmt: skip
        expect((game.record(), game.winner, game.returns()) == before and game.current_player is None, place,
               f"apply({action}) after the end changed the game")  # fmt: skip
    env = rules.env(options)
    refused = False
    for agent, _ in aec_steps(env, 0, steps=10**6):
        _, _, terminated, truncated, _ = env.last()
        if (terminated or truncated) and not refused:
            state = (list(env.agents), env.agent_selection, dict(env.terminations), dict(env.truncations))
            expect_raises(ValueError, lambda: env.step(0), place,
                          f"step(0) for the finished agent {agent} must raise ValueError")  # fmt: skip
            after = (list(env.agents), env.agent_selection, dict(env.terminations), dict(env.truncations))
            expect(after == state, place, f"the refused step(0) for the finished agent {agent} changed the env")
            refused = True
    expect(refused and not env.agents, place, "the AEC env's episode ended with agents left or none finished")


def check_more_seats(rules: GameRules[Any]) -> None:
    """For a game whose options set the number of seats (`seats_option`): at one count between and the largest,
    `seats_of` names that many distinct seats, the AEC env's agents are they, and every seat is asked in random
    play. (The playout, record, batched, hidden-information and ecosystem checks play these counts too.)"""
    field = getattr(rules, "seats_option", None)
    if field is None:
        raise NotApplicable(f"{rules.name} always has {len(rules.seats)} seats (no seats_option)")
    for n, options in zip(seat_counts(rules), options_by_seats(rules), strict=True):
        place = where(rules, options)
        seats = tuple(rules.seats_of(options))
        expect(len(seats) == n == len(set(seats)), place, f"{field}={n} gives the seats {seats}")
        env = rules.env(options)
        env.reset(seed=0)
        expect(list(env.possible_agents) == list(seats), place, f"the AEC env's agents are {env.possible_agents}")
        asked = set()
        for seed in range(PLAYOUTS):
            rng, game = np.random.default_rng(seed), rules.new(seed, options)
            while (seat := game.current_player) is not None:
                asked.add(seat)
                game.apply(int(rng.choice(game.legal_actions())))
        expect(asked == set(seats), place, f"random play asked only {sorted(asked)} of {seats}")


def check_openspiel(rules: GameRules[Any]) -> None:
    """For a game with an OpenSpiel game (`openspiel_game`): OpenSpiel's `random_sim_test` (legal actions, chance,
    returns, tensors, strings, clones, serialization) at each seat count, its players the seats and its actions
    the game's."""
    if importlib.util.find_spec("pyspiel") is None:
        raise NotApplicable("OpenSpiel (pyspiel) is not installed")
    import pyspiel

    made = getattr(rules, "openspiel_game", None)
    played = 0
    for options in options_by_seats(rules):
        game = made(options) if made is not None else None
        if game is None:
            continue
        place = where(rules, options)
        expect(game.num_players() == len(rules.seats_of(options)), place,
               f"the OpenSpiel game has {game.num_players()} players")  # fmt: skip
        expect(game.num_distinct_actions() == rules.n_actions, place,
               f"the OpenSpiel game has {game.num_distinct_actions()} actions, not {rules.n_actions}")  # fmt: skip
        try:
            pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
        except Exception as error:
            raise ConformanceError(f"{place}: OpenSpiel's random_sim_test: {type(error).__name__}: {error}") from error
        played += 1
    if not played:
        raise NotApplicable(f"{rules.name} has no OpenSpiel game (openspiel_game)")


CHECKS: dict[str, Callable[[GameRules[Any]], None]] = {
    "facts_and_options": check_facts_and_options,
    "random_playouts": check_random_playouts,
    "records_replay": check_records_replay,
    "seeding": check_seeding,
    "another_process": check_the_same_game_in_another_process,
    "ecosystem": check_the_ecosystem_s_checkers,
    "batched_play": check_batched_play,
    "hidden_information": check_hidden_information,
    "rendering": check_rendering,
    "truncation": check_truncation,
    "pickling": check_pickling,
    "after_the_end": check_after_the_end,
    "more_seats": check_more_seats,
    "openspiel": check_openspiel,
}
"""Every check by name, in the order `conformance_test` runs them."""


def conformance_test(rules: GameRules[Any], *, skip: Collection[str] = (), verbose: bool = True) -> dict[str, str]:
    """Run every check of `CHECKS` but those named in `skip` on `rules`; the first that fails raises its
    `ConformanceError`. Returns each check's outcome ("passed", "skipped", or "not applicable: why"), and prints
    them unless `verbose` is False."""
    unknown = sorted(set(skip) - set(CHECKS))
    if unknown:
        raise ValueError(f"skip: unknown check(s) {unknown}; the checks are {', '.join(CHECKS)}")
    outcomes = {}
    for name, check in CHECKS.items():
        if name in skip:
            outcomes[name] = "skipped"
            continue
        try:
            check(rules)
            outcomes[name] = "passed"
        except NotApplicable as why:
            outcomes[name] = f"not applicable: {why}"
        if verbose:
            print(f"{rules.name}: {name}: {outcomes[name]}", flush=True)
    if verbose:
        passed = sum(outcome == "passed" for outcome in outcomes.values())
        print(f"{rules.name} passed {passed} of the {len(CHECKS)} conformance checks ({len(CHECKS) - passed} did not "
              "apply or were skipped)")  # fmt: skip
    return outcomes
