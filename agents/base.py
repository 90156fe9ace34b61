"""The agent protocol, the random baseline and the battle arithmetic the scripted agents share."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

import numpy as np

from suntzu_env.game import Game
from suntzu_env.rules import CARD_BONUS, CARD_IS_RELATIVE, CARD_NUMBER, CARD_PLAGUE, N_CARD_KINDS

NK = N_CARD_KINDS


@runtime_checkable
class Agent(Protocol):
    """A player: maps what its side observes (R9) and the legal-action mask to an action id.

    `act` receives the float32 vector of `suntzu_env.observation` and the int8 mask of
    `Game.legal_mask()` (at least two legal actions, R10) and must return a legal action id.
    `reset(seed)` starts a new game; a seed makes the agent's own randomness reproducible,
    None keeps its current random stream.

    An agent that searches (`ismcts`) also has `observe_game(game, seat)`: whoever asks it to act hands
    it the current `Game` first (`ask` below does both). It must use that game only through
    `game.sample_determinization(seat, ...)` (`suntzu_env.determinize`), which shows nothing the seat
    may not know (R9).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


def ask(agent: Agent, game: Game, seat: str) -> int:
    """The agent's action for `seat` in `game`: hands it the game if it asks for it, then its observation
    and the legal mask."""
    observe = getattr(agent, "observe_game", None)
    if observe is not None:
        observe(game, seat)
    return agent.act(game.observation(seat), game.legal_mask())


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


def _battle_table() -> np.ndarray:
    """R5.1: DIFF[c, o], my margin when my card c meets the opponent's card o.

    A Plague is entered as a number card worth 0, which is what it is under `counter_plague`;
    without it a Plague stops the combat (see `battle_margin`).
    """
    table = np.zeros((NK, NK), dtype=np.int64)
    for c in range(NK):
        for o in range(NK):
            c_rel, o_rel = CARD_IS_RELATIVE[c] == 1, CARD_IS_RELATIVE[o] == 1
            if c_rel and o_rel:
                table[c, o] = max(CARD_BONUS[c], 0) - max(CARD_BONUS[o], 0)
            elif c_rel:
                table[c, o] = CARD_BONUS[c]
            elif o_rel:
                table[c, o] = -CARD_BONUS[o]
            else:
                table[c, o] = CARD_NUMBER[c] - CARD_NUMBER[o]
    return table


DIFF = _battle_table()
DIFF_LIST: list[list[int]] = DIFF.tolist()


def plagued(n: int, devastating: bool = False) -> int:
    """R5.2: the margin left in a province after a Plague (the holder loses floor(n/2), or n-1)."""
    if n == 0:
        return 0
    m = abs(n)
    left = 1 if devastating else m - m // 2
    return left if n > 0 else -left


def battle_margin(n: int, mine: int, theirs: int, counter: bool = False, devastating: bool = False) -> int:
    """The margin (mine positive) after my card `mine` meets `theirs` in a province at margin n.

    R5.3 moves the margin by exactly the battle's difference; a Plague halves the holder's armies
    (`devastating`: leaves one), unless `counter` (counter_plague) makes it a 0. Shortfalls and
    costs are left out.
    """
    if not counter and (mine == CARD_PLAGUE or theirs == CARD_PLAGUE):
        return plagued(n, devastating)
    return n + DIFF_LIST[mine][theirs]
