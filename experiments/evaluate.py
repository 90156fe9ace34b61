"""Round-robin evaluation of agents over paired, seat-swapped games, with statistics: the command line.

`python -m experiments.evaluate [--game NAME] --agents A B C --games 2000 --seed 0`

| step      | what it does                                                                          |
|-----------|---------------------------------------------------------------------------------------|
| pairings  | every pair of the named agents (a round robin), in the order given                    |
| games     | per pairing, deck seeds `seed .. seed + games/2 - 1`, each played twice, seats swapped |
| agents    | agents are reset before every game with a seed drawn from the game seed and the seat |
| counts    | wins, draws, losses of the first agent of the pairing, overall and per seat           |
| win rate  | (wins + draws / 2) / games, with a Wilson score 95% interval                          |
| outright  | wins / games, with its Wilson interval: the headline where a game without a winner is  |
|           | undecided (`GameRules.no_winner`), beside won, undecided and lost; else the win rate   |
| ratings   | Bradley-Terry strengths fitted to all pairings, Elo scale, the game's anchor at 0 (to  |
|           | the decided games only where a game without a winner is undecided)                     |
| ladder    | each rung's bar over the rung below (the game's `ladder`), for the rungs that both play |

A game whose options give it more than two seats (`GameRules.seats_of`) plays each pair (a, b), a named first, as a
in one seat and copies of b in all the others: `--games` is a multiple of the seat count n, deck seeds
`seed .. seed + games/n - 1` each played once with a in each seat; a's headline rate (its outright win rate, where
a game without a winner is undecided, with the score counting such a game 1/n beside it) is shown beside 1/n, a
seat's share against its equals (no ratings or ladder: both compare two seats).

The game is `--game` (a registered name, default `suntzu_env.core.games.DEFAULT`), its options its own flags
(`--help` with `--game` shows them); the agents are the game's. Every game of an evaluation is played under
the same options. The work is done by `experiments.matches` (playing the games, batched where the game can),
`experiments.stats` (statistics), `experiments.round_robin` and `experiments.reports` (the results folder,
default `results/<name>`: `summary.json`, `pairings.csv`, `games.csv`, `games.jsonl`, `heatmap.png`); their
public functions are importable from here too.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from experiments.cli import ConfigError, UserError, parse, run_cli
from experiments.game import (
    DEFAULT,
    GameConfig,
    GameLike,
    describe,
    game_flag,
    game_name,
    game_of,
    option_names,
    options_of,
    saved_game,
    seats_of,
    with_game,
)
from experiments.matches import (
    AGENTS,
    Backend,
    Job,
    agent_seed,
    check_games,
    ignore_interrupts,
    plan_jobs,
    play_game,
    play_games,
    play_match,
    run_job,
    seat_advantage,
)
from experiments.partial import Partial, partial_folder, stale_folders
from experiments.reports import plot_heatmap, publish, report, write_results
from experiments.round_robin import labels_for, round_robin
from experiments.stats import anchor_note, anchored, bradley_terry, ladder, oriented, summarize, wilson
from suntzu_env.core.protocol import GameOptions

__all__ = [
    "EvaluateConfig",
    "Job",
    "agent_seed",
    "anchor_note",
    "anchored",
    "bradley_terry",
    "check_games",
    "ignore_interrupts",
    "labels_for",
    "ladder",
    "main",
    "oriented",
    "plan_jobs",
    "play_game",
    "play_games",
    "play_match",
    "plot_heatmap",
    "publish",
    "report",
    "round_robin",
    "run_job",
    "seat_advantage",
    "summarize",
    "wilson",
    "write_results",
]

PROG = "python -m experiments.evaluate"
MAX_GAMES = 100_000_000  # per pairing: far beyond any evaluation, and its plan of units still fits in memory


@dataclass
class EvaluateConfig(GameConfig):
    """Round-robin evaluation of agents over paired, seat-swapped games: win rates with Wilson 95% intervals,
    Bradley-Terry ratings, the game's ladder, and a results folder."""

    agents: tuple[str, ...] = ()
    """two or more of {agents} (twice: self-play)"""
    games: int = 2000
    """games per pairing, even, at most 100,000,000: games/2 deck seeds, each played in both seats (with n seats: a
    multiple of n, each deck seed played with the first agent in each seat)"""
    seed: int = 0
    """first deck seed, in [0, 2**62): the games use seeds seed .. seed + games/2 - 1"""
    game: str = DEFAULT
    """the game (a registered name, or <module>:<attribute>)"""
    workers: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    """worker processes for the pairings played game by game, one per core by default (batched pairings use every
    core); with --backend ray, the CPUs of the local Ray cluster started for the run (not with --address)"""
    backend: Backend = "local"
    """where the games are played: local (this machine's processes) or ray (Ray tasks: pip install -e ".[ray]");
    the same results either way"""
    address: str | None = None
    """with --backend ray: the address of a running Ray cluster to play on, e.g. 10.0.0.5:6379 or auto (None: start
    a local one)"""
    out: Path | None = None
    """results folder (None: results/<name>)"""
    name: str | None = None
    """results folder's name under results/ (None: the agents, games, seed and time)"""
    progress: bool = True
    """show a progress bar"""
    resume: Path | None = None
    """continue a killed evaluation: its results folder (as --out named it); the games it finished are kept, the
    others played, and the folder ends as an uninterrupted evaluation's; the other flags come from its start"""
    overwrite: bool = False
    """replace an existing --out folder (once the new results are complete)"""

    @classmethod
    def for_game(cls, game: GameLike) -> type[EvaluateConfig]:
        return evaluate_config_class(game)

    def __post_init__(self) -> None:
        rules = game_of(self.game)
        if len(self.agents) < 2:
            raise ConfigError(f"agents: needs at least two agents, got {' '.join(self.agents) or 'none'}; "
                              f"valid: {rules.valid_agents()}")  # fmt: skip
        for spec in self.agents:
            try:
                rules.check_agent(spec)
            except ValueError as error:
                raise ConfigError(f"agents: {error}") from None
        try:
            check_games(self.games, len(seats_of(rules, self.options)))
        except ValueError as error:
            raise ConfigError(str(error)) from None
        if self.games > MAX_GAMES:
            raise ConfigError(f"games must be at most {MAX_GAMES:_} per pairing, got {self.games}")
        if not 0 <= self.seed < 2**62:
            raise ConfigError(f"seed must be in [0, 2**62), got {self.seed}")
        if self.seed + self.games > 2**62:
            raise ConfigError(f"seed: seed + games must be at most 2**62 (the deck seeds stay below it), got seed "
                              f"{self.seed} with {self.games} games")  # fmt: skip
        if self.workers < 1:
            raise ConfigError(f"workers must be at least 1, got {self.workers}")
        if self.address is not None and self.backend != "ray":
            raise ConfigError(f"address: a Ray cluster's address is used only with --backend ray, got --backend "
                              f"{self.backend}")  # fmt: skip
        if self.address is not None and not self.address.strip():
            raise ConfigError("address: expected HOST:PORT of a running Ray cluster, or auto; got an empty one")
        if self.name is not None and (not self.name or "/" in self.name or os.sep in self.name or
                                      self.name in (".", "..")):  # fmt: skip
            raise ConfigError(f"name must be a folder name (no '/'), got {self.name!r}")
        self.options  # noqa: B018  # checks the game's options

    @property
    def options(self) -> GameOptions:
        """The game's options (its option fields): every game of the evaluation is played under them."""
        return options_of(self, self.game)


