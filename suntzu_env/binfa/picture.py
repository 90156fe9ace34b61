"""Bin'Fa's board as a picture (Pillow): the hexagon of triangles, terrain, whirlpools, stacks with their
colours and heights, the supply ring with its pawns, and the armies' tokens."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from suntzu_env.binfa.geometry import (
    CIRCLES_PER_SECTOR,
    COLOUR_FILL,
    COLOURS,
    N_CIRCLES,
    N_COLOURS,
    N_TRIANGLES,
    PER_SECTOR,
    RING_COLOUR,
    ROWS,
    UNITS_PER_ARMY,
    coordinates,
)
from suntzu_env.binfa.layout import (
    ALIVE,
    ARMY_PLAYER,
    DICE,
    HEIGHT,
    LEVEL,
    PAWN,
    STORE,
    TERRAIN,
    TOKENS,
    UNIT_AT,
    UNIT_LEVEL,
)
from suntzu_env.binfa.observation import hidden

RGB = {name: (int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16))
       for name, fill in zip(COLOURS, COLOUR_FILL, strict=True)}  # fmt: skip
RING = 1.1  # the supply ring's radius, in sides of the hexagon


def _tint(rgb: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    r, g, b = rgb
    return (int(r + (255 - r) * amount), int(g + (255 - g) * amount), int(b + (255 - b) * amount))


def triangle_corners(t: int, centre: float, side: float) -> list[tuple[float, float]]:
    """The three corners of triangle `t` in picture coordinates (sector s spans angles 60s-90 .. 60s-30
    degrees, clockwise from the top; row r lies between lattice lines r-1 and r)."""
    s, r, p = coordinates(t)
    unit = side / ROWS
    angle_a = math.radians(60 * s - 120)
    angle_b = math.radians(60 * s - 60)
    a = (unit * math.cos(angle_a), unit * math.sin(angle_a))
    b = (unit * math.cos(angle_b), unit * math.sin(angle_b))

    def q(m: int, k: int) -> tuple[float, float]:
        return (centre + (m - k) * a[0] + k * b[0], centre + (m - k) * a[1] + k * b[1])

    k = p // 2
    if p % 2 == 0:
        return [q(r - 1, k), q(r, k), q(r, k + 1)]
    return [q(r - 1, k), q(r - 1, k + 1), q(r, k + 1)]


def circle_centre(circle: int, centre: float, side: float) -> tuple[float, float]:
    """The centre of supply-ring circle `circle` (B0.4), outside the row-4 triangle it faces."""
    t = PER_SECTOR * (circle // CIRCLES_PER_SECTOR) + (ROWS - 1) ** 2 + circle % CIRCLES_PER_SECTOR
    corners = triangle_corners(t, centre, side)
    cx = sum(x for x, _ in corners) / 3 - centre
    cy = sum(y for _, y in corners) / 3 - centre
    norm = math.hypot(cx, cy)
    return centre + cx / norm * side * RING, centre + cy / norm * side * RING


def board_picture(s: np.ndarray, size: int = 640, viewer: int = -1) -> Any:
    """A PIL image of the position of state `s`, as player `viewer` sees it (-1: all of it; during deployment a
    player sees only its own units, BD6)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (size, size), (250, 248, 240))
    draw = ImageDraw.Draw(image)
    centre = size / 2
    side = size * 0.36
    stacks: dict[int, list[int]] = {}
    for u in range(N_COLOURS * UNITS_PER_ARMY):
        at = int(s[UNIT_AT + u])
        if 0 <= at < N_TRIANGLES and not hidden(s, viewer, at):
            stacks.setdefault(at, [0] * int(s[HEIGHT + at]))[int(s[UNIT_LEVEL + u])] = u // UNITS_PER_ARMY
    for t in range(N_TRIANGLES):
        corners = triangle_corners(t, centre, side)
        sector = t // 16
        fill = _tint(RGB[COLOURS[sector]], 0.78)
        if s[TERRAIN + t] == 1:
            fill = (30, 30, 30)
        draw.polygon(corners, fill=fill, outline=(120, 120, 120))
        cx = sum(x for x, _ in corners) / 3
        cy = sum(y for _, y in corners) / 3
        radius = side / ROWS / 4.2
        if s[TERRAIN + t] == 2:
            for k in range(3):
                rr = radius * (1.2 - 0.35 * k)
                draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], outline=(90, 140, 200), width=2)
        stack = stacks.get(t)
        if stack:
            for i, colour in enumerate(stack[:-1][-3:]):  # covered units: rings under the top
                rr = radius * (1.0 + 0.18 * (min(len(stack) - 1, 3) - i))
                draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], fill=RGB[COLOURS[colour]], outline=(0, 0, 0))
            top = RGB[COLOURS[stack[-1]]]
            draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=top, outline=(0, 0, 0))
            draw.text((cx - 3 * len(str(len(stack))), cy - 6), str(len(stack)), fill=(255, 255, 255))
    if s[LEVEL] >= 3:
        for circle in range(N_CIRCLES):
            x, y = circle_centre(circle, centre, side)
            rr = side / 22
            draw.ellipse([x - rr, y - rr, x + rr, y + rr], fill=RGB[COLOURS[RING_COLOUR[circle]]], outline=(0, 0, 0))
            for c in range(N_COLOURS):
                if s[PAWN + c] == circle:
                    pr = rr * 0.55
                    draw.ellipse(
                        [x - pr, y - pr, x + pr, y + pr], fill=(255, 255, 255), outline=RGB[COLOURS[c]], width=3
                    )
        lines = [f"store {int(s[STORE])}"]
        lines += [
            f"{COLOURS[c]}: {int(s[TOKENS + c])}" for c in range(N_COLOURS) if s[ARMY_PLAYER + c] >= 0 and s[ALIVE + c]
        ]
        draw.text((8, 8), "\n".join(lines), fill=(0, 0, 0))
    draw.text((8, size - 20), f"dice {int(s[DICE])}-{int(s[DICE + 1])}", fill=(0, 0, 0))
    return image
