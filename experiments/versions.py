"""The versions training results depend on: `python -m experiments.versions` prints them as JSON.

Training is deterministic for a given seed and set of library versions; every run records these in its
`versions.json`, and the figures of the README state them.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata

PACKAGES = ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo")


def library_versions() -> dict[str, str]:
    """Python's version and each of `PACKAGES`' installed version ("not installed" when absent)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


if __name__ == "__main__":
    print(json.dumps(library_versions(), indent=2))
