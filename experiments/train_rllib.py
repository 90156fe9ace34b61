"""RLlib's PPO on a game's PettingZoo environment, on a Ray cluster: `python -m experiments.train_rllib [--game NAME]`.

| piece        | what RLlib provides                                   | the glue here                                |
|--------------|-------------------------------------------------------|----------------------------------------------|
| environment  | `PettingZooEnv` over the game's AEC environment       | none: the game's `rllib_env` renames the key |
| masking      | the example `ActionMaskingTorchRLModule` (PPO)        | none                                         |
| opponents    | multi-agent policies and a policy mapping per episode | `ScriptedRLModule`: a scripted agent played  |
| workers      | env runners on the cluster's CPUs (`--env-runners`)   | none                                         |
| checkpoints  | `Algorithm.save_to_path`                              | written aside, then renamed into place       |

The AEC environment's observation is `{"observation", "action_mask"}`; RLlib's action-masking module reads
`{"observations", "action_mask"}`, which the game's `rllib_env` gives. Each episode the learner takes a seat and
faces one of `--opponents` (drawn from the episode's id): one of the game's scripted agents, or the learner itself
(`self`). A game's agents may play the trained module (as `rllib:<checkpoint>`). RLlib's sampling is not
reproducible bit for bit across runs, unlike `experiments.train`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from experiments.cli import ConfigError, parse, run_cli
from experiments.game import (
    DEFAULT,
    GameConfig,
    GameLike,
    game_flag,
    game_name,
    game_of,
    options_of,
    with_game,
)
from experiments.runs import write_json
from experiments.seal import add_seal, is_sealed, keep_only
from suntzu_env.core.files import TEMPORARY

PROG = "python -m experiments.train_rllib"
LEARNER = "learner"  # the trained module's id
SELF = "self"  # the opponent that is the learner itself
CHECKPOINT = "checkpoint"
CONFIG = "config.json"  # the run's settings
PROGRESS = "progress.json"  # the last checkpointed iteration
SEAL = "checkpoint.seal"  # the checkpoint's seal: only a checkpoint this user wrote is restored (experiments.seal)
RESUMABLE = ("iterations", "address")  # settings a resumed run may change


@dataclasses.dataclass
class RLlibConfig(GameConfig):
    """RLlib's PPO, with legal-action masking in the model, against the scripted baselines and itself, its rollout
    workers on a Ray cluster; saves an RLlib checkpoint that plays as `rllib:<folder>/checkpoint`."""

    out: Path = Path("runs/rllib")
    """run folder: checkpoint/ (RLlib's) and config.json"""
    iterations: int = 20
    """PPO training iterations"""
    opponents: tuple[str, ...] = ()
    """opponents, one drawn per episode: the game's scripted agents, or self (self-play)"""
    env_runners: int = 2
    """rollout workers (Ray actors of one CPU each); 0: sample in the learner's process"""
    train_batch_size: int = 4000
    """environment steps per iteration"""
    minibatch_size: int = 256
    """steps per gradient step"""
    epochs: int = 5
    """passes over each iteration's steps"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer sizes of the policy's network"""
    seed: int = 0
    """seed of RLlib's workers and torch"""
    address: str | None = None
    """a running Ray cluster's address, e.g. 10.0.0.5:6379 or auto (None: a local one of env_runners + 1 CPUs)"""
    game: str = DEFAULT
    """the game (a registered name, or <module>:<attribute>)"""

    @classmethod
    def for_game(cls, game: GameLike) -> type[RLlibConfig]:
        return rllib_config_class(game)

    def __post_init__(self) -> None:
        for name in ("iterations", "train_batch_size", "minibatch_size", "epochs"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.env_runners < 0:
            raise ConfigError(f"env_runners must be at least 0, got {self.env_runners}")
        scripted = game_of(self.game).scripted_agents
        if not self.opponents or any(o not in (*scripted, SELF) for o in self.opponents):
            raise ConfigError(f"opponents: expected one or more of {', '.join((*scripted, SELF))}, "
                              f"got {' '.join(self.opponents) or 'none'}")  # fmt: skip
        if not self.hidden or any(size < 1 for size in self.hidden):
            raise ConfigError(f"hidden: expected one or more layer sizes >= 1, got {self.hidden}")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate must be in (0, 1), got {self.learning_rate}")
        if self.out.exists() and not self.out.is_dir():
            raise ConfigError(f"out: {self.out} is a file, not a folder")
        options_of(self, self.game)  # checks the game's options


def rllib_config_class(game: GameLike) -> type[RLlibConfig]:
    """`RLlibConfig` of `game`: its option flags, its scripted agents and self-play as the default opponents."""
    rules = game_of(game)
    return with_game(RLlibConfig, rules, {"game": game_name(rules), "opponents": (*rules.scripted_agents, SELF)})


def env_name(cfg: RLlibConfig) -> str:
    """The name the game's environment is registered under with Ray (`<game>_rllib`)."""
    return f"{game_of(cfg.game).name}_rllib"


def options_fields(cfg: RLlibConfig) -> dict[str, Any]:
    """The run's options as JSON-ready fields (what the environment's config carries to the workers)."""
    rules = game_of(cfg.game)
    return rules.option_fields(options_of(cfg, rules))


def rllib_env(env_config: dict[str, Any]) -> Any:
    """The game's AEC environment as RLlib's `PettingZooEnv`, its observation under RLlib's keys."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    rules = game_of(env_config.get("game", DEFAULT))
    return PettingZooEnv(rules.rllib_env(rules.options(env_config.get("options"))))


def _scripted_module_class() -> type:
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    class Scripted(RLModule):
        """A scripted agent (`model_config["agent"]`) as an RLModule that RLlib plays but does not train."""

        def setup(self) -> None:
            rules = game_of(self.model_config["game"])
            self.agent = rules.make_agent(self.model_config["agent"], seed=self.model_config.get("seed"))

        def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            seen = batch[Columns.OBS]
            observations, masks = np.asarray(seen["observations"]), np.asarray(seen["action_mask"])
            actions = [self.agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
            return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

        def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            return self._forward_inference(batch, **kwargs)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            raise NotImplementedError("a scripted agent is not trained")

    return Scripted


def pairing_of(episode_id: str, opponents: Sequence[str], seats: Sequence[str]) -> tuple[str, str]:
    """The learner's seat among the game's `seats` (`GameRules.seats_of` the run's options, however many) and its
    opponent in every other seat, in an episode, drawn from the episode's id."""
    k = zlib.crc32(str(episode_id).encode())
    return seats[k % len(seats)], opponents[(k // len(seats)) % len(opponents)]


def algorithm_config(cfg: RLlibConfig) -> Any:
    """RLlib's `PPOConfig` of a run: the environment, the masking module, the opponents, the workers."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    opponents = tuple(dict.fromkeys(cfg.opponents))
    scripted = [o for o in opponents if o != SELF]
    modules = {
        LEARNER: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": list(cfg.hidden), "fcnet_activation": "tanh"},
        )
    }
    scripted_class = _scripted_module_class()
    modules |= {name: RLModuleSpec(module_class=scripted_class,
                                   model_config={"agent": name, "seed": cfg.seed, "game": cfg.game})
                for name in scripted}  # fmt: skip

    seats = game_of(cfg.game).seats_of(options_of(cfg, cfg.game))

    def policy_of(agent_id: str, episode: Any, **kwargs: Any) -> str:
        seat, opponent = pairing_of(episode.id_, opponents, seats)
        return LEARNER if agent_id == seat or opponent == SELF else opponent

    return (
        PPOConfig()
        .environment(env=env_name(cfg), env_config={"game": cfg.game, "options": options_fields(cfg)})
        .multi_agent(policies=set(modules), policy_mapping_fn=policy_of, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .env_runners(num_env_runners=cfg.env_runners, num_cpus_per_env_runner=1)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.epochs,
            lr=cfg.learning_rate,
        )
        .debugging(seed=cfg.seed)
    )


def save_checkpoint(algorithm: Any, out: Path) -> Path:
    """The algorithm's checkpoint at `out/checkpoint`, written aside and renamed into place (whole or not at all)."""
    final = out / CHECKPOINT
    aside = out / f".{CHECKPOINT}{TEMPORARY}"
    shutil.rmtree(aside, ignore_errors=True)
    algorithm.save_to_path(str(aside.resolve()))
    add_seal(out / SEAL, aside)  # sealed before it stands in place, so that a killed run resumes from either
    old = out / f".{CHECKPOINT}.old"
    if final.exists():
        final.rename(old)
    aside.rename(final)
    keep_only(out / SEAL, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def restore_sealed(algorithm: Any, out: Path) -> None:
    """Restore `algorithm` from `out`'s checkpoint, which RLlib reads from pickles: only one this user sealed
    (checked again here, right before, whatever was checked when the run began)."""
    if not is_sealed(out / SEAL, out / CHECKPOINT):
        raise ConfigError(f"out: {out / CHECKPOINT} changed since its run was checked: it is not resumed")
    algorithm.restore_from_path(str((out / CHECKPOINT).resolve()))


def _settings(cfg: RLlibConfig) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(cfg).items()}


def iterations_done(cfg: RLlibConfig) -> int:
    """The iterations already checkpointed in `cfg.out` (0: a new run); ConfigError if that run's settings (its
    config.json) differ from `cfg`'s beyond `RESUMABLE`, if its files are not what this command writes, or if its
    checkpoint is not one this user sealed (`experiments.seal`: RLlib restores pickles, which run code)."""
    progress = cfg.out / PROGRESS
    if not (progress.is_file() and (cfg.out / CHECKPOINT).is_dir()):
        return 0
    if not is_sealed(cfg.out / SEAL, cfg.out / CHECKPOINT):
        raise ConfigError(
            f"out: {cfg.out / CHECKPOINT} was not written by this user's runs, or was changed since (its seal, {SEAL}, "
            "is missing or does not match): RLlib restores it from pickles, which run code, so it is not resumed; "
            f"its policy plays as rllib:{cfg.out / CHECKPOINT} (weights read as data), or train in another out folder"
        )
    ours = {k: v for k, v in json.loads(json.dumps(_settings(cfg))).items() if k not in RESUMABLE}
    saved = {"game": DEFAULT} | _json_object(cfg.out / CONFIG)  # (a run of before --game: the default)
    theirs = {k: v for k, v in saved.items() if k not in RESUMABLE}
    differ = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
    if differ:
        raise ConfigError(f"out: {cfg.out} holds a run trained with other settings ({', '.join(differ)}); "
                          f"resume it with its own ({CONFIG}) or choose another out folder")  # fmt: skip
    iteration = _json_object(progress).get("iteration")
    if not isinstance(iteration, int) or isinstance(iteration, bool) or not 0 <= iteration <= 10**9:
        raise ConfigError(f"out: {progress}: iteration: expected a whole number of iterations, got {iteration!r:.40}")
    return iteration


def _json_object(path: Path) -> dict[str, Any]:
    """A JSON object of the run folder; ConfigError naming the file if it is not one."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ConfigError(f"out: {path}: not a JSON file this command wrote ({error})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"out: {path}: expected a JSON object, got {type(value).__name__}")
    return value


def train(cfg: RLlibConfig) -> Path:
    """Train, printing each iteration's episode length; checkpoint after each; the checkpoint's path. A run whose
    out folder holds a checkpoint goes on from it (a killed run resumes) up to `cfg.iterations`."""
    from ray.tune.registry import register_env

    from experiments.cluster import connected

    done = iterations_done(cfg)
    checkpoint = cfg.out / CHECKPOINT
    if done >= cfg.iterations:
        print(f"{cfg.out}: {done} iterations already trained, nothing to do", flush=True)
        return checkpoint
    cfg.out.mkdir(parents=True, exist_ok=True)
    write_json(cfg.out / CONFIG, _settings(cfg))
    with connected(cfg.address, cfg.env_runners + 1):
        register_env(env_name(cfg), rllib_env)
        algorithm = algorithm_config(cfg).build_algo()
        try:
            if done:
                restore_sealed(algorithm, cfg.out)
                print(f"resuming {cfg.out} after iteration {done}", flush=True)
            for iteration in range(done + 1, cfg.iterations + 1):
                result = algorithm.train()
                runners = result.get("env_runners", {})
                steps = runners.get("num_env_steps_sampled_lifetime", "?")
                length = runners.get("episode_len_mean", float("nan"))
                print(f"iteration {iteration}/{cfg.iterations}: {steps} steps, episodes of {length:.0f} steps",
                      flush=True)  # fmt: skip
                save_checkpoint(algorithm, cfg.out)
                write_json(cfg.out / PROGRESS, {"iteration": iteration})
        finally:
            algorithm.stop()
    return checkpoint


def main(argv: Sequence[str] | None = None) -> Path:
    """The command line: a user error is one line on stderr and exit status 2."""

    def body() -> Path:
        from experiments.cluster import require_ray

        cfg = parse(rllib_config_class(game_flag(argv) or DEFAULT), argv, PROG)
        iterations_done(cfg)  # a folder that may not be resumed is refused before Ray is asked for
        require_ray()
        checkpoint = train(cfg)
        print(f"play it: rllib:{checkpoint}")
        return checkpoint

    return run_cli(PROG, body, RLlibConfig)


if __name__ == "__main__":
    main()
