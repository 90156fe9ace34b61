"""The documentation site's hooks (docs/hooks.py) and its table of contents (mkdocs.yml); CI builds the site."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import pytest
import suntzu_env.suntzu.suntzu_v3

from conftest import ROOT


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = load_hooks()


def test_an_environment_page_is_its_docstring_with_the_page_rows_in_the_spec_table() -> None:
    page = "<!-- docstring: suntzu_env.suntzu.suntzu_v3 -->\n| Versions | `suntzu_v3` |\n\nMore of the page.\n"
    rendered = HOOKS.docstring_page(page)
    assert rendered.startswith("# Sun Tzu\n")
    assert "<!--" not in rendered and rendered.endswith("\nMore of the page.\n")
    spec_table = re.search(r"^\|.*\|\n(?:\|.*\|\n)*", rendered, flags=re.MULTILINE)
    assert spec_table is not None
    rows = spec_table.group(0).splitlines()
    assert rows[0].startswith("| Import |") and rows[-1] == "| Versions | `suntzu_v3` |"
    assert "| Observation Shape | (413,), with an action mask (57,) |" in rows  # the sizes filled in, as help() shows
    assert rendered.count("| Versions |") == 1
    assert HOOKS.docstring_page("no marker here\n") == "no marker here\n"


def test_the_environment_pages_name_the_environments() -> None:
    for page, module in (
        ("suntzu-env.md", "suntzu_env.suntzu.suntzu_v3"),
        ("binfa-env.md", "suntzu_env.binfa.binfa_v3"),
    ):
        assert (ROOT / "docs" / page).read_text().startswith(f"<!-- docstring: {module} -->\n")
    assert suntzu_env.suntzu.suntzu_v3.__doc__ and "## Version History" in suntzu_env.suntzu.suntzu_v3.__doc__


def test_a_docstring_without_a_table_takes_no_rows() -> None:
    with pytest.raises(ValueError, match="no table"):
        HOOKS.with_rows("# A title\n\nNo table.\n", "| Versions | v0 |\n")


def test_the_home_page_is_the_readme_with_site_links() -> None:
    home = HOOKS.included((ROOT / "docs" / "index.md").read_text(), ROOT)
    readme = (ROOT / "README.md").read_text()
    assert "](docs/" in readme and "](docs/" not in home
    assert "](rules.md)" in home and "](img/play.png)" in home
    headings = re.findall(r"^#+ .*$", readme, flags=re.MULTILINE)
    assert headings and headings == re.findall(r"^#+ .*$", home, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("html", "outside"),
    [
        ('<script src="https://cdn.example.org/x.js"></script>', ["https://cdn.example.org/x.js"]),
        (
            "<link rel=stylesheet href=//fonts.googleapis.com/css?family=Roboto>",
            ["//fonts.googleapis.com/css?family=Roboto"],
        ),
        ("<IMG alt='a' SRC='http://example.org/a.png'>", ["http://example.org/a.png"]),
        ('<a href="https://docs.ray.io">Ray</a> <img src="img/play.png"> <script src="assets/x.js">', []),
        ('<link rel="canonical" href="http://127.0.0.1:8000/app/"> <link href="/x.css" rel="stylesheet">', []),
        ('<link href="https://example.org/x.css" rel="stylesheet">', ["https://example.org/x.css"]),
    ],
)
def test_a_page_may_link_anywhere_but_loads_nothing_from_outside(html: str, outside: list[str]) -> None:
    assert HOOKS.external_assets(html) == outside


def test_every_page_is_in_the_table_of_contents() -> None:
    listed = re.findall(r"^\s+- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(listed) == pages
    assert len(listed) == len(set(listed))
