"""Playing an evaluation's games: one game, its units of work (`Job`), and every game of many pairings.

Each side is given `game.observation(seat)` and `game.legal_mask()`: exactly what the environments hand an
agent. A pairing of agents that act in batches (the game's `batchable`: a compiled game's compiled agents and
trained policies) is played many games at once in the game's batched environment, on every core (its
`play_batched`); any other pairing game by game over worker processes (`--workers`), or as Ray tasks
(`experiments.cluster`). Every way plays the same games: a game depends only on its deck seed and seats, and
each agent is reset before it with a seed drawn from both (`agent_seed`).

A game of two seats (`GameRules.seats_of` its options) plays a against b; a game of more seats plays a in one seat
and copies of b in all the others, each deck seed once with a in each seat.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from experiments.game import DEFAULT, GameLike, game_name, game_of, seats_of
from experiments.stats import summarize, wilson
from suntzu_env.core.protocol import GameOptions, GameRules, ask

SEEDS_PER_JOB = 25  # at most, deck seeds per unit of work played game by game (50 games)
UNITS_AT_LEAST = 16  # a pairing played game by game is cut into this many units where it has the seeds
BATCHED_SEEDS_PER_JOB = 250  # deck seeds per unit of work played in the batched environment (500 games)
BACKENDS = ("local", "ray")
Backend = Literal["local", "ray"]
AgentLike = Any  # an agent spec (str) or an agent object
OptionsLike = GameOptions | Mapping[str, Any] | None  # the game's options, a mapping of their fields, or defaults


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed an agent is reset with for one game and seat: a fixed mix of both."""
    x = (game_seed * 2 + seat + 1) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    return x & 0x7FFFFFFFFFFFFFFF


def play_game(game_seed: int, *players: Any, options: OptionsLike = None, game: GameLike = DEFAULT) -> dict:
    """One game of `game`: each seat's agent (in seat order) is asked with its own observation and the legal mask.

    Returns the winner (a seat or "draw"), the final marker (+ toward the first seat), the number of
    decisions the agents answered and the game's record (which the game's `replay` plays again).
    """
    rules = game_of(game)
    options = rules.options(options)
    seats = tuple(rules.seats_of(options))
    if len(players) != len(seats):
        raise ValueError(f"play_game needs one agent per seat {seats}, got {len(players)}")
    played = rules.new(game_seed, options)
    by_seat = dict(zip(seats, players, strict=True))
    for side, agent in enumerate(players):
        agent.reset(agent_seed(game_seed, side))
    decisions = 0
    while (seat := played.current_player) is not None:
        played.apply(ask(by_seat[seat], played, seat))
        decisions += 1
    return {"winner": played.winner, "score": played.score, "decisions": decisions, "record": played.record()}


def result_of(winner: str, a_seat: str) -> int:
    """Agent a's result of a game it played in `a_seat`: +1 won, 0 undecided (a draw), -1 lost."""
    return 0 if winner == "draw" else (1 if winner == a_seat else -1)


ROW_KEYS = ("pairing", "seed", "a_seat", "result", "winner", "score", "decisions", "record")  # a game's row
RECORD_KEYS = ("seed", "actions")  # a record's keys that differ from game to game; the others name the rules


class BadGame(ValueError):
    """A game's row or record read back that is not a finished game of the evaluation: the field and what is wrong."""

    def __init__(self, field: str, what: str) -> None:
        super().__init__(f"{field}: {what}")
        self.field, self.what = field, what

    def within(self, prefix: str) -> BadGame:
        """The same problem, its field named inside `prefix` (`rows[3]`)."""
        return BadGame(f"{prefix}.{self.field}", self.what)


def parse_json(data: bytes | str) -> Any:
    """A JSON document read from outside; BadGame("(the text)", ...) unless it is UTF-8 text and JSON (a number too
    long or a document nested too deep for the parser is not)."""
    text = decoded(data) if isinstance(data, bytes) else data
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise BadGame("(the text)", f"not valid JSON ({type(error).__name__}: {error})") from None


