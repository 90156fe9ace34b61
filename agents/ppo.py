"""A trained MaskablePPO policy as an agent: `load_ppo_agent(path)`, the `ppo:<path>` spec of `make_agent`.

The policy's actor network is copied out of torch into numpy (`PolicyActor`): one observation at a time,
a few small matrix products in numpy cost a fraction of a torch forward pass, and the copy is frozen,
picklable and free of torch threads, which is what self-play opponents and evaluation games need.
Illegal actions are masked out of the logits before the argmax (or the sample), so the agent never
plays an illegal action.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from stable_baselines3.common.policies import ActorCriticPolicy

log = logging.getLogger(__name__)
MODEL_FILE = "model.zip"  # a run folder's final model
CHECKPOINT_DIR = "checkpoints"  # a run folder's checkpoints, `ppo_<timesteps>_steps.zip`


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


ACTIVATIONS = {"Tanh": np.tanh, "ReLU": _relu}


class PolicyActor:
    """The actor half of an MLP actor-critic policy, frozen as numpy arrays: observation -> logits."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str = "Tanh") -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        if len(weights) != len(biases) or not weights:
            raise ValueError("expected as many weight matrices as bias vectors, at least one")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self._layers = [(np.ascontiguousarray(w.T), b) for w, b in zip(self.weights, self.biases, strict=True)]

    @classmethod
    def from_policy(cls, policy: ActorCriticPolicy) -> PolicyActor:
        """Copy the actor of an SB3 (Maskable)ActorCriticPolicy with a flat observation and an MLP extractor."""
        import torch

        layers = [*policy.mlp_extractor.policy_net, policy.action_net]
        weights, biases, activation = [], [], "Tanh"
        for layer in layers:
            if isinstance(layer, torch.nn.Linear):
                weights.append(layer.weight.detach().cpu().numpy().copy())
                biases.append(layer.bias.detach().cpu().numpy().copy())
            elif type(layer).__name__ in ACTIVATIONS:
                activation = type(layer).__name__
            else:
                raise ValueError(f"cannot copy a policy layer of type {type(layer).__name__} to numpy")
        return cls(weights, biases, activation)

    def state(self) -> dict[str, np.ndarray]:
        """The arrays, for `np.savez` (and `from_state`)."""
        out = {f"w{i}": w for i, w in enumerate(self.weights)} | {f"b{i}": b for i, b in enumerate(self.biases)}
        return out | {"activation": np.array(self.activation)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PolicyActor:
        n = sum(1 for k in state if k.startswith("w"))
        return cls([state[f"w{i}"] for i in range(n)], [state[f"b{i}"] for i in range(n)], str(state["activation"]))

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation (or a batch, along the first axis)."""
        x = np.asarray(observation, dtype=np.float32)
        *hidden, (w_out, b_out) = self._layers
        for w, b in hidden:
            x = self._act(x @ w + b)
        return x @ w_out + b_out


class PPOAgent:
    """Plays a frozen policy: argmax of the masked logits (deterministic) or a sample from them."""

    def __init__(self, actor: PolicyActor, deterministic: bool = True, seed: int | None = None, name: str = "ppo"):
        self.actor = actor
        self.deterministic = deterministic
        self.name = name
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask, dtype=bool)
        if not mask.any():
            raise ValueError("action_mask allows no action: the game is over or the mask is wrong")
        logits = np.where(mask, self.actor.logits(observation), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self._rng.choice(len(p), p=p / p.sum()))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for M games in one forward pass: (M, D) observations and (M, A) masks -> (M,) action ids.

        `suntzu_env.vec_env.SunTzuVecEnv` asks it once per opponent round for every game waiting on it.
        """
        masks = np.asarray(action_masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError("an action mask allows no action: the game is over or the mask is wrong")
        logits = np.where(masks, self.actor.logits(observations), -np.inf)
        if not self.deterministic:  # a sample of each row's softmax: the argmax of logits plus Gumbel noise
            logits += self._rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1)

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, deterministic={self.deterministic})"


class ModelError(ValueError):
    """A path that holds no loadable PPO model (missing, unreadable, or made for another game layout)."""


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


class IncompatibleModelError(ModelError):
    """A model trained for other observation or action spaces than this version's."""


def check_spaces(observation_space: Any, action_space: Any, path: Path) -> None:
    """Refuse a model whose observation or action space is not this package's."""
    from suntzu_env import N_ACTIONS, OBSERVATION_SIZE

    obs_shape, n_actions = getattr(observation_space, "shape", None), getattr(action_space, "n", None)
    if obs_shape != (OBSERVATION_SIZE,) or n_actions != N_ACTIONS:
        raise IncompatibleModelError(
            f"{path} was trained on observations of shape {obs_shape} and {n_actions} actions; this version of "
            f"suntzu-env has ({OBSERVATION_SIZE},) and {N_ACTIONS}"
        )


def describe_error(error: BaseException) -> str:
    """An exception as a short phrase for a one-line message."""
    text = " ".join(str(error).split())
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def load_model(path: str | Path) -> tuple[Any, Path]:
    """The first readable MaskablePPO model of `model_candidates(path)`, and its file.

    In a run folder an unreadable file is skipped with a warning naming it; a model trained for other spaces
    than this version's is refused.
    """
    from sb3_contrib import MaskablePPO

    candidates = model_candidates(path)
    skipped = []
    for candidate in candidates:
        try:
            model = MaskablePPO.load(candidate, device="cpu")
        except Exception as error:  # a zip fails in many ways: bad archive, bad JSON, bad tensors, missing parts
            reason = f"{candidate} is not a readable MaskablePPO model ({describe_error(error)})"
            if len(candidates) == 1:
                raise ModelError(reason) from None
            skipped.append(candidate.name)
            continue
        check_spaces(model.observation_space, model.action_space, candidate)
        if skipped:
            log.warning("%s: %s unreadable; playing %s", path, ", ".join(skipped), candidate.relative_to(path))
        return model, candidate
    raise ModelError(f"no readable model in {path}: its {len(candidates)} model files are all unreadable")


def resolve_model_path(path: str | Path) -> Path:
    """The file `load_ppo_agent(path)` plays: the first readable one of `model_candidates(path)`."""
    return load_model(path)[1]


def load_ppo_agent(path: str | Path, seed: int | None = None, deterministic: bool = True) -> PPOAgent:
    """The agent of a MaskablePPO model: a run folder (`runs/<name>`) or a saved `.zip`."""
    model, file = load_model(path)
    try:
        actor = PolicyActor.from_policy(model.policy)
    except (ValueError, AttributeError) as error:  # a policy that is not a flat-observation MLP
        raise ModelError(f"{file} cannot play here: {error}") from None
    return PPOAgent(actor, deterministic=deterministic, seed=seed, name=str(path))
