"""Randomness, used at setup only (R3.5): a seeded 32-bit xorshift generator; and the random legal learner of the
batched environments' speed measurements (`random_legal`)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

MASK32 = 0xFFFFFFFF


@njit(cache=True)
def rng_seed(seed: int) -> np.ndarray:
    """A 32-bit xorshift generator state from any seed in [0, 2**63)."""
    x = (seed & MASK32) ^ ((seed >> 32) * 0x9E3779B1 & MASK32)
    for _ in range(3):  # lowbias32 mixing: nearby seeds give unrelated streams
        x ^= x >> 16
        x = (x * 0x7FEB352D) & MASK32
        x ^= x >> 15
        x = (x * 0x846CA68B) & MASK32
        x ^= x >> 16
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = x if x != 0 else 0x6D2B79F5
    return rng


@njit(cache=True, inline="always")
def xorshift32(x: int) -> int:
    """One step of the 32-bit xorshift generator (shifts 13, 17, 5) from x in [1, 2**32): every generator of the
    games' engines, agents and benches steps with it."""
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    return x


@njit(cache=True)
def rng_below(rng: np.ndarray, n: int) -> int:
    """A uniform-ish integer in [0, n), advancing the generator."""
    x = xorshift32(rng[0])
    rng[0] = x
    return x % n


@njit(cache=True)
def shuffle(rng: np.ndarray, items: np.ndarray, n: int) -> None:
    """Shuffle items[:n] in place (Fisher-Yates)."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def random_legal_states(rows: int) -> np.ndarray:
    """The generators `random_legal` starts from, one per row: distinct, none at 0 (the same for any measurement)."""
    return (np.arange(1, rows + 1, dtype=np.int64) * 0x9E3779B1) & MASK32


@njit(cache=True, parallel=True)
def random_legal(masks: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal id per row of `masks` (any game's batched env), each row drawing from its own
    xorshift32 generator in `state` (`random_legal_states`): the learner of the speed measurements (`suntzu_env.bench`,
    `python -m suntzu_env.binfa.vec_env`). The row's legal ids are counted, one of them drawn, and found by skipping
    whole blocks of the row by their counts (a wide mask holds few legal ids)."""
    m = masks.shape[1]
    block = 64
    for i in prange(masks.shape[0]):
        n = 0
        for c in range(m):
            n += masks[i, c]
        if n == 0:
            continue
        x = xorshift32(state[i])
        state[i] = x
        k = x % n
        start = 0
        while start < m:
            stop = min(start + block, m)
            inside = 0
            for c in range(start, stop):
                inside += masks[i, c]
            if k < inside:
                break
            k -= inside
            start = stop
        for c in range(start, m):
            if masks[i, c]:
                if k == 0:
                    out[i] = c
                    break
                k -= 1
