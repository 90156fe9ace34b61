"""Sun Tzu's face in the app (`suntzu_env.play.face.WebFace`): its new-game form, live game, replay, rules and flags."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agents import check_spec
from suntzu_env.play.face import WebFace, step_number
from suntzu_env.suntzu.rules import SEATS, VARIANTS
from suntzu_env.suntzu.web.explain import RULES_DOC, glossary
from suntzu_env.suntzu.web.live import VIEW_MODES, AgentMenu, LiveGame, Replay

HERE = Path(__file__).resolve().parent
RULES_FILE = HERE.parents[2] / RULES_DOC  # the source checkout's docs/rules.md (absent from a built wheel)


def full_rules() -> str:
    """docs/rules.md, where the package runs from a source checkout."""
    if not RULES_FILE.is_file():
        raise FileNotFoundError(f"the full rules are {RULES_DOC} in the project's source, not installed here")
    return RULES_FILE.read_text(encoding="utf-8")


class SunTzuFace(WebFace):
    title = "Sun Tzu"
    game_keys = ("agent", "seat")
    game_optional = ("variant", "events", "seed")

    def menu(self, models: list[str], folders: list[Path]) -> AgentMenu:
        return AgentMenu(models, folders)

    def options(self, menu: Any, defaults: Mapping[str, Any]) -> dict[str, Any]:
        return {"agents": menu.names(), "models": menu.models, "ppo_prefix": "ppo:", "seats": list(SEATS),
                "variants": list(VARIANTS), "defaults": dict(defaults)}  # fmt: skip

    def form_defaults(self) -> dict[str, Any]:
        return {"agent": "random", "seat": "blue", "variant": "standard", "events": False}

    def new_game(self, body: dict[str, Any], menu: Any) -> LiveGame:
        spec = menu.check(body["agent"])  # before anything is built: refused specs touch nothing
        return LiveGame(spec, body["seat"], body.get("variant", "standard"), body.get("events", False),
                        body.get("seed"), player=menu.make(spec))  # fmt: skip

    def started(self, game: Any) -> dict[str, Any]:
        return {"view": game.view(), "frames": []}

    def replay(self, record: object, title: str) -> Replay:
        return Replay(record, title)  # type: ignore[arg-type]

    def first_view(self, replay: Any) -> dict[str, Any]:
        return replay.view("full", 0)  # type: ignore[no-any-return]

    def replay_view(self, replay: Any, query: Mapping[str, str]) -> dict[str, Any]:
        """`view=blue|red|full` and `step=N|last`, or `frame=F`: another view of the same moment."""
        view = query.get("view", "full")
        if view not in VIEW_MODES:
            raise ValueError(f"view must be one of {', '.join(VIEW_MODES)}, got {view[:40]!r}")
        if "frame" in query:
            return replay.view(view, replay.step_at(view, step_number(query["frame"], 0, "frame")))  # type: ignore[no-any-return]
        return replay.view(view, step_number(query.get("step", "0"), len(replay.steps(view))))  # type: ignore[no-any-return]

    def extras(self) -> dict[str, Callable[[], Any]]:
        return {"rules": glossary}

    def documents(self) -> dict[str, Callable[[], str]]:
        return {"rules": full_rules}

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--seat", choices=SEATS, default="blue", help="the seat you play (blue moves first)")
        parser.add_argument("--variant", choices=VARIANTS, default="standard", help="rules variant")
        parser.add_argument("--events", action="store_true", help="play with the event cards (R7)")

    def command_defaults(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"agent": args.agent, "seat": args.seat, "variant": args.variant, "events": args.events,
                "seed": args.seed}  # fmt: skip

    def check_arguments(self, args: argparse.Namespace, menu: Any) -> None:
        for spec in (args.agent, *args.model):
            check_spec(spec)

    def play_in_terminal(self, args: argparse.Namespace, menu: Any) -> int:
        from suntzu_env.suntzu.web.text import play_in_terminal

        return play_in_terminal(args.agent, args.seat, args.variant, args.events, args.seed, save=args.save)


FACE = SunTzuFace()
