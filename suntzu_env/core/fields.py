"""A state vector's named fields, for any game: `Field` and `append_field`, from which each game declares its
state layout once (its engine indexes the state with the offsets; `to_dict`/`from_dict` walk the declaration);
`Columns`, a table's columns of one entry each declared the same way; and `IntEntry`, one entry of such a vector
read as an attribute."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, overload


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


class Columns(list[Field]):
    """A table's named columns of one entry each, numbered in the order they are declared: `DONE =
    TABLE.add("done", "1 when the last step ended a game")`."""

    def add(self, name: str, doc: str) -> int:
        """Declares the next column; returns its index."""
        return append_field(self, name, 1, doc)


class IntEntry:
    """A read-only attribute: entry `index` of the instance's array `array` (its state vector, a header row) as an
    int; `round = IntEntry("_s", ROUND)` reads `int(self._s[ROUND])`."""

    def __init__(self, array: str, index: int, doc: str | None = None) -> None:
        self.array, self.index, self.__doc__ = array, index, doc

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> IntEntry: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> int: ...
    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return int(getattr(instance, self.array)[self.index])
