"""`heuristic`: a strategy written from the rules, planning each round on expected values, compiled.

Ideas:

- **Provinces are worth their coming scorings.** A province at margin n (my armies minus the opponent's;
  R5.3 moves it by exactly a battle's difference) is worth, for each scoring still to come, the
  province's value there times how surely I will hold it: the sign of n at a scoring right after this
  battle, a tanh of n over the spread of the battles left before it. Big stacks built early keep paying
  at later scorings; hopeless or safe provinces need nothing.
- **Placement is a plan for the whole round.** Every card in hand is scored in every province still to
  fill by its expected value against the opponent's card there, drawn from what it may hold: its six
  base cards and a share of its unseen non-base cards (R9). The best one-card-per-province assignment is
  played; re-planning after each card keeps the plan. (`opp_tilt` can also expect the opponent's strong
  cards where the next scoring pays most: that beats opponents who concentrate them and loses to those
  who do not, so it is off.)
- **High cards and Plagues are saved for the scorings.** A non-base card is charged several times what it
  is worth later when played outside a scoring round, and nothing in rounds 3, 6 and 9, where a battle
  decides a scoring at once. So rounds 1-2 and 4-5 are fought with the base cards (hand and deck grow
  meanwhile), and the `10`s, `+k`s and Plagues land together where the coming scoring is decided. A
  Plague's worth comes out of the same sums: no combat, so it cancels the opponent's card where it would
  hurt, and halves the holder's armies. `+2`/`+3` costs and a `6`'s mark are charged in armies; the `1`
  earns a bonus for its extra draw; all three only as likely as the opponent's card there is not a
  Plague (R5.2 cancels them).
- **Recall** turns cards it will not use into reserve armies: every leftover card in round 9 (the reserve
  breaks a tie at 0, R6.4), and a `-1` when the reserve runs low.
- **Reveal privilege.** Holding the order, it reveals first the battles it expects to lose, so armies flow
  back to its reserve before it must add armies, and the opponent spends its reserve early and has to
  pay later gains from its provinces (R5.4).
- **Warlords.** `march` for blue and `counter_plague` for red: in self-play over 1,000 seat-balanced games
  they beat `head_start`/`reinforce` and `purge`/`devastating_plague`. A window warlord is used when the
  gain it brings now, measured by the same province values, beats what waiting is worth; the bar falls to
  nothing at the last window of round 6: typically marching into an empty province, or emptying an enemy
  one held by one army, right before a scoring. Reactive warlords are used when they improve this
  battle's outcome (a Plague turned into a 0 against my card), recycles when the deck makes them cheap.
- **Reserve and shortfall.** Payments come from the reserve while it is comfortable, otherwise from the
  province where an army matters least, or from a recall (R4.2) when the card is worth less than that
  army; shortfalls likewise. With nothing to take (D14) it passes a payment (a recall to pay only loses the
  card) and recalls for a shortfall when the army in that province is worth more than the card; a
  `reinforce` with an empty reserve (D16) counts the card it recalls against the army's gain.

The knobs are `HeuristicParams`; the compiled functions take them as one float64 array,
`heuristic_params_array(params)` (`DEFAULT_PARAMS_ARRAY` for the defaults). Deterministic: the same
observation, mask and parameters give the same action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.actions import A_KEEP, A_PASS, A_PLACE, A_PROVINCE, A_RECALL, A_RESERVE, A_USE, A_WARLORD
from suntzu_env.suntzu.baselines import observed
from suntzu_env.suntzu.baselines.greedy import battle_margin, plagued, spare
from suntzu_env.suntzu.baselines.sums import dot, gemv_row, row_sum
from suntzu_env.suntzu.observation import O_MY_ARMIES, O_MY_DECK, O_MY_HAND, O_MY_POOLS, O_OPP_ARMIES, O_OPP_MARKS
from suntzu_env.suntzu.tables import BATTLE_DIFF, IS_WINDOW_WARLORD

NP, NK = rules.N_PROVINCES, rules.N_CARD_KINDS


@dataclass(frozen=True)
class HeuristicParams:
    """The knobs of the `heuristic` baseline; the defaults are the agent of the registry."""

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
    blue_picks: tuple[int, ...] = (
        rules.W_MARCH,
        rules.W_REINFORCE,
        rules.W_HEAD_START,
        rules.W_RECYCLE_MINUS_ONE,
        rules.W_FEINT,
    )
    """blue's warlord picks, best first (setup R3.3, war_chariot R7.4)"""
    red_picks: tuple[int, ...] = (
        rules.W_COUNTER_PLAGUE,
        rules.W_PURGE,
        rules.W_DEVASTATING_PLAGUE,
        rules.W_RECYCLE_PLAGUE,
        rules.W_DOUBLE_SIX,
    )
    """red's warlord picks, best first"""
    window_bar: tuple[float, ...] = (2.5, 2.0, 1.5, 1.5, 1.2, 0.8)
    """gain in points a window warlord must bring now in rounds 1..6 (0 at its very last window)"""
    reactive_bar: float = 0.2
    """gain in points a reactive warlord (counter_plague, devastating_plague, recycles) must bring"""


