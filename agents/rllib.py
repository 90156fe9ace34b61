"""A policy trained with RLlib as an agent: `load_rllib_agent(path)`, the `rllib:<checkpoint>` spec of `make_agent`.

The learner's module (`experiments.train_rllib`: RLlib's action-masking PPO module) is read from the checkpoint's
`learner_group/learner/rl_module/learner` and its actor (encoder then policy head) copied into the game's compiled
policy network, as the `ppo:` agents are (`agents.ppo.PolicyActor`): it plays the argmax of its masked logits, one
game or a batch. The checkpoint is read as data (its weights only); nothing in it is unpickled as code.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from agents.ppo import ModelError, PolicyActor, PPOAgent, UnsafeFileError, check_sizes, describe_error, read_pickle

MODULE_PATH = ("learner_group", "learner", "rl_module", "learner")  # the learner's module inside a checkpoint


def module_folder(path: str | Path) -> Path:
    """The learner module's folder of a checkpoint (a run folder, an algorithm checkpoint or the module's own)."""
    p = Path(path)
    for candidate in (p / "checkpoint" / Path(*MODULE_PATH), p / Path(*MODULE_PATH), p):
        if (candidate / "module_state.pkl").is_file() or (candidate / "module_state.pt").is_file():
            return candidate
    raise ModelError(f"no RLlib checkpoint at {path}: expected a folder saved by experiments.train_rllib "
                     f"(with {'/'.join(MODULE_PATH)})")  # fmt: skip


MAX_STATE = 512 * 2**20  # bytes: the largest module state read


def read_state(folder: Path) -> dict[str, np.ndarray]:
    """The module's weights, read as data: `module_state.pt` with `torch.load(weights_only=True)`, or
    `module_state.pkl` as data (`agents.ppo.read_pickle`: dicts and numeric numpy arrays only)."""
    pt, pkl = folder / "module_state.pt", folder / "module_state.pkl"
    file = pt if pt.is_file() else pkl
    if file.stat().st_size > MAX_STATE:
        raise ValueError(f"{file.name} is {file.stat().st_size} bytes")
    if file is pt:
        import torch

        try:
            state = torch.load(file, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as error:  # torch's weights-only reader met more than tensors
            raise UnsafeFileError(f"{file.name} is not data ({describe_error(error)})") from None
    else:
        state = read_pickle(file.read_bytes())
    if not isinstance(state, dict):
        raise ValueError(f"{file.name} does not hold a dict of arrays")
    out = {}
    for key, value in state.items():
        array = value.detach().cpu().numpy() if hasattr(value, "detach") else value
        if not isinstance(key, str) or not isinstance(array, np.ndarray) or array.dtype.kind not in "fiub":
            raise ValueError(f"{file.name} holds {key!r}, which is not a numeric array")
        out[key] = array
    return out


def _layer_order(key: str) -> tuple[int, ...]:
    return tuple(int(part) for part in key.split(".") if part.isascii() and part.isdigit())


def actor_of(state: dict[str, np.ndarray], activation: str = "Tanh") -> PolicyActor:
    """The actor of an RLlib PPO module's weights (its actor encoder, then its policy head: `fcnet_activation`
    tanh, as `experiments.train_rllib` trains it), frozen."""
    weights, biases = [], []
    for prefix in ("encoder.actor_encoder.", "encoder.encoder.", "pi."):
        if prefix == "encoder.encoder." and weights:
            continue  # a separate actor encoder was found: the shared one is not the actor's
        keys = sorted((k for k in state if k.startswith(prefix) and k.endswith(".weight")), key=_layer_order)
        for key in keys:
            bias = key[: -len("weight")] + "bias"
            if bias not in state:
                raise ValueError(f"the layer {key} has no bias")
            weights.append(state[key].astype(np.float32))
            biases.append(state[bias].astype(np.float32))
    if not weights:
        raise ValueError("the module has no actor encoder and policy head layers")
    return PolicyActor(weights, biases, activation)


def load_rllib_agent(path: str | Path, seed: int | None = None) -> PPOAgent:
    """The agent of an RLlib checkpoint's learner module, read as data (refused with a `ModelError` naming what is
    wrong); RLlib itself is not needed to play it."""
    folder = module_folder(path)
    try:
        state = read_state(folder)
    except UnsafeFileError as error:  # refused as such, never mistaken for a damaged file
        raise UnsafeFileError(f"{folder} is not a readable RLlib module ({error})") from None
    except Exception as error:  # a damaged or foreign state fails in many ways: refused pickles, tensors, files
        raise ModelError(f"{folder} is not a readable RLlib module ({describe_error(error)})") from None
    try:
        actor = actor_of(state)
    except ValueError as error:
        raise ModelError(f"{folder} cannot play here: {error}") from None
    check_sizes(actor.net.n_inputs, actor.net.n_outputs, folder)
    return PPOAgent(actor, deterministic=True, seed=seed, name=f"rllib:{path}")
