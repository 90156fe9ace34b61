"""`View`: an observation vector decoded back into integers, for the scripted agents.

Everything here comes from the observation a side sees (R9) through `observation_views`'s layout;
nothing reads the engine state. Counts are un-scaled with the scales the observation declares
(`OBSERVATION_SCALE`), and the map is the observation's `map` piece, so a game on a custom
`adjacency=` is played on its own borders.
"""

from __future__ import annotations

import numpy as np

from suntzu_env.actions import A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE
from suntzu_env.layout import DECISION_KINDS
from suntzu_env.observation import MAP_PAIRS, OBSERVATION_SCALE, OBSERVATION_SLICES
from suntzu_env.rules import (
    CARD_SIX,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_WARLORDS_PER_SIDE,
    W_DOUBLE_SIX,
)
from suntzu_env.tables import may_place_six, next_scoring_column

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE
KIND = {name: i for i, name in enumerate(DECISION_KINDS)}
_R = {name: (sl.start, sl.stop) for name, sl in OBSERVATION_SLICES.items()}
_PAIRS: list[tuple[int, int]] = [(int(a), int(b)) for a, b in MAP_PAIRS]


def _hot(x: list[int], name: str) -> int:
    """Index of the set entry of a one-hot piece, -1 when none is set."""
    a, b = _R[name]
    for i in range(a, b):
        if x[i]:
            return i - a
    return -1


