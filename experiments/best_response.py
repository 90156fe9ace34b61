"""An agent's approximate exploitability: `python -m experiments.best_response --agent SPEC [--game NAME] [--help]`.

A best response to a frozen agent is a policy trained against that agent alone: the game's own training recipe
(`experiments.train` on its defaults: the warm start that clones the game's teacher, then PPO), but with the agent
as the opponent of every PPO game (in the other seats, the learner in alternate seats, as training seats its
opponents), for `--total-timesteps` (the budget, `BUDGET` by default). It then plays `--final-eval-games`
seat-balanced games against the agent. Its win rate there, with its Wilson 95% interval, is the agent's approximate
exploitability at that budget: the more a learner of a fixed recipe and budget wins against an agent, the more
exploitable the agent. Compare agents by best responses of the same budget and flags, which `best_response.json`
keeps; `--bc-games 0` learns from scratch, by playing the agent alone.

The run is a training run (its folder under `--runs-dir`, its checkpoints, every other flag of
`experiments.train`) whose opponent mix and evaluation opponents are the agent: killed, it continues from its newest
checkpoint with `--resume <run folder>`, and `best_response.json`, written last, gives the result (`--table` adds
it to a CSV file of them). The headline is the game's (`experiments.stats.headline`): the games won outright where a
game without a winner is undecided, the score with draws counted half where it is a draw. An agent the game's
batched env cannot play (a search that reads the game itself and cannot be asked from a game's state) is refused; a
search that can (`act_in_state`) plays there game by game, every learner step waiting on one of its decisions.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any

from experiments.cli import ConfigError, UserError, flag, parse, run_cli
from experiments.config import SMOKE_VARIABLE, TrainConfig, smoke, train_config_class, train_defaults
from experiments.game import DEFAULT, game_flag, with_game
from experiments.resume import Start, check_models, make_run_folder, prepare_resume, resume_target
from experiments.runs import read_config, read_json, remove_unfinished, write_json
from experiments.stats import headline, headline_field
from experiments.train import resume_flag, run_start
from suntzu_env.core.files import read_rows
from suntzu_env.core.files import write_row as write_file_row

PROG = "python -m experiments.best_response"
RESULT_FILE = "best_response.json"
BUDGET = 500_000  # the learner's timesteps by default
GAMES = 1000  # the final evaluation's games by default
NAMED = "best_response"  # the --exp-name that names the run after its agent: br-<agent>
DEFAULTS: dict[str, Any] = {"exp_name": NAMED, "total_timesteps": BUDGET, "eval_every": 0, "final_eval_games": GAMES}


@dataclasses.dataclass
class BestResponseConfig(TrainConfig):
    """A training run against one frozen agent and its final evaluation against that agent: the agent's approximate
    exploitability at the run's budget (`--total-timesteps`)."""

    agent: str = ""
    """the agent to exploit (an agent spec of the game): the only opponent in training and in the final evaluation"""
    table: str = ""
    """a CSV file of best responses (docs/exploitability.csv) to write this one's row into, replacing the row of the
    same game, agent, timesteps and seed (also with --resume)"""


def slug(spec: str) -> str:
    """A folder-name part for an agent spec: `ppo:runs/x/model.zip` -> `ppo-runs-x-model.zip` (at most 40)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")[:40] or "agent"


def agent_of(cfg: TrainConfig, run_dir: Path) -> str:
    """The agent a best-response run plays; UserError for a run that is no best response (other opponents or
    other evaluation opponents)."""
    weights = cfg.opponent_weights
    if len(weights) != 1 or tuple(cfg.eval_opponents) != tuple(weights) or cfg.restart_opponents:
        later = f", from its restart on {cfg.restart_opponents!r}" if cfg.restart_opponents else ""
        raise UserError(f"{run_dir} is no best-response run (its opponents are {cfg.opponents!r}{later}, its "
                        f"evaluation opponents {', '.join(cfg.eval_opponents) or 'none'}): continue it with "
                        "python -m experiments.train --resume")  # fmt: skip
    return next(iter(weights))


def config_class(game: str) -> type[BestResponseConfig]:
    """The command line's flags for `game`: the training's, with the game's training defaults and `DEFAULTS`."""
    return with_game(BestResponseConfig, game, train_defaults(game) | DEFAULTS)


def configure(argv: list[str] | None) -> Start:
    """The best-response run this command line asks for: a new one (its folder made) or one to resume."""
    resume = resume_flag(argv)
    if resume is not None:
        start = prepare_resume(argv, resume)
        agent_of(start.cfg, start.run_dir)
        return start
    game = game_flag(argv) or DEFAULT
    parse_class = config_class(game)
    default = None
    if os.environ.get(SMOKE_VARIABLE, "") not in ("", "0"):
        default = parse_class(**(smoke(game) | {"exp_name": NAMED, "eval_every": 0}))
    parsed = parse(parse_class, argv, PROG, default=default)
    agent = parsed.agent
    rules = parsed.rules
    if not agent:
        raise ConfigError(f"agent: name the agent to exploit: {rules.valid_agents()}")
    if "," in agent or "=" in agent:
        raise ConfigError(f"agent: a spec without ',' or '=' (the opponent mix reads them), got {agent!r:.80}")
    try:
        rules.check_agent(agent)
    except ValueError as error:
        raise ConfigError(f"agent: {error}") from None
    given = default or parse_class()
    for name in ("opponents", "eval_opponents", "restart_opponents"):
        if getattr(parsed, name) != getattr(given, name):
            raise ConfigError(f"{name}: a best response plays --agent alone; leave {flag(name)} out")
    plain = train_config_class(game)
    fields = {f.name: getattr(parsed, f.name) for f in dataclasses.fields(plain)}
    fields |= {
        "opponents": f"{agent}=1",
        "eval_opponents": (agent,),
        "exp_name": f"br-{slug(agent)}" if parsed.exp_name == NAMED else parsed.exp_name,
    }
    cfg = plain(**fields)
    if not cfg.final_eval_games:
        raise ConfigError("final_eval_games: a best response is measured by its final evaluation: at least 2")
    check_models(cfg, fresh=True)
    remove_unfinished(cfg.run_dir)
    return Start(cfg, make_run_folder(cfg), made_folder=True)