def evaluate_config_class(game: GameLike) -> type[EvaluateConfig]:
    """`EvaluateConfig` of `game`: its option flags, its evaluation opponents as the default agents."""
    return with_game(EvaluateConfig, game, {"game": game_name(game_of(game)),
                                            "agents": tuple(game_of(game).eval_opponents)})  # fmt: skip


def load_agents(specs: Sequence[str], options: GameOptions | None = None, game: GameLike = DEFAULT) -> None:
    """Make each agent now, once: a bad model (a policy, a value network) is refused before anything is made or
    played, and workers inherit the agents.

    A trained agent whose run was played under other options than `options` (another map, say) is named.
    """
    rules, name = game_of(game), game_name(game_of(game))
    for spec in dict.fromkeys(specs):
        AGENTS[name, spec, 0] = rules.make_agent(spec)
        path = rules.trained_model(spec)
        if path is None:
            continue
        AGENTS[name, spec, 1] = copy.deepcopy(AGENTS[name, spec, 0])
        trained = trained_options(path)
        if options is not None and trained is not None and rules.label(trained) != rules.label(options):
            print(f"note: {spec} was trained under {describe(rules, rules.option_fields(trained))}; "
                  f"these games are played under {describe(rules, rules.option_fields(options))}")  # fmt: skip


