"""The facts of the game, declared once (docs/rules.md R0-R2).

Everything else (engine tables, action strings, observation pieces, docs) derives from these.
"""

from __future__ import annotations

import numpy as np

SEATS: tuple[str, str] = ("blue", "red")  # seat 0 = blue (Sun Tzu), seat 1 = red (King of Chu)
BLUE, RED = 0, 1

PROVINCES: tuple[str, ...] = ("QIN", "CHU", "JIN-YAN", "HAN-QI", "WU")  # board order
N_PROVINCES = len(PROVINCES)

# R0/R1.1: card kinds in canonical order; the index is the engine's card id.
CARDS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "+1", "+2", "+3", "-1", "P")
N_CARD_KINDS = len(CARDS)
RECYCLED_PLAGUE_NAME = "P*"  # R11: a Plague copy revealed before and recycled, in a record's hand or deck
N_BASE_CARDS = 6  # ids 0..5 are the base cards `1`..`6`, they return to hand every round
CARD_ONE, CARD_SIX, CARD_SEVEN, CARD_NINE, CARD_TEN = 0, 5, 6, 8, 9
CARD_PLUS1, CARD_PLUS2, CARD_PLUS3, CARD_MINUS1, CARD_PLAGUE = 10, 11, 12, 13, 14
CARD_COPIES: dict[str, tuple[int, ...]] = {  # R1.1, R2.2: copies of each kind per side
    "standard": (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 3, 2),
    "beginner": (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 0, 0, 3, 2),
}
# What a card is worth in battle (R5.1): number cards their number, relative cards their bonus
# (-1 counts -1 against a number and 0 against a bonus, handled in the engine), Plague 0.
CARD_NUMBER = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0, 0, 0], dtype=np.int64)
CARD_IS_RELATIVE = np.array([0] * 10 + [1, 1, 1, 1, 0], dtype=np.int64)
CARD_BONUS = np.array([0] * 10 + [1, 2, 3, -1, 0], dtype=np.int64)
CARD_COST = np.array([0] * 11 + [1, 2, 0, 0], dtype=np.int64)  # R5.6: armies set aside on reveal

ARMIES_PER_SIDE = 21  # R1.3
START_ARMIES: dict[str, tuple[int, int]] = {"standard": (18, 3), "beginner": (21, 0)}  # reserve, set aside
HAND_DRAW = 4  # R3.2: cards drawn from the deck at setup
N_ROUNDS = 9
SCORING_ROUNDS = (3, 6, 9)
MAX_SCORE = 9  # R4.5: the marker is clamped to [-9, 9]

# R1.2: the ten score displays: a province's value at the scorings of rounds 3, 6 and 9.
SCORE_DISPLAYS: tuple[tuple[int, int, int], ...] = (
    (1, 2, 4), (1, 3, 5), (1, 4, 3), (2, 3, 2), (2, 3, 4),
    (2, 5, 2), (3, 1, 5), (3, 2, 3), (4, 1, 4), (4, 3, 2),
)  # fmt: skip

# R1.4 / D1: the borders of the map. Change them here, or per game with `adjacency=`.
ADJACENCY: tuple[tuple[str, str], ...] = (
    ("QIN", "CHU"), ("QIN", "JIN-YAN"), ("CHU", "JIN-YAN"), ("CHU", "HAN-QI"),
    ("CHU", "WU"), ("JIN-YAN", "HAN-QI"), ("HAN-QI", "WU"),
)  # fmt: skip

# R0/R8: warlords by seat; the engine's warlord id is seat * 5 + index.
WARLORDS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("march", "feint", "head_start", "recycle_minus_one", "reinforce"),
    ("double_six", "purge", "devastating_plague", "counter_plague", "recycle_plague"),
)
WARLORD_NAMES: tuple[str, ...] = WARLORDS[0] + WARLORDS[1]
N_WARLORDS_PER_SIDE = 5
(
    W_MARCH, W_FEINT, W_HEAD_START, W_RECYCLE_MINUS_ONE, W_REINFORCE,
    W_DOUBLE_SIX, W_PURGE, W_DEVASTATING_PLAGUE, W_COUNTER_PLAGUE, W_RECYCLE_PLAGUE,
) = range(10)  # fmt: skip
WINDOW_WARLORDS = (W_MARCH, W_REINFORCE, W_PURGE)  # R8: used in the windows before/after battles
LAST_WINDOW_ROUND = 6  # R8: window warlords act in rounds 1-6

# R0/R7: event cards.
EVENTS: tuple[str, ...] = ("pandemic", "war_chariot", "champion", "hero", "light_infantry")
E_PANDEMIC, E_WAR_CHARIOT, E_CHAMPION, E_HERO, E_LIGHT_INFANTRY = range(5)
PANDEMIC_PLAGUES = 4  # R7.1: all four Plague copies (two per side) revealed at least once
CHARIOT_SIXES = 3  # R7.4: a side's third revealed `6`

VARIANTS: tuple[str, ...] = ("standard", "beginner")


def adjacency_masks(pairs: tuple[tuple[str, str], ...] = ADJACENCY) -> tuple[int, ...]:
    """Per province, a bit mask of its neighbours, from a list of bordering pairs."""
    masks = [0] * N_PROVINCES
    for a, b in pairs:
        if a not in PROVINCES or b not in PROVINCES or a == b:
            raise ValueError(f"adjacency: {a!r}-{b!r} is not a pair of two provinces of {PROVINCES}")
        i, j = PROVINCES.index(a), PROVINCES.index(b)
        masks[i] |= 1 << j
        masks[j] |= 1 << i
    return tuple(masks)
