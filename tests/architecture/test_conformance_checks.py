"""Each check of the shipped conformance suite (`suntzu_env.testing`) can fail: Duel (`tests/toy_game`), which passes
them all, broken one way per check, makes that check raise a `ConformanceError` naming the game; and
`conformance_test` runs them all and says what it checked."""

from __future__ import annotations

import copy
import dataclasses
import importlib.machinery
import os
import sys
import types
from typing import Any
from typing import Literal

import numpy as np
import pytest
from suntzu_env.core.turn_envs import TurnAECEnv
from suntzu_env.testing import CHECKS
from suntzu_env.testing import ConformanceError
from suntzu_env.testing import NotApplicable
from suntzu_env.testing import conformance_test
from suntzu_env.testing.conformance import leaks

from toy_game import DUEL
from toy_game import SEATS
from toy_game import Duel
from toy_game import DuelOptions
from toy_game import DuelRules


def fails(check: str, rules: Any, what: str) -> None:
    """`CHECKS[check]` on `rules` raises a ConformanceError that names the game and says `what`."""
    with pytest.raises(ConformanceError, match=rf"^duel\b.*{what}"):
        CHECKS[check](rules)


class PatchedDuel(DuelRules):
    """Duel whose games get `patch(game)` applied as they are made."""

    def patch(self, game: Duel) -> None:
        pass

    def new(self, seed: int, options: Any = None) -> Duel:
        game = super().new(seed, options)
        self.patch(game)
        return game


class Float64Duel(PatchedDuel):
    def patch(self, game: Duel) -> None:
        plain = game.observation
        game.observation = lambda seat: plain(seat).astype(np.float64)  # type: ignore[method-assign]


class ShortRecordDuel(DuelRules):
    def replay(self, record: dict[str, Any]) -> Duel:
        return super().replay({**record, "actions": record["actions"][:-1]})


class UnseededDuel(PatchedDuel):
    def patch(self, game: Duel) -> None:
        plain, draws = game.observation, np.random.default_rng()
        game.observation = lambda seat: plain(seat) + np.float32(draws.random())  # type: ignore[method-assign]


class ProcessDuel(PatchedDuel):
    """Shows its process id: another process shows another."""

    def patch(self, game: Duel) -> None:
        plain = game.observation
        game.observation = lambda seat: plain(seat) + np.float32(os.getpid())  # type: ignore[method-assign]


PROCESS_DUEL = ProcessDuel()  # another process loads it from this module


class SpacelessEnv(TurnAECEnv):
    def observation_space(self, agent: str) -> Any:
        from gymnasium import spaces

        return spaces.Dict({"observation": spaces.Box(0, 1, (1,)), "action_mask": spaces.Box(0, 1, (1,))})


class SpacelessDuel(DuelRules):
    def env(self, options: Any = None, *, render_mode: str | None = None) -> Any:
        return SpacelessEnv(self, self.options(options), render_mode=render_mode)


class WrongBatchDuel(DuelRules):
    def batchable(self, agent: Any) -> bool:
        return True

    def play_batched(self, a: Any, b: Any, games: Any, options: Any = None, on_game: Any = None) -> list[Any]:
        return [{"winner": "draw", "score": 0, "record": {}} for _ in games]


class LeakyDuel(PatchedDuel):
    def patch(self, game: Duel) -> None:
        plain = game.observation
        game.observation = lambda seat: plain(seat) + sum(game.pending.values(), 0)  # type: ignore[method-assign]


class MuteEnv(TurnAECEnv):
    """Lists the render mode "ansi" but shows nothing."""

    def render(self) -> None:
        return None


class MuteDuel(DuelRules):
    def env(self, options: Any = None, *, render_mode: str | None = None) -> Any:
        return MuteEnv(self, self.options(options), render_mode=render_mode)


@dataclasses.dataclass(frozen=True)
class LimitedOptions(DuelOptions):
    max_rounds: int = 5


class LimitedDuelGame(Duel):
    """Duel stopped undecided after `max_rounds` rounds."""

    @property
    def current_player(self) -> str | None:
        over = self.round >= min(self.options.cards, self.options.max_rounds)  # type: ignore[attr-defined]
        return None if over else SEATS[len(self.pending)]

    @property
    def winner(self) -> str | None:
        if not self.is_terminal:
            return None
        if self.round < self.options.cards or not self.score:
            return "draw"
        return SEATS[0] if self.score > 0 else SEATS[1]


class LimitedDuel(DuelRules):
    """A turn limit whose games stop undecided, but whose AEC env (`TurnAECEnv`) ends them terminated."""

    options_type = LimitedOptions
    turn_limit_option = "max_rounds"
    no_winner = "undecided"

    def new(self, seed: int, options: Any = None) -> Duel:
        return LimitedDuelGame(self, seed, self.options(options))


class UnpicklableDuel(PatchedDuel):
    def patch(self, game: Duel) -> None:
        game.note = lambda: None  # type: ignore[attr-defined]


