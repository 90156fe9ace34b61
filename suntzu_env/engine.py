"""The rules engine: every rule of docs/rules.md as compiled functions over the state vector.

The state is the int32 vector of `suntzu_env.layout`. The engine runs the game forward on its own
until a decision with at least two legal answers is pending (R10); a decision with a single answer
is applied on the spot. Entry points:

- `init_state(s, seed, variant, events, adjacency, mask)`: setup (R3), the only use of randomness.
- `legal_mask(s, mask)`: fills an int8 mask over the flat action space, returns how many are legal.
- `step(s, action, mask)`: applies a legal action, runs on, refills the mask.
- `step_batch` / `random_playouts`: the same over an (N, S) batch and whole random games.

Everything is written once, runs compiled with numba (`cache=True`) and as plain Python under
`NUMBA_DISABLE_JIT=1`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.actions import (
    A_KEEP,
    A_PASS,
    A_PLACE,
    A_PROVINCE,
    A_RECALL,
    A_RESERVE,
    A_USE,
    A_WARLORD,
    N_ACTIONS,
)
from suntzu_env.layout import (
    ACTIVE_WL,
    ADJ,
    ARMIES,
    BATTLE_PROV,
    BATTLE_WINNER,
    BS_CHARIOT,
    BS_COSTS,
    BS_COUNTER,
    BS_DEVASTATE,
    BS_DONE,
    BS_EVENTS,
    BS_FEINT,
    BS_MARKS,
    BS_RECYCLE_BLUE,
    BS_RECYCLE_RED,
    BS_RESOLVE,
    CANCELLED,
    CAUSE_CHAMPION,
    CAUSE_COST,
    CAUSE_HERO,
    CAUSE_MARK,
    CAUSE_PANDEMIC,
    CAUSE_SHORTFALL,
    CHARIOT,
    COUNTER_ON,
    DEC_CAUSE,
    DEC_KIND,
    DEC_PROV,
    DEC_SIDE,
    DEC_WARLORD,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DEVASTATE_ON,
    DK_KEEP,
    DK_NONE,
    DK_PLACE,
    DK_REACTIVE,
    DK_REVEAL,
    DK_SHORTFALL,
    DK_SOURCE,
    DK_TARGET,
    DK_WARLORD,
    DK_WINDOW,
    DRAW_SLOTS,
    DRAWN,
    DST_MARK,
    DST_PROVINCE,
    DST_SET_ASIDE,
    ENDING,
    EVENT_DECK,
    EVENT_DECK_LEN,
    EVENT_UP,
    EVENTS_ON,
    FEINT_ON,
    HAND,
    HAND_RECYCLED,
    KEEP_LEFT,
    KIND_COPIES,
    LAST_REVEAL,
    MARCH_FROM,
    MARKED,
    MAX_TASKS,
    ORDER_HOLDER,
    OUT,
    PH_BATTLE,
    PH_DRAW,
    PH_OVER,
    PH_PLACEMENT,
    PH_REVEAL,
    PH_WARLORDS,
    PH_WINDOW,
    PHASE,
    PLACE_PROV,
    PLACED,
    PLACED_RECYCLED,
    PLAGUE_REVEALS,
    PLAGUES_SEEN,
    PRIVILEGE,
    RECYCLED,
    RECYCLED_PLAGUE,
    RESERVE,
    REVEALED,
    ROUND,
    RULE_ANY,
    RULE_RESERVE_FIRST,
    RULE_SHORTFALL,
    SCORE,
    SET_ASIDE,
    SIX_MARKS,
    SIXES,
    STATE_DTYPE,
    STATE_SIZE,
    STEP,
    T_CAUSE,
    T_COUNT,
    T_DST,
    T_PROV,
    T_RULE,
    T_SIDE,
    TASK_LEN,
    TASK_SIZE,
    TASKS,
    VALUES,
    VARIANT,
    WARLORD,
    WARLORDS_ON,
    WINDOW_AFTER,
    WINDOW_POS,
    WINNER,
    WINNER_DRAW,
    WL_HELD,
    WL_UNCHOSEN,
    WL_USED,
)
from suntzu_env.rules import (
    ARMIES_PER_SIDE,
    CARD_COST,
    CARD_IS_RELATIVE,
    CARD_MINUS1,
    CARD_NINE,
    CARD_ONE,
    CARD_PLAGUE,
    CARD_SEVEN,
    CARD_SIX,
    CARD_TEN,
    CHAMPION_COST,
    CHARIOT_SIXES,
    DRAW,
    DRAW_AFTER_ONE,
    E_CHAMPION,
    E_HERO,
    E_PANDEMIC,
    E_WAR_CHARIOT,
    FEINT_CARD,
    HAND_DRAW,
    HEAD_START_POINTS,
    HERO_COST,
    LAST_WINDOW_ROUND,
    LIGHT_INFANTRY_MARGIN,
    MAX_SCORE,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_EVENTS,
    N_PROVINCES,
    N_ROUNDS,
    N_SCORINGS,
    N_WARLORDS,
    N_WARLORDS_PER_SIDE,
    PANDEMIC_PLAGUES,
    RED,
    W_COUNTER_PLAGUE,
    W_DEVASTATING_PLAGUE,
    W_DOUBLE_SIX,
    W_FEINT,
    W_HEAD_START,
    W_PURGE,
    W_RECYCLE_MINUS_ONE,
    W_RECYCLE_PLAGUE,
    W_REINFORCE,
)
from suntzu_env.tables import (
    BATTLE_DIFF,
    COPIES,
    DISPLAYS,
    HAS_WARLORDS,
    IS_WINDOW_WARLORD,
    START_RESERVE,
    START_SET_ASIDE,
    may_place_six,
    projected_score,
    scoring_column,
)

NP = N_PROVINCES
NK = N_CARD_KINDS
MASK32 = 0xFFFFFFFF


# ---------------------------------------------------------------- randomness (setup only, R3.5)


@njit(cache=True)
def rng_seed(seed: int) -> np.ndarray:
    """A 32-bit xorshift generator state from any seed in [0, 2**63)."""
    x = (seed & MASK32) ^ ((seed >> 32) * 0x9E3779B1 & MASK32)
    for _ in range(3):  # lowbias32 mixing: nearby seeds give unrelated streams
        x ^= x >> 16
        x = (x * 0x7FEB352D) & MASK32
        x ^= x >> 15
        x = (x * 0x846CA68B) & MASK32
        x ^= x >> 16
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = x if x != 0 else 0x6D2B79F5
    return rng


@njit(cache=True)
def rng_below(rng: np.ndarray, n: int) -> int:
    """A uniform-ish integer in [0, n), advancing the generator."""
    x = rng[0]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    rng[0] = x
    return x % n


@njit(cache=True)
def _shuffle(rng: np.ndarray, items: np.ndarray, n: int) -> None:
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


# ---------------------------------------------------------------- small queries


@njit(cache=True)
def _owner(s: np.ndarray, p: int) -> int:
    """-1 empty, else the side with armies in province p."""
    if s[ARMIES + p] > 0:
        return 0
    if s[ARMIES + NP + p] > 0:
        return 1
    return -1


@njit(cache=True)
def _board_armies(s: np.ndarray, side: int) -> int:
    total = 0
    for p in range(NP):
        total += s[ARMIES + side * NP + p]
    return total


@njit(cache=True)
def _adjacent(s: np.ndarray, p: int, q: int) -> bool:
    return (s[ADJ + p] >> q) & 1 == 1


@njit(cache=True)
def _held(s: np.ndarray, w: int) -> bool:
    return s[WARLORD + w] == WL_HELD


@njit(cache=True)
def _placed(s: np.ndarray, side: int, p: int) -> int:
    return s[PLACED + side * NP + p]


@njit(cache=True)
def card_kind(c: int) -> int:
    """The card kind of a deck or drawn entry: a recycled Plague copy is a Plague (R7.1, P14)."""
    return CARD_PLAGUE if c == RECYCLED_PLAGUE else c


@njit(cache=True)
def _take_from_hand(s: np.ndarray, side: int, k: int) -> int:
    """Remove one card of kind k from the hand; a Plague is the never-revealed copy first (P14).

    Returns the card as a deck entry (RECYCLED_PLAGUE for a recycled copy).
    """
    s[HAND + side * NK + k] -= 1
    if k == CARD_PLAGUE and s[HAND + side * NK + k] < s[HAND_RECYCLED + side]:
        s[HAND_RECYCLED + side] -= 1
        return RECYCLED_PLAGUE
    return k


@njit(cache=True)
def _add_to_hand(s: np.ndarray, side: int, c: int) -> None:
    """Put a deck entry into the hand."""
    if c == RECYCLED_PLAGUE:
        s[HAND_RECYCLED + side] += 1
    s[HAND + side * NK + card_kind(c)] += 1


@njit(cache=True)
def _recall(s: np.ndarray, side: int, k: int) -> None:
    """R4.2: discard non-base card k from hand (public) to bring one set-aside army to the reserve."""
    _take_from_hand(s, side, k)
    s[OUT + side * NK + k] += 1
    s[SET_ASIDE + side] -= 1
    s[RESERVE + side] += 1


@njit(cache=True)
def _recall_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """R4.2, D2: `recall:<card>` for each non-base kind in hand while the set-aside pool is not empty."""
    n = 0
    if s[SET_ASIDE + side] > 0:
        for k in range(N_BASE_CARDS, NK):
            if s[HAND + side * NK + k] > 0:
                mask[A_RECALL + k - N_BASE_CARDS] = 1
                n += 1
    return n


@njit(cache=True)
def _is_recall(a: int) -> bool:
    return A_RECALL <= a < A_RECALL + NK - N_BASE_CARDS


@njit(cache=True)
def _may_place_six(s: np.ndarray, side: int, p: int) -> bool:
    """R4.1: no `6` where the side has marked, except red's double_six (P4)."""
    return may_place_six(s[SIX_MARKS + side * NP + p], side == RED, _held(s, W_DOUBLE_SIX))


