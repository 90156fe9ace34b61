"""`GreedyAgent`: the compiled `greedy` baseline (`suntzu_env.suntzu.baselines.greedy`) as an `Agent`, declared in
`suntzu_env.suntzu.baselines.players`."""

from suntzu_env.suntzu.baselines.players import GreedyAgent

__all__ = ["GreedyAgent"]
