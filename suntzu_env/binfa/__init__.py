"""Bin'Fa: The Tao of War, the second game (rules in docs/binfa-rules.md, ids B1-B50 and BD1 on).

`from suntzu_env.binfa import Game`. The engine (`suntzu_env.binfa.engine`) is compiled with numba over
the fixed-layout state of `suntzu_env.binfa.layout`; the board is declared in `suntzu_env.binfa.geometry`
and the action space in `suntzu_env.binfa.actions`.
"""

from suntzu_env.binfa.actions import N_ACTIONS, action_to_string, string_to_action
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.options import Options
from suntzu_env.binfa.records import RecordError

__all__ = ["N_ACTIONS", "Game", "Options", "RecordError", "action_to_string", "string_to_action"]