@njit(cache=True)
def _march_has_dest(s: np.ndarray, p: int) -> bool:
    for q in range(NP):
        if _adjacent(s, p, q) and s[ARMIES + NP + q] == 0:
            return True
    return False


@njit(cache=True)
def _window_can_act(s: np.ndarray, w: int) -> bool:
    """R8, P2: a window warlord is offered only when it has a target."""
    if w == W_PURGE:  # D13: a blue army
        return _board_armies(s, 0) > 0
    if w == W_REINFORCE:
        return s[RESERVE] > 0 and _board_armies(s, 0) > 0
    # march: a blue army with an adjacent province that is empty or blue's
    for p in range(NP):
        if s[ARMIES + p] > 0 and _march_has_dest(s, p):
            return True
    return False


# ---------------------------------------------------------------- decisions


@njit(cache=True)
def _decide(s: np.ndarray, kind: int, side: int, p: int, w: int, cause: int) -> bool:
    s[DEC_KIND] = kind
    s[DEC_SIDE] = side
    s[DEC_PROV] = p
    s[DEC_WARLORD] = w
    s[DEC_CAUSE] = cause
    return True


@njit(cache=True)
def legal_mask(s: np.ndarray, mask: np.ndarray) -> int:
    """Fill `mask` (int8, N_ACTIONS) with the legal answers to the pending decision; return their count."""
    mask[:] = 0
    kind = s[DEC_KIND]
    side = s[DEC_SIDE]
    n = 0
    if kind == DK_NONE:
        return 0
    if kind == DK_WARLORD:
        for j in range(N_WARLORDS_PER_SIDE):
            w = side * N_WARLORDS_PER_SIDE + j
            if s[WARLORD + w] == WL_UNCHOSEN and not (s[PHASE] != PH_WARLORDS and w == W_HEAD_START):
                mask[A_WARLORD + w] = 1
                n += 1
        if s[PHASE] != PH_WARLORDS:  # R7.4: war_chariot's warlord is optional
            mask[A_PASS] = 1
            n += 1
    elif kind == DK_PLACE:
        n = _placement_mask(s, side, mask)
    elif kind in (DK_WINDOW, DK_REACTIVE):
        mask[A_USE] = 1
        mask[A_PASS] = 1
        n = 2
    elif kind == DK_TARGET:
        w = s[DEC_WARLORD]
        for p in range(NP):
            ok = False
            if w in (W_PURGE, W_REINFORCE):  # D13: purge removes a blue army
                ok = s[ARMIES + p] > 0
            elif s[MARCH_FROM] < 0:
                ok = s[ARMIES + p] > 0 and _march_has_dest(s, p)
            else:
                ok = _adjacent(s, s[MARCH_FROM], p) and s[ARMIES + NP + p] == 0
            if ok:
                mask[A_PROVINCE + p] = 1
                n += 1
    elif kind == DK_REVEAL:
        for p in range(NP):
            if s[REVEALED + p] == 0:
                mask[A_PROVINCE + p] = 1
                n += 1
    elif kind == DK_SOURCE:
        rule = s[TASKS + T_RULE]
        if s[RESERVE + side] > 0:
            mask[A_RESERVE] = 1
            n += 1
        if rule == RULE_ANY or n == 0:
            for p in range(NP):
                if s[ARMIES + side * NP + p] > 0:
                    mask[A_PROVINCE + p] = 1
                    n += 1
        n += _recall_mask(s, side, mask)  # D2 (b)
    elif kind == DK_SHORTFALL:
        n = _shortfall_sources(s, side, s[DEC_PROV], mask) + _recall_mask(s, side, mask)
    elif kind == DK_KEEP:
        for i in range(DRAW_SLOTS):
            c = s[DRAWN + side * DRAW_SLOTS + i]
            k = card_kind(c)
            if c >= 0 and mask[A_KEEP + k] == 0:
                mask[A_KEEP + k] = 1
                n += 1
    return n


