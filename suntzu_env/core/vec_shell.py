"""The rest of SB3's `VecEnv` for batched envs whose games live in this process's arrays, written once for every
game's batched env (`suntzu_env.suntzu.vec.env`, `suntzu_env.binfa.vec_env`, `suntzu_env.core.turn_envs`) and
for the training bench's stub; and `BatchedVectorEnv`, such an env under Gymnasium's vector API.

A subclass defines what plays (`reset`, `step_async`, `step_wait`, `action_masks`, `seed`) and may name:

- `env_values(name)`: each env's own value of an attribute ("seat", "opponent": the game in progress's), which
  `get_attr` returns row by row;
- `set_env_opponents(opponent, envs)`: what `set_attr("opponent", ...)` and `env_method("set_opponent", ...)`
  do (by default, `set_opponents` for every env at once, where the env has it).
- `vector_step(actions)` (a step without per-env info dicts) and `mask_rows()`: what `BatchedVectorEnv` reads.

Everything else is the env's own attribute, the same for every env; a private or unknown name is an
AttributeError naming the env's class, never a value made up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

PER_ENV = ("seat", "opponent")  # the attributes every env holds its own value of (the game in progress's)


class BatchedVecEnv(VecEnv):
    """SB3's `VecEnv` methods beyond playing, for games held in one process (no sub-processes, no wrappers)."""

    def env_values(self, name: str) -> list[Any] | None:
        """Each env's own value of attribute `name`, one per env; None when it is not a per-env attribute."""
        return None

    def set_env_opponents(self, opponent: Any, envs: list[int]) -> None:
        """Set the opponent of the envs `envs` from their next game on. By default every env draws its opponent from
        one mix, the env's `set_opponents(opponent)`, so `envs` must be every env; an env without `set_opponents`
        sets none."""
        set_opponents = getattr(self, "set_opponents", None)
        if set_opponents is None:
            raise AttributeError(f"{type(self).__name__}: no attribute can be set with set_attr")
        if envs != list(range(self.num_envs)):
            raise ValueError(f"set_attr: {type(self).__name__} draws every env's opponent from one mix; set it for "
                             "every env (indices=None)")  # fmt: skip
        set_opponents(opponent)

    def _envs(self, indices: VecEnvIndices) -> list[int]:
        return [int(i) for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute `attr_name` of each env of `indices` ("seat" and "opponent": each env's own)."""
        envs = self._envs(indices)
        values = self.env_values(attr_name)
        if values is not None:
            return [values[i] for i in envs]
        if attr_name.startswith("_") or not hasattr(self, attr_name):
            raise AttributeError(f"{type(self).__name__} has no attribute {attr_name!r}")
        value = getattr(self, attr_name)
        return [value for _ in envs]

    def has_attr(self, attr_name: str) -> bool:
        return self.env_values(attr_name) is not None or (not attr_name.startswith("_") and hasattr(self, attr_name))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Only "opponent" can be set (from each env's next game), where the env allows it."""
        if attr_name != "opponent":
            raise AttributeError(f"{type(self).__name__}: only 'opponent' can be set with set_attr, not {attr_name!r}")
        self.set_env_opponents(value, self._envs(indices))

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """ "action_masks" (each env's row, as MaskablePPO asks) or "set_opponent" (as `set_attr("opponent")`)."""
        envs = self._envs(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[envs])
        if method_name == "set_opponent":
            self.set_env_opponents(*method_args, envs, **method_kwargs)
            return [None for _ in envs]
        raise AttributeError(f"{type(self).__name__}: env_method knows 'action_masks' and 'set_opponent', "
                             f"not {method_name!r}")  # fmt: skip

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._envs(indices)]

    def get_images(self) -> Sequence[Any]:
        raise NotImplementedError(f"{type(self).__name__} does not render; replay a game's record to see it")

    def close(self) -> None:
        """Nothing to release: the games live in this process's arrays."""

    def action_masks(self) -> Any:
        """The (n_envs, n_actions) booleans of each env's legal actions."""
        raise NotImplementedError

    # ------------------------------------------------------------ what `BatchedVectorEnv` reads
    def vector_step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play `actions` without per-env info dicts: observations, rewards, which envs ended a game, which of those
        the turn limit cut, and the ended games' last observations (rows of ended envs only)."""
        raise NotImplementedError(f"{type(self).__name__} has no Gymnasium vector face")

    def mask_rows(self) -> np.ndarray:
        """The masks of every env's pending decision, as the vector API's `infos["action_mask"]` copies them."""
        return np.asarray(self.action_masks())


class BatchedVectorEnv(gymnasium.vector.VectorEnv):
    """A `BatchedVecEnv` under Gymnasium's vector API, with same-step autoreset: a finished env's observation is
    its next game's; the last one is in `infos["final_obs"]` where `infos["_final_obs"]` (an object array, None
    elsewhere, as Gymnasium's own vector envs give it). A game the turn limit cut is truncated, not terminated.
    `infos["action_mask"]` holds the masks after every reset and step; `action_masks()` gives them as booleans."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env: BatchedVecEnv) -> None:
        self.env = env
        self.num_envs = env.num_envs
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        if options:
            raise ValueError(f"reset(options=...): {type(self).__name__} takes no reset options, got {options!r:.60}")
        if seed is not None:
            self.env.seed(seed)
        obs = self.env.reset()
        return obs, {"action_mask": self.env.mask_rows().copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, ended, truncated, last = self.env.vector_step(np.asarray(actions))
        infos: dict[str, Any] = {"action_mask": self.env.mask_rows().copy()}
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended).tolist():
                final[i] = last[i].copy()
            infos["final_obs"] = final
            infos["_final_obs"] = ended.copy()
        return obs, rewards, ended & ~truncated, ended & truncated, infos

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.action_masks(), dtype=bool).copy()

    def close_extras(self, **kwargs: Any) -> None:
        self.env.close()


__all__ = ["PER_ENV", "BatchedVecEnv", "BatchedVectorEnv"]
