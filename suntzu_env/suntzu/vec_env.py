"""`SunTzuVecEnv`: many games of Sun Tzu for one learner, stepped at once in compiled code.

A Stable-Baselines3 `VecEnv` (with `action_masks()` for sb3-contrib's `MaskablePPO`) whose every call steps
all its games in compiled code (`suntzu_env.suntzu.vec_core`): the learner's actions, the opponents' replies, the
rewards, the ends and new games, the observations and masks, written into preallocated arrays. It plays
the games `SunTzuGymEnv` plays, game for game (the same engine, observation encoder and episode rules:
`suntzu_env.suntzu.tables`' `episode_over`, `step_reward`, `shaping_potential`, `shaping_term`, which
`suntzu_env.suntzu.episode.Episode` calls too). `SunTzuVectorEnv` is the same environment under Gymnasium's
vector API.

    from sb3_contrib import MaskablePPO
    from suntzu_env.suntzu.vec_env import SunTzuVecEnv

    env = SunTzuVecEnv(64, opponents="random", seed=0)
    MaskablePPO("MlpPolicy", env).learn(100_000)

Opponents are the compiled baselines (`random`, `greedy`, `heuristic`: `suntzu_env.suntzu.baselines`) and trained
policy networks (`agents.ppo.PPOAgent`: self-play snapshots, `ppo:<path>`), played inside the compiled step, or
policies asked from Python: a callable `policy(observations[M, D], masks[M, A]) -> actions[M]` asked once per
"opponent round" for all the games waiting on it (one batched call), an object with such an `act_batch`
method, or an `Agent` asked game by game. This module imports Stable-Baselines3, so the package does not
import it: `from suntzu_env.suntzu.vec_env import SunTzuVecEnv`.
"""

from suntzu_env.suntzu.vec.env import SEAT_MODES, SunTzuVecEnv
from suntzu_env.suntzu.vec.play import batchable, play_batched
from suntzu_env.suntzu.vec.slots import OPPONENTS_HELP
from suntzu_env.suntzu.vec.vector import SunTzuVectorEnv

__all__ = ["OPPONENTS_HELP", "SEAT_MODES", "SunTzuVecEnv", "SunTzuVectorEnv", "batchable", "play_batched"]
