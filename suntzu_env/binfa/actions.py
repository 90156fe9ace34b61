"""Bin'Fa's flat action space, declared once as named groups (BINFA.md's action strings).

| group      | strings                                  | count                 |
|------------|------------------------------------------|-----------------------|
| `deploy`   | `deploy:<triangle>`                      | 96                    |
| `pawn`     | `pawn:<circle>`, circle 0..41            | 42                    |
| `army`     | `army:<colour>`                          | 6                     |
| `roll`     | `roll`                                   | 1                     |
| `resupply` | `resupply`                               | 1                     |
| `stop`     | `stop`                                   | 1                     |
| `dislodge` | `dislodge:<from>><to>` per directed edge | 264                   |
| `move`     | `move:<from>><to>:<n>`, n = 1..72        | 264 x 72              |
| `transfer` | `transfer:<whirlpool>:<n>`               | 96 x 72               |
| `retreat`  | `retreat:<to>:<n>`                       | 96 x 72               |
| `advance`  | `pawn:+<k>`, k = 1..12                   | 12                    |

`n` counts the units taken from the top of a stack; it reaches 72 because a stack may hold the units it
covered (B7).
"""

from __future__ import annotations

from suntzu_env.binfa import geometry

MAX_N = geometry.N_UNITS  # the largest number of units one action can carry
MAX_ADVANCE = 12  # pawn:+k, k one die or the total (B29)

# The groups the learning action space (`suntzu_env.binfa.encoding`) shares with this one, id for id.
SHARED_GROUPS: tuple[tuple[str, int], ...] = (
    ("deploy", geometry.N_TRIANGLES),
    ("pawn", geometry.N_CIRCLES),
    ("army", geometry.N_COLOURS),
    ("roll", 1),
    ("resupply", 1),
    ("stop", 1),
)
ACTION_GROUPS: tuple[tuple[str, int], ...] = (
    *SHARED_GROUPS,
    ("dislodge", geometry.N_EDGES),
    ("move", geometry.N_EDGES * MAX_N),
    ("transfer", geometry.N_TRIANGLES * MAX_N),
    ("retreat", geometry.N_TRIANGLES * MAX_N),
    ("advance", MAX_ADVANCE),
)


def group_offsets(groups: tuple[tuple[str, int], ...]) -> tuple[dict[str, int], int]:
    """Each group's first id in a flat id space declared as (name, size) groups in order, and the total size."""
    offsets, total = {}, 0
    for name, size in groups:
        offsets[name] = total
        total += size
    return offsets, total


GROUP_OFFSET, N_ACTIONS = group_offsets(ACTION_GROUPS)
A_DEPLOY = GROUP_OFFSET["deploy"]  # + triangle
A_PAWN = GROUP_OFFSET["pawn"]  # + circle
A_ARMY = GROUP_OFFSET["army"]  # + colour
A_ROLL = GROUP_OFFSET["roll"]
A_RESUPPLY = GROUP_OFFSET["resupply"]
A_STOP = GROUP_OFFSET["stop"]
A_DISLODGE = GROUP_OFFSET["dislodge"]  # + edge
A_MOVE = GROUP_OFFSET["move"]  # + edge * MAX_N + n - 1
A_TRANSFER = GROUP_OFFSET["transfer"]  # + whirlpool * MAX_N + n - 1
A_RETREAT = GROUP_OFFSET["retreat"]  # + triangle * MAX_N + n - 1
A_ADVANCE = GROUP_OFFSET["advance"]  # + k - 1

_EDGE_INDEX = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(geometry.EDGE_FROM, geometry.EDGE_TO, strict=True))}
_TRI = {n: i for i, n in enumerate(geometry.TRIANGLE_NAMES)}
HINT = (
    "actions look like 'deploy:red-4-6', 'pawn:3', 'army:red', 'roll', 'resupply', 'stop', "
    "'dislodge:red-2-1>red-2-2', 'move:red-2-1>red-2-2:3', 'transfer:red-3-1:2', 'retreat:red-3-1:2', 'pawn:+5'"
)


def locate(groups: tuple[tuple[str, int], ...], c: int) -> tuple[str, int]:
    """The group of id `c` in a flat id space declared as (name, size) groups in order, and its index there."""
    for name, size in groups:
        if c < size:
            return name, c
        c -= size
    raise ValueError(f"id {c} is past the last group")


def action_to_string(a: int) -> str:
    """The string of action id `a`."""
    if isinstance(a, bool) or not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} is out of range: actions are 0..{N_ACTIONS - 1}")
    group, i = locate(ACTION_GROUPS, int(a))
    if group in ("roll", "resupply", "stop"):
        return group
    if group == "advance":
        return f"pawn:+{i + 1}"
    if group in ("move", "transfer", "retreat"):  # a place, then n = 1..72 units
        i, n = divmod(i, MAX_N)
        return f"{group}:{_place(group, i)}:{n + 1}"
    return f"{group}:{_place(group, i)}"


def _place(group: str, i: int) -> str:
    """What the action of index `i` in `group` names: a circle, an army, an edge or a triangle."""
    if group == "pawn":
        return str(i)
    if group == "army":
        return geometry.COLOURS[i]
    if group in ("dislodge", "move"):
        return f"{geometry.TRIANGLE_NAMES[geometry.EDGE_FROM[i]]}>{geometry.TRIANGLE_NAMES[geometry.EDGE_TO[i]]}"
    return geometry.TRIANGLE_NAMES[i]


def _count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_N:
        raise KeyError(text)
    return int(text)


def _parse(text: str) -> int:
    head, _, rest = text.partition(":")
    if head in ("roll", "resupply", "stop") and not rest and ":" not in text:
        return GROUP_OFFSET[head]
    if head == "deploy":
        return A_DEPLOY + _TRI[rest]
    if head == "army":
        return A_ARMY + geometry.COLOURS.index(rest)
    if head == "pawn":
        if rest.startswith("+"):
            k = rest[1:]
            if not k.isdigit() or not 1 <= int(k) <= MAX_ADVANCE:
                raise KeyError(text)
            return A_ADVANCE + int(k) - 1
        if not rest.isdigit() or not 0 <= int(rest) < geometry.N_CIRCLES:
            raise KeyError(text)
        return A_PAWN + int(rest)
    if head == "dislodge":
        a, b = rest.split(">")
        return A_DISLODGE + _EDGE_INDEX[(_TRI[a], _TRI[b])]
    if head == "move":
        path, n = rest.rsplit(":", 1)
        a, b = path.split(">")
        return A_MOVE + _EDGE_INDEX[(_TRI[a], _TRI[b])] * MAX_N + _count(n) - 1
    if head in ("transfer", "retreat"):
        t, n = rest.rsplit(":", 1)
        return GROUP_OFFSET[head] + _TRI[t] * MAX_N + _count(n) - 1
    raise KeyError(text)


def string_to_action(text: str) -> int:
    """The action id of an action string."""
    try:
        return _parse(text)
    except (KeyError, ValueError):
        raise ValueError(f"unknown action {text!r}: {HINT}") from None
