"""The real browser the page tests drive (`play_helpers.launch_browser`), and where they leave screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import launch_browser, screenshot_folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch_browser() as b:
        yield b


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    return screenshot_folder(tmp_path)
