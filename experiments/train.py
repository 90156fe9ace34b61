"""Train a MaskablePPO agent on a game: `python -m experiments.train [--game NAME] [--help]`.

The game is `--game` (a registered name, default `suntzu_env.core.games.DEFAULT`; `--help` with it shows its option
flags), reached only through its `suntzu_env.core.protocol.GameRules`; every game of a run, for demonstrations,
training and evaluation, is played under the run's options, which its `config.json` keeps with its game.

1. **Warm start** (`--bc-games`, 0 to skip): the policy imitates the game's teacher's decisions
   (behaviour cloning on its games) and the value network learns their results.
2. **PPO**: the learner plays `--n-envs` games at once in the game's batched environment (a compiled
   game steps the games, the scripted opponents and the observations in compiled code), in alternate seats,
   against an opponent drawn per game from a mix of scripted baselines and frozen snapshots of itself (the
   self-play pool, `--opponents`), whose networks play inside the compiled step too.
3. **Evaluation**: every `--eval-every` timesteps, and at the end with more games, the masked,
   deterministic policy plays seat-balanced games against each baseline; the results go to `eval.csv`,
   TensorBoard and `learning_curve.png`.

Everything is written to `runs/<run name>/` (see `experiments.runs`), every file whole or not at all; the
final model plays as `ppo:runs/<run name>` wherever the game's agents are named (its `make_agent`,
`experiments.evaluate`). A run killed at any moment continues with `--resume runs/<run name>`: from its
newest readable checkpoint (the warm start is the first), or from the start when it had none yet.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.ppo import (
    MODEL_FILE,
    PolicyActor,
    checkpoints,
    read_model,
)
from experiments.callbacks import Progress, RunCallback, evaluate
from experiments.checkpoint import (
    Segments,
    read_state,
    save_checkpoint,
    set_random_state,
    state_path,
)
from experiments.checkpoint import segments as checkpoint_segments
from experiments.cli import UserError, early_flag, flag, on_terminal, parse, run_cli
from experiments.config import (
    SMOKE_VARIABLE,
    TrainConfig,
    smoke,
    train_config_class,
)
from experiments.game import DEFAULT, game_flag
from experiments.learner import diverged, finite, new_model, ppo_settings, prepare_torch, start_from, torch_device
from experiments.pool import make_vec_env, restore_pool, write_pool
from experiments.resume import (
    Start,
    check_batchable,
    check_models,
    make_run_folder,
    prepare_resume,
    previous_segments,
)
from experiments.runs import (
    read_eval,
    remove_unfinished,
    save_atomic,
    write_eval,
    write_json,
)
from experiments.stats import undecided
from experiments.versions import library_versions
from experiments.warm_start import WARM_START_FILE, behaviour_cloning, warm_start

__all__ = [
    "Progress",
    "main",
    "make_vec_env",
    "new_model",
    "prepare_torch",
    "run",
    "run_start",
    "torch_device",
    "train",
]  # (bench and notebooks)

PROG = "python -m experiments.train"
# What summary.json keeps of each final evaluation: the counts, the score (a game without a winner counts half) and
# the games won outright, which lead where a game without a winner is undecided (`GameRules.no_winner`).
FINAL_FIELDS = ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "outright_win_rate",
                "outright_ci_low", "outright_ci_high")  # fmt: skip


def train(cfg: TrainConfig, run_dir: Path, checkpoint: Path | None = None) -> dict[str, Any]:
    """Train (or resume) a run in its folder (made by `make_run_folder`); returns the summary.

    The order of the writes keeps every moment resumable: the warm start is saved as `ppo_0_steps.zip` before
    PPO starts, checkpoints follow, `model.zip` is saved when training ends and `summary.json` last.
    """
    start_time = time.perf_counter()
    prepare_torch(cfg.torch_threads)
    write_json(run_dir / "config.json", cfg.to_dict())
    venv, pool = make_vec_env(cfg)
    device = torch_device(cfg.device)
    state = None
    try:
        if checkpoint is None:
            model = new_model(cfg, venv, device, tensorboard_log=str(run_dir / "tb"))
            if cfg.init_from:
                start_from(model, cfg)
            segments = Segments([], None, 0, start_time)
            if cfg.bc_games:
                bc = behaviour_cloning(model, cfg)
                write_json(run_dir / WARM_START_FILE, bc)
                rounds = bc.get("dagger", [])
                last = rounds[-1]["agreement"] if rounds else 0.0
                dagger = f", then {len(rounds)} DAgger rounds (agreement {last:.3f})" if rounds else ""
                accuracy = f", train accuracy {bc['train_accuracy']:.3f}" if "train_accuracy" in bc else ""
                print(f"behaviour cloning of {cfg.bc_teacher}: {bc['decisions']:,} decisions{accuracy}{dagger}, "
                      f"{bc['seconds']:.0f} s")  # fmt: skip
            save_checkpoint(model, run_dir, pool, segments)  # the warm start: from here on the run resumes
        else:
            model = read_model(checkpoint, cfg.rules, env=venv, device=device, tensorboard_log=str(run_dir / "tb"),
                               force_reset=False, **ppo_settings(cfg))  # fmt: skip
            state = read_state(checkpoint) if state_path(checkpoint).is_file() else None
            if state is None:  # the final model (or an earlier version's checkpoint): new games and generators
                model.set_random_seed((cfg.seed + model.num_timesteps) % 2**32)
                segments = Segments(previous_segments(run_dir), str(checkpoint), model.num_timesteps, start_time)
                if checkpoint.name != MODEL_FILE and model.num_timesteps < cfg.total_timesteps:
                    restore_pool(model, cfg, run_dir, pool)
                    model._last_obs, model._last_episode_starts = venv.reset(), np.ones(venv.num_envs, dtype=bool)
                    save_checkpoint(model, run_dir, pool, segments)  # from here on it resumes exactly
                else:
                    model._last_obs = None
            else:  # a checkpoint: exactly where the run was
                pool.restore(state)
                pool.follow(model.num_timesteps, env_too=False)  # (the env's state holds its mix)
                if "monitor_count" in state:
                    venv.episode_returns[:] = state["monitor_returns"]
                    venv.episode_lengths[:] = state["monitor_lengths"]
                    venv.episode_count = int(state["monitor_count"])
                set_random_state(state)
                write_pool(run_dir, pool, model.num_timesteps)
                segments = Segments(checkpoint_segments(state), str(checkpoint), model.num_timesteps, start_time)
        start_steps = model.num_timesteps
        eval_rows = [r for r in read_eval(run_dir) if r["timesteps"] <= start_steps and not r["final"]]
        write_eval(run_dir, eval_rows)
        callback = RunCallback(cfg, run_dir, eval_rows, pool, segments)
        ppo_start = time.perf_counter()
        if start_steps < cfg.total_timesteps:
            if not pool.snapshots:  # from the warm start: the first snapshot is taken now
                restore_pool(model, cfg, run_dir, pool)
            first = start_steps == 0 and not (run_dir / "tb" / "ppo_1").exists()  # one TensorBoard curve a run
            try:
                progress = [Progress(cfg.total_timesteps, ppo_start, on_terminal())] if cfg.progress_bar else []
                model.learn(cfg.total_timesteps - start_steps, callback=[*progress, callback], tb_log_name="ppo",
                            reset_num_timesteps=first)  # fmt: skip
            except ValueError:  # non-finite weights make non-finite action probabilities, which torch refuses
                if not finite(model):
                    raise diverged(model, run_dir) from None
                raise
            if not finite(model):
                raise diverged(model, run_dir)
        ppo_s = time.perf_counter() - ppo_start
        if checkpoint is None or checkpoint.name != MODEL_FILE:
            save_atomic(run_dir / MODEL_FILE, model.save)
    finally:
        venv.close()
    t = model.num_timesteps
    final = []
    if cfg.final_eval_games:
        final = evaluate(PolicyActor.from_policy(model.policy), cfg, cfg.final_eval_games, t, True)
        callback.record_eval(final)
        if getattr(model, "_logger", None) is not None:
            model.logger.dump(t)
    every = segments.upto(t)
    summary = {
        "timesteps": t,  # the whole run's, over every segment
        "wall_s": round(sum(segment["wall_s"] for segment in every), 1),
        "ppo_s": round(ppo_s, 1),  # this segment's PPO and its periodic evaluations
        "steps_per_s": round((t - start_steps) / ppo_s, 1) if t > start_steps else None,  # this segment's
        "resumed_from": str(checkpoint) if checkpoint else None,
        "segments": every,  # each start of the run: what it resumed from, its timesteps and seconds
        "behaviour_cloning": warm_start(run_dir),
        "final_eval": {r["opponent"]: {k: r[k] for k in FINAL_FIELDS} for r in final},
        "versions": library_versions(),
    }
    write_json(run_dir / "summary.json", summary)  # last: the run is finished
    return summary


def resume_flag(argv: list[str] | None) -> str | None:
    """The `--resume` of a command line, read before the rest (whose defaults then come from that run)."""
    return early_flag("resume", argv) or None


def configure(argv: list[str] | None) -> Start:
    """The run this command line asks for: a new one (its folder made) or one to resume."""
    resume = resume_flag(argv)
    if resume is not None:
        return prepare_resume(argv, resume)
    game = game_flag(argv) or DEFAULT
    config_class = train_config_class(game)
    default = config_class(**smoke(game)) if os.environ.get(SMOKE_VARIABLE, "") not in ("", "0") else None
    cfg = parse(config_class, argv, PROG, default=default)
    torch_device(cfg.device)  # a device torch cannot use is refused before the run folder is made
    check_models(cfg, fresh=True)
    check_batchable(cfg)
    remove_unfinished(cfg.run_dir)
    return Start(cfg, make_run_folder(cfg), made_folder=True)


def run(argv: list[str] | None = None) -> dict[str, Any]:
    return run_start(configure(argv))


def run_start(start: Start) -> dict[str, Any]:
    """Train the run `start` names (new or resumed) and report it; returns the summary."""
    cfg, run_dir = start.cfg, start.run_dir
    how = f" (resuming from {start.checkpoint})" if start.checkpoint else ""
    print(f"run folder: {run_dir}{how}", flush=True)
    notice = cfg.rules.compile_notice()
    if notice:
        print(notice, flush=True)
    try:
        summary = train(cfg, run_dir, start.checkpoint)
    except BaseException as error:
        removed = start.made_folder and not checkpoints(run_dir)  # nothing to resume: leave nothing half-made
        if removed:
            shutil.rmtree(run_dir, ignore_errors=True)
        if not isinstance(error, UserError):  # (a user error says it all in one line)
            print(f"stopped before the warm start was saved: {run_dir} removed" if removed else
                  f"stopped; continue with: {PROG} {flag('resume')} {run_dir}", file=sys.stderr)  # fmt: skip
        raise
    steps = f", PPO at {summary['steps_per_s']:,.0f} steps/s (periodic evaluations included)" \
        if summary["steps_per_s"] else ""  # fmt: skip
    print(f"{summary['timesteps']:,} timesteps; {summary['wall_s']:.0f} s in all{steps}")
    for spec, r in summary["final_eval"].items():
        if undecided(cfg.game):  # the games won outright lead; an undecided game is no half of a win
            print(f"  vs {spec:<10} won {r['wins']:,}, undecided {r['draws']:,}, lost {r['losses']:,} of "
                  f"{r['games']:,}: {r['outright_win_rate']:.3f} [{r['outright_ci_low']:.3f}, "
                  f"{r['outright_ci_high']:.3f}] outright (score {r['win_rate']:.3f}, undecided = ½)")  # fmt: skip
        else:
            print(f"  vs {spec:<10} win rate {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}], "
                  f"{r['games']} games")  # fmt: skip
    spec = f"ppo:{run_dir}"
    try:
        cfg.rules.check_agent(spec)
        print(f"play it: {spec}")
    except ValueError:  # a game whose agents do not play trained policies
        pass
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), TrainConfig)


if __name__ == "__main__":
    main()
