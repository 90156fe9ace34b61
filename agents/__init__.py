"""Players for Sun Tzu: one protocol, scripted baselines and a registry by name.

| name        | agent            | plays                                                            |
|-------------|------------------|------------------------------------------------------------------|
| `random`    | `RandomAgent`    | uniformly among the legal actions, seeded                        |
| `greedy`    | `GreedyAgent`    | a one-step rule: best cards where the coming scoring pays most   |
| `heuristic` | `HeuristicAgent` | a strategy from the rules: expected-value plans, saved cards     |
| `ismcts`, `ismcts:<iterations>` | `ISMCTSAgent` | information-set MCTS over determinizations, compiled |
| `ismcts-value:<path>` | `ISMCTSAgent` | the search with a learned value (`experiments.train_value`)  |
| `ppo:<path>`| `agents.ppo`     | a trained policy, loaded lazily (imports torch only then)        |
| `rllib:<checkpoint>` | `agents.rllib` | a policy trained with RLlib (`experiments.train_rllib`), lazily |

Every agent decides from its side's observation vector and the legal-action mask only (R9); `ismcts` also
gets the game through `observe_game` (`suntzu_env.core.protocol.ask`) and reads it only through determinizations.
"""

from agents.base import Agent, RandomAgent
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.ismcts import ISMCTSAgent
from agents.registry import AGENT_NAMES, check_spec, make_agent, short_label, valid_specs

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "RandomAgent",
    "check_spec",
    "make_agent",
    "short_label",
    "valid_specs",
]
