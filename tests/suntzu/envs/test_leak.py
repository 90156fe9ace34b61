"""R9: a seat's observation and action mask depend only on what that seat may know.

At every decision point of random games (standard and beginner, events off and on), for each seat,
everything the seat may not know is resampled consistently with what it knows (the library's
determinization, `suntzu_env.suntzu.determinize`, the one search uses), and its observation and, when it is the
seat to act, its action mask must stay byte-identical. Each hidden part is resampled so:

- **the opponent's unseen cards**: its hand, its deck, its face-down placed cards (placed, not yet
  revealed) and the cards it drew and has not kept yet are pooled and dealt again into the same places:
  the same hand size, deck length, drawn slots and provinces holding a face-down card. Base cards
  (`1`..`6`) go only to the hand or face down (never to the deck or the drawn cards, R3.2, R4.6), and a
  `6` lies face down only where the rules let it be placed (R4.1, P4: `double_six`). A recycled Plague
  copy (`P*`, R7.1) stays a recycled copy wherever it is dealt (how many the opponent has is public, where
  it is is not), and a face-down `P*` never precedes a never-revealed `P` the side could have placed
  instead (P14).
- **deck orders**: the seat's own deck is shuffled (it knows the contents, not the order), and so is the
  event deck (nobody knows its order); the opponent's deck order is part of the new deal.
- **the opponent's unused warlords**: as many as it holds are drawn from those it has not used (`head_start`
  only during setup, since choosing it spends it; a warlord it is being asked about stays held); the rest
  are unchosen.

A resampled state must pass the engine's invariant checks (I1, card conservation) and leave the opponent's
pending decision, if any, with at least two answers (R10). The test also checks that resampling changes
the state most of the time, that the observation pieces of rules v1 (sixes and Plague copies revealed,
recycled copies, cancelled cards) took non-zero values in the states checked, and that the same check
catches an encoder that leaks the opponent's hand, its face-down cards or where its `P*` is. During the
placement phase either seat may place (R4.1 is simultaneous, `Game.apply_for`), so the games played also
reach states where red has placed face down while blue is still placing, and each seat's own placement
mask must not change either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import pytest
from suntzu_env import Game
from suntzu_env.suntzu import engine
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.determinize import sample_determinization
from suntzu_env.suntzu.layout import DEC_SIDE
from suntzu_env.suntzu.layout import DECK
from suntzu_env.suntzu.layout import DECK_CAPACITY
from suntzu_env.suntzu.layout import DRAWN
from suntzu_env.suntzu.layout import EVENT_DECK
from suntzu_env.suntzu.layout import HAND
from suntzu_env.suntzu.layout import HAND_RECYCLED
from suntzu_env.suntzu.layout import PH_PLACEMENT
from suntzu_env.suntzu.layout import PHASE
from suntzu_env.suntzu.layout import PLACED
from suntzu_env.suntzu.layout import PLACED_RECYCLED
from suntzu_env.suntzu.layout import RECYCLED_PLAGUE
from suntzu_env.suntzu.layout import WARLORD
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.observation import encode_observation
from suntzu_env.suntzu.observation import observation_views
from suntzu_env.suntzu.rules import CARD_PLAGUE
from suntzu_env.suntzu.rules import N_CARD_KINDS
from suntzu_env.suntzu.rules import N_PROVINCES
from suntzu_env.suntzu.rules import N_WARLORDS_PER_SIDE
from suntzu_env.suntzu.rules import SEATS

from helpers import BASE_CARDS
from helpers import expect
from helpers import load
from helpers import make_state
from helpers import place
from helpers import with_hands

NP, NK, NW = N_PROVINCES, N_CARD_KINDS, N_WARLORDS_PER_SIDE
P, P_STAR = CARD_PLAGUE, RECYCLED_PLAGUE  # a never-revealed Plague copy, a recycled one
CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]
GAMES_PER_CONFIG = 12
Encoder = Callable[[np.ndarray, int], np.ndarray]


def encode(s: np.ndarray, side: int) -> np.ndarray:
    out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    encode_observation(s, side, out)
    return out


def mask_of(s: np.ndarray) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    engine.legal_mask(s, mask)
    return mask


def placement_mask_of(s: np.ndarray, side: int) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    engine.placement_mask(s, side, mask)
    return mask


# ---------------------------------------------------------------- resampling what `me` may not know


def resample(s: np.ndarray, me: int, rng: np.random.Generator) -> np.ndarray:
    """A state that `me` cannot tell from `s`: the library's determinization (`suntzu_env.suntzu.determinize`)."""
    return sample_determinization(s, SEATS[me], rng)


