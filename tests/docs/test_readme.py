"""Every Python snippet of the README and of the documentation site's pages (docs/) runs as written."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest
from suntzu_env import IllegalActionWarning

from conftest import ROOT
from conftest import require

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# (page, code) for every snippet, the page relative to the repository's root
SNIPPETS = [
    (page.relative_to(ROOT).as_posix(), code)
    for page in PAGES
    for code in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.DOTALL)
]
# Libraries of the `clients` extra; a snippet that imports one is a client test. One that imports Ray (the `ray`
# extra) is a Ray test.
CLIENT_LIBRARIES = ("tianshou", "supersuit", "torchrl", "agilerl")
RAY_LIBRARIES = ("ray",)


def client_libraries(code: str, names: tuple[str, ...] = CLIENT_LIBRARIES) -> list[str]:
    return [name for name in names if re.search(rf"^(import|from) {name}\b", code, flags=re.MULTILINE)]


def snippet_params() -> list[object]:
    params = []
    for i, (page, code) in enumerate(SNIPPETS):
        first = code.strip().splitlines()[0]
        marks = [pytest.mark.clients] if client_libraries(code) or "sb3_contrib" in code else []
        marks += [pytest.mark.ray] if client_libraries(code, RAY_LIBRARIES) else []
        params.append(pytest.param(page, code, id=f"{page}:{i}:{first[:40]}", marks=marks))
    return params


def test_the_readme_and_the_pages_have_snippets() -> None:
    pages = {page for page, _ in SNIPPETS}
    assert {"README.md", "docs/clients.md", "docs/suntzu-env.md", "docs/openspiel.md"} <= pages
    assert len(SNIPPETS) >= 12


@pytest.mark.parametrize(("page", "code"), snippet_params())
def test_readme_snippet_runs(
    page: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """As written, and clean: no IllegalActionWarning (but from a plain, unmasked PPO), no error printed by SDL
    when check_env builds the "human" render mode without a screen."""
    for name in client_libraries(code) + client_libraries(code, RAY_LIBRARIES):
        require(name)
    if re.search(r"^import pyspiel\b", code, flags=re.MULTILINE) and not os.environ.get("CI"):
        pytest.importorskip("pyspiel")  # the openspiel extra (CI installs it)
    monkeypatch.chdir(tmp_path)  # whatever a snippet writes lands in a temporary folder
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)  # a machine without a screen, as CI is
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IllegalActionWarning)
        exec(compile(code, page, "exec"), {"__name__": "__main__"})
    unmasked = re.search(r"\bPPO\(", code) is not None  # plain PPO learns the mask from illegal actions' -1
    illegal = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
    assert unmasked or not illegal, illegal[0].message
    err = capfd.readouterr().err
    assert "XDG_RUNTIME_DIR" not in err, err
