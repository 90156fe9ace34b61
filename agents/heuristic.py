"""`HeuristicAgent`: the compiled `heuristic` baseline (`suntzu_env.baselines.heuristic`) as an `Agent`, declared
in `suntzu_env.baselines.players`."""

from suntzu_env.baselines import DEFAULT_PARAMS, HeuristicParams
from suntzu_env.baselines.players import HeuristicAgent

__all__ = ["DEFAULT_PARAMS", "HeuristicAgent", "HeuristicParams"]
