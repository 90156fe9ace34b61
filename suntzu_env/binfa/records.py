"""Bin'Fa records (B0.9): `to_dict`/`from_dict` of a position, every field of a loaded one validated.

A bad field raises `RecordError` (a ValueError) naming it; nothing is changed. Beside the fields of the
contract, a position carries what a state inside a turn needs: the phase and decision, the deploying army,
the turn's dice, retreat and transfer, the whirlpools whose units came in this throw, the generator and the
rules played. A position written by hand with only the contract's fields, at the start of a turn, loads:
`with_defaults` gives the others the values of a turn about to be declared (docs/binfa-rules.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from suntzu_env.binfa import engine, layout
from suntzu_env.binfa.geometry import (
    COLOURS,
    N_CIRCLES,
    N_COLOURS,
    N_TRIANGLES,
    N_WHIRLPOOLS,
    STORE_TOKENS,
    TRIANGLE_INDEX,
    TRIANGLE_NAMES,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.options import Options
from suntzu_env.core.checks import is_integer
from suntzu_env.core.rng import GENERATOR, GENERATORS, LEGACY_GENERATOR, setup_seed

KEYS = (
    "options", "armies", "board", "terrain", "whirlpools", "in_whirlpools", "fresh_whirlpools", "store", "tokens",
    "pawns", "phase", "decision", "to_act", "deploying", "turn", "turns", "eliminated", "eliminated_armies",
    "winner", "dice", "rng",
)  # fmt: skip
OPTIONAL_KEYS = ("generator", "rules_version")  # see `with_defaults`
TURN_KEYS = ("player", "army", "mode", "moves_left", "dislodge", "throw", "retreat", "transfer")
# the fields BINFA.md's position holds; every other one may be left out of a position at the start of a turn
CONTRACT_KEYS = (
    "options", "armies", "board", "terrain", "whirlpools", "in_whirlpools", "store", "tokens", "pawns", "to_act",
    "turn", "turns", "eliminated", "winner", "dice",
)  # fmt: skip
CONTRACT_TURN_KEYS = ("army", "mode", "moves_left", "dislodge")
DEFAULT_SEED = 0  # a position without `rng` throws, after its `dice`, as the generator seeded with this


class RecordError(ValueError):
    """A position record that is not one the engine can be in; the message names the field."""


def _colour(c: int) -> str | None:
    return COLOURS[c] if c >= 0 else None


def _tri(t: int) -> str | None:
    return TRIANGLE_NAMES[t] if t >= 0 else None


def stack_colours(s: np.ndarray, t: int) -> list[str]:
    """The colours of the units on place `t`, bottom to top."""
    out = [""] * int(s[layout.HEIGHT + t])
    for u in range(N_COLOURS * UNITS_PER_ARMY):
        if s[layout.UNIT_AT + u] == t:
            out[int(s[layout.UNIT_LEVEL + u])] = COLOURS[u // UNITS_PER_ARMY]
    return out


def winner_of(s: np.ndarray) -> int | str | None:
    w = int(s[layout.WINNER])
    return None if w < 0 else "undecided" if w == layout.UNDECIDED else w


def record_from_state(s: np.ndarray, options: Options) -> dict[str, Any]:
    """The JSON position of state `s`."""
    in_game = [c for c in range(N_COLOURS) if s[layout.ARMY_PLAYER + c] >= 0]
    pools = [int(w) for w in s[layout.WHIRLPOOLS : layout.WHIRLPOOLS + N_WHIRLPOOLS] if w >= 0]
    board = {
        TRIANGLE_NAMES[t]: stack_colours(s, t)
        for t in range(N_TRIANGLES)
        if s[layout.HEIGHT + t] > 0 and t not in pools
    }
    retreat = None
    if s[layout.DEC_KIND] == layout.DK_RETREAT:
        retreat = {"at": _tri(s[layout.RETREAT_AT]), "step": int(s[layout.RETREAT_STEP]), "n": int(s[layout.RETREAT_N])}
    transfer = None
    if s[layout.DEC_KIND] == layout.DK_TRANSFER:
        transfer = {
            "from": _tri(s[layout.TRANSFER_FROM]),
            "to": [TRIANGLE_NAMES[w] for w in pools if s[layout.TRANSFER_TO + w]],
            "units": stack_colours(s, layout.TRANSIT),
        }
    playing = s[layout.PHASE] == layout.PH_PLAY
    out_players = sorted(
        (int(s[layout.OUT_RANK + p]), p) for p in range(int(s[layout.PLAYERS])) if s[layout.OUT_RANK + p] > 0
    )
    pos = int(s[layout.DICE_QPOS])
    return {
        "options": options.to_dict(),
        "armies": {COLOURS[c]: int(s[layout.ARMY_PLAYER + c]) for c in in_game},
        "board": board,
        "terrain": [TRIANGLE_NAMES[t] for t in range(N_TRIANGLES) if s[layout.TERRAIN + t] == engine.MARKER],
        "whirlpools": [TRIANGLE_NAMES[w] for w in pools],
        "in_whirlpools": {TRIANGLE_NAMES[w]: stack_colours(s, w) for w in pools if s[layout.HEIGHT + w] > 0},
        "fresh_whirlpools": [TRIANGLE_NAMES[w] for w in pools if s[layout.FRESH + w]],
        "store": int(s[layout.STORE]),
        "tokens": {COLOURS[c]: int(s[layout.TOKENS + c]) for c in in_game},
        "pawns": {COLOURS[c]: int(s[layout.PAWN + c]) for c in in_game if s[layout.PAWN + c] >= 0},
        "phase": layout.PHASES[s[layout.PHASE]],
        "decision": layout.DECISION_KINDS[s[layout.DEC_KIND]],
        "to_act": int(s[layout.TO_ACT]) if s[layout.TO_ACT] >= 0 else None,
        "deploying": {"index": int(s[layout.DEPLOY_ARMY]), "left": int(s[layout.DEPLOY_LEFT])},
        "turn": {
            "player": int(s[layout.TURN_PLAYER]) if playing else None,
            "army": _colour(s[layout.TURN_ARMY]) if playing else None,
            "mode": layout.MODES[s[layout.MODE]] if playing and s[layout.MODE] else None,
            "moves_left": int(s[layout.MOVES_LEFT]),
            "dislodge": [_tri(s[layout.ATTACK_FROM]), _tri(s[layout.ATTACK_TO])]
            if s[layout.ATTACK_FROM] >= 0
            else None,
            "throw": [int(s[layout.DICE]), int(s[layout.DICE + 1])],
            "retreat": retreat,
            "transfer": transfer,
        },
        "turns": int(s[layout.TURNS]),
        "eliminated": [p for _, p in out_players],
        "eliminated_armies": [COLOURS[c] for c in in_game if s[layout.ALIVE + c] == 0],
        "winner": winner_of(s),
        "dice": [
            [int(s[layout.DICE_Q + 2 * i]), int(s[layout.DICE_Q + 2 * i + 1])]
            for i in range(pos, int(s[layout.DICE_QLEN]))
        ],
        "rng": int(engine.generator_state(s)) & 0xFFFFFFFFFFFFFFFF,
        "generator": GENERATORS[s[layout.GENERATOR_OF]],
        "rules_version": layout.RULES_VERSIONS[s[layout.RULES]],
    }


def hide_deployment(d: dict[str, Any], player: int) -> dict[str, Any]:
    """Position `d` as `player` may see it (BD6, rules v1.1): during deployment the units the other players placed
    are left out of the board (a view to show, not a position to load); otherwise `d` itself."""
    if d.get("phase") != "deploy" or d.get("rules_version") == layout.RULES_VERSIONS[0]:
        return d
    mine = {colour for colour, p in d["armies"].items() if p == player}
    board = {t: stack for t, stack in d["board"].items() if stack[-1] in mine}
    return {**d, "board": board}


def _tops(d: dict[str, Any]) -> set[Any]:
    """The colours topping a stack of a position's board or whirlpools (nothing where they are malformed: the
    checks that follow name the field)."""
    tops = set()
    for key in ("board", "in_whirlpools"):
        stacks = d.get(key)
        if isinstance(stacks, dict):
            tops |= {v[-1] for v in stacks.values() if isinstance(v, list) and v and isinstance(v[-1], str)}
    return tops


def with_defaults(d: dict[str, Any]) -> dict[str, Any]:
    """Position `d` with every field BINFA.md's contract leaves out given the values of a turn about to be declared,
    where `d` has none: `phase` "play" ("over" once there is a winner), `decision` "declare" ("army" while
    `turn.army` is null, "none" once over), `deploying` {index 0, left 0}, `fresh_whirlpools` [],
    `eliminated_armies` the armies that top no stack, `turn.player` the player of `turn.army` (else `to_act`),
    `turn.throw` [0, 0], `turn.retreat` and `turn.transfer` null, `generator` "splitmix64" and `rng` its state
    seeded with 0 (the preset `dice` come first), `rules_version` "1.1". A given `rng` without `generator` is the
    older generator's, as positions written before generators were named."""
    out = dict(d)
    over = d.get("winner") is not None
    turn = d.get("turn")
    army = turn.get("army") if isinstance(turn, dict) else None
    out.setdefault("phase", "over" if over else "play")
    out.setdefault("decision", "none" if out["phase"] == "over" else "army" if army is None else "declare")
    out.setdefault("deploying", {"index": 0, "left": 0})
    out.setdefault("fresh_whirlpools", [])
    armies = d.get("armies")
    if "eliminated_armies" not in out and isinstance(armies, dict):
        tops = _tops(d)
        out["eliminated_armies"] = [colour for colour in armies if colour not in tops]
    if isinstance(turn, dict):
        player = armies.get(army) if isinstance(armies, dict) and isinstance(army, str) else None
        defaults = {"player": d.get("to_act") if player is None else player, "throw": [0, 0]}
        out["turn"] = {**defaults, "retreat": None, "transfer": None, **turn}
    if "rng" not in out:
        generator = out.setdefault("generator", GENERATOR)
        seeded = setup_seed(DEFAULT_SEED, generator == LEGACY_GENERATOR)
        out["rng"] = int(seeded[0]) & 0xFFFFFFFFFFFFFFFF
    out.setdefault("rules_version", layout.RULES_VERSIONS[layout.RULES_V1_1])
    return out


