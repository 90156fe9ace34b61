"""The run folder: made whole for a new run, and read back, checked and tidied to resume one (`--resume`).

A resume starts from the newest readable checkpoint (or the final model, to train on past it), keeps what a
run keeps (`experiments.config.fixed_on_resume`: its name, seed, game and options, network and warm start),
moves unreadable checkpoints aside and deletes the files of an abandoned future.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

from agents.ppo import (
    CHECKPOINT_DIR,
    MODEL_FILE,
    IncompatibleModelError,
    UnsafeFileError,
    checkpoint_steps,
    checkpoints,
    describe_error,
    read_model,
)
from experiments.checkpoint import (
    STATE_SUFFIX,
    read_state,
    state_path,
)
from experiments.cli import UserError, flag, parse
from experiments.config import (
    POOL,
    TrainConfig,
    fixed_on_resume,
)
from experiments.game import game_flag
from experiments.learner import initial_model, torch_device
from experiments.pool import check_pool, make_vec_env
from experiments.runs import read_config, remove_temporaries, write_json
from experiments.versions import library_versions
from suntzu_env.core.agent import searches_states
from suntzu_env.core.files import in_progress
from suntzu_env.core.protocol import GameRules

PROG = "python -m experiments.train"


@dataclasses.dataclass
class Start:
    """Where a run starts: its config and folder, the checkpoint it continues (None: from scratch), and
    whether this command made the folder (then a failure before the warm start is saved removes it)."""

    cfg: TrainConfig
    run_dir: Path
    checkpoint: Path | None = None
    made_folder: bool = False


def make_run_folder(cfg: TrainConfig) -> Path:
    """A new run folder with its `config.json` and `versions.json`: made aside, then renamed into place whole."""
    run_dir = cfg.run_dir
    if run_dir.exists():
        raise UserError(f"{run_dir} exists already: continue it with {flag('resume')} {run_dir}, or start another "
                        f"run with a different {flag('exp_name')} or {flag('timestamp')}")  # fmt: skip
    staging = in_progress(run_dir)
    try:
        staging.mkdir(parents=True)
        write_json(staging / "config.json", cfg.to_dict())
        write_json(staging / "versions.json", library_versions())
        staging.rename(run_dir)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"cannot make the run folder {run_dir}: {error.strerror or error}") from None
    return run_dir


def clear_run(run_dir: Path) -> None:
    """Everything of a run but its config and versions: it starts over."""
    for path in run_dir.iterdir():
        if path.name not in ("config.json", "versions.json"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def resume_target(resume: str) -> tuple[Path, Path | None]:
    """The run folder `--resume` names, and the checkpoint it names (None: the newest)."""
    path = Path(resume)
    if not path.exists() and path.suffix != ".zip" and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if path.is_dir():
        run_dir, upto = path, None
    elif path.is_file():
        run_dir, upto = (path.parent.parent if path.parent.name == CHECKPOINT_DIR else path.parent), path
        if not (upto.name == MODEL_FILE or (upto.parent.name == CHECKPOINT_DIR and upto.stem.startswith("ppo_"))):
            raise UserError(f"{flag('resume')} {resume}: expected a run folder, its {MODEL_FILE} or one of its "
                            f"{CHECKPOINT_DIR}/ppo_<timesteps>_steps.zip")  # fmt: skip
    else:
        raise UserError(f"{flag('resume')} {resume}: no such run folder or checkpoint")
    if not (run_dir / "config.json").is_file():
        raise UserError(f"{flag('resume')} {resume}: {run_dir} is not a run folder (it has no config.json)")
    return run_dir, upto


def start_files(run_dir: Path, upto: Path | None) -> list[Path]:
    """The files a resume may start from, the one to try first first (not past `upto`)."""
    final = [run_dir / MODEL_FILE] if (run_dir / MODEL_FILE).is_file() else []
    saved = list(reversed(checkpoints(run_dir)))
    if upto is None or upto.name == MODEL_FILE:
        return final + saved
    return [p for p in saved if checkpoint_steps(p) <= checkpoint_steps(upto)]


UNREADABLE = ".unreadable"  # appended to the name of a checkpoint file a resume could not read, moved aside


def readable_start(
    run_dir: Path, upto: Path | None, rules: GameRules[Any]
) -> tuple[tuple[Path, int] | None, list[tuple[Path, str]]]:
    """The newest readable file to resume from and its timesteps (None: none), and the unreadable ones newer
    than it, each with what is wrong (a checkpoint is read with its state file)."""
    unreadable = []
    for path in start_files(run_dir, upto):
        file = path
        try:
            model = read_model(path, rules)  # as data, as a `ppo:` agent is read
            if path.name != MODEL_FILE and state_path(path).is_file():
                file = state_path(path)
                read_state(path)
        except IncompatibleModelError as error:
            raise UserError(f"{flag('resume')}: {error}") from None
        except UnsafeFileError as error:  # made to run code, not damaged: refused, never moved aside
            raise refused(file, error) from None
        except Exception as error:  # a damaged zip or state file fails in many ways
            unreadable.append((path, describe_error(error)))
            continue
        return (path, model.num_timesteps), unreadable
    return None, unreadable


def refused(file: Path, error: Exception) -> UserError:
    """The one line that refuses a resume for a file of the run folder that holds more than data."""
    return UserError(f"{flag('resume')}: {file} holds more than data, nothing in it was run and nothing "
                     f"changed ({error})")  # fmt: skip


def prepare_resume(argv: list[str] | None, resume: str) -> Start:
    """The run to resume, its config (the saved one updated by the flags given) and its starting checkpoint.

    Unreadable checkpoints newer than the one it starts from are moved aside (`<name>.unreadable`), never
    deleted; with none readable it refuses and changes nothing. Files of an abandoned future (past a checkpoint
    named by `--resume`) are deleted; a run stopped before its warm start was saved starts over.
    """
    run_dir, upto = resume_target(resume)
    saved = read_config(run_dir, game_flag(argv))
    cfg = parse(type(saved), argv, PROG, default=dataclasses.replace(saved, resume=resume))
    kept = fixed_on_resume(saved.game)
    fixed = [name for name in kept if getattr(cfg, name) != getattr(saved, name)]
    if fixed:
        name = fixed[0]
        raise UserError(f"a resumed run keeps its {flag(name)} ({_show(getattr(saved, name))}), got "
                        f"{_show(getattr(cfg, name))}; these stay as the run began: "
                        f"{', '.join(flag(n) for n in kept)}")  # fmt: skip
    torch_device(cfg.device)  # refused before anything in the folder changes
    summary = run_dir / "summary.json"
    found, unreadable = readable_start(run_dir, upto, cfg.rules)
    if found is None and unreadable:
        names = "; ".join(f"{p.relative_to(run_dir)} ({why})" for p, why in unreadable)
        raise UserError(f"{flag('resume')} {resume}: no readable checkpoint to resume from, nothing changed "
                        f"(unreadable: {names})")  # fmt: skip
    saved_checkpoints = checkpoints(run_dir)
    if found is not None and found[0].name == MODEL_FILE and not summary.is_file() and saved_checkpoints:
        # killed between its final model and its summary: the newest readable checkpoint holds the games, generators
        # and segments so far; the final model is written again from it, the same, and the summary counts every segment
        again, newer_unreadable = readable_start(run_dir, saved_checkpoints[-1], cfg.rules)
        if again is not None:
            found, unreadable = again, unreadable + newer_unreadable
    try:
        check_pool(run_dir)
    except UnsafeFileError as error:
        raise UserError(f"{flag('resume')}: {error}; nothing changed") from None
    check_models(cfg, fresh=found is None)  # every check before the first change to the folder
    if found is not None and state_path(found[0]).is_file():
        check_games(cfg, found[0])
    if found is not None and found[0].name == MODEL_FILE and cfg.total_timesteps <= found[1] and summary.is_file():
        raise UserError(f"{run_dir} is finished at {found[1]:,} timesteps: give a larger {flag('total_timesteps')} "
                        "to train on")  # fmt: skip
    removed = remove_temporaries(run_dir)
    for state in (run_dir / CHECKPOINT_DIR).glob(f"ppo_*_steps{STATE_SUFFIX}"):  # a checkpoint's write cut short
        if not state.with_name(state.name.replace(STATE_SUFFIX, ".zip")).is_file():
            state.unlink()
            removed += 1
    if removed:
        print(f"removed {removed} half-written files")
    if found is None:
        print(f"{run_dir} was stopped before its warm start was saved: the run starts over from its saved config")
        clear_run(run_dir)
        return Start(cfg, run_dir)
    path, t = found
    for bad, why in unreadable:
        aside = [bad.with_name(bad.name + UNREADABLE)]
        if bad.name != MODEL_FILE and state_path(bad).is_file():
            aside.append(state_path(bad).with_name(state_path(bad).name + UNREADABLE))
            state_path(bad).replace(aside[-1])
        bad.replace(aside[0])
        print(f"{bad.relative_to(run_dir)} is unreadable ({why}): moved aside as {aside[0].relative_to(run_dir)}")
    if unreadable:
        print(f"resuming from {path.relative_to(run_dir)}, the newest readable checkpoint ({t:,} timesteps)")
    stale = [p for p in checkpoints(run_dir) if checkpoint_steps(p) > t]  # an abandoned future
    stale += [state_path(p) for p in stale if state_path(p).is_file()]
    if path.name != MODEL_FILE:
        stale += [p for p in (run_dir / MODEL_FILE, summary) if p.is_file()]
    elif cfg.total_timesteps > t:  # training on past the final model: it becomes a checkpoint again
        (run_dir / CHECKPOINT_DIR).mkdir(exist_ok=True)
        path = path.replace(run_dir / CHECKPOINT_DIR / f"ppo_{t}_steps.zip")
        state_path(path).unlink(missing_ok=True)  # (its earlier state, if any, is not this model's)
    for p in stale:
        p.unlink()
    if stale:
        names = ", ".join(str(p.relative_to(run_dir)) for p in stale)
        print(f"removed {names}: the run goes on from {t:,} timesteps")
    _compare_versions(run_dir)
    return Start(cfg, run_dir, path)


def _show(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _compare_versions(run_dir: Path) -> None:
    """Say so when the libraries differ from those the run began with (its results then differ too)."""
    try:
        then = json.loads((run_dir / "versions.json").read_text())
    except (OSError, ValueError):
        return
    now = library_versions()
    changed = [f"{k} {then.get(k)} -> {v}" for k, v in now.items() if then.get(k) != v]
    if changed:
        print(f"note: library versions differ from the run's start ({', '.join(changed)})")


def check_games(cfg: TrainConfig, checkpoint: Path) -> None:
    """Refuse, in one line naming its state file, a checkpoint whose saved games and opponent slots the run's
    environment does not take (`set_state`: a value out of range, a game the engine cannot be in, another number of
    envs), before anything changes: restored into an environment made for the check."""
    venv, pool = make_vec_env(cfg)
    try:
        pool.restore(read_state(checkpoint))
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise UserError(f"{flag('resume')}: {state_path(checkpoint)}: its saved games cannot be continued by this "
                        f"run, nothing changed ({error})") from None  # fmt: skip
    finally:
        venv.close()


def check_models(cfg: TrainConfig, fresh: bool) -> None:
    """Load every trained agent the run names once, before anything starts: a bad path is refused up front."""
    named = [(field, spec) for field, spec in cfg.mix_specs if spec != POOL]
    named += [("eval_opponents", s) for s in cfg.eval_opponents]
    named += [("bc_teacher", cfg.bc_teacher)] if fresh and cfg.bc_games else []
    named += [("dagger_teacher", cfg.dagger_teacher)] if fresh and cfg.bc_games and cfg.dagger_teacher else []
    if fresh and cfg.init_from:
        initial_model(cfg)
    for field, spec in named:
        if cfg.rules.trained_model(spec) is not None:
            try:
                cfg.rules.make_agent(spec)
            except cfg.rules.user_errors as error:
                raise UserError(f"{flag(field)}: {error}") from None


def check_batchable(cfg: TrainConfig) -> None:
    """An opponent of the mix that searches the game itself (it reads the game, `observe_game`) answers in the batched
    env only where it can be asked from a game's state (`act_in_state`); another is refused
    before the run folder is made. The scripted agents and trained policies (which `check_models` has loaded) play
    there; a spec the game does not know is left to the batched env, which names what it plays."""
    for field, spec in cfg.mix_specs:
        if spec == POOL or spec in cfg.rules.scripted_agents or cfg.rules.trained_model(spec) is not None:
            continue
        try:
            agent = cfg.rules.make_agent(spec)
        except cfg.rules.user_errors:
            continue
        if callable(getattr(agent, "observe_game", None)) and not searches_states(agent):
            raise UserError(f"{flag(field)}: {spec!r} searches the game itself and cannot play in the batched "
                            "environment; evaluate it with experiments.evaluate")  # fmt: skip


def previous_segments(run_dir: Path) -> list[dict[str, Any]]:
    """The segments of a finished run's `summary.json` (training on past its final model); [] if unreadable."""
    try:
        value = json.loads((run_dir / "summary.json").read_text()).get("segments")
    except (OSError, ValueError, AttributeError, RecursionError):
        return []
    return value if isinstance(value, list) and all(isinstance(s, dict) for s in value) else []
