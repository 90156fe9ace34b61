"""The fixed layout of a game state: one int32 vector of named fields (a batch is an (N, S) array).

Each field is declared once below with its size and meaning; the engine indexes the state with the
offsets, `to_dict`/`from_dict` walk the same declaration. Per-side fields hold blue's block first,
then red's (`FIELD + side * block`).
"""

from __future__ import annotations

import numpy as np

from suntzu_env.core.fields import Field, append_field
from suntzu_env.suntzu.rules import MAX_DRAW, N_CARD_KINDS, N_EVENTS, N_PROVINCES, N_SCORINGS, N_WARLORDS

STATE_DTYPE = np.int32


FIELDS: list[Field] = []


def _field(name: str, size: int, doc: str) -> int:
    return append_field(FIELDS, name, size, doc)


DECK_CAPACITY = 14  # non-base cards of a side: its deck never holds more
RECYCLED_PLAGUE = N_CARD_KINDS  # deck/drawn entry: a Plague copy revealed before and recycled (record "P*")
MAX_TASKS = 8  # pending army transfers (six-marks, movement, costs, event payments) in one battle
TASK_SIZE = 6  # side, count, source rule, destination, province, cause
DRAW_SLOTS = MAX_DRAW  # drawn cards a side may hold at once (R4.6)

# fmt: off
VARIANT        = _field("variant", 1, "row of rules.VARIANT_RULES: names the variant, nothing else reads it")
WARLORDS_ON    = _field("warlords_on", 1, "1 when warlords are in play (the variant's row)")
KIND_COPIES    = _field("card_copies", N_CARD_KINDS, "copies of each card kind per side (the variant's row)")
EVENTS_ON      = _field("events_on", 1, "1 when event cards are in play")
ADJ            = _field("adjacency", N_PROVINCES, "per province: bit mask of its neighbours")
ROUND          = _field("round", 1, "1..9")
SCORE          = _field("score", 1, "-9..9, + toward blue")
PHASE          = _field("phase", 1, "PH_* code")
WINNER         = _field("winner", 1, "-1 none yet, 0 blue, 1 red, 2 draw")
PRIVILEGE      = _field("privilege", 1, "-1 nobody yet, else the last holder of the reveal privilege")
ORDER_HOLDER   = _field("order_holder", 1, "-1 board order this round, else the side choosing it")
PLAGUE_REVEALS = _field("plague_reveals", 1, "Plague reveals so far, a recycled copy again each time")
VALUES         = _field("province_values", N_PROVINCES * N_SCORINGS, "value at scorings 3/6/9, 3 per province")
EVENT_UP       = _field("event_face_up", 1, "-1 none, else event id")
EVENT_DECK     = _field("event_deck", N_EVENTS, "event ids, top first, -1 past the end")
EVENT_DECK_LEN = _field("event_deck_len", 1, "events left in the deck")
RESERVE        = _field("reserve", 2, "armies in reserve, per side")
SET_ASIDE      = _field("set_aside", 2, "armies in the set-aside pool, per side")
MARKED         = _field("marked_armies", 2, "armies in six-mark boxes, per side")
ARMIES         = _field("armies", 2 * N_PROVINCES, "armies per side and province")
SIX_MARKS      = _field("six_marks", 2 * N_PROVINCES, "six-marks per side and province (0..2)")
HAND           = _field("hand", 2 * N_CARD_KINDS, "cards in hand per side and kind")
DECK           = _field("deck", 2 * DECK_CAPACITY, "deck per side: card ids or RECYCLED_PLAGUE, top first, -1 after")
DECK_LEN       = _field("deck_len", 2, "cards in deck, per side")
OUT            = _field("out_of_game", 2 * N_CARD_KINDS, "cards out of the game per side and kind (public)")
WARLORD        = _field("warlords", N_WARLORDS, "per warlord id: 0 unchosen, 1 held, 2 used")
SIXES          = _field("sixes_revealed", 2, "`6`s revealed in the game, per side (R7.4)")
PLAGUES_SEEN   = _field("plagues_revealed", 2, "Plague copies revealed at least once, per side, 0..2 (R7.1)")
HAND_RECYCLED  = _field("hand_recycled_plagues", 2, "of the Plagues in hand, recycled copies, per side (P14)")
PLACED         = _field("placed", 2 * N_PROVINCES, "card placed this round per side and province, -1 none")
PLACED_RECYCLED = _field("placed_recycled", 2 * N_PROVINCES, "1 where the placed Plague is a recycled copy")
CANCELLED      = _field("cancelled", 2 * N_PROVINCES, "1 where the placed card faced an active Plague (R5.2)")
RECYCLED       = _field("recycled", 2 * N_PROVINCES, "1 where the placed card went back to the deck")
REVEALED       = _field("revealed", N_PROVINCES, "1 once the province's battle began this round")
LAST_REVEAL    = _field("last_reveal", 2 * N_PROVINCES, "cards of the last finished round (public), -1 none")
BATTLE_OUTCOME = _field("battle_outcome", N_PROVINCES, "per province: BO_* of its last battle (public)")
BATTLE_MARGIN  = _field("battle_margin", N_PROVINCES, "per province: its last battle's margin, + toward blue (public)")
STEP           = _field("step", 1, "position inside the phase")
PLACE_PROV     = _field("place_province", 2, "per side, province of its next placement (5: done)")
BATTLE_PROV    = _field("battle_province", 1, "province of the battle in progress, -1 none")
BATTLE_WINNER  = _field("battle_winner", 1, "-1 none (tie or Plague), else the side that won")
FEINT_ON       = _field("feint_on", 1, "1 when feint counts blue's card as 6 in this battle")
COUNTER_ON     = _field("counter_on", 1, "1 when counter_plague turned this battle's Plagues into 0")
DEVASTATE_ON   = _field("devastate_on", 1, "1 when devastating_plague acts in this battle")
WINDOW_AFTER   = _field("window_after", 1, "0 window before battles, 1 after")
WINDOW_POS     = _field("window_pos", 1, "warlord id being offered in the window")
ACTIVE_WL      = _field("active_warlord", 1, "-1 none, else the window warlord awaiting targets")
MARCH_FROM     = _field("march_from", 1, "-1 none, else the province march takes its army from")
DRAWN          = _field("drawn", 2 * DRAW_SLOTS, "cards drawn and not yet kept (ids as in the deck), per side, -1 none")
KEEP_LEFT      = _field("keep_left", 2, "drawn cards each side may still keep")
TASKS          = _field("tasks", MAX_TASKS * TASK_SIZE, "queue of army transfers, head first")
TASK_LEN       = _field("task_len", 1, "pending army transfers")
CHARIOT        = _field("chariot_pending", 2, "1 when the side picks a warlord for war_chariot")
ENDING         = _field("ending", 1, "1 when the last event was applied: the game ends once paid")
DEC_KIND       = _field("decision_kind", 1, "DK_* code of the pending decision")
DEC_SIDE       = _field("decision_side", 1, "side to act, -1 none")
DEC_PROV       = _field("decision_province", 1, "province concerned, -1 none")
DEC_WARLORD    = _field("decision_warlord", 1, "warlord concerned, -1 none")
DEC_CAUSE      = _field("decision_cause", 1, "CAUSE_* of an army payment, -1 none")
STATE_SIZE     = FIELDS[-1].offset + FIELDS[-1].size
# fmt: on

