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

from suntzu_env.suntzu.actions import A_PASS, A_USE
from suntzu_env.suntzu.engine.battle import battle_step
from suntzu_env.suntzu.engine.decisions import apply_answer
from suntzu_env.suntzu.engine.transfers import deliver, drop_task
from suntzu_env.suntzu.layout import (
    ARMIES,
    BATTLE_MARGIN,
    BATTLE_OUTCOME,
    BATTLE_PROV,
    BATTLE_WINNER,
    BO_NONE,
    BS_FEINT,
    CANCELLED,
    CHARIOT,
    COUNTER_ON,
    DEC_KIND,
    DEC_WARLORD,
    DECK,
    DECK_CAPACITY,
    DECK_LEN,
    DEVASTATE_ON,
    DK_REACTIVE,
    ENDING,
    EVENT_DECK,
    EVENT_DECK_LEN,
    EVENT_UP,
    EVENTS_ON,
    FEINT_ON,
    MAX_TASKS,
    PH_BATTLE,
    PH_DRAW,
    PHASE,
    PLACED,
    PLACED_RECYCLED,
    RECYCLED,
    RESERVE,
    SCORE,
    STEP,
    T_COUNT,
    TASK_LEN,
    TASK_SIZE,
    TASKS,
    WARLORD,
    WINNER,
    WL_HELD,
    WL_USED,
)
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
        (FEINT_ON,),
        (COUNTER_ON,),
        (DEVASTATE_ON,),
        (CANCELLED + p,),
        (CANCELLED + NP + p,),
        (RECYCLED + p,),
        (RECYCLED + NP + p,),
        (BATTLE_WINNER,),
        (BATTLE_OUTCOME + p, BATTLE_MARGIN + p),
        (EVENT_UP, *range(EVENT_DECK, EVENT_DECK + N_EVENTS), EVENT_DECK_LEN),
        (QUEUE,),
        (CHARIOT,),
        (CHARIOT + 1,),
        (ENDING,),
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
            if i not in (QUEUE, EVENT_UP, EVENT_DECK_LEN) and not EVENT_DECK <= i < EVENT_DECK + N_EVENTS:
                t[i] = 0
    t[BATTLE_WINNER] = -1
    t[BATTLE_OUTCOME + p] = BO_NONE
    t[TASKS : TASKS + MAX_TASKS * TASK_SIZE] = 0
    t[TASK_LEN] = 0
    t[WINNER] = -1
    t[PHASE] = PH_BATTLE
    t[BATTLE_PROV] = p
    t[STEP] = BS_FEINT
    if cards is not None:
        t[PLACED + p], t[PLACED + NP + p] = cards
        t[PLACED_RECYCLED + p] = t[PLACED_RECYCLED + NP + p] = 0
    for w in range(N_WARLORDS):
        if t[WARLORD + w] == WL_USED:
            t[WARLORD + w] = WL_HELD
    if guess.events is None:
        t[EVENTS_ON] = 0
    elif guess.events:
        up = int(s[EVENT_UP])
        order = [*guess.events, *([up] if up >= 0 else []), *s[EVENT_DECK : EVENT_DECK + s[EVENT_DECK_LEN]].tolist()]
        t[EVENT_UP] = order[0]
        t[EVENT_DECK : EVENT_DECK + N_EVENTS] = -1
        t[EVENT_DECK : EVENT_DECK + len(order) - 1] = order[1:]
        t[EVENT_DECK_LEN] = len(order) - 1
    if guess.armies is not None:
        t[ARMIES + p], t[ARMIES + NP + p], t[RESERVE], t[RESERVE + 1] = guess.armies
    if guess.score is not None:
        t[SCORE] = guess.score
    if guess.decks is not None:
        for side in range(2):
            if guess.decks[side] > t[DECK_LEN + side]:  # one more card under the deck: the card fought with
                t[DECK + side * DECK_CAPACITY + t[DECK_LEN + side]] = t[PLACED + side * NP + p]
                t[DECK_LEN + side] += 1
    return t


