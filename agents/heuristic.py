"""`HeuristicAgent`: a strategy written from the rules, planning each round on expected values."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.base import battle_margin, plagued
from agents.view import KIND, View
from suntzu_env.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE, A_WARLORD
from suntzu_env.rules import (
    CARD_COST,
    CARD_MINUS1,
    CARD_ONE,
    CARD_PLAGUE,
    CARD_SIX,
    LAST_WINDOW_ROUND,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    SCORING_ROUNDS,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_DOUBLE_SIX,
    W_FEINT,
    W_HEAD_START,
    W_MARCH,
    W_PURGE,
    W_RECYCLE_MINUS_ONE,
    W_RECYCLE_PLAGUE,
    W_REINFORCE,
    WINDOW_WARLORDS,
)
from suntzu_env.tables import BATTLE_DIFF

NP, NK = N_PROVINCES, N_CARD_KINDS


@dataclass(frozen=True)
class HeuristicParams:
    """The knobs of `HeuristicAgent`; the defaults are the agent of the registry."""

    card_worth: tuple[float, ...] = (0, 0, 0, 0, 0, 0, 1.2, 1.6, 2.0, 2.4, 0.6, 0.9, 1.1, 0.2, 1.0)
    """what each card kind is worth kept for later, in marker points (base cards: nothing)"""
    save: float = 5.0
    """times a card's later worth charged for playing it outside a scoring round (less in rounds 7-8)"""
    save_scoring: float = 0.0
    """the same in a scoring round (3, 6), where the battle decides a scoring at once"""
    sigma: float = 2.0
    """spread of a province's margin over one battle, in armies"""
    later_weight: float = 1.0
    """weight of each scoring after the next one, relative to the one before it"""
    army_worth: float = 0.08
    """one army in reserve while the reserve is comfortable (6+); more as it runs low"""
    one_bonus: float = 0.4
    """points for playing the `1`, which draws a third card (R4.6)"""
    opp_tilt: float = 0.0
    """how much the opponent is expected to put its strong cards where the next scoring pays (0: not)"""
    blue_picks: tuple[int, ...] = (W_MARCH, W_REINFORCE, W_HEAD_START, W_RECYCLE_MINUS_ONE, W_FEINT)
    """blue's warlord picks, best first (setup R3.3, war_chariot R7.4)"""
    red_picks: tuple[int, ...] = (W_COUNTER_PLAGUE, W_PURGE, W_DEVASTATING_PLAGUE, W_RECYCLE_PLAGUE, W_DOUBLE_SIX)
    """red's warlord picks, best first"""
    window_bar: tuple[float, ...] = (2.5, 2.0, 1.5, 1.5, 1.2, 0.8)
    """gain in points a window warlord must bring now in rounds 1..6 (0 at its very last window)"""
    reactive_bar: float = 0.2
    """gain in points a reactive warlord (counter_plague, devastating_plague, recycles) must bring"""


DEFAULT_PARAMS = HeuristicParams()
# A card's strength in one battle (its average margin against base cards), for the opponent model.
STRENGTH = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 1.0, 2.0, 3.0, -1.0, 0.0]) / 6.5