@njit(cache=True)
def _placement_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """R4.1, R4.2: the side's answers for the card of its next province (placement in progress)."""
    p = s[PLACE_PROV + side]
    n = 0
    for k in range(NK):
        if s[HAND + side * NK + k] > 0 and (k != CARD_SIX or _may_place_six(s, side, p)):
            mask[A_PLACE + k] = 1
            n += 1
    return n + _recall_mask(s, side, mask)


@njit(cache=True)
def placement_mask(s: np.ndarray, side: int, mask: np.ndarray) -> int:
    """The side's own placement answers while it still has provinces to fill, whoever is asked now (R4.1)."""
    mask[:] = 0
    if s[PHASE] != PH_PLACEMENT or s[PLACE_PROV + side] >= NP or s[WINNER] >= 0:
        return 0
    return _placement_mask(s, side, mask)


@njit(cache=True)
def _shortfall_sources(s: np.ndarray, side: int, p: int, mask: np.ndarray) -> int:
    """R5.4, P9: adjacent provinces of the side first, then its other provinces, never p itself."""
    n = 0
    for q in range(NP):
        if q != p and _adjacent(s, p, q) and s[ARMIES + side * NP + q] > 0:
            mask[A_PROVINCE + q] = 1
            n += 1
    if n == 0:
        for q in range(NP):
            if q != p and s[ARMIES + side * NP + q] > 0:
                mask[A_PROVINCE + q] = 1
                n += 1
    return n


# ---------------------------------------------------------------- army transfers (R5.3-R5.6, R7)


@njit(cache=True)
def _push_task(s: np.ndarray, side: int, count: int, rule: int, dst: int, p: int, cause: int) -> None:
    if count <= 0:
        return
    i = s[TASK_LEN]
    if i >= MAX_TASKS:
        raise RuntimeError("army transfer queue overflow")
    base = TASKS + i * TASK_SIZE
    s[base + T_SIDE] = side
    s[base + T_COUNT] = count
    s[base + T_RULE] = rule
    s[base + T_DST] = dst
    s[base + T_PROV] = p
    s[base + T_CAUSE] = cause
    s[TASK_LEN] = i + 1


@njit(cache=True)
def _pop_task(s: np.ndarray) -> None:
    n = s[TASK_LEN]
    for i in range(TASK_SIZE, n * TASK_SIZE):
        s[TASKS + i - TASK_SIZE] = s[TASKS + i]
    for i in range((n - 1) * TASK_SIZE, n * TASK_SIZE):
        s[TASKS + i] = 0
    s[TASK_LEN] = n - 1


@njit(cache=True)
def _deliver(s: np.ndarray) -> None:
    """One army of the head task arrives at its destination."""
    side = s[TASKS + T_SIDE]
    dst = s[TASKS + T_DST]
    if dst == DST_SET_ASIDE:
        s[SET_ASIDE + side] += 1
    elif dst == DST_MARK:
        s[MARKED + side] += 1
    else:
        s[ARMIES + side * NP + s[TASKS + T_PROV]] += 1
    s[TASKS + T_COUNT] -= 1
    if s[TASKS + T_COUNT] == 0:
        _pop_task(s)


@njit(cache=True)
def _run_task(s: np.ndarray, scratch: np.ndarray) -> bool:
    """Move armies of the head task until a choice is needed (True) or it is done (False)."""
    side = s[TASKS + T_SIDE]
    rule = s[TASKS + T_RULE]
    p = s[TASKS + T_PROV]
    pending = s[TASK_LEN]
    while s[TASK_LEN] == pending:
        if rule != RULE_ANY and s[RESERVE + side] > 0:  # the reserve goes first, no choice
            s[RESERVE + side] -= 1
            _deliver(s)
            continue
        if rule == RULE_SHORTFALL:
            has_source = _shortfall_sources(s, side, p, scratch) > 0
        else:
            has_source = s[RESERVE + side] > 0 or _board_armies(s, side) > 0
        if not has_source:  # P10, R5.4: what cannot be paid or placed is dropped
            _pop_task(s)
            return False
        kind = DK_SHORTFALL if rule == RULE_SHORTFALL else DK_SOURCE
        return _decide(s, kind, side, p, -1, s[TASKS + T_CAUSE])
    return False


@njit(cache=True)
def _add_armies(s: np.ndarray, side: int, count: int, p: int) -> None:
    """The side adds armies to p: from reserve, the rest as a shortfall (R5.4)."""
    take = min(count, s[RESERVE + side])
    s[RESERVE + side] -= take
    s[ARMIES + side * NP + p] += take
    _push_task(s, side, count - take, RULE_SHORTFALL, DST_PROVINCE, p, CAUSE_SHORTFALL)


@njit(cache=True)
def _move_armies(s: np.ndarray, winner: int, d: int, p: int) -> None:
    """R5.3: the winner of a battle by d in province p."""
    loser = 1 - winner
    held = s[ARMIES + loser * NP + p]
    if held > 0:
        removed = min(held, d)
        s[ARMIES + loser * NP + p] -= removed
        s[RESERVE + loser] += removed
        d -= removed
    if d > 0:
        _add_armies(s, winner, d, p)


# ---------------------------------------------------------------- setup (R3)


