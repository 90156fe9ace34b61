"""Play Sun Tzu against any agent and watch recorded games: `python -m suntzu_env.play`.

A local web app (FastAPI, plain HTML/SVG/JavaScript) where a person plays either seat against an agent the
server offers (`random`, `greedy`, `heuristic`, `ismcts`, and the models and `ismcts-value:` searches named on
its command line), and a replay viewer for game records and the games of an evaluation's results folder; `--text`
plays the same decisions in a terminal.

Bin'Fa is served beside it (`--game binfa`, the page `/binfa`, `suntzu_env.play.binfa`): a person plays any
seats of 2 to 6 players against the plugin's agents, and Bin'Fa records replay step by step.

The server holds the game. The page receives only `view.seat_view`s of the person's seat: what R9 lets
that seat know. Needs the `play` extra (`pip install -e ".[play]"`).
"""

from suntzu_env.play.chronicle import Chronicle
from suntzu_env.play.view import seat_view

__all__ = ["Chronicle", "seat_view"]
