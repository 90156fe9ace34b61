"""suntzu-env: the Sun Tzu card-and-area-control game as a reinforcement-learning environment.

`Game` is the engine's Python face, `Options` the rules a game is played under, `Agent` the protocol every
player implements; `env`, `raw_env` and `parallel_env` are the PettingZoo environments
(AEC and Parallel) and `SunTzuGymEnv` the single-agent Gymnasium wrapper, registered as `"SunTzu-v1"`
(`gymnasium.make("SunTzu-v1")` once this package is imported); `SUNTZU` is the game as a
`suntzu_env.protocol.GameRules`, which the experiments play it through. Training libraries and plotting are
never imported here; pictures are drawn only when asked for.
"""

import suntzu_env.numba_cache  # first: numba's cache folder is chosen before any code compiles
import suntzu_env.threads  # noqa: F401  before any OpenMP runtime starts: idle threads sleep instead of spinning
from suntzu_env.actions import N_ACTIONS
from suntzu_env.agent import Agent
from suntzu_env.episode import EnvSettings
from suntzu_env.game import Game
from suntzu_env.gym_env import ENV_ID, SunTzuGymEnv, register
from suntzu_env.observation import OBSERVATION_SIZE, describe_observation
from suntzu_env.options import Options
from suntzu_env.suntzu_game import SUNTZU
from suntzu_env.suntzu_v1 import IllegalActionWarning, env, parallel_env, raw_env

register()

__all__ = [
    "ENV_ID",
    "N_ACTIONS",
    "OBSERVATION_SIZE",
    "SUNTZU",
    "Agent",
    "EnvSettings",
    "Game",
    "IllegalActionWarning",
    "Options",
    "SunTzuGymEnv",
    "describe_observation",
    "env",
    "parallel_env",
    "raw_env",
]
__version__ = "0.1.0"