def _guesses(s: np.ndarray, earlier: bool, scores: tuple[int, ...]) -> Iterator[Guess]:
    """The starts to try: events none, then each ordering of some of those gone (and, `earlier`, a face-up
    card since gone); the armies; the marker as the state has it, or among `scores` (and, `earlier`, on
    either side of 0: a battle reads which side is behind); in the draw, an emptied deck as it stood before."""
    orders: list[tuple[int, ...] | None] = [None] if earlier else []
    orders.append(())
    if s[EVENTS_ON]:
        present = {int(s[EVENT_UP]), *s[EVENT_DECK : EVENT_DECK + s[EVENT_DECK_LEN]].tolist()}
        gone = [e for e in range(N_EVENTS) if e not in present]
        orders += [order for n in range(1, len(gone) + 1) for order in permutations(gone, n)]
    markers: list[int | None] = [None]
    for v in (*scores, *((-1, 0, 1) if earlier else ())):
        if v != s[SCORE] and v not in markers:
            markers.append(v)
    decks: list[tuple[int, int] | None] = [None]
    if s[PHASE] == PH_DRAW and not (s[DECK_LEN] and s[DECK_LEN + 1]):
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
            if t[TASK_LEN] > 0:  # the transfers the last step queued are asked before the next step
                if t[STEP] == step:
                    yield t, acted, in_battle
                while t[TASK_LEN] > 0:
                    drop_task(t)
            if t[WINNER] >= 0 or t[PHASE] != PH_BATTLE:
                if t[STEP] == step:
                    yield t, acted, not in_battle
                break
            if t[STEP] > step:
                break
            if not battle_step(t):
                if t[STEP] == step and t[TASK_LEN] == 0 and t[WINNER] < 0 and t[PHASE] == PH_BATTLE:
                    yield t, acted, False  # passes the step without a decision
                continue
            if t[STEP] == step:
                yield t, acted, in_battle
            if t[DEC_KIND] == DK_REACTIVE and used[t[DEC_WARLORD]]:
                u = t.copy()
                w = int(u[DEC_WARLORD])
                apply_answer(u, A_USE)
                runs.append((u, (*acted, w)))
            apply_answer(t, A_PASS)  # war_chariot's warlord too: which one does not change the battle


def _queue_reached(s: np.ndarray, t: np.ndarray) -> bool:
    """s's queue is t's, drained from the head one army at a time."""
    u = t.copy()
    end = TASKS + MAX_TASKS * TASK_SIZE
    while True:
        if u[TASK_LEN] == s[TASK_LEN] and np.array_equal(u[TASKS:end], s[TASKS:end]):
            return True
        if u[TASK_LEN] == 0:
            return False
        deliver(u)


def _queue_difference(s: np.ndarray, t: np.ndarray) -> int:
    """The offset to name where s's queue is not t's drained: its length, or the first entry unlike the
    entry of t's queue it would be (the head may have fewer armies left)."""
    n, m = int(s[TASK_LEN]), int(t[TASK_LEN])
    if n > m or n == 0:
        return TASK_LEN
    for i in range(n):
        for j in range(TASK_SIZE):
            a = int(s[TASKS + i * TASK_SIZE + j])
            b = int(t[TASKS + (m - n + i) * TASK_SIZE + j])
            if a != b and not (i == 0 and j == T_COUNT and 1 <= a < b):
                return TASKS + i * TASK_SIZE + j
    return TASK_LEN


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
    used = np.array([s[WARLORD + w] == WL_USED for w in range(N_WARLORDS)])
    in_battle = bool(s[PHASE] == PH_BATTLE) and not earlier  # else the battle's end is sought
    best: tuple[int, int, int, int] | None = None  # (misses, -agreed, offset, the engine's value there)
    for guess in _guesses(s, earlier, scores):
        for t, acted, there in _stops(_start(s, p, guess, cards), step, used, in_battle):
            misses, agreed, offset = _differences(s, t, p, ranks)
            if offset < 0 and there:
                return Replay(None, acted)
            if offset < 0:  # every field agrees, but the run is not where s is
                misses, agreed, offset = 1, len(ranks), STEP
            if best is None or (misses, -agreed) < best[:2]:
                best = (misses, -agreed, offset, int(t[offset]))
    if best is None:
        return Replay((STEP, -1), misses=len(ranks) + 1)
    return Replay((best[2], best[3]), misses=best[0])
