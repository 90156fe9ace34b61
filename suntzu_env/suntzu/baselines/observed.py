"""What a scripted baseline reads of an observation vector: counts decoded with the declared scales.

Everything comes from the observation a side sees (R9), through `suntzu_env.suntzu.observation`'s layout and
scales; nothing reads the engine state. `decode(obs)` turns the float32 vector back into counts (one
integer per entry); the other functions read facts off that decoded vector `x`. The map is the
observation's `map` piece, so a game on a custom `adjacency=` is played on its own borders. Compiled with
numba (`cache=True`); they run as plain Python under `NUMBA_DISABLE_JIT=1`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.actions import A_PLACE, A_PROVINCE, A_RECALL, N_ACTIONS
from suntzu_env.suntzu.layout import DECISION_KINDS
from suntzu_env.suntzu.observation import (
    MAP_PAIRS,
    O_COUNTS,
    O_DKIND,
    O_DPROV,
    O_DWL,
    O_MAP,
    O_MARCH,
    O_MY_ARMIES,
    O_MY_MARKS,
    O_MY_PLACED,
    O_MY_WL,
    O_OPP_ARMIES,
    O_OPP_REVEALED,
    O_OPP_UNSEEN,
    O_REVEALED,
    O_ROUND,
    O_SEAT,
    O_VALUES,
    OBSERVATION_SCALE,
    OBSERVATION_SIZE,
)
from suntzu_env.suntzu.rules import N_BASE_CARDS, N_CARD_KINDS, N_PROVINCES, N_ROUNDS, N_SCORINGS, N_WARLORDS_PER_SIDE
from suntzu_env.suntzu.tables import may_place_six, next_scoring_column

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE
N_DECISION_KINDS = len(DECISION_KINDS)
N_RECALLS = NK - N_BASE_CARDS


def _pair_index() -> np.ndarray:
    out = np.full((NP, NP), -1, dtype=np.int64)
    for i, (a, b) in enumerate(MAP_PAIRS):
        out[a, b] = out[b, a] = i
    return out


# (province, province) -> index of their pair in the `map` piece, -1 on the diagonal (R1.4, D1).
PAIR_INDEX = _pair_index()


@njit(cache=True)
def decode(obs: np.ndarray) -> np.ndarray:
    """The observation's entries as integer counts: each entry times its piece's scale, rounded."""
    x = np.empty(OBSERVATION_SIZE, dtype=np.int64)
    for i in range(OBSERVATION_SIZE):
        x[i] = int(np.rint(obs[i] * OBSERVATION_SCALE[i]))
    return x


@njit(cache=True, inline="always")
def hot(x: np.ndarray, start: int, size: int) -> int:
    """Index of the set entry of a one-hot piece, -1 when none is set."""
    for i in range(size):
        if x[start + i] != 0:
            return i
    return -1


@njit(cache=True, inline="always")
def seat(x: np.ndarray) -> int:
    """0 blue, 1 red."""
    return hot(x, O_SEAT, 2)


@njit(cache=True, inline="always")
def decision_kind(x: np.ndarray) -> int:
    """The decision asked (an index of `layout.DECISION_KINDS`)."""
    return hot(x, O_DKIND, N_DECISION_KINDS)


@njit(cache=True, inline="always")
def decision_province(x: np.ndarray) -> int:
    """The province the decision concerns, -1 for none."""
    return hot(x, O_DPROV, NP)


@njit(cache=True, inline="always")
def decision_warlord(x: np.ndarray) -> int:
    """The (global id) warlord the decision concerns (blue 0..4, red 5..9), -1 for none."""
    return hot(x, O_DWL, 2 * NW)


@njit(cache=True, inline="always")
def march_from(x: np.ndarray) -> int:
    """The province march takes its army from, once chosen, else -1."""
    return hot(x, O_MARCH, NP)


@njit(cache=True, inline="always")
def round_number(x: np.ndarray) -> int:
    """The round, 1..9."""
    return hot(x, O_ROUND, N_ROUNDS) + 1


@njit(cache=True, inline="always")
def value(x: np.ndarray, p: int, col: int) -> int:
    """Province p's value at the scoring of display column col (0, 1, 2: rounds 3, 6, 9)."""
    return x[O_VALUES + N_SCORINGS * p + col]


