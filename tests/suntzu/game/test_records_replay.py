"""R11, R5.7: a battle inside a record is checked by the engine itself, run again from the battle's start.

`suntzu_env.suntzu.engine.replay` plays the battle again with what the record shows and tries what it cannot
show (which used warlords acted there, which gone events it applied, the armies it began with); the record
loads only where a run reaches its battle fields and queue at its step. These cases pin what that gives.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from suntzu_env import Game
from suntzu_env.suntzu.records import RecordError

Record = dict[str, Any]


def record_where(until: Callable[[Record], bool], variant: str = "beginner", events: bool = False) -> Record:
    """The record of a random game at its first decision where `until` holds for its record."""
    rng = random.Random(3)
    for seed in range(40):
        g = Game.new(seed, variant, events)
        while g.current_player is not None:
            record = g.to_dict()
            if until(record):
                return record
            g.apply(rng.choice(g.legal_actions()))
    raise AssertionError("no game got there")


def in_battle(record: Record) -> bool:
    return record["phase"] == "battle"


def test_a_flag_no_warlord_could_set_is_refused() -> None:
    """R8: without warlords no battle sets `feint_on`; a record inside a battle that shows it is refused."""
    record = record_where(in_battle)
    Game.from_dict(record)
    record["engine"]["feint_on"] = [1]
    with pytest.raises(RecordError, match=r"^bad game record: engine\.feint_on: not what the engine sets"):
        Game.from_dict(record)


def test_more_armies_owed_than_the_battle_queued_are_refused() -> None:
    """R5.3-R5.6: the head of the queue owes at most what the battle queued (fewer once some have moved)."""
    record = record_where(lambda r: in_battle(r) and r["engine"]["task_len"][0] > 0)
    record["engine"]["tasks"][1] += 5
    with pytest.raises(RecordError, match=r"^bad game record: engine\.tasks\[1\]: not what the engine sets"):
        Game.from_dict(record)


def test_a_queue_at_a_step_that_queues_nothing_is_refused() -> None:
    """R5.7: transfers are asked right after the step that queues them; a step before it is refused."""
    record = record_where(
        lambda r: in_battle(r) and r["engine"]["task_len"][0] > 0 and r["engine"]["battle_winner"][0] >= 0
    )
    record["engine"]["step"] = [record["engine"]["step"][0] - 1]  # the step before the one that queued them
    with pytest.raises(RecordError, match=r"^bad game record: engine\."):
        Game.from_dict(record)


def test_the_last_round_fought_before_the_face_up_event_came_up() -> None:
    """R7.5: two `1`s of the last round tied although light_infantry is face up now: it came up after that
    battle, so the record loads; a margin the two `1`s cannot give is refused, naming the result."""

    def round_start_with_events(r: Record) -> bool:
        return r["round"] == 2 and "engine" not in r and r["events"]["face_up"] is not None

    record = record_where(round_start_with_events, events=True)
    events = record["events"]
    names = [events["face_up"], *events["deck"]]
    if "light_infantry" not in names:
        pytest.skip("light_infantry has gone in this game")
    names.remove("light_infantry")
    events["face_up"], events["deck"] = "light_infantry", names
    p = 0
    for cards in record["last_reveal"].values():  # each side's `1` to p
        q = cards.index("1") if "1" in cards else p
        cards[q], cards[p] = cards[p], "1"
    record["battle_results"] = [None] * 5
    record["battle_results"][p] = {"outcome": "combat", "margin": 0}
    Game.from_dict(record)
    record["battle_results"][p] = {"outcome": "combat", "margin": 2}
    with pytest.raises(RecordError, match=rf"^bad game record: battle_results\[{p}\]"):
        Game.from_dict(record)
