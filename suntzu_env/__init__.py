"""suntzu-env: the war games of the Sun Tzu family as reinforcement-learning environments.

The package holds a game-free core (`suntzu_env.core`: the protocol a game answers, the registries of games and
players, input checks, state fields, the random generator, statistics, threads, the numba cache) and one
subpackage per game, each with the same module names: `suntzu_env.suntzu` (Sun Tzu, Alan Newman's two-player
game of simultaneous card play and area control) and `suntzu_env.binfa` (Bin'Fa: The Tao of War, dice, stacks
and encirclement for 2 to 6 players). Neither game imports the other.

Sun Tzu is the package's face: `Game` is its engine's Python face, `Options` the rules a game is played under,
`Agent` the protocol every player implements; `env`, `raw_env` and `parallel_env` are the PettingZoo
environments (AEC and Parallel) and `SunTzuGymEnv` the single-agent Gymnasium wrapper, registered as
`"SunTzu-v3"` (`gymnasium.make("SunTzu-v3")` once this package is imported); the rules v1 names (`suntzu_v1`,
`"SunTzu-v1"`) raise `RetiredEnvironmentError` saying what changed; `SUNTZU` is the game as a
`suntzu_env.core.protocol.GameRules`, which the experiments play it through. Each name is imported when first
used, so `import suntzu_env.binfa` loads no module of Sun Tzu. Training libraries and plotting are never
imported here; pictures are drawn only when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

import suntzu_env.core.numba_cache  # first: numba's cache folders are chosen before any code compiles
import suntzu_env.core.threads  # noqa: F401  before any OpenMP runtime starts: idle threads sleep instead of spinning
from suntzu_env.core import moved, retired
from suntzu_env.core.lazy import lazy_names

_PUBLIC: dict[str, str] = {
    "N_ACTIONS": "suntzu_env.suntzu.actions",
    "OBSERVATION_SIZE": "suntzu_env.suntzu.observation",
    "SUNTZU": "suntzu_env.suntzu.plugin",
    "Agent": "suntzu_env.core.agent",
    "EnvSettings": "suntzu_env.suntzu.episode",
    "Game": "suntzu_env.suntzu.game",
    "IllegalActionWarning": "suntzu_env.core.checks",
    "Options": "suntzu_env.suntzu.options",
    "RetiredEnvironmentError": "suntzu_env.core.retired",
    "SunTzuGymEnv": "suntzu_env.suntzu.gym_env",
    "describe_observation": "suntzu_env.suntzu.observation",
    "env": "suntzu_env.suntzu.suntzu_v3",
    "parallel_env": "suntzu_env.suntzu.suntzu_v3",
    "raw_env": "suntzu_env.suntzu.suntzu_v3",
}
"""each public name -> the module it is imported from when first used"""

ENV_ID = "SunTzu-v3"
"""Sun Tzu's Gymnasium id, registered when the package is imported (the game loads when one is made)"""


def _moved_module(name: str) -> Any:
    """`suntzu_env.engine` as an attribute, as it was before the games had their own folders; None for other names."""
    return importlib.import_module(f"suntzu_env.{name}") if moved.new_name(f"suntzu_env.{name}") else None


__getattr__, __dir__ = lazy_names(globals(), _PUBLIC, _moved_module)

moved.install()  # `import suntzu_env.game` finds Sun Tzu's `suntzu_env.suntzu.game`
retired.install()  # `import suntzu_env.suntzu_v1` says what replaced it


def register() -> None:
    """Register `SunTzuGymEnv` with Gymnasium as `"SunTzu-v3"` (done when `suntzu_env` is imported), with
    `SunTzuVectorEnv` as its vector entry point: `gymnasium.make_vec("SunTzu-v3", num_envs)` steps every game
    in compiled code (`vectorization_mode="sync"` or `"async"` gives Gymnasium's own vector envs instead); and
    the ids of earlier versions, whose making raises saying what changed."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="suntzu_env.suntzu.gym_env:SunTzuGymEnv",
            vector_entry_point="suntzu_env.suntzu.gym_env:make_vector_env",
        )
    retired.register_retired(gymnasium)


register()

__all__ = sorted([*_PUBLIC, "ENV_ID"])
__version__ = "0.1.0"
