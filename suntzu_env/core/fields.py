"""A state vector's named fields, for any game: `Field` and `append_field`, from which each game declares its
state layout once (its engine indexes the state with the offsets; `to_dict`/`from_dict` walk the declaration)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One named run of state entries."""

    name: str
    offset: int
    size: int
    doc: str


def append_field(fields: list[Field], name: str, size: int, doc: str) -> int:
    """Declares the run of `size` entries that follows the last of `fields`; returns its offset."""
    offset = fields[-1].offset + fields[-1].size if fields else 0
    fields.append(Field(name, offset, size, doc))
    return offset
