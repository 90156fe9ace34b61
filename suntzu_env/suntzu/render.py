"""Pictures of a game for people: a text board and an RGB image, of the public view or of one seat's (R9).

Without a seat both show what a spectator sees: the marker, the round, each province's values, armies
and six-marks, the cards revealed this round (face-down ones as `?`), pools, card counts, used warlords
and events. Hands, face-down cards, deck orders and unused warlords are never drawn. With `seat` (0 blue,
1 red) they add what that seat knows besides: its own face-down cards, hand, deck contents (not their
order), the cards it drew and its unused warlords; never the opponent's. `tests/play/test_view_leaks.py`
checks every view against resampled hidden information. Until a round's first reveal, the board shows the
cards of the last finished round, which the state keeps (`last_reveal`): all of them were revealed.

Images are drawn with Pillow and shown in a pygame window for `render_mode="human"` (pygame comes with the
`human` extra); both are imported only when a picture is asked for.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

import numpy as np

from suntzu_env.suntzu import layout, rules
from suntzu_env.suntzu.tables import NEXT_SCORING_COLUMN

NP, NK = rules.N_PROVINCES, rules.N_CARD_KINDS


def shown_cards(s: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """(round, cards (2, 5), revealed (5,)) of the reveal to show: this round's, else the last finished one's."""
    revealed = s[layout.REVEALED : layout.REVEALED + NP].astype(bool)
    last = s[layout.LAST_REVEAL : layout.LAST_REVEAL + 2 * NP].reshape(2, NP).astype(np.int64)
    if revealed.any() or (last < 0).all() or s[layout.PHASE] == layout.PH_OVER:
        return int(s[layout.ROUND]), s[layout.PLACED : layout.PLACED + 2 * NP].reshape(2, NP).astype(np.int64), revealed
    return int(s[layout.ROUND]) - 1, last, np.ones(NP, dtype=bool)


# ---------------------------------------------------------------- shared facts


def _card(k: int, shown: bool) -> str:
    if k == -1:
        return "."
    if not shown:
        return "?"
    return rules.CARDS[k]


def _holder(s: np.ndarray, p: int) -> tuple[int, int]:
    """(side or -1, armies) in province p."""
    for side in (0, 1):
        n = int(s[layout.ARMIES + side * NP + p])
        if n:
            return side, n
    return -1, 0


def _status(s: np.ndarray) -> str:
    w = int(s[layout.WINNER])
    if w >= 0:
        return "game over: " + ("draw" if w == 2 else f"{rules.SEATS[w]} wins")
    side = int(s[layout.DEC_SIDE])
    if side < 0:
        return ""
    detail = [layout.DECISION_KINDS[s[layout.DEC_KIND]]]
    if s[layout.DEC_PROV] >= 0:
        detail.append(rules.PROVINCES[s[layout.DEC_PROV]])
    if s[layout.DEC_WARLORD] >= 0:
        detail.append(rules.WARLORD_NAMES[s[layout.DEC_WARLORD]])
    return f"{rules.SEATS[side]} to act: {' '.join(detail)}"


def _used_warlords(s: np.ndarray, side: int) -> list[str]:
    return [
        name
        for j, name in enumerate(rules.WARLORDS[side])
        if s[layout.WARLORD + side * rules.N_WARLORDS_PER_SIDE + j] == layout.WL_USED
    ]


def _side_line(s: np.ndarray, side: int) -> str:
    hand = int(s[layout.HAND + side * NK : layout.HAND + (side + 1) * NK].sum())
    line = (
        f"reserve {int(s[layout.RESERVE + side])}, set aside {int(s[layout.SET_ASIDE + side])}, "
        f"six-mark boxes {int(s[layout.MARKED + side])}, hand {hand}, deck {int(s[layout.DECK_LEN + side])}"
    )
    if s[layout.WARLORDS_ON]:
        used = _used_warlords(s, side)
        line += f", warlords used: {', '.join(used) if used else 'none'}"
    return line


def _events_line(s: np.ndarray) -> str:
    if not s[layout.EVENTS_ON]:
        return ""
    up = int(s[layout.EVENT_UP])
    face_up = rules.EVENTS[up] if up >= 0 else "none"
    return f"event face up: {face_up}, {int(s[layout.EVENT_DECK_LEN])} in the deck"


def _order_line(s: np.ndarray) -> str:
    """Who chooses this round's reveal order (R4.3), once it is fixed, and who held the privilege last."""
    last = f"privilege last held by {_who(int(s[layout.PRIVILEGE]))}"
    if s[layout.PHASE] in (layout.PH_WARLORDS, layout.PH_PLACEMENT):
        return last
    holder = int(s[layout.ORDER_HOLDER])
    return f"reveal order: {rules.SEATS[holder] + ' chooses' if holder >= 0 else 'board order'}; {last}"


