"""The agent protocol, the random baseline and the battle arithmetic the scripted agents share."""

from __future__ import annotations

import random

import numpy as np

from suntzu_env.agent import Agent as Agent  # declared once, in the package
from suntzu_env.rules import CARD_PLAGUE
from suntzu_env.tables import BATTLE_DIFF, plague_removed


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self._rng.randrange(len(legal))])


# R5.1: the shared battle table as lists, for speed: `DIFF_LIST[c][o]` is my margin when my card c meets the
# opponent's card o, a Plague entered as a 0 (see `battle_margin`).
DIFF_LIST: list[list[int]] = BATTLE_DIFF.tolist()


def plagued(n: int, devastating: bool = False) -> int:
    """R5.2: the margin left in a province after a Plague (the holder loses `tables.plague_removed`)."""
    left = abs(n) - plague_removed(abs(n), devastating)
    return left if n >= 0 else -left


def battle_margin(n: int, mine: int, theirs: int, counter: bool = False, devastating: bool = False) -> int:
    """The margin (mine positive) after my card `mine` meets `theirs` in a province at margin n.

    R5.3 moves the margin by exactly the battle's difference; a Plague halves the holder's armies
    (`devastating`: leaves one), unless `counter` (counter_plague) makes it a 0. Shortfalls and
    costs are left out.
    """
    if not counter and (mine == CARD_PLAGUE or theirs == CARD_PLAGUE):
        return plagued(n, devastating)
    return n + DIFF_LIST[mine][theirs]
