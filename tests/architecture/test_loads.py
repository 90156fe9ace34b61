"""One loader per kind of file: every call that reads a file which could run code, found in the source of
`suntzu_env`, `agents` and `experiments` (inside functions too), is one of the loaders named below, and each
reads as data (`torch.load` with `weights_only=True`, `np.load` with `allow_pickle=False`, an SB3 algorithm's
`load` with the safe `custom_objects`, an unpickler only as `agents.ppo.DataUnpickler`, which refuses every class
it does not know). A new load anywhere else, or one of these without its guard, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("suntzu_env", "agents", "experiments")

# The one loader of each kind: (file, the function it is in) -> the call it makes.
LOADERS = {
    ("agents/ppo.py", "read_model"): {"MaskablePPO.load", "torch.load"},  # SB3 zips: models and checkpoints
    ("agents/ppo.py", "read_pickle"): {"DataUnpickler"},  # a pickle read as data (an SB3 field, an RLlib state)
    ("agents/rllib.py", "read_state"): {"torch.load"},  # an RLlib module's tensors
    ("suntzu_env/core/npz.py", "read_npz"): {"np.load"},  # every .npz: networks, pool snapshots, checkpoint states
}
# Loads of pickles that only this user's own files reach: the function checks the file's seal (`experiments.seal`,
# an HMAC under a key kept outside every run folder) before it loads. RLlib restores its training checkpoints so.
SEALED = {("experiments/train_rllib.py", "restore_sealed"): {"algorithm.restore_from_path"}}
# Loads of bytes the same function has just made, never a file: the conformance suite's pickling check reads back
# `pickle.dumps` of a game it is playing, to see that the copy plays the same.
OWN_BYTES = {("suntzu_env/testing/conformance.py", "round_trip"): {"pickle.loads"}}
KNOWN_UNPROTECTED: dict[tuple[str, str], set[str]] = {}  # none: a new one must be protected or sealed

SB3_ALGORITHMS = {"MaskablePPO", "PPO", "A2C", "DQN", "SAC", "TD3", "DDPG", "RecurrentPPO", "QRDQN", "TQC", "TRPO",
                  "ARS", "CrossQ", "BaseAlgorithm", "OnPolicyAlgorithm"}  # fmt: skip
PICKLERS = {"pickle", "cloudpickle", "dill", "joblib", "marshal", "shelve", "jsonpickle", "_pickle"}
CALLS = {"load_from_zip_file", "restore_from_path", "from_checkpoint", "load_checkpoint"}
TENSOR_LOADS = {"torch.load", "torch.jit.load", "np.load", "numpy.load"}


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def load_kind(call: ast.Call) -> str | None:
    """The kind of load a call is, by the name it calls (`torch.load`, `np.load`, `MaskablePPO.load`,
    `pickle.loads`, `DataUnpickler`, ...), or None."""
    name = _dotted(call.func)
    head, _, last = name.rpartition(".")
    reads = last.startswith("load") or last.endswith("Unpickler") or last == "open"
    if (head in SB3_ALGORITHMS and last == "load") or name in TENSOR_LOADS or last in CALLS:
        return name
    if last.endswith("Unpickler") or (head.split(".")[0] in PICKLERS and reads) or (not head and last == "loads"):
        return name
    return None


def _keyword(call: ast.Call, name: str) -> object:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else keyword.value
    return None


def guarded(kind: str, call: ast.Call) -> bool:
    """Whether a load reads as data: its guard given."""
    if kind == "torch.load":
        return _keyword(call, "weights_only") is True
    if kind in ("np.load", "numpy.load"):
        return _keyword(call, "allow_pickle") is False
    if kind == "MaskablePPO.load":
        return isinstance(_keyword(call, "custom_objects"), ast.Name)  # `safe_objects`' replacements
    return kind == "DataUnpickler"


def load_calls(root: Path = ROOT) -> list[tuple[str, str, str, int, bool]]:
    """Every load call: (file, enclosing function, kind, line, guarded)."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for function in ast.walk(tree):
                if not isinstance(function, (ast.FunctionDef, ast.Module)):
                    continue
                name = getattr(function, "name", "<module>")
                inner = [f for f in ast.walk(function) if f is not function and isinstance(f, ast.FunctionDef)]
                nested = {id(n) for f in inner for n in ast.walk(f)}
                for node in ast.walk(function):
                    if isinstance(node, ast.Call) and id(node) not in nested:
                        kind = load_kind(node)
                        if kind is not None:
                            found.append((rel, name, kind, node.lineno, guarded(kind, node)))
    return found


