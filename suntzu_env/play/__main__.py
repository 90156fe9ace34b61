"""`python -m suntzu_env.play`: start the web app and open it, or play in the terminal with `--text`.

python -m suntzu_env.play                                # the app: new game form, replays
python -m suntzu_env.play --agent heuristic --seat red   # the form's defaults (the game's own flags)
python -m suntzu_env.play --replay game.json             # open a game record in its game's viewer
python -m suntzu_env.play --results results/<name>       # an evaluation's games (any game's), each replayable
python -m suntzu_env.play --text --agent greedy          # play in the terminal
python -m suntzu_env.play --agent ppo:runs/a --models runs  # offer a model, and every model under runs/
python -m suntzu_env.play --game binfa --players 3 --level 2 --seats 0 --agent heuristic  # another game
python -m suntzu_env.play --game binfa --help            # that game's own flags

--game names any registered game (`suntzu_env.core.games`); its flags (the new-game form's defaults), its agents,
its page and its terminal mode come from its face (`GamePlugin.web`). The page may choose among the game's scripted
agents and searches, and the models named here (--agent, --model) or found under --models: nothing else is loaded.
Every flag is checked before the server starts.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import json
import os
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from suntzu_env.core import games as registry
from suntzu_env.play.games import face_of, prefix_of, served_games


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _seed(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) >= 2**62:
        raise argparse.ArgumentTypeError(f"expected a whole number in [0, 2**62), got {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) < 65536:
        raise argparse.ArgumentTypeError(f"expected a port number in [0, 65535], got {text!r}")
    return int(text)


def _chosen_game(argv: Sequence[str]) -> str:
    """The game `--game` names in `argv` (the registry's default if none), whose face adds its own flags: a served
    game's name, or a game of the user's own code as `<module>:<attribute>` (as the experiments take it), then
    served under its own name. UnknownGameError (one line) for a target that cannot be imported."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--game", default=registry.DEFAULT)
    known, _ = first.parse_known_args(argv)
    name = str(known.game)
    if ":" not in name:
        return name
    rules = registry.load(name)
    if rules.name not in registry.names():
        registry.register(rules.name, rules)
    return str(rules.name)


