"""`greedy`: a one-step rule that spends its best cards where the coming scoring pays most, compiled.

- Placement: provinces still to fill are ranked by the value of the coming scoring times how contested
  they are (a small margin can be flipped or held, a large one cannot); its strongest cards go to the
  best-ranked provinces, a Plague to the largest enemy stack of 4 or more.
- Recall: only in round 9, of cards it will not place (a recall never throws away a card it could still
  use).
- Keeps the strongest drawn card; picks `head_start` (blue) or `purge` (red); uses a window warlord as
  soon as it gains something now; reveals in board order; takes payments from the reserve, else from its
  largest stack, recalling its weakest card (R4.2) rather than empty a province.

Deterministic: the same observation and mask give the same action.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.suntzu.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE, A_WARLORD
from suntzu_env.suntzu.baselines.observed import (
    borders,
    decision_kind,
    decision_province,
    decision_warlord,
    decode,
    first_legal,
    legal_place,
    legal_province,
    legal_recall,
    march_from,
    margin,
    may_place_six_at,
    my_placed,
    next_value,
    opp_placed,
    round_number,
)
from suntzu_env.suntzu.layout import (
    DK_KEEP,
    DK_PLACE,
    DK_REACTIVE,
    DK_SHORTFALL,
    DK_SOURCE,
    DK_TARGET,
    DK_WARLORD,
    DK_WINDOW,
)
from suntzu_env.suntzu.observation import O_MY_ARMIES, O_MY_HAND, O_OPP_ARMIES
from suntzu_env.suntzu.rules import (
    CARD_PLAGUE,
    CARD_SIX,
    LAST_WINDOW_ROUND,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_DOUBLE_SIX,
    W_HEAD_START,
    W_MARCH,
    W_PURGE,
    W_REINFORCE,
)
from suntzu_env.suntzu.tables import BATTLE_DIFF, IS_WINDOW_WARLORD, plague_removed

NP, NK = N_PROVINCES, N_CARD_KINDS
# A card's worth in one battle: its average margin against the opponent's base cards 1..6 (3.5).
# The Plague is ranked last for ordinary use; it is aimed at large enemy stacks instead.
STRENGTH = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 1.0, 2.0, 3.0, -1.0, -3.0])
KEEP_WORTH = np.concatenate((STRENGTH[:CARD_PLAGUE], np.array([3.0])))  # a Plague is worth keeping, like a 7
BY_STRENGTH = np.argsort(-STRENGTH, kind="stable")  # card kinds, strongest first
PLAGUE_STACK = 4  # an enemy stack this large is worth a Plague
WARLORD_PREFERENCE = np.array([W_HEAD_START, W_PURGE, W_MARCH, W_REINFORCE, W_COUNTER_PLAGUE, W_DEVASTATING_PLAGUE])


@njit(cache=True, inline="always")
def plagued(n: int, devastating: bool) -> int:
    """R5.2: the margin left in a province after a Plague (the holder loses `tables.plague_removed`)."""
    m = abs(n)
    left = m - plague_removed(m, devastating)
    return left if n > 0 else -left


@njit(cache=True, inline="always")
def battle_margin(n: int, mine: int, theirs: int, counter: bool, devastating: bool) -> int:
    """The margin (mine positive) after my card `mine` meets `theirs` in a province at margin n.

    R5.3 moves the margin by exactly the battle's difference; a Plague halves the holder's armies
    (`devastating`: leaves one), unless `counter` (counter_plague) makes it a 0. Shortfalls and costs are
    left out.
    """
    if not counter and (mine == CARD_PLAGUE or theirs == CARD_PLAGUE):
        return plagued(n, devastating)
    return n + BATTLE_DIFF[mine, theirs]


@njit(cache=True, inline="always")
def _contest(n: int) -> float:
    """How much a card can still change a province at margin n before the scoring."""
    return max(0.15, 1.0 - abs(n) / 8.0)


@njit(cache=True, inline="always")
def spare(x: np.ndarray, planned: np.ndarray, k: int) -> bool:
    """I hold more cards of kind `k` than `planned` (a card kind per province, -1 none) places."""
    uses = 0
    for p in range(NP):
        if planned[p] == k:
            uses += 1
    return x[O_MY_HAND + k] > uses


@njit(cache=True)
def plan(x: np.ndarray) -> np.ndarray:
    """Per province, the card kind planned for it this round (-1: none, or already filled)."""
    out = np.full(NP, -1, dtype=np.int64)
    start = decision_province(x)
    cards = x[O_MY_HAND : O_MY_HAND + NK].copy()
    if cards[CARD_PLAGUE] > 0:  # the largest enemy stack of PLAGUE_STACK or more, weighed by its value
        best, best_key = -1, 0
        for p in range(start, NP):
            if margin(x, p) <= -PLAGUE_STACK:
                key = next_value(x, p) * -margin(x, p)
                if best < 0 or key > best_key:
                    best, best_key = p, key
        if best >= 0:
            out[best] = CARD_PLAGUE
            cards[CARD_PLAGUE] -= 1
    # the other provinces by value times contest (ties: board order), each given the strongest card left
    order = np.empty(NP, dtype=np.int64)
    keys = np.empty(NP, dtype=np.float64)
    n = 0
    for p in range(start, NP):
        if out[p] < 0:
            key = -next_value(x, p) * _contest(margin(x, p))
            i = n
            while i > 0 and keys[i - 1] > key:
                order[i], keys[i] = order[i - 1], keys[i - 1]
                i -= 1
            order[i], keys[i] = p, key
            n += 1
    for i in range(n):
        p = order[i]
        for k in BY_STRENGTH:
            if cards[k] > 0 and (k != CARD_SIX or may_place_six_at(x, p, W_DOUBLE_SIX)):
                out[p] = k
                cards[k] -= 1
                break
    return out


@njit(cache=True)
def _place(x: np.ndarray, mask: np.ndarray) -> int:
    planned = plan(x)
    if round_number(x) == N_ROUNDS:  # recall a card the plan leaves over
        for k in range(N_BASE_CARDS, NK):
            if legal_recall(mask, k) and spare(x, planned, k):
                return A_RECALL + k - N_BASE_CARDS
    card = planned[decision_province(x)]
    if card >= 0 and legal_place(mask, card):
        return A_PLACE + card
    best = -1
    for k in range(NK):
        if legal_place(mask, k) and (best < 0 or STRENGTH[k] > STRENGTH[best]):
            best = k
    return A_PLACE + best


@njit(cache=True)
def _payment(x: np.ndarray, mask: np.ndarray) -> int:
    """Where an army comes from: the reserve, else its largest stack, else (R4.2) a recall.

    It recalls its weakest card instead of emptying a province (a stack of one), and in round 9, when
    every card has been placed; with nothing to take (D14) it recalls for a shortfall and passes a payment.
    """
    if mask[A_RESERVE]:
        return A_RESERVE
    if mask[A_PASS] and decision_kind(x) == DK_SOURCE:  # D14: a recall to pay would only lose the card
        return A_PASS
    stack = -1
    for p in range(NP):
        if legal_province(mask, p) and (stack < 0 or x[O_MY_ARMIES + p] > x[O_MY_ARMIES + stack]):
            stack = p
    weakest = -1
    for k in range(N_BASE_CARDS, NK):
        if legal_recall(mask, k) and (weakest < 0 or KEEP_WORTH[k] < KEEP_WORTH[weakest]):
            weakest = k
    if weakest >= 0 and (stack < 0 or x[O_MY_ARMIES + stack] == 1 or round_number(x) == N_ROUNDS):
        return A_RECALL + weakest - N_BASE_CARDS
    return A_PROVINCE + stack


@njit(cache=True)
def _target(x: np.ndarray, w: int) -> int:
    """The province a window warlord acts on for an immediate gain, -1 if none."""
    best = -1
    if w == W_PURGE:  # empty an enemy province held by a single army: the most valuable, first in board order
        for p in range(NP):
            if x[O_OPP_ARMIES + p] == 1 and (best < 0 or next_value(x, p) > next_value(x, best)):
                best = p
        return best
    if w == W_REINFORCE:  # strengthen my most contested province: fewest armies, then most valuable
        for p in range(NP):
            if x[O_MY_ARMIES + p] > 0:
                if best < 0:
                    best = p
                else:
                    a, b = x[O_MY_ARMIES + p], x[O_MY_ARMIES + best]
                    if a < b or (a == b and next_value(x, p) > next_value(x, best)):
                        best = p
        return best
    if w == W_MARCH:
        source = march_from(x)
        if source < 0:  # source: a stack of 2+ next to an empty province, the most valuable one to occupy
            best_dest = -1
            for p in range(NP):
                if x[O_MY_ARMIES + p] >= 2:
                    for q in range(NP):
                        empty = borders(x, p, q) and x[O_MY_ARMIES + q] == 0 and x[O_OPP_ARMIES + q] == 0
                        if empty and (best < 0 or next_value(x, q) > next_value(x, best_dest)):
                            best, best_dest = p, q
            return best
        for q in range(NP):  # destination: the most valuable empty neighbour
            empty = borders(x, source, q) and x[O_MY_ARMIES + q] == 0 and x[O_OPP_ARMIES + q] == 0
            if empty and (best < 0 or next_value(x, q) > next_value(x, best)):
                best = q
        return best
    return -1


@njit(cache=True)
def _reactive_gain(x: np.ndarray, w: int) -> int:
    """Margin gained now by using the reactive warlord on offer."""
    p = decision_province(x)
    n = margin(x, p)
    mine, theirs = my_placed(x, p), opp_placed(x, p)
    if mine < 0 or theirs < 0:
        return 0
    plain = battle_margin(n, mine, theirs, False, False)
    if w == W_COUNTER_PLAGUE:
        return battle_margin(n, mine, theirs, True, False) - plain
    if w == W_DEVASTATING_PLAGUE:
        return battle_margin(n, mine, theirs, False, True) - plain
    return 0


@njit(cache=True)
def greedy_act(obs: np.ndarray, mask: np.ndarray) -> int:
    """The greedy baseline's action for one observation (float32) and legal-action mask (int8)."""
    x = decode(obs)
    kind = decision_kind(x)
    if kind == DK_PLACE:
        return _place(x, mask)
    if kind == DK_KEEP:
        best = -1
        for k in range(NK):
            if mask[A_KEEP + k] and (best < 0 or KEEP_WORTH[k] > KEEP_WORTH[best]):
                best = k
        if best >= 0:
            return A_KEEP + best
    elif kind == DK_WARLORD:
        late = round_number(x) > LAST_WINDOW_ROUND  # war_chariot (R7.4) after round 6: no window left
        for w in WARLORD_PREFERENCE:
            if mask[A_WARLORD + w] and not (late and IS_WINDOW_WARLORD[w]):
                return A_WARLORD + w
    elif kind == DK_WINDOW:
        return A_USE if _target(x, decision_warlord(x)) >= 0 else A_PASS
    elif kind == DK_TARGET:
        target = _target(x, decision_warlord(x))
        if target >= 0 and legal_province(mask, target):
            return A_PROVINCE + target
    elif kind == DK_REACTIVE:
        return A_USE if _reactive_gain(x, decision_warlord(x)) > 0 else A_PASS
    elif kind in (DK_SOURCE, DK_SHORTFALL):
        return _payment(x, mask)
    return first_legal(mask)  # a reveal: board order; a warlord: one more never hurts


@njit(cache=True)
def greedy_act_batch(obs: np.ndarray, masks: np.ndarray, out: np.ndarray) -> None:
    """`greedy_act` for each row of obs (N, OBSERVATION_SIZE) and masks (N, N_ACTIONS), into out (N,)."""
    for i in range(obs.shape[0]):
        out[i] = greedy_act(obs[i], masks[i])
