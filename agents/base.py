"""The agent protocol and the random baseline (both declared in the package: `suntzu_env.agent`,
`suntzu_env.baselines.players`), and the checks every compiled baseline's input passes first."""

from suntzu_env.agent import Agent
from suntzu_env.baselines.players import RandomAgent, checked, generator

__all__ = ["Agent", "RandomAgent", "checked", "generator"]
