"""`StateGame`: what a game's face reads from its state vector alone, written once for every game (whether the
game is over, a read-only view of the state, its named fields)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from suntzu_env.core.fields import Field


class StateGame:
    """A base of each game's `Game`, which holds its state vector in `_s` and names the state's fields
    (`STATE_FIELDS`) and the offset of its winner (`WINNER_AT`, negative while the game goes on)."""

    __slots__ = ()
    _s: np.ndarray
    STATE_FIELDS: ClassVar[Sequence[Field]]
    WINNER_AT: ClassVar[int]

    @property
    def is_terminal(self) -> bool:
        return int(self._s[self.WINNER_AT]) >= 0

    @property
    def state(self) -> np.ndarray:
        """A read-only view of the state vector (see the game's `layout`)."""
        view = self._s.view()
        view.flags.writeable = False
        return view

    def fields(self) -> dict[str, np.ndarray]:
        """A copy of the state cut into its named fields (the game's `layout.FIELDS`), name -> int32 array.

        The full state, every seat's secrets included: for front-ends and tools that show a game, never for
        a seat's view (that is `observation`).
        """
        s = self._s.copy()
        return {f.name: s[f.offset : f.offset + f.size] for f in self.STATE_FIELDS}
