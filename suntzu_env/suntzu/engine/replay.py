"""A battle run again from its start (R5.7): what a battle has set by a given step is the engine's word.

Record validation (`suntzu_env.suntzu.records`) asks here whether a state's battle fields are ones the engine
reaches, so that it holds no step order of its own. `replay_battle(s, p, step)` runs `battle.battle_step`
from the start of province p's battle with what the state shows (the cards, the warlords used, the events
in play, the marker) and tries what it cannot show: which of the used warlords acted in this battle (each
offer answered both ways), which of the events gone this battle applied and in which order, and the armies
in p and in the reserves as the battle began (as the state has them, or none or all of a side's). The
battle matches when a run is where the state is (asking a decision at `step`, or at the battle's or the
game's end) with its battle fields (`battle_fields`) and its queue of army transfers, drained from the head
as `transfers` drains it. Plain Python over the compiled steps: it runs only when a record is loaded."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from suntzu_env.suntzu import layout
from suntzu_env.suntzu.actions import A_PASS, A_USE
from suntzu_env.suntzu.engine.battle import battle_step
from suntzu_env.suntzu.engine.decisions import apply_answer
from suntzu_env.suntzu.engine.transfers import deliver, drop_task
from suntzu_env.suntzu.rules import ARMIES_PER_SIDE, N_EVENTS, N_PROVINCES, N_WARLORDS

NP = N_PROVINCES
ALL = ARMIES_PER_SIDE
# Armies as a battle began, where a state cannot show them: (blue in p, red in p, blue's reserve, red's reserve);
# None keeps the state's own. Each count a battle reads is then as low or as high as it can be.
ARMY_GUESSES = (None, (0, 0, 0, 0), (0, 0, ALL, ALL), (ALL, 0, 0, 0))
QUEUE = -1  # `battle_fields` entry for the transfer queue


def battle_fields(p: int) -> tuple[tuple[int, ...], ...]:
    """The fields a battle in p sets, as groups of state offsets in the order a difference is named
    (QUEUE: the transfer queue)."""
    return (
        (layout.FEINT_ON,),
        (layout.COUNTER_ON,),
        (layout.DEVASTATE_ON,),
        (layout.CANCELLED + p,),
        (layout.CANCELLED + NP + p,),
        (layout.RECYCLED + p,),
        (layout.RECYCLED + NP + p,),
        (layout.BATTLE_WINNER,),
        (layout.BATTLE_OUTCOME + p, layout.BATTLE_MARGIN + p),
        (layout.EVENT_UP, *range(layout.EVENT_DECK, layout.EVENT_DECK + N_EVENTS), layout.EVENT_DECK_LEN),
        (QUEUE,),
        (layout.CHARIOT,),
        (layout.CHARIOT + 1,),
        (layout.ENDING,),
    )


# The groups a battle leaves once later battles have reset the rest: the result and the cancelled cards
# (ranks in `battle_fields`, in the order a difference is named).
RESULT_FIELDS = (8, 3, 4)


@dataclass(frozen=True)
class Guess:
    """What a state cannot show of a battle's start: the events it applied ahead of the face-up card (None:
    for a battle fought before others, a face-up card since gone that did not apply), the armies (see
    ARMY_GUESSES), the marker, each side's deck length where the draw has shortened it since."""

    events: tuple[int, ...] | None = ()
    armies: tuple[int, int, int, int] | None = None
    score: int | None = None
    decks: tuple[int, int] | None = None


