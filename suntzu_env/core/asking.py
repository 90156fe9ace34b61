"""Asking an agent for its move: the one way every environment, evaluation and front-end does it.

Its own module, below `suntzu_env.core.protocol` (which re-exports it) and the generic environments of
`suntzu_env.core.turn_envs`, so that neither imports the other.
"""

from __future__ import annotations

from typing import Any


def hand_game(agent: Any, game: Any, seat: str) -> None:
    """Hand `game` to an agent that searches (it has `observe_game(game, seat)`) before it is asked to act.

    Such an agent must use the game only through what `seat` may know (Sun Tzu's agents: through
    `Game.sample_determinization`); every other agent acts from its observation and mask alone.
    """
    observe = getattr(agent, "observe_game", None)
    if observe is not None:
        observe(game, seat)


def ask(agent: Any, game: Any, seat: str) -> int:
    """`agent`'s action for `seat` in `game`: the game handed over if the agent searches, then `act`."""
    hand_game(agent, game, seat)
    return agent.act(game.observation(seat), game.legal_mask())
