"""The observation formats other RL libraries want, as PettingZoo wrappers over `env()` and `parallel_env()`.

Our environments give each agent `{"observation": float32[N], "action_mask": int8[A]}`, with the same mask in
`infos[agent]["action_mask"]`. `observation_format` rewrites that, for the AEC and the Parallel environment
alike, with nothing else changed (rewards, ends, infos' other keys, `state()`):

| helper                 | observation                                 | masks                         | for           |
|------------------------|---------------------------------------------|-------------------------------|---------------|
| `rllib_observations`   | `{"observations": ..., "action_mask": ...}` | int8                          | RLlib         |
| `box_observations`     | the float32 vector alone (a `Box`)          | int8, in the infos only       | TorchRL       |
| `agilerl_observations` | the float32 vector alone (a `Box`)          | Python lists, in the infos    | AgileRL       |
| `bool_masks`           | the dict                                    | bool, observations and infos  | bool readers  |

RLlib's example `ActionMaskingTorchRLModule` reads the keys `observations` and `action_mask`; wrap the AEC
environment for its `PettingZooEnv`, the Parallel one (`parallel_env(idle="noop")`) for its
`ParallelPettingZooEnv`. TorchRL's `PettingZooWrapper(use_mask=True)` takes the mask from the observation or
from the infos, but fails on an environment that has it in both and another key in its infos (as
`parallel_env(idle="noop")`'s `active`): give it `box_observations`. AgileRL's multi-agent algorithms take a
`Box` observation and read the mask from the infos, and test it against None with `in`, which a numpy mask
cannot answer: `agilerl_observations` gives it lists. Masks are copies: a learner may keep them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import BaseParallelWrapper, BaseWrapper

from suntzu_env.core.checks import check_choice

OBSERVATION = "observation"
MASK = "action_mask"
MASK_TYPES = ("int8", "bool", "list")  # a list: the infos' masks as Python lists of 0/1 (observations keep arrays)


class _Format:
    """How observations and masks are rewritten: the vector's key (None: the vector alone), the masks' type."""

    def __init__(self, key: str | None, masks: str) -> None:
        self.key = key
        self.masks = masks
        self.mask_dtype = bool if masks == "bool" else np.int8

    def space(self, space: spaces.Space[Any]) -> spaces.Space[Any]:
        if not isinstance(space, spaces.Dict) or set(space.spaces) != {OBSERVATION, MASK}:
            raise ValueError(
                "observation_format needs the dict observation {'observation', 'action_mask'}; "
                "make the environment with flat_observation=False"
            )
        if self.key is None:
            return space[OBSERVATION]
        mask = space[MASK]
        return spaces.Dict({self.key: space[OBSERVATION], MASK: spaces.Box(0, 1, mask.shape, dtype=self.mask_dtype)})

    def mask(self, mask: np.ndarray) -> np.ndarray:
        return mask.astype(self.mask_dtype)

    def observation(self, seen: dict[str, np.ndarray]) -> Any:
        if self.key is None:
            return seen[OBSERVATION]
        return {self.key: seen[OBSERVATION], MASK: self.mask(seen[MASK])}

    def info(self, info: dict[str, Any]) -> dict[str, Any]:
        if MASK not in info or self.masks == "int8":
            return info
        mask = info[MASK].tolist() if self.masks == "list" else self.mask(info[MASK])
        return {**info, MASK: mask}


class FormattedAEC(BaseWrapper):
    """An AEC environment (`env()`) with its observations and masks in another format (`observation_format`)."""

    def __init__(self, env: AECEnv, form: _Format) -> None:
        super().__init__(env)
        self._form = form
        self._spaces = {agent: form.space(env.observation_space(agent)) for agent in env.possible_agents}
        self._infos: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # agent: (the env's info, ours)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._spaces[agent]

    def observe(self, agent: str) -> Any:
        return self._form.observation(self.env.observe(agent))

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The env's infos in this format; the same dict while the env's is the same (as `last()` and
        PettingZoo's `api_test` expect)."""
        out = {}
        for agent, info in self.env.infos.items():
            known = self._infos.get(agent)
            if known is None or known[0] is not info:
                known = self._infos[agent] = (info, self._form.info(info))
            out[agent] = known[1]
        return out


class FormattedParallel(BaseParallelWrapper):
    """A Parallel environment (`parallel_env()`) with its observations and masks in another format."""

    def __init__(self, env: ParallelEnv, form: _Format) -> None:
        super().__init__(env)
        self._form = form
        self._spaces = {agent: form.space(env.observation_space(agent)) for agent in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._spaces[agent]

    def _formatted(self, observations: dict[str, Any], infos: dict[str, dict[str, Any]]) -> tuple[dict, dict]:
        form = self._form
        return (
            {agent: form.observation(seen) for agent, seen in observations.items()},
            {agent: form.info(info) for agent, info in infos.items()},
        )

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        return self._formatted(*self.env.reset(seed=seed, options=options))

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        observations, infos = self._formatted(observations, infos)
        return observations, rewards, terminations, truncations, infos


def observation_format(env: Any, *, key: str | None = OBSERVATION, masks: str = "int8") -> Any:
    """`env` (AEC or Parallel, dict observations) with the observation vector under `key` beside the mask, or
    alone with `key=None` (the mask then only in the infos), and its masks `masks`: "int8" (as the environment
    gives them), "bool", or "list" (the infos' masks as Python lists)."""
    if key is not None and (not isinstance(key, str) or key == MASK):
        raise ValueError(f"key must be a name other than {MASK!r}, or None, got {key!r}")
    form = _Format(key, check_choice(masks, "masks", MASK_TYPES))
    if isinstance(env, ParallelEnv):
        return FormattedParallel(env, form)
    if isinstance(env, AECEnv):
        return FormattedAEC(env, form)
    raise TypeError(f"observation_format takes a PettingZoo AEC or Parallel environment, got {type(env).__name__}")


def rllib_observations(env: Any) -> Any:
    """`{"observations", "action_mask"}`, the keys RLlib's action-masking module reads (AEC or Parallel)."""
    return observation_format(env, key="observations")


def box_observations(env: Any) -> Any:
    """The observation vector alone (a `Box`), the int8 mask in the infos only: what TorchRL's
    `PettingZooWrapper` takes with `parallel_env(idle="noop")` (AEC or Parallel)."""
    return observation_format(env, key=None)


def agilerl_observations(env: Any) -> Any:
    """The observation vector alone (a `Box`), the mask in the infos as a Python list: what AgileRL's
    multi-agent algorithms take (AEC or Parallel)."""
    return observation_format(env, key=None, masks="list")


def bool_masks(env: Any) -> Any:
    """The same dict observation with bool masks, in the observations and the infos (AEC or Parallel)."""
    return observation_format(env, masks="bool")


__all__ = [
    "MASK_TYPES",
    "FormattedAEC",
    "FormattedParallel",
    "agilerl_observations",
    "bool_masks",
    "box_observations",
    "observation_format",
    "rllib_observations",
]
