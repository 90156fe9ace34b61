"""A turn limit for any game (`suntzu_env.core.protocol.TurnGame`), and a game's text, for the core's environments.

`TurnLimited` stops a game after `limit` rounds (its `round`), undecided: no seat is asked any more, its winner is
"draw", every return 0 and `truncated` True, so the core's environments end it truncated, not terminated. A game
that ends by its rules first is left as it is. `GamePlugin.turn_limited` wraps a game in it where the game's options
set a limit (the option field named by `turn_limit_option`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class TurnLimited:
    """`game`, stopped undecided once `limit` rounds are played; everything else is the game's."""

    def __init__(self, game: Any, limit: int) -> None:
        self.inner, self.limit = game, int(limit)

    @property
    def truncated(self) -> bool:
        """Whether the limit stopped the game (before its rules ended it)."""
        return not self.inner.is_terminal and self.inner.round >= self.limit

    @property
    def current_player(self) -> str | None:
        return None if self.truncated else self.inner.current_player

    @property
    def is_terminal(self) -> bool:
        return self.truncated or bool(self.inner.is_terminal)

    @property
    def winner(self) -> str | None:
        return "draw" if self.truncated else self.inner.winner

    @property
    def score(self) -> int:
        return int(self.inner.score)

    @property
    def round(self) -> int:
        return int(self.inner.round)

    def legal_mask(self) -> np.ndarray:
        mask = self.inner.legal_mask()
        return np.zeros_like(mask) if self.truncated else mask

    def legal_actions(self) -> list[int]:
        return [] if self.truncated else self.inner.legal_actions()

    def apply(self, action: int | str) -> None:
        if self.truncated:
            raise ValueError(f"action {action!r}: the game is over (stopped at its turn limit, {self.limit} rounds)")
        self.inner.apply(action)

    def observation(self, seat: str) -> np.ndarray:
        return self.inner.observation(seat)

    def returns(self) -> dict[str, float]:
        returns = self.inner.returns()
        return dict.fromkeys(returns, 0.0) if self.truncated else returns

    def record(self) -> dict[str, Any]:
        return self.inner.record()

    def __getattr__(self, name: str) -> Any:
        """The game's other attributes (its fields, `render_text`); `sample_determinization` limited alike."""
        if name.startswith("__") or name in ("inner", "limit"):  # not set yet: while unpickling or copying
            raise AttributeError(name)
        value = getattr(self.inner, name)
        if name == "sample_determinization":
            return lambda seat, rng=None: limited(value(seat, rng), self.limit)
        return value


def limited(game: Any, limit: int | None) -> Any:
    """`game` stopped after `limit` rounds (None: never), once: a game already limited is kept as it is."""
    if limit is None or isinstance(game, TurnLimited):
        return game
    return TurnLimited(game, limit)


def truncated(game: Any) -> bool:
    """Whether a finished game was stopped by a turn limit (its `truncated`, which a game with its own limit may
    give too), rather than ended by its rules."""
    return bool(getattr(game, "truncated", False))


def text_of(game: Any) -> str | None:
    """A game as text, for the `ansi` render mode: its `render_text()`, else its own `__str__`; None: it has none."""
    while isinstance(game, TurnLimited):
        game = game.inner
    if callable(getattr(game, "render_text", None)):
        return str(game.render_text())
    if type(game).__str__ is not object.__str__:
        return str(game)
    return None


def render_modes(rules: Any, options: Any) -> list[str]:
    """The render modes of a game's environments: ["ansi"] where its turn games show as text (`text_of`), else []."""
    return ["ansi"] if text_of(rules.new(0, options)) is not None else []
