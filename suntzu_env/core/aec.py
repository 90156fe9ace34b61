"""What every game's PettingZoo environments do the same way, written once: the spaces by agent, a new game's
tables of rewards and ends (AEC), and PettingZoo's rule for an agent whose game is over (AEC)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class AgentSpaces:
    """`observation_space(agent)` and `action_space(agent)` from the env's `observation_spaces`/`action_spaces`."""

    observation_spaces: dict[str, Any]
    action_spaces: dict[str, Any]

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]


def start_agents(env: Any, agents: Iterable[str]) -> None:
    """A new game's AEC tables: every agent listed, rewarded 0 so far, neither terminated nor truncated."""
    env.agents = list(agents)
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)


def dead_step(env: Any, action: Any) -> bool:
    """PettingZoo's rule for the selected agent once its game is over: its `step` takes None and passes the turn on
    (`_was_dead_step`); True when it was such an agent, and its step is done."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env._was_dead_step(action)
        return True
    return False