def _start(s: np.ndarray, p: int, guess: Guess, cards: tuple[int, int] | None) -> np.ndarray:
    """s as p's battle began: its fields as before any battle step, the used warlords held again (a run
    answers their offers), and the guess; `cards`: the cards fought with there, when not those placed now."""
    t = s.copy()
    for group in battle_fields(p):
        for i in group:
            if (
                i not in (QUEUE, layout.EVENT_UP, layout.EVENT_DECK_LEN)
                and not layout.EVENT_DECK <= i < layout.EVENT_DECK + N_EVENTS
            ):
                t[i] = 0
    t[layout.BATTLE_WINNER] = -1
    t[layout.BATTLE_OUTCOME + p] = layout.BO_NONE
    t[layout.TASKS : layout.TASKS + layout.MAX_TASKS * layout.TASK_SIZE] = 0
    t[layout.TASK_LEN] = 0
    t[layout.WINNER] = -1
    t[layout.PHASE] = layout.PH_BATTLE
    t[layout.BATTLE_PROV] = p
    t[layout.STEP] = layout.BS_FEINT
    if cards is not None:
        t[layout.PLACED + p], t[layout.PLACED + NP + p] = cards
        t[layout.PLACED_RECYCLED + p] = t[layout.PLACED_RECYCLED + NP + p] = 0
    for w in range(N_WARLORDS):
        if t[layout.WARLORD + w] == layout.WL_USED:
            t[layout.WARLORD + w] = layout.WL_HELD
    if guess.events is None:
        t[layout.EVENTS_ON] = 0
    elif guess.events:
        up = int(s[layout.EVENT_UP])
        order = [
            *guess.events,
            *([up] if up >= 0 else []),
            *s[layout.EVENT_DECK : layout.EVENT_DECK + s[layout.EVENT_DECK_LEN]].tolist(),
        ]
        t[layout.EVENT_UP] = order[0]
        t[layout.EVENT_DECK : layout.EVENT_DECK + N_EVENTS] = -1
        t[layout.EVENT_DECK : layout.EVENT_DECK + len(order) - 1] = order[1:]
        t[layout.EVENT_DECK_LEN] = len(order) - 1
    if guess.armies is not None:
        t[layout.ARMIES + p], t[layout.ARMIES + NP + p], t[layout.RESERVE], t[layout.RESERVE + 1] = guess.armies
    if guess.score is not None:
        t[layout.SCORE] = guess.score
    if guess.decks is not None:
        for side in range(2):
            if guess.decks[side] > t[layout.DECK_LEN + side]:  # one more card under the deck: the card fought with
                t[layout.DECK + side * layout.DECK_CAPACITY + t[layout.DECK_LEN + side]] = t[
                    layout.PLACED + side * NP + p
                ]
                t[layout.DECK_LEN + side] += 1
    return t


def _guesses(s: np.ndarray, earlier: bool, scores: tuple[int, ...]) -> Iterator[Guess]:
    """The starts to try: events none, then each ordering of some of those gone (and, `earlier`, a face-up
    card since gone); the armies; the marker as the state has it, or among `scores` (and, `earlier`, on
    either side of 0: a battle reads which side is behind); in the draw, an emptied deck as it stood before."""
    orders: list[tuple[int, ...] | None] = [None] if earlier else []
    orders.append(())
    if s[layout.EVENTS_ON]:
        present = {
            int(s[layout.EVENT_UP]),
            *s[layout.EVENT_DECK : layout.EVENT_DECK + s[layout.EVENT_DECK_LEN]].tolist(),
        }
        gone = [e for e in range(N_EVENTS) if e not in present]
        orders += [order for n in range(1, len(gone) + 1) for order in permutations(gone, n)]
    markers: list[int | None] = [None]
    for v in (*scores, *((-1, 0, 1) if earlier else ())):
        if v != s[layout.SCORE] and v not in markers:
            markers.append(v)
    decks: list[tuple[int, int] | None] = [None]
    if s[layout.PHASE] == layout.PH_DRAW and not (s[layout.DECK_LEN] and s[layout.DECK_LEN + 1]):
        decks.append((1, 1))
    for events in orders:
        for armies in ARMY_GUESSES:
            for score in markers:
                for d in decks:
                    yield Guess(events, armies, score, d)


Stop = tuple[np.ndarray, tuple[int, ...], bool]


def _stops(start: np.ndarray, step: int, used: np.ndarray, in_battle: bool) -> Iterator[Stop]:
    """The states of runs of the battle from `start` at `step`, with the warlords each run used and whether it
    stops there as a state `in_battle` does (asking a decision) or as one past it does (the battle over, or
    the game); a reactive warlord `used` in the state is answered both ways (passed first), war_chariot's
    choice passed."""
    runs: list[tuple[np.ndarray, tuple[int, ...]]] = [(start, ())]
    while runs:
        t, acted = runs.pop()
        while True:
            if t[layout.TASK_LEN] > 0:  # the transfers the last step queued are asked before the next step
                if t[layout.STEP] == step:
                    yield t, acted, in_battle
                while t[layout.TASK_LEN] > 0:
                    drop_task(t)
            if t[layout.WINNER] >= 0 or t[layout.PHASE] != layout.PH_BATTLE:
                if t[layout.STEP] == step:
                    yield t, acted, not in_battle
                break
            if t[layout.STEP] > step:
                break
            if not battle_step(t):
                if (
                    t[layout.STEP] == step
                    and t[layout.TASK_LEN] == 0
                    and t[layout.WINNER] < 0
                    and t[layout.PHASE] == layout.PH_BATTLE
                ):
                    yield t, acted, False  # passes the step without a decision
                continue
            if t[layout.STEP] == step:
                yield t, acted, in_battle
            if t[layout.DEC_KIND] == layout.DK_REACTIVE and used[t[layout.DEC_WARLORD]]:
                u = t.copy()
                w = int(u[layout.DEC_WARLORD])
                apply_answer(u, A_USE)
                runs.append((u, (*acted, w)))
            apply_answer(t, A_PASS)  # war_chariot's warlord too: which one does not change the battle


