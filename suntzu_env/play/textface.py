"""The face of a game that brings none of its own (its plug-in's `web` is None): its records replayed as its text.

Any registered game is replayed in the app this way: its record is read by its own plug-in (`GameRules.replay`),
then played again from its start one action at a time, and each step shows the game's text (`render_text()` or its
own `str`, as the `ansi` render mode shows it: `suntzu_env.core.turn_limit.text_of`), the moves so far (each by its
seat, as `GameRules.action_string` names it) and the winner. Nobody plays such a game live here: a text made for the
whole board may show what a seat may not know.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from suntzu_env.core.protocol import GameRules
from suntzu_env.core.turn_limit import text_of
from suntzu_env.play.face import WebFace

HERE = Path(__file__).resolve().parent
MAX_ACTIONS = 100_000  # the longest record replayed
LOG_SHOWN = 200  # the last moves sent with a step
NO_TEXT = "(this game has no text: only its moves are shown)"


class TextReplay:
    """A record of any game to step through: step k shows the game after its first k actions."""

    def __init__(self, rules: GameRules[Any], record: object, title: str = "") -> None:
        what = f"a {rules.name} record is a JSON object with the keys of its game's record() (and 'actions')"
        if not isinstance(record, dict) or not isinstance(record.get("actions"), list):
            raise ValueError(what)
        actions = record["actions"]
        if len(actions) > MAX_ACTIONS:
            raise ValueError(f"the record holds {len(actions)} actions, more than the {MAX_ACTIONS} replayed here")
        try:
            final = rules.replay(record)  # the whole record checked by the game first: a bad one keeps nothing
            game = rules.replay({**record, "actions": []})
            self.texts = [text_of(game) or NO_TEXT]
            self.moves: list[dict[str, Any]] = []
            for n, action in enumerate(actions):
                player = game.current_player
                game.apply(action)
                shown = rules.action_string(int(action)) if isinstance(action, int) else str(action)
                self.moves.append({"n": n, "player": player, "action": shown})
                self.texts.append(text_of(game) or NO_TEXT)
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise ValueError(f"{what}: {type(error).__name__} {error}") from None
        self.winner = final.winner
        self.title = title
        self.id = secrets.token_urlsafe(9)

    @property
    def steps(self) -> int:
        return len(self.texts)

    def view(self, step: object) -> dict[str, Any]:
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < self.steps:
            raise ValueError(f"step must be a whole number in [0, {self.steps - 1}], got {step!r:.40}")
        return {
            "text": self.texts[step],
            "log": self.moves[max(0, step - LOG_SHOWN) : step],
            "replay": {
                "id": self.id,
                "title": self.title,
                "step": step,
                "steps": self.steps,
                "next": self.moves[step]["action"] if step < len(self.moves) else None,
                "winner": self.winner,
            },
        }


class TextFace(WebFace):
    """A game's records replayed as its text (the app's own page parts and script: `play/static/text/`)."""

    static = HERE / "static" / "text"  # type: ignore[assignment]
    script = "text.js"  # type: ignore[assignment]
    style = None  # type: ignore[assignment]
    live = False

    def __init__(self, rules: GameRules[Any]) -> None:
        self.rules = rules
        self.title = str(getattr(rules, "title", "") or rules.name)

    def menu(self, models: list[str], folders: list[Path]) -> Any:
        return None

    def options(self, menu: Any, defaults: Mapping[str, Any]) -> dict[str, Any]:
        return {"agents": [], "defaults": {}, "live": False}

    def new_game(self, body: dict[str, Any], menu: Any) -> Any:
        raise ValueError(f"{self.title} is only replayed here: its records step by step")

    def replay(self, record: object, title: str) -> TextReplay:
        return TextReplay(self.rules, record, title)
