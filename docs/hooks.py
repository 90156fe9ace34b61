"""MkDocs hooks: pages that show what the repository already holds, so that nothing is written twice.

A page line `<!-- docstring: suntzu_env.suntzu.suntzu_v3 -->` is replaced by that module's docstring (sizes filled in),
the reference `help()` prints; the table rows (`| ... |`) right below the line are added to the docstring's first
table, the spec table. A line `<!-- include: README.md -->` is replaced by that file of the repository's root, its
links into `docs/` made links within the site (the home page is the README).

Every page is checked once built: it may link anywhere, but loads nothing from outside the site (no script,
stylesheet, font, picture or frame from another address), so `python -m mkdocs serve` works offline.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- docstring: ([\w.]+) -->\n((?:\|.*\|\n)*)", flags=re.MULTILINE)
INCLUDE = re.compile(r"^<!-- include: ([\w.-]+) -->$", flags=re.MULTILINE)
# A tag that makes the browser fetch what it names, and the address it names when that is another site's
# (http:, https: or //host). A <link> whose rel only names a page (canonical, alternate, prev, ...) fetches nothing.
LOADING_TAG = re.compile(
    r"<(?:script|link|img|iframe|source|audio|video|embed|object|track|input)\b[^>]*>", re.IGNORECASE
)
EXTERNAL = re.compile(r"\b(?:src|href|srcset|data|poster)\s*=\s*[\"']?((?:https?:)?//[^\"'\s>]+)", re.IGNORECASE)
PAGE_LINK = re.compile(
    r"^<link\b[^>]*\brel\s*=\s*[\"']?(?:canonical|alternate|prev|next|author|license|help)\b", re.IGNORECASE
)


def with_rows(doc: str, rows: str) -> str:
    """`doc` with `rows` appended to its first table."""
    if not rows:
        return doc
    first_table = re.search(r"^\|.*\|\n(?:\|.*\|\n)*", doc, flags=re.MULTILINE)
    if first_table is None:
        raise ValueError("the docstring has no table to add the rows to")
    return doc[: first_table.end()] + rows + doc[first_table.end() :]


def docstring_page(markdown: str) -> str:
    """`markdown` with every docstring marker replaced by its module's docstring."""

    def replace(match: re.Match[str]) -> str:
        doc = importlib.import_module(match.group(1)).__doc__
        if not doc:
            raise ValueError(f"{match.group(1)} has no docstring")
        return with_rows(doc.strip() + "\n", match.group(2))

    return MARKER.sub(replace, markdown)


def included(markdown: str, root: Path) -> str:
    """`markdown` with every include marker replaced by that file of `root`, its `docs/` links made site links."""
    return INCLUDE.sub(lambda match: (root / match.group(1)).read_text().replace("](docs/", "]("), markdown)


def on_page_markdown(markdown: str, config: Any, **kwargs: Any) -> str:
    return docstring_page(included(markdown, Path(config["config_file_path"]).parent))


def external_assets(html: str) -> list[str]:
    """The addresses outside the site that `html` loads (plain links `<a href>` are not loads)."""
    tags = (tag for tag in LOADING_TAG.findall(html) if not PAGE_LINK.match(tag))
    return [address for tag in tags for address in EXTERNAL.findall(tag)]


def on_post_page(output: str, page: Any, **kwargs: Any) -> str:
    from mkdocs.exceptions import PluginError

    if outside := external_assets(output):
        raise PluginError(f"{page.file.src_uri} loads {outside[0]} from outside the site: serve it from docs/")
    return output
