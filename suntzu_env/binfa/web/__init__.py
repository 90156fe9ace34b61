"""Bin'Fa in the app (`python -m suntzu_env.play --game binfa`): its face (`face.FACE`, named by the plug-in's
`web`), the person's game, replays and the board's drawing (`live`), the terminal mode (`text`) and the page's board
(`static/`)."""
