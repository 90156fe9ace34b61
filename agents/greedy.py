"""`GreedyAgent`: the compiled `greedy` baseline (`suntzu_env.baselines.greedy`) as an `Agent`, declared in
`suntzu_env.baselines.players`."""

from suntzu_env.baselines.players import GreedyAgent

__all__ = ["GreedyAgent"]
