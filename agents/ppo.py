"""A trained MaskablePPO policy as an agent: `load_ppo_agent(path)`, the `ppo:<path>` spec of `make_agent`.

The policy's actor network is copied out of torch into numpy (`PolicyActor`): one observation at a time,
a few small matrix products in numpy cost a fraction of a torch forward pass, and the copy is frozen,
picklable and free of torch threads, which is what self-play opponents and evaluation games need.
Illegal actions are masked out of the logits before the argmax (or the sample), so the agent never
plays an illegal action.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from stable_baselines3.common.policies import ActorCriticPolicy

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

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, deterministic={self.deterministic})"


def resolve_model_path(path: str | Path) -> Path:
    """A run folder means its final `model.zip`, or its latest checkpoint while the run is unfinished."""
    p = Path(path)
    if p.is_dir():
        if (p / MODEL_FILE).is_file():
            return p / MODEL_FILE
        checkpoints = sorted((p / CHECKPOINT_DIR).glob("ppo_*_steps.zip"), key=_checkpoint_steps)
        if checkpoints:
            return checkpoints[-1]
        raise FileNotFoundError(f"{p} holds neither {MODEL_FILE} nor checkpoints in {CHECKPOINT_DIR}/")
    if p.suffix != ".zip" and p.with_suffix(".zip").is_file():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"no PPO model at {path}: expected a run folder or a .zip saved by MaskablePPO")
    return p


def _checkpoint_steps(path: Path) -> int:
    return int(path.stem.split("_")[1])


def load_ppo_agent(path: str | Path, seed: int | None = None, deterministic: bool = True) -> PPOAgent:
    """The agent of a MaskablePPO model: a run folder (`runs/<name>`) or a saved `.zip`."""
    from sb3_contrib import MaskablePPO

    model_path = resolve_model_path(path)
    model = MaskablePPO.load(model_path, device="cpu")
    return PPOAgent(PolicyActor.from_policy(model.policy), deterministic=deterministic, seed=seed, name=str(path))