@njit(cache=True)
def set_variant(s: np.ndarray, variant: int) -> None:
    """Write the features of row `variant` of `rules.VARIANT_RULES` into the state's flags."""
    s[VARIANT] = variant
    s[WARLORDS_ON] = HAS_WARLORDS[variant]
    for k in range(NK):
        s[KIND_COPIES + k] = COPIES[variant, k]


@njit(cache=True)
def init_state(s: np.ndarray, seed: int, variant: int, events: int, adj: np.ndarray, mask: np.ndarray) -> int:
    """Set up a new game from a seed (R3) and run to the first decision; returns the legal count."""
    s[:] = 0
    rng = rng_seed(seed)
    set_variant(s, variant)
    s[EVENTS_ON] = events
    for p in range(NP):
        s[ADJ + p] = adj[p]
    s[ROUND] = 1
    s[WINNER] = -1
    for i in range(2 * NP):
        s[LAST_REVEAL + i] = -1
    s[PRIVILEGE] = -1
    s[ORDER_HOLDER] = -1
    displays = np.arange(len(DISPLAYS))
    _shuffle(rng, displays, len(DISPLAYS))  # R3.1: five displays at random, in random provinces
    for p in range(NP):
        for col in range(N_SCORINGS):
            s[VALUES + p * N_SCORINGS + col] = DISPLAYS[displays[p], col]
    cards = np.zeros(DECK_CAPACITY, dtype=np.int64)
    for side in range(2):  # R3.2
        s[RESERVE + side] = START_RESERVE[variant]
        s[SET_ASIDE + side] = START_SET_ASIDE[variant]
        n = 0
        for k in range(NK):
            if k < N_BASE_CARDS:
                s[HAND + side * NK + k] = s[KIND_COPIES + k]
            else:
                for _ in range(s[KIND_COPIES + k]):
                    cards[n] = k
                    n += 1
        _shuffle(rng, cards, n)
        for i in range(DECK_CAPACITY):
            s[DECK + side * DECK_CAPACITY + i] = -1
        for i in range(HAND_DRAW):
            s[HAND + side * NK + cards[i]] += 1
        for i in range(HAND_DRAW, n):
            s[DECK + side * DECK_CAPACITY + i - HAND_DRAW] = cards[i]
        s[DECK_LEN + side] = n - HAND_DRAW
    s[EVENT_UP] = -1
    for i in range(N_EVENTS):
        s[EVENT_DECK + i] = -1
    if events:  # R3.4: one event face up, the others in a deck
        order = np.arange(N_EVENTS)
        _shuffle(rng, order, N_EVENTS)
        s[EVENT_UP] = order[0]
        for i in range(N_EVENTS - 1):
            s[EVENT_DECK + i] = order[i + 1]
        s[EVENT_DECK_LEN] = N_EVENTS - 1
    _begin_round(s)
    if s[WARLORDS_ON] == 1:  # R3.3: warlords are chosen before the first placement
        s[PHASE] = PH_WARLORDS
    return advance(s, mask)


@njit(cache=True)
def _begin_round(s: np.ndarray) -> None:
    s[PHASE] = PH_PLACEMENT
    s[STEP] = 0
    s[PLACE_PROV] = 0
    s[PLACE_PROV + 1] = 0
    s[ORDER_HOLDER] = -1
    s[BATTLE_PROV] = -1
    s[BATTLE_WINNER] = -1
    s[FEINT_ON] = 0
    s[COUNTER_ON] = 0
    s[DEVASTATE_ON] = 0
    s[WINDOW_AFTER] = 0
    s[WINDOW_POS] = 0
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1
    s[KEEP_LEFT] = 0
    s[KEEP_LEFT + 1] = 0
    for i in range(2 * NP):
        s[PLACED + i] = -1
        s[PLACED_RECYCLED + i] = 0
        s[CANCELLED + i] = 0
        s[RECYCLED + i] = 0
    for p in range(NP):
        s[REVEALED + p] = 0
    for i in range(2 * DRAW_SLOTS):
        s[DRAWN + i] = -1


# ---------------------------------------------------------------- the round


@njit(cache=True)
def _count_privilege(s: np.ndarray) -> None:
    """R4.3: once the window before battles is over, fix who orders this round's reveals."""
    holder = -1
    if s[ROUND] > 1:
        blue, red = _board_armies(s, 0), _board_armies(s, 1)
        if blue < red:
            holder = 0
        elif red < blue:
            holder = 1
        else:
            holder = s[PRIVILEGE]
        s[PRIVILEGE] = holder
    s[ORDER_HOLDER] = holder
    s[PHASE] = PH_REVEAL


@njit(cache=True)
def _open_window(s: np.ndarray, after: int) -> None:
    s[PHASE] = PH_WINDOW
    s[WINDOW_AFTER] = after
    s[WINDOW_POS] = 0
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1


