"""The agent protocol and the random baseline (both declared in the package: `suntzu_env.core.agent`,
`suntzu_env.suntzu.baselines.players`), and the checks every compiled baseline's input passes first."""

from suntzu_env.core.agent import Agent
from suntzu_env.suntzu.baselines.players import RandomAgent, checked, generator

__all__ = ["Agent", "RandomAgent", "checked", "generator"]