def _who(side: int) -> str:
    return rules.SEATS[side] if side >= 0 else "nobody"


def _card_names(s: np.ndarray, entries: Any) -> list[str]:
    """Deck or drawn entries as card names in canonical order (a recycled Plague copy as `P*`)."""
    ids = sorted(int(c) for c in entries if c >= 0)
    return [rules.CARDS[c] if c < NK else rules.RECYCLED_PLAGUE_NAME for c in ids]


def seat_lines(s: np.ndarray, seat: int) -> list[str]:
    """What `seat` knows beyond the public board (R9): hand, own face-down cards, deck contents, drawn
    cards, unused warlords. Deck contents are listed in card order: not even the seat knows its order."""
    name = rules.SEATS[seat]
    hand = s[layout.HAND + seat * NK : layout.HAND + (seat + 1) * NK].astype(np.int64)
    recycled = int(s[layout.HAND_RECYCLED + seat])
    hand[rules.CARD_PLAGUE] -= recycled
    cards = [rules.CARDS[k] for k in range(NK) for _ in range(hand[k])] + [rules.RECYCLED_PLAGUE_NAME] * recycled
    lines = [f"{name} hand: {' '.join(cards) if cards else '(empty)'}"]
    revealed = s[layout.REVEALED : layout.REVEALED + NP]
    if s[layout.PHASE] != layout.PH_DRAW:
        down = [
            f"{rules.PROVINCES[p]} {rules.CARDS[s[layout.PLACED + seat * NP + p]]}"
            for p in range(NP)
            if s[layout.PLACED + seat * NP + p] >= 0 and not revealed[p]
        ]
        if down:
            lines.append(f"{name} face down: {', '.join(down)}")
    deck = _card_names(
        s,
        s[
            layout.DECK + seat * layout.DECK_CAPACITY : layout.DECK
            + seat * layout.DECK_CAPACITY
            + s[layout.DECK_LEN + seat]
        ],
    )
    lines.append(f"{name} deck (order unknown): {' '.join(deck) if deck else '(empty)'}")
    drawn = _card_names(s, s[layout.DRAWN + seat * 3 : layout.DRAWN + seat * 3 + 3])
    if drawn:
        lines.append(f"{name} drew: {' '.join(drawn)}, may keep {int(s[layout.KEEP_LEFT + seat])}")
    if s[layout.WARLORDS_ON]:
        held = [
            w
            for j, w in enumerate(rules.WARLORDS[seat])
            if s[layout.WARLORD + seat * rules.N_WARLORDS_PER_SIDE + j] == layout.WL_HELD
        ]
        lines.append(f"{name} warlords held: {', '.join(held) if held else 'none'}")
    return lines


# ---------------------------------------------------------------- text


def board_text(s: np.ndarray, seat: int | None = None) -> str:
    """The board as text (render mode "ansi"): the public view, or `seat`'s (0 blue, 1 red) view."""
    rnd = int(s[layout.ROUND])
    col = int(NEXT_SCORING_COLUMN[rnd])
    shown_round, cards, revealed = shown_cards(s)
    lines = [
        f"Sun Tzu  round {rnd}/{rules.N_ROUNDS}  {layout.PHASE_NAMES[s[layout.PHASE]]}  "
        f"marker {int(s[layout.SCORE]):+d} (+ toward blue)  "
        f"next scoring: round {rules.SCORING_ROUNDS[col]}",
        f"  {'province':<8}  values 3/6/9  holder armies  marks b/r  cards b/r (round {shown_round})",
    ]
    for p, name in enumerate(rules.PROVINCES):
        values = " ".join(
            f"[{int(s[layout.VALUES + rules.N_SCORINGS * p + i])}]"
            if i == col
            else f" {int(s[layout.VALUES + rules.N_SCORINGS * p + i])} "
            for i in range(rules.N_SCORINGS)
        )
        side, n = _holder(s, p)
        marks = f"{int(s[layout.SIX_MARKS + p])}/{int(s[layout.SIX_MARKS + NP + p])}"
        shown = [bool(revealed[p]) or side == seat for side in (0, 1)]
        duel = f"{_card(int(cards[0, p]), shown[0]):>2} / {_card(int(cards[1, p]), shown[1]):<2}"
        lines.append(f"  {name:<8}  {values:<12}  {_who(side):<6} {n:>6}  {marks:>9}  {duel}".rstrip())
    for side, name in enumerate(rules.SEATS):
        lines.append(f"  {name:<4}  {_side_line(s, side)}")
    for extra in (_order_line(s), _events_line(s)):
        if extra:
            lines.append(f"  {extra}")
    if seat is not None:
        lines += [f"  {line}" for line in seat_lines(s, seat)]
    lines.append(f"  {_status(s)}")
    return "\n".join(lines)