# The parameter array: named offsets into one float64 vector (picks and bars padded, with their counts).
MARGIN_RANGE = 2 * rules.ARMIES_PER_SIDE  # |margin| a province can reach, with room for one battle and a move
N_MARGINS = 2 * MARGIN_RANGE + 1
P_CARD_WORTH = 0
P_SAVE = P_CARD_WORTH + NK
P_SAVE_SCORING = P_SAVE + 1
P_SIGMA = P_SAVE_SCORING + 1
P_LATER_WEIGHT = P_SIGMA + 1
P_ARMY_WORTH = P_LATER_WEIGHT + 1
P_ONE_BONUS = P_ARMY_WORTH + 1
P_OPP_TILT = P_ONE_BONUS + 1
P_REACTIVE_BAR = P_OPP_TILT + 1
P_N_BLUE_PICKS = P_REACTIVE_BAR + 1
P_BLUE_PICKS = P_N_BLUE_PICKS + 1
P_N_RED_PICKS = P_BLUE_PICKS + rules.N_WARLORDS
P_RED_PICKS = P_N_RED_PICKS + 1
P_N_WINDOW_BARS = P_RED_PICKS + rules.N_WARLORDS
P_WINDOW_BARS = P_N_WINDOW_BARS + 1
# tanh(n / (sigma * sqrt(k))) for k = 1..N_ROUNDS-1 battles left before a scoring, n in +-MARGIN_RANGE
P_TANH = P_WINDOW_BARS + rules.N_ROUNDS
N_PARAMS = P_TANH + rules.N_ROUNDS * N_MARGINS


