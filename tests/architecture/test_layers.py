"""One-way layers: every import of every module of `suntzu_env`, `agents` and `experiments`, read from the source
(inside functions and `TYPE_CHECKING` blocks too, relative imports resolved, a package's `__init__` counted as the
module it is), makes a graph of modules with no cycle in which nothing imports upward: the package never imports
`agents` or `experiments` (its browser app, `suntzu_env.play`, may use `agents`), and `agents` never imports
`experiments`. Players reach the package's environments by name through its registry (`suntzu_env.players`),
which finds the kinds `agents` adds through the entry points `pyproject.toml` declares, not through an import.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("suntzu_env", "agents", "experiments")
FRONT_END = "suntzu_env.play"  # a front-end of the package: may use agents, never experiments
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


def upward(edges: Iterable[Edge]) -> list[str]:
    """The imports that go up a layer, as 'importer -> imported (line)'."""
    wrong = []
    for a, b, line in edges:
        top, target = a.split(".")[0], b.split(".")[0]
        front_end = a == FRONT_END or a.startswith(FRONT_END + ".")
        if (
            (top == "suntzu_env" and target == "experiments")
            or (top == "suntzu_env" and target == "agents" and not front_end)
            or (top == "agents" and target == "experiments")
        ):
            wrong.append(f"{a} -> {b} (line {line})")
    return wrong


def test_no_module_imports_upward() -> None:
    """The engines, environments, records and views never import `agents` or `experiments`; the browser app may
    use `agents`, never `experiments`; `agents` never imports `experiments`."""
    _, edges = import_edges(ROOT, PACKAGES)
    assert upward(edges) == []


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
    assert upward(edges) == ["suntzu_env.env -> agents.kind (line 4)"]
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
    import suntzu_env.gym_env as gym_env
    import suntzu_env.vec.env as vec_env
    from agents.registry import AGENT_KINDS
    from suntzu_env.agent import Opponent
    from suntzu_env.baselines.players import HeuristicAgent
    from suntzu_env.players import agent_kinds, agent_names, make_agent

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
