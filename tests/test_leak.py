"""R9: a seat's observation and action mask depend only on what that seat may know.

At every decision point of random games (standard and beginner, events off and on), for each seat,
everything the seat may not know is resampled consistently with what it knows, and its observation and,
when it is the seat to act, its action mask must stay byte-identical. Each hidden part is resampled so:

- **the opponent's unseen cards**: its hand, its deck, its face-down placed cards (placed, not yet
  revealed) and the cards it drew and has not kept yet are pooled and dealt again into the same places:
  the same hand size, deck length, drawn slots and provinces holding a face-down card. Base cards
  (`1`..`6`) go only to the hand or face down (never to the deck or the drawn cards, R3.2, R4.6), and a
  `6` lies face down only where the rules let it be placed (R4.1, P4: `double_six`).
- **deck orders**: the seat's own deck is shuffled (it knows the contents, not the order), and so is the
  event deck (nobody knows its order); the opponent's deck order is part of the new deal.
- **the opponent's unused warlords**: as many as it holds are drawn from those it has not used (`head_start`
  only during setup, since choosing it spends it; a warlord it is being asked about stays held); the rest
  are unchosen.

A resampled state must pass the engine's invariant checks (I1, card conservation) and leave the opponent's
pending decision, if any, with at least two answers (R10). The test also checks that resampling changes
the state most of the time, and that the same check catches an encoder that leaks the opponent's hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from suntzu_env import Game, engine
from suntzu_env.actions import N_ACTIONS
from suntzu_env.layout import (
    DEC_KIND,
    DEC_SIDE,
    DEC_WARLORD,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DK_REACTIVE,
    DK_WINDOW,
    DRAWN,
    EVENT_DECK,
    EVENT_DECK_LEN,
    HAND,
    PH_WARLORDS,
    PHASE,
    PLACED,
    REVEALED,
    SIX_MARKS,
    VARIANT,
    WARLORD,
    WL_HELD,
    WL_UNCHOSEN,
    WL_USED,
)
from suntzu_env.observation import OBSERVATION_SIZE, encode_observation, observation_views
from suntzu_env.rules import (
    CARD_SIX,
    N_BASE_CARDS,
    N_CARD_KINDS,
    N_PROVINCES,
    N_WARLORDS_PER_SIDE,
    W_DOUBLE_SIX,
    W_HEAD_START,
)

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE
CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]
GAMES_PER_CONFIG = 12
Encoder = Callable[[np.ndarray, int], np.ndarray]


def encode(s: np.ndarray, side: int) -> np.ndarray:
    out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(s, side, out)
    return out


def mask_of(s: np.ndarray) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    engine.legal_mask(s, mask)
    return mask


# ---------------------------------------------------------------- resampling what `me` may not know


def shuffle_known_orders(t: np.ndarray, me: int, rng: np.random.Generator) -> None:
    """The seat's own deck order and the event deck order."""
    rng.shuffle(t[DECK + me * DECK_CAPACITY : DECK + me * DECK_CAPACITY + t[DECK_LEN + me]])
    rng.shuffle(t[EVENT_DECK : EVENT_DECK + t[EVENT_DECK_LEN]])


def deal_unseen_cards(t: np.ndarray, opp: int, rng: np.random.Generator) -> None:
    """Pool the opponent's unseen cards and deal them again into the same places."""
    hand = [k for k in range(NK) for _ in range(t[HAND + opp * NK + k])]
    deck_at = DECK + opp * DECK_CAPACITY
    deck = [int(k) for k in t[deck_at : deck_at + t[DECK_LEN + opp]]]
    drawn_slots = [i for i in range(3) if t[DRAWN + opp * 3 + i] >= 0]
    drawn = [int(t[DRAWN + opp * 3 + i]) for i in drawn_slots]
    face_down = [p for p in range(NP) if t[PLACED + opp * NP + p] >= 0 and not t[REVEALED + p]]
    placed = [int(t[PLACED + opp * NP + p]) for p in face_down]
    pool = hand + deck + drawn + placed
    base = [k for k in pool if k < N_BASE_CARDS]
    other = [k for k in pool if k >= N_BASE_CARDS]
    rng.shuffle(base)
    rng.shuffle(other)
    open_slots: list[int | None] = [None] * (len(hand) + len(face_down))  # hand first, then face down
    for i, k in zip(rng.choice(len(open_slots), size=len(base), replace=False), base, strict=True):
        open_slots[i] = k
    filled = [k if k is not None else other.pop() for k in open_slots]
    t[HAND + opp * NK : HAND + (opp + 1) * NK] = 0
    for k in filled[: len(hand)]:
        t[HAND + opp * NK + k] += 1
    for p, k in zip(face_down, filled[len(hand) :], strict=True):
        t[PLACED + opp * NP + p] = k
    t[deck_at : deck_at + len(deck)] = other[: len(deck)]
    for i, k in zip(drawn_slots, other[len(deck) :], strict=True):
        t[DRAWN + opp * 3 + i] = k


def draw_unused_warlords(t: np.ndarray, opp: int, rng: np.random.Generator) -> None:
    """Redraw which of the opponent's unused warlords it holds, keeping how many."""
    if t[VARIANT] != 0:
        return
    at = WARLORD + opp * NW
    held = [j for j in range(NW) if t[at + j] == WL_HELD]
    kept: list[int] = []
    asked = t[DEC_WARLORD] - opp * NW
    if t[DEC_SIDE] == opp and t[DEC_KIND] in (DK_WINDOW, DK_REACTIVE) and 0 <= asked < NW:
        kept = [int(asked)]  # it is being asked about this one
    unused = [j for j in range(NW) if t[at + j] != WL_USED and j not in kept]
    if opp == 0 and t[PHASE] != PH_WARLORDS:
        unused = [j for j in unused if j != W_HEAD_START]  # chosen, it is spent at once (R3.3)
    chosen = kept + [int(j) for j in rng.choice(unused, size=len(held) - len(kept), replace=False)]
    for j in unused + kept:
        t[at + j] = WL_HELD if j in chosen else WL_UNCHOSEN


