"""Benchmarks: `python -m suntzu_env.bench` (`--games`, `--seconds`, `--envs`, `--threads`, ...).

Reports the numba compile (or cache load) time separately, then random-legal play: whole games and
decisions per second in compiled code (one game at a time, one core), decision steps per second
through the Python `Game` API, steps per second through the raw PettingZoo AEC environment with the
observation and action mask built at every step, the compiled scripted agents' decisions per second (one
core) on the observations of random-play positions, and learner steps per second through the batched
`SunTzuVecEnv` against each compiled opponent (`--envs` games at once on `--threads` threads; the learner
plays random legal actions, chosen by the compiled `random`; observations and masks built), and against `random`
through `SunTzuVectorEnv`, Gymnasium's vector API, whose infos are arrays instead of one dict per env.
`--game NAME` measures another game through its plugin (`suntzu_env.core.games`): its compiled random playouts'
decisions per second on one core (`GameRules.random_playouts`), and its batched env's learner steps per second
(`GameRules.batched_env`) against `random` on 1 and 2 threads, in alternating rounds (`--rounds`).
`--connect-four` measures PettingZoo's own `connect_four_v3` raw environment like the AEC environment, for reference.
The training's speed against its limit is the experiments' own benchmark, `python -m experiments.bench` (the
package measures the game and its environments only, and never imports the experiments).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, Literal

import numba
import numpy as np

from suntzu_env.core import games
from suntzu_env.core.rng import random_legal, random_legal_states, rng_seed
from suntzu_env.core.threads import competing_process
from suntzu_env.suntzu import baselines, engine
from suntzu_env.suntzu.game import DEFAULT_ADJ, Game
from suntzu_env.suntzu.rules import VARIANTS
from suntzu_env.suntzu.suntzu_v3 import raw_env


def bench_compiled(games: int, variant: str, events: bool) -> dict[str, float]:
    adj = np.array(DEFAULT_ADJ, dtype=np.int64)
    start = time.perf_counter()
    out = engine.random_playouts(games, 1, VARIANTS.index(variant), int(events), adj)
    seconds = time.perf_counter() - start
    return {"games_per_s": games / seconds, "decisions_per_s": out[:, 1].sum() / seconds}


def bench_game_api(seconds: float) -> float:
    rng = random.Random(0)
    steps, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game.new(seed)
        seed += 1
        while not game.is_terminal:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def bench_aec(seconds: float, make_env: Callable[[], Any] = raw_env) -> float:
    """Random legal play through a raw AEC env: `last()` builds the observation and mask every step."""
    env = make_env()
    rng = random.Random(0)
    steps, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def bench_openspiel_goofspiel(seconds: float, cards: int = 13) -> float:
    """OpenSpiel's goofspiel with `cards` cards, turn-based, through the loop `bench_aec` runs: at every
    decision the observation tensor and the legal-actions mask of the player to act, as numpy arrays, and a
    random legal action; chance nodes (the prize cards) drawn from `chance_outcomes` and not counted."""
    import pyspiel  # the openspiel extra

    game = pyspiel.load_game_as_turn_based("goofspiel", {"num_cards": cards})
    rng = random.Random(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            player = state.current_player()
            np.asarray(state.observation_tensor(player), dtype=np.float32)
            legal = np.flatnonzero(np.asarray(state.legal_actions_mask(player), dtype=np.int8))
            state.apply_action(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def bench_vec_env(
    seconds: float,
    n_envs: int,
    opponent: str,
    face: Literal["sb3", "gymnasium"] = "sb3",
    threads: int | str = "auto",
) -> float:
    """Learner steps/s of the batched environment against `opponent`, the learner choosing uniformly among its
    legal actions (the compiled `random` baseline, so that the figure is the environment's own cost), through
    `face`: "sb3" (`SunTzuVecEnv`, with its per-env info dicts) or "gymnasium" (`SunTzuVectorEnv`, infos as
    arrays), on `threads` (the env's; the learner's draw runs on the count the env plays)."""
    from suntzu_env.suntzu.vec_core import baseline_actions
    from suntzu_env.suntzu.vec_env import SunTzuVecEnv, SunTzuVectorEnv  # lazy: imports Stable-Baselines3

    if face not in ("sb3", "gymnasium"):
        raise ValueError(f"face must be 'sb3' or 'gymnasium', got {face!r}")
    if face == "sb3":
        env = SunTzuVecEnv(n_envs, opponents=opponent, seed=0, threads=threads)
        obs = env.reset()

        def play(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return env.step(actions)[0], env.action_masks()

        masks = env.action_masks()
    else:
        vector_env = SunTzuVectorEnv(n_envs, opponents=opponent, seed=0, threads=threads)
        env = vector_env.env
        obs, infos = vector_env.reset()

        def play(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            out = vector_env.step(actions)
            return out[0], out[4]["action_mask"]

        masks = infos["action_mask"]
    rngs = np.stack([rng_seed(i) for i in range(n_envs)])
    actions = np.zeros(n_envs, dtype=np.int64)

    def draw() -> None:
        numba.set_num_threads(env.threads.played)
        baseline_actions(baselines.RANDOM, obs, masks, rngs, actions)

    for _ in range(2):  # warm-up: the compiled step loads (or compiles) on its first call
        draw()
        obs, masks = play(actions)
    draw()
    steps = 0
    start = time.perf_counter()
    while steps == 0 or time.perf_counter() - start < seconds:
        obs, masks = play(actions)
        draw()
        steps += n_envs
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return steps / (time.perf_counter() - start)


def bench_contention(seconds: float, n_envs: int, rounds: int = 3) -> dict[str, list[float]]:
    """Learner steps/s of the batched env against `random` on one thread and on the default ("auto"), quiet and
    beside a competing busy process, in alternating rounds: {"1 quiet": [...], "auto busy": [...], ...}."""
    out: dict[str, list[float]] = {}
    for _ in range(rounds):
        for busy in (False, True):
            with competing_process() if busy else nullcontext():
                for threads in (1, "auto"):
                    key = f"{threads} {'busy' if busy else 'quiet'}"
                    out.setdefault(key, []).append(bench_vec_env(seconds, n_envs, "random", threads=threads))
    return out


def random_play_positions(games: int) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in `games` games of random legal play (seeds 0..games-1)."""
    rng = random.Random(0)
    observations, masks = [], []
    for seed in range(games):
        game = Game.new(seed, events=bool(seed % 2))
        while (seat := game.current_player) is not None:
            observations.append(game.observation(seat))
            masks.append(game.legal_mask())
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    return np.array(observations), np.array(masks)


def bench_baselines(observations: np.ndarray, masks: np.ndarray, repeats: int = 3) -> dict[str, float]:
    """Decisions per second of each compiled baseline over the positions (batched call, best of `repeats`)."""
    out = np.zeros(len(observations), dtype=np.int64)
    rates = {}
    for agent, name in enumerate(baselines.BASELINES):
        rng = rng_seed(0)
        baselines.baseline_act_batch(agent, observations[:2], masks[:2], rng, baselines.DEFAULT_PARAMS_ARRAY, out[:2])
        best = 0.0
        for _ in range(repeats):
            start = time.perf_counter()
            baselines.baseline_act_batch(agent, observations, masks, rng, baselines.DEFAULT_PARAMS_ARRAY, out)
            best = max(best, len(observations) / (time.perf_counter() - start))
        rates[name] = best
    return rates


def bench_batched(
    rules: Any, seconds: float, n_envs: int, threads: int, opponent: str = "random"
) -> tuple[float, float, float]:
    """Learner steps per second of `rules.batched_env` against `opponent` on `threads` numba threads, the learner
    drawing uniformly among its legal actions (`random_legal`) and asking for its masks each step, as a masked
    learner does: (wall clock, per CPU second of this process, the env's `step` alone by the wall clock)."""
    env = rules.batched_env(n_envs, opponent, seed=0)
    numba.set_num_threads(threads)
    try:
        env.reset()
        masks = env.action_masks()
        state = random_legal_states(n_envs)
        actions = np.zeros(n_envs, dtype=np.int64)
        for _ in range(3):  # warm-up: the compiled step loads (or compiles) on its first calls
            random_legal(masks, state, actions)
            env.step(actions)
            masks = env.action_masks()
        steps, stepping = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while steps == 0 or time.perf_counter() - start < seconds:
            random_legal(masks, state, actions)
            before = time.perf_counter()
            env.step(actions)
            stepping += time.perf_counter() - before
            masks = env.action_masks()
            steps += n_envs
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        return steps / wall, steps / cpu, steps / stepping
    finally:
        env.close()
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def report_game(rules: Any, args: argparse.Namespace) -> None:
    """`--game NAME`: the game's compiled random playouts on one core, then its batched env against
    `args.opponent` on 1 and 2 threads, alternating, `args.rounds` rounds (medians, and each round's figures)."""
    start = time.perf_counter()
    rules.random_playouts(2)
    print(f"{rules.name}: numba compile / cache load: {time.perf_counter() - start:.2f} s")
    start, cpu = time.perf_counter(), time.process_time()
    decisions = rules.random_playouts(args.games)
    if decisions is None:
        print(f"{rules.name}: no compiled random playouts")
    else:
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            f"{rules.name}: compiled random playouts, one core: {args.games:,} games, {decisions:,} decisions, "
            f"{decisions / seconds:,.0f} decisions/s ({decisions / cpu:,.0f} per CPU second)"
        )
    counts = [k for k in (1, 2) if k <= numba.config.NUMBA_NUM_THREADS]
    found: dict[int, list[tuple[float, float, float]]] = {k: [] for k in counts}
    for _ in range(args.rounds):
        for k in counts:
            found[k].append(bench_batched(rules, args.seconds, args.envs, k, args.opponent))
    for k in counts:
        wall, per_cpu, stepping = (statistics.median(r[j] for r in found[k]) for j in range(3))
        print(
            f"{rules.name}: batched env, {args.envs} games vs {args.opponent}, threads {k}: {wall:,.0f} learner "
            f"steps/s ({per_cpu:,.0f} per CPU second; the env's step alone {stepping:,.0f}/s; median of {args.rounds} "
            f"rounds: {', '.join(f'{r[0]:,.0f}' for r in found[k])})"
        )


