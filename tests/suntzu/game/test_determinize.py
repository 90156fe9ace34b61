"""R9: `Game.sample_determinization(seat, rng)` gives full games the seat cannot tell from the real one.

At decisions of every kind, in both variants (events off and on), for the seat asked: a determinized game
shows that seat the same observation and the same legal actions, passes the engine's invariant checks and
the record checks, plays on to the end, and varies in everything hidden (the opponent's cards and
warlords, deck orders). It depends only on what the seat knows: two states the seat cannot tell apart give
the same determinization for the same generator.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from suntzu_env import Game
from suntzu_env.suntzu import engine
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.determinize import rewind_secret_moves
from suntzu_env.suntzu.layout import ARMIES
from suntzu_env.suntzu.layout import DEC_KIND
from suntzu_env.suntzu.layout import DEC_PROV
from suntzu_env.suntzu.layout import DEC_SIDE
from suntzu_env.suntzu.layout import DECISION_KINDS
from suntzu_env.suntzu.layout import DECK
from suntzu_env.suntzu.layout import DECK_CAPACITY
from suntzu_env.suntzu.layout import DECK_LEN
from suntzu_env.suntzu.layout import DK_PLACE
from suntzu_env.suntzu.layout import DK_WARLORD
from suntzu_env.suntzu.layout import DRAWN
from suntzu_env.suntzu.layout import EVENT_DECK
from suntzu_env.suntzu.layout import HAND
from suntzu_env.suntzu.layout import PH_WARLORDS
from suntzu_env.suntzu.layout import PHASE
from suntzu_env.suntzu.layout import PLACE_PROV
from suntzu_env.suntzu.layout import PLACED
from suntzu_env.suntzu.layout import WARLORD
from suntzu_env.suntzu.layout import WL_UNCHOSEN
from suntzu_env.suntzu.rules import N_CARD_KINDS
from suntzu_env.suntzu.rules import N_PROVINCES
from suntzu_env.suntzu.rules import N_WARLORDS_PER_SIDE
from suntzu_env.suntzu.rules import SEATS

CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]
SAMPLES = 6  # determinizations drawn per decision checked
# Decision kinds each variant must reach (R10); the beginner variant has no warlords (R2.2).
KINDS = {
    "standard": {"warlord", "place", "window", "target", "reveal", "reactive", "source", "shortfall", "keep"},
    "beginner": {"place", "reveal", "source", "shortfall", "keep"},
}


def hidden_parts(s: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """What `seat` does not see: the opponent's cards and warlords, its own deck order, the event order."""
    opp = 1 - seat
    return {
        "opponent hand": s[HAND + opp * N_CARD_KINDS : HAND + (opp + 1) * N_CARD_KINDS],
        "opponent deck": s[DECK + opp * DECK_CAPACITY : DECK + (opp + 1) * DECK_CAPACITY],
        "opponent face-down": s[PLACED + opp * N_PROVINCES : PLACED + (opp + 1) * N_PROVINCES],
        "opponent drawn": s[DRAWN + opp * 3 : DRAWN + opp * 3 + 3],
        "opponent warlords": s[WARLORD + opp * N_WARLORDS_PER_SIDE : WARLORD + (opp + 1) * N_WARLORDS_PER_SIDE],
        "own deck order": s[DECK + seat * DECK_CAPACITY : DECK + seat * DECK_CAPACITY + s[DECK_LEN + seat]],
        "event deck order": s[EVENT_DECK : EVENT_DECK + 5],
    }


def decision_games(variant: str, events: bool, games: int = 8) -> dict[str, list[Game]]:
    """Random games' decisions, by kind: a copy of the game at up to 12 decisions of each kind."""
    rng = np.random.default_rng(11)
    found: dict[str, list[Game]] = defaultdict(list)
    for seed in range(games):
        game = Game.new(seed, variant, events)
        while not game.is_terminal:
            kind = game.decision["kind"]
            if len(found[kind]) < 12 and rng.random() < 0.5:
                found[kind].append(game.clone())
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    return found


