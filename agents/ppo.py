"""A trained MaskablePPO policy as an agent: `load_ppo_agent(path)`, the `ppo:<path>` spec of `make_agent`.

The policy's actor network is copied out of torch (`PolicyActor`) into the game's compiled policy network
(`suntzu_env.core.policy_net.PolicyNet`): a few small matrix products over mostly-zero observations cost a fraction of
a torch forward pass, and the copy is frozen, picklable and free of torch threads, which is what self-play
opponents and evaluation games need. The same compiled move serves a game at a time (`act`), a batch
(`act_batch`), and the batched environment's own step, where a `PPOAgent` opponent plays in compiled code.
Illegal actions are masked out of the logits before the argmax (or the sample), so the agent never plays an
illegal action.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import logging
import pickle
import zipfile
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from suntzu_env.core.agent import CHECKPOINT_DIR, MODEL_FILE, IncompatibleModelError, ModelError
from suntzu_env.core.npz import UnsafeFileError, read_net_file
from suntzu_env.core.policy_net import (
    ACTIVATIONS,
    MAX_LAYERS,
    CellNet,
    CompiledNet,
    PolicyNet,
    net_act,
    net_act_batch,
    net_from_state,
)
from suntzu_env.core.rng import rng_seed
from suntzu_env.pretrained import POLICY, PREFIX, Shipped, shipped

if TYPE_CHECKING:
    from stable_baselines3.common.policies import ActorCriticPolicy

    from suntzu_env.core.protocol import GameRules

log = logging.getLogger(__name__)


class PolicyActor:
    """The actor half of an actor-critic policy, frozen: observation -> logits (`net`, compiled).

    An MLP's weights live once, packed in `net` (a `PolicyNet`); `weights`, `biases` (torch's layout) and
    `activation` read them back. A cell network's actor (`agents.cell_policy.CellPolicy`) is a `CellNet`.
    """

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str = "Tanh") -> None:
        self.net: CompiledNet = PolicyNet(weights, biases, activation)  # checks the shapes and values

    @classmethod
    def of(cls, net: CompiledNet) -> PolicyActor:
        """The actor of a packed net of either kind."""
        actor = cls.__new__(cls)
        actor.net = net
        return actor

    @property
    def weights(self) -> list[np.ndarray]:
        return [w for w, _ in self._mlp().layers()]

    @property
    def biases(self) -> list[np.ndarray]:
        return [b for _, b in self._mlp().layers()]

    @property
    def activation(self) -> str:
        return self._mlp().activation

    def _mlp(self) -> PolicyNet:
        if not isinstance(self.net, PolicyNet):
            raise TypeError(f"a {self.net.kind} network has no MLP layers")
        return self.net

    @classmethod
    def from_policy(cls, policy: ActorCriticPolicy) -> PolicyActor:
        """Copy the actor of an SB3 (Maskable)ActorCriticPolicy with a flat observation: an MLP extractor, or a
        cell network (`agents.cell_policy.CellPolicy`, which packs itself)."""
        import torch

        cell_arrays = getattr(policy, "cell_arrays", None)
        if callable(cell_arrays):
            return cls.of(CellNet(cell_arrays()))
        layers = [*policy.mlp_extractor.policy_net, policy.action_net]
        weights, biases, activation = [], [], "Tanh"
        for layer in layers:
            if isinstance(layer, torch.nn.Linear):
                weights.append(layer.weight.detach().cpu().numpy().copy())
                biases.append(layer.bias.detach().cpu().numpy().copy())
            elif type(layer).__name__ in ACTIVATIONS:
                activation = type(layer).__name__
            else:
                raise ValueError(f"cannot copy a policy layer of type {type(layer).__name__}")
        return cls(weights, biases, activation)

    def state(self) -> dict[str, np.ndarray]:
        """The arrays, for `np.savez` (and `from_state`)."""
        return self.net.state()

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PolicyActor:
        return cls.of(net_from_state(state))

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation (or a batch, along the first axis)."""
        return self.net.logits(observation)


