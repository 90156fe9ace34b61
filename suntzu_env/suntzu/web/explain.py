"""The rules in one line each, for the people who play: every card, warlord, event and battle outcome.

Declared once here and served to both front-ends: the page reads them from `GET /api/rules` and from the
views (a decision's answers carry their line, a battle's result says why), the terminal mode prints them.
Each line ends with the ids of the rules it sums up in docs/rules.md, which has the full text.
"""

from __future__ import annotations

from typing import Any

from suntzu_env.suntzu.rules import (
    CARD_BONUS,
    CARD_COST,
    CARD_IS_RELATIVE,
    CARD_NUMBER,
    CARDS,
    EVENTS,
    FEINT_CARD,
    RECYCLED_PLAGUE_NAME,
    WARLORD_NAMES,
    WARLORDS,
)
from suntzu_env.suntzu.tables import BATTLE_DIFF

RULES_DOC = "docs/rules.md"  # the full rules, in the project's source
RULES_PATH = "/rules"  # where the app serves it

WARLORD_TEXT = {  # R8: what each warlord does, from its holder's point of view
    "march": "move one of your armies to a bordering province that is empty or yours",
    "feint": "your 7-10 counts as 6 in this battle (no six-mark)",
    "head_start": "the marker started at +1",
    "recycle_minus_one": "your revealed -1 goes to the bottom of your deck; its top card leaves the game",
    "reinforce": "one army from your reserve to a province you hold",
    "double_six": "you may place your 6 where you already have a six-mark",
    "purge": "one blue army leaves a province for blue's reserve",
    "devastating_plague": "your Plague leaves only one army in the province",
    "counter_plague": "the Plague of this battle counts as a 0",
    "recycle_plague": "your revealed Plague goes to the bottom of your deck; its top card leaves the game",
}
WARLORD_WHEN = {  # R8: when each warlord can act
    "march": "window before or after battles, rounds 1-6",
    "feint": "a battle where blue revealed 7-10",
    "head_start": "setup",
    "recycle_minus_one": "after a battle where blue revealed -1",
    "reinforce": "window before or after battles, rounds 1-6",
    "double_six": "placement",
    "purge": "window before or after battles, rounds 1-6",
    "devastating_plague": "a battle with an active Plague",
    "counter_plague": "a battle with exactly one Plague",
    "recycle_plague": "after a battle where red revealed its Plague",
}
EVENT_TEXT = {  # R7
    "pandemic": "When all four Plague cards have been revealed, each side sets aside 1 army.",
    "war_chariot": "When a side reveals its 6 for the third time, it may take one more warlord.",
    "champion": "A side whose 9 does not win its battle sets aside 1 army.",
    "hero": "A side whose 10 does not win its battle sets aside 2 armies.",
    "light_infantry": "When both sides reveal 1 in a battle, the side behind on the marker wins it by 1.",
}
EVENT_RULE = dict(zip(EVENTS, ("R7.1", "R7.4", "R7.2", "R7.3", "R7.5"), strict=True))


def _card_text(card: str) -> str:
    k = CARDS.index(card)
    if card == "P":
        return ("Plague: no battle; the province's holder takes half its armies (rounded down) back to its reserve, "
                "and the opposing card has no effect (R5.2)")  # fmt: skip
    if CARD_IS_RELATIVE[k]:
        bonus = int(CARD_BONUS[k])
        line = f"worth the opposing card's value {'+' if bonus > 0 else '-'} {abs(bonus)}"
        line += "; against another +k or -1 the larger bonus wins (-1 counts as 0)" if bonus > 0 else \
            ": it loses to any number card by 1"  # fmt: skip
        cost = int(CARD_COST[k])
        rules = "R5.1"
        if cost:
            line += f"; revealing it costs {cost} {'army' if cost == 1 else 'armies'}, set aside"
            rules += ", R5.6"
        return f"{line}; it leaves the game after the round ({rules}, R4.6)"
    n = int(CARD_NUMBER[k])
    if k < 6:
        line = f"worth {n}; a base card, back to your hand after every round"
        extra = {
            1: "; played, it draws 3 cards and keeps 2 at the round's end (R4.6)",
            6: "; revealed, it marks the province: one of your armies goes to its six-mark box for good (R5.5)",
        }
        return line + extra.get(n, " (R5.1, R4.6)")
    line = f"worth {n}; it leaves the game after the round"
    # no warlord named (feint): a seat's view must not name the opponent's unused ones
    if card == "9":
        return line + "; with the champion event, a 9 that does not win costs 1 army (R5.1, R4.6, R7.2)"
    if card == "10":
        return line + "; with the hero event, a 10 that does not win costs 2 armies (R5.1, R4.6, R7.3)"
    return line + " (R5.1, R4.6)"


CARD_TEXT = {card: _card_text(card) for card in CARDS}  # R1.1, R5: what each card does
CARD_TEXT[RECYCLED_PLAGUE_NAME] = "a Plague revealed before and recycled to the deck: the same card again (R7.1)"

