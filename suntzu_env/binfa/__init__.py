"""Bin'Fa: The Tao of War, the second game (rules in docs/binfa-rules.md, ids B1-B50 and BD1 on).

`from suntzu_env.binfa import Game`. The engine (`suntzu_env.binfa.engine`) is compiled with numba over
the fixed-layout state of `suntzu_env.binfa.layout`; the board is declared in `suntzu_env.binfa.geometry`
and the action space in `suntzu_env.binfa.actions`. For learning: the compact, player's-view action space
(`suntzu_env.binfa.encoding`) and observation (`suntzu_env.binfa.observation`, BD12), the PettingZoo AEC
environment `env(**options)`, the Gymnasium environment "BinFa-v3" (`gym_env`, registered on import), the
batched `vec_env.BinFaVecEnv`, the compiled agents (`agents`) and their ladder, and `plugin.BINFA`.
"""

from __future__ import annotations

from suntzu_env.core import retired
from suntzu_env.core.lazy import lazy_names

_PUBLIC: dict[str, str] = {
    "N_ACTIONS": "suntzu_env.binfa.actions",
    "N_LEARN_ACTIONS": "suntzu_env.binfa.encoding",
    "OBSERVATION_SIZE": "suntzu_env.binfa.observation",
    "Game": "suntzu_env.binfa.game",
    "Options": "suntzu_env.binfa.options",
    "RecordError": "suntzu_env.binfa.records",
    "action_to_string": "suntzu_env.binfa.actions",
    "env": "suntzu_env.binfa.binfa_v3",
    "parallel_env": "suntzu_env.binfa.binfa_v3",
    "raw_env": "suntzu_env.binfa.binfa_v3",
    "string_to_action": "suntzu_env.binfa.actions",
}
"""each public name -> the module it is imported from when first used (so that importing one module of the game
loads no other)"""

ENV_ID = "BinFa-v3"
"""Bin'Fa's Gymnasium id, registered when the game's package is imported (the game loads when one is made)"""
ENV_NAME = "binfa_v3"
"""Bin'Fa's PettingZoo environment's name (its module's, `binfa_v3`), which results name their environment by"""


__getattr__, __dir__ = lazy_names(globals(), _PUBLIC)


def register() -> None:
    """Register `BinFaGymEnv` with Gymnasium as "BinFa-v3" (done when `suntzu_env.binfa` is imported), and the ids
    of earlier versions, whose making raises saying what changed."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="suntzu_env.binfa.gym_env:BinFaGymEnv")
    retired.register_retired(gymnasium)


register()

__all__ = sorted([*_PUBLIC, "ENV_ID", "ENV_NAME"])
