"""A package's public names imported when first used (PEP 562), for the top package and every game's: importing one
game's package loads no module of it, nor of another game, until a name is asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    namespace: dict[str, Any], public: Mapping[str, str], fallback: Callable[[str], Any] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module's `__getattr__` and `__dir__` over `public` (each name -> the module it is imported from); a name
    once imported is kept in `namespace` (the module's globals). `fallback(name)` answers a name outside `public`,
    None for one the package does not have (AttributeError)."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if name in public:
            value = getattr(importlib.import_module(public[name]), name)
            namespace[name] = value
            return value
        value = fallback(name) if fallback is not None else None
        if value is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *public})

    return __getattr__, __dir__