class PPOAgent:
    """Plays a frozen policy: argmax of the masked logits (deterministic) or a sample from them.

    A sample draws from the agent's own engine generator (`seed`; None: fresh entropy). In `SunTzuVecEnv` the
    agent plays in compiled code and samples from each game's opponent generator, as the compiled baselines do.
    """

    def __init__(self, actor: PolicyActor, deterministic: bool = True, seed: int | None = None, name: str = "ppo"):
        self.actor = actor
        self.deterministic = deterministic
        self.name = name
        self._header = actor.net.playing(deterministic)
        self.reset(seed if seed is not None else int(np.random.SeedSequence().generate_state(1)[0]))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = rng_seed(int(seed) % 2**63)

    def _checked(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        net = self.actor.net
        x = np.ascontiguousarray(observations, dtype=np.float32)
        m = np.ascontiguousarray(masks, dtype=np.int8)
        if x.shape[-1:] != (net.n_inputs,) or m.shape != (*x.shape[:-1], net.n_outputs):
            raise ValueError(f"expected observations of width {net.n_inputs} and masks of width {net.n_outputs} "
                             f"for the same games, got shapes {x.shape} and {m.shape}")  # fmt: skip
        if not m.any(axis=-1).all():
            raise ValueError("an action mask allows no action: the game is over or the mask is wrong")
        return x, m

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        x, mask = self._checked(observation, action_mask)
        if x.ndim != 1:
            raise ValueError(f"act takes one observation; got shape {x.shape} (act_batch plays several)")
        work = np.empty(self.actor.net.work_size, dtype=np.float32)
        return int(net_act(self.actor.net.params, self._header, x, mask, self._rng, work))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for M games at once: (M, D) observations and (M, A) masks -> (M,) action ids."""
        x, masks = self._checked(observations, action_masks)
        if x.ndim != 2:
            raise ValueError(f"act_batch takes (M, D) observations; got shape {x.shape}")
        out = np.empty(len(x), dtype=np.int64)
        work = np.empty((len(x), self.actor.net.work_size), dtype=np.float32)
        net_act_batch(self.actor.net.params, self._header, x, masks, self._rng, work, out)
        return out

    def compiled_policy(self) -> tuple[CompiledNet, bool] | None:
        """The net and whether it plays the argmax, for `SunTzuVecEnv` to play it in compiled code; None when a
        subclass changes how the agent acts (it is then asked from Python)."""
        if type(self).act_batch is not _ACT_BATCH or type(self).act is not _ACT:
            return None
        return self.actor.net, self.deterministic

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, deterministic={self.deterministic})"


_ACT, _ACT_BATCH = PPOAgent.act, PPOAgent.act_batch


def checkpoint_steps(path: Path) -> int:
    """The timesteps in a checkpoint's name, `ppo_<timesteps>_steps.zip`."""
    return int(path.stem.split("_")[1])


def checkpoints(run_dir: str | Path) -> list[Path]:
    """A run folder's checkpoints, oldest first."""
    found = [p for p in (Path(run_dir) / CHECKPOINT_DIR).glob("ppo_*_steps.zip") if p.stem.split("_")[1].isdigit()]
    return sorted(found, key=checkpoint_steps)


def model_candidates(path: str | Path) -> list[Path]:
    """The model files a path names, the one to try first first.

    A run folder: its final `model.zip`, then its checkpoints, newest first (an unfinished run plays its latest
    checkpoint; an unreadable file gives way to the one before). A file: that file (`.zip` may be left out).
    """
    p = Path(path)
    if p.is_dir():
        found = [p / MODEL_FILE] if (p / MODEL_FILE).is_file() else []
        found += reversed(checkpoints(p))
        if not found:
            raise ModelError(f"{p} holds no model: neither {MODEL_FILE} nor {CHECKPOINT_DIR}/ppo_<timesteps>_steps.zip "
                             "(a run stopped before its warm start was saved has none yet: resume it)")  # fmt: skip
        return found
    if p.suffix != ".zip" and p.with_suffix(".zip").is_file():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise ModelError(f"no PPO model at {path}: expected a run folder or a .zip saved by MaskablePPO")
    return [p]


def check_spaces(observation_space: Any, action_space: Any, path: Path, game: GameRules[Any] | None = None) -> None:
    """Refuse a model whose observation or action space is not the game's (`GameRules.check_spaces`; None: Sun
    Tzu's)."""
    _game(game).check_spaces(observation_space, action_space, path)


def _game(game: GameRules[Any] | None) -> GameRules[Any]:
    """The game a model is loaded for: `game`, or Sun Tzu."""
    from suntzu_env.suntzu.plugin import SUNTZU

    return SUNTZU if game is None else game


def check_sizes(n_inputs: int, n_outputs: int, path: Path) -> None:
    """Refuse a network whose input or output width is not this package's observation or action count."""
    from suntzu_env import N_ACTIONS, OBSERVATION_SIZE

    if (n_inputs, n_outputs) != (OBSERVATION_SIZE, N_ACTIONS):
        raise IncompatibleModelError(
            f"{path} was trained on observations of width {n_inputs} and {n_outputs} actions; this version of "
            f"suntzu-env has {OBSERVATION_SIZE} and {N_ACTIONS}"
        )


def describe_error(error: BaseException) -> str:
    """An exception as a short phrase for a one-line message."""
    text = " ".join(str(error).split())
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


MAX_MEMBER = 512 * 2**20  # bytes: the largest member of a model's zip that is read (a policy is a few MB)
SB3_DEFAULT_ACTIVATION = "Tanh"  # MlpPolicy's activation when policy_kwargs names none


def _activation_of(entry: Any) -> str:
    """The activation named by a saved `policy_kwargs` (its readable copy of `activation_fn`), by torch's name."""
    if not isinstance(entry, dict) or "activation_fn" not in entry:
        return SB3_DEFAULT_ACTIVATION
    text = str(entry["activation_fn"])  # "<class 'torch.nn.modules.activation.ReLU'>"
    name = text.rsplit(".", 1)[-1].rstrip("'>")
    if name not in ACTIVATIONS:
        raise ValueError(f"its policy uses the activation {text[:80]!r}; playable: {', '.join(ACTIVATIONS)}")
    return name


def safe_objects(data: dict[str, Any], path: Path, game: GameRules[Any] | None = None) -> dict[str, Any]:
    """What replaces every pickled entry of a model's `data` (`MaskablePPO.load(custom_objects=...)`), so that
    loading unpickles nothing: the policy class, the game's spaces (None: Sun Tzu's), plain schedules,
    `policy_kwargs` rebuilt from their readable copy; any other pickled entry becomes None. The saved spaces must
    be the game's (a model of another game is refused, `IncompatibleModelError`)."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.utils import ConstantSchedule

    from agents.cell_policy import CellPolicy, cell_sizes

    rules = _game(game)
    obs, act = data.get("observation_space"), data.get("action_space")
    shape = tuple(obs.get("_shape", ())) if isinstance(obs, dict) else None
    n = act.get("n") if isinstance(act, dict) else None
    n = int(n) if str(n).isascii() and str(n).isdigit() else n
    rules.check_spaces(SimpleNamespace(shape=shape), SimpleNamespace(n=n), path)
    low, high = rules.observation_bounds()
    replace: dict[str, Any] = {
        "policy_class": MaskableActorCriticPolicy,
        "observation_space": spaces.Box(low=low, high=high, dtype=np.float32),
        "action_space": spaces.Discrete(rules.n_actions),
        "lr_schedule": ConstantSchedule(0.0),  # SB3's own schedules (not lambdas): a model loaded here and saved
        "learning_rate": 0.0,  # again still reads as data
        "clip_range": ConstantSchedule(0.2),
    }
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("observation_space", "action_space"):
            out[key] = replace[key]
        elif key == "policy_kwargs" and isinstance(value, dict) and "cells" in value:
            out[key] = {"cells": cell_sizes(value["cells"]), "layout": _cell_layout(rules, path)}
            out["policy_class"] = CellPolicy
        elif isinstance(value, dict) and ":serialized:" in value:
            if key == "policy_kwargs":
                kwargs = {k: v for k, v in value.items() if not k.startswith(":") and k != "activation_fn"}
                if not isinstance(kwargs.get("net_arch", []), (list, dict)):
                    raise ValueError("its policy_kwargs.net_arch is not a list")
                out[key] = kwargs | {"activation_fn": getattr(torch.nn, _activation_of(value))}
            elif key != "policy_class" or "policy_class" not in out:
                out[key] = replace.get(key)
    if "policy_class" not in data:
        raise ValueError("its data names no policy class")
    return out


def _cell_layout(rules: GameRules[Any], path: Path) -> Any:
    """The board a cell network of `rules` reads (refused for a game that declares none)."""
    if rules.cell_layout is None:
        raise IncompatibleModelError(f"{path} holds a cell network; {rules.name} declares no board of cells")
    return rules.cell_layout


NUMPY_MODULES = ("numpy.core.multiarray", "numpy._core.multiarray", "numpy.core.numeric", "numpy._core.numeric")
ARRAY_GLOBALS = {  # what a pickle read as data may build: numpy's arrays and dtypes, dicts, deques
    *((module, name) for module in NUMPY_MODULES for name in ("_reconstruct", "scalar", "_frombuffer")),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("collections", "OrderedDict"),
    ("collections", "deque"),
}
REPLACED_GLOBALS = {  # the classes SB3 pickles into a model's `data` whose fields `safe_objects` replaces
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"),
    ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"),
    ("agents.cell_policy", "CellPolicy"),
    ("suntzu_env.core.policy_net", "CellLayout"),
    ("suntzu_env.policy_net", "CellLayout"),  # its place in models saved before the games had their own folders
    *(("stable_baselines3.common.utils", name) for name in ("FloatSchedule", "ConstantSchedule", "LinearSchedule")),
    ("experiments.learner", "RestartedSchedule"),  # --restart-at's learning rate
    ("gymnasium.spaces.box", "Box"),
    ("gymnasium.spaces.discrete", "Discrete"),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    *(("torch.nn.modules.activation", name) for name in ACTIVATIONS),
}


class Replaced:
    """What a class of `REPLACED_GLOBALS` unpickles to: an empty stand-in (its field is replaced), built by
    nothing of the file's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


class DataUnpickler(pickle.Unpickler):
    """Reads a pickle as data: numbers, text, lists, dicts and numpy arrays (`ARRAY_GLOBALS`), SB3's own classes
    as empty stand-ins (`Replaced`); any other class or function is refused (`UnsafeFileError`) before it is
    built."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in ARRAY_GLOBALS:
            return super().find_class(module, name)
        if (module, name) in REPLACED_GLOBALS:
            return Replaced
        raise UnsafeFileError(f"it names {module}.{name}, which is not data")


def read_pickle(raw: bytes) -> Any:
    """A pickle's content, read as data (`DataUnpickler`)."""
    return DataUnpickler(io.BytesIO(raw)).load()


MAX_ROLLOUT = 2**22  # the most steps a saved learner's rollout buffer may hold (n_envs * n_steps)
MAX_COUNT = 2**62  # the largest timestep or update count a model's data may hold
MAX_EPISODES = 10**6  # the longest episode statistics a model's data may keep
SAVED_COUNTS = ("num_timesteps", "_total_timesteps", "_num_timesteps_at_start", "_episode_num", "_n_updates", "seed",
                "n_envs", "n_steps", "batch_size", "n_epochs", "_stats_window_size")  # fmt: skip


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def _check_counts(data: dict[str, Any]) -> None:
    """The plain counts of a model's data: whole numbers, and a rollout buffer of a size that fits in memory."""
    for key in SAVED_COUNTS:
        if key in data and data[key] is not None and not _whole(data[key]):
            raise ValueError(f"its {key} is not a whole number from 0 to {MAX_COUNT}")
    if (data.get("n_envs") or 1) * (data.get("n_steps") or 1) > MAX_ROLLOUT:
        raise ValueError(f"its rollouts of n_envs * n_steps steps are larger than {MAX_ROLLOUT}")
    if not 0 < (data.get("_stats_window_size") or 1) <= MAX_EPISODES:
        raise ValueError(f"its _stats_window_size is not from 1 to {MAX_EPISODES}")


def _check_net_arch(kwargs: Any, n_inputs: int, policy_bytes: int) -> None:
    """An MLP's `net_arch` of whole widths, whose policy network's weights fit in the file's `policy.pth`."""
    arch = kwargs.get("net_arch") if isinstance(kwargs, dict) else None
    if arch is None:
        return  # SB3's default, two small layers
    paths = list(arch.values()) if isinstance(arch, dict) else [arch]
    for widths in paths:
        if not isinstance(widths, list) or len(widths) > MAX_LAYERS or not all(map(_whole, widths)):
            raise ValueError(f"its policy_kwargs.net_arch is not a list of at most {MAX_LAYERS} widths")
        sizes = [n_inputs, *widths]
        if 4 * sum(a * b for a, b in itertools.pairwise(sizes)) > policy_bytes:
            raise ValueError(f"its policy_kwargs.net_arch {widths} has more weights than its policy.pth holds")


def learner_state(data: dict[str, Any], decoded: dict[str, Any], game: GameRules[Any] | None = None) -> dict[str, Any]:
    """The pickled parts of a learner's state that a resume continues from, checked: its games' last observations
    and episode starts, its episode statistics (`custom_objects` for `MaskablePPO.load`)."""
    rules = _game(game)
    n_envs, width = data.get("n_envs") or 1, rules.observation_size
    shapes = {"_last_obs": ((n_envs, width), "f"), "_last_original_obs": ((n_envs, width), "f"),
              "_last_episode_starts": ((n_envs,), "b")}  # fmt: skip
    out: dict[str, Any] = {}
    for key, (shape, kind) in shapes.items():
        value = decoded.get(key)
        if value is not None and not (
            isinstance(value, np.ndarray) and value.shape == shape and value.dtype.kind == kind
        ):
            raise ValueError(f"its {key} is not an array of shape {shape}")
        if key in decoded:
            out[key] = value
    for key in ("ep_info_buffer", "ep_success_buffer"):
        if key not in decoded:
            continue
        value = decoded[key]
        if not (isinstance(value, deque) and value.maxlen is not None and len(value) <= value.maxlen <= MAX_EPISODES):
            raise ValueError(f"its {key} is not a bounded list of episodes")
        for item in value:
            fields = item.values() if isinstance(item, dict) else [item]
            if isinstance(item, dict) and not all(isinstance(k, str) for k in item):
                raise ValueError(f"its {key} holds an episode that is not numbers")
            if not all(isinstance(v, (int, float, np.number, np.bool_)) for v in fields):
                raise ValueError(f"its {key} holds an episode that is not numbers")
        out[key] = value
    return out


def read_model(file: Path, game: GameRules[Any] | None = None, **kwargs: Any) -> Any:
    """The MaskablePPO model saved in `file` for `game` (None: Sun Tzu), read as data, whichever command reads
    it (a `ppo:` agent, a resumed run): every pickled field of its `data` read by `DataUnpickler` (SB3's own
    classes replaced by `safe_objects`; the learner's state a resume continues from kept, `learner_state`), its
    sizes checked, its tensors read by `torch.load(weights_only=True)`. Nothing in the file runs code: a file that
    names anything else is refused (`UnsafeFileError`); `kwargs` go to `MaskablePPO.load`."""
    import torch
    from sb3_contrib import MaskablePPO

    with zipfile.ZipFile(file) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        for info in infos.values():
            if info.file_size > MAX_MEMBER:
                raise ValueError(f"its member {info.filename!r} unpacks to {info.file_size} bytes")
        if "data" not in infos or "policy.pth" not in infos:
            raise ValueError("it holds no data or no policy.pth")
        data = json.loads(archive.read("data"))
        variables = archive.read("pytorch_variables.pth") if "pytorch_variables.pth" in infos else None
    if not isinstance(data, dict):
        raise ValueError("its data is not a JSON object")
    decoded = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            if not isinstance(value[":serialized:"], str):
                raise ValueError(f"its {key} is not a pickle")
            try:
                decoded[key] = read_pickle(base64.b64decode(value[":serialized:"], validate=True))
            except UnsafeFileError as error:
                raise UnsafeFileError(f"its data's {key} is not data: {error}") from None
    _check_counts(data)
    objects = safe_objects(data, file, game) | learner_state(data, decoded, game)
    kwargs_of = objects.get("policy_kwargs", data.get("policy_kwargs"))
    if "cells" not in (kwargs_of or {}):
        _check_net_arch(kwargs_of, _game(game).observation_size, infos["policy.pth"].file_size)
    try:
        if variables is not None and torch.load(io.BytesIO(variables), map_location="cpu", weights_only=True):
            raise ValueError("its pytorch_variables.pth is not empty (a MaskablePPO learner has none)")
        model = MaskablePPO.load(file, device=kwargs.pop("device", "cpu"), custom_objects=objects, **kwargs)
    except pickle.UnpicklingError as error:  # torch's weights-only reader met more than tensors
        raise UnsafeFileError(f"its tensors are not data ({describe_error(error)})") from None
    _check_optimizer(model)
    return model


def _check_optimizer(model: Any) -> None:
    """The optimizer's saved state fits the network it optimizes (each moment the shape of its parameter)."""
    optimizer = model.policy.optimizer
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            for name, value in optimizer.state.get(parameter, {}).items():
                if getattr(value, "ndim", 0) and value.shape != parameter.shape:
                    raise ValueError(f"its optimizer's {name} does not fit its network")


def load_model(path: str | Path, game: GameRules[Any] | None = None, **kwargs: Any) -> tuple[Any, Path]:
    """The first readable MaskablePPO model of `model_candidates(path)` for `game` (None: Sun Tzu), and its file
    (`read_model`: read as data, never unpickled; `kwargs` go to `MaskablePPO.load`).

    In a run folder an unreadable file is skipped with a warning naming it; a model trained for other spaces
    than the game's (another game's, or another version's) is refused.
    """
    candidates = model_candidates(path)
    skipped = []
    for candidate in candidates:
        try:
            model = read_model(candidate, game, **kwargs)
        except IncompatibleModelError:
            raise
        except UnsafeFileError as error:  # refused, never skipped: a file made to run code is not a damaged one
            raise UnsafeFileError(f"{candidate} is not a readable MaskablePPO model: {error}") from None
        except Exception as error:  # a zip fails in many ways: bad archive, bad JSON, bad tensors, missing parts
            reason = f"{candidate} is not a readable MaskablePPO model ({describe_error(error)})"
            if len(candidates) == 1:
                raise ModelError(reason) from None
            skipped.append(candidate.name)
            continue
        check_spaces(model.observation_space, model.action_space, candidate, game)
        if skipped:
            log.warning("%s: %s unreadable; playing %s", path, ", ".join(skipped), candidate.relative_to(path))
        return model, candidate
    raise ModelError(f"no readable model in {path}: its {len(candidates)} model files are all unreadable")


def resolve_model_path(path: str | Path) -> Path:
    """The file `load_ppo_agent(path)` plays: the first readable one of `model_candidates(path)`."""
    return load_model(path)[1]


def shipped_actor(entry: Shipped, game: GameRules[Any] | None = None) -> PolicyActor:
    """The actor of a shipped policy (`suntzu_env.pretrained`), read as data, for `game` (None: Sun Tzu): a
    shipped value network, or another game's policy, is refused in one line."""
    rules = _game(game)
    where = f"{PREFIX}{entry.name}"
    if entry.role != POLICY:
        raise ModelError(f"{where} is a value network, not a policy: play it as {entry.spec}")
    if entry.game != rules.name:
        raise IncompatibleModelError(f"{where} plays the game {entry.game}, not {rules.name}")
    try:
        net = read_net_file(entry.file)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise ModelError(f"{where} ({entry.file}) is not readable: {describe_error(error)}") from None
    check_spaces(SimpleNamespace(shape=(net.n_inputs,)), SimpleNamespace(n=net.n_outputs), Path(where), game)
    return PolicyActor.of(net)


def load_ppo_agent(
    path: str | Path, seed: int | None = None, deterministic: bool = True, game: GameRules[Any] | None = None
) -> PPOAgent:
    """The agent of a MaskablePPO model of `game` (None: Sun Tzu): a run folder (`runs/<name>`) or a saved `.zip`.

    It plays as the learner did in training: from the observation and the mask over the game's actions that its
    seat is given (a Bin'Fa agent sees the board from its own seat and answers a learning id). A shipped agent's
    path, `pretrained/<name>` (`suntzu_env.pretrained`), plays the actor shipped inside the package."""
    entry = shipped(str(path))
    if entry is not None:
        return PPOAgent(shipped_actor(entry, game), deterministic=deterministic, seed=seed, name=str(path))
    model, file = load_model(path, game)
    try:
        actor = PolicyActor.from_policy(model.policy)
    except (ValueError, AttributeError) as error:  # a policy that is not a flat-observation MLP
        raise ModelError(f"{file} cannot play here: {error}") from None
    return PPOAgent(actor, deterministic=deterministic, seed=seed, name=str(path))
