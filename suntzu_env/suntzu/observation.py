"""What one side observes (R9), declared once as named pieces and encoded by a compiled function.

The observation is a flat float32 vector seen from one side ("me"), whose own features come first
so that one policy can play either seat. `OBSERVATION_PIECES` is the single declaration: the
encoder writes each piece at its offset, divided by the piece's scale; `describe_observation()`, the
environment's docstring table and `observation_bounds()` are generated from it; `observation_views(obs)`
names the parts of a vector and `suntzu_env.suntzu.baselines.observed` decodes it with the same scales. The `map`
piece carries
the game's borders, so a policy sees a custom `adjacency=`.

It never holds the opponent's hand, its face-down cards, deck orders or its unused warlords.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import numpy as np
from numba import njit

from suntzu_env.suntzu import layout
from suntzu_env.suntzu.engine import card_kind
from suntzu_env.suntzu.rules import (
    ARMIES_PER_SIDE,
    CARD_PLAGUE,
    CHARIOT_SIXES,
    EVENTS,
    MAX_DRAW,
    MAX_SCORE,
    N_CARD_KINDS,
    N_PROVINCES,
    N_ROUNDS,
    N_SCORINGS,
    N_WARLORDS_PER_SIDE,
    PANDEMIC_PLAGUES,
    PROVINCES,
)
from suntzu_env.suntzu.tables import COPIES, DISPLAYS, MAX_COPIES, next_scoring_column

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE


class Piece(NamedTuple):
    """One named run of the observation vector.

    Each entry is a count divided by `scale` (1 for one-hot and 0/1 pieces); the count lies in
    [low, high] (high None: up to `scale`, so that the entry is at most 1). The encoder divides by
    the scale, `baselines.observed.decode` multiplies it back, `observation_bounds` divides the count bounds by it.
    """

    name: str
    size: int
    meaning: str
    scale: float = 1.0
    low: float = 0.0
    high: float | None = None


PLAGUE_COPIES = int(COPIES[:, CARD_PLAGUE].max())  # R1.1: Plague copies per side
# The scales: what turns an entry back into a count.
ALL_ARMIES = float(ARMIES_PER_SIDE)  # R1.3: all of a side's armies
MOST_COPIES = float(MAX_COPIES)  # R1.1: most copies of one kind
MOST_VALUE = float(DISPLAYS.max())  # R1.2: the largest province value
MOST_KEPT = float(MAX_DRAW - 1)  # R4.6: a side keeps all but one of the cards it draws
CARDS_PER_SIDE = int(COPIES.sum(axis=1).max())  # R1.1: the most cards a hand or deck holds
# Province pairs of the `map` piece, in board order: (0, 1), (0, 2), ... (R1.4, D1).
MAP_PAIRS = np.array(list(combinations(range(N_PROVINCES), 2)), dtype=np.int64)

# fmt: off
OBSERVATION_PIECES: tuple[Piece, ...] = (
    Piece("my_seat", 2, "one-hot: I am blue, I am red"),
    Piece("decision_kind", len(layout.DECISION_KINDS),
          f"one-hot decision asked of me: {', '.join(layout.DECISION_KINDS)}"),
    Piece("decision_province", NP, "one-hot province concerned (placement, battle, payment target), else 0"),
    Piece("decision_warlord", 2 * NW, "one-hot warlord concerned (blue's five, then red's five), else 0"),
    Piece("decision_cause", len(layout.PAYMENT_CAUSES),
          f"one-hot why an army is paid: {', '.join(layout.PAYMENT_CAUSES)}"),
    Piece("march_from", NP, "one-hot province march takes its army from, once chosen"),
    Piece("phase", len(layout.PHASE_NAMES), f"one-hot phase: {', '.join(layout.PHASE_NAMES)}"),
    Piece("round", N_ROUNDS, "one-hot round 1..9"),
    Piece("my_score", 1, "the marker, toward me", float(MAX_SCORE), low=-MAX_SCORE),
    Piece("province_values", N_SCORINGS * NP, "per province, value at the scorings of rounds 3, 6, 9", MOST_VALUE),
    Piece("next_scoring", N_SCORINGS, "one-hot: the next scoring is at round 3, 6, 9"),
    Piece("my_armies", NP, "my armies per province", ALL_ARMIES),
    Piece("opp_armies", NP, "opponent armies per province", ALL_ARMIES),
    Piece("my_six_marks", NP, "my six-marks per province (0..2)", high=2.0),
    Piece("opp_six_marks", NP, "opponent six-marks per province (0..2)", high=2.0),
    Piece("my_pools", 3, "my reserve, set-aside pool, armies in six-mark boxes", ALL_ARMIES),
    Piece("opp_pools", 3, "opponent reserve, set-aside pool, armies in six-mark boxes", ALL_ARMIES),
    Piece("my_hand", NK, "my hand, cards per kind", MOST_COPIES),
    Piece("my_deck", NK, "my deck's contents (not order), cards per kind", MOST_COPIES),
    Piece("my_drawn", NK, "cards I drew and may still keep, per kind", MOST_COPIES),
    Piece("my_keep_left", 1, "drawn cards I may still keep", MOST_KEPT),
    Piece("my_out", NK, "my cards out of the game, per kind", MOST_COPIES),
    Piece("opp_out", NK, "opponent cards out of the game, per kind", MOST_COPIES),
    Piece("opp_unseen", NK, "opponent cards in hand, deck or face down (unknown which), per kind", MOST_COPIES),
    Piece("card_counts", 4, "hand sizes (mine, opponent's) and deck sizes (mine, opponent's)",
          float(layout.DECK_CAPACITY), high=CARDS_PER_SIDE),
    Piece("my_placed", NP * NK, "per province, one-hot card I placed this round"),
    Piece("opp_revealed", NP * NK, "per province, one-hot opponent card once revealed this round"),
    Piece("revealed", NP, "1 where this round's battle has begun"),
    Piece("battle", 3, "this battle: feint counts blue's card as 6, counter_plague on, devastating_plague on"),
    Piece("order_holder", 3, "one-hot who chooses this round's reveal order: me, opponent, board order"),
    Piece("privilege", 3, "one-hot last holder of the privilege: me, opponent, nobody yet"),
    Piece("my_warlords", 2 * NW, "my five warlords: held (5), then used (5)"),
    Piece("opp_warlords_used", NW, "opponent warlords revealed by use"),
    Piece("events_on", 1, "1 when event cards are in play"),
    Piece("event_face_up", len(EVENTS), f"one-hot face-up event: {', '.join(EVENTS)}"),
    Piece("events_in_deck", len(EVENTS), "events still in the face-down deck (order unknown)"),
    Piece("plague_reveals", 1, "Plague copies revealed at least once, both sides (pandemic at 4, R7.1)",
          float(PANDEMIC_PLAGUES)),
    Piece("beginner", 1, "1 when warlords are out of play (the beginner variant, R2.2)"),
    Piece("sixes_revealed", 2, "`6`s revealed in the game, mine and opponent's (war_chariot at 3, R7.4)",
          float(CHARIOT_SIXES), high=N_ROUNDS),
    Piece("plague_copies_revealed", 2, "my and the opponent's Plague copies revealed at least once",
          float(PLAGUE_COPIES)),
    Piece("my_recycled_plagues", 2, "my recycled Plague copies (P*) in hand, in deck", float(PLAGUE_COPIES)),
    Piece("opp_recycled_plagues", 1, "opponent's recycled Plague copies not yet out of the game", float(PLAGUE_COPIES)),
    Piece("my_cancelled", NP, "per province, 1 where my card this round faced an active Plague (R5.2)"),
    Piece("opp_cancelled", NP, "per province, 1 where the opponent's card this round faced an active Plague"),
    Piece("map", len(MAP_PAIRS), "1 where two provinces border (R1.4, D1), per pair: "
          + ", ".join(f"{PROVINCES[a]}/{PROVINCES[b]}" for a, b in MAP_PAIRS)),
)
# fmt: on


def _offsets() -> dict[str, slice]:
    out, at = {}, 0
    for piece in OBSERVATION_PIECES:
        out[piece.name] = slice(at, at + piece.size)
        at += piece.size
    return out


OBSERVATION_SLICES = _offsets()
OBSERVATION_SIZE = sum(piece.size for piece in OBSERVATION_PIECES)
_O = {name: sl.start for name, sl in OBSERVATION_SLICES.items()}
O_SEAT, O_DKIND, O_DPROV, O_DWL, O_DCAUSE = (_O[n] for n in ("my_seat", "decision_kind", "decision_province",
                                                               "decision_warlord", "decision_cause"))  # fmt: skip
O_MARCH, O_PHASE, O_ROUND, O_SCORE, O_VALUES, O_NEXT = (_O[n] for n in ("march_from", "phase", "round", "my_score",
                                                                        "province_values", "next_scoring"))  # fmt: skip
O_MY_ARMIES, O_OPP_ARMIES, O_MY_MARKS, O_OPP_MARKS, O_MY_POOLS, O_OPP_POOLS = (_O[n] for n in (
    "my_armies", "opp_armies", "my_six_marks", "opp_six_marks", "my_pools", "opp_pools"))  # fmt: skip
O_MY_HAND, O_MY_DECK, O_MY_DRAWN, O_KEEP, O_MY_OUT, O_OPP_OUT, O_OPP_UNSEEN, O_COUNTS = (_O[n] for n in (
    "my_hand", "my_deck", "my_drawn", "my_keep_left", "my_out", "opp_out", "opp_unseen", "card_counts"))  # fmt: skip
O_MY_PLACED, O_OPP_REVEALED, O_REVEALED, O_BATTLE, O_HOLDER, O_PRIV = (_O[n] for n in (
    "my_placed", "opp_revealed", "revealed", "battle", "order_holder", "privilege"))  # fmt: skip
O_MY_WL, O_OPP_WL, O_EV_ON, O_EV_UP, O_EV_DECK, O_PLAGUES, O_BEGINNER = (_O[n] for n in (
    "my_warlords", "opp_warlords_used", "events_on", "event_face_up", "events_in_deck", "plague_reveals",
    "beginner"))  # fmt: skip
O_SIXES, O_PCOPIES, O_MY_PSTAR, O_OPP_PSTAR, O_MY_CANCEL, O_OPP_CANCEL = (_O[n] for n in (
    "sixes_revealed", "plague_copies_revealed", "my_recycled_plagues", "opp_recycled_plagues", "my_cancelled",
    "opp_cancelled"))  # fmt: skip
O_MAP = _O["map"]


def _scales() -> np.ndarray:
    out = np.empty(OBSERVATION_SIZE, dtype=np.float64)
    for piece in OBSERVATION_PIECES:
        out[OBSERVATION_SLICES[piece.name]] = piece.scale
    return out


# Per entry, the declared scale of its piece: the encoder divides counts by it (multiplying by the inverse below),
# `baselines.observed.decode` multiplies.
OBSERVATION_SCALE = _scales()
OBSERVATION_INV_SCALE = 1.0 / OBSERVATION_SCALE  # what the encoder multiplies by: cheaper than dividing, same entries


@njit(cache=True)
def _relative(side: int, me: int) -> int:
    """0 for me, 1 for the opponent, 2 for nobody."""
    if side < 0:
        return 2
    return 0 if side == me else 1


@njit(cache=True)
def encode_observation(s: np.ndarray, me: int, out: np.ndarray) -> None:
    """Write what side `me` observes of state `s` into the float32 vector `out` (R9).

    Counts are divided by their piece's declared scale: multiplied by `OBSERVATION_INV_SCALE`, a compile-time
    constant (the same float32 entries as dividing, for every count the state can hold: tests/suntzu/envs/test_env.py).
    """
    opp = 1 - me
    k_ = OBSERVATION_INV_SCALE
    out[:] = 0.0
    out[O_SEAT + me] = 1.0
    if (
        s[layout.PHASE] == layout.PH_PLACEMENT and s[layout.PLACE_PROV + me] < NP and s[layout.WINNER] < 0
    ):  # R4.1: both sides place
        out[O_DKIND + layout.DK_PLACE] = 1.0
        out[O_DPROV + s[layout.PLACE_PROV + me]] = 1.0
    elif s[layout.DEC_SIDE] == me:
        out[O_DKIND + s[layout.DEC_KIND]] = 1.0
        if s[layout.DEC_PROV] >= 0:
            out[O_DPROV + s[layout.DEC_PROV]] = 1.0
        if s[layout.DEC_WARLORD] >= 0:
            out[O_DWL + s[layout.DEC_WARLORD]] = 1.0
        if s[layout.DEC_CAUSE] >= 0:
            out[O_DCAUSE + s[layout.DEC_CAUSE]] = 1.0
        if s[layout.MARCH_FROM] >= 0:
            out[O_MARCH + s[layout.MARCH_FROM]] = 1.0
    else:
        out[O_DKIND] = 1.0  # nothing asked of me now
    out[O_PHASE + s[layout.PHASE]] = 1.0
    rnd = s[layout.ROUND]
    out[O_ROUND + rnd - 1] = 1.0
    out[O_SCORE] = s[layout.SCORE] * k_[O_SCORE] * (1.0 if me == 0 else -1.0)
    for i in range(N_SCORINGS * NP):
        out[O_VALUES + i] = s[layout.VALUES + i] * k_[O_VALUES + i]
    out[O_NEXT + next_scoring_column(rnd)] = 1.0
    for p in range(NP):
        out[O_MY_ARMIES + p] = s[layout.ARMIES + me * NP + p] * k_[O_MY_ARMIES + p]
        out[O_OPP_ARMIES + p] = s[layout.ARMIES + opp * NP + p] * k_[O_OPP_ARMIES + p]
        out[O_MY_MARKS + p] = s[layout.SIX_MARKS + me * NP + p] * k_[O_MY_MARKS + p]
        out[O_OPP_MARKS + p] = s[layout.SIX_MARKS + opp * NP + p] * k_[O_OPP_MARKS + p]
    for j, field in enumerate((layout.RESERVE, layout.SET_ASIDE, layout.MARKED)):
        out[O_MY_POOLS + j] = s[field + me] * k_[O_MY_POOLS + j]
        out[O_OPP_POOLS + j] = s[field + opp] * k_[O_OPP_POOLS + j]
    # Counts are gathered as whole numbers in their own entries (exact in float32), then divided by their scale.
    if (
        s[layout.PHASE] != layout.PH_DRAW
    ):  # opponent cards revealed this round are seen (in the draw phase: back or out)
        for p in range(NP):
            k = s[layout.PLACED + opp * NP + p]
            if s[layout.REVEALED + p] == 1 and k >= 0 and s[layout.RECYCLED + opp * NP + p] == 0:
                out[O_OPP_UNSEEN + k] += 1.0
    for i in range(s[layout.DECK_LEN + me]):
        c = s[layout.DECK + me * layout.DECK_CAPACITY + i]
        out[O_MY_DECK + card_kind(c)] += 1.0
        if c == layout.RECYCLED_PLAGUE:
            out[O_MY_PSTAR + 1] += 1.0
    out[O_MY_PSTAR + 1] = out[O_MY_PSTAR + 1] * k_[O_MY_PSTAR + 1]
    my_hand = 0
    for k in range(NK):
        out[O_MY_HAND + k] = s[layout.HAND + me * NK + k] * k_[O_MY_HAND + k]
        my_hand += s[layout.HAND + me * NK + k]
        out[O_MY_OUT + k] = s[layout.OUT + me * NK + k] * k_[O_MY_OUT + k]
        out[O_OPP_OUT + k] = s[layout.OUT + opp * NK + k] * k_[O_OPP_OUT + k]
        unseen = s[layout.KIND_COPIES + k] - s[layout.OUT + opp * NK + k] - out[O_OPP_UNSEEN + k]
        out[O_OPP_UNSEEN + k] = unseen * k_[O_OPP_UNSEEN + k]
        out[O_MY_DECK + k] = out[O_MY_DECK + k] * k_[O_MY_DECK + k]
    out[O_MY_PSTAR] = s[layout.HAND_RECYCLED + me] * k_[O_MY_PSTAR]
    if s[layout.DEC_KIND] == layout.DK_KEEP and s[layout.DEC_SIDE] == me:
        for i in range(3):
            c = s[layout.DRAWN + me * 3 + i]
            if c >= 0:
                kind = card_kind(c)
                out[O_MY_DRAWN + kind] += k_[O_MY_DRAWN + kind]
        out[O_KEEP] = s[layout.KEEP_LEFT + me] * k_[O_KEEP]
    opp_hand = 0
    for k in range(NK):
        opp_hand += s[layout.HAND + opp * NK + k]
    out[O_COUNTS] = my_hand * k_[O_COUNTS]
    out[O_COUNTS + 1] = opp_hand * k_[O_COUNTS + 1]
    out[O_COUNTS + 2] = s[layout.DECK_LEN + me] * k_[O_COUNTS + 2]
    out[O_COUNTS + 3] = s[layout.DECK_LEN + opp] * k_[O_COUNTS + 3]
    for p in range(NP):
        k = s[layout.PLACED + me * NP + p]
        if k >= 0:
            out[O_MY_PLACED + p * NK + k] = 1.0
        k = s[layout.PLACED + opp * NP + p]
        if k >= 0 and s[layout.REVEALED + p] == 1:
            out[O_OPP_REVEALED + p * NK + k] = 1.0
        out[O_REVEALED + p] = s[layout.REVEALED + p]
    if s[layout.BATTLE_PROV] >= 0:
        out[O_BATTLE] = s[layout.FEINT_ON]
        out[O_BATTLE + 1] = s[layout.COUNTER_ON]
        out[O_BATTLE + 2] = s[layout.DEVASTATE_ON]
    out[O_HOLDER + _relative(s[layout.ORDER_HOLDER], me)] = 1.0
    out[O_PRIV + _relative(s[layout.PRIVILEGE], me)] = 1.0
    for j in range(NW):
        status = s[layout.WARLORD + me * NW + j]
        out[O_MY_WL + j] = 1.0 if status == layout.WL_HELD else 0.0
        out[O_MY_WL + NW + j] = 1.0 if status == layout.WL_USED else 0.0
        out[O_OPP_WL + j] = 1.0 if s[layout.WARLORD + opp * NW + j] == layout.WL_USED else 0.0
    out[O_EV_ON] = s[layout.EVENTS_ON]
    if s[layout.EVENT_UP] >= 0:
        out[O_EV_UP + s[layout.EVENT_UP]] = 1.0
    for i in range(s[layout.EVENT_DECK_LEN]):
        out[O_EV_DECK + s[layout.EVENT_DECK + i]] = 1.0
    out[O_PLAGUES] = (s[layout.PLAGUES_SEEN] + s[layout.PLAGUES_SEEN + 1]) * k_[O_PLAGUES]
    out[O_BEGINNER] = 1 - s[layout.WARLORDS_ON]
    out[O_SIXES] = s[layout.SIXES + me] * k_[O_SIXES]
    out[O_SIXES + 1] = s[layout.SIXES + opp] * k_[O_SIXES + 1]
    out[O_PCOPIES] = s[layout.PLAGUES_SEEN + me] * k_[O_PCOPIES]
    out[O_PCOPIES + 1] = s[layout.PLAGUES_SEEN + opp] * k_[O_PCOPIES + 1]
    out[O_OPP_PSTAR] = recycled_plagues_in_play(s, opp) * k_[O_OPP_PSTAR]
    for p in range(NP):
        if s[layout.REVEALED + p] == 1:
            out[O_MY_CANCEL + p] = s[layout.CANCELLED + me * NP + p]
            out[O_OPP_CANCEL + p] = s[layout.CANCELLED + opp * NP + p]
    for i in range(len(MAP_PAIRS)):
        out[O_MAP + i] = (s[layout.ADJ + MAP_PAIRS[i, 0]] >> MAP_PAIRS[i, 1]) & 1


@njit(cache=True)
def recycled_plagues_in_play(s: np.ndarray, side: int) -> int:
    """The side's recycled Plague copies not yet out of the game: public, since recycling is public (R9)."""
    n = s[layout.HAND_RECYCLED + side]
    for i in range(s[layout.DECK_LEN + side]):
        if s[layout.DECK + side * layout.DECK_CAPACITY + i] == layout.RECYCLED_PLAGUE:
            n += 1
    for i in range(3):
        if s[layout.DRAWN + side * 3 + i] == layout.RECYCLED_PLAGUE:
            n += 1
    if s[layout.PHASE] != layout.PH_DRAW:
        for p in range(NP):
            if s[layout.PLACED_RECYCLED + side * NP + p] == 1 and s[layout.RECYCLED + side * NP + p] == 0:
                n += 1
    return n


def observation_views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Named views into an observation vector (or a batch of them, along the last axis)."""
    return {name: obs[..., sl] for name, sl in OBSERVATION_SLICES.items()}


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Per-entry lower and upper bounds of the observation vector: its pieces' count bounds over their scales."""
    low = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    high = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    for piece in OBSERVATION_PIECES:
        low[OBSERVATION_SLICES[piece.name]] = piece.low / piece.scale
        high[OBSERVATION_SLICES[piece.name]] = (piece.scale if piece.high is None else piece.high) / piece.scale
    return low, high


def describe_observation() -> str:
    """A Markdown table of the observation vector: index range, piece, meaning (with its scale)."""
    rows = ["| index | piece | meaning |", "|---|---|---|"]
    for piece in OBSERVATION_PIECES:
        sl = OBSERVATION_SLICES[piece.name]
        span = f"{sl.start}" if piece.size == 1 else f"{sl.start}-{sl.stop - 1}"
        scaled = "" if piece.scale == 1 else f" / {piece.scale:g}"
        rows.append(f"| {span} | `{piece.name}` | {piece.meaning}{scaled} |")
    return "\n".join(rows)
