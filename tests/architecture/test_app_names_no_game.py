"""The app (`suntzu_env/play/`) names no game: it finds the games through the registry and each game's face through
its plug-in, so a third game touches none of its files. Its code, page and scripts may speak of the games in prose
(`Sun Tzu`, `Bin'Fa`), never by their names or modules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "suntzu_env" / "play"
# The command line's help shows how to open another game: its examples name one (`python -m suntzu_env.play --help`).
ALLOWED = {
    "__main__.py": (
        "python -m suntzu_env.play --game binfa --players 3 --level 2 --seats 0 --agent heuristic  # another game",
        "python -m suntzu_env.play --game binfa --help            # that game's own flags",
    )
}
NAMED = re.compile(r"binfa|suntzu_env[./]suntzu|suntzu_env[./]binfa|[\"'`/]suntzu[\"'`/]", re.IGNORECASE)


def naming_a_game(folder: Path) -> list[str]:
    """Every line of every file under `folder` that names a game or a game's module: `file:line: text`."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAMED.search(line) and line.strip() not in ALLOWED.get(path.name, ()):
                found.append(f"{path.relative_to(folder)}:{number}: {line.strip()}")
    return found


def test_the_app_names_no_game() -> None:
    assert naming_a_game(APP) == []


@pytest.mark.parametrize(
    "line",
    [
        "from suntzu_env.binfa.web.live import BinFaGame",
        "    import suntzu_env.suntzu.web.view",
        'GAMES = ("suntzu", "binfa")',
        "const url = `/api/binfa/board`;",
        'if (name === "suntzu") return "";',
    ],
)
def test_a_game_named_in_the_app_is_found(tmp_path: Path, line: str) -> None:
    (tmp_path / "module.py").write_text(f"# the app\n{line}\n")
    assert naming_a_game(tmp_path) == [f"module.py:2: {line.strip()}"]
