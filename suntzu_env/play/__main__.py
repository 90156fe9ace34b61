"""`python -m suntzu_env.play`: start the web app and open it, or play in the terminal with `--text`.

python -m suntzu_env.play                                # the app: new game form, replays
python -m suntzu_env.play --agent heuristic --seat red   # the form's defaults
python -m suntzu_env.play --replay game.json             # open a game record in the viewer
python -m suntzu_env.play --results results/<name>       # an evaluation's games (either game's), each replayable
python -m suntzu_env.play --text --agent greedy          # play in the terminal
python -m suntzu_env.play --agent ppo:runs/a --models runs  # offer a model, and every model under runs/
python -m suntzu_env.play --game binfa --players 3 --level 2 --seats 0 --agent heuristic  # Bin'Fa
python -m suntzu_env.play --replay binfa-game.json       # a Bin'Fa record opens in Bin'Fa's viewer
python -m suntzu_env.play --game binfa --text --agent greedy --save binfa-game.json  # Bin'Fa in the terminal

The page may choose among the scripted agents, `ismcts` within a budget, the searches with a learned value
(`ismcts-value:<run folder>`) named here, and the models named here (--agent, --model) or found under --models:
nothing else is loaded. Every flag is checked before the server starts.
"""

from __future__ import annotations

import argparse
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

from agents import check_spec, valid_specs
from suntzu_env.suntzu.rules import SEATS, VARIANTS

