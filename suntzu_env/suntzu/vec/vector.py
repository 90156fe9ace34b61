"""`SunTzuVectorEnv`: `SunTzuVecEnv` under Gymnasium's vector API."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from suntzu_env.suntzu.vec.env import SunTzuVecEnv


class SunTzuVectorEnv(gymnasium.vector.VectorEnv):
    """`SunTzuVecEnv` under Gymnasium's vector API (same-step autoreset: a finished env's observation is its
    next game's, the last one in `infos["final_obs"]` where `infos["_final_obs"]`: an object array, None
    elsewhere, as Gymnasium's own vector envs give it).

    Takes `SunTzuVecEnv`'s arguments (`num_envs` for `n_envs`; `opponent=` or `opponents=`). It is the vector
    entry point of `"SunTzu-v3"`: `gymnasium.make_vec("SunTzu-v3", num_envs=8, opponent="greedy")` makes one.
    `infos["action_mask"]` holds the (N, A) int8 masks after every reset and step; `action_masks()` gives them
    as booleans.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.env = SunTzuVecEnv(num_envs, **kwargs)
        self.num_envs = self.env.num_envs
        self.single_observation_space = self.env.observation_space
        self.single_action_space = self.env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        if options:
            raise ValueError(f"reset(options=...): SunTzuVectorEnv takes no reset options, got {options!r}")
        if seed is not None:
            self.env.seed(seed)
        obs = self.env.reset()
        return obs, {"action_mask": self.env._masks.copy()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        env = self.env
        env.step_async(actions)
        dones = env._advance()  # no per-env info dicts: this API's infos are arrays
        infos: dict[str, Any] = {"action_mask": env._masks.copy()}
        if dones.any():  # as Gymnasium's own vector envs: an object array, None where no game ended
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(dones).tolist():
                final[i] = env._terminal_obs[i].copy()
            infos["final_obs"] = final
            infos["_final_obs"] = dones.copy()
        return env._obs, env._rewards.copy(), dones, np.zeros_like(dones), infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        self.env.close()


__all__ = ["SunTzuVectorEnv"]