def trained_options(path: str) -> GameOptions | None:
    """The options a trained model's run was played under (None: no run folder with a readable config beside it)."""
    from experiments.runs import read_config

    model = Path(path)
    for folder in (model, model.parent, model.parent.parent):
        if (folder / "config.json").is_file():
            try:
                return read_config(folder).options
            except UserError:
                return None
    return None


WHAT = ("agents", "games", "seed", "game")  # what an evaluation is, with the game's options: kept on --resume


def what(game: GameLike) -> tuple[str, ...]:
    """What an evaluation of `game` is (kept on `--resume`): `WHAT` and the game's option fields."""
    return (*WHAT, *option_names(game))


@dataclass
class _ResumeFlag:
    resume: Path | None = None


def configure(argv: Sequence[str] | None) -> tuple[EvaluateConfig, Path, Partial]:
    """The evaluation a command line asks for, its results folder and the folder it is made in: a new one, or
    (`--resume`) the unfinished one, whose settings the flags given must agree with."""
    import tyro

    try:
        flags, _ = tyro.cli(_ResumeFlag, args=list(sys.argv[1:] if argv is None else argv), return_unknown_args=True,
                            add_help=False, console_outputs=False)  # fmt: skip
        resume = flags.resume
    except SystemExit:  # a malformed --resume: the full parse reports it
        resume = None
    given = game_flag(argv)
    if resume is None:
        args = parse(evaluate_config_class(given or DEFAULT), argv, PROG)
        out = args.out or Path("results") / (args.name or "_".join(
            ["-".join(label.replace(":", "").replace("/", "-").replace("#", "") for label in labels_for(args.agents)),
             f"{args.games}g", f"s{args.seed}", datetime.now().strftime("%Y%m%d-%H%M%S")]
        ))  # fmt: skip
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out}: a file is there, not a folder")
        if out.exists() and not args.overwrite:
            raise UserError(f"--out {out} exists already: give another --out, --overwrite to replace it, or "
                            f"--resume {out} to continue an unfinished evaluation into it")  # fmt: skip
        kept = {name: _plain(getattr(args, name)) for name in what(args.game)} | {"overwrite": args.overwrite}
        return args, out, Partial(out, kept)
    saved = Partial.saved_config(resume)
    where = f"--resume {resume}: {partial_folder(resume) / 'progress' / 'config.json'}"
    _check_saved(saved, where)
    rules = saved_game(saved.get("game"), where, given)
    config_class = evaluate_config_class(rules)
    try:
        fields = {name: tuple(v) if isinstance(v, list) else v for name, v in saved.items() if name in what(rules)}
        default = config_class(**fields, resume=resume, out=resume)
    except (TypeError, ValueError, ConfigError) as error:
        raise UserError(f"{where}: {error}") from None
    args = parse(config_class, argv, PROG, default=default)
    for name in what(rules):
        if _plain(getattr(args, name)) != _plain(getattr(default, name)):
            raise UserError(f"a resumed evaluation keeps its --{name} ({_plain(getattr(default, name))}), got "
                            f"{_plain(getattr(args, name))}")  # fmt: skip
    if args.out != resume:
        raise UserError(f"--resume {resume} writes to that folder; leave --out out (got --out {args.out})")
    args.overwrite = args.overwrite or bool(saved.get("overwrite"))
    return args, resume, Partial(resume, saved)