class ShallowGame(Duel):
    def __deepcopy__(self, memo: dict[int, Any]) -> Duel:
        return copy.copy(self)  # the copy shares the original's hands and actions


class ShallowDuel(DuelRules):
    def new(self, seed: int, options: Any = None) -> Duel:
        return ShallowGame(self, seed, self.options(options))


class EndlessGame(Duel):
    def apply(self, action: int | str) -> None:
        if not self.is_terminal:
            super().apply(action)


class EndlessDuel(DuelRules):
    def new(self, seed: int, options: Any = None) -> Duel:
        return EndlessGame(self, seed, self.options(options))


@dataclasses.dataclass(frozen=True)
class SeatedOptions(DuelOptions):
    seats: Literal[2, 3] = 2


class SeatedDuel(DuelRules):
    """Says a third seat plays with `seats=3`, but its games ask two."""

    options_type = SeatedOptions
    seats_option = "seats"

    def seats_of(self, options: Any = None) -> tuple[str, ...]:
        return (*SEATS, "east")[: self.options(options).seats]  # type: ignore[attr-defined]


class FakeSpielGame:
    def num_players(self) -> int:
        return 2

    def num_distinct_actions(self) -> int:
        return DUEL.n_actions


class SpielDuel(DuelRules):
    def openspiel_game(self, options: Any = None) -> Any:
        return FakeSpielGame()


class SeatlessBatchDuel(DuelRules):
    """Its batched env answers `get_attr("seat")` with one attribute of its own, not each env's seat."""

    def make_batched_env(self, *args: Any) -> Any:
        venv = super().make_batched_env(*args)
        venv.env_values = lambda name: None
        venv.seat = "somebody"
        return venv


def test_the_toy_game_passes_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    """`conformance_test` runs every check, says each one's outcome and returns them; a check named in `skip` is
    not run, an unknown name is refused. Duel, with the core's adapters, passes every check but more seats (it
    always has two)."""
    outcomes = conformance_test(DUEL, skip=("another_process",))
    assert list(outcomes) == list(CHECKS)
    assert outcomes.pop("another_process") == "skipped"
    assert outcomes.pop("more_seats").startswith("not applicable: duel always has 2 seats")
    assert set(outcomes.values()) == {"passed"}, outcomes
    assert "duel: seeding: passed" in capsys.readouterr().out
    with pytest.raises(ValueError, match="skip: unknown check"):
        conformance_test(DUEL, skip=("no_such_check",))


BROKEN = [
    ("facts_and_options", type("BadLadder", (DuelRules,), {"ladder": (("high", "random", 1.5),)})(), "bar 1.5"),
    ("random_playouts", Float64Duel(), "observation is float64"),
    ("records_replay", ShortRecordDuel(), "replays to another game"),
    ("seeding", UnseededDuel(), "observes other positions"),
    ("another_process", PROCESS_DUEL, "another process gives another observations"),
    ("ecosystem", SpacelessDuel(), "PettingZoo's api_test"),
    ("ecosystem", SeatlessBatchDuel(), r"get_attr\('seat'\) gives \['somebody'"),
    ("batched_play", WrongBatchDuel(), "played another game"),
    ("hidden_information", LeakyDuel(), "sees what it may not know"),
    ("rendering", MuteDuel(), "gave NoneType, not text"),
    ("truncation", LimitedDuel(), "cut by the limit terminated=True"),
    ("pickling", UnpicklableDuel(), r"a pickle round trip of \w+ failed: Can.t pickle"),
    ("pickling", ShallowDuel(), r"copy \(deepcopy\) changed the original"),
    ("after_the_end", EndlessDuel(), "must raise ValueError"),
    ("more_seats", SeatedDuel(), "asked only"),
]


@pytest.mark.parametrize(("check", "rules", "what"), BROKEN, ids=[f"{c}-{type(r).__name__}" for c, r, _ in BROKEN])
def test_a_broken_game_fails_the_check(check: str, rules: Any, what: str) -> None:
    fails(check, rules, what)


def test_the_openspiel_check_fails_when_openspiel_s_simulation_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's `random_sim_test` raising (here a stand-in for pyspiel) fails the check, naming the game."""
    fake = types.ModuleType("pyspiel")
    fake.__spec__ = importlib.machinery.ModuleSpec("pyspiel", None)

    def random_sim_test(game: Any, **kwargs: Any) -> None:
        raise RuntimeError("returns do not sum to zero")

    fake.random_sim_test = random_sim_test  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pyspiel", fake)
    fails("openspiel", SpielDuel(), "random_sim_test: RuntimeError: returns do not sum to zero")


def test_the_leak_check_catches_a_leak() -> None:
    """Duel's first choice of a round is hidden from the other seat; an observation that shows it is caught."""
    assert not leaks(DUEL, range(4))
    assert leaks(LeakyDuel(), range(4))


def test_the_openspiel_check_does_not_apply_without_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where pyspiel is not installed, the OpenSpiel check says so rather than failing."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(NotApplicable, match="pyspiel"):
        CHECKS["openspiel"](SpielDuel())
