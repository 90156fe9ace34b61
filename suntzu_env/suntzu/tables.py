"""Tables and small pure functions derived from the facts of `suntzu_env.suntzu.rules`, shared by the engine,
the observation, the environments and the agents.

Each is written once here: the engine calls them over the state, the agents over the numbers they
decode from an observation. The functions are compiled with numba (`cache=True`) and callable from
Python too (pass numpy arrays).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.rules import (
    CARD_BONUS,
    CARD_IS_RELATIVE,
    CARD_NUMBER,
    DOUBLE_SIX_MARKS,
    MAX_SCORE,
    N_CARD_KINDS,
    N_ROUNDS,
    N_WARLORDS,
    SCORE_DISPLAYS,
    SCORING_ROUNDS,
    VARIANT_RULES,
    WINDOW_WARLORDS,
)

DISPLAYS = np.array(SCORE_DISPLAYS, dtype=np.int64)  # (display, scoring): R1.2
IS_WINDOW_WARLORD = np.array([w in WINDOW_WARLORDS for w in range(N_WARLORDS)], dtype=np.int64)  # R8

# Per variant row of `rules.VARIANT_RULES`: copies per card kind, armies at setup, warlords on.
COPIES = np.array([v.card_copies for v in VARIANT_RULES], dtype=np.int64)  # (variant, kind)
START_RESERVE = np.array([v.start_reserve for v in VARIANT_RULES], dtype=np.int64)
START_SET_ASIDE = np.array([v.start_set_aside for v in VARIANT_RULES], dtype=np.int64)
HAS_WARLORDS = np.array([v.warlords for v in VARIANT_RULES], dtype=np.int64)
MAX_COPIES = int(COPIES.max())  # the most copies of one kind a side has in any variant


def _scoring_columns() -> tuple[np.ndarray, np.ndarray]:
    at = np.full(N_ROUNDS + 1, -1, dtype=np.int64)  # by round: the scoring made at its end, -1 none
    nxt = np.full(N_ROUNDS + 1, -1, dtype=np.int64)  # by round: the next scoring at or after it
    for col, r in enumerate(SCORING_ROUNDS):
        at[r] = col
    col = len(SCORING_ROUNDS) - 1
    for r in range(N_ROUNDS, 0, -1):
        if at[r] >= 0:
            col = at[r]
        nxt[r] = col
    return at, nxt


# R4.5: by round (1..N_ROUNDS), the display column (0, 1, 2 for the scorings of rounds 3, 6, 9) scored at its
# end (-1 for a round without a scoring), and the column of the next scoring at or after it.
SCORING_COLUMN, NEXT_SCORING_COLUMN = _scoring_columns()


def _battle_table() -> np.ndarray:
    table = np.zeros((N_CARD_KINDS, N_CARD_KINDS), dtype=np.int64)
    for c in range(N_CARD_KINDS):
        for o in range(N_CARD_KINDS):
            c_rel, o_rel = CARD_IS_RELATIVE[c] == 1, CARD_IS_RELATIVE[o] == 1
            if c_rel and o_rel:  # -1 counts as 0 against a bonus; the same cards tie
                table[c, o] = max(CARD_BONUS[c], 0) - max(CARD_BONUS[o], 0)
            elif c_rel:
                table[c, o] = CARD_BONUS[c]
            elif o_rel:
                table[c, o] = -CARD_BONUS[o]
            else:
                table[c, o] = CARD_NUMBER[c] - CARD_NUMBER[o]
    return table


# R5.1: BATTLE_DIFF[c, o], my margin when my card c meets the opponent's card o (negative: I lose by that much).
# A Plague is entered as a number card worth 0, which is what it is under `counter_plague`; an active Plague
# stops the combat instead (R5.2). Under `feint`, look blue's card up as `rules.FEINT_CARD`.
BATTLE_DIFF = _battle_table()


@njit(cache=True)
def plague_removed(n: int, devastating: bool) -> int:
    """R5.2: armies the holder of a province with n armies takes back to its reserve when an active Plague is
    revealed there: floor(n/2), or all but one under `devastating_plague` (R8)."""
    if n <= 0:
        return 0
    return n - 1 if devastating else n // 2


@njit(cache=True)
def scoring_column(r: int) -> int:
    """R4.5: the display column scored at the end of round r (0, 1, 2 for rounds 3, 6, 9), -1 for none."""
    return SCORING_COLUMN[r]


@njit(cache=True)
def next_scoring_column(r: int) -> int:
    """R4.5: the display column of the next scoring made at the end of round r or later."""
    return NEXT_SCORING_COLUMN[r]


@njit(cache=True)
def may_place_six(marks: int, is_red: bool, holds_double_six: bool) -> bool:
    """R4.1, P4: whether a side may place a `6` where it has `marks` six-marks (red's double_six allows a second)."""
    if marks == 0:
        return True
    return is_red and marks < DOUBLE_SIX_MARKS and holds_double_six


@njit(cache=True)
def scoring_margin(armies_blue: np.ndarray, armies_red: np.ndarray, values_at_column: np.ndarray) -> int:
    """R4.5: blue's total minus red's over the provinces each holds (armies per province, values at this scoring).

    From one side's point of view: pass its armies first and read the margin toward it.
    """
    margin = 0
    for p in range(values_at_column.shape[0]):
        if armies_blue[p] > 0:
            margin += values_at_column[p]
        elif armies_red[p] > 0:
            margin -= values_at_column[p]
    return margin


@njit(cache=True)
def projected_score(score: int, armies_blue: np.ndarray, armies_red: np.ndarray, values_at_column: np.ndarray) -> int:
    """R4.5, D4: the marker toward blue as it stands after a scoring made now, clamped to +-MAX_SCORE.

    `values_at_column` holds each province's value at that scoring. Symmetric: a side's own score and
    armies first give the marker toward that side.
    """
    return max(-MAX_SCORE, min(MAX_SCORE, score + scoring_margin(armies_blue, armies_red, values_at_column)))


# The episode's rewards (R6.5 and the illegal-action policy) and its shaping potential, written once for the
# episode core (`suntzu_env.suntzu.episode.Episode`) and the batched environment (`suntzu_env.suntzu.vec_env`).
OFFENDER_BIT = (1, 2)  # a side's bit in an `offenders` mask: blue 1, red 2


@njit(cache=True)
def episode_over(result: int, offenders: int) -> bool:
    """Whether a step ends the episode: the game is over (`result` >= 0, R6) or a side acted illegally
    (`offenders` != 0: a bit per side, `OFFENDER_BIT`, under `illegal_action="loss"`)."""
    return offenders != 0 or result >= 0


@njit(cache=True)
def step_reward(result: int, offenders: int, side: int) -> float:
    """`side`'s reward for a step before shaping.

    `result` is the game's (-1 going on, else the winner: 0 blue, 1 red, 2 a draw); `offenders` the sides
    whose action was illegal (a bit per side). An illegal action loses: -1 to each offender, +1 to the other.
    Else the result (R6.5): +1 win, -1 loss, 0 a draw or a game going on.
    """
    if offenders != 0:
        return -1.0 if offenders & (1 << side) else 1.0
    if result == side:
        return 1.0
    if result == 1 - side:
        return -1.0
    return 0.0


@njit(cache=True)
def shaping_potential(projected: int, weight: float, over: bool) -> float:
    """Φ toward blue: `weight` times the marker as it would stand after a scoring made now (`projected`,
    R4.5) over 9; 0 once the episode is over, so the shaping terms add up to zero over a game."""
    if over:
        return 0.0
    return weight * (projected / MAX_SCORE)


@njit(cache=True)
def shaping_term(phi: float, phi_before: float, side: int) -> float:
    """`side`'s potential-based shaping for a step from Φ `phi_before` to `phi` (both toward blue)."""
    return phi - phi_before if side == 0 else -(phi - phi_before)