class HeuristicAgent:
    """A strategy written from the rules (docs/rules.md), deciding from the observation alone.

    Ideas:

    - **Provinces are worth their coming scorings.** A province at margin n (my armies minus the
      opponent's; R5.3 moves it by exactly a battle's difference) is worth, for each scoring still
      to come, the province's value there times how surely I will hold it: the sign of n at a
      scoring right after this battle, a tanh of n over the spread of the battles left before it.
      Big stacks built early keep paying at later scorings; hopeless or safe provinces need nothing.
    - **Placement is a plan for the whole round.** Every card in hand is scored in every province
      still to fill by its expected value against the opponent's card there, drawn from what it
      may hold: its six base cards and a share of its unseen non-base cards (R9). The best
      one-card-per-province assignment is played; re-planning after each card keeps the plan.
      (`opp_tilt` can also expect the opponent's strong cards where the next scoring pays most:
      that beats opponents who concentrate them and loses to those who do not, so it is off.)
    - **High cards and Plagues are saved for the scorings.** A non-base card is charged several
      times what it is worth later when played outside a scoring round, and nothing in rounds 3,
      6 and 9, where a battle decides a scoring at once. So rounds 1-2 and 4-5 are fought with the
      base cards (hand and deck grow meanwhile), and the `10`s, `+k`s and Plagues land together
      where the coming scoring is decided. A Plague's worth comes out of the same sums: no combat,
      so it cancels the opponent's card where it would hurt, and halves the holder's armies.
      `+2`/`+3` costs and a `6`'s mark are charged in armies; the `1` earns a bonus for its extra
      draw; all three only as likely as the opponent's card there is not a Plague (R5.2 cancels them).
    - **Recall** turns cards it will not use into reserve armies: every leftover card in round 9
      (the reserve breaks a tie at 0, R6.4), and a `-1` when the reserve runs low.
    - **Reveal privilege.** Holding the order, it reveals first the battles it expects to lose, so
      armies flow back to its reserve before it must add armies, and the opponent spends its reserve
      early and has to pay later gains from its provinces (R5.4).
    - **Warlords.** `march` for blue and `counter_plague` for red: in self-play over 1,000 seat-
      balanced games they beat `head_start`/`reinforce` and `purge`/`devastating_plague`. A window
      warlord is used when the gain it brings now, measured by the same province values, beats
      what waiting is worth; the bar falls to nothing at the last window of round 6: typically
      marching into an empty province, or emptying an enemy one held by one army, right before a
      scoring. Reactive warlords are used when they improve this battle's outcome (a Plague turned
      into a 0 against my card), recycles when the deck makes them cheap.
    - **Reserve and shortfall.** Payments come from the reserve while it is comfortable, otherwise
      from the province where an army matters least, or from a recall (R4.2) when the card is worth
      less than that army; shortfalls likewise.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None, params: HeuristicParams = DEFAULT_PARAMS) -> None:
        self.seed = seed
        self.params = params
        self.card_worth = np.array(params.card_worth, dtype=float)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = View(observation, action_mask)
        kind = v.kind
        if kind == KIND["place"]:
            return self._place(v)
        if kind == KIND["keep"]:
            return max(v.legal, key=lambda a: (self.card_worth[a - A_KEEP], a == A_KEEP + CARD_PLAGUE))
        if kind == KIND["warlord"]:
            picks = [
                w
                for w in (self.params.blue_picks if v.seat == 0 else self.params.red_picks)
                if action_mask[A_WARLORD + w]
            ]
            late = [w for w in picks if w not in WINDOW_WARLORDS]
            if v.round > LAST_WINDOW_ROUND and late:  # war_chariot after round 6: no window left
                picks = late
            return A_WARLORD + picks[0] if picks else v.legal[0]
        if kind == KIND["window"]:
            move = self._window_move(v, v.warlord)
            bar = self.params.window_bar[v.round - 1] * _last(v) if v.round <= len(self.params.window_bar) else 0.0
            return A_USE if move is not None and move[0] >= bar else A_PASS
        if kind == KIND["target"]:
            return self._target(v)
        if kind == KIND["reveal"]:
            return self._reveal(v)
        if kind == KIND["reactive"]:
            return A_USE if self._reactive_gain(v) > self.params.reactive_bar else A_PASS
        if kind in (KIND["source"], KIND["shortfall"]):
            return self._payment(v)
        return v.legal[0]

    # ------------------------------------------------------------ the value of provinces

    def worth(self, v: View, p: int, n: np.ndarray | int) -> np.ndarray | float:
        """Province p at margin n after this round's battle: points expected from its coming scorings."""
        total = 0.0
        weight = 1.0
        sigma = self.params.sigma
        for col, s in enumerate(SCORING_ROUNDS):
            k = s - v.round
            if k < 0:
                continue
            value = weight * v.values[p][col]
            total = total + value * (np.sign(n) if k == 0 else np.tanh(np.asarray(n) / (sigma * math.sqrt(k))))
            weight *= self.params.later_weight
        return total

    def opp_card_odds(self, v: View) -> np.ndarray:
        """(province, card kind): probability of each opponent card in each province before its reveal.

        The opponent holds its base cards and a share of its unseen cards (`View.opp_hand_estimate`);
        `opp_tilt` expects its strong cards where the next scoring makes a province worth fighting for
        (its value, less when one side's margin is already large), its weak ones elsewhere.
        """
        est = np.array(v.opp_hand_estimate())
        odds = np.tile(est, (NP, 1))
        tilt = self.params.opp_tilt
        if tilt:
            margin = v.margin
            weights = np.array([v.values[p][v.col] * max(0.15, 1.0 - abs(margin[p]) / 8.0) for p in range(NP)])
            mean = weights.mean()
            if mean > 0:
                odds *= np.exp(tilt * np.outer(weights / mean - 1.0, STRENGTH))
        for p in range(NP):
            if v.opp_marks[p]:
                odds[p, CARD_SIX] = 0.0  # R4.1: no second 6 there (unless red holds double_six, rare)
        totals = odds.sum(axis=1, keepdims=True)
        return np.divide(odds, totals, out=np.full_like(odds, 1.0 / NK), where=totals > 0)

    def battle_worth(self, v: View, p: int, n: int, odds: np.ndarray) -> np.ndarray:
        """Expected worth of province p at margin n after its battle, per card kind I may play there."""
        after = n + BATTLE_DIFF
        after[CARD_PLAGUE, :] = plagued(n)
        after[:, CARD_PLAGUE] = plagued(n)
        return np.asarray(self.worth(v, p, after)) @ odds

    # ------------------------------------------------------------ placement

    def card_charges(self, v: View) -> np.ndarray:
        """Points charged for playing each card kind now: its later worth (see `effect_charges`)."""
        left = N_ROUNDS - v.round
        share = self.params.save_scoring if v.round in SCORING_ROUNDS else self.params.save
        return self.card_worth * share * min(1.0, left / 3.0)

    def effect_charges(self, v: View) -> np.ndarray:
        """Points charged for each card kind's own effects: army costs (R5.6), six-mark (R5.5), draw bonus (R4.6).

        An active Plague facing the card cancels all three (R5.2), so a province's charges are
        these times the chance that the opponent's card there is not a Plague.
        """
        army = self.army_worth(v)
        charges = CARD_COST * army
        charges[CARD_SIX] += army
        if v.round < N_ROUNDS and v.my_deck and sum(v.my_deck) > 0:
            charges[CARD_ONE] -= self.params.one_bonus
        return charges

    def army_worth(self, v: View) -> float:
        """Points one army of the reserve is worth: more as the reserve runs low (R5.4 shortfalls)."""
        return self.params.army_worth * (1.0 + max(0, 6 - v.my_pools[0]) / 2.0)

    def plan(self, v: View) -> dict[int, int]:
        """Province -> card for the provinces still to fill, the best expected assignment."""
        provinces = list(range(v.province, NP))
        charges, effects = self.card_charges(v), self.effect_charges(v)
        margin = v.margin
        odds = self.opp_card_odds(v)
        kinds = [k for k in range(NK) if v.hand[k] > 0]
        rows = []
        for p in provinces:
            gains = self.battle_worth(v, p, margin[p], odds[p]) - charges - effects * (1.0 - odds[p, CARD_PLAGUE])
            row = {k: float(gains[k]) for k in kinds if k != CARD_SIX or v.may_place_six(p)}
            rows.append(row)
        cards = _best_assignment(rows, list(v.hand))
        return dict(zip(provinces, cards, strict=True))

    def _place(self, v: View) -> int:
        plan = self.plan(v)
        recall = self._recall(v, plan)
        if recall is not None:
            return A_RECALL + recall - N_BASE_CARDS
        card = plan.get(v.province, -1)
        if card >= 0 and v.mask[A_PLACE + card]:
            return A_PLACE + card
        return A_PLACE + v.legal_places()[0]

    def _recall(self, v: View, plan: dict[int, int]) -> int | None:
        """A card to discard for a set-aside army (R4.2), or None."""
        options = v.legal_recalls()
        if not options:
            return None
        planned = list(plan.values())
        spare = [k for k in options if v.hand[k] > planned.count(k)]
        if v.round == N_ROUNDS and spare:
            return min(spare, key=lambda k: self.card_worth[k])
        if v.my_pools[0] <= 3 and CARD_MINUS1 in spare:  # a `-1` for an army when the reserve runs dry
            return CARD_MINUS1
        return None

    # ------------------------------------------------------------ windows and targets

    def _window_move(self, v: View, w: int) -> tuple[float, int, int] | None:
        """(gain, province, second province) of the best use of window warlord w now, or None."""
        after = all(v.revealed)
        margin = v.margin
        odds = self.opp_card_odds(v)

        def value(p: int, n: int) -> float:
            if after:
                return float(self.worth(v, p, n))
            mine = v.my_placed[p]
            return float(self.battle_worth(v, p, n, odds[p])[mine]) if mine >= 0 else float(self.worth(v, p, n))

        best: tuple[float, int, int] | None = None
        if w in (W_PURGE, W_REINFORCE):
            # purge takes one of the opponent's armies, reinforce adds one of ours: the margin gains 1 either way
            armies = v.opp_armies if w == W_PURGE else v.my_armies
            for p in range(NP):
                if armies[p] > 0:
                    gain = value(p, margin[p] + 1) - value(p, margin[p])
                    if best is None or gain > best[0]:
                        best = (gain, p, -1)
        elif w == W_MARCH:
            sources = [v.march_from] if v.march_from >= 0 else [p for p in range(NP) if v.my_armies[p] > 0]
            for p in sources:
                for q in v.neighbours[p]:
                    if v.opp_armies[q] == 0:
                        gain = value(p, margin[p] - 1) - value(p, margin[p])
                        gain += value(q, margin[q] + 1) - value(q, margin[q])
                        if best is None or gain > best[0]:
                            best = (gain, p, q)
        return best

    def _target(self, v: View) -> int:
        move = self._window_move(v, v.warlord)
        if move is not None:
            p = move[2] if v.warlord == W_MARCH and v.march_from >= 0 else move[1]
            if v.mask[A_PROVINCE + p]:
                return A_PROVINCE + p
        return v.legal[0]

    # ------------------------------------------------------------ battles

    def _reveal(self, v: View) -> int:
        """R4.3: battles I expect to lose first, those I expect to win last."""
        margin = v.margin
        odds = self.opp_card_odds(v)

        def expected_change(p: int) -> float:
            return float(battle_margin_row(margin[p], v.my_placed[p]) @ odds[p]) - margin[p]

        return A_PROVINCE + min(v.legal_provinces(), key=lambda p: (expected_change(p), p))

    def _reactive_gain(self, v: View) -> float:
        """Points gained by using the reactive warlord on offer now."""
        w = v.warlord
        p = v.province
        n = v.margin[p]
        mine, theirs = v.my_placed[p], v.opp_placed[p]
        if w in (W_COUNTER_PLAGUE, W_DEVASTATING_PLAGUE):
            if mine < 0 or theirs < 0:
                return 0.0
            plain = battle_margin(n, mine, theirs)
            used = battle_margin(n, mine, theirs, counter=w == W_COUNTER_PLAGUE, devastating=w == W_DEVASTATING_PLAGUE)
            return float(self.worth(v, p, used)) - float(self.worth(v, p, plain))
        if w in (W_RECYCLE_PLAGUE, W_RECYCLE_MINUS_ONE):
            card = CARD_PLAGUE if w == W_RECYCLE_PLAGUE else CARD_MINUS1
            deck = np.array(v.my_deck, dtype=float)
            if v.round >= N_ROUNDS - 1:
                return 0.0
            lost = float(deck @ self.card_worth / deck.sum()) if deck.sum() > 0 else 0.0
            return self.card_worth[card] - lost
        return 0.0  # feint only lowers blue's card

    def _payment(self, v: View) -> int:
        """Where an army comes from: the reserve, a province or a recall (R4.2), whichever costs least.

        An army of the reserve costs `army_worth`; one of a province, what the province's coming
        scorings lose; a recall, the discarded card's worth for later charged as for playing it
        outside a scoring round (`save`; nothing in round 9, when every card has been placed), after
        which the army comes from the reserve.
        """
        options: list[tuple[float, int]] = []
        if v.mask[A_RESERVE]:
            options.append((self.army_worth(v), A_RESERVE))
        margin = v.margin
        for p in v.legal_provinces():
            loss = float(self.worth(v, p, margin[p])) - float(self.worth(v, p, margin[p] - 1))
            options.append((loss, A_PROVINCE + p))
        save = self.params.save * min(1.0, (N_ROUNDS - v.round) / 3.0)
        for k in v.legal_recalls():
            options.append((float(self.card_worth[k]) * save, A_RECALL + k - N_BASE_CARDS))
        return min(options)[1]


