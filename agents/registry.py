"""The kinds of player this project adds to the games' registries (`suntzu_env.core.players`): `ismcts`,
`ismcts-value:`, `ppo:` and `rllib:`, each an `AgentKind` that `pyproject.toml` declares as an entry point of
`suntzu_env.agents`. Sun Tzu's registry's functions are re-exported here, so `agents.make_agent(spec)` is
`suntzu_env.suntzu.players.make_agent`.
"""

from __future__ import annotations

from typing import Any

from suntzu_env.core.agent import Agent, AgentKind
from suntzu_env.core.players import short_label
from suntzu_env.suntzu.baselines.players import BASELINE_KINDS
from suntzu_env.suntzu.players import check_spec, make_agent, valid_specs

PPO_PREFIX = "ppo:"
RLLIB_PREFIX = "rllib:"  # rllib:<checkpoint> of experiments.train_rllib
POLICY_PREFIXES = (PPO_PREFIX, RLLIB_PREFIX)  # trained policies, loaded from a path
ISMCTS_PREFIX = "ismcts:"  # ismcts:<iterations>
ISMCTS_VALUE_PREFIX = "ismcts-value:"  # ismcts-value:<value network>, the search with a learned value


def _iterations(text: str) -> int:
    """The iterations of an `ismcts:<iterations>` spec; ValueError unless a whole number >= 1."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:  # "٣" is a digit to str.isdigit
        raise ValueError("iterations must be a whole number >= 1")
    return int(text)


def _ismcts(argument: str | None, seed: int | None) -> Agent:
    from agents.ismcts import ISMCTSAgent

    return ISMCTSAgent(seed) if argument is None else ISMCTSAgent(seed, iterations=_iterations(argument))


def value_search(value: Any, seed: int | None = None) -> Agent:
    """The player of `ismcts-value:<path>`: the search scoring its rollouts with `value`, a value network already
    read (`suntzu_env.suntzu.values.read_value_net`; shared by any number of players, each with its own scratch)."""
    from agents.ismcts import VALUE_HORIZON, VALUE_ITERATIONS, ISMCTSAgent

    return ISMCTSAgent(seed, iterations=VALUE_ITERATIONS, horizon=VALUE_HORIZON, value=value)


def _ismcts_value(argument: str | None, seed: int | None) -> Agent:
    from suntzu_env.suntzu.values import read_value_net

    return value_search(read_value_net(str(argument)), seed)


def _ppo(argument: str | None, seed: int | None) -> Agent:
    from agents.ppo import load_ppo_agent  # torch only when a model is loaded

    return load_ppo_agent(str(argument), seed)


def _ppo_for(argument: str, seed: int | None, rules: Any) -> Agent:
    from agents.ppo import load_ppo_agent

    return load_ppo_agent(argument, seed, game=rules)


def _rllib(argument: str | None, seed: int | None) -> Agent:
    from agents.rllib import load_rllib_agent

    return load_rllib_agent(str(argument), seed)


ISMCTS = AgentKind("ismcts", _ismcts, argument="<iterations>", check=_iterations)
ISMCTS_VALUE = AgentKind("ismcts-value", _ismcts_value, argument="<value-network>", bare=False)
PPO = AgentKind("ppo", _ppo, argument="<path-to-model>", bare=False, batched=True, load=_ppo_for)
RLLIB = AgentKind("rllib", _rllib, argument="<checkpoint>", bare=False, batched=True)
AGENT_KINDS: tuple[AgentKind, ...] = (ISMCTS, ISMCTS_VALUE, PPO, RLLIB)  # pyproject.toml's entry points name each


AGENT_NAMES: tuple[str, ...] = tuple(kind.name for kind in (*BASELINE_KINDS, *AGENT_KINDS) if kind.bare)


__all__ = [
    "AGENT_KINDS",
    "AGENT_NAMES",
    "ISMCTS_PREFIX",
    "ISMCTS_VALUE_PREFIX",
    "POLICY_PREFIXES",
    "PPO_PREFIX",
    "RLLIB_PREFIX",
    "check_spec",
    "make_agent",
    "short_label",
    "valid_specs",
    "value_search",
]
