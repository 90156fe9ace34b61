"""Replaying a record of rules v1 under rules v1.1, only where both rules play the same.

Rules v1.1 changed three things (docs/rules.md, "What changed in v1.1"): a side with nothing to take but a
recall is asked `recall:<card>` or `pass` where v1 dropped the armies (D14); `recall:P` discards the recycled
copy where v1 discarded the never-revealed one (D15); `reinforce` is offered with an empty reserve where v1
did not offer it (D16). A game of rules v1 that never met one of these moments was played exactly as v1.1
plays it, so `Game.replay` replays it; at the first such moment it refuses, naming the action and the rule,
rather than go on with a game that v1 did not play.
"""

from __future__ import annotations

import numpy as np

from suntzu_env.suntzu.actions import A_PASS
from suntzu_env.suntzu.layout import (
    DEC_KIND,
    DEC_SIDE,
    DEC_WARLORD,
    DK_SHORTFALL,
    DK_SOURCE,
    DK_WINDOW,
    HAND,
    HAND_RECYCLED,
    RESERVE,
)
from suntzu_env.suntzu.rules import BLUE, CARD_PLAGUE, N_CARD_KINDS, RULES_VERSION, W_REINFORCE

V1_DIFFERS = f"a game of rules v1 that cannot be replayed exactly under rules v{RULES_VERSION}"


def v1_departure(s: np.ndarray, mask: np.ndarray, action: str | None) -> str | None:
    """Why rules v1 would not have played `action` (None: the pending decision alone) here, or None."""
    kind, side = int(s[DEC_KIND]), int(s[DEC_SIDE])
    if kind in (DK_SOURCE, DK_SHORTFALL) and mask[A_PASS]:
        return "D14: the side has nothing to take but may recall; rules v1 dropped the armies without asking"
    if kind == DK_WINDOW and s[DEC_WARLORD] == W_REINFORCE and s[RESERVE + BLUE] == 0:
        return "D16: reinforce is offered with an empty reserve; rules v1 did not offer it"
    if action == "recall:P":
        recycled = int(s[HAND_RECYCLED + side])
        if 0 < recycled < int(s[HAND + side * N_CARD_KINDS + CARD_PLAGUE]):
            return "D15: recall:P discards the recycled copy P*; rules v1 discarded the never-revealed one"
    return None
