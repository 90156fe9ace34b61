"""The rules engine: every rule of docs/rules.md as compiled functions over the state vector.

The state is the int32 vector of `suntzu_env.suntzu.layout`. The engine runs the game forward on its own
until a decision with at least two legal answers is pending (R10); a decision with a single answer
is applied on the spot. Entry points:

- `init_state(s, seed, variant, events, adjacency, mask)`: setup (R3), the only use of randomness.
- `legal_mask(s, mask)`: fills an int8 mask over the flat action space, returns how many are legal.
- `step(s, action, mask)`: applies a legal action, runs on, refills the mask.
- `step_batch` / `random_playouts`: the same over an (N, S) batch and whole random games.
- `side_to_act(s)`, `result(s)`, `projected_marker(s)`: who is asked, the result, the marker after a scoring now.

The package in layers, each module importing only those listed before it:

- underneath: `rng` (the seeded generator), `board` (queries of the board, hands and decks; writing the
  pending decision), `transfers` (the army-transfer queue), `conditions` (pure tests: window warlord
  targets, a battle's difference, event triggers);
- the state machine: `events` (R7), `scoring` (R4.5, R6), `round` (R4, the R8 windows, the draw),
  `battle` (R5), `decisions` (R10: the legal answers, applying one), `drive` (setup, running on to the
  next decision, a step), `batch` (batches and random playouts);
- beside, for tests and record validation: `checks` (the invariants, their messages declared once) and
  `replay` (a battle run again from its start, in plain Python over `battle`: what a battle has set by a
  given step, so that `suntzu_env.suntzu.records` holds no step order of its own).

Shared tables and pure functions (battle differences, scoring, the six rule) live in `suntzu_env.suntzu.tables`.
Everything runs compiled with numba (`cache=True`) and as plain Python under `NUMBA_DISABLE_JIT=1`.
"""

from suntzu_env.core.rng import rng_below, rng_seed
from suntzu_env.suntzu.engine.batch import random_action, random_playouts, step_batch
from suntzu_env.suntzu.engine.board import card_kind, may_place_six_at, result, side_to_act
from suntzu_env.suntzu.engine.checks import INVARIANTS, check_invariants, random_playouts_checked
from suntzu_env.suntzu.engine.conditions import battle_diff, event_holds
from suntzu_env.suntzu.engine.decisions import legal_mask, placement_mask
from suntzu_env.suntzu.engine.drive import advance, init_state, place_out_of_turn, set_variant, settle, step
from suntzu_env.suntzu.engine.round import begin_round
from suntzu_env.suntzu.engine.scoring import projected_marker
from suntzu_env.suntzu.tables import COPIES, DISPLAYS, IS_WINDOW_WARLORD, START_RESERVE, START_SET_ASIDE

__all__ = [
    "COPIES",
    "DISPLAYS",
    "INVARIANTS",
    "IS_WINDOW_WARLORD",
    "START_RESERVE",
    "START_SET_ASIDE",
    "advance",
    "battle_diff",
    "begin_round",
    "card_kind",
    "check_invariants",
    "event_holds",
    "init_state",
    "legal_mask",
    "may_place_six_at",
    "place_out_of_turn",
    "placement_mask",
    "projected_marker",
    "random_action",
    "random_playouts",
    "random_playouts_checked",
    "result",
    "rng_below",
    "rng_seed",
    "set_variant",
    "settle",
    "side_to_act",
    "step",
    "step_batch",
]
