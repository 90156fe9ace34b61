"""Sun Tzu (Alan Newman): the two-player game of simultaneous card play and area control (rules in docs/rules.md,
ids R1-R11 and D1 on).

Its facts are declared once in `rules` and `tables`; `actions`, `layout` and `options` lay out the action space,
the state vector and the rules a game is played under; `engine/` plays the rules compiled over the state;
`observation`, `records`, `older_rules`, `render` and `determinize` are views of a state; `game.Game` is the
engine's Python face; `episode`, `vec_core` and `vec/` the episode core of one game and of many at once;
`suntzu_v3` (PettingZoo), `gym_env` (Gymnasium), `vec_env` (the batched env), `openspiel` the environments;
`baselines/`, `values` and `players` the scripted players, the learned value and the registry of players by
name; `plugin.SUNTZU` is the game as the experiments play it. Its public face is the package's:
`from suntzu_env import Game, env, parallel_env, SunTzuGymEnv`.
"""