# ---------------------------------------------------------------- image

WIDTH, HEIGHT = 960, 600
HUMAN_EXTRA = 'pip install "suntzu-env[human]"'  # pygame (pygame-ce) for render_mode="human"
PYGAME_MISSING = f'render_mode="human" needs pygame, which the human extra installs: {HUMAN_EXTRA}'


def pygame_installed() -> bool:
    """Whether pygame (or pygame-ce, which installs the same `pygame` package) can be imported."""
    return importlib.util.find_spec("pygame") is not None


COLORS = {
    "paper": (244, 238, 222),
    "ink": (40, 36, 32),
    "faint": (150, 140, 125),
    "box": (232, 222, 198),
    "blue": (40, 90, 190),
    "red": (190, 45, 40),
    "gold": (225, 175, 40),
    "card": (252, 250, 244),
    "back": (120, 100, 80),
    "own": (214, 204, 180),  # a card face down that only the seat drawn for sees
}
SIDE_COLOR = (COLORS["blue"], COLORS["red"])


def _fonts() -> tuple[Any, Any, Any]:
    from PIL import ImageFont

    return ImageFont.load_default(size=22), ImageFont.load_default(size=16), ImageFont.load_default(size=13)


def board_image(s: np.ndarray, seat: int | None = None) -> np.ndarray:
    """The board as an RGB image (H, W, 3) uint8 (render mode "rgb_array"): the public view, or `seat`'s."""
    from PIL import Image, ImageDraw

    big, mid, small = _fonts()
    img = Image.new("RGB", (WIDTH, HEIGHT), COLORS["paper"])
    d = ImageDraw.Draw(img)
    rnd = int(s[layout.ROUND])
    col = int(NEXT_SCORING_COLUMN[rnd])

    title = f"Sun Tzu   round {rnd}/{rules.N_ROUNDS}   {layout.PHASE_NAMES[s[layout.PHASE]]}"
    d.text((20, 14), title, font=big, fill=COLORS["ink"])
    d.text((WIDTH - 20, 18), _status(s), font=mid, fill=COLORS["ink"], anchor="ra")

    # score marker: -9 (red's end) .. +9 (blue's end)
    x0, y0, cell = 100, 56, 40
    d.text((x0 - 10, y0 + 10), "red", font=mid, fill=COLORS["red"], anchor="ra")
    d.text((x0 + 19 * cell + 10, y0 + 10), "blue", font=mid, fill=COLORS["blue"])
    score = int(s[layout.SCORE])
    for i, v in enumerate(range(-rules.MAX_SCORE, rules.MAX_SCORE + 1)):
        box = (x0 + i * cell, y0, x0 + (i + 1) * cell - 3, y0 + 34)
        fill = COLORS["gold"] if v == score else COLORS["box"]
        d.rectangle(box, fill=fill, outline=COLORS["faint"])
        d.text((box[0] + 18, y0 + 17), f"{v:+d}" if v else "0", font=small, fill=COLORS["ink"], anchor="mm")

    # provinces
    shown_round, cards, revealed = shown_cards(s)
    pw, top, ph = 180, 112, 330
    for p, name in enumerate(rules.PROVINCES):
        left = 20 + p * (pw + 8)
        d.rectangle((left, top, left + pw, top + ph), fill=COLORS["box"], outline=COLORS["faint"], width=2)
        d.text((left + pw // 2, top + 16), name, font=mid, fill=COLORS["ink"], anchor="mm")
        for i in range(rules.N_SCORINGS):  # values at the scorings of rounds 3, 6, 9; the next one framed
            cx = left + 30 + i * 60
            label = f"r{rules.SCORING_ROUNDS[i]}: {int(s[layout.VALUES + rules.N_SCORINGS * p + i])}"
            if i == col:
                d.rectangle((cx - 26, top + 32, cx + 26, top + 52), outline=COLORS["ink"])
            d.text((cx, top + 42), label, font=small, fill=COLORS["ink"], anchor="mm")
        side, n = _holder(s, p)
        if side >= 0:  # armies as dots, 7 per row, with the count
            for j in range(n):
                cx, cy = left + 24 + (j % 7) * 20, top + 78 + (j // 7) * 20
                d.ellipse((cx - 7, cy - 7, cx + 7, cy + 7), fill=SIDE_COLOR[side])
            d.text(
                (left + pw // 2, top + 146), f"{n} {rules.SEATS[side]}", font=small, fill=SIDE_COLOR[side], anchor="mm"
            )
        else:
            d.text((left + pw // 2, top + 100), "empty", font=small, fill=COLORS["faint"], anchor="mm")
        for k, other in enumerate((0, 1)):  # six-marks as small squares labelled 6
            marks = int(s[layout.SIX_MARKS + other * NP + p])
            for j in range(marks):
                bx = left + 14 + k * 90 + j * 26
                d.rectangle((bx, top + 164, bx + 20, top + 184), fill=SIDE_COLOR[other])
                d.text((bx + 10, top + 174), "6", font=small, fill=COLORS["card"], anchor="mm")
        for other in (0, 1):  # this round's (or the last round's) cards
            k = int(cards[other, p])
            cx = left + 50 + other * 80
            card_box = (cx - 28, top + 200, cx + 28, top + 280)
            if k == -1:
                d.rectangle(card_box, outline=COLORS["faint"])
                continue
            face_up = bool(revealed[p]) or other == seat
            fill = COLORS["card"] if bool(revealed[p]) and face_up else COLORS["own"] if face_up else COLORS["back"]
            d.rectangle(card_box, fill=fill, outline=SIDE_COLOR[other], width=3)
            d.text((cx, top + 240), rules.CARDS[k] if face_up else "?", font=big, fill=SIDE_COLOR[other], anchor="mm")
        caption = f"cards of round {shown_round}"
        d.text((left + pw // 2, top + 300), caption, font=small, fill=COLORS["faint"], anchor="mm")

    # pools and events
    y = top + ph + 20
    for side, name in enumerate(rules.SEATS):
        d.text((20, y + side * 28), f"{name}: {_side_line(s, side)}", font=mid, fill=SIDE_COLOR[side])
    for i, text in enumerate(t for t in (_order_line(s), _events_line(s)) if t):
        d.text((20, y + 64 + i * 24), text, font=small, fill=COLORS["ink"])
    if seat is not None:  # what only this seat sees, under the public lines
        d.text((WIDTH // 2, y + 60), "\n".join(seat_lines(s, seat)), font=small, fill=SIDE_COLOR[seat], spacing=2)
    elif s[layout.PHASE] == layout.PH_OVER:
        d.text((WIDTH - 20, HEIGHT - 30), _status(s), font=big, fill=COLORS["ink"], anchor="ra")
    return np.asarray(img, dtype=np.uint8)


def _has_screen() -> bool:
    """Whether a window can be shown: on Linux, an X11 or Wayland display is set (elsewhere: assumed so)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanWindow:
    """A pygame window that shows board images (render mode "human")."""

    def __init__(self, fps: float) -> None:
        self.fps = fps
        self._screen: Any = None
        self._clock: Any = None

    def show(self, image: np.ndarray) -> None:
        if not pygame_installed():
            raise ModuleNotFoundError(PYGAME_MISSING)
        import pygame

        if self._screen is None:
            if not _has_screen():  # SDL would try every video driver and print an error for each one
                os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
            pygame.display.init()
            pygame.display.set_caption("Sun Tzu")
            self._screen = pygame.display.set_mode((image.shape[1], image.shape[0]))
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(image.swapaxes(0, 1))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = None
