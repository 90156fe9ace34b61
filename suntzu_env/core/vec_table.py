"""The columns every game's compiled batched env begins its per-env table with (one int64 row per env): what the
game in progress and the game the last step ended are to the learner, whichever the game. A game's batched env
declares its own columns after them (`table_columns()`), so its kernels, its saved-state checks and its Python face
read these alike."""

from __future__ import annotations

from suntzu_env.core.fields import Columns

SHARED_COLUMNS = Columns()

N_LEGAL = SHARED_COLUMNS.add("n_legal", "legal actions of the learner's pending decision (0: the game is over)")
SEAT = SHARED_COLUMNS.add("seat", "the learner's seat in the game in progress")
OPPONENT = SHARED_COLUMNS.add("opponent", "the opponent slot of the game in progress")
DONE = SHARED_COLUMNS.add("done", "1 when the last step ended a game")
ILLEGAL = SHARED_COLUMNS.add("illegal", "1 when that game ended by the learner's illegal action")
ENDED_SEAT = SHARED_COLUMNS.add("ended_seat", "the learner's seat in the game the last step ended")
ENDED_OPPONENT = SHARED_COLUMNS.add("ended_opponent", "that game's opponent slot")
ENDED_RESULT = SHARED_COLUMNS.add("ended_result", "that game's result, in the game's own code (-1: illegal action)")


def shared_bounds(seats: int, slots: int, legal: int, result: tuple[int, int]) -> dict[int, tuple[int, int]]:
    """The range of each shared column's value in a saved table (`saved_arrays.check_columns`), for `seats` seats,
    `slots` opponent slots, at most `legal` legal actions, and results in `result` (the game's codes)."""
    seat, slot, flag = (0, seats - 1), (0, slots - 1), (0, 1)
    return {N_LEGAL: (0, legal), SEAT: seat, OPPONENT: slot, DONE: flag, ILLEGAL: flag, ENDED_SEAT: seat,
            ENDED_OPPONENT: slot, ENDED_RESULT: result}  # fmt: skip


def table_columns() -> Columns:
    """A new table's columns: the shared ones, after which a game declares its own with `add`."""
    return Columns(SHARED_COLUMNS)


__all__ = [
    "DONE",
    "ENDED_OPPONENT",
    "ENDED_RESULT",
    "ENDED_SEAT",
    "ILLEGAL",
    "N_LEGAL",
    "OPPONENT",
    "SEAT",
    "SHARED_COLUMNS",
    "table_columns",
]
