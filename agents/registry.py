"""Agents by name: every entry point builds its players with `make_agent(spec)`."""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent, RandomAgent
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.ismcts import ISMCTSAgent

AGENTS: dict[str, Callable[[int | None], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "ismcts": ISMCTSAgent,
}
AGENT_NAMES: tuple[str, ...] = tuple(AGENTS)
PPO_PREFIX = "ppo:"
RLLIB_PREFIX = "rllib:"  # rllib:<checkpoint> of experiments.train_rllib
POLICY_PREFIXES = (PPO_PREFIX, RLLIB_PREFIX)  # trained policies, loaded from a path
ISMCTS_PREFIX = "ismcts:"  # ismcts:<iterations>


def valid_specs() -> str:
    """The accepted agent specs, for error messages and `--help`."""
    return (
        ", ".join(AGENT_NAMES) + f", {ISMCTS_PREFIX}<iterations>, {PPO_PREFIX}<path-to-model>, or "
        f"{RLLIB_PREFIX}<checkpoint>"
    )


def _iterations(spec: str) -> int:
    """The iterations of an `ismcts:<iterations>` spec; ValueError unless a whole number >= 1."""
    text = spec[len(ISMCTS_PREFIX) :]
    if not (text.isascii() and text.isdigit()) or int(text) < 1:  # "٣" is a digit to str.isdigit
        raise ValueError(f"agent {spec!r}: iterations must be a whole number >= 1; valid: {valid_specs()}")
    return int(text)


def check_spec(spec: str) -> None:
    """Raise ValueError unless `spec` names an agent (without loading any model)."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}; valid: {valid_specs()}")
    if spec in AGENTS:
        return
    if any(spec.startswith(prefix) and spec[len(prefix) :] for prefix in POLICY_PREFIXES):
        return
    if spec.startswith(ISMCTS_PREFIX):
        _iterations(spec)
        return
    raise ValueError(f"unknown agent {spec!r}; valid: {valid_specs()}")


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build the agent named by `spec`: `random`, `greedy`, `heuristic`, `ismcts`, `ismcts:<iterations>` or
    `ppo:<path-to-model>` or `rllib:<checkpoint>`.

    `ppo:` agents come from `agents.ppo.load_ppo_agent`, imported only then, so that importing
    `agents` never imports torch.
    """
    check_spec(spec)
    if spec.startswith(PPO_PREFIX):
        from agents.ppo import load_ppo_agent  # lazy: torch only when asked for

        return load_ppo_agent(spec[len(PPO_PREFIX) :], seed)
    if spec.startswith(RLLIB_PREFIX):
        from agents.rllib import load_rllib_agent  # lazy: RLlib only when asked for

        return load_rllib_agent(spec[len(RLLIB_PREFIX) :], seed)
    if spec.startswith(ISMCTS_PREFIX):
        return ISMCTSAgent(seed, iterations=_iterations(spec))
    return AGENTS[spec](seed)


def short_label(spec: str, width: int = 28) -> str:
    """A spec short enough for a header, a title or a table column; for reading only, never as a key.

    A model's path (`ppo:`, `rllib:`) is named by its run folder (`ppo:runs/x/model.zip` reads `ppo:x`, a
    checkpoint `ppo:x/ppo_256_steps`); what is still longer than `width` loses its middle to an ellipsis."""
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in ("ppo", "rllib") and rest:
        parts = [p for p in rest.replace("\\", "/").split("/") if p not in ("", ".")]
        if len(parts) >= 2 and parts[-1] in ("model.zip", "checkpoint"):
            parts = parts[:-1]
        if len(parts) >= 3 and parts[-2] == "checkpoints":
            name = f"{parts[-3]}/{parts[-1].removesuffix('.zip')}"
        else:
            name = parts[-1] if parts else rest
        spec = f"{prefix}:{name}"
    if len(spec) <= width:
        return spec
    head = (width - 1) // 2
    return f"{spec[:head]}…{spec[len(spec) - (width - 1 - head) :]}"
