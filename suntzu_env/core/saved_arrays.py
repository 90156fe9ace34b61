"""Checks of a batched environment's saved arrays before `set_state` takes them, shared by both games' batched
envs (`suntzu_env.suntzu.vec.env`, `suntzu_env.binfa.vec_env`): compiled code does no bounds checks, so every index,
count and float it reads from a state is checked here first. Each raises ValueError naming the array, the row and
the column (by its declared field) of the first bad value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from suntzu_env.core.fields import Field


def fail(name: str, row: int | None, problem: str) -> ValueError:
    """The error of a saved array's bad value: `set_state: <name> row <row>: <problem>`."""
    return ValueError(f"set_state: {name}{'' if row is None else f' row {row}'}: {problem}")


def check_within(name: str, values: np.ndarray, low: int, high: int, field: str = "") -> None:
    """Every value of `values` (an array's column, or a whole array of rows) in [low, high]."""
    bad = np.flatnonzero(((values < low) | (values > high)).reshape(values.shape[0], -1).any(axis=1))
    if bad.size:
        row = int(bad[0])
        value = values[row] if values.ndim == 1 else values[row][(values[row] < low) | (values[row] > high)][0]
        where = f"{field}: " if field else ""
        raise fail(name, row, f"{where}{int(value)} is outside [{low}, {high}]")


def check_columns(name: str, table: np.ndarray, fields: Sequence[Field], bounds: Mapping[int, tuple[int, int]]) -> None:
    """Each column of `table` named in `bounds` (column -> inclusive range) within it, errors naming the field."""
    for column, (low, high) in bounds.items():
        check_within(name, table[:, column], low, high, fields[column].name)


def check_finite(name: str, values: np.ndarray) -> None:
    """No NaN or infinity in `values` (rows first)."""
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(values.shape[0], -1).any(axis=1))[0]) if values.ndim else None
        raise fail(name, row, "not a finite number")


def check_flags(name: str, values: np.ndarray, field: str = "") -> None:
    """0 or 1 only."""
    check_within(name, values, 0, 1, field)


def check_cdf(name: str, cdf: np.ndarray, size: int) -> None:
    """`size` cumulative probabilities, finite, from >= 0 up, non-decreasing, the last 1."""
    if not (cdf.ndim == 1 and cdf.size == size and np.isfinite(cdf).all() and np.all(np.diff(cdf, prepend=0.0) >= 0)
            and cdf[-1] == 1.0):  # fmt: skip
        raise fail(name, None, f"must be {size} cumulative probabilities (one per opponent slot) rising to 1, got "
                               f"{np.asarray(cdf).ravel()[:12].tolist()}")  # fmt: skip


__all__ = ["check_cdf", "check_columns", "check_finite", "check_flags", "check_within", "fail"]
