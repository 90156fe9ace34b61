"""Play any registered game against its agents and watch recorded games: `python -m suntzu_env.play`.

A local web app (FastAPI, plain HTML/SVG/JavaScript, `app`) and a terminal mode (`--text`), the same for every game:
the app finds the games through the registry (`suntzu_env.core.games`) and each game's face through its plug-in
(`GamePlugin.web`: a `face.WebFace` in the game's own folder, with its board's page code); a game without one is
replayed as its text (`textface`). What the app holds for any game (`store`), the page's shell and shared code
(`static/`), results folders (`results`) and the terminal's answers (`terminal`) live here once.

The server holds the game; the page receives only what the person's seats may know (each game's face sees to it).
Needs the `play` extra (`pip install -e ".[play]"`).
"""