@njit(cache=True, inline="always")
def next_value(x: np.ndarray, p: int) -> int:
    """Province p's value at the next scoring."""
    return value(x, p, next_scoring_column(round_number(x)))


@njit(cache=True, inline="always")
def margin(x: np.ndarray, p: int) -> int:
    """My armies minus the opponent's in province p (at most one side has armies there)."""
    return x[O_MY_ARMIES + p] - x[O_OPP_ARMIES + p]


@njit(cache=True, inline="always")
def my_placed(x: np.ndarray, p: int) -> int:
    """The card kind I placed in province p this round, -1 for none."""
    return hot(x, O_MY_PLACED + p * NK, NK)


@njit(cache=True, inline="always")
def opp_placed(x: np.ndarray, p: int) -> int:
    """The opponent's card in province p once revealed this round, -1 before."""
    return hot(x, O_OPP_REVEALED + p * NK, NK)


@njit(cache=True)
def all_revealed(x: np.ndarray) -> bool:
    """Whether every battle of this round has begun."""
    begun = 0
    for p in range(NP):
        begun += x[O_REVEALED + p] != 0
    return begun == NP


@njit(cache=True, inline="always")
def borders(x: np.ndarray, p: int, q: int) -> bool:
    """Whether provinces p and q border on this game's map (R1.4)."""
    return p != q and x[O_MAP + PAIR_INDEX[p, q]] != 0


@njit(cache=True)
def has_warlord(x: np.ndarray, w: int) -> bool:
    """Whether I hold the (global id) warlord w unused."""
    me = seat(x)
    return w // NW == me and x[O_MY_WL + w - me * NW] != 0


@njit(cache=True)
def may_place_six_at(x: np.ndarray, p: int, double_six: int) -> bool:
    """R4.1, P4: my `6` may go to province p (`double_six`: the global id of red's warlord)."""
    return may_place_six(x[O_MY_MARKS + p], seat(x) == 1, has_warlord(x, double_six))


@njit(cache=True)
def first_legal(mask: np.ndarray) -> int:
    """The lowest legal action id."""
    for a in range(N_ACTIONS):
        if mask[a] != 0:
            return a
    return -1


@njit(cache=True, inline="always")
def legal_place(mask: np.ndarray, k: int) -> bool:
    """Whether card kind k may be placed now."""
    return mask[A_PLACE + k] != 0


@njit(cache=True, inline="always")
def legal_recall(mask: np.ndarray, k: int) -> bool:
    """Whether card kind k (non-base) may be discarded for a recall now."""
    return k >= N_BASE_CARDS and mask[A_RECALL + k - N_BASE_CARDS] != 0


@njit(cache=True, inline="always")
def legal_province(mask: np.ndarray, p: int) -> bool:
    """Whether `province:p` is a legal answer now."""
    return mask[A_PROVINCE + p] != 0


@njit(cache=True)
def opp_hand_estimate(x: np.ndarray) -> np.ndarray:
    """Expected opponent cards per kind among those I cannot see: its hand and face-down cards.

    Base cards not yet revealed this round are there for sure (they return to hand every round); the
    rest of that pool (its unseen cards less its deck, R9: deck sizes are public) is non-base cards,
    spread over the opponent's unseen non-base cards (hand, deck or face down) in proportion to their
    counts. The pool does not depend on whether the opponent has placed yet (placement is simultaneous,
    R4.1).
    """
    unseen_all = 0
    for k in range(NK):
        unseen_all += x[O_OPP_UNSEEN + k]
    pool = unseen_all - x[O_COUNTS + 3]
    est = np.zeros(NK, dtype=np.float64)
    base = 0.0
    for k in range(N_BASE_CARDS):
        est[k] = float(x[O_OPP_UNSEEN + k])
        base += est[k]
    total = 0
    for k in range(N_BASE_CARDS, NK):
        total += x[O_OPP_UNSEEN + k]
    extra = max(0.0, pool - base)
    if total > 0:
        share = min(1.0, extra / total)
        for k in range(N_BASE_CARDS, NK):
            est[k] = x[O_OPP_UNSEEN + k] * share
    return est
