"""Determinization: a full game state one seat cannot tell from the real one (R9), for search.

`determinize(s, seat, rng, out)` writes into `out` a state that agrees with `s` on everything `seat`
knows and resamples everything it does not (docs/rules.md R9):

| hidden from `seat`                  | resampled as                                                          |
|-------------------------------------|-----------------------------------------------------------------------|
| its own deck's order                | the same cards, shuffled (it knows the contents, R9)                  |
| the event deck's order              | the same events, shuffled                                             |
| the opponent's unseen cards         | hand, deck, face-down, drawn: pooled, dealt again to the same places  |
| the opponent's unused warlords      | as many as it holds, drawn from those it has not used                 |

The deal keeps the rules' constraints: base cards `1`..`6` only in hand or face down (R3.2, R4.6); a
face-down `6` only where the opponent may place one (R4.1, P4 with `double_six`); a recycled Plague
copy (`P*`, R7.1) stays a recycled copy wherever it lands, and never lies face down before a
never-revealed `P` the opponent could have placed instead (P14); `head_start` is held only during
setup (choosing it spends it, R3.3); a warlord the opponent is being asked about stays held; the
opponent's pending decision keeps at least two answers (R10); every state passes the engine's
invariant checks. Deals breaking a constraint are drawn again (rejection), so the result is uniform
over the consistent deals (except for the `6`, dealt straight to a slot that allows it).

The output depends only on what `seat` knows and on `rng`: everything hidden is first put in a
canonical order (sorted) and then shuffled, so two states the seat cannot tell apart give the same
determinization for the same generator state. `Game.sample_determinization(seat, rng)` is the Python
face; search (`agents.ismcts`) calls the compiled function once per iteration.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.core.rng import shuffle
from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.engine import advance, card_kind, check_invariants, legal_mask, rng_below, rng_seed
from suntzu_env.suntzu.engine.board import add_to_hand

NP, NK, NW = rules.N_PROVINCES, rules.N_CARD_KINDS, rules.N_WARLORDS_PER_SIDE
MAX_TRIES = 10_000  # rejection draws before giving up (the real state is consistent, so a deal exists)
POOL_CAPACITY = 32  # more than a side's 20 cards


@njit(cache=True)
def _shuffle_run(rng: np.ndarray, s: np.ndarray, at: int, n: int, scratch: np.ndarray) -> None:
    """Sort s[at:at+n] (a canonical order), then shuffle it in place."""
    for i in range(n):
        scratch[i] = s[at + i]
    scratch[:n].sort()
    shuffle(rng, scratch, n)
    for i in range(n):
        s[at + i] = scratch[i]


@njit(cache=True)
def _six_allowed(t: np.ndarray, opp: int, p: int) -> bool:
    """R4.1, P4: the opponent may have a `6` face down in province p."""
    marks = t[layout.SIX_MARKS + opp * NP + p]
    if marks == 0:
        return True
    return opp == 1 and marks < 2 and t[layout.WARLORD + rules.W_DOUBLE_SIX] == layout.WL_HELD


@njit(cache=True)
def _draw_warlords(t: np.ndarray, opp: int, rng: np.random.Generator, scratch: np.ndarray) -> None:
    """Redraw which of the opponent's unused warlords it holds, keeping how many."""
    at = layout.WARLORD + opp * NW
    held = 0
    for j in range(NW):
        if t[at + j] == layout.WL_HELD:
            held += 1
    if held == 0:
        return
    kept = -1
    asked = t[layout.DEC_WARLORD] - opp * NW
    if (
        t[layout.DEC_SIDE] == opp
        and (t[layout.DEC_KIND] == layout.DK_WINDOW or t[layout.DEC_KIND] == layout.DK_REACTIVE)
        and 0 <= asked < NW
    ):
        kept = asked  # it is being asked about this one
    n = 0
    for j in range(NW):
        if t[at + j] == layout.WL_USED or j == kept:
            continue
        if opp == 0 and j == rules.W_HEAD_START and t[layout.PHASE] != layout.PH_WARLORDS:
            continue  # chosen, it is spent at once (R3.3)
        scratch[n] = j
        n += 1
        t[at + j] = layout.WL_UNCHOSEN
    shuffle(rng, scratch, n)
    for i in range(held - (1 if kept >= 0 else 0)):
        t[at + scratch[i]] = layout.WL_HELD