def consistent(t: np.ndarray, opp: int) -> bool:
    """The rules could have produced `t`: invariants, legal face-down sixes, a live pending decision."""
    if engine.check_invariants(t):
        return False
    for p in range(NP):
        if t[PLACED + opp * NP + p] == CARD_SIX and not t[REVEALED + p] and t[SIX_MARKS + opp * NP + p]:
            double_six = opp == 1 and t[WARLORD + W_DOUBLE_SIX] == WL_HELD and t[SIX_MARKS + opp * NP + p] < 2
            if not double_six:
                return False
    return t[DEC_SIDE] != opp or engine.legal_mask(t, np.zeros(N_ACTIONS, dtype=np.int8)) >= 2


def resample(s: np.ndarray, me: int, rng: np.random.Generator) -> np.ndarray:
    """A state that `me` cannot tell from `s` (see the module docstring)."""
    opp = 1 - me
    for _ in range(200):
        t = s.copy()
        shuffle_known_orders(t, me, rng)
        deal_unseen_cards(t, opp, rng)
        draw_unused_warlords(t, opp, rng)
        if consistent(t, opp):
            return t
    raise AssertionError("no consistent resample found in 200 tries")


# ---------------------------------------------------------------- the check


HIDDEN_PARTS = {  # name: (field, size per side or None for a shared field, whose: "me" or "opp")
    "opponent hand": (HAND, NK, "opp"),
    "opponent deck": (DECK, DECK_CAPACITY, "opp"),
    "opponent drawn cards": (DRAWN, 3, "opp"),
    "opponent face-down cards": (PLACED, NP, "opp"),
    "opponent warlords": (WARLORD, NW, "opp"),
    "own deck order": (DECK, DECK_CAPACITY, "me"),
    "event deck order": (EVENT_DECK, None, "-"),
}


def changed_parts(s: np.ndarray, t: np.ndarray, me: int) -> set[str]:
    """Which hidden parts differ between `s` and its resample `t`."""
    out = set()
    for name, (field, size, whose) in HIDDEN_PARTS.items():
        at = field if size is None else field + (me if whose == "me" else 1 - me) * size
        n = 5 if size is None else size
        if not np.array_equal(s[at : at + n], t[at : at + n]):
            out.add(name)
    return out


def first_leak(encoder: Encoder, configs: list[tuple[str, bool]], games: int) -> tuple[str | None, float, Counter[str]]:
    """The first decision point where a resample changes what a seat sees (None if there is none);
    the share of resamples that changed the state, and how often each hidden part changed."""
    rng = np.random.default_rng(2024)
    checked = changed = 0
    parts: Counter[str] = Counter()
    for variant, events in configs:
        for seed in range(games):
            game = Game.new(seed, variant, events)
            while not game.is_terminal:
                s = game._s
                for me in (0, 1):
                    t = resample(s, me, rng)
                    checked += 1
                    changed += not np.array_equal(s, t)
                    parts.update(changed_parts(s, t, me))
                    a, b = encoder(s, me), encoder(t, me)
                    if a.tobytes() != b.tobytes():
                        views_a, views_b = observation_views(a), observation_views(b)
                        pieces = [n for n in views_a if not np.array_equal(views_a[n], views_b[n])] or ["(extra)"]
                        return f"{variant}/{events} seed {seed}, seat {me}, {game.decision}: {pieces}", 1.0, parts
                    if s[DEC_SIDE] == me and mask_of(s).tobytes() != mask_of(t).tobytes():
                        return f"{variant}/{events} seed {seed}, seat {me}, {game.decision}: mask", 1.0, parts
                legal = game.legal_actions()
                game.apply(legal[rng.integers(len(legal))])
    return None, changed / checked, parts


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
def test_r9_observation_and_mask_ignore_hidden_information(variant: str, events: bool) -> None:
    """R9: resampling the opponent's hand, face-down cards, deck orders and unused warlords changes nothing."""
    leak, changed, parts = first_leak(encode, [(variant, events)], GAMES_PER_CONFIG)
    assert leak is None, f"observation depends on hidden information at {leak}"
    assert changed > 0.8, f"resampling changed only {changed:.0%} of the states: the test is too weak"
    expected = set(HIDDEN_PARTS)
    if variant == "beginner":
        expected.discard("opponent warlords")
    if not events:
        expected.discard("event deck order")
    assert expected <= set(parts), f"never resampled: {expected - set(parts)}"


def test_leak_check_catches_a_leaky_encoder() -> None:
    """The check above is not vacuous: an encoder that shows the opponent's hand is caught."""

    def leaky(s: np.ndarray, side: int) -> np.ndarray:
        opp = 1 - side
        return np.concatenate([encode(s, side), s[HAND + opp * NK : HAND + (opp + 1) * NK].astype(np.float32)])

    leak, _, _ = first_leak(leaky, CONFIGS[:1], 2)
    assert leak is not None


def test_leak_check_catches_a_peek_at_face_down_cards() -> None:
    """Also caught: an encoder that shows the opponent's placed cards before their reveal."""

    def peeking(s: np.ndarray, side: int) -> np.ndarray:
        opp = 1 - side
        return np.concatenate([encode(s, side), s[PLACED + opp * NP : PLACED + (opp + 1) * NP].astype(np.float32)])

    leak, _, _ = first_leak(peeking, CONFIGS[2:3], 2)
    assert leak is not None