@njit(cache=True)
def _window_step(s: np.ndarray) -> bool:
    """R8 windows, P1: offer each held window warlord in turn, blue's first."""
    w = s[ACTIVE_WL]
    if w >= 0:
        return _decide(s, DK_TARGET, w // N_WARLORDS_PER_SIDE, s[MARCH_FROM], w, -1)
    while s[WINDOW_POS] < N_WARLORDS:
        w = s[WINDOW_POS]
        if IS_WINDOW_WARLORD[w] and _held(s, w) and s[ROUND] <= LAST_WINDOW_ROUND and _window_can_act(s, w):
            return _decide(s, DK_WINDOW, w // N_WARLORDS_PER_SIDE, -1, w, -1)
        s[WINDOW_POS] += 1
    if s[WINDOW_AFTER] == 0:
        _count_privilege(s)
    else:
        _end_of_battles(s)
    return False


@njit(cache=True)
def _apply_target(s: np.ndarray, w: int, p: int) -> None:
    if w == W_PURGE:  # remove one army; it returns to its owner's reserve
        side = _owner(s, p)
        s[ARMIES + side * NP + p] -= 1
        s[RESERVE + side] += 1
    elif w == W_REINFORCE:
        s[RESERVE] -= 1
        s[ARMIES + p] += 1
    elif s[MARCH_FROM] < 0:  # march, P3: first the source...
        s[MARCH_FROM] = p
        return
    else:  # ...then the destination
        s[ARMIES + s[MARCH_FROM]] -= 1
        s[ARMIES + p] += 1
    s[ACTIVE_WL] = -1
    s[MARCH_FROM] = -1
    s[WINDOW_POS] += 1


@njit(cache=True)
def _reveal_step(s: np.ndarray) -> bool:
    """R4.3: the next province to reveal, chosen by the holder or in board order."""
    left = 0
    first = -1
    for p in range(NP):
        if s[REVEALED + p] == 0:
            left += 1
            if first < 0:
                first = p
    if left == 0:
        _open_window(s, 1)
        return False
    if s[ORDER_HOLDER] < 0:
        _start_battle(s, first)
        return False
    return _decide(s, DK_REVEAL, s[ORDER_HOLDER], -1, -1, -1)


@njit(cache=True)
def _start_battle(s: np.ndarray, p: int) -> None:
    s[REVEALED + p] = 1
    s[BATTLE_PROV] = p
    s[PHASE] = PH_BATTLE
    s[STEP] = BS_FEINT
    s[BATTLE_WINNER] = -1
    s[FEINT_ON] = 0
    s[COUNTER_ON] = 0
    s[DEVASTATE_ON] = 0
    for side in range(2):
        k = _placed(s, side, p)
        if k == CARD_PLAGUE:
            s[PLAGUE_REVEALS] += 1
            if s[PLACED_RECYCLED + side * NP + p] == 0:  # R7.1, D6: a copy counts once
                s[PLAGUES_SEEN + side] += 1
        elif k == CARD_SIX:  # R7.4: every revealed `6`, one facing a Plague too
            s[SIXES + side] += 1


@njit(cache=True)
def _battle_diff(s: np.ndarray, bk: int, rk: int) -> int:
    """R5.1: blue's margin over red (negative when red wins); under feint blue's `7`..`10` counts as a `6`."""
    if s[FEINT_ON] == 1 and CARD_IS_RELATIVE[bk] == 0:
        bk = FEINT_CARD
    return BATTLE_DIFF[bk, rk]


@njit(cache=True)
def _battle_step(s: np.ndarray) -> bool:
    """One step of the battle in BATTLE_PROV, in the order of R5.7."""
    p = s[BATTLE_PROV]
    bk = _placed(s, 0, p)
    rk = _placed(s, 1, p)
    st = s[STEP]
    s[STEP] = st + 1
    has_plague = bk == CARD_PLAGUE or rk == CARD_PLAGUE
    active_plague = has_plague and s[COUNTER_ON] == 0
    if st == BS_FEINT:
        if _held(s, W_FEINT) and CARD_SEVEN <= bk <= CARD_TEN and CARD_IS_RELATIVE[rk] == 0:
            return _decide(s, DK_REACTIVE, 0, p, W_FEINT, -1)
    elif st == BS_COUNTER:  # D9: it counters one Plague, so it changes nothing against two
        if (bk == CARD_PLAGUE) != (rk == CARD_PLAGUE) and _held(s, W_COUNTER_PLAGUE):
            return _decide(s, DK_REACTIVE, 1, p, W_COUNTER_PLAGUE, -1)
    elif st == BS_DEVASTATE:
        n = s[ARMIES + p] + s[ARMIES + NP + p]
        if active_plague and n - 1 > n // 2 and _held(s, W_DEVASTATING_PLAGUE):  # it would change something
            return _decide(s, DK_REACTIVE, 1, p, W_DEVASTATING_PLAGUE, -1)
    elif st == BS_MARKS:  # R5.5: every revealed 6 marks, army from reserve first
        for side in range(2):
            k = _placed(s, side, p)
            if active_plague and k != CARD_PLAGUE:  # R5.2, D5: the card's effects are cancelled
                s[CANCELLED + side * NP + p] = 1
            if k == CARD_SIX:
                if s[SIX_MARKS + side * NP + p] > 0:  # P4: red's second 6 there spends double_six
                    s[WARLORD + W_DOUBLE_SIX] = WL_USED
                if s[CANCELLED + side * NP + p] == 0:
                    s[SIX_MARKS + side * NP + p] += 1
                    _push_task(s, side, 1, RULE_RESERVE_FIRST, DST_MARK, p, CAUSE_MARK)
    elif st == BS_RESOLVE:
        if active_plague:  # R5.2
            side = _owner(s, p)
            if side >= 0:
                n = s[ARMIES + side * NP + p]
                removed = n - 1 if s[DEVASTATE_ON] == 1 else n // 2
                s[ARMIES + side * NP + p] -= removed
                s[RESERVE + side] += removed
        else:
            d = _battle_diff(s, bk, rk)
            if d > 0:
                s[BATTLE_WINNER] = 0
                _move_armies(s, 0, d, p)
            elif d < 0:
                s[BATTLE_WINNER] = 1
                _move_armies(s, 1, -d, p)
    elif st == BS_COSTS:  # R5.6, D5: no cost for a card facing an active Plague
        for side in range(2):
            if s[CANCELLED + side * NP + p] == 0:
                _push_task(s, side, CARD_COST[_placed(s, side, p)], RULE_ANY, DST_SET_ASIDE, p, CAUSE_COST)
    elif st == BS_EVENTS:
        if s[EVENTS_ON] == 1:
            _run_events(s, p)
    elif st == BS_CHARIOT:
        if s[ENDING] == 1:  # R6.3, P6
            _finish_by_marker(s)
            return False
        for side in range(2):
            if s[CHARIOT + side] == 1:
                s[STEP] = st  # stay here until both choices are made
                return _decide(s, DK_WARLORD, side, -1, -1, -1)
    elif st == BS_RECYCLE_BLUE:  # D8: not into an empty deck
        if bk == CARD_MINUS1 and _held(s, W_RECYCLE_MINUS_ONE) and s[DECK_LEN] > 0:
            return _decide(s, DK_REACTIVE, 0, p, W_RECYCLE_MINUS_ONE, -1)
    elif st == BS_RECYCLE_RED:
        if rk == CARD_PLAGUE and _held(s, W_RECYCLE_PLAGUE) and s[DECK_LEN + 1] > 0:
            return _decide(s, DK_REACTIVE, 1, p, W_RECYCLE_PLAGUE, -1)
    elif st == BS_DONE:
        s[BATTLE_PROV] = -1
        s[PHASE] = PH_REVEAL
    return False


@njit(cache=True)
def _recycle(s: np.ndarray, side: int, p: int) -> None:
    """recycle_plague / recycle_minus_one: the card to the deck's bottom, then its top card out (D8: deck not empty)."""
    base = DECK + side * DECK_CAPACITY
    n = s[DECK_LEN + side]
    s[OUT + side * NK + card_kind(s[base])] += 1  # P11: the discarded card is public
    for i in range(1, n):
        s[base + i - 1] = s[base + i]
    k = _placed(s, side, p)
    s[base + n - 1] = RECYCLED_PLAGUE if k == CARD_PLAGUE else k  # R7.1: a revealed copy
    s[RECYCLED + side * NP + p] = 1


# ---------------------------------------------------------------- events (R7)


@njit(cache=True)
def _event_holds(s: np.ndarray, e: int, p: int) -> bool:
    if e == E_PANDEMIC:  # R7.1, D6
        return s[PLAGUES_SEEN] + s[PLAGUES_SEEN + 1] >= PANDEMIC_PLAGUES
    if e == E_WAR_CHARIOT:  # R7.4, P5
        return s[SIXES] >= CHARIOT_SIXES or s[SIXES + 1] >= CHARIOT_SIXES
    if e in (E_CHAMPION, E_HERO):
        card = CARD_NINE if e == E_CHAMPION else CARD_TEN
        for side in range(2):
            if _placed(s, side, p) == card and s[BATTLE_WINNER] != side:
                return True
        return False
    # light_infantry, R7.5
    return p >= 0 and _placed(s, 0, p) == CARD_ONE and _placed(s, 1, p) == CARD_ONE


@njit(cache=True)
def _apply_event(s: np.ndarray, e: int, p: int) -> None:
    if e == E_PANDEMIC:  # R7.1
        for side in range(2):
            _push_task(s, side, 1, RULE_RESERVE_FIRST, DST_SET_ASIDE, -1, CAUSE_PANDEMIC)
    elif e == E_WAR_CHARIOT:  # R7.4, P7
        if s[WARLORDS_ON] == 1:
            for side in range(2):
                if s[SIXES + side] >= CHARIOT_SIXES:
                    s[CHARIOT + side] = 1
    elif e in (E_CHAMPION, E_HERO):  # R7.2, R7.3
        card = CARD_NINE if e == E_CHAMPION else CARD_TEN
        for side in range(2):
            if _placed(s, side, p) == card and s[BATTLE_WINNER] != side:
                if e == E_CHAMPION:
                    _push_task(s, side, CHAMPION_COST, RULE_ANY, DST_SET_ASIDE, p, CAUSE_CHAMPION)
                else:
                    _push_task(s, side, HERO_COST, RULE_ANY, DST_SET_ASIDE, p, CAUSE_HERO)
    elif s[SCORE] != 0:  # R7.5, P12: the side behind on the marker wins by 1; D7: at 0, no effect
        behind = 1 if s[SCORE] > 0 else 0
        s[BATTLE_WINNER] = behind
        _move_armies(s, behind, LIGHT_INFANTRY_MARGIN, p)


@njit(cache=True)
def _run_events(s: np.ndarray, p: int) -> None:
    """R7: apply the face-up card while its condition holds, turning up the next each time."""
    while s[EVENT_UP] >= 0 and _event_holds(s, s[EVENT_UP], p):
        _apply_event(s, s[EVENT_UP], p)
        n = s[EVENT_DECK_LEN]
        if n == 0:
            s[EVENT_UP] = -1
            s[ENDING] = 1  # R6.3: the last event was applied
            return
        s[EVENT_UP] = s[EVENT_DECK]
        for i in range(1, n):
            s[EVENT_DECK + i - 1] = s[EVENT_DECK + i]
        s[EVENT_DECK + n - 1] = -1
        s[EVENT_DECK_LEN] = n - 1


# ---------------------------------------------------------------- scoring, end, draw (R4.5, R4.6, R6)


@njit(cache=True)
def _values_at(s: np.ndarray, col: int) -> np.ndarray:
    """Each province's value at the scoring of display column col (R1.2, R4.5)."""
    return s[VALUES + col : VALUES + N_SCORINGS * NP : N_SCORINGS]


@njit(cache=True)
def _recall_all(s: np.ndarray, side: int) -> None:
    """D2 (c), P15: recall while the pool and non-base cards last, discarding in card order."""
    for k in range(N_BASE_CARDS, NK):
        while s[SET_ASIDE + side] > 0 and s[HAND + side * NK + k] > 0:
            _recall(s, side, k)


@njit(cache=True)
def _finish_by_marker(s: np.ndarray) -> None:
    """R6.2, R6.4: the marker's half wins; at 0 the larger reserve (after D2's recalls); else a draw."""
    if s[SCORE] > 0:
        s[WINNER] = 0
        return
    if s[SCORE] < 0:
        s[WINNER] = 1
        return
    _recall_all(s, 0)
    _recall_all(s, 1)
    if s[RESERVE] > s[RESERVE + 1]:
        s[WINNER] = 0
    elif s[RESERVE + 1] > s[RESERVE]:
        s[WINNER] = 1
    else:
        s[WINNER] = WINNER_DRAW


@njit(cache=True)
def _end_of_battles(s: np.ndarray) -> None:
    """R4.5 scoring, R6.1/R6.2 ends, then the draw phase."""
    r = s[ROUND]
    col = scoring_column(r)
    if col >= 0:
        s[SCORE] = projected_score(
            s[SCORE], s[ARMIES : ARMIES + NP], s[ARMIES + NP : ARMIES + 2 * NP], _values_at(s, col)
        )
        if r == N_ROUNDS:
            _finish_by_marker(s)
            return
        if s[SCORE] == MAX_SCORE:
            s[WINNER] = 0
            return
        if s[SCORE] == -MAX_SCORE:
            s[WINNER] = 1
            return
    s[PHASE] = PH_DRAW
    s[STEP] = 0
    for side in range(2):  # R4.6: base cards back to hand, the others out (unless recycled)
        played_one = False
        for p in range(NP):
            k = _placed(s, side, p)
            if k == CARD_ONE and s[CANCELLED + side * NP + p] == 0:  # R4.6, D5
                played_one = True
            if k < N_BASE_CARDS:
                s[HAND + side * NK + k] += 1
            elif s[RECYCLED + side * NP + p] == 0:
                s[OUT + side * NK + k] += 1
        draw = DRAW_AFTER_ONE if played_one else DRAW
        keep = draw - 1
        base = DECK + side * DECK_CAPACITY
        n = min(draw, s[DECK_LEN + side])
        for i in range(n):
            s[DRAWN + side * DRAW_SLOTS + i] = s[base + i]
        left = s[DECK_LEN + side] - n
        for i in range(left):
            s[base + i] = s[base + i + n]
        for i in range(left, left + n):
            s[base + i] = -1
        s[DECK_LEN + side] = left
        s[KEEP_LEFT + side] = min(keep, n)


@njit(cache=True)
def _draw_step(s: np.ndarray) -> bool:
    """R4.6: each side keeps its drawn cards, blue first; the rest go to the deck's bottom."""
    while s[STEP] < 2:
        side = s[STEP]
        drawn = 0
        for i in range(DRAW_SLOTS):
            if s[DRAWN + side * DRAW_SLOTS + i] >= 0:
                drawn += 1
        if s[KEEP_LEFT + side] > 0 and drawn > s[KEEP_LEFT + side]:
            return _decide(s, DK_KEEP, side, -1, -1, -1)
        for i in range(DRAW_SLOTS):
            c = s[DRAWN + side * DRAW_SLOTS + i]
            if c < 0:
                continue
            if s[KEEP_LEFT + side] > 0:
                _add_to_hand(s, side, c)
                s[KEEP_LEFT + side] -= 1
            else:
                n = s[DECK_LEN + side]
                s[DECK + side * DECK_CAPACITY + n] = c
                s[DECK_LEN + side] = n + 1
            s[DRAWN + side * DRAW_SLOTS + i] = -1
        s[KEEP_LEFT + side] = 0
        s[STEP] = side + 1
    for i in range(2 * NP):  # every card of the round was revealed: it stays on show (R9)
        s[LAST_REVEAL + i] = s[PLACED + i]
    s[ROUND] += 1
    _begin_round(s)
    return False


# ---------------------------------------------------------------- driving the game


@njit(cache=True)
def _settle(s: np.ndarray, scratch: np.ndarray) -> None:
    """Run the automatic steps until a decision is pending or the game is over."""
    s[DEC_KIND] = DK_NONE
    s[DEC_SIDE] = -1
    while True:
        if s[WINNER] >= 0:
            s[PHASE] = PH_OVER
            s[TASK_LEN] = 0
            return
        if s[TASK_LEN] > 0:
            if _run_task(s, scratch):
                return
            continue
        ph = s[PHASE]
        if ph == PH_WARLORDS:
            if s[STEP] < 2:
                _decide(s, DK_WARLORD, s[STEP], -1, -1, -1)
                return
            if _held(s, W_HEAD_START):  # R3.3: once both have chosen
                s[WARLORD + W_HEAD_START] = WL_USED
                s[SCORE] = min(MAX_SCORE, s[SCORE] + HEAD_START_POINTS)
            _begin_round(s)
        elif ph == PH_PLACEMENT:  # R4.1: blue's cards, then red's (red may have placed some already)
            for side in range(2):
                if s[PLACE_PROV + side] < NP:
                    _decide(s, DK_PLACE, side, s[PLACE_PROV + side], -1, -1)
                    return
            _open_window(s, 0)
        elif ph == PH_WINDOW:
            if _window_step(s):
                return
        elif ph == PH_REVEAL:
            if _reveal_step(s):
                return
        elif ph == PH_BATTLE:
            if _battle_step(s):
                return
        elif ph == PH_DRAW:
            if _draw_step(s):
                return
        else:
            return


@njit(cache=True)
def _apply(s: np.ndarray, a: int) -> None:
    """Apply a legal answer to the pending decision (no checks: see `legal_mask`)."""
    kind = s[DEC_KIND]
    side = s[DEC_SIDE]
    if kind == DK_WARLORD:
        if a != A_PASS:
            s[WARLORD + a - A_WARLORD] = WL_HELD
        if s[PHASE] == PH_WARLORDS:
            s[STEP] += 1
        else:
            s[CHARIOT + side] = 0
    elif kind == DK_PLACE:
        _place(s, side, a)
    elif kind == DK_WINDOW:
        w = s[DEC_WARLORD]
        if a == A_USE:
            s[WARLORD + w] = WL_USED
            s[ACTIVE_WL] = w
        else:
            s[WINDOW_POS] += 1
    elif kind == DK_TARGET:
        _apply_target(s, s[DEC_WARLORD], a - A_PROVINCE)
    elif kind == DK_REVEAL:
        _start_battle(s, a - A_PROVINCE)
    elif kind == DK_REACTIVE:
        if a == A_USE:
            w = s[DEC_WARLORD]
            s[WARLORD + w] = WL_USED
            if w == W_FEINT:
                s[FEINT_ON] = 1
            elif w == W_COUNTER_PLAGUE:
                s[COUNTER_ON] = 1
            elif w == W_DEVASTATING_PLAGUE:
                s[DEVASTATE_ON] = 1
            else:
                _recycle(s, side, s[BATTLE_PROV])
    elif kind in (DK_SOURCE, DK_SHORTFALL):
        if _is_recall(a):  # D2 (b): the same decision is asked again
            _recall(s, side, a - A_RECALL + N_BASE_CARDS)
        elif a == A_RESERVE:
            s[RESERVE + side] -= 1
        else:
            s[ARMIES + side * NP + a - A_PROVINCE] -= 1
        if not _is_recall(a):
            _deliver(s)
    elif kind == DK_KEEP:
        k = a - A_KEEP
        at = -1
        for i in range(DRAW_SLOTS):  # P14: a never-revealed Plague copy first
            c = s[DRAWN + side * DRAW_SLOTS + i]
            if c == k or (c == RECYCLED_PLAGUE and k == CARD_PLAGUE and at < 0):
                at = i
                if c == k:
                    break
        _add_to_hand(s, side, s[DRAWN + side * DRAW_SLOTS + at])
        s[DRAWN + side * DRAW_SLOTS + at] = -1
        s[KEEP_LEFT + side] -= 1
    s[DEC_KIND] = DK_NONE


@njit(cache=True)
def _place(s: np.ndarray, side: int, a: int) -> None:
    """R4.1/R4.2: the side places a card for its next province, or recalls."""
    if _is_recall(a):
        _recall(s, side, a - A_RECALL + N_BASE_CARDS)
        return
    p = s[PLACE_PROV + side]
    c = _take_from_hand(s, side, a - A_PLACE)
    s[PLACED + side * NP + p] = card_kind(c)
    s[PLACED_RECYCLED + side * NP + p] = 1 if c == RECYCLED_PLAGUE else 0
    s[PLACE_PROV + side] = p + 1


@njit(cache=True)
def place_out_of_turn(s: np.ndarray, side: int, action: int, mask: np.ndarray) -> int:
    """Apply a legal placement answer (see `placement_mask`) of a side that is not the one asked now.

    Placement is simultaneous (R4.1): red may place while blue is still asked. The pending decision is
    unchanged; `mask` is refilled with its legal set, whose count is returned.
    """
    _place(s, side, action)
    return legal_mask(s, mask)


@njit(cache=True)
def advance(s: np.ndarray, mask: np.ndarray) -> int:
    """Run on to the next decision with >= 2 legal answers (R10); returns that count, 0 when over."""
    while True:
        _settle(s, mask)
        if s[DEC_KIND] == DK_NONE:
            mask[:] = 0
            return 0
        n = legal_mask(s, mask)
        if n >= 2:
            return n
        if n == 0:
            raise RuntimeError("a decision with no legal answer")
        for a in range(N_ACTIONS):
            if mask[a]:
                _apply(s, a)
                break


@njit(cache=True)
def step(s: np.ndarray, action: int, mask: np.ndarray) -> int:
    """Apply a legal action and run on; `mask` must hold the legal set of the pending decision."""
    _apply(s, action)
    return advance(s, mask)


# ---------------------------------------------------------------- batches and playouts


@njit(cache=True)
def step_batch(states: np.ndarray, actions: np.ndarray, masks: np.ndarray) -> None:
    """`step` over a batch: row i of `states` takes `actions[i]` (games already over are skipped)."""
    for i in range(states.shape[0]):
        if states[i, DEC_KIND] != DK_NONE:
            step(states[i], actions[i], masks[i])


@njit(cache=True)
def random_action(rng: np.ndarray, mask: np.ndarray, n_legal: int) -> int:
    """A uniformly random legal action."""
    pick = rng_below(rng, n_legal)
    for a in range(N_ACTIONS):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True)
def random_playouts(n_games: int, seed: int, variant: int, events: int, adj: np.ndarray) -> np.ndarray:
    """Play `n_games` uniformly random games (seeds seed..seed+n-1); rows: winner, decisions, score."""
    out = np.zeros((n_games, 3), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    rng = rng_seed(seed ^ 0x5DEECE66D)
    for g in range(n_games):
        n = init_state(s, seed + g, variant, events, adj, mask)
        steps = 0
        while n > 0:
            n = step(s, random_action(rng, mask, n), mask)
            steps += 1
        out[g, 0] = s[WINNER]
        out[g, 1] = steps
        out[g, 2] = s[SCORE]
    return out


@njit(cache=True)
def check_invariants(s: np.ndarray) -> int:
    """0 when the state keeps its invariants, else the code of the first broken one (see `INVARIANTS`)."""
    for side in range(2):
        total = s[RESERVE + side] + s[SET_ASIDE + side] + s[MARKED + side] + _board_armies(s, side)
        if total != ARMIES_PER_SIDE:
            return 1
        if s[RESERVE + side] < 0 or s[SET_ASIDE + side] < 0:
            return 1
        recycled = s[HAND_RECYCLED + side]  # recycled Plague copies still in play
        for k in range(NK):
            count = s[HAND + side * NK + k] + s[OUT + side * NK + k]
            for i in range(s[DECK_LEN + side]):
                c = s[DECK + side * DECK_CAPACITY + i]
                if card_kind(c) == k:
                    count += 1
                    if c == RECYCLED_PLAGUE:
                        recycled += 1
            for p in range(NP):  # in the draw phase the played cards are already back or out
                if _placed(s, side, p) == k and s[RECYCLED + side * NP + p] == 0 and s[PHASE] != PH_DRAW:
                    count += 1
                    recycled += s[PLACED_RECYCLED + side * NP + p]
            for i in range(DRAW_SLOTS):
                c = s[DRAWN + side * DRAW_SLOTS + i]
                if c >= 0 and card_kind(c) == k:
                    count += 1
                    if c == RECYCLED_PLAGUE:
                        recycled += 1
            if count != s[KIND_COPIES + k]:
                return 2
        marks = 0
        for p in range(NP):
            marks += s[SIX_MARKS + side * NP + p]
        if s[SIXES + side] < marks:
            return 7
        plagues = s[KIND_COPIES + CARD_PLAGUE]
        seen = s[PLAGUES_SEEN + side]
        if seen < 0 or seen > plagues or recycled > seen or s[HAND_RECYCLED + side] > s[HAND + side * NK + CARD_PLAGUE]:
            return 8
    if s[SCORE] < -MAX_SCORE or s[SCORE] > MAX_SCORE:
        return 3
    for p in range(NP):
        if s[ARMIES + p] < 0 or s[ARMIES + NP + p] < 0 or (s[ARMIES + p] > 0 and s[ARMIES + NP + p] > 0):
            return 4
    if s[ROUND] < 1 or s[ROUND] > N_ROUNDS:
        return 5
    return 0


INVARIANTS: dict[int, str] = {
    1: "I1: reserve + set_aside + marked_armies + armies must be 21 per side",
    2: "cards: hand, deck, the cards in play and the cards out of the game must make the side's 20 (18) cards",
    3: "score must lie in [-9, 9]",
    4: "at most one side may have armies in a province",
    5: "round must lie in 1..9",
    6: "I2: a decision must offer at least two legal answers",
    7: "sixes_revealed must be at least the side's six-marks",
    8: "plagues_revealed must lie in 0..2 and count every recycled Plague copy (P*) still in play",
}


@njit(cache=True)
def random_playouts_checked(n_games: int, seed: int, variant: int, events: int, adj: np.ndarray) -> np.ndarray:
    """Random games with `check_invariants` and I2 (>= 2 legal answers offered) after every step.

    Rows: winner, decisions, first failed check (0 none, 6 for I2), events left face up or in deck.
    """
    out = np.zeros((n_games, 4), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    rng = rng_seed(seed ^ 0x2545F491)
    for g in range(n_games):
        n = init_state(s, seed + g, variant, events, adj, mask)
        steps = 0
        code = check_invariants(s)
        while n > 0 and code == 0:
            if n < 2 or legal_mask(s, mask) != n:
                code = 6
                break
            n = step(s, random_action(rng, mask, n), mask)
            steps += 1
            code = check_invariants(s)
        out[g, 0] = s[WINNER]
        out[g, 1] = steps
        out[g, 2] = code
        out[g, 3] = s[EVENT_DECK_LEN] + (1 if s[EVENT_UP] >= 0 else 0)
    return out