OUTCOME_TEXT = {  # R5: how a battle can end
    "win": "the higher value wins by the difference d: the winner adds d armies to the province, or the loser, "
    "if it holds it, takes up to d back to its reserve and the winner adds the rest (R5.1, R5.3)",
    "tie": "equal values: nothing happens (R5.1)",
    "plague": "a Plague: no battle; the province's holder takes half its armies (rounded down) back to its "
    "reserve (R5.2)",
    "devastating_plague": "a Plague with red's devastating plague: the holder takes all but one army back (R5.2, R8)",
    "light_infantry": "both sides revealed 1 with the light infantry event: the side behind on the marker wins "
    "by 1 (R7.5)",
}


def warlord_line(name: str) -> str:
    """A warlord's rule in one line: side, moment, effect."""
    side = "blue" if name in WARLORDS[0] else "red"
    return f"{name.replace('_', ' ')} ({side}, {WARLORD_WHEN[name]}): {WARLORD_TEXT[name]} (R8)"


def action_help(action: str, warlord: str | None = None) -> str | None:
    """The rule behind one answer of a decision (R10): a card's, a warlord's; None when there is nothing to say."""
    group, _, name = action.partition(":")
    if group in ("place", "keep") and name in CARD_TEXT:
        return f"{name}: {CARD_TEXT[name]}"
    if group == "recall":
        return "recall: discard a card that is not a base card, for good, to bring one set-aside army back (R4.2)"
    if group == "warlord" and name in WARLORD_TEXT:
        return warlord_line(name)
    if action == "use" and warlord in WARLORD_TEXT:
        return warlord_line(warlord)
    return None


def _value(card: str, feint: bool, countered: bool) -> tuple[int, str]:
    """A card's engine id as it fights (feint, a countered Plague) and how it reads when that differs."""
    if feint:
        return FEINT_CARD, f"{card} counted as 6 (feint)"
    if card == "P" and countered:
        return CARDS.index(card), "P counted as 0 (counter plague)"
    return CARDS.index(card), card


def battle_why(cards: dict[str, str | None], result: dict[str, Any], warlords: frozenset[str] = frozenset()) -> str:
    """Why a battle ended as it did, in one line: the two cards' values (R5.1) and the outcome's rule.

    `cards` are the two revealed cards by seat, `result` a `describe_result` (winner, by, outcome), `warlords`
    the reactive warlords used in this battle (public once used). A value is spelled out: blue's `+1` against
    red's `10` reads `+1 = 10 + 1 = 11`."""
    outcome = result.get("outcome", "combat")
    if outcome in ("plague", "devastating_plague", "light_infantry"):
        return OUTCOME_TEXT[outcome]
    blue, red = cards.get("blue"), cards.get("red")
    fallback = OUTCOME_TEXT["win" if result.get("winner") else "tie"]
    if blue not in CARDS or red not in CARDS:
        return fallback
    countered = "counter_plague" in warlords
    b, b_text = _value(blue, "feint" in warlords and blue in ("7", "8", "9", "10"), countered)
    r, r_text = _value(red, False, countered)
    margin = int(BATTLE_DIFF[b, r])
    if margin != (result["by"] if result.get("winner") == "blue" else -result["by"]):
        return fallback  # not the cards' values alone: the rule itself
    values = []
    for mine, theirs, text in ((b, r, b_text), (r, b, r_text)):
        bonus = int(CARD_BONUS[mine])
        if CARD_IS_RELATIVE[mine] and not CARD_IS_RELATIVE[theirs]:
            opposing = int(CARD_NUMBER[theirs])
            values.append(f"{text} = {opposing} {'+' if bonus > 0 else '-'} {abs(bonus)} = {opposing + bonus}")
        elif CARD_IS_RELATIVE[mine]:
            values.append(f"{text} (bonus {bonus})" if bonus > 0 else f"{text} (counts as 0 against a bonus)")
        else:
            values.append(text)
    against = f"blue {values[0]} against red {values[1]}"
    if margin == 0:
        return f"{against}: equal values, nothing happens (R5.1)"
    winner = "blue" if margin > 0 else "red"
    return f"{against}: {winner} wins by {abs(margin)} (R5.1; armies move as in R5.3)"


def glossary() -> dict[str, Any]:
    """Every one-line rule, for a front-end: cards, warlords, events, battle outcomes, and where the rules are."""
    return {
        "doc": RULES_DOC,
        "url": RULES_PATH,
        "cards": dict(CARD_TEXT),
        "warlords": {name: warlord_line(name) for name in WARLORD_NAMES},
        "events": {name: f"{EVENT_TEXT[name]} ({EVENT_RULE[name]})" for name in EVENTS},
        "outcomes": dict(OUTCOME_TEXT),
    }


def glossary_lines() -> list[str]:
    """The glossary as text lines (the terminal's `rules` command)."""
    g = glossary()
    lines = ["Cards:"] + [f"  {card:>3}  {text}" for card, text in g["cards"].items()]
    lines += ["Warlords:"] + [f"  {text}" for text in g["warlords"].values()]
    lines += ["Events (with event cards on):"] + [f"  {name}: {text}" for name, text in g["events"].items()]
    lines += ["Battles:"] + [f"  {name}: {text}" for name, text in g["outcomes"].items()]
    lines.append(f"The full rules, with every id cited here: {RULES_DOC}")
    return lines