# ---------------------------------------------------------------- the check


HIDDEN_PARTS = {  # name: (field, size per side or None for a shared field, whose: "me" or "opp")
    "opponent hand": (HAND, NK, "opp"),
    "opponent deck": (DECK, DECK_CAPACITY, "opp"),
    "opponent drawn cards": (DRAWN, 3, "opp"),
    "opponent face-down cards": (PLACED, NP, "opp"),
    "opponent warlords": (WARLORD, NW, "opp"),
    "own deck order": (DECK, DECK_CAPACITY, "me"),
    "event deck order": (EVENT_DECK, None, "-"),
    "opponent recycled Plague in hand": (HAND_RECYCLED, 1, "opp"),
    "opponent recycled Plague face down": (PLACED_RECYCLED, NP, "opp"),
}
# Only where a recycled Plague copy exists: checked by the scenarios below, not required of random games.
RECYCLED_PARTS = {"opponent recycled Plague in hand", "opponent recycled Plague face down"}
# The observation pieces of rules v1 that random games must exercise (R7.1, R7.4, R5.2); the recycled
# copies' pieces are exercised by the scenarios below.
V1_PIECES = ("sixes_revealed", "plague_copies_revealed", "plague_reveals", "my_cancelled", "opp_cancelled")
RECYCLED_PIECES = ("my_recycled_plagues", "opp_recycled_plagues")


def changed_parts(s: np.ndarray, t: np.ndarray, me: int) -> set[str]:
    """Which hidden parts differ between `s` and its resample `t`."""
    out = set()
    for name, (field, size, whose) in HIDDEN_PARTS.items():
        at = field if size is None else field + (me if whose == "me" else 1 - me) * size
        n = 5 if size is None else size
        if not np.array_equal(s[at : at + n], t[at : at + n]):
            out.add(name)
    return out


class Report(NamedTuple):
    """What `first_leak` found."""

    leak: str | None  # where a resample first changed what a seat sees, None if nowhere
    changed: float  # share of resamples that changed the state
    parts: Counter[str]  # how often each hidden part changed
    pieces: set[str]  # observation pieces that were non-zero in some state checked


def play_at_random(game: Game, rng: np.random.Generator) -> None:
    """One random legal action; during placement, half the time by a seat that is not asked now (R4.1)."""
    if game.state[PHASE] == PH_PLACEMENT and rng.random() < 0.5:
        seats = [seat for seat in ("blue", "red") if game.placement_mask(seat).any()]
        if seats:
            seat = seats[rng.integers(len(seats))]
            answers = np.flatnonzero(game.placement_mask(seat))
            game.apply_for(seat, int(answers[rng.integers(len(answers))]))
            return
    legal = game.legal_actions()
    game.apply(legal[rng.integers(len(legal))])


def first_leak(encoder: Encoder, games: Iterable[tuple[str, Game]], rng_seed: int = 2024) -> Report:
    """Play each named game at random; at every decision point resample what each seat may not know and
    compare its observation, its action mask when asked, and its own placement mask."""
    rng = np.random.default_rng(rng_seed)
    checked = changed = 0
    parts: Counter[str] = Counter()
    pieces: set[str] = set()
    for name, game in games:
        while not game.is_terminal:
            s = game.state
            for me in (0, 1):
                t = resample(s, me, rng)
                checked += 1
                changed += not np.array_equal(s, t)
                parts.update(changed_parts(s, t, me))
                a, b = encoder(s, me), encoder(t, me)
                where = f"{name}, seat {me}, {game.decision}"
                if a.tobytes() != b.tobytes():
                    views_a, views_b = observation_views(a), observation_views(b)
                    diff = [n for n in views_a if not np.array_equal(views_a[n], views_b[n])] or ["(extra)"]
                    return Report(f"{where}: {diff}", 1.0, parts, pieces)
                if s[DEC_SIDE] == me and mask_of(s).tobytes() != mask_of(t).tobytes():
                    return Report(f"{where}: mask", 1.0, parts, pieces)
                if placement_mask_of(s, me).tobytes() != placement_mask_of(t, me).tobytes():
                    return Report(f"{where}: placement mask", 1.0, parts, pieces)
                pieces.update(n for n, v in observation_views(a).items() if v.any())
            play_at_random(game, rng)
    return Report(None, changed / checked, parts, pieces)


