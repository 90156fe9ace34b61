"""The flat action space (R10), declared once as named groups.

| group      | strings                                  |
|------------|------------------------------------------|
| `place`    | `place:<card>` for every card kind       |
| `recall`   | `recall:<card>` for every non-base kind  |
| `keep`     | `keep:<card>` for every card kind        |
| `province` | `province:<NAME>` in board order         |
| `reserve`  | `reserve`                                |
| `warlord`  | `warlord:<name>`, blue's then red's      |
| `use`      | `use`                                    |
| `pass`     | `pass`                                   |
"""

from __future__ import annotations

from suntzu_env.suntzu.rules import CARDS, N_BASE_CARDS, PROVINCES, WARLORD_NAMES

ACTION_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("place", CARDS),
    ("recall", CARDS[N_BASE_CARDS:]),
    ("keep", CARDS),
    ("province", PROVINCES),
    ("reserve", ("",)),
    ("warlord", WARLORD_NAMES),
    ("use", ("",)),
    ("pass", ("",)),
)


# What each action group means, for the Action Space table; `{}` is the group's name part.
ACTION_MEANINGS: dict[str, str] = {
    "place": "put card `{}` face down against the province being filled (R4.1)",
    "recall": "discard card `{}` from hand to bring one set-aside army back to the reserve (R4.2)",
    "keep": "keep the drawn card `{}` (R4.6)",
    "province": "choose {}: the next battle (R4.3), a warlord's target (R8) or where an army comes from (R5, R7)",
    "reserve": "take the army from the reserve (R5.5, R5.6, R7)",
    "warlord": "choose warlord `{}` (setup R3.3, `war_chariot` R7.4)",
    "use": "use the warlord offered now (R8)",
    "pass": "do not use the warlord offered now (R8), take none for `war_chariot` (R7.4), or leave armies owed "
    "unpaid or unplaced when only a recall could supply them (D14)",
}


def _strings() -> tuple[tuple[str, ...], dict[str, int]]:
    strings: list[str] = []
    offsets: dict[str, int] = {}
    for group, names in ACTION_GROUPS:
        offsets[group] = len(strings)
        strings.extend(f"{group}:{n}" if n else group for n in names)
    return tuple(strings), offsets


ACTION_STRINGS, GROUP_OFFSET = _strings()
N_ACTIONS = len(ACTION_STRINGS)
ACTION_INDEX: dict[str, int] = {s: i for i, s in enumerate(ACTION_STRINGS)}

A_PLACE = GROUP_OFFSET["place"]  # + card id
A_RECALL = GROUP_OFFSET["recall"]  # + card id - N_BASE_CARDS
A_KEEP = GROUP_OFFSET["keep"]  # + card id
A_PROVINCE = GROUP_OFFSET["province"]  # + province index
A_RESERVE = GROUP_OFFSET["reserve"]
A_WARLORD = GROUP_OFFSET["warlord"]  # + warlord id
A_USE = GROUP_OFFSET["use"]
A_PASS = GROUP_OFFSET["pass"]


def action_to_string(action: int) -> str:
    """The R10 string of an action id."""
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action} is out of range: actions are 0..{N_ACTIONS - 1}")
    return ACTION_STRINGS[action]


def string_to_action(text: str) -> int:
    """The action id of an R10 string such as `place:+2` or `province:WU`."""
    try:
        return ACTION_INDEX[text]
    except KeyError:
        raise ValueError(
            f"unknown action {text!r}: actions look like 'place:+2', 'recall:P', 'keep:7', "
            "'province:WU', 'reserve', 'warlord:feint', 'use', 'pass'"
        ) from None