def unpicklers(root: Path = ROOT) -> list[tuple[str, str, bool]]:
    """Every subclass of an unpickler: (file, class, whether it overrides find_class)."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and any(_dotted(b).endswith("Unpickler") for b in node.bases):
                    methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                    found.append((path.relative_to(root).as_posix(), node.name, "find_class" in methods))
    return found


def test_every_load_is_its_kind_s_one_loader_and_reads_as_data() -> None:
    calls = load_calls()
    where: dict[tuple[str, str], set[str]] = {}
    for file, function, kind, line, safe in calls:
        where.setdefault((file, function), set()).add(kind)
        if (file, function) in KNOWN_UNPROTECTED or kind in OWN_BYTES.get((file, function), ()):
            continue
        if (file, function) in SEALED and kind in SEALED[file, function]:
            assert seals_before(file, function, line), f"{file}:{line} {function} loads before it checks the seal"
            continue
        assert (file, function) in LOADERS and kind in LOADERS[file, function], (
            f"{file}:{line} {function} loads with {kind}: read files through the loader of their kind "
            f"({', '.join(f'{f}::{fn}' for f, fn in LOADERS)})"
        )
        guards = "weights_only=True, allow_pickle=False, custom_objects=safe_objects"
        assert safe, f"{file}:{line} {kind} in {function} does not read as data ({guards})"
    allowed = LOADERS | SEALED | OWN_BYTES | KNOWN_UNPROTECTED
    assert where == allowed, "the allow-lists name a loader that is no longer there"


def seals_before(file: str, function: str, line: int, root: Path = ROOT) -> bool:
    """Whether `function` of `file` calls `is_sealed` on a line before `line` (the load's)."""
    tree = ast.parse((root / file).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return any(
                isinstance(c, ast.Call) and _dotted(c.func).endswith("is_sealed") and c.lineno < line
                for c in ast.walk(node)
            )
    return False


def test_the_one_unpickler_refuses_what_it_does_not_know() -> None:
    assert unpicklers() == [("agents/ppo.py", "DataUnpickler", True)]


def test_the_checks_catch_an_unguarded_load(tmp_path: Path) -> None:
    """The walk is live: a planted module with each unguarded kind of load is caught, each with its kind."""
    planted = tmp_path / "agents"
    planted.mkdir()
    (planted / "x.py").write_text(
        "import pickle, torch, numpy as np, cloudpickle\n"
        "from sb3_contrib import MaskablePPO\n"
        "def f(p):\n"
        "    torch.load(p)\n"
        "    torch.load(p, weights_only=False)\n"
        "    np.load(p)\n"
        "    MaskablePPO.load(p)\n"
        "    pickle.loads(p)\n"
        "    cloudpickle.load(p)\n"
        "    pickle.Unpickler(p).load()\n"
        "    def g():\n"
        "        np.load(p, allow_pickle=False)\n"
        "class U(pickle.Unpickler):\n"
        "    pass\n"
    )
    for package in ("suntzu_env", "experiments"):
        (tmp_path / package).mkdir()
    calls = load_calls(tmp_path)
    kinds = [(function, kind, safe) for _, function, kind, _, safe in calls]
    assert kinds.count(("f", "torch.load", False)) == 2
    for kind in ("np.load", "MaskablePPO.load", "pickle.loads", "cloudpickle.load", "pickle.Unpickler"):
        assert ("f", kind, False) in kinds, kind
    assert ("g", "np.load", True) in kinds
    assert unpicklers(tmp_path) == [("agents/x.py", "U", False)]