@njit(cache=True)
def _deal(t: np.ndarray, opp: int, rng: np.ndarray, pool: np.ndarray, slots: np.ndarray) -> None:
    """Pool the opponent's unseen cards (deck entries: kind ids, RECYCLED_PLAGUE for `P*`) and deal them again."""
    n_hand = 0
    for k in range(NK):
        n_hand += t[layout.HAND + opp * NK + k]
    recycled_in_hand = t[layout.HAND_RECYCLED + opp]
    n = 0
    for k in range(NK):  # the hand, never-revealed copies counted apart from `P*`
        c = t[layout.HAND + opp * NK + k] - (recycled_in_hand if k == rules.CARD_PLAGUE else 0)
        for _ in range(c):
            pool[n] = k
            n += 1
    for _ in range(recycled_in_hand):
        pool[n] = layout.RECYCLED_PLAGUE
        n += 1
    n_face = 0
    for p in range(NP):  # face-down cards: their provinces, in placement order
        if t[layout.PLACED + opp * NP + p] >= 0 and t[layout.REVEALED + p] == 0:
            slots[n_face] = p
            n_face += 1
            pool[n] = (
                layout.RECYCLED_PLAGUE
                if t[layout.PLACED_RECYCLED + opp * NP + p] == 1
                else t[layout.PLACED + opp * NP + p]
            )
            n += 1
    deck_at = layout.DECK + opp * layout.DECK_CAPACITY
    n_deck = t[layout.DECK_LEN + opp]
    for i in range(n_deck):
        pool[n] = t[deck_at + i]
        n += 1
    n_drawn = 0
    for i in range(3):
        if t[layout.DRAWN + opp * 3 + i] >= 0:
            pool[n] = t[layout.DRAWN + opp * 3 + i]
            n += 1
            n_drawn += 1
    pool[:n].sort()  # canonical: from here on only what the seat knows and rng decide
    # Places: 0..n_hand-1 hand, then one per face-down province, then the deck, then the drawn slots.
    n_open = n_hand + n_face
    deal = np.full(n, -1, dtype=np.int64)
    others = np.empty(n, dtype=np.int64)
    n_others = 0
    six = -1
    for i in range(n):
        if pool[i] == rules.CARD_SIX:
            six = i
        elif pool[i] >= rules.N_BASE_CARDS:
            others[n_others] = pool[i]
            n_others += 1
    if six >= 0:  # the `6` first, to a place that allows it
        free = 0
        for i in range(n_open):
            if i < n_hand or _six_allowed(t, opp, slots[i - n_hand]):
                free += 1
        pick = rng_below(rng, free)
        for i in range(n_open):
            if i < n_hand or _six_allowed(t, opp, slots[i - n_hand]):
                if pick == 0:
                    deal[i] = rules.CARD_SIX
                    break
                pick -= 1
    for i in range(n):  # the other base cards, to free hand or face-down places
        if pool[i] < rules.N_BASE_CARDS and pool[i] != rules.CARD_SIX:
            free = 0
            for j in range(n_open):
                if deal[j] < 0:
                    free += 1
            pick = rng_below(rng, free)
            for j in range(n_open):
                if deal[j] < 0:
                    if pick == 0:
                        deal[j] = pool[i]
                        break
                    pick -= 1
    shuffle(rng, others, n_others)
    o = 0
    for i in range(n):
        if deal[i] < 0:
            deal[i] = others[o]
            o += 1
    for k in range(NK):
        t[layout.HAND + opp * NK + k] = 0
    t[layout.HAND_RECYCLED + opp] = 0
    for i in range(n_hand):
        c = deal[i]
        t[layout.HAND + opp * NK + card_kind(c)] += 1
        if c == layout.RECYCLED_PLAGUE:
            t[layout.HAND_RECYCLED + opp] += 1
    for i in range(n_face):
        c = deal[n_hand + i]
        t[layout.PLACED + opp * NP + slots[i]] = card_kind(c)
        t[layout.PLACED_RECYCLED + opp * NP + slots[i]] = 1 if c == layout.RECYCLED_PLAGUE else 0
    for i in range(n_deck):
        t[deck_at + i] = deal[n_open + i]
    j = n_open + n_deck
    for i in range(3):
        if t[layout.DRAWN + opp * 3 + i] >= 0:
            t[layout.DRAWN + opp * 3 + i] = deal[j]
            j += 1


