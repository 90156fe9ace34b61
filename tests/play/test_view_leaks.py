"""R9: no view of a game shows what its viewer may not know: text, images, `str`, `repr`.

The hidden information is resampled exactly as in `tests/suntzu/envs/test_leak.py` (the library's determinization:
the opponent's hand, deck, drawn and face-down cards dealt again, deck orders shuffled, the opponent's unused warlords
drawn again). At every decision point of random games (both variants, events off and on):

- a seat's views (`Game.render(seat)`, `render.board_text(..., seat=)`, `render.board_image(..., seat=)`)
  must not change when what that seat may not know is resampled;
- the public views (`str(game)`, `repr(game)`, `Game.render()`, `board_text`, `board_image` without a
  seat, which the environments draw for `render_mode="ansi"`/`"rgb_array"`) must not change when either
  seat's hidden information is resampled, nor both.

The views show the last finished round's cards, which the state keeps (all revealed). Images are slower to
draw, so they are compared at every `IMAGE_EVERY`-th decision point. The check is shown to catch a view
that prints face-down cards (what `Game.render` did before) and one that prints a deck in its order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from suntzu_env import Game
from suntzu_env.suntzu.determinize import sample_determinization
from suntzu_env.suntzu.layout import DECK
from suntzu_env.suntzu.layout import DECK_CAPACITY
from suntzu_env.suntzu.layout import DECK_LEN
from suntzu_env.suntzu.layout import PH_PLACEMENT
from suntzu_env.suntzu.layout import PHASE
from suntzu_env.suntzu.layout import PLACED
from suntzu_env.suntzu.layout import ROUND
from suntzu_env.suntzu.render import board_image
from suntzu_env.suntzu.render import board_text
from suntzu_env.suntzu.rules import CARDS
from suntzu_env.suntzu.rules import N_PROVINCES
from suntzu_env.suntzu.rules import SEATS

CONFIGS = [("standard", False), ("standard", True), ("beginner", False), ("beginner", True)]
GAMES_PER_CONFIG = 4
IMAGE_EVERY = 25
View = Callable[[np.ndarray, int | None], object]


def resample(s: np.ndarray, me: int, rng: np.random.Generator) -> np.ndarray:
    """A state that `me` cannot tell from `s`."""
    return sample_determinization(s, SEATS[me], rng)


def game_at(s: np.ndarray) -> Game:
    """A game over a copy of `s` (checked as a record would be)."""
    return Game(s.copy())


def text_views(s: np.ndarray, seat: int | None) -> dict[str, object]:
    g = game_at(s)
    if seat is None:
        return {"str": str(g), "repr": repr(g), "render()": g.render(), "board_text": board_text(s)}
    return {"render(seat)": g.render(SEATS[seat]), "board_text(seat)": board_text(s, seat)}


def image_views(s: np.ndarray, seat: int | None) -> dict[str, object]:
    return {"board_image": board_image(s, seat).tobytes()}


def first_view_leak(
    views: Callable[[np.ndarray, int | None], dict[str, object]],
    configs: list[tuple[str, bool]],
    games: int,
    every: int = 1,
) -> str | None:
    """Where a resample of what a viewer may not know changes one of its views (None: nowhere)."""
    rng = np.random.default_rng(7)
    for variant, events in configs:
        for seed in range(games):
            game = Game.new(seed, variant, events)
            point = 0
            while not game.is_terminal:
                s = game.state
                if point % every == 0:
                    hidden_from = {0: [resample(s, 0, rng)], 1: [resample(s, 1, rng)]}
                    hidden_from[None] = [*hidden_from[0], *hidden_from[1], resample(hidden_from[0][0], 1, rng)]
                    for seat, others in hidden_from.items():
                        seen = views(s, seat)
                        for t in others:
                            for name, value in views(t, seat).items():
                                if value != seen[name]:
                                    return f"{name} for {seat}: {variant}/{events} seed {seed}, {game.decision}"
                point += 1
                action = game.legal_actions()[rng.integers(len(game.legal_actions()))]
                game.apply(action)
    return None


@pytest.mark.parametrize(
    ("variant", "events"),  # one in the first check, the others with the slow tests (ten seconds each)
    [c if c == ("standard", True) else pytest.param(*c, marks=pytest.mark.slow) for c in CONFIGS],
)
def test_r9_text_views_show_only_what_their_viewer_knows(variant: str, events: bool) -> None:
    """R9: text, str and repr, public and per seat, ignore everything their viewer may not know."""
    leak = first_view_leak(text_views, [(variant, events)], GAMES_PER_CONFIG)
    assert leak is None, f"a view depends on hidden information: {leak}"


def test_r9_images_show_only_what_their_viewer_knows() -> None:
    """R9: the board image, public and per seat, ignores everything its viewer may not know."""
    leak = first_view_leak(image_views, CONFIGS, 1, every=IMAGE_EVERY)
    assert leak is None, f"an image depends on hidden information: {leak}"


def test_view_leak_check_catches_face_down_cards() -> None:
    """The check is not vacuous: the old `Game.render`, which printed every placed card after
    placement, is caught; so is a seat view that lists its deck in order."""

    def old_render(s: np.ndarray, seat: int | None) -> dict[str, object]:
        if s[PHASE] == PH_PLACEMENT:
            return {"old": ""}
        placed = s[PLACED : PLACED + 2 * N_PROVINCES]
        return {"old": " ".join(CARDS[k] if k >= 0 else "." for k in placed)}

    def deck_in_order(s: np.ndarray, seat: int | None) -> dict[str, object]:
        if seat is None:
            return {}
        deck = s[DECK + seat * DECK_CAPACITY : DECK + seat * DECK_CAPACITY + s[DECK_LEN + seat]]
        return {"deck": deck.tolist()}

    assert first_view_leak(old_render, CONFIGS[:1], 1) is not None
    assert first_view_leak(deck_in_order, CONFIGS[:1], 1) is not None


def test_seat_view_shows_the_seats_own_cards() -> None:
    """R9: a seat sees its own face-down cards and hand; the public view shows them as `?`."""
    g = Game.new(0, "beginner", False)
    for card in ("3", "1", "2", "4", "5"):
        g.apply(f"place:{card}")
    blue, public = g.render("blue"), g.render()
    assert "blue face down: QIN 3, CHU 1, JIN-YAN 2, HAN-QI 4, WU 5" in blue
    assert "blue hand:" in blue and "hand:" not in public and "face down" not in public
    assert "red hand:" not in blue
    assert g.state[ROUND] == 1 and " ? / ." in public


@pytest.mark.parametrize("seat", ["green", "Blue", ""])
def test_unknown_seat_is_named(seat: str) -> None:
    """A seat that is not 'blue' or 'red' is a ValueError saying which seats exist."""
    g = Game.new(0)
    for call in (g.render, g.observation, g.placement_mask):
        with pytest.raises(ValueError, match="seat must be one of"):
            call(seat)
    for bad in (0, 1.5, ["blue"]):
        with pytest.raises(TypeError, match="seat must be one of"):
            g.render(bad)  # type: ignore[arg-type]
