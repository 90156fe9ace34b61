"""`HeuristicAgent`: the compiled `heuristic` baseline (`suntzu_env.suntzu.baselines.heuristic`) as an `Agent`, declared
in `suntzu_env.suntzu.baselines.players`."""

from suntzu_env.suntzu.baselines import DEFAULT_PARAMS, HeuristicParams
from suntzu_env.suntzu.baselines.players import HeuristicAgent

__all__ = ["DEFAULT_PARAMS", "HeuristicAgent", "HeuristicParams"]