def _queue_reached(s: np.ndarray, t: np.ndarray) -> bool:
    """s's queue is t's, drained from the head one army at a time."""
    u = t.copy()
    end = layout.TASKS + layout.MAX_TASKS * layout.TASK_SIZE
    while True:
        if u[layout.TASK_LEN] == s[layout.TASK_LEN] and np.array_equal(u[layout.TASKS : end], s[layout.TASKS : end]):
            return True
        if u[layout.TASK_LEN] == 0:
            return False
        deliver(u)


def _queue_difference(s: np.ndarray, t: np.ndarray) -> int:
    """The offset to name where s's queue is not t's drained: its length, or the first entry unlike the
    entry of t's queue it would be (the head may have fewer armies left)."""
    n, m = int(s[layout.TASK_LEN]), int(t[layout.TASK_LEN])
    if n > m or n == 0:
        return layout.TASK_LEN
    for i in range(n):
        for j in range(layout.TASK_SIZE):
            a = int(s[layout.TASKS + i * layout.TASK_SIZE + j])
            b = int(t[layout.TASKS + (m - n + i) * layout.TASK_SIZE + j])
            if a != b and not (i == 0 and j == layout.T_COUNT and 1 <= a < b):
                return layout.TASKS + i * layout.TASK_SIZE + j
    return layout.TASK_LEN


def _differences(s: np.ndarray, t: np.ndarray, p: int, ranks: tuple[int, ...]) -> tuple[int, int, int]:
    """Between s and the run t, over the `ranks` of `battle_fields`: how many differ, how many agree before
    the first that does, and its offset (-1 when all agree)."""
    groups = battle_fields(p)
    misses, agreed, offset = 0, len(ranks), -1
    for n, rank in enumerate(ranks):
        if groups[rank] == (QUEUE,):
            at = -1 if _queue_reached(s, t) else _queue_difference(s, t)
        else:
            at = next((i for i in groups[rank] if s[i] != t[i]), -1)
        if at >= 0:
            misses += 1
            if offset < 0:
                agreed, offset = n, at
    return misses, agreed, offset


@dataclass(frozen=True)
class Replay:
    """A battle replayed: `problem` is None when a run reached the state's fields, else (state offset to name,
    the engine's value there) from the run that came closest (fewest fields differing, then the most agreeing
    before the first that does; STEP when it agrees but stops elsewhere, STEP, -1 when no run gets to the
    step), `misses` its count of differing fields; `acted`: the warlords the matching run used."""

    problem: tuple[int, int] | None
    acted: tuple[int, ...] = ()
    misses: int = 0


def replay_battle(
    s: np.ndarray,
    p: int,
    step: int,
    ranks: tuple[int, ...] | None = None,
    cards: tuple[int, int] | None = None,
    earlier: bool = False,
    scores: tuple[int, ...] = (),
) -> Replay:
    """Whether a battle in p, run from its start, is at `step` where s is (asking a decision in the battle,
    or, s past it, at its end) with s's battle fields (`ranks`: which of `battle_fields`, all by default);
    `cards`: the cards fought with, when not those placed in p now; `earlier`: a battle fought before others
    since (the events and the marker then are guessed too); `scores`: markers it may have been fought
    under besides s's (a scoring since)."""
    ranks = tuple(range(len(battle_fields(p)))) if ranks is None else ranks
    used = np.array([s[layout.WARLORD + w] == layout.WL_USED for w in range(N_WARLORDS)])
    in_battle = bool(s[layout.PHASE] == layout.PH_BATTLE) and not earlier  # else the battle's end is sought
    best: tuple[int, int, int, int] | None = None  # (misses, -agreed, offset, the engine's value there)
    for guess in _guesses(s, earlier, scores):
        for t, acted, there in _stops(_start(s, p, guess, cards), step, used, in_battle):
            misses, agreed, offset = _differences(s, t, p, ranks)
            if offset < 0 and there:
                return Replay(None, acted)
            if offset < 0:  # every field agrees, but the run is not where s is
                misses, agreed, offset = 1, len(ranks), layout.STEP
            if best is None or (misses, -agreed) < best[:2]:
                best = (misses, -agreed, offset, int(t[offset]))
    if best is None:
        return Replay((layout.STEP, -1), misses=len(ranks) + 1)
    return Replay((best[2], best[3]), misses=best[0])
