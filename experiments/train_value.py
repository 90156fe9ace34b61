"""Learn an evaluation of a game's positions for its search: `python -m experiments.train_value [--game NAME]`.

1. **Positions**: `--games` compiled games between two copies of `--player` (the game's teacher by default, or
   a trained policy, `ppo:<run>`: the value then learns from the games of the policy that the search taught), from
   deck seed `--seed` on (away from the evaluations' seeds), each position labelled with the first seat's result
   (`suntzu_env.core.protocol.ValueLearning`).
2. **Network**: a multilayer perceptron (`--hidden` widths, ReLU) fitted to those results by cross-entropy with
   Adam, `--epochs` passes, on `--device` (the CPU by default); the last 5% of the games are held out to report
   its fit.
3. **Run folder**: `runs/<name>/` holds `config.json`, the network (its plain arrays, `.npz`) and `summary.json`,
   made in a hidden folder beside it and renamed when whole: a killed run leaves no run folder (the next run of
   its name removes the hidden one), and the same command makes the same network again (from the same seeds, on
   as many threads).

The network plays as the search agent the game names, `<agent>runs/<name>` (printed at the end), wherever agents
are named: `experiments.evaluate`, the environments' opponents, the game's `make_agent`.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from experiments.cli import ConfigError, UserError, parse, run_cli
from experiments.config import check_device
from experiments.game import DEFAULT, game_flag, game_of, options_of, with_game
from experiments.learner import torch_device
from experiments.runs import remove_unfinished, save_atomic, write_json
from experiments.versions import library_versions
from suntzu_env.core.files import in_progress
from suntzu_env.core.policy_net import PolicyNet
from suntzu_env.core.protocol import GameRules, ValueLearning

PROG = "python -m experiments.train_value"
HELD_OUT = 0.05  # the share of the games (the last ones) whose positions only measure the fit


@dataclasses.dataclass
class ValueConfig:
    """Learn an evaluation of the game's positions for its search (see the module's docstring)."""

    game: str = DEFAULT
    """the game (a registered name)"""
    games: int = 100_000
    """compiled games between two copies of --player whose positions the network learns"""
    player: str = ""
    """the agent that plays those games against itself: a compiled baseline or a trained policy (ppo:<run>, its
    argmax); empty: the game's teacher"""
    seed: int = 1_000_000
    """the first game's deck seed (the evaluations play seeds from 0: keep them apart)"""
    hidden: tuple[int, ...] = (128, 128)
    """the hidden layers' widths"""
    epochs: int = 6
    """passes over the positions"""
    batch_size: int = 512
    """positions per gradient step"""
    learning_rate: float = 1e-3
    """Adam's step size"""
    threads: int = 2
    """threads for the games and for torch"""
    device: str = "cpu"
    """torch device of the fit: cpu (the same network from the same command anywhere), cuda, cuda:N, or auto (a
    CUDA GPU where there is one)"""
    runs_dir: Path = Path("runs")
    """where the run folder is made"""
    run_name: str | None = None
    """the run folder's name (default: `<game>-<options>-value__<seed>__<date-time>`)"""

    def check(self) -> None:
        for name, low in (("games", 20), ("epochs", 1), ("batch_size", 1), ("threads", 1)):
            if getattr(self, name) < low:
                raise ConfigError(f"{name} must be at least {low}, got {getattr(self, name)}")
        if self.seed < 0 or self.seed + self.games > 2**62:
            raise ConfigError(f"seed must be from 0 to {2**62 - self.games}, got {self.seed}")
        if not self.hidden or any(width < 1 or width > 4096 for width in self.hidden) or len(self.hidden) > 6:
            raise ConfigError(f"hidden must be 1 to 6 widths from 1 to 4096, got {self.hidden}")
        check_device(self.device)
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        if self.run_name is not None and (not self.run_name or Path(self.run_name).name != self.run_name
                                          or self.run_name.startswith(".")):  # fmt: skip
            raise ConfigError(f"run_name must be a plain folder name, got {self.run_name!r}")


def learning_of(rules: GameRules[Any]) -> ValueLearning:
    learning = rules.value_learning
    if learning is None:
        raise UserError(f"the game {rules.name} offers no learned evaluation for a search")
    return learning


