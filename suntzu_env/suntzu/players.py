"""Sun Tzu's players by name, `make_agent(spec)`: the one registry every environment and front-end of the game
builds its players with. The scripted baselines `random`, `greedy` and `heuristic` are built in
(`suntzu_env.suntzu.baselines.players`); every other kind is installed (`suntzu_env.core.players`).
"""

from __future__ import annotations

from suntzu_env.core.players import Players
from suntzu_env.suntzu.baselines.players import BASELINE_KINDS

PLAYERS = Players(BASELINE_KINDS)
agent_kinds = PLAYERS.kinds
agent_names = PLAYERS.names
valid_specs = PLAYERS.valid_specs
agent_kind = PLAYERS.kind
check_spec = PLAYERS.check_spec
make_agent = PLAYERS.make_agent

__all__ = ["PLAYERS", "agent_kind", "agent_kinds", "agent_names", "check_spec", "make_agent", "valid_specs"]