FIELD_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

# Phases (PHASE).
PH_WARLORDS, PH_PLACEMENT, PH_WINDOW, PH_REVEAL, PH_BATTLE, PH_DRAW, PH_OVER = range(7)
PHASE_NAMES = ("warlords", "placement", "window", "reveal", "battle", "draw", "over")

# Battle steps (STEP during PH_BATTLE), in the order of R5.7.
BS_FEINT, BS_COUNTER, BS_DEVASTATE, BS_MARKS, BS_RESOLVE, BS_COSTS, BS_EVENTS = range(7)
BS_CHARIOT, BS_RECYCLE_BLUE, BS_RECYCLE_RED, BS_DONE = range(7, 11)

# Battle outcomes (BATTLE_OUTCOME), per province: how its last battle ended (R5.1-R5.3, R7.5), written by the
# battle's own steps and cleared when the province's next battle begins (so an unrevealed province shows the
# last round's). BATTLE_MARGIN holds the margin toward blue of a combat (0: a tie) or of light_infantry (0: the
# marker stood at 0, D7), and 0 for a Plague.
BATTLE_OUTCOMES = ("none", "combat", "plague", "devastating_plague", "light_infantry")
BO_NONE, BO_COMBAT, BO_PLAGUE, BO_DEVASTATED, BO_LIGHT_INFANTRY = range(5)

# Decision kinds (DEC_KIND).
DECISION_KINDS = (
    "none", "warlord", "place", "window", "target", "reveal", "reactive", "source", "shortfall", "keep",
)  # fmt: skip
DK_NONE, DK_WARLORD, DK_PLACE, DK_WINDOW, DK_TARGET, DK_REVEAL = range(6)
DK_REACTIVE, DK_SOURCE, DK_SHORTFALL, DK_KEEP = range(6, 10)

# Army transfer tasks: where the army may come from, where it goes, and why.
T_SIDE, T_COUNT, T_RULE, T_DST, T_PROV, T_CAUSE = range(TASK_SIZE)
RULE_ANY, RULE_RESERVE_FIRST, RULE_SHORTFALL = range(3)  # R5.6 / R5.5, R7.1 / R5.4
DST_SET_ASIDE, DST_MARK, DST_PROVINCE = range(3)
PAYMENT_CAUSES = ("cost", "six_mark", "pandemic", "champion", "hero", "shortfall")
CAUSE_COST, CAUSE_MARK, CAUSE_PANDEMIC, CAUSE_CHAMPION, CAUSE_HERO, CAUSE_SHORTFALL = range(6)

WINNER_DRAW = 2  # WINNER of a drawn game (R6.4)

# Warlord statuses (WARLORD).
WL_UNCHOSEN, WL_HELD, WL_USED = 0, 1, 2


def new_state() -> np.ndarray:
    """An all-zero state vector."""
    return np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
