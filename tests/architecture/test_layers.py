"""The layers of `docs/architecture.md`, read from its table: every import of every module of `suntzu_env`, `agents`
and `experiments`, read from the source (inside functions and `TYPE_CHECKING` blocks too, relative imports
resolved, a package's `__init__` counted as the module it is, and the package `__init__`s Python runs for an import
counted as imported), goes to the importer's own row of the table or a row above it; no game imports another and
the core imports no game, however indirectly; and the graph has no cycle. Players reach the package's
environments by name through the registries (`suntzu_env.core.players`), which find the kinds `agents` adds
through the entry points `pyproject.toml` declares, not through an import.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("suntzu_env", "agents", "experiments")
# Cycles that are known and owned elsewhere; each must still exist (so the list only shrinks).
KNOWN_CYCLES: tuple[frozenset[str], ...] = ()

Edge = tuple[str, str, int]  # importer, imported, line


def modules(root: Path, packages: Iterable[str]) -> dict[str, tuple[Path, bool]]:
    """Every module under the packages: its dotted name -> (file, whether it is a package's `__init__`)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _known(name: str, known: dict[str, tuple[Path, bool]]) -> str | None:
    """The module of ours that importing `name` runs last: `name` itself or the nearest package above it."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_edges(root: Path, packages: Iterable[str]) -> tuple[dict[str, tuple[Path, bool]], list[Edge]]:
    """The modules and every import between them: `import a.b`, `from a import b` (the submodule `a.b` where
    there is one, else the package `a`), relative imports, and `importlib.import_module("a.b")` /
    `__import__("a.b")` with a literal name, wherever they stand in the file."""
    known = modules(root, packages)
    edges: list[Edge] = []
    for name, (path, is_package) in known.items():
        here = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                    targets = [node.args[0].value]
            for target in targets:
                mine = _known(target, known)
                if mine is not None and mine != name:
                    edges.append((name, mine, node.lineno))
    return known, edges


def cycles(nodes: Iterable[str], edges: Iterable[Edge]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for a, b, _ in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


ARCHITECTURE = ROOT / "docs" / "architecture.md"
CORE = "suntzu_env.core"
GAME_FREE = (CORE, "suntzu_env.testing")  # the core, and the conformance suite that takes a game as an argument


def layer_table(text: str) -> list[tuple[str, list[str]]]:
    """The rows of the table `| layer | modules | holds |`: each layer's name and the paths its modules column
    names (files, or folders ending in `/`), top row first."""
    rows, inside = [], False
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[:2] == ["layer", "modules"]:
            inside = True
            continue
        if inside and line.startswith("|---"):
            continue
        if inside and not line.startswith("|"):
            break
        if inside:
            rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return rows


def layer_of(known: dict[str, tuple[Path, bool]], root: Path, table: list[tuple[str, list[str]]]) -> dict[str, int]:
    """Each module's row in the table: its file's own entry, else the deepest folder entry that holds it."""
    rows: dict[str, int] = {}
    for name, (path, _) in known.items():
        relative = path.relative_to(root).as_posix()
        best: tuple[int, int] | None = None  # (specificity, row)
        for row, (_, paths) in enumerate(table):
            for entry in paths:
                if relative == entry:
                    best = (10_000, row)
                elif entry.endswith("/") and relative.startswith(entry) and (best is None or len(entry) > best[0]):
                    best = (len(entry), row)
        if best is not None:
            rows[name] = best[1]
    return rows


def game_folders() -> set[str]:
    """The games' packages, from the registry's declaration (`suntzu_env.core.games`): `suntzu_env.suntzu`, ..."""
    from suntzu_env.core import games

    return {".".join(target.partition(":")[0].split(".")[:2]) for target in games._BUILT_IN.values()}


def game_of(module: str, games: set[str]) -> str | None:
    return next((game for game in games if module == game or module.startswith(game + ".")), None)


def with_parents(known: dict[str, tuple[Path, bool]], edges: Iterable[Edge]) -> list[Edge]:
    """The edges, and for each the package `__init__`s Python runs to import either end (`a.b.c` runs `a` and
    `a.b`): importing a module of a package runs the package's `__init__` first."""
    out = []
    for a, b, line in edges:
        out.append((a, b, line))
        for end in (a, b):
            parts = end.split(".")
            for k in range(1, len(parts)):
                parent = ".".join(parts[:k])
                if parent in known and parent != a:
                    out.append((a, parent, line))
    return list(dict.fromkeys(out))


def broken_rules(
    known: dict[str, tuple[Path, bool]], edges: list[Edge], rows: dict[str, int], table: list[tuple[str, list[str]]]
) -> list[str]:
    """Every import that breaks a rule: a row below the importer's, a game importing another, the core importing a
    game (directly or through the modules it imports), a module the table does not list."""
    games = game_folders()
    wrong = [f"{name} is in no row of docs/architecture.md's table" for name in known if name not in rows]
    graph: dict[str, set[str]] = {name: set() for name in known}
    for a, b, line in edges:
        graph[a].add(b)
        if a in rows and b in rows and rows[b] > rows[a]:
            wrong.append(f"{a} ({table[rows[a]][0]}) -> {b} ({table[rows[b]][0]}) (line {line}): a row below")
    for start in known:
        mine = game_of(start, games)
        core = start.startswith(GAME_FREE) or start == "suntzu_env"
        if not (mine or core):
            continue
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        for reached in sorted(seen):
            theirs = game_of(reached, games)
            if theirs and theirs != mine:
                wrong.append(f"{start} imports {reached}: {'the core' if core else mine} reaches {theirs}")
    return wrong


def layer_check(root: Path = ROOT) -> list[str]:
    known, edges = import_edges(root, PACKAGES)
    table = layer_table(ARCHITECTURE.read_text())
    return broken_rules(known, with_parents(known, edges), layer_of(known, root, table), table)


def test_every_import_follows_the_architecture_table() -> None:
    """Each module is in one row of docs/architecture.md's table and imports only its row and those above; no game
    imports another, the core no game, counting the package `__init__`s every import runs."""
    assert layer_check() == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("suntzu_env.suntzu.game", "suntzu_env.binfa.geometry"),  # one game reaching another
        ("suntzu_env.binfa.geometry", "suntzu_env.suntzu.baselines.heuristic"),  # the same, the other way
        ("suntzu_env.suntzu.engine.board", "suntzu_env.core.policy_net"),  # the engine reaching a row below
        ("suntzu_env.core.rng", "suntzu_env.binfa.agents"),  # the core reaching a game
        ("suntzu_env.testing.conformance", "suntzu_env.binfa.plugin"),  # the conformance suite reaching a game
    ],
)
def test_a_planted_import_is_found(importer: str, imported: str) -> None:
    """Each kind of wrong import, planted in the real graph, is reported, and so is one that only the package
    `__init__` it runs makes wrong (the core importing a game's package runs that game's `__init__`)."""
    known, edges = import_edges(ROOT, PACKAGES)
    table = layer_table(ARCHITECTURE.read_text())
    rows = layer_of(known, ROOT, table)
    assert broken_rules(known, with_parents(known, edges), rows, table) == []
    planted = [*edges, (importer, imported, 1)]
    assert any(importer in line for line in broken_rules(known, with_parents(known, planted), rows, table))


