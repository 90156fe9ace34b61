"""Sun Tzu in the app (`python -m suntzu_env.play`): its face (`face.FACE`, named by the plug-in's `web`), the
person's game and replays (`live`), the log told step by step (`chronicle`), what a seat may see (`view`), the rules
in a line each (`explain`), the terminal mode (`text`) and the page's board (`static/`)."""
