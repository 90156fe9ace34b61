"""The training configuration: one dataclass whose field docstrings are the `--help` of `experiments.train`.

`parse_config(TrainConfig, argv)` turns any such dataclass into command-line flags (`--total-timesteps`,
`--progress-bar/--no-progress-bar`, ...), reading each field's help text from the docstring written under it.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import textwrap
import time
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar

from agents import check_spec

T = TypeVar("T")

POOL = "pool"  # the opponent-mix name of the self-play pool


@dataclasses.dataclass
class TrainConfig:
    """MaskablePPO, warm-started by imitating the heuristic baseline, then trained against a mix of scripted
    baselines and frozen snapshots of itself.

    The defaults are the recommended run: about 20 minutes on 2 CPU cores.
    """

    # ---------------------------------------------------------------- run
    exp_name: str = "ppo_mix"
    """experiment name, part of the run folder's name"""
    seed: int = 0
    """seed of everything: torch, numpy, the environments' games and seats, opponent sampling, evaluations"""
    runs_dir: str = "runs"
    """folder that holds the run folders"""
    timestamp: str = dataclasses.field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S"))
    """start time, part of the run folder's name (default: now)"""
    resume: str | None = None
    """continue a run: its folder (its final model, else its latest checkpoint) or a checkpoint .zip; its saved
    config is used, updated
    by the flags given explicitly (e.g. a larger --total-timesteps) except its name and seed"""
    progress_bar: bool = True
    """show a progress bar"""
    torch_threads: int = 1
    """torch CPU threads; 1 is fastest for these small networks"""

    # ---------------------------------------------------------------- game
    variant: Literal["standard", "beginner"] = "standard"
    """rules variant"""
    events: bool = False
    """play with the event cards"""
    shaped_reward: float = 0.0
    """weight of the environment's potential-based shaping (the marker as the next scoring would leave it);
    it adds up to zero over a game, so it speeds learning up without changing which play is best"""

    # ---------------------------------------------------------------- opponents
    opponents: str = "random=1,greedy=4,heuristic=2,pool=1"
    """opponent mix, `spec=weight` pairs: any `agents.make_agent` spec (random, greedy, heuristic, ppo:<path>)
    or `pool`, the learner's own frozen snapshots; one opponent is drawn per episode"""
    pool_every: int = 20
    """add a snapshot of the learner to the self-play pool every this many PPO updates"""
    pool_size: int = 10
    """the pool keeps this many most recent snapshots (plus the first one)"""
    pool_deterministic: bool = False
    """pool opponents play their argmax action instead of sampling from their policy"""

    # ---------------------------------------------------------------- behaviour cloning warm start
    bc_teacher: str = "heuristic"
    """agent imitated before PPO starts (behaviour cloning of its decisions, its game results teach the value
    network); PPO then improves on it"""
    bc_games: int = 3000
    """games of demonstrations from the teacher (against random, greedy and itself, in both seats); 0: no
    warm start"""
    bc_epochs: int = 20
    """passes over the demonstrations (Adam at 1e-3, minibatches of --batch-size)"""

    # ---------------------------------------------------------------- PPO
    total_timesteps: int = 1_500_000
    """learner decisions to train for"""
    n_envs: int = 32
    """environments stepped in parallel"""
    vec_env: Literal["dummy", "subproc"] = "dummy"
    """`dummy` steps the environments in this process (fastest on 2 cores), `subproc` one process each"""
    n_steps: int = 64
    """steps per environment per rollout"""
    batch_size: int = 512
    """minibatch size"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 1e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over training"""
    gamma: float = 1.0
    """discount; the only reward is the game's result, about 70 learner decisions away at the start"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.1
    """PPO clipping parameter"""
    ent_coef: float = 0.0
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    target_kl: float | None = None
    """stop an update's epochs early past this KL divergence (none: never)"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layer sizes of the policy and value networks (separate networks)"""

    # ---------------------------------------------------------------- evaluation and saving
    eval_every: int = 250_000
    """evaluate against the baselines every this many timesteps (0: only at the end)"""
    eval_games: int = 200
    """seat-balanced games per baseline at each periodic evaluation"""
    final_eval_games: int = 1000
    """seat-balanced games per baseline at the end of the run (0: none)"""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "heuristic")
    """agent specs evaluated against"""
    workers: int = 2
    """processes playing the demonstration and evaluation games (training waits for them)"""
    checkpoint_every: int = 500_000
    """save a resumable checkpoint every this many timesteps (0: only the final model)"""

    def __post_init__(self) -> None:
        for name in (
            "total_timesteps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "pool_every",
            "pool_size",
            "workers",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("eval_every", "eval_games", "final_eval_games", "checkpoint_every", "bc_games", "bc_epochs"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)}")
        for name in ("eval_games", "final_eval_games"):
            if getattr(self, name) % 2:
                raise ValueError(
                    f"{name} must be even (each deck seed is played in both seats), got {getattr(self, name)}"
                )
        if self.rollout_size % self.batch_size:
            raise ValueError(
                f"batch_size ({self.batch_size}) must divide n_envs * n_steps ({self.rollout_size}) "
                "so that every minibatch is full"
            )
        specs = [s for s in self.opponent_weights if s != POOL] + list(self.eval_opponents)
        for spec in specs + ([self.bc_teacher] if self.bc_games else []):
            check_spec(spec)  # names an agent (loads nothing)

    # ---------------------------------------------------------------- derived values
    @property
    def env_id(self) -> str:
        return f"suntzu-{self.variant}" + ("-events" if self.events else "")

    @property
    def run_name(self) -> str:
        return f"{self.env_id}__{self.exp_name}__{self.seed}__{self.timestamp}"

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.run_name

    @property
    def rollout_size(self) -> int:
        """Transitions per PPO update."""
        return self.n_envs * self.n_steps

    @property
    def opponent_weights(self) -> dict[str, float]:
        """The opponent mix as {spec: probability}."""
        weights: dict[str, float] = {}
        for item in filter(None, (s.strip() for s in self.opponents.split(","))):
            spec, sep, weight = item.rpartition("=")
            try:
                w = float(weight)
            except ValueError:
                w = -1.0
            if not sep or not spec or w < 0:
                raise ValueError(f"opponents: expected `spec=weight` pairs with weights >= 0, got {item!r}")
            weights[spec] = weights.get(spec, 0.0) + w
        total = sum(weights.values())
        if total <= 0:
            raise ValueError(f"opponents: the weights must not all be 0, got {self.opponents!r}")
        return {spec: w / total for spec, w in weights.items() if w > 0}

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"config: unknown key {sorted(unknown)[0]!r}")
        hints = typing.get_type_hints(cls)
        return cls(**{k: tuple(v) if _origin(hints[k]) is tuple and v is not None else v for k, v in d.items()})