def test_an_import_of_a_package_init_counts() -> None:
    """Importing a module runs its packages' `__init__`s: a game's `__init__` importing the other game makes every
    module of the game reach the other, its engine included, and a row below in its own `__init__` is reported."""
    known, edges = import_edges(ROOT, PACKAGES)
    table = layer_table(ARCHITECTURE.read_text())
    rows = layer_of(known, ROOT, table)
    planted = [
        *edges,
        ("suntzu_env.suntzu", "suntzu_env.binfa.layout", 1),
        ("suntzu_env.binfa", "suntzu_env.binfa.vec_env", 1),
    ]
    wrong = broken_rules(known, with_parents(known, planted), rows, table)
    assert (
        "suntzu_env.suntzu.engine.board imports suntzu_env.binfa.layout: suntzu_env.suntzu reaches suntzu_env.binfa"
        in wrong
    )
    assert any(line.startswith("suntzu_env.binfa (facts) -> suntzu_env.binfa.vec_env (environments)") for line in wrong)


def test_no_import_cycle() -> None:
    """No module imports, however indirectly, a module that imports it (apart from a known cycle owned by the
    experiments, which must still be one: removing it shortens the list)."""
    known, edges = import_edges(ROOT, PACKAGES)
    found = cycles(known, edges)
    for cycle in KNOWN_CYCLES:
        assert cycle in found, f"the known cycle {sorted(cycle)} is gone: take it off KNOWN_CYCLES"
    assert [sorted(cycle) for cycle in found if cycle not in KNOWN_CYCLES] == []