def decoded(data: bytes) -> str:
    """Bytes read from outside as UTF-8 text; BadGame("(the text)", ...) where they are not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadGame("(the text)", f"not UTF-8 text (byte {error.start})") from None


def record_rules(rules: GameRules[Any], options: GameOptions) -> dict[str, Any]:
    """What every record of a game played under `options` holds alike (all its keys but `RECORD_KEYS`)."""
    return {k: v for k, v in rules.new(0, options).record().items() if k not in RECORD_KEYS}


def check_record(rules: GameRules[Any], record: Any, alike: dict[str, Any], seed: int, winner: str, score: int,
                 decisions: int, row: str = "its row") -> None:  # fmt: skip
    """BadGame unless `record` (read from outside) replays, under the rules and options `alike` names
    (`record_rules`), to the finished game of deck seed `seed` its row (named `row` in messages) reports."""
    if not isinstance(record, dict):
        raise BadGame("record", f"expected a game's record (a JSON object), got {_shown(record)}")
    for key, value in alike.items():
        if record.get(key) != value:
            raise BadGame(f"record.{key}", "not the rules and options of the evaluation")
    if record.get("seed") != seed or not _whole(record.get("seed")):
        raise BadGame("record.seed", f"{_shown(record.get('seed'))}, but {row} says {seed}")
    try:
        game = rules.replay(record)
    except (TypeError, ValueError, RecursionError) as error:
        field = getattr(error, "field", None)
        text = str(error).removeprefix("bad game record: ")
        if field is None:
            head, _, rest = text.partition(": ")
            field, text = (head, rest) if head.startswith("record") and rest else ("record", text)
        else:
            text = text.removeprefix(f"{field}: ")
        raise BadGame(field, text) from None
    if game.winner is None:
        raise BadGame("record.actions", "the game is not over at its last action")
    if (game.winner, game.score, len(record["actions"])) != (winner, score, decisions):
        raise BadGame("record", f"replays to winner {game.winner}, marker {game.score}, {len(record['actions'])} "
                      f"decisions; {row} says {winner}, {_shown(score)}, {decisions}")  # fmt: skip


def check_unit(job: Job, rows: Any) -> list[dict[str, Any]]:
    """The rows of a finished unit of work read back (`experiments.partial`), checked as the games `job` plays:
    each of its games in order, every field of the type and in the range `run_job` gives, its record replayed to
    the game its row reports. BadGame names the field (`rows[i].winner`) and what is wrong."""
    rules = game_of(job.game)
    seats = tuple(rules.seats_of(job.options))
    order = [(seed, a_seat) for seed in range(job.first_seed, job.first_seed + job.n_seeds) for a_seat in job.a_seats]
    if not isinstance(rows, list) or len(rows) != len(order):
        got = f"{len(rows)} rows" if isinstance(rows, list) else _shown(rows)
        raise BadGame("rows", f"expected the {len(order)} games of the unit, got {got}")
    alike = record_rules(rules, job.options)
    for i, (row, (seed, a_seat)) in enumerate(zip(rows, order, strict=True)):
        try:
            _check_row(rules, row, job.pairing, seed, a_seat, seats, alike)
        except BadGame as bad:
            raise bad.within(f"rows[{i}]") from None
    return rows


def _check_row(rules: GameRules[Any], row: Any, pairing: int, seed: int, a_seat: str, seats: tuple[str, ...],
               alike: dict[str, Any]) -> None:  # fmt: skip
    """One game's row of a unit: the game `(seed, a_seat)` of `pairing`, as `run_job` gives it."""
    if not isinstance(row, dict):
        raise BadGame("(the row)", f"expected a JSON object, got {_shown(row)}")
    for key in ROW_KEYS:
        if key not in row:
            raise BadGame(key, "missing")
    for key in row:
        if key not in ROW_KEYS:
            raise BadGame(str(key)[:60], f"not a field of a game's row ({', '.join(ROW_KEYS)})")
    for key, expected in (("pairing", pairing), ("seed", seed), ("a_seat", a_seat)):
        if row[key] != expected or type(row[key]) is not type(expected):
            raise BadGame(key, f"expected {expected!r} (the unit's game of deck seed {seed} with a as {a_seat}), "
                          f"got {_shown(row[key])}")  # fmt: skip
    if row["winner"] not in (*seats, "draw") or not isinstance(row["winner"], str):
        raise BadGame("winner", f"expected {', '.join(seats)} or draw, got {_shown(row['winner'])}")
    if row["result"] != result_of(row["winner"], a_seat) or not _whole(row["result"]):
        raise BadGame("result", f"expected {result_of(row['winner'], a_seat)} (winner {row['winner']}, a as "
                      f"{a_seat}), got {_shown(row['result'])}")  # fmt: skip
    if not _whole(row["score"]):
        raise BadGame("score", f"expected a whole number, got {_shown(row['score'])}")
    if not _whole(row["decisions"]) or row["decisions"] < 0:
        raise BadGame("decisions", f"expected a whole number >= 0, got {_shown(row['decisions'])}")
    check_record(rules, row["record"], alike, seed, row["winner"], row["score"], row["decisions"])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A value read from outside, short enough for a one-line message."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