GAMES = ("suntzu", "binfa")
GAME_NAMES = {"suntzu": "Sun Tzu", "binfa": "Bin'Fa"}  # as the page and the announcement name them


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _agent(text: str) -> str:
    try:
        check_spec(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _seed(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) >= 2**62:
        raise argparse.ArgumentTypeError(f"expected a whole number in [0, 2**62), got {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) < 65536:
        raise argparse.ArgumentTypeError(f"expected a port number in [0, 65535], got {text!r}")
    return int(text)


def _seats(text: str) -> list[int]:
    parts = text.split(",")
    if not all(part.isascii() and part.isdigit() and len(part) < 3 for part in parts):
        raise argparse.ArgumentTypeError(f"expected player numbers such as 0 or 0,2, got {text!r}")
    return [int(part) for part in parts]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m suntzu_env.play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=GAMES, default=GAMES[0], help="the game the page opens (both are served)")
    parser.add_argument("--agent", type=_agent, default="random",
                        help=f"the opponent: {valid_specs()} (Bin'Fa: random, greedy, heuristic, ppo:)")  # fmt: skip
    parser.add_argument(
        "--model", action="append", type=_agent, default=[], metavar="SPEC",
        help="a further trained model or search the page may choose (ppo:<path>, rllib:<checkpoint> or "
        "ismcts-value:<run folder>; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--models", action="append", type=Path, default=[], metavar="FOLDER",
        help="offer every PPO model (.zip or run folder) found under this folder (repeatable)",
    )  # fmt: skip
    parser.add_argument("--seat", choices=SEATS, default="blue", help="the seat you play (blue moves first)")
    parser.add_argument("--variant", choices=VARIANTS, default="standard", help="rules variant")
    parser.add_argument("--events", action="store_true", help="play with the event cards (R7)")
    parser.add_argument("--players", type=int, default=2, help="Bin'Fa: players, 2..6")
    parser.add_argument("--level", type=int, default=1, help="Bin'Fa: rules level, 1..4")
    parser.add_argument("--seats", type=_seats, default=[0], metavar="P[,P...]",
                        help="Bin'Fa: the players you play, from 0 (default 0); the agent plays the rest")  # fmt: skip
    parser.add_argument("--seed", type=_seed, default=None, help="deck seed (default: a random one)")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    binfa_menu: Any = None  # Bin'Fa's agents, the trained models named here loaded (for --game binfa)
    if args.game == "binfa":
        from suntzu_env.play.binfa import BinFaMenu, check_options

        _check_folders(parser, args.models)
        binfa_menu = BinFaMenu([spec for spec in (args.agent, *args.model) if ":" in spec], args.models)
        try:
            binfa_menu.check(args.agent)
            check_options(args.players, args.level, args.seats)
            binfa_menu.load()  # a model that cannot play Bin'Fa is refused now, not when the page asks for it
        except ValueError as error:
            parser.error(" ".join(str(error).split()))
    if args.text:
        _check_save(parser, args.save)
        try:
            from suntzu_env.play.text import play_binfa_in_terminal, play_in_terminal

            if args.game == "binfa":
                return play_binfa_in_terminal(args.agent, args.seats, args.players, args.level, args.seed, args.save,
                                              menu=binfa_menu)  # fmt: skip
            return play_in_terminal(args.agent, args.seat, args.variant, args.events, args.seed, args.save)
        except KeyboardInterrupt:  # Ctrl+C: one line, no traceback
            print("\ninterrupted: the game is abandoned", file=sys.stderr)
            return 130
    try:
        import uvicorn

        from suntzu_env.play.app import create_app
        from suntzu_env.play.sessions import AgentMenu, Replay
    except ImportError as error:
        parser.exit(1, f"{parser.prog}: error: the web app needs the play extra ({error}): pip install -e '.[play]'\n")
    _check_folders(parser, args.models)
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
            record = json.loads(args.replay.read_text())
            if args.game == "binfa" or (isinstance(record, dict) and record.get("game") == "binfa"):
                from suntzu_env.play.binfa import BinFaReplay

                args.game, replay = "binfa", BinFaReplay(record, args.replay.name)
            else:
                replay = Replay(record, args.replay.name)
        except (OSError, ValueError, RecursionError) as error:
            parser.error(f"--replay {args.replay}: {' '.join(str(error).split())}")
    served = args.game  # the game the page opens, or the one of the results folder
    if replay is None and results is not None:
        from suntzu_env.play.results import folder_game, resolve

        try:
            served = folder_game(resolve(args.root, results), args.results)
        except ValueError as error:
            parser.error(f"--results {args.results}: {error}")
    try:
        binfa_page = args.game == "binfa"  # then --agent and --model name Bin'Fa's agents, checked above
        menu = AgentMenu([] if binfa_page else [args.agent, *args.model], args.models)
        menu.load()  # a model that cannot play is refused now, not when a page asks for it
    except (ValueError, ImportError) as error:
        parser.error(" ".join(str(error).split()))
    try:
        listening = _bind(args.host, args.port)  # served as checked: no other program takes it in between
    except ValueError as error:
        parser.error(str(error))
    if not _loopback(args.host):
        print(f"warning: --host {args.host} serves the app beyond this machine: whoever reaches it can play and "
              f"replay the results under {args.root}", file=sys.stderr)  # fmt: skip
    defaults = {
        "agent": "random" if binfa_page else args.agent,
        "seat": args.seat,
        "variant": args.variant,
        "events": args.events,
        "seed": args.seed,
    }
    binfa = {"agent": args.agent, "players": args.players, "level": args.level, "seats": args.seats, "seed": args.seed}
    app = create_app(args.root, defaults, menu, args.host, binfa, binfa_menu)
    path = "/binfa" if args.game == "binfa" else "/"
    if replay is not None and args.game == "binfa":
        app.state.binfa_replays.add(replay.id, replay)
        path = f"/binfa/replay/{replay.id}"
    elif replay is not None:
        app.state.replays.add(replay.id, replay)
        path = f"/replay/{replay.id}"
    elif results is not None:
        path = f"/results?path={quote(results)}"
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning"))

    def announce() -> None:
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://{args.host}:{port}{path}"
        name = GAME_NAMES.get(served, served)
        print(f"{name} is served at {url} (Ctrl+C stops it)", flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[listening])
    return 0


if __name__ == "__main__":
    sys.exit(main())
