"""The facts of the game, declared once (docs/rules.md R0-R2).

Everything else (engine tables, action strings, observation pieces, docs) derives from these.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

RULES_VERSION = "1.1"  # docs/rules.md; a game record carries it as `rules.version` (R11)
RULES_VERSIONS: tuple[str, ...] = ("1", RULES_VERSION)  # versions a record may name; one with none is "1"
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
# What a card is worth in battle (R5.1): number cards their number, relative cards their bonus
# (-1 counts -1 against a number and 0 against a bonus: see `suntzu_env.suntzu.tables.BATTLE_DIFF`), Plague 0.
CARD_NUMBER = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0, 0, 0], dtype=np.int64)
CARD_IS_RELATIVE = np.array([0] * 10 + [1, 1, 1, 1, 0], dtype=np.int64)
CARD_BONUS = np.array([0] * 10 + [1, 2, 3, -1, 0], dtype=np.int64)
CARD_COST = np.array([0] * 11 + [1, 2, 0, 0], dtype=np.int64)  # R5.6: armies set aside on reveal

ARMIES_PER_SIDE = 21  # R1.3
HAND_DRAW = 4  # R3.2: cards drawn from the deck at setup
DRAW, DRAW_AFTER_ONE = 2, 3  # R4.6: cards drawn at the end of a round, and after playing a `1`; all but one kept
MAX_DRAW = max(DRAW, DRAW_AFTER_ONE)
N_ROUNDS = 9
SCORING_ROUNDS = (3, 6, 9)  # R4.5: a display's numbers are the values at these scorings, in order
N_SCORINGS = len(SCORING_ROUNDS)
HEAD_START_POINTS = 1  # R3.3: head_start moves the marker toward blue
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
N_WARLORDS = len(WARLORD_NAMES)
(
    W_MARCH, W_FEINT, W_HEAD_START, W_RECYCLE_MINUS_ONE, W_REINFORCE,
    W_DOUBLE_SIX, W_PURGE, W_DEVASTATING_PLAGUE, W_COUNTER_PLAGUE, W_RECYCLE_PLAGUE,
) = range(10)  # fmt: skip
WINDOW_WARLORDS = (W_MARCH, W_REINFORCE, W_PURGE)  # R8: used in the windows before/after battles
LAST_WINDOW_ROUND = 6  # R8: window warlords act in rounds 1-6
DOUBLE_SIX_MARKS = 2  # R5.5, P4: six-marks red may have in one province with double_six (else 1)

# R0/R7: event cards.
EVENTS: tuple[str, ...] = ("pandemic", "war_chariot", "champion", "hero", "light_infantry")
N_EVENTS = len(EVENTS)
E_PANDEMIC, E_WAR_CHARIOT, E_CHAMPION, E_HERO, E_LIGHT_INFANTRY = range(N_EVENTS)
PANDEMIC_PLAGUES = 4  # R7.1: all four Plague copies (two per side) revealed at least once
CHARIOT_SIXES = 3  # R7.4: a side's third revealed `6`
CHAMPION_COST, HERO_COST = 1, 2  # R7.2, R7.3: armies the side whose `9` / `10` did not win sets aside
LIGHT_INFANTRY_MARGIN = 1  # R7.5: the side behind on the marker wins the battle by 1
FEINT_CARD = CARD_SIX  # R5.1, R8: under feint, blue's `7`..`10` counts as a `6`


class VariantRules(NamedTuple):
    """One variant of the rules, a row of `VARIANT_RULES`: what differs between variants and nothing else."""

    name: str
    card_copies: tuple[int, ...]  # R1.1, R2.2: copies of each card kind per side, in `CARDS` order
    start_reserve: int  # R3.2: armies in reserve at setup, per side
    start_set_aside: int  # R3.2: armies set aside at setup, per side
    warlords: bool  # R3.3, R8: warlords are chosen and played


# The variants; a game stores its row's features as state flags (see `suntzu_env.suntzu.layout`).
VARIANT_RULES: tuple[VariantRules, ...] = (
    VariantRules("standard", (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 3, 2), 18, 3, True),
    VariantRules("beginner", (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 0, 0, 3, 2), 21, 0, False),
)
VARIANTS: tuple[str, ...] = tuple(v.name for v in VARIANT_RULES)
CARD_COPIES: dict[str, tuple[int, ...]] = {v.name: v.card_copies for v in VARIANT_RULES}
START_ARMIES: dict[str, tuple[int, int]] = {v.name: (v.start_reserve, v.start_set_aside) for v in VARIANT_RULES}


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