def fit(
    cfg: ValueConfig,
    learning: ValueLearning,
    positions: np.ndarray,
    results: np.ndarray,
    device: torch.device | None = None,
) -> tuple[PolicyNet, dict[str, float]]:
    """The network fitted to the positions' results on `device` (the CPU by default), and its fit on the held-out
    positions."""
    device = device or torch.device("cpu")
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    n_train = int(len(positions) * (1 - HELD_OUT))
    width = learning.inputs(positions[:1]).shape[1]
    layers: list[torch.nn.Module] = []
    for n_in, n_out in zip((width, *cfg.hidden[:-1]), cfg.hidden, strict=True):
        layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(cfg.hidden[-1], 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)
    loss_of = torch.nn.BCEWithLogitsLoss()
    targets = torch.from_numpy(results.astype(np.float32))
    for _ in range(cfg.epochs):
        order = rng.permutation(n_train)
        for at in range(0, n_train, cfg.batch_size):
            rows = np.sort(order[at : at + cfg.batch_size])
            x = torch.from_numpy(learning.inputs(positions[rows])).to(device)
            loss = loss_of(model(x).squeeze(1), targets[rows].to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    weights = [m.weight.detach().cpu().numpy() for m in linears]
    net = PolicyNet(weights, [m.bias.detach().cpu().numpy() for m in linears], "ReLU")
    held = slice(n_train, len(positions))
    logits = torch.from_numpy(net.logits(learning.inputs(positions[held]))[:, 0])
    label = targets[held]
    decided = label != 0.5
    fit = {
        "held_out_positions": len(label),
        "held_out_cross_entropy": round(float(loss_of(logits, label)), 4),
        "held_out_accuracy": round(float(((logits > 0) == (label > 0.5))[decided].float().mean()), 4)
        if bool(decided.any())
        else None,
    }
    return net, fit


def run(argv: list[str] | None = None) -> dict[str, Any]:
    game = game_flag(argv) or DEFAULT
    rules = game_of(game)
    learning = learning_of(rules)
    cfg = parse(with_game(ValueConfig, game), argv, PROG)
    cfg.check()
    device = torch_device(cfg.device)  # a device torch cannot use is refused before any work
    options = options_of(cfg, rules)
    player = cfg.player or rules.teacher or ""
    try:
        rules.check_agent(player)
    except ValueError as error:
        raise ConfigError(f"player: {error}") from None
    torch.set_num_threads(cfg.threads)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = cfg.run_name or f"{rules.name}-{rules.label(options)}-value__{cfg.seed}__{stamp}"
    run_dir = cfg.runs_dir / name
    if run_dir.exists():
        raise UserError(f"{run_dir} exists already: choose another --run-name")
    print(f"positions: {cfg.games:,} games of {player} against itself: {learning.describe}", flush=True)
    notice = rules.compile_notice()
    if notice:
        print(notice, flush=True)
    started = time.perf_counter()
    try:
        positions, results = learning.positions(cfg.games, cfg.seed, options, cfg.threads, player)
    except ValueError as error:
        raise ConfigError(f"player: {error}") from None
    data_s = time.perf_counter() - started
    print(f"{len(positions):,} positions in {data_s:.0f} s; fitting {cfg.epochs} epochs on {device}", flush=True)
    net, quality = fit(cfg, learning, positions, results, device)
    fit_s = time.perf_counter() - started - data_s
    config = {k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(cfg).items()}
    summary = {
        "player": player, "positions": len(positions), "first_seat_result": round(float(results.mean()), 4), **quality,
        "positions_s": round(data_s, 1), "fit_s": round(fit_s, 1), "agent": f"{learning.agent}{run_dir}",
        "describe": learning.describe, "versions": library_versions(),
    }  # fmt: skip
    cfg.runs_dir.mkdir(parents=True, exist_ok=True)
    remove_unfinished(run_dir)
    making = in_progress(run_dir)
    try:
        making.mkdir()
        write_json(making / "config.json", config)
        save_atomic(making / learning.file, lambda f: np.savez(f, **net.state()))
        write_json(making / "summary.json", summary)
        os.replace(making, run_dir)
    except BaseException:
        shutil.rmtree(making, ignore_errors=True)
        raise
    accuracy = quality["held_out_accuracy"]
    print(f"held out: cross-entropy {quality['held_out_cross_entropy']:.3f}, accuracy {accuracy}; "
          f"{time.perf_counter() - started:.0f} s in all")  # fmt: skip
    print(f"run folder: {run_dir}\nplay it: {summary['agent']}")
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command line: a user error is one line on stderr and exit status 2."""
    return run_cli(PROG, lambda: run(argv), ValueConfig)


if __name__ == "__main__":
    main()


__all__ = ["ValueConfig", "fit", "main", "run"]
