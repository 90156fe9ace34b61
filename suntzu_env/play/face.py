"""What a game brings to the app: its `WebFace`, found through its plug-in (`GamePlugin.web`, `<module>:<attribute>`).

The app (`suntzu_env.play.app`) serves every registered game through the same routes, under the game's name (the
registry's default game also at the root), and the same page: the shared shell (`play/static/shell.html`: header,
messages, the replay's controls, the results listing, `common.js`) around the game's own parts, read from the
game's folder (`static`: `page.html`'s parts, its script, its stylesheet). A face holds
the rest of what is the game's own: the new-game form's options and checks, the person's live game, the replay of a
record, the agents a server offers, the command line's flags and the terminal mode. A game without a face of its
own is replayed by the text face of the app (`suntzu_env.play.textface`): its text, step by step.

A live game answers `view()`, `act(action, **extra)` (a ValueError: refused, nothing changed) and `record()` (a
PermissionError while it may not be given); a replay answers `view(...)` and has an `id`.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

MAX_STEP_DIGITS = 9  # a replay's step or frame, as the page sends it


class StepError(ValueError):
    """A replay's step that is not a whole number (or `last`)."""


def step_number(text: str, steps: int, what: str = "step") -> int:
    """The step `text` names among `steps` (`last`: the last one), or a one-line ValueError."""
    if text == "last" and what == "step":
        return steps - 1
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_STEP_DIGITS):
        allowed = "a whole number or 'last'" if what == "step" else "a whole number"
        raise StepError(f"{what} must be {allowed}, got {text[:40]!r}")
    return int(text)


class WebFace:
    """A game's face in the app; a game subclasses it in its own folder (`suntzu_env.<game>.web`).

    Class attributes: `title` (the page's title and the game's name for people), `game_keys` and `game_optional` (the
    keys of a new game's request), `action_optional` (further keys a person's answer may carry), `live` (whether a
    person may play here, or only replay). The page's code is found beside the face's module: the folder `static/`,
    in it the page's parts (`page.html`), the script and the stylesheet named after the game's folder
    (`suntzu_env/<game>/web/static/<game>.js`, `<game>.css`)."""

    title: str = ""
    game_keys: tuple[str, ...] = ("agent",)
    game_optional: tuple[str, ...] = ()
    action_optional: tuple[str, ...] = ()
    live: bool = True

    @property
    def static(self) -> Path | None:
        """The folder of the game's page code: `static/` beside the module of its face (None: it has none)."""
        folder = Path(inspect.getfile(type(self))).resolve().parent / "static"
        return folder if folder.is_dir() else None

    def _own(self, suffix: str) -> str | None:
        """The file of `static` named after the game's folder with `suffix`, if there is one."""
        folder = self.static
        name = f"{Path(inspect.getfile(type(self))).resolve().parents[1].name}{suffix}"
        return name if folder is not None and (folder / name).is_file() else None

    @property
    def script(self) -> str | None:
        """The board's script: `<game>.js` in `static`."""
        return self._own(".js")

    @property
    def style(self) -> str | None:
        """The board's stylesheet: `<game>.css` in `static`."""
        return self._own(".css")

    def parts(self) -> dict[str, str]:
        """The page's parts of this game, from `static/page.html`'s sections, each opened by a line
        `<!-- part: <name> -->`: `intro` (the new-game panel's title), `form` (its fields; the shell adds the seed
        and the start button), `watch` and `watch_more` (before and after the record's file input), `home` (more
        panels), `board` (the board's column), `replay` (more replay controls), `side` (the side panel's boxes)."""
        if self.static is None:
            return {}
        found: dict[str, list[str]] = {}
        current: list[str] | None = None
        for line in (self.static / "page.html").read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("<!-- part:"):
                current = found.setdefault(line.strip()[len("<!-- part:") : -len("-->")].strip(), [])
            elif current is not None:
                current.append(line)
        return {name: "\n".join(lines) for name, lines in found.items()}

    # ------------------------------------------------------------ the server
    def menu(self, models: list[str], folders: list[Path]) -> Any:
        """The agents a server offers (`names()`, `check(spec)`, `load()`): its scripted ones and the models named."""
        raise NotImplementedError

    def options(self, menu: Any, defaults: Mapping[str, Any]) -> dict[str, Any]:
        """What the new-game form offers, and its defaults."""
        return {"agents": menu.names(), "defaults": dict(defaults)}

    def form_defaults(self) -> dict[str, Any]:
        """The new-game form's defaults when the command line gives none."""
        return {}

    def new_game(self, body: dict[str, Any], menu: Any) -> Any:
        """A person's game from a new-game request (its keys checked against `game_keys`, `game_optional`)."""
        raise NotImplementedError

    def started(self, game: Any) -> dict[str, Any]:
        """The answer to a new game's request."""
        return {"view": game.view()}

    def replay(self, record: object, title: str) -> Any:
        """A record to step through; a ValueError naming the bad field (nothing is kept)."""
        raise NotImplementedError

    def first_view(self, replay: Any) -> dict[str, Any]:
        """The replay's first step, as a new replay's answer."""
        return self.replay_view(replay, {})

    def replay_view(self, replay: Any, query: Mapping[str, str]) -> dict[str, Any]:
        """One step of a replay, as the page's query asks (`step=N|last`, and what else the game reads)."""
        return replay.view(step_number(query.get("step", "0"), replay.steps))  # type: ignore[no-any-return]

    def extras(self) -> dict[str, Callable[[], Any]]:
        """Further JSON the page reads: `GET /api[/<game>]/<name>` (Sun Tzu's rules, Bin'Fa's board)."""
        return {}

    def documents(self) -> dict[str, Callable[[], str]]:
        """Text pages: `GET [/<game>]/<name>` (Sun Tzu's full rules)."""
        return {}

    # ------------------------------------------------------------ the command line
    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The new-game form's flags of this game (`--seat`, `--players`, ...)."""

    def command_defaults(self, args: argparse.Namespace) -> dict[str, Any]:
        """The new-game form's defaults from the command line."""
        return {"agent": args.agent, "seed": args.seed}

    def check_arguments(self, args: argparse.Namespace, menu: Any) -> None:
        """Refuse (one-line ValueError) what the command line gives that this game cannot play."""

    def play_in_terminal(self, args: argparse.Namespace, menu: Any) -> int:
        """`--text`: one game on standard input and output; the exit status."""
        raise ValueError(f"{self.title} has no terminal mode: serve it in the browser (drop --text)")
