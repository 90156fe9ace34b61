"""A policy trained with RLlib as an agent: `load_rllib_agent(path)`, the `rllib:<checkpoint>` spec of `make_agent`.

The learner's module (`experiments.train_rllib`: RLlib's action-masking PPO module) is read from the checkpoint's
`learner_group/learner/rl_module/learner` and its actor (encoder then policy head) copied into the game's compiled
policy network, as the `ppo:` agents are (`agents.ppo.PolicyActor`): it plays the argmax of its masked logits, one
game or a batch.
"""

from __future__ import annotations

from pathlib import Path

from agents.ppo import ACTIVATIONS, ModelError, PolicyActor, PPOAgent, check_spaces, describe_error

MODULE_PATH = ("learner_group", "learner", "rl_module", "learner")  # the learner's module inside a checkpoint


def module_folder(path: str | Path) -> Path:
    """The learner module's folder of a checkpoint (a run folder, an algorithm checkpoint or the module's own)."""
    p = Path(path)
    for candidate in (p / "checkpoint" / Path(*MODULE_PATH), p / Path(*MODULE_PATH), p):
        if (candidate / "module_state.pkl").is_file() or (candidate / "module_state.pt").is_file():
            return candidate
    raise ModelError(f"no RLlib checkpoint at {path}: expected a folder saved by experiments.train_rllib "
                     f"(with {'/'.join(MODULE_PATH)})")  # fmt: skip


def actor_of(module: object) -> PolicyActor:
    """The actor of an RLlib PPO torch module with an MLP encoder and head, frozen."""
    import torch

    encoder = module.encoder  # type: ignore[attr-defined]
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    weights, biases, activation = [], [], "Tanh"
    for layer in [*actor.modules(), *module.pi.modules()]:  # type: ignore[attr-defined]
        if isinstance(layer, torch.nn.Linear):
            weights.append(layer.weight.detach().cpu().numpy().copy())
            biases.append(layer.bias.detach().cpu().numpy().copy())
        elif type(layer).__name__ in ACTIVATIONS:
            activation = type(layer).__name__
    if not weights:
        raise ValueError("the module has no linear layers")
    return PolicyActor(weights, biases, activation)


def load_rllib_agent(path: str | Path, seed: int | None = None) -> PPOAgent:
    """The agent of an RLlib checkpoint's learner module (refused with a `ModelError` naming what is wrong)."""
    folder = module_folder(path)
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ModelError(f'rllib:{path} needs RLlib, which is not installed: pip install -e ".[ray]"') from None
    try:
        module = RLModule.from_checkpoint(str(folder.resolve()))
    except Exception as error:  # a damaged checkpoint fails in many ways: pickles, tensors, missing files
        raise ModelError(f"{folder} is not a readable RLlib module ({describe_error(error)})") from None
    space = getattr(module, "observation_space", None)
    observations = space["observations"] if hasattr(space, "spaces") and "observations" in space.spaces else space
    check_spaces(observations, module.action_space, folder)
    try:
        actor = actor_of(module)
    except (ValueError, AttributeError) as error:
        raise ModelError(f"{folder} cannot play here: {error}") from None
    return PPOAgent(actor, deterministic=True, seed=seed, name=f"rllib:{path}")
