"""Randomness, used at setup only (R3.5): a seeded 32-bit xorshift generator."""

from __future__ import annotations

import numpy as np
from numba import njit

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
