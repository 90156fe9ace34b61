"""The training configuration: one dataclass whose field docstrings are the `--help` of `experiments.train`.

A config is of one game (`game`, default `suntzu_env.core.games.DEFAULT`): its class is `TrainConfig` with the
game's option flags as fields and the game's training defaults (its opponent mix, evaluation opponents and
warm-start teacher); `TrainConfig(...)` makes one of the class of its `game` (`train_config_class`).

Every value is checked here, when the config is made (from flags, from Python, or from a run's saved
`config.json`): a value outside what is allowed raises `ConfigError`, naming the field and what it allows.
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
import types
import typing
from pathlib import Path
from typing import Any, Literal

from experiments.cli import ConfigError
from experiments.game import (
    DEFAULT,
    GameConfig,
    GameLike,
    game_name,
    game_of,
    option_names,
    options_of,
    saved_game,
    seats_of,
    with_game,
)
from suntzu_env.core.policy_net import MAX_CELL_LAYERS, MAX_CELL_WIDTH
from suntzu_env.core.protocol import GameOptions, GameRules

POOL = "pool"  # the opponent-mix name of the self-play pool
SEED_LIMIT = 2**31  # seeds are in [0, 2**31): numpy's legacy seeding, which SB3 uses, takes 32 bits
DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(:[0-9]+)?")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # exp_name and timestamp: parts of a folder name
# A resumed run keeps these and its game's options: they name its folder, or shaped what is already trained (the
# game, the network, the warm start). Every other value may change when resuming (a larger --total-timesteps, say).
FIXED_ON_RESUME = ("exp_name", "seed", "runs_dir", "timestamp", "game", "network", "net_arch", "cell_width",
                   "cell_layers", "bc_teacher", "bc_games", "bc_epochs", "bc_batch_size", "bc_shares",
                   "dagger_rounds", "dagger_games", "dagger_teacher", "init_from")  # fmt: skip
NETWORKS = ("mlp", "cells")  # --network
BC_GAMES = 3000  # the warm start's games by default, for a game with a teacher
# what a game's `training_defaults` may not set: a run's own, or what the game declares elsewhere
NOT_GAME_DEFAULTS = ("game", "resume", "timestamp", "opponents", "eval_opponents", "bc_teacher")


def check_device(device: str) -> None:
    """A `--device` spelled as torch names one (whether torch can use it is `learner.torch_device`'s question)."""
    if not DEVICE_PATTERN.fullmatch(device):
        raise ConfigError(f"device must be auto, cpu, cuda or cuda:N, got {device!r}")


def fixed_on_resume(game: GameLike) -> tuple[str, ...]:
    """What a resumed run of `game` keeps: `FIXED_ON_RESUME` and the game's option fields."""
    return (*FIXED_ON_RESUME, *option_names(game))


@dataclasses.dataclass
class TrainConfig(GameConfig):
    """MaskablePPO, warm-started by imitating the game's teacher (the strongest scripted agent), then trained
    against a mix of scripted agents and frozen snapshots of itself.

    The defaults are the recommended run: 7 to 10 minutes on 2 CPU cores, as busy as the machine is. With
    SUNTZU_TRAIN_SMOKE=1 in the environment the defaults become a budget of seconds that runs every stage (what CI
    runs).
    """

    # ---------------------------------------------------------------- run
    exp_name: str = "ppo_mix"
    """experiment name, part of the run folder's name (letters, digits, '.', '_', '-')"""
    seed: int = 0
    """seed of everything (torch, numpy, games, seats, opponents, evaluations), in [0, 2**31)"""
    runs_dir: str = "runs"
    """folder that holds the run folders"""
    timestamp: str = dataclasses.field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S"))
    """start time, part of the run folder's name"""
    resume: str | None = None
    """continue a run (its folder or a checkpoint) from its newest readable checkpoint; flags given update its config"""
    progress_bar: bool = True
    """show progress: bars on a terminal, else (nohup, a cluster's log) a plain line every minute"""
    torch_threads: int = 2
    """torch CPU threads (PPO's updates and the warm start; the environment waits meanwhile)"""
    device: str = "auto"
    """torch device of PPO and the warm start: auto (a CUDA GPU where there is one, else the CPU), cpu, cuda, cuda:N"""

    # ---------------------------------------------------------------- game (its options follow the other flags)
    game: str = DEFAULT
    """the game (a registered name, or <module>:<attribute>)"""
    shaped_reward: float = 0.0
    """weight (>= 0) of the environment's potential-based shaping, which sums to zero over a game"""

    # ---------------------------------------------------------------- opponents
    opponents: str = ""
    """opponent mix, spec=weight pairs: {agents}, or pool (its snapshots)"""
    pool_every: int = 20
    """add a snapshot of the learner to the self-play pool every this many PPO updates"""
    pool_size: int = 10
    """the pool keeps this many most recent snapshots, plus the first one (in memory and in pool/)"""
    pool_deterministic: bool = False
    """pool opponents play their argmax action instead of sampling from their policy"""

    # ---------------------------------------------------------------- behaviour cloning warm start
    init_from: str = ""
    """a trained model of this game (its run folder or .zip) whose networks the run starts from, the same network
    as --network's; the warm start and PPO go on from them (the next round of expert iteration); empty: new
    networks"""
    bc_teacher: str = ""
    """agent imitated before PPO starts: its decisions teach the policy, its results the value network"""
    bc_games: int = 0
    """games of demonstrations by the teacher (against the game's scripted agents and itself); 0: no warm start"""
    bc_epochs: int = 20
    """passes over the demonstrations (Adam at 1e-3, minibatches of --batch-size); 0: they only join the DAgger
    rounds' passes (after --init-from, say)"""
    bc_batch_size: int | None = None
    """minibatch size of the cloning and DAgger rounds (None: --batch-size)"""
    bc_shares: bool = True
    """learn the teacher's shares of the actions where it gives them (a search's visits at its root), not only the
    move it played; the other teachers teach their moves"""
    dagger_rounds: int = 0
    """rounds after the cloning in which the policy plays --dagger-games games and learns the teacher's answers
    in the positions it reached (one pass over them and as many earlier decisions, Adam at 5e-4); 0: none (nor
    with --bc-games 0, no warm start)"""
    dagger_games: int = 60
    """games the policy plays in each --dagger-rounds round"""
    dagger_teacher: str = ""
    """agent that labels the positions of the --dagger-rounds rounds (empty: --bc-teacher): a costly teacher, a
    search say, may answer only there, where the policy's own positions are, after a cheap one's demonstrations"""

    # ---------------------------------------------------------------- PPO
    total_timesteps: int = 2_000_000
    """learner decisions to train for"""
    n_envs: int = 128
    """games played at once in the batched environment"""
    n_steps: int = 128
    """steps per environment per rollout"""
    batch_size: int = 2048
    """minibatch size (>= 2); it divides n-envs * n-steps"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate, in (0, 1]"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over training"""
    restart_at: float = 0.0
    """with --anneal-lr, the share of the run, in [0, 1), at which the learning rate, decayed to 0 by then, starts
    again at --restart-learning-rate and decays to 0 by the end (a warm restart); 0: one decay over the whole run"""
    restart_learning_rate: float = 1e-3
    """the learning rate at --restart-at, in (0, 1]"""
    restart_optimizer: bool = True
    """at --restart-at, the optimizer starts anew too (Adam forgets its moments), as in a second run from
    --init-from"""
    restart_opponents: str = ""
    """the opponent mix from --restart-at on (spec=weight pairs, as --opponents; the pool's snapshots leave the
    games with it unless it names the pool); empty: --opponents throughout"""
    gamma: float = 1.0
    """discount, in [0, 1]; the only reward is the game's result, about 70 decisions away at the start"""
    gae_lambda: float = 0.95
    """GAE lambda, in [0, 1]"""
    clip_range: float = 0.1
    """PPO clipping parameter, in (0, 1]"""
    ent_coef: float = 0.0
    """entropy bonus coefficient (>= 0)"""
    vf_coef: float = 0.5
    """value loss coefficient (>= 0)"""
    max_grad_norm: float = 0.5
    """gradient norm clip (> 0)"""
    target_kl: float | None = None
    """stop an update's epochs early past this KL divergence (> 0; None: never)"""
    network: str = "mlp"
    """the policy's network: mlp (hidden layers --net-arch) or cells (weights shared over the game's board cells,
    --cell-width wide, --cell-layers deep; for a game that declares its board)"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layer sizes of the policy and of the value network (separate networks), one or more"""
    cell_width: int = 64
    """width of each cell's vector in a cells network"""
    cell_layers: int = 4
    """layers of a cells network (each mixes a cell with its neighbours)"""

    # ---------------------------------------------------------------- evaluation and saving
    eval_every: int = 500_000
    """evaluate against the baselines every this many timesteps (0: only at the end)"""
    eval_games: int = 200
    """seat-balanced games per baseline at each periodic evaluation (even, >= 2; with n > 2 seats, rounded up to a
    multiple of n: the policy in each seat, copies of the baseline in the others)"""
    final_eval_games: int = 1000
    """seat-balanced games per baseline at the end of the run (even; 0: none; with n > 2 seats, rounded up to a
    multiple of n)"""
    eval_opponents: tuple[str, ...] = ()
    """agent specs evaluated against"""
    workers: int = 2
    """processes playing the demonstration and evaluation games (training waits for them)"""
    checkpoint_every: int | None = None
    """save a checkpoint every this many timesteps (0: none but the warm start and the final model; None: a
    quarter of --total-timesteps, in whole rollouts); a resume continues from one exactly"""

    @classmethod
    def for_game(cls, game: GameLike) -> type[TrainConfig]:
        return train_config_class(game, cls)

    def __post_init__(self) -> None:
        self._check_types()
        self._check_values()

    # ---------------------------------------------------------------- checks
    def _check_types(self) -> None:
        """Every field holds a value of its declared type (flags are typed already; Python and JSON may not be)."""
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value, tp = getattr(self, f.name), hints[f.name]
            if not _is_instance(value, tp):
                raise ConfigError(f"{f.name} must be {_describe(tp)}, got {value!r}")

    def _check_values(self) -> None:
        for name in ("exp_name", "timestamp"):
            if not NAME_PATTERN.fullmatch(getattr(self, name)):
                raise ConfigError(f"{name} must be letters, digits, '.', '_' or '-' (a folder name), "
                                  f"got {getattr(self, name)!r}")  # fmt: skip
        if not 0 <= self.seed < SEED_LIMIT:
            raise ConfigError(f"seed must be in [0, 2**31), got {self.seed}")
        if not self.runs_dir:
            raise ConfigError("runs_dir must name a folder, got ''")
        check_device(self.device)
        if self.resume == "":
            raise ConfigError("resume must name a run folder or a checkpoint, got ''")
        for name in ("torch_threads", "pool_every", "pool_size", "total_timesteps", "n_envs", "n_steps", "n_epochs",
                     "workers", "dagger_games", "cell_width", "cell_layers"):  # fmt: skip
            _at_least(self, name, 1)
        for name in ("bc_games", "bc_epochs", "eval_every", "dagger_rounds"):
            _at_least(self, name, 0)
        if self.checkpoint_every is not None:
            _at_least(self, "checkpoint_every", 0)
        if self.bc_batch_size is not None:
            _at_least(self, "bc_batch_size", 1)
        _at_least(self, "batch_size", 2)  # PPO normalises advantages over each minibatch
        if self.rollout_size % self.batch_size:
            raise ConfigError(f"batch_size ({self.batch_size}) must divide n_envs * n_steps ({self.rollout_size}) "
                              "so that every minibatch is full")  # fmt: skip
        _in_range(self, "learning_rate", 0.0, 1.0, low_open=True)
        _in_range(self, "restart_learning_rate", 0.0, 1.0, low_open=True)
        _in_range(self, "restart_at", 0.0, 1.0, high_open=True)  # a share of the run; 0: no restart
        _in_range(self, "gamma", 0.0, 1.0)
        _in_range(self, "gae_lambda", 0.0, 1.0)
        _in_range(self, "clip_range", 0.0, 1.0, low_open=True)
        for name in ("shaped_reward", "ent_coef", "vf_coef"):
            _in_range(self, name, 0.0, math.inf)
        _in_range(self, "max_grad_norm", 0.0, math.inf, low_open=True)
        if self.target_kl is not None:
            _in_range(self, "target_kl", 0.0, math.inf, low_open=True)
        if not self.net_arch or min(self.net_arch) < 1:
            got = " ".join(map(str, self.net_arch)) or "none"
            raise ConfigError(f"net_arch must be one or more layer sizes, each at least 1, got {got}")
        rules = game_of(self.game)
        if self.network not in NETWORKS:
            raise ConfigError(f"network must be one of {', '.join(NETWORKS)}, got {self.network!r}")
        if self.network == "cells" and rules.cell_layout is None:
            raise ConfigError(f"network: {rules.name} declares no board of cells; use mlp")
        for name, high in (("cell_width", MAX_CELL_WIDTH), ("cell_layers", MAX_CELL_LAYERS)):
            if getattr(self, name) > high:
                raise ConfigError(f"{name} must be at most {high}, got {getattr(self, name)}")
        if self.seats == 2 and (self.eval_games < 2 or self.eval_games % 2):
            raise ConfigError(f"eval_games must be an even number >= 2 (each deck seed is played in both seats; "
                              f"no periodic evaluations: --eval-every 0), got {self.eval_games}")  # fmt: skip
        if self.seats == 2 and (self.final_eval_games < 0 or self.final_eval_games % 2):
            raise ConfigError("final_eval_games must be 0 or an even number (each deck seed is played in both "
                              f"seats), got {self.final_eval_games}")  # fmt: skip
        _at_least(self, "eval_games", 1)
        _at_least(self, "final_eval_games", 0)
        if self.restart_opponents and not (self.restart_at and self.anneal_lr):
            raise ConfigError(
                "restart_opponents: the mix changes at --restart-at, which is 0 (no restart)"
                if self.anneal_lr
                else "restart_opponents: no restart without --anneal-lr"
            )
        for name, spec in self.mix_specs:  # (which checks the pairs)
            if spec != POOL:
                _check_agent(rules, spec, name)
            elif not rules.self_play_pool:
                raise ConfigError(f"{name}: {rules.name}'s batched env plays only its scripted agents "
                                  f"({', '.join(rules.scripted_agents)}), not the {POOL} (self-play)")  # fmt: skip
        for spec in self.eval_opponents:
            _check_agent(rules, spec, "eval_opponents")
        if self.bc_games:
            _check_agent(rules, self.bc_teacher, "bc_teacher")
            if self.dagger_teacher:
                _check_agent(rules, self.dagger_teacher, "dagger_teacher")
        self.options  # noqa: B018  # checks the game's options

    # ---------------------------------------------------------------- derived values
    @property
    def labeller(self) -> str:
        """The agent that labels the DAgger rounds' positions: --dagger-teacher, else --bc-teacher."""
        return self.dagger_teacher or self.bc_teacher

    @property
    def rules(self) -> GameRules[Any]:
        """The game played."""
        return game_of(self.game)

    @property
    def options(self) -> GameOptions:
        """The game's options (its option fields): what every game of the run is played under."""
        return options_of(self, self.game)

    @property
    def seats(self) -> int:
        """How many seats the game has under the run's options."""
        return len(seats_of(self.game, self.options))

    def eval_games_played(self, games: int) -> int:
        """The games of an evaluation asked to play `games`: rounded up to a whole number of deck seeds, each
        played with the policy in every seat."""
        return -(-games // self.seats) * self.seats

    @property
    def env_id(self) -> str:
        """The game and its options, as the run's name begins: `<game>-<options label>`."""
        return f"{self.rules.name}-{self.rules.label(self.options)}"

    @property
    def run_name(self) -> str:
        return f"{self.env_id}__{self.exp_name}__{self.seed}__{self.timestamp}"

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.run_name

    @property
    def checkpoint_interval(self) -> int:
        """Timesteps between checkpoints (0: none): `checkpoint_every`, or a quarter of the run in whole rollouts."""
        if self.checkpoint_every is not None:
            return self.checkpoint_every
        return max(1, -(-self.total_timesteps // (4 * self.rollout_size))) * self.rollout_size

    @property
    def rollout_size(self) -> int:
        """Transitions per PPO update."""
        return self.n_envs * self.n_steps

    @property
    def opponent_weights(self) -> dict[str, float]:
        """The opponent mix as {spec: probability}."""
        return _mix("opponents", self.opponents)

    @property
    def later_opponent_weights(self) -> dict[str, float]:
        """The opponent mix from the restart on: `--restart-opponents`, else `--opponents`."""
        return _mix("restart_opponents", self.restart_opponents) if self.restart_opponents else self.opponent_weights

    @property
    def mix_specs(self) -> list[tuple[str, str]]:
        """(field, spec) of every opponent the run's mixes name, the pool included: `--opponents`', then
        `--restart-opponents`' where it is given."""
        named = [("opponents", spec) for spec in self.opponent_weights]
        if self.restart_opponents:
            named += [("restart_opponents", spec) for spec in self.later_opponent_weights]
        return named

    @property
    def restart_step(self) -> int | None:
        """The timestep from which the run is restarted (its learning rate, optimizer and mix); None: no restart."""
        if not (self.restart_at and self.anneal_lr):
            return None
        return math.ceil(self.restart_at * self.total_timesteps)

    def restarted(self, timesteps: int) -> bool:
        """Whether a rollout starting at `timesteps` comes after the restart."""
        step = self.restart_step
        return step is not None and timesteps >= step

    def opponent_weights_at(self, timesteps: int) -> dict[str, float]:
        """The opponent mix of a rollout starting at `timesteps`."""
        return self.later_opponent_weights if self.restarted(timesteps) else self.opponent_weights

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], given: str | None = None) -> TrainConfig:
        """The config of a `to_dict` (a run's `config.json`, whose game is the default where it names none); lists
        stand for tuples. A game named as `module:attribute` is imported only when `given` names it too."""
        if not isinstance(d, dict):
            raise ConfigError(f"config: expected a JSON object, got {type(d).__name__}")
        if not isinstance(d.get("game", DEFAULT), str):
            raise ConfigError(f"game must be a string, got {d['game']!r}")
        config_class = train_config_class(saved_game(d.get("game"), "the run", given))
        names = {f.name for f in dataclasses.fields(config_class)}
        unknown = set(d) - names
        if unknown:
            raise ConfigError(f"config: unknown key {sorted(unknown)[0]!r}")
        return config_class(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})

    def changed(self, other: TrainConfig) -> list[str]:
        """Names of the fields whose values differ from `other`'s."""
        return [f.name for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(other, f.name)]


# The default run shrunk to seconds (SUNTZU_TRAIN_SMOKE=1): every stage runs, on two environments and a tiny
# network: behaviour cloning, the self-play pool, periodic and final evaluations, checkpoints. Its folders go to
# runs/smoke/, not runs/, so that `experiments.runs.latest_run` (the notebooks' "latest run") never picks one.
# Its DAgger rounds are labelled by the demonstrations' teacher: a costly labeller (a search) answering every
# decision of the tiny network's long games would take minutes.
SMOKE_RUNS_DIR = "runs/smoke"
SMOKE: dict[str, Any] = {
    "exp_name": "smoke", "runs_dir": SMOKE_RUNS_DIR,
    "total_timesteps": 512, "n_envs": 2, "n_steps": 64, "batch_size": 64, "n_epochs": 1,
    "net_arch": (32, 32), "cell_width": 8, "cell_layers": 1, "bc_games": 6, "bc_epochs": 1, "dagger_games": 2,
    "dagger_teacher": "",
    "eval_every": 256, "eval_games": 2, "final_eval_games": 4,
    "checkpoint_every": 256, "pool_every": 1, "workers": 1,
}  # fmt: skip
SMOKE_VARIABLE = "SUNTZU_TRAIN_SMOKE"


def _at_least(cfg: TrainConfig, name: str, low: int) -> None:
    if getattr(cfg, name) < low:
        raise ConfigError(f"{name} must be at least {low}, got {getattr(cfg, name)}")


def _mix(name: str, text: str) -> dict[str, float]:
    """An opponent mix's `spec=weight` pairs as {spec: probability} (ConfigError naming the flag `name`)."""
    weights: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        spec, sep, weight = item.rpartition("=")
        try:
            w = float(weight)
        except ValueError:
            w = -1.0
        if not sep or not spec or not 0 <= w < math.inf:
            raise ConfigError(f"{name}: expected `spec=weight` pairs with weights >= 0, got {item!r}")
        weights[spec] = weights.get(spec, 0.0) + w
    total = sum(weights.values())
    if total <= 0:
        raise ConfigError(f"{name}: the weights must not all be 0, got {text!r}")
    return {spec: w / total for spec, w in weights.items() if w > 0}


def _in_range(cfg: TrainConfig, name: str, low: float, high: float, low_open: bool = False,
              high_open: bool = False) -> None:  # fmt: skip
    value = getattr(cfg, name)
    inside = (low < value if low_open else low <= value) and (value < high if high_open else value <= high) \
        and math.isfinite(value)  # fmt: skip
    if not inside:
        allowed = (f"> {low:g}" if low_open else f">= {low:g}") if high == math.inf else \
            f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"  # fmt: skip
        raise ConfigError(f"{name} must be {allowed} (a finite number), got {value}")


def _check_agent(rules: GameRules[Any], spec: str, field: str) -> None:
    if field == "bc_teacher" and not spec:
        raise ConfigError("bc_teacher: name the agent to imitate, or give --bc-games 0 (no warm start)")
    try:
        rules.check_agent(spec)
    except ValueError as error:
        raise ConfigError(f"{field}: {error}") from None


def train_defaults(game: GameLike) -> dict[str, Any]:
    """The game's training defaults: its opponent mix, its evaluation opponents, its warm start, and the settings
    of its default run that differ from `TrainConfig`'s (`GameRules.training_defaults`)."""
    rules = game_of(game)
    own = dict(rules.training_defaults)
    settable = [f.name for f in dataclasses.fields(TrainConfig) if f.name not in NOT_GAME_DEFAULTS]
    for key in own:
        if key not in settable:
            raise ConfigError(f"{rules.name}: training_defaults may set {', '.join(settable)}; got {key!r}")
    return {"game": game_name(game), "opponents": rules.training_opponents,
            "eval_opponents": tuple(rules.eval_opponents), "bc_teacher": rules.teacher or "",
            "bc_games": BC_GAMES if rules.teacher else 0} | own  # fmt: skip


def train_config_class(game: GameLike, base: type[TrainConfig] | None = None) -> type[TrainConfig]:
    """The config class of `game`: `base` (`TrainConfig` or a subclass) with the game's option fields and
    training defaults."""
    return with_game(base or TrainConfig, game, train_defaults(game))


def smoke(game: GameLike) -> dict[str, Any]:
    """`SMOKE` for `game` (no warm start for a game without a teacher)."""
    return SMOKE | ({} if game_of(game).teacher else {"bc_games": 0})


def _is_instance(value: Any, tp: Any) -> bool:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if tp is type(None):
        return value is None
    if origin is Literal:
        return value in args
    if origin is tuple:
        return isinstance(value, tuple) and all(_is_instance(v, args[0]) for v in value)
    if origin in (typing.Union, types.UnionType):
        return any(_is_instance(value, a) for a in args)
    raise TypeError(f"no check for field type {tp!r}")


def _describe(tp: Any) -> str:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return "one of " + ", ".join(map(repr, args))
    if origin is tuple:
        return f"a list of {_describe(args[0])}s"
    if origin is not None:
        return " or ".join(_describe(a) for a in args)
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string",
            type(None): "None"}.get(tp, str(tp))  # fmt: skip
