"""suntzu-env: the Sun Tzu card-and-area-control game as a reinforcement-learning environment.

`Game` is the engine's Python face, `Options` the rules a game is played under, `Agent` the protocol every
player implements; `env`, `raw_env` and `parallel_env` are the PettingZoo environments
(AEC and Parallel) and `SunTzuGymEnv` the single-agent Gymnasium wrapper, registered as `"SunTzu-v3"`
(`gymnasium.make("SunTzu-v3")` once this package is imported); the rules v1 names (`suntzu_v1`,
`"SunTzu-v1"`) raise `RetiredEnvironmentError` saying what changed; `SUNTZU` is the game as a
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
from suntzu_env.retired import RetiredEnvironmentError
from suntzu_env.retired import install as _install_retired_names
from suntzu_env.suntzu_game import SUNTZU
from suntzu_env.suntzu_v3 import IllegalActionWarning, env, parallel_env, raw_env

register()
_install_retired_names()  # `import suntzu_env.suntzu_v1` says what replaced it

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
    "RetiredEnvironmentError",
    "SunTzuGymEnv",
    "describe_observation",
    "env",
    "parallel_env",
    "raw_env",
]
__version__ = "0.1.0"
