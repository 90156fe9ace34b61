"""`SunTzuVectorEnv`: `SunTzuVecEnv` under Gymnasium's vector API."""

from __future__ import annotations

from typing import Any

from suntzu_env.core.vec_shell import BatchedVectorEnv
from suntzu_env.suntzu.vec.env import SunTzuVecEnv


class SunTzuVectorEnv(BatchedVectorEnv):
    """`SunTzuVecEnv` under Gymnasium's vector API (same-step autoreset: a finished env's observation is its
    next game's, the last one in `infos["final_obs"]` where `infos["_final_obs"]`: an object array, None
    elsewhere, as Gymnasium's own vector envs give it).

    Takes `SunTzuVecEnv`'s arguments (`num_envs` for `n_envs`; `opponent=` or `opponents=`). It is the vector
    entry point of `"SunTzu-v3"`: `gymnasium.make_vec("SunTzu-v3", num_envs=8, opponent="greedy")` makes one.
    `infos["action_mask"]` holds the (N, A) int8 masks after every reset and step; `action_masks()` gives them
    as booleans.
    """

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        super().__init__(SunTzuVecEnv(num_envs, **kwargs))


__all__ = ["SunTzuVectorEnv"]