def heuristic_params_array(params: HeuristicParams) -> np.ndarray:
    """`params` as the float64 array the compiled functions read; ValueError naming a bad field."""
    if not isinstance(params, HeuristicParams):
        raise ValueError(f"params must be a HeuristicParams, got {type(params).__name__}")
    out = np.zeros(N_PARAMS, dtype=np.float64)

    def number(name: str) -> float:
        v = getattr(params, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"HeuristicParams.{name} must be a finite number, got {v!r}")
        return float(v)

    def numbers(name: str, size: int | None, most: int) -> list[float]:
        v = getattr(params, name)
        if not isinstance(v, (tuple, list)) or (size is not None and len(v) != size) or len(v) > most:
            raise ValueError(
                f"HeuristicParams.{name} must be a tuple of {size or f'at most {most}'} numbers, got {v!r}"
            )
        if any(isinstance(e, bool) or not isinstance(e, (int, float)) or not math.isfinite(e) for e in v):
            raise ValueError(f"HeuristicParams.{name} must hold finite numbers, got {v!r}")
        return [float(e) for e in v]

    def picks(name: str) -> list[float]:
        v = getattr(params, name)
        if (
            not isinstance(v, (tuple, list))
            or len(v) > rules.N_WARLORDS
            or any(isinstance(w, bool) or not isinstance(w, int) or not 0 <= w < rules.N_WARLORDS for w in v)
        ):
            raise ValueError(
                f"HeuristicParams.{name} must be a tuple of warlord ids 0..{rules.N_WARLORDS - 1}, got {v!r}"
            )
        return [float(w) for w in v]

    out[P_CARD_WORTH : P_CARD_WORTH + NK] = numbers("card_worth", NK, NK)
    for name, at in (("save", P_SAVE), ("save_scoring", P_SAVE_SCORING), ("sigma", P_SIGMA),
                     ("later_weight", P_LATER_WEIGHT), ("army_worth", P_ARMY_WORTH), ("one_bonus", P_ONE_BONUS),
                     ("opp_tilt", P_OPP_TILT), ("reactive_bar", P_REACTIVE_BAR)):  # fmt: skip
        out[at] = number(name)
    if out[P_SIGMA] <= 0:
        raise ValueError(f"HeuristicParams.sigma must be > 0, got {params.sigma!r}")
    for name, count_at, at in (("blue_picks", P_N_BLUE_PICKS, P_BLUE_PICKS), ("red_picks", P_N_RED_PICKS, P_RED_PICKS)):
        ids = picks(name)
        out[count_at] = len(ids)
        out[at : at + len(ids)] = ids
    bars = numbers("window_bar", None, 1 << 30)[: rules.N_ROUNDS]  # bars past round 9 are never read
    out[P_N_WINDOW_BARS] = len(bars)
    out[P_WINDOW_BARS : P_WINDOW_BARS + len(bars)] = bars
    n = np.arange(-MARGIN_RANGE, MARGIN_RANGE + 1)
    for k in range(1, rules.N_ROUNDS):
        at = P_TANH + k * N_MARGINS
        out[at : at + N_MARGINS] = np.tanh(n / (out[P_SIGMA] * math.sqrt(k)))
    return out


DEFAULT_PARAMS = HeuristicParams()
DEFAULT_PARAMS_ARRAY = heuristic_params_array(DEFAULT_PARAMS)
# A card's strength in one battle (its average margin against base cards), for the opponent model.
STRENGTH = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 1.0, 2.0, 3.0, -1.0, 0.0]) / 6.5
SCORING_ROUND = np.array(rules.SCORING_ROUNDS, dtype=np.int64)
IS_SCORING_ROUND = np.array([r in rules.SCORING_ROUNDS for r in range(rules.N_ROUNDS + 1)], dtype=np.int64)
DIFF_LOW, DIFF_HIGH = int(BATTLE_DIFF.min()), int(BATTLE_DIFF.max())


# ------------------------------------------------------------ the value of provinces


@njit(cache=True, inline="always")
def _tanh(params: np.ndarray, n: int, k: int) -> float:
    """tanh(n / (sigma * sqrt(k))), from the table the parameters carry."""
    if -MARGIN_RANGE <= n <= MARGIN_RANGE:
        return params[P_TANH + k * N_MARGINS + n + MARGIN_RANGE]
    return np.tanh(n / (params[P_SIGMA] * math.sqrt(k)))


@njit(cache=True, inline="always")
def worth(x: np.ndarray, params: np.ndarray, p: int, n: int) -> float:
    """Province p at margin n after this round's battle: points expected from its coming scorings."""
    total = 0.0
    weight = 1.0
    rnd = observed.round_number(x)
    for col in range(rules.N_SCORINGS):
        k = SCORING_ROUND[col] - rnd
        if k < 0:
            continue
        v = weight * observed.value(x, p, col)
        total = total + v * (np.sign(n) if k == 0 else _tanh(params, n, k))
        weight *= params[P_LATER_WEIGHT]
    return total