# ------------------------------------------------------------------ reading


def _fail(field: str, message: str) -> RecordError:
    return RecordError(f"record.{field}: {message}")


def record_generator(d: dict[str, Any]) -> str:
    """The generator a record or position names (`suntzu_env.core.rng.GENERATORS`); one that names none was made
    before it was named, by the older generator."""
    generator = d.get("generator", LEGACY_GENERATOR)
    if generator not in GENERATORS:
        raise _fail("generator", f"expected one of {', '.join(GENERATORS)}, got {generator!r:.40}")
    return generator


def _int(value: Any, field: str, low: int, high: int) -> int:
    return _integer(value, f"record.{field}", low, high)


def _integer(value: Any, name: str, low: int, high: int) -> int:
    """An integer low..high; RecordError names `name` (a record's field, or an argument) and the value."""
    if not is_integer(value) or not low <= int(value) <= high:
        raise RecordError(f"{name}: expected an integer {low}..{high}, got {value!r:.40}")
    return int(value)


def _dict(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(field, f"expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(field, f"expected a list, got {type(value).__name__}")
    return value


def _triangle(value: Any, field: str) -> int:
    if not isinstance(value, str) or value not in TRIANGLE_INDEX:
        raise _fail(field, f"unknown triangle {value!r:.40} (names look like 'red-4-6')")
    return TRIANGLE_INDEX[value]


def _colour_index(value: Any, field: str) -> int:
    if not isinstance(value, str) or value not in COLOURS:
        raise _fail(field, f"unknown colour {value!r:.40}: colours are {', '.join(COLOURS)}")
    return COLOURS.index(value)


def _choice(value: Any, field: str, choices: tuple[str, ...]) -> int:
    if value not in choices:
        raise _fail(field, f"expected one of {', '.join(choices)}, got {value!r:.40}")
    return choices.index(value)


def _stack(s: np.ndarray, t: int, colours: Any, field: str, next_unit: list[int]) -> None:
    colours = _list(colours, field)
    if not colours:
        raise _fail(field, "an empty stack is left out, not listed")
    for i, name in enumerate(colours):
        c = _colour_index(name, f"{field}[{i}]")
        if s[layout.ARMY_PLAYER + c] < 0:
            raise _fail(f"{field}[{i}]", f"army {name} is not in the game")
        if next_unit[c] >= UNITS_PER_ARMY:
            raise _fail(field, f"more than {UNITS_PER_ARMY} {name} units in the position")
        u = UNITS_PER_ARMY * c + next_unit[c]
        next_unit[c] += 1
        s[layout.UNIT_AT + u] = t
        s[layout.UNIT_LEVEL + u] = s[layout.HEIGHT + t]
        s[layout.HEIGHT + t] += 1


def check_dice(dice: Any, field: str) -> np.ndarray:
    """Throws to come (B0.5) as a (k, 2) array, from a list of at most DICE_CAPACITY pairs of dice 1..6;
    RecordError names `field` (`record.dice`, ...) and its bad entry."""
    if not isinstance(dice, (list, tuple)):
        raise RecordError(f"{field}: expected a list of throws, got {type(dice).__name__}")
    if len(dice) > layout.DICE_CAPACITY:
        raise RecordError(f"{field}: at most {layout.DICE_CAPACITY} throws")
    out = np.zeros((len(dice), 2), dtype=np.int64)
    for i, pair in enumerate(dice):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise RecordError(f"{field}[{i}]: two dice, got {pair!r:.40}")
        for j in range(2):
            out[i, j] = _integer(pair[j], f"{field}[{i}][{j}]", 1, 6)
    return out


def state_from_record(d: dict[str, Any]) -> tuple[np.ndarray, Options]:
    """A state from a position record (`with_defaults` fills what the contract leaves out); RecordError names the
    first bad field."""
    for key in CONTRACT_KEYS:
        if key not in d:
            raise _fail(key, "missing")
    for key in d:
        if key not in KEYS + OPTIONAL_KEYS:
            raise _fail(str(key), f"unknown field (fields are {', '.join(KEYS + OPTIONAL_KEYS)})")
    if isinstance(d["turn"], dict):
        for key in CONTRACT_TURN_KEYS:
            if key not in d["turn"]:
                raise _fail(f"turn.{key}", "missing")
    d = with_defaults(d)
    try:
        options = Options.of(_dict(d["options"], "options"))
    except (TypeError, ValueError) as error:
        raise _fail("options", str(error)) from None
    s = layout.new_state()
    if d["rules_version"] not in layout.RULES_VERSIONS or isinstance(d["rules_version"], bool):
        raise _fail(
            "rules_version",
            f"expected one of {', '.join(map(repr, layout.RULES_VERSIONS))}, got {d['rules_version']!r:.40}",
        )
    s[layout.RULES] = layout.RULES_VERSIONS.index(d["rules_version"])
    s[layout.LEVEL] = options.level
    s[layout.PLAYERS] = options.players
    s[layout.ARMIES_PER] = options.armies_per_player
    s[layout.DEPLOY_RANDOM] = int(options.deployment == "random")
    s[layout.MAX_TURNS] = options.max_turns
    s[layout.ARMY_PLAYER : layout.ARMY_PLAYER + N_COLOURS] = -1
    s[layout.PAWN : layout.PAWN + N_COLOURS] = -1
    s[layout.UNIT_AT : layout.UNIT_AT + N_COLOURS * UNITS_PER_ARMY] = -1
    s[layout.TOP : layout.TOP + N_TRIANGLES + 1] = -1
    s[layout.WHIRLPOOLS : layout.WHIRLPOOLS + N_WHIRLPOOLS] = -1
    s[layout.PLAYER_SECTOR : layout.PLAYER_SECTOR + 6] = -1
    # armies (B1, BD4)
    armies = _dict(d["armies"], "armies")
    per = options.armies_per_player
    for name, player in armies.items():
        c = _colour_index(name, f"armies.{name}")
        s[layout.ARMY_PLAYER + c] = _int(player, f"armies.{name}", 0, options.players - 1)
    for p in range(options.players):
        mine = [c for c in range(N_COLOURS) if s[layout.ARMY_PLAYER + c] == p]
        starts = [c for c in mine if all((c + k) % N_COLOURS in mine for k in range(per))]
        if len(mine) != per or not starts:
            raise _fail("armies", f"player {p} must hold {per} army(ies) in adjacent sectors (BD4)")
        s[layout.PLAYER_SECTOR + p] = starts[0]
    dead = set()
    for i, name in enumerate(_list(d["eliminated_armies"], "eliminated_armies")):
        c = _colour_index(name, f"eliminated_armies[{i}]")
        if s[layout.ARMY_PLAYER + c] < 0:
            raise _fail(f"eliminated_armies[{i}]", f"army {name} is not in the game")
        dead.add(c)
    for c in range(N_COLOURS):
        s[layout.ALIVE + c] = int(s[layout.ARMY_PLAYER + c] >= 0 and c not in dead)
    for rank, p in enumerate(_list(d["eliminated"], "eliminated"), start=1):
        p = _int(p, f"eliminated[{rank - 1}]", 0, options.players - 1)
        if s[layout.OUT_RANK + p] or any(
            s[layout.ALIVE + c] for c in range(N_COLOURS) if s[layout.ARMY_PLAYER + c] == p
        ):
            raise _fail(f"eliminated[{rank - 1}]", f"player {p} is listed twice or still has an army")
        s[layout.OUT_RANK + p] = rank
    for p in range(options.players):
        if not s[layout.OUT_RANK + p] and not any(
            s[layout.ALIVE + c] for c in range(N_COLOURS) if s[layout.ARMY_PLAYER + c] == p
        ):
            raise _fail("eliminated", f"player {p} has no army left and must be listed")
    # terrain (B21, B38)
    for i, name in enumerate(_list(d["terrain"], "terrain")):
        t = _triangle(name, f"terrain[{i}]")
        if options.level < 2 or s[layout.TERRAIN + t]:
            raise _fail(f"terrain[{i}]", "no terrain below level 2 (B21), each triangle once")
        s[layout.TERRAIN + t] = engine.MARKER
    if int((s[layout.TERRAIN : layout.TERRAIN + N_TRIANGLES] == engine.MARKER).sum()) > 9:
        raise _fail("terrain", "at most 9 markers (B21)")
    pools = _list(d["whirlpools"], "whirlpools")
    if len(pools) != (N_WHIRLPOOLS if options.level == 4 else 0):
        raise _fail("whirlpools", "exactly 3 at level 4 (B38), none below")
    for i, name in enumerate(pools):
        t = _triangle(name, f"whirlpools[{i}]")
        if s[layout.TERRAIN + t]:
            raise _fail(f"whirlpools[{i}]", "a triangle holds one marker at most")
        s[layout.TERRAIN + t] = engine.WHIRLPOOL
        s[layout.WHIRLPOOLS + i] = t
    if options.level >= 2 and not engine.connected(
        (s[layout.TERRAIN : layout.TERRAIN + N_TRIANGLES] != 0).astype(np.int8)
    ):
        raise _fail("terrain", "the markers must not cut off part of the battlefield (B21)")
    # units (B1, B7)
    next_unit = [0] * N_COLOURS
    for name, colours in _dict(d["board"], "board").items():
        t = _triangle(name, f"board.{name}")
        if s[layout.TERRAIN + t]:
            raise _fail(f"board.{name}", "no unit stands on terrain (B22) or, outside in_whirlpools, on a whirlpool")
        _stack(s, t, colours, f"board.{name}", next_unit)
    for name, colours in _dict(d["in_whirlpools"], "in_whirlpools").items():
        t = _triangle(name, f"in_whirlpools.{name}")
        if s[layout.TERRAIN + t] != engine.WHIRLPOOL:
            raise _fail(f"in_whirlpools.{name}", "not a whirlpool")
        _stack(s, t, colours, f"in_whirlpools.{name}", next_unit)
    for i, name in enumerate(_list(d["fresh_whirlpools"], "fresh_whirlpools")):
        t = _triangle(name, f"fresh_whirlpools[{i}]")
        if s[layout.TERRAIN + t] != engine.WHIRLPOOL or not s[layout.HEIGHT + t]:
            raise _fail(f"fresh_whirlpools[{i}]", "must be a whirlpool holding units")
        s[layout.FRESH + t] = 1
    # the phase and the turn
    phase = _choice(d["phase"], "phase", layout.PHASES)
    kind = _choice(d["decision"], "decision", layout.DECISION_KINDS)
    s[layout.PHASE] = phase
    s[layout.DEC_KIND] = kind
    allowed = {
        layout.PH_DEPLOY: (layout.DK_DEPLOY,),
        layout.PH_PAWNS: (layout.DK_PAWN,),
        layout.PH_OVER: (layout.DK_NONE,),
    }
    if kind not in allowed.get(phase, tuple(range(3, len(layout.DECISION_KINDS)))):
        raise _fail("decision", f"{d['decision']!r} cannot be pending in phase {d['phase']!r}")
    turn = _dict(d["turn"], "turn")
    for key in TURN_KEYS:
        if key not in turn:
            raise _fail(f"turn.{key}", "missing")
    for key in turn:
        if key not in TURN_KEYS:
            raise _fail(f"turn.{key}", f"unknown field (fields are {', '.join(TURN_KEYS)})")
    transfer = turn["transfer"]
    s[layout.TRANSFER_FROM] = -1
    if kind == layout.DK_TRANSFER:
        transfer = _dict(transfer, "turn.transfer")
        t = _triangle(transfer.get("from"), "turn.transfer.from")
        if s[layout.TERRAIN + t] != engine.WHIRLPOOL:
            raise _fail("turn.transfer.from", "not a whirlpool")
        s[layout.TRANSFER_FROM] = t
        for i, name in enumerate(_list(transfer.get("to"), "turn.transfer.to")):
            w = _triangle(name, f"turn.transfer.to[{i}]")
            if s[layout.TERRAIN + w] != engine.WHIRLPOOL or w == t:
                raise _fail(f"turn.transfer.to[{i}]", "must be another whirlpool")
            s[layout.TRANSFER_TO + w] = 1
        _stack(s, layout.TRANSIT, transfer.get("units"), "turn.transfer.units", next_unit)
    elif transfer is not None:
        raise _fail("turn.transfer", "only during a transfer decision")
    deploying = _dict(d["deploying"], "deploying")
    n_armies = options.players * per
    s[layout.DEPLOY_ARMY] = _int(deploying.get("index"), "deploying.index", 0, n_armies)
    s[layout.DEPLOY_LEFT] = _int(deploying.get("left"), "deploying.left", 0, UNITS_PER_ARMY)
    for c in range(N_COLOURS):
        if s[layout.ARMY_PLAYER + c] >= 0:
            s[layout.REMOVED + c] = UNITS_PER_ARMY - next_unit[c]
    if phase == layout.PH_DEPLOY:
        k = int(s[layout.DEPLOY_ARMY])
        if k >= n_armies or s[layout.DEPLOY_LEFT] < 1:
            raise _fail("deploying", "an army with units still to place")
        for i in range(n_armies):
            c = int(engine.army_of(s, i))
            placed = UNITS_PER_ARMY if i < k else UNITS_PER_ARMY - int(s[layout.DEPLOY_LEFT]) if i == k else 0
            if next_unit[c] != placed:
                raise _fail("board", f"army {COLOURS[c]} must have {placed} units placed at this point (B1, BD6)")
            for t in range(N_TRIANGLES):
                if (
                    s[layout.HEIGHT + t]
                    and (t // 16 != c)
                    and any(s[layout.UNIT_AT + u] == t for u in range(12 * c, 12 * c + 12))
                ):
                    raise _fail("board", f"army {COLOURS[c]} deploys on its own base only (B1)")
            s[layout.REMOVED + c] = 0 if i < k else UNITS_PER_ARMY - placed
    elif phase == layout.PH_PAWNS and not 0 <= s[layout.DEPLOY_ARMY] < n_armies:
        raise _fail("deploying.index", "an army still to place its pawn")
    for t in range(N_TRIANGLES + 1):
        engine.refresh(s, t)
    # supply (B24-B37)
    s[layout.STORE] = _int(d["store"], "store", 0, STORE_TOKENS)
    tokens = _dict(d["tokens"], "tokens")
    for name, n in tokens.items():
        c = _colour_index(name, f"tokens.{name}")
        if s[layout.ARMY_PLAYER + c] < 0:
            raise _fail(f"tokens.{name}", f"army {name} is not in the game")
        s[layout.TOKENS + c] = _int(n, f"tokens.{name}", 0, STORE_TOKENS)
    if int(s[layout.STORE]) + int(s[layout.TOKENS : layout.TOKENS + N_COLOURS].sum()) != STORE_TOKENS:
        raise _fail("tokens", f"the store and the armies' tokens must make {STORE_TOKENS} (B0.6)")
    for name, circle in _dict(d["pawns"], "pawns").items():
        c = _colour_index(name, f"pawns.{name}")
        if s[layout.ARMY_PLAYER + c] < 0 or options.level < 3:
            raise _fail(f"pawns.{name}", "pawns only for armies in the game, from level 3")
        s[layout.PAWN + c] = _int(circle, f"pawns.{name}", 0, N_CIRCLES - 1)
    s[layout.TO_ACT] = -1 if d["to_act"] is None else _int(d["to_act"], "to_act", 0, options.players - 1)
    s[layout.TURNS] = _int(d["turns"], "turns", 0, options.max_turns)
    throw_ = _list(turn["throw"], "turn.throw")
    if len(throw_) != 2:
        raise _fail("turn.throw", "two dice")
    for i in range(2):
        s[layout.DICE + i] = _int(throw_[i], f"turn.throw[{i}]", 0, 6)
    s[layout.TURN_ARMY] = -1
    s[layout.ATTACK_FROM] = s[layout.ATTACK_TO] = s[layout.RETREAT_AT] = -1
    if phase == layout.PH_PLAY:
        s[layout.TURN_PLAYER] = _int(turn["player"], "turn.player", 0, options.players - 1)
        if s[layout.OUT_RANK + s[layout.TURN_PLAYER]]:
            raise _fail("turn.player", "that player is out of the game")
        if turn["army"] is not None:
            c = _colour_index(turn["army"], "turn.army")
            if s[layout.ARMY_PLAYER + c] != s[layout.TURN_PLAYER] or not s[layout.ALIVE + c]:
                raise _fail("turn.army", "an army of the player in the game")
            s[layout.TURN_ARMY] = c
        elif d["decision"] != "army":
            raise _fail("turn.army", "names the army played this turn (B48)")
        s[layout.MODE] = _choice(turn["mode"] or "none", "turn.mode", layout.MODES)
        if (s[layout.MODE] == 2 or d["decision"] == "resupply") and options.level < 3:
            raise _fail("turn.mode", "resupplying starts at level 3 (B26)")
        s[layout.MOVES_LEFT] = _int(turn["moves_left"], "turn.moves_left", 0, 5)
        if (kind in (layout.DK_MOVE, layout.DK_TRANSFER)) != (s[layout.MOVES_LEFT] > 0):
            raise _fail("turn.moves_left", "1..5 during a move or transfer decision, else 0")
        if kind in (layout.DK_MOVE, layout.DK_TRANSFER) and min(throw_) < 1:
            raise _fail("turn.throw", "the throw being played")
        if turn["dislodge"] is not None:
            pair = _list(turn["dislodge"], "turn.dislodge")
            if len(pair) != 2:
                raise _fail("turn.dislodge", "[from, to]")
            a, b = _triangle(pair[0], "turn.dislodge[0]"), _triangle(pair[1], "turn.dislodge[1]")
            if b not in engine.NEIGHBOURS[a]:
                raise _fail("turn.dislodge", "the attacked triangle is next to the attacking stack (B14)")
            s[layout.ATTACK_FROM], s[layout.ATTACK_TO] = a, b
        if kind == layout.DK_RETREAT:
            retreat = _dict(turn["retreat"], "turn.retreat")
            if s[layout.ATTACK_FROM] < 0:
                raise _fail("turn.dislodge", "a retreat follows a dislodge")
            s[layout.RETREAT_AT] = _triangle(retreat.get("at"), "turn.retreat.at")
            s[layout.RETREAT_STEP] = _int(retreat.get("step"), "turn.retreat.step", 0, 2)
            s[layout.RETREAT_N] = _int(retreat.get("n"), "turn.retreat.n", 1, 72)
            at = s[layout.RETREAT_AT]
            short = s[layout.RETREAT_STEP] == 2 and s[layout.RETREAT_N] > s[layout.HEIGHT + at]
            if short or not s[layout.HEIGHT + at] or s[layout.TOP + at] == s[layout.TURN_ARMY]:
                raise _fail("turn.retreat", "the retreating units stand on turn.retreat.at, not the attacker's")
            if s[layout.TO_ACT] != s[layout.ARMY_PLAYER + s[layout.TOP + s[layout.RETREAT_AT]]]:
                raise _fail("to_act", "the owner of the retreating units answers (B16)")
        elif turn["retreat"] is not None:
            raise _fail("turn.retreat", "only during a retreat decision")
        if kind != layout.DK_RETREAT and s[layout.TO_ACT] != s[layout.TURN_PLAYER]:
            raise _fail("to_act", "the player with the dice answers")
    elif kind in (layout.DK_DEPLOY, layout.DK_PAWN) and s[layout.TO_ACT] != s[layout.DEPLOY_ARMY] // per:
        raise _fail("to_act", "the player of the deploying army answers")
    winner = d["winner"]
    if phase == layout.PH_OVER:
        s[layout.WINNER] = layout.UNDECIDED if winner == "undecided" else _int(winner, "winner", 0, options.players - 1)
    elif winner is not None:
        raise _fail("winner", "null while the game goes on")
    else:
        s[layout.WINNER] = -1
    engine.preset_throws(s, check_dice(d["dice"], "record.dice"))
    generator = record_generator(d)
    s[layout.GENERATOR_OF] = GENERATORS.index(generator)
    rng = _int(d["rng"], "rng", 1, 2**32 - 1) if generator == LEGACY_GENERATOR else _int(d["rng"], "rng", 0, 2**64 - 1)
    engine.store_generator(s, rng - 2**64 if rng >= 2**63 else rng)
    code = int(engine.check_invariants(s, np.zeros(engine.LEGAL_CAPACITY, dtype=np.int32)))
    if code and code != engine.I_ANSWERS:
        raise RecordError(f"record: {engine.INVARIANTS[code]}")
    return s, options