# -------------------------------------------------------------------- dataclass -> argparse


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass, from its source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _origin(tp: Any) -> Any:
    return typing.get_origin(tp)


def _argument(tp: Any) -> dict[str, Any]:
    """argparse keywords for a field type: bool, int, float, str, Literal, X | None, tuple[X, ...]."""
    origin, args = _origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        kw = _argument(inner)
        conv = kw.get("type", str)
        kw["type"] = lambda text, conv=conv: None if text.lower() == "none" else conv(text)
        return kw
    if tp is bool:
        return {"action": argparse.BooleanOptionalAction}
    if origin is Literal:
        return {"type": type(args[0]), "choices": args}
    if origin is tuple:
        return {"type": args[0], "nargs": "+"}
    if tp in (int, float, str):
        return {"type": tp}
    raise TypeError(f"no command-line form for field type {tp!r}")


def build_parser(cls: type, prog: str | None = None) -> argparse.ArgumentParser:
    """An argparse parser with one `--flag` per dataclass field, its docstring as help."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=inspect.getdoc(cls),
        argument_default=argparse.SUPPRESS,  # only the flags given come back: resume overrides exactly those
    )
    docs, hints = field_docs(cls), typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        help_text = docs.get(f.name, "")
        if f.default is not dataclasses.MISSING and "(default" not in help_text:
            shown = " ".join(map(str, f.default)) if isinstance(f.default, tuple) else f.default
            help_text += f" (default: {shown})"
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", help=help_text.replace("%", "%%"), **_argument(hints[f.name])
        )
    return parser


def parse_config(cls: type[T], argv: list[str] | None = None, prog: str | None = None) -> tuple[T, dict[str, Any]]:
    """The dataclass built from command-line flags, and the flags given explicitly."""
    parser = build_parser(cls, prog)
    given = {k: tuple(v) if isinstance(v, list) else v for k, v in vars(parser.parse_args(argv)).items()}
    try:
        return cls(**given), given
    except ValueError as error:
        parser.error(str(error))  # exits with the usage and the message