@njit(cache=True)
def opp_card_odds(x: np.ndarray, params: np.ndarray) -> np.ndarray:
    """(province, card kind): probability of each opponent card in each province before its reveal.

    The opponent holds its base cards and a share of its unseen cards (`observed.opp_hand_estimate`);
    `opp_tilt` expects its strong cards where the next scoring makes a province worth fighting for (its
    value, less when one side's margin is already large), its weak ones elsewhere.
    """
    est = observed.opp_hand_estimate(x)
    odds = np.empty((NP, NK), dtype=np.float64)
    for p in range(NP):
        odds[p] = est
    tilt = params[P_OPP_TILT]
    if tilt != 0.0:
        weights = np.empty(NP, dtype=np.float64)
        for p in range(NP):
            weights[p] = observed.next_value(x, p) * max(0.15, 1.0 - abs(observed.margin(x, p)) / 8.0)
        mean = row_sum(weights) / NP
        if mean > 0:
            for p in range(NP):
                for k in range(NK):
                    odds[p, k] *= np.exp(tilt * ((weights[p] / mean - 1.0) * STRENGTH[k]))
    for p in range(NP):
        if x[O_OPP_MARKS + p]:
            odds[p, rules.CARD_SIX] = 0.0  # R4.1: no second 6 there (unless red holds double_six, rare)
    for p in range(NP):
        total = row_sum(odds[p])
        for k in range(NK):
            odds[p, k] = odds[p, k] / total if total > 0 else 1.0 / NK
    return odds


