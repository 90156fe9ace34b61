"""The environment names of earlier versions, kept only to say what replaced them.

Any change of play, or of what a learner sees, bumps an environment's version (PettingZoo's convention).
`suntzu_env.suntzu_v1` and `"SunTzu-v1"` played rules v1; `suntzu_env.suntzu_v2` and `"SunTzu-v2"` played rules
v1.1 dealt by the older generator; `suntzu_env.binfa.binfa_v0` and `"BinFa-v0"` threw Bin'Fa's dice with it;
`suntzu_env.binfa.binfa_v1` and `"BinFa-v1"` played Bin'Fa's rules v1; `suntzu_env.binfa.binfa_v2` and `"BinFa-v2"`
saw a smaller observation. Importing or making an old name raises `RetiredEnvironmentError` with its message in
`RETIRED`.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any

_GENERATOR_CHANGE = (
    "the games are now dealt and thrown by one generator whose draws cannot be predicted from those seen "
    "(SplitMix64 over the seed's whole width, no modulo bias; suntzu_env.core.rng): the same seed gives another "
    "game than before, and records name their generator, so older records replay as they were played"
)
RULES_V1_CHANGE = (
    "played rules v1 (docs/rules.md 'What changed in v1.1'): a side with nothing to take but a recall is now asked "
    "recall:<card> or pass (D14), a recall of P discards the recycled copy first (D15), and reinforce is "
    "offered with an empty reserve when a recall can supply the army (D16)"
)
BINFA_RULES_V1_CHANGE = (
    "played Bin'Fa's rules v1 (docs/binfa-rules.md 'What changed in v1.1'): deployment is now hidden from the other "
    "players until every unit stands (BD6), a turn's first throw is compulsory, stop only after a throw (BD30), no "
    "stack holds more than 12 units (BD31), and a whirlpool exit onto a lone unit of another colour is a dislodge, "
    "not a covering (BD32); records of rules 1 still replay under v1"
)
SUNTZU_NOW = "use `from suntzu_env import env, parallel_env` or gymnasium.make('SunTzu-v3')"
BINFA_OBSERVATION_CHANGE = (
    "saw an observation of 1,957 values: binfa_v3 adds five pieces (enemy_closeness, one_side_open, capture_chance, "
    "danger_chance, lone_reach; 2,437 values) and plays as v2 did"
)
BINFA_NOW = "use `from suntzu_env.binfa import env` or gymnasium.make('BinFa-v3')"

# (module, Gymnasium id) -> why it was retired and what to use
RETIRED: dict[tuple[str, str], str] = {
    ("suntzu_env.suntzu_v1", "SunTzu-v1"): f"suntzu_v1 and SunTzu-v1 {RULES_V1_CHANGE}; {SUNTZU_NOW}",
    ("suntzu_env.suntzu_v2", "SunTzu-v2"): f"suntzu_v2 and SunTzu-v2 were replaced by suntzu_v3 and SunTzu-v3: "
    f"{_GENERATOR_CHANGE}; {SUNTZU_NOW}",
    ("suntzu_env.binfa.binfa_v0", "BinFa-v0"): f"binfa_v0 and BinFa-v0 were replaced by binfa_v1 and BinFa-v1: "
    f"{_GENERATOR_CHANGE}; {BINFA_NOW}",
    ("suntzu_env.binfa.binfa_v1", "BinFa-v1"): f"binfa_v1 and BinFa-v1 {BINFA_RULES_V1_CHANGE}; {BINFA_NOW}",
    ("suntzu_env.binfa.binfa_v2", "BinFa-v2"): f"binfa_v2 and BinFa-v2 {BINFA_OBSERVATION_CHANGE}; {BINFA_NOW}",
}
RETIRED_MODULES = {module: message for (module, _), message in RETIRED.items()}
RETIRED_ENV_IDS = {env_id: message for (_, env_id), message in RETIRED.items()}


class RetiredEnvironmentError(ImportError):
    """An environment name of an earlier version was asked for (an ImportError, so `import` reports it as such)."""


class _RetiredModuleFinder(importlib.abc.MetaPathFinder):
    """Answers `import suntzu_env.suntzu_v1` (and the other retired modules) with its message, not "No module"."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname in RETIRED_MODULES:
            raise RetiredEnvironmentError(RETIRED_MODULES[fullname])


def install() -> None:
    """Put the finder in front of the import system once (done when `suntzu_env` is imported)."""
    if not any(isinstance(f, _RetiredModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _RetiredModuleFinder())


def retired_env(env_id: str) -> Any:
    """The entry point registered for a retired Gymnasium id: making it only raises its message."""

    def make(**_: Any) -> Any:
        raise RetiredEnvironmentError(RETIRED_ENV_IDS[env_id])

    return make


def register_retired(gymnasium: Any) -> None:
    """Register every retired Gymnasium id, so that making one raises saying what replaced it."""
    for env_id in RETIRED_ENV_IDS:
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=retired_env(env_id))