def new_games(configs: list[tuple[str, bool]], games: int) -> Iterator[tuple[str, Game]]:
    for variant, events in configs:
        for seed in range(games):
            yield f"{variant}/{events} seed {seed}", Game.new(seed, variant, events)


@pytest.mark.parametrize(("variant", "events"), CONFIGS)
def test_r9_observation_and_mask_ignore_hidden_information(variant: str, events: bool) -> None:
    """R9: resampling the opponent's hand, face-down cards, deck orders and unused warlords changes nothing,
    the v1 pieces (sixes and Plague copies revealed, cancelled cards) included."""
    report = first_leak(encode, new_games([(variant, events)], GAMES_PER_CONFIG))
    assert report.leak is None, f"observation depends on hidden information at {report.leak}"
    assert report.changed > 0.8, f"resampling changed only {report.changed:.0%} of the states: the test is too weak"
    expected = set(HIDDEN_PARTS) - RECYCLED_PARTS
    if variant == "beginner":
        expected.discard("opponent warlords")
    if not events:
        expected.discard("event deck order")
    assert expected <= set(report.parts), f"never resampled: {expected - set(report.parts)}"
    assert set(V1_PIECES) <= report.pieces, f"never non-zero: {set(V1_PIECES) - report.pieces}"


# ---------------------------------------------------------------- recycled Plague copies (`P*`, R7.1, P14)


def recycled_plague_games(games: int) -> Iterator[tuple[str, Game]]:
    """Round 7 records where red has used `recycle_plague`: its `P*` in hand or in its deck, beside its
    never-revealed `P` (R11 v1); blue has revealed one copy and holds the other."""
    for seed in range(games):
        for where in ("hand", "deck"):
            red_hand = [*BASE_CARDS, "7", "9", "+1"] + (["P*"] if where == "hand" else [])
            red_deck = ["10", "P", "-1"] + (["P*"] if where == "deck" else [])
            s = make_state(
                "standard",
                round_=7,
                events=["pandemic", "champion", "hero"],
                blue={"hand": [*BASE_CARDS, "8", "10", "P"], "deck": ["9", "+1", "-1"], "plagues_revealed": 1},
                red={"hand": red_hand, "deck": red_deck, "plagues_revealed": 1, "used": ["recycle_plague"]},
            )
            yield f"P* in red's {where}, play {seed}", load(s)


def test_r9_r7_1_recycled_plague_resampled_consistently() -> None:
    """R9/R7.1/P14: where the opponent's recycled Plague copy lies (hand, deck, drawn, face down) is hidden;
    how many it has is public. Moving it among the unseen places, as a `P*`, changes no observation or mask."""
    report = first_leak(encode, recycled_plague_games(4), rng_seed=7)
    assert report.leak is None, f"observation depends on hidden information at {report.leak}"
    assert set(report.parts) >= RECYCLED_PARTS, f"never resampled: {RECYCLED_PARTS - set(report.parts)}"
    assert set(RECYCLED_PIECES) <= report.pieces, f"never non-zero: {set(RECYCLED_PIECES) - report.pieces}"


def test_leak_check_catches_a_leaky_encoder() -> None:
    """The check above is not vacuous: an encoder that shows the opponent's hand is caught."""

    def leaky(s: np.ndarray, side: int) -> np.ndarray:
        opp = 1 - side
        return np.concatenate([encode(s, side), s[HAND + opp * NK : HAND + (opp + 1) * NK].astype(np.float32)])

    assert first_leak(leaky, new_games(CONFIGS[:1], 2)).leak is not None


