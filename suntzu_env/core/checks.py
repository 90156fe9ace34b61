"""Checks for the arguments users pass in, for any game: seeds, flags, choices, numbers, option keys, opponent
mixes, `reset`'s arguments; an illegal action's message (`illegal_message`) and the warning it sends under
`illegal_action="loss"`.

Every public entry point (`Game`, the environments, the command lines) checks its arguments here, so a bad one
gets the same clear error everywhere and nothing unchecked reaches compiled code. As in Python itself: a value of
the wrong type raises `TypeError`, a value of the right type that is not allowed raises `ValueError`. Each check
returns the value in its canonical form (a plain `int` for a numpy integer seed, a plain `bool` for `np.True_`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

RESET_OPTIONS: tuple[str, ...] = ()  # the keys `reset(options=...)` understands: none so far
MAX_SEED = 2**63  # seeds lie in [0, 2**63): the engine's generator takes any of them


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_integer(value: Any) -> bool:
    """True for a Python or numpy integer, False for bools (which are flags, not numbers)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: Any, name: str = "seed", *, optional: bool = False) -> int | None:
    """`seed` as a plain int in [0, 2**63); numpy integers are accepted. None only when `optional`."""
    if seed is None and optional:
        return None
    if not is_integer(seed):
        allowed = "an integer or None" if optional else "an integer"
        raise TypeError(f"{name} must be {allowed} in [0, 2**63), got {shown(seed)} ({type(seed).__name__})")
    if not 0 <= int(seed) < MAX_SEED:
        raise ValueError(f"{name} must lie in [0, 2**63), got {int(seed)}")
    return int(seed)


def check_bool(value: Any, name: str) -> bool:
    """`value` as a plain bool: True/False or a numpy bool, never a string or a number."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {shown(value)} ({type(value).__name__})")
    return bool(value)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """`value`, one of the strings `choices`."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}, got {shown(value)} ({type(value).__name__})")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_number(
    value: Any, name: str, *, low: float | None = None, high: float | None = None, integer: bool = False
) -> float:
    """A finite real number (an int when `integer`) in [low, high]; bools are refused."""
    if integer:
        if not is_integer(value):
            raise TypeError(f"{name} must be an integer, got {shown(value)} ({type(value).__name__})")
    elif not (is_integer(value) or isinstance(value, (float, np.floating))):
        raise TypeError(f"{name} must be a number, got {shown(value)} ({type(value).__name__})")
    number = int(value) if integer else float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{name} must lie in {bounds}, got {value!r}")
    return number


def mix_cdf(
    mix: Mapping[Any, Any], slot_of: Callable[[Any], int], slots: Callable[[], int], label: Callable[[Any], str] = str
) -> np.ndarray:
    """An opponent mix (opponent -> weight >= 0, not all 0) as the cumulative probabilities over a batched env's
    opponent slots, from which its compiled step draws each game's opponent: `slot_of` gives an opponent's slot
    (adding it if new, or raising for what the env cannot play), `slots()` their count; slots after the last
    weighted one are never drawn. Every weight is checked before any slot is looked up or added."""
    if not mix:
        raise ValueError("opponents: an empty mix; give at least one opponent with a weight > 0")
    weights = [check_number(w, f"opponents[{label(o)!r:.60}] (a weight)", low=0.0) for o, w in mix.items()]
    if sum(weights) <= 0:
        raise ValueError("opponents: the weights of the mix add up to 0; give one a weight > 0")
    by_slot: dict[int, float] = {}
    for opponent, weight in zip(mix, weights, strict=True):
        k = slot_of(opponent)
        by_slot[k] = by_slot.get(k, 0.0) + weight
    total = sum(weights)
    cdf = np.zeros(slots(), dtype=np.float64)
    for k, weight in by_slot.items():
        cdf[k] = weight / total
    cdf = np.cumsum(cdf)
    cdf[max(k for k, weight in by_slot.items() if weight > 0) :] = 1.0
    return cdf


def check_keys(options: Any, name: str, allowed: Iterable[str]) -> dict[str, Any]:
    """A mapping whose keys are all among `allowed` (a copy, as a dict); None gives {}."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{name} must be a dict or None, got {shown(options)} ({type(options).__name__})")
    allowed = tuple(allowed)
    for key in options:
        if key not in allowed:
            raise ValueError(f"{name}: unknown key {key!r}; known keys: {allowed}")
    return dict(options)


class IllegalActionWarning(UserWarning):
    """An illegal action ended a game (`illegal_action="loss"`); sent once per environment."""


def check_reset(seed: Any, options: Any) -> int | None:
    """Check `reset`'s arguments; return the seed as a Python int (numpy integers are welcome).

    A key in `options` that no environment understands is ignored with a warning that names it (PettingZoo's
    API tests pass one, so it cannot be an error).
    """
    seed = check_seed(seed, optional=True)
    if options is not None:
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be None or a dict, got {options!r}")
        unknown = [key for key in options if key not in RESET_OPTIONS]
        if unknown:
            known = ", ".join(RESET_OPTIONS) or "none"
            warnings.warn(
                f"reset(options=...): unknown key(s) {', '.join(map(repr, unknown))} ignored (known keys: {known})",
                UserWarning,
                stacklevel=3,
            )
    return seed


def action_shown(action: Any, n_actions: int, action_string: Callable[[int], str]) -> str:
    """An action as an illegal action's message names it: `id (its string)` for one of the game's ids, else its
    repr (a numpy integer's as its Python value's)."""
    if is_integer(action) and 0 <= action < n_actions:
        return f"{int(action)} ({action_string(int(action))})"
    return repr(action.item() if isinstance(action, np.integer) else action)


def illegal_message(shown: str, kind: str | None, about: str = "", legal: Iterable[str] = (), over: str = "") -> str:
    """The message of an illegal action, `shown` as `action_shown` writes it: for the pending decision of `kind`,
    what it is `about` and its `legal` answers' strings; or, `kind` None, for a game over (`over`: how it ended)."""
    if kind is None:
        return f"illegal action {shown}: the game is over ({over})"
    return f"illegal action {shown} for decision '{kind}' ({about}); legal: {', '.join(legal)}"


def illegal_action_warning(error: ValueError, agent: str) -> str:
    """The text of the once-per-environment warning for an illegal action under `illegal_action="loss"`."""
    return (
        f"{error}. With illegal_action='loss' the game ends: {agent} gets -1, the other side +1, and "
        f"{agent}'s info holds 'illegal_action': True. Choose among the action mask's legal actions, or pass "
        "illegal_action='raise' to get this error raised instead. (Shown once per environment.)"
    )
