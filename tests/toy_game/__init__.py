"""Duel, a toy game that plugs into the experiments from this folder alone: `--game toy_game:DUEL`.

Each seat holds the cards 1..`cards`. Each round a prize (a permutation of 1..`cards`, drawn from the seed) is
shown, both seats choose a card at once (asked one after the other; the first choice stays hidden until both
have chosen), and the higher card wins the prize (a tie: nobody). After `cards` rounds the larger sum of prizes
wins. Actions are the cards `0..MAX_CARDS - 1` (card k + 1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
from suntzu_env.core.protocol import GamePlugin

MAX_CARDS = 5
SEATS = ("north", "south")


@dataclasses.dataclass(frozen=True)
class DuelOptions:
    cards: int = dataclasses.field(default=3, metadata={"help": "cards per seat, and rounds (1 to 5)"})
    max_rounds: int = dataclasses.field(default=MAX_CARDS, metadata={
        "help": "rounds played at most (1 to 5): a game stopped sooner is undecided"})  # fmt: skip

    def __post_init__(self) -> None:
        for name in ("cards", "max_rounds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CARDS:
                raise ValueError(f"{name} must be a whole number from 1 to {MAX_CARDS}, got {value!r}")


class Duel:
    def __init__(self, rules: DuelRules, seed: int, options: DuelOptions) -> None:
        self.rules, self.seed, self.options = rules, seed, options
        self.prizes = [int(p) + 1 for p in np.random.default_rng(seed).permutation(options.cards)]
        self.hands = {seat: list(range(1, options.cards + 1)) for seat in SEATS}
        self.points, self.pending, self.actions = dict.fromkeys(SEATS, 0), {}, []

    @property
    def round(self) -> int:
        return len(self.actions) // 2

    @property
    def current_player(self) -> str | None:
        return None if self.round == self.options.cards else SEATS[len(self.pending)]

    is_terminal = property(lambda self: self.current_player is None)
    score = property(lambda self: self.points[SEATS[0]] - self.points[SEATS[1]])
    winner = property(lambda self: None if not self.is_terminal else "draw" if not self.score else
                      SEATS[0] if self.score > 0 else SEATS[1])  # fmt: skip

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(MAX_CARDS, dtype=np.int8)
        if not self.is_terminal:
            mask[[card - 1 for card in self.hands[self.current_player]]] = 1
        return mask

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def apply(self, action: int | str) -> None:
        action = int(action) if isinstance(action, str) and action.isdigit() else action
        if isinstance(action, bool) or action not in self.legal_actions():
            raise ValueError(f"action {action!r} is not legal; legal: {self.legal_actions()}")
        self.pending[self.current_player] = int(action) + 1
        self.actions.append(int(action))
        if len(self.pending) == len(SEATS):
            a, b = (self.pending[seat] for seat in SEATS)
            for seat in SEATS:
                self.hands[seat].remove(self.pending[seat])
            if a != b:
                self.points[SEATS[0] if a > b else SEATS[1]] += self.prizes[self.round - 1]
            self.pending = {}

    def observation(self, seat: str) -> np.ndarray:
        other = SEATS[1 - SEATS.index(seat)]
        out = np.zeros(3 * MAX_CARDS + 3, dtype=np.float32)
        for card in self.hands[seat]:
            out[card - 1] = 1.0
        for card in self.hands[other]:
            out[MAX_CARDS + card - 1] = 1.0
        if not self.is_terminal:
            out[2 * MAX_CARDS + self.prizes[self.round] - 1] = 1.0
        out[3 * MAX_CARDS :] = self.points[seat] / 15, self.points[other] / 15, self.round / MAX_CARDS
        return out

    def returns(self) -> dict[str, float]:
        sign = 0.0 if self.winner in (None, "draw") else 1.0
        return {seat: sign if seat == self.winner else -sign for seat in SEATS}

    def record(self) -> dict[str, Any]:
        return {"seed": self.seed, "options": dataclasses.asdict(self.options), "actions": list(self.actions)}

    def __str__(self) -> str:
        prize = "-" if self.is_terminal else self.prizes[self.round]
        hands = "  ".join(f"{seat} {self.points[seat]} {self.hands[seat]}" for seat in SEATS)
        return f"round {self.round}, prize {prize}: {hands}"

    def sample_determinization(self, seat: str, rng: Any = None) -> Duel:
        """The game as `seat` may know it: the other seat's hidden choice of this round drawn again."""
        rng = np.random.default_rng(rng)
        game = self.rules.replay({**self.record(), "actions": self.actions[: 2 * self.round]})
        for other, card in self.pending.items():
            game.apply(card - 1 if other == seat else int(rng.choice(game.legal_actions())))
        return game


class RandomPlayer:
    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


class HighPlayer(RandomPlayer):
    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[-1])


class DuelRules(GamePlugin):
    name, seats, n_actions, observation_size = "duel", SEATS, MAX_CARDS, 3 * MAX_CARDS + 3
    options_type = DuelOptions
    agents: Mapping[str, Any] = {"random": RandomPlayer, "high": HighPlayer}
    ladder = (("high", "random", 0.5),)
    turn_limit_option, no_winner = "max_rounds", "undecided"

    def new(self, seed: int, options: DuelOptions | None = None) -> Any:
        options = self.options(options)
        return self.turn_limited(Duel(self, seed, options), options)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(self.observation_size, np.float32), np.ones(self.observation_size, np.float32)

    def max_decisions(self, options: DuelOptions | None = None) -> int:
        return 2 * self.options(options).cards

    def replay(self, record: dict[str, Any]) -> Any:
        game = self.new(record["seed"], self.options(record["options"]))
        for action in record["actions"]:
            game.apply(action)
        return game


DUEL = DuelRules()
