"""The scripted baselines, compiled: `random`, `greedy` and `heuristic`, each written once over the
observation vector (R9) and the legal-action mask.

| id | name        | one decision                                   | a batch                                        |
|----|-------------|------------------------------------------------|------------------------------------------------|
| 0  | `random`    | `random_act(obs, mask, rng) -> int`            | `random_act_batch(obs, masks, rng, out)`       |
| 1  | `greedy`    | `greedy_act(obs, mask) -> int`                 | `greedy_act_batch(obs, masks, out)`            |
| 2  | `heuristic` | `heuristic_act(obs, mask, params) -> int`      | `heuristic_act_batch(obs, masks, params, out)` |

`baseline_act(agent, obs, mask, rng, params)` and `baseline_act_batch(agent, obs, masks, rng, params, out)`
dispatch on the id, for compiled callers that pick an opponent per game. `obs` is the float32 vector of
`suntzu_env.suntzu.observation` (a batch: (N, OBSERVATION_SIZE)), `mask` the int8 mask of `Game.legal_mask()` (at
least one legal action), `rng` an `engine.rng.rng_seed` state (read only by `random`), `params` the
heuristic's float64 parameter array (`heuristic_params_array(HeuristicParams(...))`, default
`DEFAULT_PARAMS_ARRAY`). All are compiled with numba (`cache=True`) and run as plain Python under
`NUMBA_DISABLE_JIT=1`; callers check their inputs first (`agents` wraps them as `Agent`s).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.baselines.greedy import greedy_act, greedy_act_batch
from suntzu_env.suntzu.baselines.heuristic import (
    DEFAULT_PARAMS,
    DEFAULT_PARAMS_ARRAY,
    HeuristicParams,
    heuristic_act,
    heuristic_act_batch,
    heuristic_params_array,
)
from suntzu_env.suntzu.baselines.uniform import random_act, random_act_batch

BASELINES: tuple[str, ...] = ("random", "greedy", "heuristic")
RANDOM, GREEDY, HEURISTIC = range(len(BASELINES))


@njit(cache=True)
def baseline_act(agent: int, obs: np.ndarray, mask: np.ndarray, rng: np.ndarray, params: np.ndarray) -> int:
    """The action of baseline `agent` (an index of `BASELINES`) for one observation and mask."""
    if agent == GREEDY:
        return greedy_act(obs, mask)
    if agent == HEURISTIC:
        return heuristic_act(obs, mask, params)
    return random_act(obs, mask, rng)


@njit(cache=True)
def baseline_act_batch(
    agent: int, obs: np.ndarray, masks: np.ndarray, rng: np.ndarray, params: np.ndarray, out: np.ndarray
) -> None:
    """`baseline_act` for each row of obs (N, OBSERVATION_SIZE) and masks (N, N_ACTIONS), into out (N,)."""
    for i in range(obs.shape[0]):
        out[i] = baseline_act(agent, obs[i], masks[i], rng, params)


__all__ = [
    "BASELINES",
    "DEFAULT_PARAMS",
    "DEFAULT_PARAMS_ARRAY",
    "GREEDY",
    "HEURISTIC",
    "RANDOM",
    "HeuristicParams",
    "baseline_act",
    "baseline_act_batch",
    "greedy_act",
    "greedy_act_batch",
    "heuristic_act",
    "heuristic_act_batch",
    "heuristic_params_array",
    "random_act",
    "random_act_batch",
]