def _check_saved(saved: dict[str, Any], where: str) -> None:
    """The saved settings of an evaluation in progress hold what it is, each of its type (the game's options are
    checked by the game, the values by `EvaluateConfig`); UserError naming the field."""
    for name in ("agents", "games", "seed"):
        if name not in saved:
            raise UserError(f"{where}: {name}: missing")
    if not (isinstance(saved["agents"], list) and all(isinstance(a, str) for a in saved["agents"])):
        raise UserError(f"{where}: agents: expected a list of agent names, got {saved['agents']!r:.60}")
    for name in ("games", "seed"):
        if isinstance(saved[name], bool) or not isinstance(saved[name], int):
            raise UserError(f"{where}: {name}: expected a whole number, got {saved[name]!r:.60}")
    if not isinstance(saved.get("game", DEFAULT), str):
        raise UserError(f"{where}: game: expected a game's name, got {saved['game']!r:.60}")


def units(args: EvaluateConfig) -> list[Job]:
    """The evaluation's units of work, as `round_robin` cuts them (what a resume's finished units are checked by)."""
    seats = seats_of(args.game, args.options)
    return plan_jobs(list(itertools.combinations(args.agents, 2)), args.games // len(seats), args.seed, args.options,
                     seats, game=args.game)  # fmt: skip


def _plain(value: Any) -> Any:
    """A setting as JSON keeps it (tuples as lists)."""
    return json.loads(json.dumps(value))


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the round robin, print the report, write the results folder; returns the results."""
    args, out, partial = configure(argv)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: a file is there, not a folder")
    if args.resume is not None:  # before anything else: what was played is checked as data
        done, earlier = partial.done(units(args))
    load_agents(args.agents, args.options, args.game)  # before any folder is made: a bad model leaves nothing
    if args.backend == "ray":
        from experiments.cluster import require_ray

        require_ray()  # before the games: a missing Ray is said at once
    made = [folder for folder in out.parents if not folder.exists()]  # the folders above out to be made, deepest first
    try:  # before the games: a folder that cannot be made is said at once
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--out {out}: cannot make its folder ({error.strerror or error})") from None
    if args.resume is None:
        try:
            partial.start()
        except OSError as error:
            _remove_empty(made)
            raise UserError(f"--out {out}: cannot make {partial.folder} ({error.strerror or error})") from None
        for note in stale_folders(out.parent):
            if not note.startswith(f"note: {partial.folder} "):
                print(note)
        done, earlier = {}, 0.0
    else:
        print(f"resuming {out}: {sum(map(len, done.values()))} games already played")
    start = time.perf_counter()

    def keep(pairing: int, rows: list[dict[str, Any]]) -> None:
        partial.save(pairing, rows, earlier + time.perf_counter() - start)

    try:
        results = round_robin(args.agents, args.games, args.seed, args.options, args.workers,
                              progress=args.progress, backend=args.backend, address=args.address, done=done,
                              on_job=keep, earlier_seconds=earlier, game=args.game)  # fmt: skip
    except Exception:  # refused before a unit was finished: nothing to resume, nothing left behind
        if args.resume is None and not any(partial.progress.glob("*-*.json")):
            partial.discard()
            _remove_empty(made)
        raise
    publish(results, out, partial, args.overwrite)
    return results


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove the folders this evaluation made above its results folder (deepest first), where they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), EvaluateConfig)


if __name__ == "__main__":
    main()