def battle_margin_row(n: int, mine: int) -> np.ndarray:
    """The margin after my card meets each opponent card kind."""
    row = n + BATTLE_DIFF[mine].astype(float)
    if mine == CARD_PLAGUE:
        row[:] = plagued(n)
    row[CARD_PLAGUE] = plagued(n)
    return row


def _last(v: View) -> float:
    """1, or 0 at the last window a window warlord has (after the battles of round 6)."""
    return 0.0 if v.round == LAST_WINDOW_ROUND and all(v.revealed) else 1.0


def _best_assignment(rows: list[dict[int, float]], counts: list[int]) -> list[int]:
    """One card kind per row maximizing the summed row values, within the hand's counts."""
    n = len(rows)
    order = []
    for row in rows:  # a row's card in an optimal plan is among its n best card instances
        kinds, instances = [], 0
        for k in sorted(row, key=row.__getitem__, reverse=True):
            if instances >= n:
                break
            kinds.append(k)
            instances += counts[k]
        order.append(kinds)
    bound = [0.0] * (n + 1)
    for i in range(n - 1, -1, -1):
        bound[i] = bound[i + 1] + (rows[i][order[i][0]] if order[i] else 0.0)
    best_value = -math.inf
    best: list[int] = []
    chosen: list[int] = []
    left = list(counts)

    def search(i: int, acc: float) -> None:
        nonlocal best_value, best
        if i == n:
            if acc > best_value:
                best_value, best = acc, list(chosen)
            return
        if acc + bound[i] <= best_value:
            return
        for k in order[i]:
            if left[k] == 0:
                continue
            left[k] -= 1
            chosen.append(k)
            search(i + 1, acc + rows[i][k])
            chosen.pop()
            left[k] += 1

    search(0, 0.0)
    return best