@dataclass(frozen=True)
class Job:
    """A unit of work: a run of deck seeds of one pairing, each played with agent a in each of `a_seats` in turn,
    game by game or (`batched`) many at once in the batched environment."""

    pairing: int
    a: AgentLike
    b: AgentLike
    first_seed: int
    n_seeds: int
    options: GameOptions
    a_seats: tuple[str, ...]
    batched: bool = False
    game: str = DEFAULT

    @property
    def games(self) -> int:
        return self.n_seeds * len(self.a_seats)


AGENTS: dict[tuple[str, str, int], Any] = {}  # per process: (game, spec, slot) -> agent, reused across jobs


def _agent(spec: AgentLike, slot: int, game: str) -> Any:
    """The agent of a spec (one instance per slot, so a spec may play itself) or the object given."""
    if not isinstance(spec, str):
        return spec
    if (game, spec, slot) not in AGENTS:
        AGENTS[game, spec, slot] = game_of(game).make_agent(spec)
    return AGENTS[game, spec, slot]


def run_job(job: Job, on_game: Callable[[], None] | None = None) -> tuple[int, list[dict[str, Any]]]:
    """The rows of a job's games in (seed, seat) order, with its pairing; `on_game()` as each batched game ends."""
    if job.batched:
        a, b = _loaded(job.a, 0, job.game), _loaded(job.b, 1, job.game)
        count = (lambda k, out: on_game()) if on_game is not None else None
        return job.pairing, _play_batched(job, a, b, count)
    seats = seats_of(job.game, job.options)
    a = _agent(job.a, 0, job.game)
    others = [_agent(job.b, slot, job.game) for slot in range(1, len(seats))]  # b in every seat but a's
    if not isinstance(job.b, str):  # an object: a copy of it in each seat after the first
        others[1:] = [copy.deepcopy(job.b) for _ in others[1:]]
    rows = []
    for seed in range(job.first_seed, job.first_seed + job.n_seeds):
        for a_seat in job.a_seats:
            i = seats.index(a_seat)
            players = (*others[:i], a, *others[i:])
            out = play_game(seed, *players, options=job.options, game=job.game)
            result = result_of(out["winner"], a_seat)
            rows.append({"pairing": job.pairing, "seed": seed, "a_seat": a_seat, "result": result, **out})
    return job.pairing, rows