def test_the_walker_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The graph's reader on a made-up tree: an import inside a function, a relative import, `from package import
    submodule`, a package's `__init__` re-export and `importlib.import_module` all make edges; the cycle they close
    and the upward import are found."""
    low, high = tmp_path / "suntzu_env", tmp_path / "agents"
    low.mkdir()
    high.mkdir()
    (low / "__init__.py").write_text("from suntzu_env.env import Env\n")
    (low / "env.py").write_text("import importlib\n\ndef make():\n    return importlib.import_module('agents.kind')\n")
    (low / "base.py").write_text("from . import env\n")
    (high / "__init__.py").write_text("")
    (high / "kind.py").write_text("def make():\n    from suntzu_env import base\n    import suntzu_env\n")
    known, edges = import_edges(tmp_path, ("suntzu_env", "agents"))
    assert {(a, b) for a, b, _ in edges} == {
        ("suntzu_env", "suntzu_env.env"),
        ("suntzu_env.env", "agents.kind"),
        ("suntzu_env.base", "suntzu_env.env"),
        ("agents.kind", "suntzu_env.base"),
        ("agents.kind", "suntzu_env"),
    }
    assert cycles(known, edges) == [frozenset({"suntzu_env", "suntzu_env.env", "suntzu_env.base", "agents.kind"})]


def test_the_declared_entry_points_are_the_agent_kinds() -> None:
    """`pyproject.toml` declares each kind `agents.registry` adds, by its name, and nothing else."""
    from agents.registry import AGENT_KINDS

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["suntzu_env.agents"]
    assert declared == {kind.name: f"agents.registry:{kind.name.upper().replace('-', '_')}" for kind in AGENT_KINDS}


def test_one_registry_of_players() -> None:
    """The package's registry builds the built-in baselines itself and the installed kinds through their entry
    points (installed with the package: `pip install -e .`); `agents.make_agent` is the same registry, and the
    environments take the one `Opponent` type it declares."""
    import agents
    import suntzu_env.suntzu.gym_env as gym_env
    import suntzu_env.suntzu.vec.env as vec_env
    from agents.registry import AGENT_KINDS
    from suntzu_env.core.agent import Opponent
    from suntzu_env.suntzu.baselines.players import HeuristicAgent
    from suntzu_env.suntzu.players import agent_kinds
    from suntzu_env.suntzu.players import agent_names
    from suntzu_env.suntzu.players import make_agent

    assert agents.make_agent is make_agent
    assert list(agent_kinds()) == ["random", "greedy", "heuristic", "ismcts", "ismcts-value", "ppo", "rllib"]
    assert {kind.name: kind for kind in AGENT_KINDS}.items() <= agent_kinds().items()
    assert agent_names() == agents.AGENT_NAMES == ("random", "greedy", "heuristic", "ismcts")
    assert isinstance(make_agent("heuristic", 0), HeuristicAgent)
    assert type(make_agent("ismcts:3", 0)).__name__ == "ISMCTSAgent"
    assert gym_env.Opponent is Opponent and vec_env.Opponent is Opponent
    with pytest.raises(ValueError, match=r"agent 'ismcts:0': iterations must be a whole number >= 1; valid: random"):
        make_agent("ismcts:0")
    with pytest.raises(ValueError, match=r"unknown agent 'ppo:'; valid: .*ppo:<path-to-model>, or rllib:<checkpoint>"):
        make_agent("ppo:")
