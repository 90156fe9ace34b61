"""Positions for the Bin'Fa rule tests: a record built from a few stacks, with the throws to come."""

from __future__ import annotations

from typing import Any

from suntzu_env.binfa import Game


def position(
    board: dict[str, list[str]],
    *,
    dice: list[list[int]] | tuple = (),
    level: int = 1,
    players: int = 2,
    armies_per_player: int = 1,
    armies: dict[str, int] | None = None,
    player: int = 0,
    army: str | None = "red",
    decision: str = "declare",
    mode: str | None = None,
    moves_left: int = 0,
    throw: list[int] | None = None,
    terrain: list[str] | tuple = (),
    whirlpools: list[str] | tuple = (),
    in_whirlpools: dict[str, list[str]] | None = None,
    fresh_whirlpools: list[str] | tuple = (),
    store: int = 60,
    tokens: dict[str, int] | None = None,
    pawns: dict[str, int] | None = None,
    rules_version: int | str = "1.1",
) -> dict[str, Any]:
    """A position record in play (red for player 0 and green for player 1 unless `armies` says), under rules v1.1
    unless `rules_version` says 1. `mode="move"` is a turn that threw already: `stop` is legal then (BD30)."""
    armies = armies or {"red": 0, "green": 1}
    tokens = tokens or {c: 0 for c in armies}
    return {
        "options": {"level": level, "players": players, "armies_per_player": armies_per_player, "max_turns": 300},
        "armies": armies,
        "board": board,
        "terrain": list(terrain),
        "whirlpools": list(whirlpools),
        "in_whirlpools": in_whirlpools or {},
        "fresh_whirlpools": list(fresh_whirlpools),
        "store": store,
        "tokens": tokens,
        "pawns": pawns or {},
        "phase": "play",
        "decision": decision,
        "to_act": player,
        "deploying": {"index": 0, "left": 0},
        "turn": {
            "player": player,
            "army": army,
            "mode": mode,
            "moves_left": moves_left,
            "dislodge": None,
            "throw": throw or [0, 0],
            "retreat": None,
            "transfer": None,
        },
        "turns": 0,
        "eliminated": [],
        "eliminated_armies": [],
        "winner": None,
        "dice": [list(d) for d in dice],
        "rng": 12345,
        "rules_version": rules_version,
    }


def game(board: dict[str, list[str]], **kw: Any) -> Game:
    return Game.from_dict(position(board, **kw))


def stacks(g: Game) -> dict[str, list[str]]:
    return g.to_dict()["board"]


def strings(g: Game, prefix: str) -> list[str]:
    return [a for a in g.legal_action_strings() if a.startswith(prefix)]