def plan_jobs(
    pairings: Sequence[tuple[AgentLike, AgentLike]],
    seeds: int,
    seed: int,
    options: GameOptions,
    a_seats: tuple[str, ...],
    batched: bool = True,
    game: GameLike = DEFAULT,
) -> list[Job]:
    """The units of work of an evaluation, whatever plays them (in this process, worker processes or Ray tasks).

    A pairing the batched environment plays (the game's `batchable`, unless `batched` is False) is cut into runs of
    `BATCHED_SEEDS_PER_JOB` deck seeds, any other into `UNITS_AT_LEAST` runs or more (of 1 to `SEEDS_PER_JOB`
    seeds: a small evaluation still spreads over the workers, and its progress shows as it goes). The cut
    depends only on the number of seeds, and each game's seeds only on its deck seed and seat, so every way of
    playing the jobs gives the same games (and a resumed evaluation the same units).
    """
    rules, name = game_of(game), game_name(game)
    jobs = []
    for i, (a, b) in enumerate(pairings):
        in_batch = batched and rules.batchable(a) and rules.batchable(b)
        step = BATCHED_SEEDS_PER_JOB if in_batch else max(1, min(SEEDS_PER_JOB, seeds // UNITS_AT_LEAST))
        for start in range(0, seeds, step):
            jobs.append(Job(i, a, b, seed + start, min(step, seeds - start), options, a_seats, in_batch, name))
    return jobs


def play_games(
    pairings: Sequence[tuple[AgentLike, AgentLike]],
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
    mirrored: bool = True,
    batched: bool = True,
    backend: Backend = "local",
    address: str | None = None,
    done: Mapping[tuple[int, int], list[dict[str, Any]]] | None = None,
    on_job: Callable[[int, list[dict[str, Any]]], None] | None = None,
    game: GameLike = DEFAULT,
) -> list[list[dict[str, Any]]]:
    """Every game of `game` of every pairing, per pairing in (seed, seat) order, whatever the worker count or backend.

    Mirrored (the default), `games` is a multiple of the seat count (even with two seats) and each deck seed is
    played once with a in each seat, in seat order (b in the others); otherwise each of `games` deck seeds is
    played once, a in the first seat. `options`: the
    game's options (an options value or a mapping of its fields; None: the defaults).

    The games are cut into jobs (`plan_jobs`). A pairing of agents the game's batched environment plays
    (its `batchable`: a compiled game's compiled agents and policies) is played there, many games at once, unless
    `batched` is False; the others game by game. Both ways play the same games (a policy network computes each
    row alike, one row or many).

    `backend` "local": batched jobs in this process on every core, the others over `workers` processes.
    "ray": every job as a Ray task (`experiments.cluster`), on the cluster at `address` or on a local one of
    `workers` CPUs started for the call (or the one this process has already joined); the same results, bit for
    bit.

    `done`: the rows of units of work already played, by (pairing, first deck seed), which are not played
    again; `on_job(pairing, rows)` is called as each other unit ends (to keep it, for a resume).
    """
    rules = game_of(game)
    options = rules.options(options)
    seats = tuple(rules.seats_of(options))
    if mirrored:
        check_games(games, len(seats))
    elif not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be a whole number >= 1, got {games!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    for a, b in pairings:
        for agent in (a, b):
            if isinstance(agent, str):
                rules.check_agent(agent)
    seeds, a_seats = (games // len(seats), seats) if mirrored else (games, seats[:1])
    jobs = plan_jobs(pairings, seeds, seed, options, a_seats, batched, game)
    results: list[list[dict[str, Any]]] = [[] for _ in pairings]
    bar = _progress_bar(len(pairings) * games, progress)
    done = done or {}
    for job in jobs:
        rows = done.get((job.pairing, job.first_seed))
        if rows is not None and len(rows) == job.games:
            results[job.pairing].extend(rows)
            bar.update(len(rows))
    jobs = [job for job in jobs if len(done.get((job.pairing, job.first_seed), ())) != job.games]
    collect = _collector(results, on_job)
    try:
        if backend == "ray":
            from experiments.cluster import run_jobs  # lazy: Ray only when asked for

            for i, rows in run_jobs(run_job, jobs, address=address, num_cpus=workers):
                collect(i, rows)
                bar.update(len(rows))
        elif jobs:
            _play_locally(jobs, workers, collect, bar)
    finally:
        bar.close()
    for rows in results:
        rows.sort(key=lambda r: (r["seed"], seats.index(r["a_seat"])))
    return results


def _collector(
    results: list[list[dict[str, Any]]], on_job: Callable[[int, list[dict[str, Any]]], None] | None
) -> Callable[[int, list[dict[str, Any]]], None]:
    def collect(i: int, rows: list[dict[str, Any]]) -> None:
        results[i].extend(rows)
        if on_job is not None:
            on_job(i, rows)

    return collect


def _play_locally(
    jobs: Sequence[Job], workers: int, collect: Callable[[int, list[dict[str, Any]]], None], bar: Any
) -> None:
    """Batched jobs in this process (the batched environment uses every core), the others over worker processes."""
    for job in jobs:
        if job.batched:
            collect(*run_job(job, on_game=lambda: bar.update(1)))
    by_game = [job for job in jobs if not job.batched]
    if workers <= 1 or len(by_game) <= 1:
        for i, rows in map(run_job, by_game):
            collect(i, rows)
            bar.update(len(rows))
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with context.Pool(min(workers, len(by_game)), initializer=ignore_interrupts) as pool:
        for i, rows in pool.imap_unordered(run_job, by_game):
            collect(i, rows)
            bar.update(len(rows))


def _loaded(agent: AgentLike, slot: int, game: str) -> AgentLike:
    """A trained policy's spec as its loaded agent (loaded once per process); others stay names."""
    trained = isinstance(agent, str) and game_of(game).trained_model(agent) is not None
    return _agent(agent, slot, game) if trained else agent


def _play_batched(
    job: Job, a: AgentLike, b: AgentLike, on_game: Callable[[int, dict[str, Any]], None] | None = None
) -> list[dict[str, Any]]:
    """A job's games in the game's batched environment, each agent seeded per game as `play_game` does."""
    rules = game_of(job.game)
    seats = tuple(rules.seats_of(job.options))
    order = [(s, seat) for s in range(job.first_seed, job.first_seed + job.n_seeds) for seat in job.a_seats]
    games = [(s, seat, *(agent_seed(s, k) for k in _a_first(seats.index(seat), len(seats)))) for s, seat in order]
    played = rules.play_batched(a, b, games, job.options, on_game=on_game)
    rows = []
    for (s, a_seat), out in zip(order, played, strict=True):
        rows.append(
            {"pairing": job.pairing, "seed": s, "a_seat": a_seat, "result": result_of(out["winner"], a_seat), **out}
        )
    return rows


def _a_first(a: int, seats: int) -> list[int]:
    """The seat indices in the order `play_batched` takes their seeds: a's, then the others in seat order."""
    return [a, *(k for k in range(seats) if k != a)]


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which stops the pool (no traceback from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, smoothing=0.1, dynamic_ncols=True)


def check_games(games: int, seats: int = 2) -> None:
    """`games` must play each deck seed once with the first agent in each of the `seats` seats."""
    whole = isinstance(games, int) and not isinstance(games, bool)
    if seats == 2 and (not whole or games < 2 or games % 2):
        raise ValueError(f"games must be an even number >= 2 (each deck seed is played in both seats), got {games!r}")
    if not whole or games < seats or games % seats:
        near = [n for n in ((games // seats) * seats, (games // seats + 1) * seats) if n >= seats] if whole else []
        hint = f" ({' or '.join(map(str, near))} would do)" if near else ""
        raise ValueError(f"games must be a multiple of {seats} (each deck seed is played once with the first agent "
                         f"in each of the {seats} seats), got {games!r}{hint}")  # fmt: skip


def play_match(
    agent_a: AgentLike,
    agent_b: AgentLike,
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
    game: GameLike = DEFAULT,
) -> dict[str, Any]:
    """Play `games` seat-balanced games of `game` of a against b and summarize them from a's view.

    Deck seeds `seed .. seed + games/2 - 1` are each played twice, a in the first seat then the second (with more
    seats, `seed .. seed + games/n - 1` each n times, a in each seat and copies of b in the others). Agents are
    specs (the game's agent names) or `Agent` objects (distinct objects for a and b); objects are copied
    into the worker processes when `workers > 1`. Returns `wins`, `draws`, `losses`, `games`,
    `win_rate` (draws count as half a win), the Wilson 95% interval `ci_low`/`ci_high`, the same
    counts per seat of a (`<seat>_wins`, ..., `<seat>_win_rate`) and per deck seed (`pairs_won_both`,
    `pairs_split`, `pairs_lost_both`).
    """
    (rows,) = play_games([(agent_a, agent_b)], games, seed, options, workers, progress, game=game)
    return summarize(rows, seats_of(game, options))


def seat_advantage(
    specs: Sequence[AgentLike],
    games: int,
    seed: int = 0,
    options: OptionsLike = None,
    workers: int = 1,
    progress: bool = False,
    game: GameLike = DEFAULT,
) -> list[dict[str, Any]]:
    """How often the first seat wins when every seat is played by the same agent, one entry per agent.

    Each agent plays itself on deck seeds `seed .. seed + games - 1`, once each: with one agent in every
    seat, moving it would replay the very same game. Returns `games`, `<first seat>_wins`, `draws`, each other
    seat's `<seat>_wins`, `<first seat>_win_rate` (draws count 1/n of n seats: half with two) and its Wilson 95%
    interval `ci_low`/`ci_high`.
    """
    first, *others = seats_of(game, options)
    out = []
    for rows in play_games([(s, s) for s in specs], games, seed, options, workers, progress, mirrored=False,
                           game=game):  # fmt: skip
        wins = sum(r["winner"] == first for r in rows)
        draws = sum(r["winner"] == "draw" for r in rows)
        points = wins + draws / (1 + len(others))
        low, high = wilson(points, len(rows))
        out.append({"games": len(rows), f"{first}_wins": wins, "draws": draws,
                    **{f"{seat}_wins": sum(r["winner"] == seat for r in rows) for seat in others},
                    f"{first}_win_rate": points / len(rows), "ci_low": low, "ci_high": high})  # fmt: skip
    return out
