"""The fixed layout of a Bin'Fa state: one int32 vector of named fields (a batch is an (N, S) array).

Each field is declared once here with its size and meaning; the engine indexes the state with these
offsets and the records walk the same declaration. Units are numbered `12 * colour + k`; a unit's place
is a triangle index, `TRANSIT` while it passes between whirlpools (B39), or -1 once it left the game.
"""

from __future__ import annotations

import numpy as np

from suntzu_env.binfa.geometry import N_COLOURS, N_TRIANGLES, N_UNITS, N_WHIRLPOOLS
from suntzu_env.core.fields import Field, append_field

STATE_DTYPE = np.int32
TRANSIT = N_TRIANGLES  # pseudo-triangle: units entering a whirlpool, before their transfer (B39)
N_PLACES = N_TRIANGLES + 1
DICE_CAPACITY = 64  # preset throws a record may carry (its `dice` list)
MAX_PLAYERS = 6


FIELDS: list[Field] = []


def _field(name: str, size: int, doc: str) -> int:
    return append_field(FIELDS, name, size, doc)


# fmt: off
LEVEL         = _field("level", 1, "1..4 (B0.7)")
PLAYERS       = _field("players", 1, "2..6")
ARMIES_PER    = _field("armies_per_player", 1, "1, 2 or 3 (B47-B50)")
DEPLOY_RANDOM = _field("deployment_random", 1, "1: the seed places the units (B1)")
MAX_TURNS     = _field("max_turns", 1, "the game ends undecided after this many turns (BD5)")
RULES         = _field("rules", 1, "index in RULES_VERSIONS of the rules played: 0 v1 (older records), 1 v1.1")
RNG           = _field("rng", 2, "the game's generator state (engine.rng): its 64 bits as two int32, low half first")
GENERATOR_OF  = _field("generator", 1, "index in engine.rng.GENERATORS: 1 new games', 0 older records' (low half only)")
DICE_Q        = _field("dice_queue", 2 * DICE_CAPACITY, "preset throws, two dice each, used before the generator")
DICE_QLEN     = _field("dice_queue_len", 1, "preset throws in DICE_Q")
DICE_QPOS     = _field("dice_queue_pos", 1, "preset throws already used")
DICE          = _field("dice", 2, "the last throw, 0 0 before any")
ARMY_PLAYER   = _field("army_player", N_COLOURS, "player of each army (colour), -1 not in the game")
ALIVE         = _field("alive", N_COLOURS, "1 while the army is in the game (B12)")
PLAYER_SECTOR = _field("player_sector", MAX_PLAYERS, "sector of the player's first army, clockwise order (BD7)")
OUT_RANK      = _field("out_rank", MAX_PLAYERS, "0 in the game, else 1 + how many players were out before (B12)")
TERRAIN       = _field("terrain", N_TRIANGLES, "0 open, 1 terrain marker (B21), 2 whirlpool (B38)")
WHIRLPOOLS    = _field("whirlpools", N_WHIRLPOOLS, "the whirlpool triangles, -1 below level 4")
FRESH         = _field("fresh", N_TRIANGLES, "1 on a whirlpool whose units came in since their army's last throw (B39)")
UNIT_AT       = _field("unit_at", N_UNITS, "per unit: triangle, TRANSIT, or -1 out of the game")
UNIT_LEVEL    = _field("unit_level", N_UNITS, "per unit: its height in its stack, 0 at the bottom")
REMOVED       = _field("removed", N_COLOURS, "units of each colour out of the game (captured, lost, eliminated)")
HEIGHT        = _field("height", N_TRIANGLES + 1, "units per triangle (and TRANSIT)")
TOP           = _field("top", N_TRIANGLES + 1, "colour of the top unit, the stack's colour (B7), -1 empty")
RUN           = _field("run", N_TRIANGLES + 1, "units of the top colour on top, one after another")
STORE         = _field("store", 1, "tokens in the central store (B0.6)")
TOKENS        = _field("tokens", N_COLOURS, "tokens of each army (B50)")
PAWN          = _field("pawn", N_COLOURS, "circle of each army's supply pawn, -1 none (B24)")
PHASE         = _field("phase", 1, "PH_* code")
DEC_KIND      = _field("decision_kind", 1, "DK_* code of the pending decision")
TO_ACT        = _field("to_act", 1, "player to answer, -1 none")
DEPLOY_ARMY   = _field("deploy_index", 1, "seat-order index of the army placing its units (B1) or pawn (B24)")
DEPLOY_LEFT   = _field("deploy_left", 1, "units the deploying army still places")
TURN_PLAYER   = _field("turn_player", 1, "player with the dice")
TURN_ARMY     = _field("turn_army", 1, "army played this turn (B48), -1 not chosen yet")
MODE          = _field("mode", 1, "MODE_*: nothing thrown yet, moving (B28) or resupplying (B29)")
MOVES_LEFT    = _field("moves_left", 1, "moves of the current throw still to make (B5)")
ATTACK_FROM   = _field("attack_from", 1, "dislodge (B15): the attacking stack's triangle, -1 none")
ATTACK_TO     = _field("attack_to", 1, "dislodge: the attacked triangle")
RETREAT_AT    = _field("retreat_at", 1, "triangle the retreating units leave now, -1 none")
RETREAT_STEP  = _field("retreat_step", 1, "0 a six (B16), 1 or 2 the steps of a double six (B18)")
RETREAT_N     = _field("retreat_n", 1, "units making the second step of a double six (B19)")
TRANSFER_FROM = _field("transfer_from", 1, "whirlpool entered by the units in TRANSIT, -1 none (B39)")
TRANSFER_TO   = _field("transfer_to", N_TRIANGLES, "1 on whirlpools already receiving units of this transfer")
TURNS         = _field("turns", 1, "turns played (BD5)")
WINNER        = _field("winner", 1, "-1 going on, a player, or UNDECIDED")
STATE_SIZE    = FIELDS[-1].offset + FIELDS[-1].size
# fmt: on

FIELD_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

RULES_VERSIONS: tuple[int | str, ...] = (1, "1.1")  # as records name them; a v1 record replays under v1
RULES_V1, RULES_V1_1 = range(2)
MAX_STACK_UNITS = 12  # BD31 (v1.1): no stack holds more (R1, R11)

UNDECIDED = MAX_PLAYERS  # WINNER of a game ended by max_turns (BD5) or with nobody left (BD21)

PHASES = ("deploy", "pawns", "play", "over")
PH_DEPLOY, PH_PAWNS, PH_PLAY, PH_OVER = range(4)

MODES = ("none", "move", "resupply")
MODE_NONE, MODE_MOVE, MODE_RESUPPLY = range(3)

DECISION_KINDS = ("none", "deploy", "pawn", "army", "declare", "move", "transfer", "retreat", "resupply")
DK_NONE, DK_DEPLOY, DK_PAWN, DK_ARMY, DK_DECLARE, DK_MOVE, DK_TRANSFER, DK_RETREAT, DK_RESUPPLY = range(9)


def new_state() -> np.ndarray:
    """An all-zero state vector."""
    return np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