def build_parser(game: str = registry.DEFAULT) -> argparse.ArgumentParser:
    """The command line of `game`: the app's flags, and those its face adds (its new-game form's defaults)."""
    parser = _Parser(
        prog="python -m suntzu_env.play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    games = served_games()
    parser.add_argument("--game", default=registry.DEFAULT, metavar="GAME",
                        help=f"the game the page opens (every game is served): {', '.join(games)}, or a game of your "
                        "own code as <module>:<attribute>")  # fmt: skip
    parser.add_argument(
        "--agent", default="random", help="the opponent: one of the game's agents (the page lists them)"
    )
    parser.add_argument(
        "--model", action="append", default=[], metavar="SPEC",
        help="a further trained model or search the page may choose (ppo:<path>, and the game's own kinds such as "
        "rllib:<checkpoint> or ismcts-value:<run folder>; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--models", action="append", type=Path, default=[], metavar="FOLDER",
        help="offer every PPO model (.zip or run folder) found under this folder (repeatable)",
    )  # fmt: skip
    parser.add_argument("--seed", type=_seed, default=None, help="the game's seed (default: a random one)")
    parser.add_argument("--text", action="store_true", help="play in this terminal instead of the browser")
    parser.add_argument("--save", type=Path, default=None, metavar="FILE", help="--text: save the game's record here")
    parser.add_argument("--replay", type=Path, default=None, metavar="FILE", help="open a game record (JSON)")
    parser.add_argument("--results", default=None, metavar="FOLDER", help="list an evaluation's games to replay")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder under which results folders may be opened (default: the current folder, or the parent of "
        "--results)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on")
    parser.add_argument("--port", type=_port, default=8765, help="port to serve on (0: any free port)")
    parser.add_argument("--no-browser", action="store_true", help="print the address, do not open a browser")
    if game in games:
        face_of(game).add_arguments(parser.add_argument_group(f"{registry.game(game).title or game}'s new game"))
    return parser


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (port 0: a free one), bound as uvicorn binds, for the server to listen on;
    ValueError, one line naming --host or --port and what is allowed, when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {host} is in use: pass another --port (0 picks a free one)") from None
        if error.errno == errno.EACCES:
            raise ValueError(f"--port {port} is not allowed to this user here: pass one from 1024 to 65535 "
                             "(0 picks a free one)") from None  # fmt: skip
        raise ValueError(f"--host {host} is not an address of this machine ({error.strerror or error}): pass one "
                         "of its addresses, such as 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every "
                         "network it is on)") from None  # fmt: skip
    sock.set_inheritable(True)
    return sock


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_save(parser: argparse.ArgumentParser, save: Path | None) -> None:
    """--save must name a file that can be written, checked before the game starts."""
    if save is None:
        return
    folder = save.parent if str(save.parent) else Path(".")
    if save.is_dir():
        parser.error(f"--save {save} is a folder: give a file name")
    if not folder.is_dir():
        parser.error(f"--save {save}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (save.exists() and not os.access(save, os.W_OK)):
        parser.error(f"--save {save}: cannot write there")


def _check_folders(parser: argparse.ArgumentParser, folders: Sequence[Path]) -> None:
    for folder in folders:
        if not folder.is_dir():
            parser.error(f"--models {folder} is not a folder")


def _record_game(path: Path, given: str) -> tuple[str, Any]:
    """The game of a record file (its `game` key where it names a served game, else `given`) and the record."""
    record = json.loads(path.read_text())
    named = record.get("game") if isinstance(record, dict) else None
    return (named if isinstance(named, str) and named in served_games() else given), record


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        game = _chosen_game(argv)
    except registry.UnknownGameError as error:
        build_parser().error(str(error))
    replay_record: Any = None
    if "--replay" in argv and argv.index("--replay") + 1 < len(argv):  # a record names its own game
        with contextlib.suppress(OSError, ValueError, RecursionError):  # refused below, in one line
            game, replay_record = _record_game(Path(argv[argv.index("--replay") + 1]), game)
    parser = build_parser(game)
    args = parser.parse_args(argv)
    if game not in served_games():
        parser.error(f"--game {args.game!r}: expected one of {', '.join(served_games())}, or <module>:<attribute>")
    args.game = game
    face = face_of(game)
    _check_folders(parser, args.models)
    try:
        menu = face.menu([args.agent, *args.model], args.models)
        face.check_arguments(args, menu)
        if menu is not None:
            menu.load()  # a model that cannot play is refused now, not when the page asks for it
    except (ValueError, ImportError) as error:
        parser.error(" ".join(str(error).split()))
    if args.text:
        _check_save(parser, args.save)
        try:
            return face.play_in_terminal(args, menu)
        except KeyboardInterrupt:  # Ctrl+C: one line, no traceback
            print("\ninterrupted: the game is abandoned", file=sys.stderr)
            return 130
        except ValueError as error:
            parser.error(" ".join(str(error).split()))
    try:
        import uvicorn

        from suntzu_env.play.app import create_app
    except ImportError as error:
        parser.exit(1, f"{parser.prog}: error: the web app needs the play extra ({error}): pip install -e '.[play]'\n")
    results = args.results
    if results is not None:
        given = Path(results)
        if not (given / "games.csv").is_file() or not (given / "summary.json").is_file():
            parser.error(f"--results {results} is not an evaluation's results folder (no games.csv and summary.json)")
        if args.root is None:  # serve the results folder's parent, name the folder in it
            args.root, results = given.resolve().parent, given.resolve().name
    args.root = args.root if args.root is not None else Path(".")
    if not args.root.is_dir():
        parser.error(f"--root {args.root} is not a folder")
    replay: Any = None
    if args.replay is not None:
        try:
            record = replay_record if replay_record is not None else json.loads(args.replay.read_text())
            replay = face.replay(record, args.replay.name)
        except (OSError, ValueError, RecursionError) as error:
            parser.error(f"--replay {args.replay}: {' '.join(str(error).split())}")
    served = game  # the game the page opens, or the one of the results folder
    if replay is None and results is not None:
        from suntzu_env.play.results import folder_game, resolve

        try:
            served = folder_game(resolve(args.root, results), args.results)
        except ValueError as error:
            parser.error(f"--results {args.results}: {error}")
    try:
        listening = _bind(args.host, args.port)  # served as checked: no other program takes it in between
    except ValueError as error:
        parser.error(str(error))
    if not _loopback(args.host):
        print(f"warning: --host {args.host} serves the app beyond this machine: whoever reaches it can play and "
              f"replay the results under {args.root}", file=sys.stderr)  # fmt: skip
    defaults = {game: face.command_defaults(args)}
    app = create_app(args.root, defaults, {game: menu} if menu is not None else {}, args.host)
    path = prefix_of(game) or "/"
    if replay is not None:
        app.state.replays[game].add(replay.id, replay)
        path = f"{prefix_of(game)}/replay/{replay.id}"
    elif results is not None:
        path = f"/results?path={quote(results)}"
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning"))

    def announce() -> None:
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://{args.host}:{port}{path}"
        print(f"{registry.game(served).title or served} is served at {url} (Ctrl+C stops it)", flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[listening])
    return 0


if __name__ == "__main__":
    sys.exit(main())