def play_out_checked(game: Game, rng: np.random.Generator) -> None:
    """Random legal actions to the end, the engine's invariants checked after each."""
    while not game.is_terminal:
        legal = game.legal_actions()
        assert len(legal) >= 2, f"I2: a decision with {len(legal)} answers was asked"
        game.apply(legal[rng.integers(len(legal))])
        code = engine.check_invariants(np.array(game.state))
        assert code == 0, engine.INVARIANTS[code]
    assert game.winner is not None


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
def test_r9_determinization_consistent_and_varied(variant: str, events: bool) -> None:
    """R9, R10: same observation and legal actions for the seat asked, invariants, plays to the end, varies."""
    rng = np.random.default_rng(5)
    games = decision_games(variant, events)
    assert KINDS[variant] <= set(games), f"decision kinds never reached: {KINDS[variant] - set(games)}"
    varied: set[str] = set()
    for kind, states in games.items():
        assert kind in DECISION_KINDS
        for game in states:
            seat = game.current_player
            assert seat is not None
            me = SEATS.index(seat)
            for _ in range(SAMPLES):
                other = game.sample_determinization(seat, rng)  # Game(...) checks it as a record would be
                where = f"{variant}/{events} {game.decision}"
                assert np.array_equal(other.observation(seat), game.observation(seat)), where
                assert np.array_equal(other.legal_mask(), game.legal_mask()), where
                assert np.array_equal(other.placement_mask(seat), game.placement_mask(seat)), where
                assert other.decision == game.decision, where
                assert engine.check_invariants(np.array(other.state)) == 0, where
                before, after = hidden_parts(np.array(game.state), me), hidden_parts(np.array(other.state), me)
                varied.update(name for name in before if not np.array_equal(before[name], after[name]))
                play_out_checked(other, rng)
    expected = set(hidden_parts(np.zeros(1000, dtype=np.int32), 0))
    if variant == "beginner":
        expected.discard("opponent warlords")
    if not events:
        expected.discard("event deck order")
    assert expected <= varied, f"never resampled: {expected - varied}"


@pytest.mark.parametrize(("variant", "events"), CONFIGS[1::2])
def test_r9_determinization_depends_only_on_what_the_seat_knows(variant: str, events: bool) -> None:
    """R9: a state resampled from the seat's view determinizes exactly as the real one, for the same seed."""
    rng = np.random.default_rng(9)
    for states in decision_games(variant, events, games=4).values():
        for game in states:
            seat = game.current_player
            twin = game.sample_determinization(seat, rng)
            for seed in range(3):
                a = game.sample_determinization(seat, seed)
                b = twin.sample_determinization(seat, seed)
                assert np.array_equal(np.array(a.state), np.array(b.state)), game.decision


def test_sample_determinization_is_seeded_and_checks_the_seat() -> None:
    """Deterministic for a seed; a bad seat is refused by name."""
    game = Game.new(3)
    a, b = game.sample_determinization("red", 42), game.sample_determinization("red", 42)
    assert np.array_equal(np.array(a.state), np.array(b.state))
    with pytest.raises(ValueError, match="seat"):
        game.sample_determinization("green", 0)


def test_r4_1_rewinding_blues_secret_placements_for_reds_search() -> None:
    """R4.1, R9: asked to place after blue, red's search puts blue's face-down cards back in blue's hand and has
    blue asked again from its first province; red's own cards and the public board stay as they were."""
    game = Game.new(3)
    rng = np.random.default_rng(0)
    while game.decision["kind"] != "place" or game.current_player != "red":
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    real = np.array(game.state)
    t = np.array(game.sample_determinization("red", 1).state)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    n = rewind_secret_moves(t, 1, mask)
    assert n >= 2 and (t[DEC_KIND], t[DEC_SIDE], t[DEC_PROV]) == (DK_PLACE, 0, 0)
    assert t[PLACE_PROV] == 0 and (t[PLACED : PLACED + N_PROVINCES] == -1).all()
    blue_cards = real[HAND : HAND + N_CARD_KINDS].sum() + N_PROVINCES  # its hand and its five face-down cards
    assert t[HAND : HAND + N_CARD_KINDS].sum() == blue_cards
    red = slice(HAND + N_CARD_KINDS, HAND + 2 * N_CARD_KINDS)
    assert np.array_equal(t[red], real[red])
    assert np.array_equal(t[ARMIES : ARMIES + 2 * N_PROVINCES], real[ARMIES : ARMIES + 2 * N_PROVINCES])
    assert engine.check_invariants(t) == 0


def test_r3_3_rewinding_blues_secret_warlord_for_reds_search() -> None:
    """R3.3, R9: asked its warlord after blue, red's search has blue choose again among its five."""
    game = Game.new(3)
    game.apply(game.legal_actions()[0])
    assert game.decision["kind"] == "warlord" and game.current_player == "red"
    t = np.array(game.sample_determinization("red", 1).state)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    assert rewind_secret_moves(t, 1, mask) == N_WARLORDS_PER_SIDE
    assert (t[DEC_KIND], t[DEC_SIDE]) == (DK_WARLORD, 0)
    assert (t[WARLORD : WARLORD + N_WARLORDS_PER_SIDE] == WL_UNCHOSEN).all()


def test_rewinding_changes_nothing_where_nothing_was_answered_in_secret() -> None:
    """The side asked first, and decisions that are not simultaneous, leave the state as it is (-1)."""
    game = Game.new(3)
    rng = np.random.default_rng(2)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for _ in range(200):
        if game.is_terminal:
            break
        seat = game.current_player
        t = np.array(game.state)
        kind = game.decision["kind"]
        simultaneous = seat == "red" and ((kind == "warlord" and t[PHASE] == PH_WARLORDS) or kind == "place")
        if not simultaneous:
            assert rewind_secret_moves(t, SEATS.index(seat), mask) == -1, game.decision
            assert np.array_equal(t, np.array(game.state))
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