def check_args(args: argparse.Namespace) -> str | None:
    """What is wrong with the command line's numbers (None: nothing); `--threads` becomes 'auto' or a count."""
    from suntzu_env.core.threads import check_threads

    for name in ("games", "envs", "positions", "rounds"):
        if getattr(args, name) < 1:
            return f"--{name} must be at least 1, got {getattr(args, name)}"
    if not 0 < args.seconds < math.inf:
        return f"--seconds must be a positive number of seconds, got {args.seconds}"
    try:
        args.threads = check_threads("auto" if args.threads == "auto" else int(args.threads))
    except ValueError:
        return (
            f"--threads must be 'auto' or a whole number from 1 to {numba.config.NUMBA_NUM_THREADS}, got {args.threads}"
        )
    return None


def report_contention(args: argparse.Namespace) -> None:
    """`--contention`: the batched env's speed, quiet and beside a competing busy process (the training's:
    `python -m experiments.bench --contention`)."""
    found = bench_contention(args.seconds, args.envs)
    print(f"SunTzuVecEnv, {args.envs} games vs random, learner steps/s (median of {len(found['1 quiet'])} rounds):")
    median = {key: statistics.median(rates) for key, rates in found.items()}
    for key, rates in found.items():
        print(f"  {key:>10}: {median[key]:>12,.0f}  ({', '.join(f'{r:,.0f}' for r in rates)})")
    for load in ("quiet", "busy"):
        print(f"  {load}: the default (auto) gives {median[f'auto {load}'] / median[f'1 {load}']:.2f}x one thread")