@njit(cache=True)
def battle_worth(x: np.ndarray, params: np.ndarray, p: int, n: int, odds: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Expected worth of province p at margin n after its battle, per card kind I may play there.

    Only the kinds where `cards` is set are worked out (the others are left 0).
    """
    by_diff = np.empty(DIFF_HIGH - DIFF_LOW + 1, dtype=np.float64)
    for d in range(DIFF_LOW, DIFF_HIGH + 1):
        by_diff[d - DIFF_LOW] = worth(x, params, p, n + d)
    after_plague = worth(x, params, p, plagued(n, False))
    out = np.zeros(NK, dtype=np.float64)
    after = np.empty(NK, dtype=np.float64)  # per opponent card: the worth after my card c meets it
    for c in range(NK):
        if cards[c]:
            for o in range(NK):
                plague = c == rules.CARD_PLAGUE or o == rules.CARD_PLAGUE
                after[o] = after_plague if plague else by_diff[BATTLE_DIFF[c, o] - DIFF_LOW]
            out[c] = gemv_row(after, odds, c, NK)  # row c of the (card, card) table times the odds
    return out


@njit(cache=True)
def army_worth(x: np.ndarray, params: np.ndarray) -> float:
    """Points one army of the reserve is worth: more as the reserve runs low (R5.4 shortfalls)."""
    return params[P_ARMY_WORTH] * (1.0 + max(0, 6 - x[O_MY_POOLS]) / 2.0)


# ------------------------------------------------------------ placement


@njit(cache=True)
def _best_assignment(rows: np.ndarray, allowed: np.ndarray, n: int, counts: np.ndarray) -> np.ndarray:
    """One card kind per row (of the first n) maximizing the summed row values, within the hand's counts.

    Branch and bound, rows in order, each row's kinds best first (ties: lower kind first); a row's card in
    an optimal plan is among its n best card instances. Returns -1s when no assignment fills every row.
    """
    order = np.empty((n, NK), dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    for i in range(n):
        m = 0
        for k in range(NK):  # kinds by value, best first, stable
            if allowed[i, k]:
                j = m
                while j > 0 and rows[i, order[i, j - 1]] < rows[i, k]:
                    order[i, j] = order[i, j - 1]
                    j -= 1
                order[i, j] = k
                m += 1
        instances = 0
        length = 0
        while length < m and instances < n:
            instances += counts[order[i, length]]
            length += 1
        lengths[i] = length
    bound = np.zeros(n + 1, dtype=np.float64)
    for i in range(n - 1, -1, -1):
        bound[i] = bound[i + 1] + (rows[i, order[i, 0]] if lengths[i] > 0 else 0.0)
    best_value = -np.inf
    best = np.full(n, -1, dtype=np.int64)
    chosen = np.full(n, -1, dtype=np.int64)
    left = counts.copy()
    acc = np.zeros(n + 1, dtype=np.float64)
    pos = np.full(n + 1, -1, dtype=np.int64)  # per depth: index into its order, -1 on entering
    depth = 0
    while depth >= 0:
        if pos[depth] < 0:  # entering
            if depth == n:
                if acc[n] > best_value:
                    best_value = acc[n]
                    best[:] = chosen
                depth -= 1
                continue
            if acc[depth] + bound[depth] <= best_value:
                depth -= 1
                continue
            pos[depth] = 0
        else:  # back from the child: put its card back, try the next
            left[chosen[depth]] += 1
            pos[depth] += 1
        while pos[depth] < lengths[depth] and left[order[depth, pos[depth]]] == 0:
            pos[depth] += 1
        if pos[depth] >= lengths[depth]:
            pos[depth] = -1
            depth -= 1
            continue
        k = order[depth, pos[depth]]
        left[k] -= 1
        chosen[depth] = k
        acc[depth + 1] = acc[depth] + rows[depth, k]
        depth += 1
        pos[depth] = -1
    return best


@njit(cache=True)
def plan(x: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Per province, the card kind planned for it (the best expected assignment), -1 where none is."""
    rnd = observed.round_number(x)
    start = observed.decision_province(x)
    left = rules.N_ROUNDS - rnd
    share = params[P_SAVE_SCORING] if IS_SCORING_ROUND[rnd] else params[P_SAVE]
    army = army_worth(x, params)
    deck = 0
    for k in range(NK):
        deck += x[O_MY_DECK + k]
    charges = np.empty(NK, dtype=np.float64)  # a card's later worth
    effects = np.empty(NK, dtype=np.float64)  # its own effects: army costs (R5.6), six-mark (R5.5), draw (R4.6)
    for k in range(NK):
        charges[k] = params[P_CARD_WORTH + k] * share * min(1.0, left / 3.0)
        effects[k] = rules.CARD_COST[k] * army
    effects[rules.CARD_SIX] += army
    if rnd < rules.N_ROUNDS and deck > 0:
        effects[rules.CARD_ONE] -= params[P_ONE_BONUS]
    odds = opp_card_odds(x, params)
    n = NP - start
    rows = np.zeros((n, NK), dtype=np.float64)
    allowed = np.zeros((n, NK), dtype=np.bool_)
    for i in range(n):
        p = start + i
        gains = battle_worth(x, params, p, observed.margin(x, p), odds[p], x[O_MY_HAND : O_MY_HAND + NK] > 0)
        for k in range(NK):
            # an active Plague facing the card cancels its effects (R5.2)
            rows[i, k] = gains[k] - charges[k] - effects[k] * (1.0 - odds[p, rules.CARD_PLAGUE])
            allowed[i, k] = x[O_MY_HAND + k] > 0 and (
                k != rules.CARD_SIX or observed.may_place_six_at(x, p, rules.W_DOUBLE_SIX)
            )
    cards = _best_assignment(rows, allowed, n, x[O_MY_HAND : O_MY_HAND + NK].copy())
    out = np.full(NP, -1, dtype=np.int64)
    out[start:] = cards
    return out


@njit(cache=True)
def _recall(x: np.ndarray, mask: np.ndarray, params: np.ndarray, planned: np.ndarray) -> int:
    """A card to discard for a set-aside army (R4.2), or -1."""
    best = -1
    minus_one = False
    for k in range(rules.N_BASE_CARDS, NK):
        if observed.legal_recall(mask, k) and spare(x, planned, k):
            if best < 0 or params[P_CARD_WORTH + k] < params[P_CARD_WORTH + best]:
                best = k
            minus_one = minus_one or k == rules.CARD_MINUS1
    if observed.round_number(x) == rules.N_ROUNDS and best >= 0:
        return best
    if x[O_MY_POOLS] <= 3 and minus_one:  # a `-1` for an army when the reserve runs dry
        return rules.CARD_MINUS1
    return -1


@njit(cache=True)
def _place(x: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    planned = plan(x, params)
    recall = _recall(x, mask, params, planned)
    if recall >= 0:
        return A_RECALL + recall - rules.N_BASE_CARDS
    card = planned[observed.decision_province(x)]
    if card >= 0 and observed.legal_place(mask, card):
        return A_PLACE + card
    for k in range(NK):
        if observed.legal_place(mask, k):
            return A_PLACE + k
    return observed.first_legal(mask)


# ------------------------------------------------------------ windows and targets


@njit(cache=True)
def _move_value(x: np.ndarray, params: np.ndarray, odds: np.ndarray, after: bool, p: int, n: int) -> float:
    """Province p's worth at margin n, through this round's battle when it is still to come."""
    mine = observed.my_placed(x, p)
    if after or mine < 0:
        return worth(x, params, p, n)
    return battle_worth(x, params, p, n, odds[p], np.arange(NK) == mine)[mine]


@njit(cache=True)
def _window_move(x: np.ndarray, params: np.ndarray, w: int) -> tuple[bool, float, int, int]:
    """(found, gain, province, second province) of the best use of window warlord w now."""
    after = observed.all_revealed(x)
    odds = opp_card_odds(x, params)
    found, best_gain, best_p, best_q = False, 0.0, -1, -1
    if w in (rules.W_PURGE, rules.W_REINFORCE):
        # purge takes one of the opponent's armies, reinforce adds one of ours: the margin gains 1 either way
        at = O_OPP_ARMIES if w == rules.W_PURGE else O_MY_ARMIES
        for p in range(NP):
            if x[at + p] > 0:
                m = observed.margin(x, p)
                gain = _move_value(x, params, odds, after, p, m + 1) - _move_value(x, params, odds, after, p, m)
                if not found or gain > best_gain:
                    found, best_gain, best_p, best_q = True, gain, p, -1
    elif w == rules.W_MARCH:
        source = observed.march_from(x)
        for p in range(NP):
            if (source >= 0 and p != source) or (source < 0 and x[O_MY_ARMIES + p] <= 0):
                continue
            for q in range(NP):
                if observed.borders(x, p, q) and x[O_OPP_ARMIES + q] == 0:
                    mp, mq = observed.margin(x, p), observed.margin(x, q)
                    gain = _move_value(x, params, odds, after, p, mp - 1) - _move_value(x, params, odds, after, p, mp)
                    gain += _move_value(x, params, odds, after, q, mq + 1) - _move_value(x, params, odds, after, q, mq)
                    if not found or gain > best_gain:
                        found, best_gain, best_p, best_q = True, gain, p, q
    return found, best_gain, best_p, best_q


@njit(cache=True)
def _target(x: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    recalls = np.zeros(NK, dtype=np.bool_)
    for k in range(rules.N_BASE_CARDS, NK):
        recalls[k] = observed.legal_recall(mask, k)
    k, _ = _cheapest_recall(x, params, recalls)
    if k >= 0:  # D16: reinforce with an empty reserve recalls first
        return A_RECALL + k - rules.N_BASE_CARDS
    w = observed.decision_warlord(x)
    found, _, p, q = _window_move(x, params, w)
    if found:
        target = q if w == rules.W_MARCH and observed.march_from(x) >= 0 else p
        if observed.legal_province(mask, target):
            return A_PROVINCE + target
    return observed.first_legal(mask)


@njit(cache=True)
def _window(x: np.ndarray, params: np.ndarray) -> int:
    w = observed.decision_warlord(x)
    found, gain, _, _ = _window_move(x, params, w)
    if w == rules.W_REINFORCE and x[O_MY_POOLS] == 0:  # D16: the army comes from a recall, which costs a card
        k, cost = _cheapest_recall(x, params, (x[O_MY_HAND : O_MY_HAND + NK] > 0) & (x[O_MY_POOLS + 1] > 0))
        found = found and k >= 0
        gain -= cost
    rnd = observed.round_number(x)
    bar = 0.0
    if rnd <= params[P_N_WINDOW_BARS]:
        last = (
            0.0 if rnd == rules.LAST_WINDOW_ROUND and observed.all_revealed(x) else 1.0
        )  # the last window a warlord has
        bar = params[P_WINDOW_BARS + rnd - 1] * last
    return A_USE if found and gain >= bar else A_PASS


@njit(cache=True)
def _warlord(x: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    """Setup R3.3 and war_chariot R7.4: the first pick offered; after round 6 one that needs no window."""
    at, count = (P_BLUE_PICKS, P_N_BLUE_PICKS) if observed.seat(x) == 0 else (P_RED_PICKS, P_N_RED_PICKS)
    first, first_late = -1, -1
    for i in range(int(params[count])):
        w = int(params[at + i])
        if mask[A_WARLORD + w]:
            if first < 0:
                first = w
            if first_late < 0 and not IS_WINDOW_WARLORD[w]:
                first_late = w
    if observed.round_number(x) > rules.LAST_WINDOW_ROUND and first_late >= 0:
        return A_WARLORD + first_late
    return A_WARLORD + first if first >= 0 else observed.first_legal(mask)


# ------------------------------------------------------------ battles


@njit(cache=True)
def _reveal(x: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    """R4.3: battles I expect to lose first, those I expect to win last."""
    odds = opp_card_odds(x, params)
    best, best_change = -1, 0.0
    row = np.empty(NK, dtype=np.float64)
    for p in range(NP):
        if not observed.legal_province(mask, p):
            continue
        n = observed.margin(x, p)
        mine = observed.my_placed(x, p)
        for o in range(NK):
            row[o] = n + float(BATTLE_DIFF[mine, o])  # (no card: the last row, as numpy reads index -1)
        if mine == rules.CARD_PLAGUE:
            row[:] = plagued(n, False)
        row[rules.CARD_PLAGUE] = plagued(n, False)
        change = dot(row, odds[p]) - n
        if best < 0 or change < best_change:
            best, best_change = p, change
    return A_PROVINCE + best


@njit(cache=True)
def _reactive_gain(x: np.ndarray, params: np.ndarray) -> float:
    """Points gained by using the reactive warlord on offer now."""
    w = observed.decision_warlord(x)
    p = observed.decision_province(x)
    if w in (rules.W_COUNTER_PLAGUE, rules.W_DEVASTATING_PLAGUE):
        n = observed.margin(x, p)
        mine, theirs = observed.my_placed(x, p), observed.opp_placed(x, p)
        if mine < 0 or theirs < 0:
            return 0.0
        plain = battle_margin(n, mine, theirs, False, False)
        used = battle_margin(n, mine, theirs, w == rules.W_COUNTER_PLAGUE, w == rules.W_DEVASTATING_PLAGUE)
        return worth(x, params, p, used) - worth(x, params, p, plain)
    if w in (rules.W_RECYCLE_PLAGUE, rules.W_RECYCLE_MINUS_ONE):
        card = rules.CARD_PLAGUE if w == rules.W_RECYCLE_PLAGUE else rules.CARD_MINUS1
        if observed.round_number(x) >= rules.N_ROUNDS - 1:
            return 0.0
        deck = x[O_MY_DECK : O_MY_DECK + NK].astype(np.float64)
        cards = row_sum(deck)
        lost = dot(deck, params[P_CARD_WORTH : P_CARD_WORTH + NK]) / cards if cards > 0 else 0.0
        return params[P_CARD_WORTH + card] - lost
    return 0.0  # feint only lowers blue's card


@njit(cache=True)
def _cheaper(cost: float, action: int, best_cost: float, best: int) -> bool:
    """(cost, action) before (best_cost, best), or nothing chosen yet."""
    return best < 0 or cost < best_cost or (cost == best_cost and action < best)


@njit(cache=True)
def _payment(x: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    """Where an army comes from: the reserve, a province or a recall (R4.2), whichever costs least.

    An army of the reserve costs `army_worth`; one of a province, what the province's coming scorings
    lose; a recall, the discarded card's worth for later charged as for playing it outside a scoring round
    (`save`; nothing in round 9, when every card has been placed), after which the army comes from the
    reserve. Ties: the lowest action id.
    """
    best, best_cost = -1, 0.0
    if mask[A_PASS]:  # D14: nothing to take; only a recall would pay or place the army
        if observed.decision_kind(x) == layout.DK_SOURCE:
            return A_PASS  # a payment: recalling to pay only loses the card
        p = observed.decision_province(x)  # a shortfall: passing forgoes the army in the province being reinforced
        m = observed.margin(x, p)
        best, best_cost = A_PASS, worth(x, params, p, m + 1) - worth(x, params, p, m)
    if mask[A_RESERVE]:
        best, best_cost = A_RESERVE, army_worth(x, params)
    for p in range(NP):
        if observed.legal_province(mask, p):
            m = observed.margin(x, p)
            cost = worth(x, params, p, m) - worth(x, params, p, m - 1)
            if _cheaper(cost, A_PROVINCE + p, best_cost, best):
                best, best_cost = A_PROVINCE + p, cost
    for k in range(rules.N_BASE_CARDS, NK):
        if observed.legal_recall(mask, k):
            cost = _recall_cost(x, params, k)
            if _cheaper(cost, A_RECALL + k - rules.N_BASE_CARDS, best_cost, best):
                best, best_cost = A_RECALL + k - rules.N_BASE_CARDS, cost
    return best


@njit(cache=True)
def _recall_cost(x: np.ndarray, params: np.ndarray, k: int) -> float:
    """What discarding card k for an army costs (R4.2): its worth for later, as for playing it early."""
    return params[P_CARD_WORTH + k] * params[P_SAVE] * min(1.0, (rules.N_ROUNDS - observed.round_number(x)) / 3.0)


@njit(cache=True)
def _cheapest_recall(x: np.ndarray, params: np.ndarray, allowed: np.ndarray) -> tuple[int, float]:
    """(card, cost) of the cheapest recall among the non-base kinds `allowed` (bool, NK); card -1 if none."""
    best, best_cost = -1, 0.0
    for k in range(rules.N_BASE_CARDS, NK):
        if allowed[k]:
            cost = _recall_cost(x, params, k)
            if best < 0 or cost < best_cost:
                best, best_cost = k, cost
    return best, best_cost


# ------------------------------------------------------------ the entry points


@njit(cache=True)
def heuristic_act(obs: np.ndarray, mask: np.ndarray, params: np.ndarray) -> int:
    """The heuristic baseline's action for one observation (float32), mask (int8) and parameter array."""
    x = observed.decode(obs)
    kind = observed.decision_kind(x)
    if kind == layout.DK_PLACE:
        return _place(x, mask, params)
    if kind == layout.DK_KEEP:
        best = -1
        for k in range(NK):  # the card worth most later; a Plague wins a tie
            if not mask[A_KEEP + k]:
                continue
            worth_k, worth_best = params[P_CARD_WORTH + k], params[P_CARD_WORTH + best]
            if best < 0 or worth_k > worth_best or (worth_k == worth_best and k == rules.CARD_PLAGUE):
                best = k
        if best >= 0:
            return A_KEEP + best
    elif kind == layout.DK_WARLORD:
        return _warlord(x, mask, params)
    elif kind == layout.DK_WINDOW:
        return _window(x, params)
    elif kind == layout.DK_TARGET:
        return _target(x, mask, params)
    elif kind == layout.DK_REVEAL:
        return _reveal(x, mask, params)
    elif kind == layout.DK_REACTIVE:
        return A_USE if _reactive_gain(x, params) > params[P_REACTIVE_BAR] else A_PASS
    elif kind in (layout.DK_SOURCE, layout.DK_SHORTFALL):
        return _payment(x, mask, params)
    return observed.first_legal(mask)


@njit(cache=True)
def heuristic_act_batch(obs: np.ndarray, masks: np.ndarray, params: np.ndarray, out: np.ndarray) -> None:
    """`heuristic_act` for each row of obs (N, OBSERVATION_SIZE) and masks (N, N_ACTIONS), into out (N,)."""
    for i in range(obs.shape[0]):
        out[i] = heuristic_act(obs[i], masks[i], params)