class View:
    """The decoded observation of one side, with the legal actions it was given."""

    __slots__ = (
        "beginner",
        "cause",
        "drawn",
        "events_in_deck",
        "events_on",
        "hand",
        "keep_left",
        "kind",
        "legal",
        "march_from",
        "margin",
        "mask",
        "my_armies",
        "my_deck",
        "my_marks",
        "my_out",
        "my_placed",
        "my_pools",
        "my_warlords_held",
        "neighbours",
        "obs",
        "opp_armies",
        "opp_deck_size",
        "opp_hand_size",
        "opp_marks",
        "opp_placed",
        "opp_pools",
        "opp_unseen",
        "opp_warlords_used",
        "order_holder",
        "province",
        "revealed",
        "round",
        "score",
        "seat",
        "values",
        "warlord",
    )

    def __init__(self, obs: np.ndarray, mask: np.ndarray) -> None:
        self.obs = obs
        self.mask = mask
        self.legal: list[int] = np.flatnonzero(mask).tolist()
        x: list[int] = np.rint(obs * OBSERVATION_SCALE).astype(np.int64).tolist()

        def piece(name: str) -> list[int]:
            a, b = _R[name]
            return x[a:b]

        self.seat = _hot(x, "my_seat")  # 0 blue, 1 red
        self.kind = _hot(x, "decision_kind")
        self.province = _hot(x, "decision_province")
        self.warlord = _hot(x, "decision_warlord")  # global warlord id (blue 0..4, red 5..9), -1 none
        self.cause = _hot(x, "decision_cause")
        self.march_from = _hot(x, "march_from")
        self.round = _hot(x, "round") + 1
        self.score = x[_R["my_score"][0]]  # the marker, toward me
        v = piece("province_values")
        self.values = [v[3 * p : 3 * p + 3] for p in range(NP)]
        self.my_armies = piece("my_armies")
        self.opp_armies = piece("opp_armies")
        # per province, my armies minus the opponent's (at most one side has armies there)
        self.margin = [a - b for a, b in zip(self.my_armies, self.opp_armies, strict=True)]
        self.my_marks = piece("my_six_marks")
        self.opp_marks = piece("opp_six_marks")
        self.my_pools = piece("my_pools")  # reserve, set aside, marked
        self.opp_pools = piece("opp_pools")
        self.hand = piece("my_hand")
        self.my_deck = piece("my_deck")
        self.drawn = piece("my_drawn")
        self.keep_left = x[_R["my_keep_left"][0]]
        self.my_out = piece("my_out")
        self.opp_unseen = piece("opp_unseen")
        self.opp_hand_size = x[_R["card_counts"][0] + 1]
        self.opp_deck_size = x[_R["card_counts"][0] + 3]
        placed, seen = piece("my_placed"), piece("opp_revealed")
        self.my_placed = [_first(placed[p * NK : (p + 1) * NK]) for p in range(NP)]
        self.opp_placed = [_first(seen[p * NK : (p + 1) * NK]) for p in range(NP)]
        self.revealed = [bool(b) for b in piece("revealed")]
        self.order_holder = _hot(x, "order_holder")  # 0 me, 1 opponent, 2 board order
        self.my_warlords_held = [bool(b) for b in piece("my_warlords")[:NW]]
        self.opp_warlords_used = [bool(b) for b in piece("opp_warlords_used")]
        self.events_on = bool(x[_R["events_on"][0]])
        self.events_in_deck = sum(piece("events_in_deck")) + sum(piece("event_face_up"))
        self.beginner = bool(x[_R["beginner"][0]])
        neighbours: list[list[int]] = [[] for _ in range(NP)]
        for (a, b), border in zip(_PAIRS, piece("map"), strict=True):
            if border:
                neighbours[a].append(b)
                neighbours[b].append(a)
        # per province, its neighbours in board order (R1.4, the game's own map)
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(n)) for n in neighbours)

    # ------------------------------------------------------------ derived facts

    @property
    def col(self) -> int:
        """Column of `values` paid at the next scoring (0, 1, 2 for rounds 3, 6, 9)."""
        return next_scoring_column(self.round)

    def next_values(self) -> list[int]:
        """Each province's value at the next scoring."""
        return [self.values[p][self.col] for p in range(NP)]

    def has_warlord(self, w: int) -> bool:
        """Whether I hold the (global id) warlord `w` unused."""
        return self.my_warlords_held[w - self.seat * NW] if w // NW == self.seat else False

    def may_place_six(self, p: int) -> bool:
        """R4.1, P4: my `6` may go to province p."""
        return may_place_six(self.my_marks[p], self.seat == 1, self.has_warlord(W_DOUBLE_SIX))

    def legal_places(self) -> list[int]:
        """Card ids I may place now."""
        return [a - A_PLACE for a in self.legal if A_PLACE <= a < A_PLACE + NK]

    def legal_recalls(self) -> list[int]:
        """Card ids I may discard for a recall now."""
        return [a - A_RECALL + N_BASE_CARDS for a in self.legal if A_RECALL <= a < A_RECALL + NK - N_BASE_CARDS]

    def legal_provinces(self) -> list[int]:
        return [a - A_PROVINCE for a in self.legal if A_PROVINCE <= a < A_PROVINCE + NP]

    @property
    def reserve_legal(self) -> bool:
        return bool(self.mask[A_RESERVE])

    @property
    def use_legal(self) -> bool:
        return bool(self.mask[A_USE] and self.mask[A_PASS])

    def opp_hand_estimate(self) -> list[float]:
        """Expected opponent cards per kind among those I cannot see: its hand and face-down cards.

        Base cards not yet revealed this round are there for sure (they return to hand every
        round); the rest of that pool (its unseen cards less its deck, R9: deck sizes are public) is
        non-base cards, spread over the opponent's unseen non-base cards (hand, deck or face down)
        in proportion to their counts. The pool does not depend on whether the opponent has placed
        yet (placement is simultaneous, R4.1).
        """
        pool = sum(self.opp_unseen) - self.opp_deck_size
        est = [float(n) for n in self.opp_unseen[:N_BASE_CARDS]] + [0.0] * (NK - N_BASE_CARDS)
        unseen = self.opp_unseen[N_BASE_CARDS:]
        total = sum(unseen)
        extra = max(0.0, pool - sum(est))
        if total > 0:
            share = min(1.0, extra / total)
            for k, n in enumerate(unseen):
                est[N_BASE_CARDS + k] = n * share
        return est


def _first(row: list[int]) -> int:
    """Index of the first set entry, -1 when none is."""
    for i, b in enumerate(row):
        if b:
            return i
    return -1


__all__ = ["CARD_SIX", "KIND", "View"]
