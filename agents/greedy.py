"""`GreedyAgent`: a one-step rule that spends its best cards where the coming scoring pays most."""

from __future__ import annotations

import numpy as np

from agents.base import battle_margin
from agents.view import KIND, View
from suntzu_env.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE, A_WARLORD
from suntzu_env.rules import (
    CARD_PLAGUE,
    CARD_SIX,
    LAST_WINDOW_ROUND,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_HEAD_START,
    W_MARCH,
    W_PURGE,
    W_REINFORCE,
    WINDOW_WARLORDS,
)

NP, NK = N_PROVINCES, N_CARD_KINDS
# A card's worth in one battle: its average margin against the opponent's base cards 1..6 (3.5).
# The Plague is ranked last for ordinary use; it is aimed at large enemy stacks instead.
STRENGTH = (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 1.0, 2.0, 3.0, -1.0, -3.0)
KEEP_WORTH = (*STRENGTH[:CARD_PLAGUE], 3.0)  # a Plague is worth keeping, like a 7
PLAGUE_STACK = 4  # an enemy stack this large is worth a Plague
WARLORD_PREFERENCE = (W_HEAD_START, W_PURGE, W_MARCH, W_REINFORCE, W_COUNTER_PLAGUE, W_DEVASTATING_PLAGUE)


class GreedyAgent:
    """A one-step rule, with no look-ahead and no saving of cards.

    - Placement: provinces still to fill are ranked by the value of the coming scoring times how
      contested they are (a small margin can be flipped or held, a large one cannot); its strongest
      cards go to the best-ranked provinces, a Plague to the largest enemy stack of 4 or more.
    - Recall: only in round 9, of cards it will not place (a recall never throws away a card
      it could still use).
    - Keeps the strongest drawn card; picks `head_start` (blue) or `purge` (red); uses a window
      warlord as soon as it gains something now; reveals in board order; takes payments from the
      reserve, else from its largest stack, recalling its weakest card (R4.2) rather than empty a
      province.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = View(observation, action_mask)
        kind = v.kind
        if kind == KIND["place"]:
            return self._place(v)
        if kind == KIND["keep"]:
            return max((a for a in v.legal), key=lambda a: KEEP_WORTH[a - A_KEEP])
        if kind == KIND["warlord"]:
            late = v.round > LAST_WINDOW_ROUND  # war_chariot (R7.4) after round 6: no window left
            for w in WARLORD_PREFERENCE:
                if action_mask[A_WARLORD + w] and not (late and w in WINDOW_WARLORDS):
                    return A_WARLORD + w
            return v.legal[0]  # a warlord (ids before `pass`): one more never hurts
        if kind == KIND["window"]:
            return A_USE if self._target(v, v.warlord) is not None else A_PASS
        if kind == KIND["target"]:
            target = self._target(v, v.warlord)
            return A_PROVINCE + target if target is not None and action_mask[A_PROVINCE + target] else v.legal[0]
        if kind == KIND["reactive"]:
            return A_USE if self._reactive_gain(v) > 0 else A_PASS
        if kind in (KIND["source"], KIND["shortfall"]):
            return self._payment(v)
        return v.legal[0]  # reveal: board order

    def _payment(self, v: View) -> int:
        """Where an army comes from: the reserve, else its largest stack, else (R4.2) a recall.

        It recalls its weakest card instead of emptying a province (a stack of one), and in round 9,
        when every card has been placed.
        """
        if v.mask[A_RESERVE]:
            return A_RESERVE
        provinces = v.legal_provinces()
        stack = max(provinces, key=lambda p: v.my_armies[p]) if provinces else -1
        recalls = v.legal_recalls()
        if recalls and (stack < 0 or v.my_armies[stack] == 1 or v.round == N_ROUNDS):
            return A_RECALL + min(recalls, key=lambda k: KEEP_WORTH[k]) - N_BASE_CARDS
        return A_PROVINCE + stack

    # ------------------------------------------------------------ placement

    def plan(self, v: View) -> dict[int, int]:
        """Province -> card for the provinces still to fill this round."""
        values = v.next_values()
        margin = v.margin
        todo = list(range(v.province, NP))
        cards = [k for k in range(NK) for _ in range(v.hand[k])]
        out: dict[int, int] = {}
        if CARD_PLAGUE in cards:
            stacks = [p for p in todo if margin[p] <= -PLAGUE_STACK]
            if stacks:
                p = max(stacks, key=lambda q: (values[q] * -margin[q], -q))
                out[p] = CARD_PLAGUE
                cards.remove(CARD_PLAGUE)
        order = sorted((p for p in todo if p not in out), key=lambda p: (-values[p] * _contest(margin[p]), p))
        cards.sort(key=lambda k: -STRENGTH[k])
        for p in order:
            for k in cards:
                if k != CARD_SIX or v.may_place_six(p):
                    out[p] = k
                    cards.remove(k)
                    break
        return out

    def _place(self, v: View) -> int:
        plan = self.plan(v)
        if v.round == N_ROUNDS:
            planned = list(plan.values())
            for k in v.legal_recalls():
                if v.hand[k] > planned.count(k):
                    return A_RECALL + k - N_BASE_CARDS
        card = plan.get(v.province, -1)
        if card >= 0 and v.mask[A_PLACE + card]:
            return A_PLACE + card
        return A_PLACE + max(v.legal_places(), key=lambda k: STRENGTH[k])

    # ------------------------------------------------------------ warlords

    def _target(self, v: View, w: int) -> int | None:
        """The province a window warlord acts on for an immediate gain, None if none."""
        values = v.next_values()
        if w == W_PURGE:  # empty an enemy province held by a single army
            ones = [p for p in range(NP) if v.opp_armies[p] == 1]
            return max(ones, key=lambda p: (values[p], -p)) if ones else None
        if w == W_REINFORCE:  # strengthen my most contested province
            mine = [p for p in range(NP) if v.my_armies[p] > 0]
            return min(mine, key=lambda p: (v.my_armies[p], -values[p], p)) if mine else None
        if w == W_MARCH:
            if v.march_from < 0:  # source: a stack of 2+ next to an empty province
                moves = _march_moves(v)
                return max(moves, key=lambda m: (values[m[1]], -m[0]))[0] if moves else None
            dests = [q for q in v.neighbours[v.march_from] if v.my_armies[q] == 0 and v.opp_armies[q] == 0]
            return max(dests, key=lambda q: (values[q], -q)) if dests else None
        return None

    def _reactive_gain(self, v: View) -> int:
        """Margin gained now by using the reactive warlord on offer."""
        p = v.province
        n = v.margin[p]
        mine, theirs = v.my_placed[p], v.opp_placed[p]
        if mine < 0 or theirs < 0:
            return 0
        if v.warlord == W_COUNTER_PLAGUE:
            return battle_margin(n, mine, theirs, counter=True) - battle_margin(n, mine, theirs)
        if v.warlord == W_DEVASTATING_PLAGUE:
            return battle_margin(n, mine, theirs, devastating=True) - battle_margin(n, mine, theirs)
        return 0


def _contest(n: int) -> float:
    """How much a card can still change a province at margin n before the scoring."""
    return max(0.15, 1.0 - abs(n) / 8.0)


def _march_moves(v: View) -> list[tuple[int, int]]:
    """(source, destination) pairs that occupy an empty province without giving one up."""
    return [
        (p, q)
        for p in range(NP)
        if v.my_armies[p] >= 2
        for q in v.neighbours[p]
        if v.my_armies[q] == 0 and v.opp_armies[q] == 0
    ]
