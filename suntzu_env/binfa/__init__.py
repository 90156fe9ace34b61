"""Bin'Fa: The Tao of War, the second game (rules in docs/binfa-rules.md, ids B1-B50 and BD1 on).

`from suntzu_env.binfa import Game`. The engine (`suntzu_env.binfa.engine`) is compiled with numba over
the fixed-layout state of `suntzu_env.binfa.layout`; the board is declared in `suntzu_env.binfa.geometry`
and the action space in `suntzu_env.binfa.actions`. For learning: the compact, player's-view action space
(`suntzu_env.binfa.encoding`) and observation (`suntzu_env.binfa.observation`, BD12), the PettingZoo AEC
environment `env(**options)`, the Gymnasium environment "BinFa-v2" (`gym_env`, registered on import), the
batched `vec_env.BinFaVecEnv`, the compiled agents (`agents`) and their ladder, and `plugin.BINFA`.
"""

from typing import Any

from suntzu_env.binfa.actions import N_ACTIONS, action_to_string, string_to_action
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.gym_env import register
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.options import Options
from suntzu_env.binfa.records import RecordError


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC environment (`suntzu_env.binfa.binfa_v2.env`): `env(level=1, players=3)`."""
    from suntzu_env.binfa.binfa_v2 import env as make

    return make(**kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """The PettingZoo Parallel environment (`suntzu_env.binfa.binfa_v2.parallel_env`): the AEC one, turn by turn."""
    from suntzu_env.binfa.binfa_v2 import parallel_env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The AEC environment without PettingZoo's wrappers (an illegal action raises by default)."""
    from suntzu_env.binfa.binfa_v2 import raw_env as make

    return make(**kwargs)


register()

__all__ = [
    "N_ACTIONS",
    "N_LEARN_ACTIONS",
    "OBSERVATION_SIZE",
    "Game",
    "Options",
    "RecordError",
    "action_to_string",
    "env",
    "parallel_env",
    "raw_env",
    "string_to_action",
]