@njit(cache=True)
def _consistent(t: np.ndarray, opp: int, mask: np.ndarray) -> bool:
    """P14, R10 and the engine's invariants hold in a fresh deal."""
    if check_invariants(t) != 0:
        return False
    # P14: a face-down `P*` while a never-revealed `P` stayed in hand or went face down later.
    seen_recycled = False
    for p in range(NP):
        if t[layout.PLACED + opp * NP + p] == rules.CARD_PLAGUE and t[layout.REVEALED + p] == 0:
            if t[layout.PLACED_RECYCLED + opp * NP + p] == 1:
                seen_recycled = True
            elif seen_recycled:
                return False
    if seen_recycled and t[layout.HAND + opp * NK + rules.CARD_PLAGUE] > t[layout.HAND_RECYCLED + opp]:
        return False
    return t[layout.DEC_SIDE] != opp or legal_mask(t, mask) >= 2


@njit(cache=True)
def determinize(s: np.ndarray, seat: int, rng: np.ndarray, out: np.ndarray) -> None:
    """Write into `out` a state `seat` cannot tell from `s`, its hidden parts resampled (see the module).

    `rng` is an engine generator (`engine.rng_seed`), advanced. Raises RuntimeError if no consistent deal
    turns up in MAX_TRIES draws (the real state is one, so this does not happen in practice).
    """
    opp = 1 - seat
    scratch = np.empty(POOL_CAPACITY, dtype=np.int64)
    pool = np.empty(POOL_CAPACITY, dtype=np.int64)
    slots = np.empty(NP, dtype=np.int64)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    base = s.copy()
    _shuffle_run(rng, base, layout.DECK + seat * layout.DECK_CAPACITY, s[layout.DECK_LEN + seat], scratch)
    _shuffle_run(rng, base, layout.EVENT_DECK, s[layout.EVENT_DECK_LEN], scratch)
    for _ in range(MAX_TRIES):
        out[:] = base
        if out[layout.WARLORDS_ON] == 1:
            _draw_warlords(out, opp, rng, scratch)
        _deal(out, opp, rng, pool, slots)
        if _consistent(out, opp, mask):
            return
    raise RuntimeError("determinize: no consistent deal found")


@njit(cache=True)
def rewind_secret_moves(t: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """Undo the other seat's secret answers of the simultaneous step `seat` is asked in, for search to ask again.

    The engine asks simultaneous answers one side after the other: blue's five placements, then red's (R4.1);
    blue's warlord, then red's (R3.3). When `seat` is asked second, the other side's answers of that step are
    already in `t`, dealt at random by `determinize`: a search that kept them would plan against an opponent
    that placed its cards at random, while the side asked first meets the other's answers played by its
    search. Here those answers go back (face-down cards to the hand, a chosen warlord to the unchosen ones)
    and the engine asks them again, first, as at the start of the step; the search answers them with the
    same policy it plays the other seat with. Returns the legal count of the decision now pending (written
    into `mask`), or -1 when there is nothing to undo and `t` is unchanged.
    """
    opp = 1 - seat
    if t[layout.TASK_LEN] > 0 or t[layout.WINNER] >= 0 or t[layout.DEC_SIDE] != seat:
        return -1
    if t[layout.PHASE] == layout.PH_PLACEMENT and t[layout.PLACE_PROV + opp] > 0:
        for p in range(t[layout.PLACE_PROV + opp]):
            i = opp * NP + p
            add_to_hand(t, opp, layout.RECYCLED_PLAGUE if t[layout.PLACED_RECYCLED + i] == 1 else t[layout.PLACED + i])
            t[layout.PLACED + i] = -1
            t[layout.PLACED_RECYCLED + i] = 0
        t[layout.PLACE_PROV + opp] = 0
    elif t[layout.PHASE] == layout.PH_WARLORDS and seat == 1 and t[layout.STEP] == 1:
        for j in range(NW):
            if t[layout.WARLORD + j] == layout.WL_HELD:
                t[layout.WARLORD + j] = layout.WL_UNCHOSEN
        t[layout.STEP] = 0
    else:
        return -1
    return advance(t, mask)


def sample_determinization(state: np.ndarray, seat: str, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """A new state vector `seat` cannot tell from `state` (R9), its hidden parts resampled.

    `rng` is a numpy Generator or a seed (None: fresh entropy); the result depends only on what `seat`
    knows and on `rng`. Raises ValueError for a seat other than "blue" or "red".
    """
    if seat not in rules.SEATS:
        raise ValueError(f"seat must be one of {rules.SEATS}, got {seat!r}")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    out = np.empty(layout.STATE_SIZE, dtype=layout.STATE_DTYPE)
    determinize(state, rules.SEATS.index(seat), rng_seed(int(generator.integers(2**63))), out)
    return out