def test_leak_check_catches_a_peek_at_face_down_cards() -> None:
    """Also caught: an encoder that shows the opponent's placed cards before their reveal."""

    def peeking(s: np.ndarray, side: int) -> np.ndarray:
        opp = 1 - side
        return np.concatenate([encode(s, side), s[PLACED + opp * NP : PLACED + (opp + 1) * NP].astype(np.float32)])

    assert first_leak(peeking, new_games(CONFIGS[2:3], 2)).leak is not None


def test_leak_check_catches_a_peek_at_the_recycled_plague() -> None:
    """Also caught: an encoder that shows whether the opponent's `P*` is in its hand."""

    def peeking(s: np.ndarray, side: int) -> np.ndarray:
        extra = np.array([s[HAND_RECYCLED + 1 - side]], dtype=np.float32)
        return np.concatenate([encode(s, side), extra])

    assert first_leak(peeking, recycled_plague_games(1), rng_seed=7).leak is not None


# ---------------------------------------------------------------- the v1 pieces' values, worked by hand


def views(g: Game, seat: str) -> dict[str, np.ndarray]:
    return observation_views(g.observation(seat))


def test_r9_r7_1_r7_4_v1_pieces_at_the_start_of_a_round() -> None:
    """R9/R7.1/R7.4: blue has revealed 2 sixes and 1 Plague copy, red 1 six and both copies, one of them
    recycled (`P*`, in red's deck). Blue sees sixes 2/3 and 1/3, copies 1/2 and 2/2, (1 + 2)/4 = 0.75
    toward pandemic, no `P*` of its own and red's one (1/2); red sees the mirror, its `P*` in its deck."""
    s = make_state(
        "standard",
        round_=4,  # two `6`s revealed in rounds 1-3
        blue={"sixes_revealed": 2, "plagues_revealed": 1, "hand": [*BASE_CARDS, "P"]},
        red={"sixes_revealed": 1, "plagues_revealed": 2, "deck": ["+1", "P*"], "used": ["recycle_plague"]},
    )
    g = load(s)
    want = {
        "blue": {
            "sixes_revealed": [2 / 3, 1 / 3],
            "plague_copies_revealed": [0.5, 1.0],
            "plague_reveals": [0.75],
            "my_recycled_plagues": [0.0, 0.0],
            "opp_recycled_plagues": [0.5],
        },
        "red": {
            "sixes_revealed": [1 / 3, 2 / 3],
            "plague_copies_revealed": [1.0, 0.5],
            "plague_reveals": [0.75],
            "my_recycled_plagues": [0.0, 0.5],
            "opp_recycled_plagues": [0.0],
        },
    }
    for seat, pieces in want.items():
        seen = views(g, seat)
        for name, value in pieces.items():
            assert np.allclose(seen[name], value), f"{seat} {name}: {seen[name]} != {value}"
        assert not seen["my_cancelled"].any() and not seen["opp_cancelled"].any()


def test_r9_r5_2_cancelled_cards_once_revealed() -> None:
    """R9/R5.2: round 2, blue (no army on the board against red's 1) picks the order and reveals QIN
    first: its `6` faces red's Plague and is cancelled. At its next choice blue sees its QIN card
    cancelled and red's not; red sees the mirror; no other province is marked."""
    s = make_state(round_=2, red={"armies": [0, 1, 0, 0, 0]})
    blue = ["6", "2", "3", "4", "5"]
    red = ["P", "2", "3", "4", "5"]
    g = load(with_hands(s, blue, red))
    place(g, blue, red)
    expect(g, "reveal", "blue")
    assert not any(views(g, seat)[name].any() for seat in ("blue", "red") for name in ("my_cancelled", "opp_cancelled"))
    g.apply("province:QIN")
    expect(g, "reveal", "blue")
    qin = [1.0, 0.0, 0.0, 0.0, 0.0]
    assert np.array_equal(views(g, "blue")["my_cancelled"], qin)
    assert not views(g, "blue")["opp_cancelled"].any()
    assert np.array_equal(views(g, "red")["opp_cancelled"], qin)
    assert not views(g, "red")["my_cancelled"].any()
