"""Bin'Fa invariants in random play: hundreds of compiled games across levels and player counts, the state
checked after every decision (`suntzu_env.binfa.engine.INVARIANTS`): units conserved per army until
captured or lost, stacks consistent with their units and colours, tokens conserved between store and
armies, no unit on terrain, no surrounded stack left (encirclement applied whenever it holds), eliminated
armies off the board, pawns, and two answers or more per decision.

A million games, every configuration spread by seed, run with `python -m suntzu_env.binfa.invariants --games
1000000 --workers 2`; the tests below run that command on a few games.
"""

from __future__ import annotations

import numpy as np
import pytest
from suntzu_env.binfa import invariants
from suntzu_env.binfa.engine import I_SURROUNDED
from suntzu_env.binfa.engine import INVARIANTS
from suntzu_env.binfa.invariants import CONFIGURATIONS
from suntzu_env.binfa.invariants import configuration
from suntzu_env.binfa.invariants import replay
from suntzu_env.binfa.invariants import run_seeds
from suntzu_env.binfa.playouts import CONFIGS
from suntzu_env.binfa.playouts import play


@pytest.mark.parametrize("level", [1, 2, 3, 4])
@pytest.mark.parametrize(("players", "armies"), CONFIGS)
def test_invariants_random_play(level: int, players: int, armies: int):
    for patient in (False, True):
        out = play(6, 100 * level + players, level, players, armies, check=True, patient=patient, max_turns=120)
        broken = [INVARIANTS[int(c)] for c in out[:, 3] if c]
        assert not broken, broken[0]
        assert (out[:, 1] > 0).all()


def test_patient_games_end():
    """Sanity of the sweep: patient random players do capture and eliminate (some games are decided; at level 4,
    through the whirlpools, most are)."""
    out = play(6, 7, 4, 2, 1, check=True, patient=True)
    assert (out[:, 3] == 0).all()
    assert (out[:, 0] < 6).any()


def test_invariants_command_every_configuration(capsys: pytest.CaptureFixture[str]):
    """The sweep command on one short game of every configuration (level, players, armies, deployment, players'
    play): a row each in its table, no violation, exit code 0."""
    k = len(CONFIGURATIONS)
    assert invariants.main(["--games", str(k), "--max-turns", "6", "--chunk", "40", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n| ") == k + 1  # a row per configuration, and the total
    assert f"| all | | | | | {k} |" in out and "VIOLATION" not in out
    assert {(c.level, c.players, c.armies) for c in CONFIGURATIONS} == {
        (level, p, a) for level in (1, 2, 3, 4) for p, a in CONFIGS
    }


def test_replay_plays_the_same_game():
    """`--replay SEED` goes through `Game.new(seed, ...)` and the random players' answers: the game the compiled
    sweep played (its decisions, turns and winner), its invariants holding."""
    rows = run_seeds(200, 6, max_turns=20)
    for k, row in enumerate(rows):
        game, answers, code, at = replay(200 + k, max_turns=20)
        c = configuration(200 + k)
        assert game.options.level == c.level and game.options.players == c.players
        assert (len(answers), game.turns, code, at) == (row[1], row[2], 0, -1)
        assert game.is_terminal and game.winner == ("undecided" if row[0] == 6 else row[0])


def test_a_violation_names_its_seed_and_decision(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """A broken invariant makes the command fail (exit code 1), naming the seed, the decision and the invariant,
    with the `Game.new` call and the command that replay it."""

    def broken(first: int, n: int, max_turns: int = 300) -> np.ndarray:
        rows = np.zeros((n, 5), dtype=np.int64)
        rows[:, 0], rows[:, 4] = 6, -1
        if first <= 9 < first + n:
            rows[9 - first, 3:] = I_SURROUNDED, 17
        return rows

    monkeypatch.setattr(invariants, "run_seeds", broken)
    assert invariants.main(["--games", "20", "--chunk", "5"]) == 1
    out = capsys.readouterr().out
    c = configuration(9)
    assert f"VIOLATION game seed 9 after decision 17: {INVARIANTS[I_SURROUNDED]}" in out
    assert f"Game.new(9, level={c.level}, players={c.players}" in out and "--replay 9" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--games", "0"], "--games must be at least 1, got 0"), (["--workers", "0"], "--workers must be at least 1")],
)
def test_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as stop:
        invariants.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
