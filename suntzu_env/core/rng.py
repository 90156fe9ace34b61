"""The one random generator of every game, agent and benchmark, and the generator of older records.

`rng_seed(seed)` makes a generator: one int64 holding the 64 bits of a SplitMix64 state, seeded with the whole width
of the seed through a bijective mix, so two seeds never share a state. Each draw advances the state by a constant and
returns the state passed through SplitMix64's output function, which is not linear in the state: the throws a player
sees do not let it solve for the throws to come. `rng_below(rng, n)` draws without modulo bias (the few outputs below
2**64 mod n are thrown away).

Records made before this generator name none: their games were dealt by `legacy_seed` and `legacy_below`, a 32-bit
xorshift kept only so that they replay as they were played (`GENERATORS`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

GENERATOR = "splitmix64"  # the generator of new games, named in their records
LEGACY_GENERATOR = "xorshift32"  # the generator of records that name none
GENERATORS: tuple[str, ...] = (LEGACY_GENERATOR, GENERATOR)  # index = the engines' generator code

MASK32 = 0xFFFFFFFF
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SEED_SALT = np.uint64(0x5851F42D4C957F2D)


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's output function: a bijection of 64-bit words whose every output bit depends on every input bit."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_seed(seed: int) -> np.ndarray:
    """A generator from any seed in [0, 2**63): its whole width, mixed, so nearby seeds give unrelated streams."""
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = np.int64(mix64(np.uint64(seed) ^ _SEED_SALT))
    return rng


@njit(cache=True, inline="always")
def draw_below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) for 0 < n < 2**63 from the generator state `state` (an int64's bits), and the
    state after it: `rng_below` without the array, for a state kept elsewhere. No modulo bias: the outputs below
    2**64 mod n, which would favour the small results, are passed over."""
    bound = np.uint64(n)
    floor = (np.uint64(0) - bound) % bound
    x = np.uint64(state) + GOLDEN
    z = mix64(x)
    while z < floor:
        x += GOLDEN
        z = mix64(x)
    return np.int64(z % bound), np.int64(x)


@njit(cache=True)
def rng_below(rng: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n) for 0 < n < 2**63, advancing the generator `rng[0]` (`draw_below`)."""
    k, rng[0] = draw_below(rng[0], n)
    return k


# ------------------------------------------------------------------ the generator of older records


@njit(cache=True)
def legacy_seed(seed: int) -> np.ndarray:
    """The 32-bit xorshift state that dealt a game of `seed` before `GENERATOR` (records that name no generator)."""
    x = (seed & MASK32) ^ ((seed >> 32) * 0x9E3779B1 & MASK32)
    for _ in range(3):
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
    """One step of the older records' 32-bit xorshift (shifts 13, 17, 5) from x in [1, 2**32)."""
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    return x


@njit(cache=True)
def legacy_below(rng: np.ndarray, n: int) -> int:
    """An integer in [0, n) as the older records' generator drew it (`x % n`), advancing it."""
    x = xorshift32(rng[0])
    rng[0] = x
    return x % n


@njit(cache=True)
def setup_below(rng: np.ndarray, n: int, legacy: bool) -> int:
    """A draw of a game's setup: from `rng_below`, or as an older record's game was dealt (`legacy`)."""
    return legacy_below(rng, n) if legacy else rng_below(rng, n)


@njit(cache=True)
def setup_seed(seed: int, legacy: bool) -> np.ndarray:
    """The generator that deals a game of `seed`: `rng_seed`, or an older record's (`legacy`)."""
    return legacy_seed(seed) if legacy else rng_seed(seed)


@njit(cache=True)
def shuffle(rng: np.ndarray, items: np.ndarray, n: int, legacy: bool = False) -> None:
    """Shuffle items[:n] in place (Fisher-Yates) with `rng_below`, or (`legacy`) as an older record's setup did."""
    for i in range(n - 1, 0, -1):
        j = setup_below(rng, i + 1, legacy)
        items[i], items[j] = items[j], items[i]


def random_legal_states(rows: int) -> np.ndarray:
    """The generators `random_legal` starts from, one per row (`rng_seed(row)`: the same for any measurement)."""
    return np.array([rng_seed(row)[0] for row in range(rows)], dtype=np.int64)


@njit(cache=True, parallel=True)
def random_legal(masks: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal id per row of `masks` (any game's batched env), each row drawing from its own
    generator in `state` (`random_legal_states`): the learner of the speed measurements (`suntzu_env.suntzu.bench`,
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
        k = rng_below(state[i : i + 1], n)
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