def result(cfg: TrainConfig, run_dir: Path, summary: dict[str, Any]) -> dict[str, Any]:
    """What `best_response.json` says: the agent, the budget and flags, the final evaluation and its headline."""
    agent = agent_of(cfg, run_dir)
    final = summary["final_eval"][agent]
    rate, low, high = headline(final, cfg.game)
    return {
        "game": cfg.game,
        "agent": agent,
        "timesteps": summary["timesteps"],
        "options": cfg.rules.option_fields(cfg.options),
        "seed": cfg.seed,
        "headline": headline_field(cfg.game),
        "win_rate": rate,
        "ci_low": low,
        "ci_high": high,
        "final_eval": final,
        "wall_s": summary["wall_s"],
    }


def report(found: dict[str, Any], run_dir: Path) -> str:
    """The result in one line."""
    final, what = found["final_eval"], "outright" if found["headline"] == "outright_win_rate" else "score"
    no_winner = "undecided" if what == "outright" else "drawn"
    return (f"best response to {found['agent']} after {found['timesteps']:,} timesteps: won {final['wins']:,}, "
            f"{no_winner} {final['draws']:,}, lost {final['losses']:,} of {final['games']:,}: "
            f"{found['win_rate']:.1%} [{found['ci_low']:.1%}, {found['ci_high']:.1%}] ({what}); "
            f"{run_dir / RESULT_FILE}")  # fmt: skip


TABLE_FIELDS = ("game", "agent", "timesteps", "seed", "games", "wins", "draws", "losses", "headline", "win_rate",
                "ci_low", "ci_high")  # fmt: skip
TABLE_KIND = "a table of best responses"


def read_table(path: str | Path) -> list[dict[str, str]]:
    """The rows of the CSV file of best responses `path` (none where it does not exist); UserError for another file."""
    try:
        return read_rows(path, TABLE_FIELDS, TABLE_KIND)
    except ValueError as error:
        raise UserError(f"--table {error}") from None


def write_row(path: str | Path, found: dict[str, Any]) -> None:
    """Write the result `found` as a row of the CSV file `path` (`TABLE_FIELDS`), replacing the row of the same game,
    agent, timesteps and seed; the file whole or not at all."""
    row = {k: found[k] for k in ("game", "agent", "timesteps", "seed", "headline", "win_rate", "ci_low", "ci_high")}
    row |= {k: found["final_eval"][k] for k in ("games", "wins", "draws", "losses")}
    try:
        write_file_row(path, TABLE_FIELDS, row, ("game", "agent", "timesteps", "seed"), TABLE_KIND)
    except ValueError as error:
        raise UserError(f"--table {error}") from None
    except OSError as error:
        raise UserError(f"--table {path}: cannot write it: {error.strerror or error}") from None


def take_flag(name: str, argv: list[str]) -> tuple[str | None, list[str]]:
    """The value of the string flag `--<name>` (`--name X` or `--name=X`) and the command line without it."""
    rest, found, option = [], None, flag(name)
    items = iter(argv)
    for item in items:
        if item == option:
            found = next(items, "")
        elif item.startswith(option + "="):
            found = item.partition("=")[2]
        else:
            rest.append(item)
    return found, rest


def finished(argv: list[str] | None) -> Path | None:
    """The run folder `--resume` names when its training is finished (its summary written), else None."""
    resume = resume_flag(argv)
    if resume is None:
        return None
    run_dir, _ = resume_target(resume)
    return run_dir if (run_dir / "summary.json").is_file() else None


def run(argv: list[str] | None = None) -> dict[str, Any]:
    table, argv = take_flag("table", list(sys.argv[1:] if argv is None else argv))
    if {"-h", "--help"} & set(argv):  # this command's help, with --resume too (not the training's)
        parse(config_class(game_flag(argv) or DEFAULT), ["--help"], PROG)
    if table == "":
        raise ConfigError("table: name a CSV file (docs/exploitability.csv)")
    if table is not None:
        read_table(table)  # another file is refused before the run starts
    done = finished(argv)
    if done is not None:  # killed after its summary: the result is written from it
        cfg, summary = read_config(done), read_json(done / "summary.json")
        run_dir = done
    else:
        start = configure(argv)
        cfg, run_dir = start.cfg, start.run_dir
        try:
            summary = run_start(start)
        except ConfigError as error:  # the batched env cannot play the agent: the user named it as --agent
            raise ConfigError(re.sub(r"^opponents:", "agent:", str(error))) from None
    found = result(cfg, run_dir, summary)
    write_json(run_dir / RESULT_FILE, found)
    if table is not None:
        write_row(table, found)
    print(report(found, run_dir))
    return found


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), BestResponseConfig)


if __name__ == "__main__":
    main()