def report_openspiel(seconds: float, rounds: int = 3) -> None:
    """`--openspiel`: the raw AEC env against OpenSpiel's goofspiel13, alternately, with the ratio per round."""
    bench_aec(0.5)  # warm-up: the compiled engine loads
    ratios = []
    for k in range(1, rounds + 1):
        ours, theirs = bench_aec(seconds), bench_openspiel_goofspiel(seconds)
        ratios.append(ours / theirs)
        print(f"round {k}: raw AEC env {ours:,.0f} steps/s, OpenSpiel goofspiel13 (turn-based) {theirs:,.0f} "
              f"steps/s: {ours / theirs:.2f}x")  # fmt: skip
    print(f"median: {statistics.median(ratios):.2f}x OpenSpiel's goofspiel13 (observation tensor and mask each step)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", default=games.DEFAULT, help=f"the game to measure, by name (known: {', '.join(games.names())})"
    )
    parser.add_argument("--games", type=int, default=20_000, help="games per compiled measurement")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per Python-API measurement")
    parser.add_argument("--envs", type=int, default=1024, help="games at once in the batched environment")
    parser.add_argument(
        "--threads",
        default="auto",
        help="numba threads of the batched env: 'auto' (the default: the fastest count, timed as it runs) or a count",
    )
    parser.add_argument(
        "--contention",
        action="store_true",
        help="only the contention benchmark: the batched env quiet and beside a competing busy process, on one "
        "thread and on the default",
    )
    parser.add_argument("--positions", type=int, default=100, help="random-play games the agents' positions come from")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of a --game's batched env")
    parser.add_argument(
        "--opponent", default="random", help="with --game: the batched env's opponent (random, greedy, heuristic, ...)"
    )
    parser.add_argument("--connect-four", action="store_true", help="also time PettingZoo's connect_four_v3")
    parser.add_argument(
        "--openspiel",
        action="store_true",
        help="only the single-game comparison: the raw AEC env and OpenSpiel's goofspiel13 (turn-based) through "
        "the same loop, alternately, three rounds (needs the openspiel extra)",
    )
    args = parser.parse_args(argv)
    problem = check_args(args)
    if problem:  # one line, before any benchmark runs
        print(f"{parser.prog}: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    if args.game != games.DEFAULT:
        try:
            rules = games.game(args.game)
        except games.UnknownGameError as error:
            print(f"{parser.prog}: error: --game: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        try:
            rules.batched_env(1, args.opponent, seed=0).close()
        except ValueError as error:  # one line, before any benchmark runs
            print(f"{parser.prog}: error: --opponent: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        report_game(rules, args)
        return
    if args.contention:
        report_contention(args)
        return
    if args.openspiel:
        report_openspiel(args.seconds)
        return

    start = time.perf_counter()
    adj = np.array(DEFAULT_ADJ, dtype=np.int64)
    for variant in (0, 1):
        for events in (0, 1):
            engine.random_playouts(1, 0, variant, events, adj)
    Game.new(0)
    print(f"numba compile / cache load: {time.perf_counter() - start:.2f} s")
    for variant in VARIANTS:
        for events in (False, True):
            r = bench_compiled(args.games, variant, events)
            print(
                f"compiled random playout ({variant}, events {'on' if events else 'off'}): "
                f"{r['games_per_s']:,.0f} games/s, {r['decisions_per_s']:,.0f} decisions/s"
            )
    print(f"Python Game API, random legal play: {bench_game_api(args.seconds):,.0f} decision steps/s")
    aec = bench_aec(args.seconds)
    print(f"PettingZoo raw AEC env, random legal play, observation + mask each step: {aec:,.0f} steps/s")
    observations, masks = random_play_positions(args.positions)
    for name, rate in bench_baselines(observations, masks).items():
        where = f"compiled, {len(observations):,} random-play positions"
        print(f"scripted agents, decisions/s: {name}: {rate:,.0f} ({where})")
    from suntzu_env.suntzu.vec_core import COMPILED_AGENTS

    for opponent in COMPILED_AGENTS:
        rate = bench_vec_env(args.seconds, args.envs, opponent, threads=args.threads)
        print(
            f"SunTzuVecEnv, {args.envs} games, threads {args.threads}, vs {opponent}, random legal "
            f"learner, observation + mask each step: {rate:,.0f} learner steps/s"
        )
    rate = bench_vec_env(args.seconds, args.envs, "random", face="gymnasium", threads=args.threads)
    print(
        f"SunTzuVectorEnv (Gymnasium's vector API: no per-env info dicts), the same against random: {rate:,.0f} "
        "learner steps/s"
    )
    if args.connect_four:
        from pettingzoo.classic import connect_four_v3

        c4 = bench_aec(args.seconds, connect_four_v3.raw_env)
        print(f"PettingZoo connect_four_v3 raw AEC env, the same loop: {c4:,.0f} steps/s")


if __name__ == "__main__":
    main()
