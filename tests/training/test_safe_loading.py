"""Nothing from outside runs code: a model file is read as data in every loader, route and command line.

The probe is a model file crafted as an attacker would: every pickled entry of its `data`, its `policy.pth`
and its `pytorch_variables.pth` (and an RLlib module's state) hold an object that, unpickled, makes a folder.
Every loader must refuse it with one line naming the file and what is wrong, and the folder must never be
made. A genuine model (ReLU, its `policy_kwargs` pickled by SB3) must still play exactly as it was saved.
"""

# ruff: noqa: E402  (torch is checked before the loaders are imported)
from __future__ import annotations

import base64
import io
import itertools
import json
import os
import pickle
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent
from agents.ppo import ModelError
from agents.ppo import PolicyActor
from agents.ppo import load_model
from agents.ppo import load_ppo_agent
from agents.rllib import load_rllib_agent
from suntzu_env import N_ACTIONS
from suntzu_env import OBSERVATION_SIZE

ROOT = Path(__file__).resolve().parents[2]


class Plant:
    """Unpickled, it makes the folder `path`: the proof that a loader ran code from a file."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[Callable[..., object], tuple[str]]:
        return (os.mkdir, (self.path,))


def crafted_zip(path: Path, marker: Path, sizes: tuple[int, int] = (OBSERVATION_SIZE, N_ACTIONS),
                policy: dict[str, object] | None = None) -> Path:  # fmt: skip
    """A MaskablePPO-shaped zip whose every pickle makes `marker` (its readable fields look right for a game of
    these observation and action sizes: Sun Tzu's unless told; its policy's readable arguments `policy`, an MLP's
    unless told)."""
    evil = {":type:": "<class 'dict'>", ":serialized:": base64.b64encode(pickle.dumps(Plant(marker))).decode()}
    data = {
        "policy_class": evil,
        "observation_space": {**evil, "_shape": [sizes[0]]},
        "action_space": {**evil, "n": str(sizes[1])},
        "policy_kwargs": {**evil, **(policy or {"net_arch": [8]})},
        "lr_schedule": evil,
        "clip_range": evil,
        "env": evil,
        "anything_else": evil,
    }
    tensors = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Plant(marker)}, tensors)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", tensors.getvalue())
        archive.writestr("pytorch_variables.pth", tensors.getvalue())
    return path


@pytest.fixture()
def probe(tmp_path: Path) -> tuple[Path, Path]:
    """(the crafted zip, the folder its code would make)."""
    return crafted_zip(tmp_path / "model.zip", tmp_path / "PWNED"), tmp_path / "PWNED"


def test_the_probe_runs_code_when_unpickled(probe: tuple[Path, Path]) -> None:
    """The probe is live: an ordinary unpickler of its data or its tensors makes the folder."""
    zipped, marker = probe
    with zipfile.ZipFile(zipped) as archive:
        pickle.loads(base64.b64decode(json.loads(archive.read("data"))["policy_class"][":serialized:"]))
        assert marker.is_dir()
        marker.rmdir()
        torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=False)
        assert marker.is_dir()


def test_every_model_loader_refuses_the_probe_without_running_it(probe: tuple[Path, Path], tmp_path: Path) -> None:
    from suntzu_env.suntzu.web.live import AgentMenu

    zipped, marker = probe
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    crafted_zip(run / "model.zip", marker)
    crafted_zip(run / "checkpoints" / "ppo_64_steps.zip", marker)
    loaders: list[tuple[str, Callable[[], object]]] = [
        ("load_ppo_agent", lambda: load_ppo_agent(zipped)),
        ("load_model", lambda: load_model(zipped)),
        ("make_agent", lambda: make_agent(f"ppo:{zipped}")),
        ("make_agent (a run folder)", lambda: make_agent(f"ppo:{run}")),
        ("the app's command-line models", lambda: AgentMenu([f"ppo:{zipped}"]).load()),
        ("the app's model folders", lambda: AgentMenu(folders=[tmp_path]).make(f"ppo:{zipped}")),
    ]
    for name, load in loaders:
        with pytest.raises(ModelError) as refused:
            load()
        message = str(refused.value)
        assert "\n" not in message and str(tmp_path) in message and "readable" in message, (name, message)
        assert not marker.exists(), f"{name} ran code from the file"


@pytest.mark.parametrize("policy", [None, {"cells": {"width": 8, "layers": 1}, "layout": "x"}])
def test_binfa_s_loader_refuses_the_probe_without_running_it(tmp_path: Path, policy: dict[str, object] | None) -> None:
    """Bin'Fa's `ppo:` (its plugin's `make_agent`) reads a model of its sizes as data too, an MLP's or a board
    network's (whose board is the game's, never the file's)."""
    from suntzu_env.binfa.plugin import BINFA

    marker = tmp_path / "PWNED"
    zipped = crafted_zip(tmp_path / "binfa.zip", marker, (BINFA.observation_size, BINFA.n_actions), policy)
    with pytest.raises(ModelError) as refused:
        BINFA.make_agent(f"ppo:{zipped}")
    message = str(refused.value)
    assert "\n" not in message and str(zipped) in message and "readable" in message, message
    assert not marker.exists()


def test_rllib_loader_refuses_a_pickled_module_state(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    for name, write in (
        ("module_state.pkl", lambda f: pickle.dump({"pi.net.mlp.0.weight": Plant(marker)}, f)),
        ("module_state.pt", lambda f: torch.save({"pi.net.mlp.0.weight": Plant(marker)}, f)),
    ):
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        with (folder / name).open("wb") as f:
            write(f)
        for load, arg in ((load_rllib_agent, folder), (make_agent, f"rllib:{folder}")):
            with pytest.raises(ModelError, match="is not a readable RLlib module"):
                load(arg)
            assert not marker.exists(), f"{name} ran code"


def test_rllib_loader_reads_plain_arrays(tmp_path: Path) -> None:
    """A module state of arrays (the actor encoder, then the policy head; the critic is left out) plays."""
    rng = np.random.default_rng(0)
    sizes = (OBSERVATION_SIZE, 16, N_ACTIONS)
    state = {}
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        prefix = "encoder.actor_encoder.net.mlp.0" if i == 0 else "pi.net.mlp.0"
        state[f"{prefix}.weight"] = rng.normal(size=(n_out, n_in)).astype(np.float32)
        state[f"{prefix}.bias"] = rng.normal(size=n_out).astype(np.float32)
    state["encoder.critic_encoder.net.mlp.0.weight"] = np.zeros((16, OBSERVATION_SIZE), np.float32)
    state["encoder.critic_encoder.net.mlp.0.bias"] = np.zeros(16, np.float32)
    with (tmp_path / "module_state.pkl").open("wb") as f:
        pickle.dump(state, f)
    agent = load_rllib_agent(tmp_path)
    x = rng.normal(size=OBSERVATION_SIZE).astype(np.float32)
    expected = (
        state["pi.net.mlp.0.weight"]
        @ np.tanh(state["encoder.actor_encoder.net.mlp.0.weight"] @ x + state["encoder.actor_encoder.net.mlp.0.bias"])
        + state["pi.net.mlp.0.bias"]
    )
    np.testing.assert_allclose(agent.actor.logits(x), expected, rtol=1e-4, atol=1e-4)


def test_a_genuine_model_reads_back_exactly(tmp_path: Path) -> None:
    """A saved MaskablePPO (ReLU: its policy_kwargs are pickled by SB3) plays the same logits once read as data."""
    from sb3_contrib import MaskablePPO
    from suntzu_env.suntzu.gym_env import SunTzuGymEnv

    model = MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu", seed=3,
                        policy_kwargs={"net_arch": [24, 12], "activation_fn": torch.nn.ReLU})  # fmt: skip
    model.save(tmp_path / "real.zip")
    original = PolicyActor.from_policy(model.policy)
    agent = load_ppo_agent(tmp_path / "real.zip")
    assert agent.actor.activation == "ReLU" and [w.shape for w in agent.actor.weights] == [
        w.shape for w in original.weights
    ]
    x = np.random.default_rng(1).random((5, OBSERVATION_SIZE), dtype=np.float32)
    np.testing.assert_array_equal(agent.actor.logits(x), original.logits(x))
    assert load_model(tmp_path / "real.zip")[0].num_timesteps == 0


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def test_command_lines_refuse_the_probe_with_one_line(probe: tuple[Path, Path], tmp_path: Path) -> None:
    """experiments.evaluate and the play app (served or --text) refuse it before playing, in one line."""
    from experiments.evaluate import main

    zipped, marker = probe
    with pytest.raises(SystemExit) as stopped:
        main(["--agents", f"ppo:{zipped}", "random", "--games", "2", "--workers", "1", "--no-progress",
              "--out", str(tmp_path / "ev")])  # fmt: skip
    assert stopped.value.code == 2 and not marker.exists()
    for args in (["--agent", f"ppo:{zipped}", "--no-browser", "--port", "0"], ["--text", "--agent", f"ppo:{zipped}"]):
        out = _python("-m", "suntzu_env.play", *args)
        assert out.returncode == 2, out.stdout[-500:] + out.stderr[-2000:]
        text = (out.stderr + out.stdout).strip()
        assert len(text.splitlines()) == 1 and str(zipped) in text and "not a readable" in text, text
        assert not marker.exists()


def test_notebooks_load_models_only_through_make_agent() -> None:
    """The notebooks' model loading is `make_agent` (tested above): none unpickles or loads a model itself."""
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(notebook.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for word in ("pickle", "torch.load", ".load(", "from_checkpoint", "cloudpickle", "joblib"):
            assert word not in code, f"{notebook.name} loads something itself: {word}"
