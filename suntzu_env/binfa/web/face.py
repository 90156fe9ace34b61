"""Bin'Fa's face in the app (`suntzu_env.play.face.WebFace`): its new-game form, live game, replay, board and flags."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from suntzu_env.binfa.web.live import (
    LEVELS,
    MAX_TURNS,
    PLAYERS,
    BinFaGame,
    BinFaMenu,
    BinFaReplay,
    board,
    check_options,
)
from suntzu_env.play.face import WebFace


def _seats(text: str) -> list[int]:
    parts = text.split(",")
    if not all(part.isascii() and part.isdigit() and len(part) < 3 for part in parts):
        raise argparse.ArgumentTypeError(f"expected player numbers such as 0 or 0,2, got {text!r}")
    return [int(part) for part in parts]


class BinFaFace(WebFace):
    title = "Bin'Fa"
    game_keys = ("agent", "seats")
    game_optional = ("players", "level", "seed", "max_turns")
    action_optional = ("times",)

    def menu(self, models: list[str], folders: list[Path]) -> BinFaMenu:
        return BinFaMenu([spec for spec in models if ":" in spec], folders)

    def options(self, menu: Any, defaults: Mapping[str, Any]) -> dict[str, Any]:
        return {"agents": menu.names(), "players": list(PLAYERS), "levels": list(LEVELS), "defaults": dict(defaults)}

    def form_defaults(self) -> dict[str, Any]:
        return {"agent": "random", "players": 2, "level": 1, "seats": [0], "seed": None}

    def new_game(self, body: dict[str, Any], menu: Any) -> BinFaGame:
        return BinFaGame(body["agent"], body["seats"], body.get("players", 2), body.get("level", 1), body.get("seed"),
                         body.get("max_turns", MAX_TURNS), menu)  # fmt: skip

    def started(self, game: Any) -> dict[str, Any]:
        return {"view": game.view(), "played": []}

    def replay(self, record: object, title: str) -> BinFaReplay:
        return BinFaReplay(record, title)

    def extras(self) -> dict[str, Callable[[], Any]]:
        return {"board": board}

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--players", type=int, default=2, help="players, 2..6")
        parser.add_argument("--level", type=int, default=1, help="rules level, 1..4")
        parser.add_argument("--seats", type=_seats, default=[0], metavar="P[,P...]",
                            help="the players you play, from 0 (default 0); the agent plays the rest")  # fmt: skip

    def command_defaults(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"agent": args.agent, "players": args.players, "level": args.level, "seats": args.seats,
                "seed": args.seed}  # fmt: skip

    def check_arguments(self, args: argparse.Namespace, menu: Any) -> None:
        menu.check(args.agent)
        check_options(args.players, args.level, args.seats)

    def play_in_terminal(self, args: argparse.Namespace, menu: Any) -> int:
        from suntzu_env.binfa.web.text import play_binfa_in_terminal

        return play_binfa_in_terminal(args.agent, args.seats, args.players, args.level, args.seed, args.save,
                                      menu=menu)  # fmt: skip


FACE = BinFaFace()
