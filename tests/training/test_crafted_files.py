"""A run folder is as safe to resume as a model is to play: every file a command reads from a run folder is read
as data. Each probe below is a genuine file of a run made to run code when unpickled (it makes a folder): a
training checkpoint whose `data` or tensors hold a pickled object, a checkpoint's state, a self-play pool's
snapshot, a `ppo:` model, a value network (one whose array header declares an enormous shape too). The real
command refuses each in one line naming the file, runs nothing, and changes nothing in the folder.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from conftest import command_env
from conftest import exit_of

torch = pytest.importorskip("torch")


class Plant:
    """Unpickled, it makes the folder `path`: the proof that a command ran code from a file."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[Callable[..., object], tuple[str]]:
        return (os.mkdir, (self.path,))


def listing(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the hash of its contents."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def refused_in_one_line(
    module: str, args: list[str], folder: Path, marker: Path, named: Path, *, command_line: bool = False
) -> str:
    """Run the command `module` on `args` (its `main` in this process, or with `command_line` the real `python -m
    module args`): it must exit 2 with one line on stderr naming `named`, no traceback, run no code (`marker` not
    made) and leave `folder` as it was."""
    before = listing(folder)
    status, err = exit_of(module, *args, command_line=command_line, timeout=600)
    err = err.strip()
    assert status == 2, err[-3000:]
    assert len(err.splitlines()) == 1 and "Traceback" not in err and str(named) in err, err
    assert not marker.exists(), "the file's code ran"
    assert listing(folder) == before, "the folder changed"
    return err


def copy_run(tiny_run: Path, tmp_path: Path) -> Path:
    run = tmp_path / "runs" / tiny_run.name
    shutil.copytree(tiny_run, run)
    return run


def rewrite_zip(path: Path, change: Callable[[str, bytes], bytes]) -> None:
    """Write the zip at `path` again with each member's bytes passed through `change(name, data)`."""
    with zipfile.ZipFile(path) as archive:
        members = [(name, change(name, archive.read(name))) for name in archive.namelist()]
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)


def plant_in_data(field: str, marker: Path) -> Callable[[str, bytes], bytes]:
    """A zip member change: the `data` field `field`'s pickle replaced by one that makes `marker`."""

    def change(name: str, raw: bytes) -> bytes:
        if name != "data":
            return raw
        data = json.loads(raw)
        data[field][":serialized:"] = base64.b64encode(pickle.dumps(Plant(marker))).decode()
        return json.dumps(data).encode()

    return change


def plant_in_tensors(member: str, marker: Path) -> Callable[[str, bytes], bytes]:
    def change(name: str, raw: bytes) -> bytes:
        if name != member:
            return raw
        out = io.BytesIO()
        torch.save({"state": Plant(marker)}, out)
        return out.getvalue()

    return change


def huge_header_npz(path: Path, name: str = "w0", others: dict[str, np.ndarray] | None = None) -> Path:
    """An .npz whose array `name` declares an enormous shape in a few bytes (with `others` beside it)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (2**40, 2**20)})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}.npy", header.getvalue() + b"\0" * 64)
        for key, value in (others or {}).items():
            out = io.BytesIO()
            np.save(out, value)
            archive.writestr(f"{key}.npy", out.getvalue())
    return path


@pytest.mark.parametrize(
    "where",
    [
        "data _last_obs",  # a field the resume reads back as data
        "data policy_class",  # a field replaced by the game's own, never unpickled: refused all the same
        "policy.optimizer.pth",
        "pytorch_variables.pth",
        "state",
    ],
)
def test_resume_refuses_a_checkpoint_that_would_run_code(tiny_run: Path, tmp_path: Path, where: str) -> None:
    run, marker = copy_run(tiny_run, tmp_path), tmp_path / "PWNED"
    checkpoint = run / "checkpoints" / "ppo_256_steps.zip"  # the run's middle: its games in progress saved
    named = checkpoint
    if where.startswith("data "):
        rewrite_zip(checkpoint, plant_in_data(where.split()[1], marker))
    elif where == "state":
        named = run / "checkpoints" / "ppo_256_steps.state.npz"
        with np.load(named) as data:
            arrays = dict(data)
        arrays["segments"] = np.array([Plant(marker)], dtype=object)
        np.savez(named, **arrays)
    else:
        rewrite_zip(checkpoint, plant_in_tensors(where, marker))
    on_the_command_line = where == "state"  # one case as a user runs it, the others in this process
    err = refused_in_one_line("experiments.train", ["--resume", str(checkpoint)], run, marker, named,
                              command_line=on_the_command_line)  # fmt: skip
    assert "holds more than data" in err and "nothing changed" in err


@pytest.mark.parametrize("kind", ["pickled", "huge header"])
def test_resume_refuses_a_pool_snapshot_that_is_not_a_network(tiny_run: Path, tmp_path: Path, kind: str) -> None:
    run, marker = copy_run(tiny_run, tmp_path), tmp_path / "PWNED"
    snapshot = run / "pool" / "snapshot_0.npz"
    if kind == "pickled":
        np.savez(snapshot, w0=np.array([Plant(marker)], dtype=object), b0=np.zeros(1, np.float32))
    else:
        huge_header_npz(snapshot)
    args = ["--resume", str(run), "--total-timesteps", "1024"]
    err = refused_in_one_line("experiments.train", args, run, marker, snapshot)
    assert "nothing changed" in err


def test_a_run_folder_whose_model_would_run_code_is_refused_not_skipped(tiny_run: Path, tmp_path: Path) -> None:
    """`ppo:<run folder>` refuses a crafted final model (it does not fall back to a checkpoint, as it does for a
    damaged one), in the evaluation command's one line."""
    run, marker = copy_run(tiny_run, tmp_path), tmp_path / "PWNED"
    rewrite_zip(run / "model.zip", plant_in_data("policy_class", marker))
    args = ["--agents", f"ppo:{run}", "random", "--games", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "ev")]  # fmt: skip
    err = refused_in_one_line("experiments.evaluate", args, run, marker, run / "model.zip")
    assert "is not a readable MaskablePPO model" in err


@pytest.mark.parametrize("kind", ["pickled", "huge header"])
def test_a_value_network_that_is_not_arrays_is_refused(tmp_path: Path, kind: str) -> None:
    from suntzu_env.suntzu.values import VALUE_FILE

    run, marker = tmp_path / "value-run", tmp_path / "PWNED"
    run.mkdir()
    file = run / VALUE_FILE
    if kind == "pickled":
        np.savez(file, w0=np.array([Plant(marker)], dtype=object), b0=np.zeros(1, np.float32))
    else:
        huge_header_npz(file, others={"b0": np.zeros(1, np.float32), "activation": np.array("ReLU")})
    args = ["--agents", f"ismcts-value:{run}", "random", "--games", "2", "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "ev")]  # fmt: skip
    err = refused_in_one_line("experiments.evaluate", args, run, marker, file)
    assert "not a value network" in err


def test_read_value_net_refuses_a_huge_header_as_a_model_error(tmp_path: Path) -> None:
    """The value network's reader itself: the header is read and refused before any array is made."""
    from suntzu_env.core.agent import ModelError
    from suntzu_env.suntzu.values import read_value_net

    file = huge_header_npz(tmp_path / "v.npz", others={"b0": np.zeros(1, np.float32)})
    with pytest.raises(ModelError, match=r"v\.npz: not a value network .*declares the shape"):
        read_value_net(file)


def rllib_run(tmp_path: Path, seal: bool) -> Path:
    """A folder as `experiments.train_rllib` leaves it after one iteration: its checkpoint a pickle that would make
    `marker` when restored, sealed by this user (`seal`) or not."""
    from experiments.seal import add_seal
    from experiments.seal import keep_only
    from experiments.train_rllib import CHECKPOINT
    from experiments.train_rllib import CONFIG
    from experiments.train_rllib import PROGRESS
    from experiments.train_rllib import SEAL
    from experiments.train_rllib import RLlibConfig
    from experiments.train_rllib import _settings

    out = tmp_path / "rllib"
    checkpoint = out / CHECKPOINT
    checkpoint.mkdir(parents=True)
    (checkpoint / "algorithm_state.pkl").write_bytes(pickle.dumps(Plant(tmp_path / "marker")))
    (out / CONFIG).write_text(json.dumps(_settings(RLlibConfig(out=out))))
    (out / PROGRESS).write_text(json.dumps({"iteration": 1}))
    if seal:
        add_seal(out / SEAL, checkpoint)
        keep_only(out / SEAL, checkpoint)
    return out


@pytest.mark.parametrize("how", ["copied from elsewhere", "changed after it was sealed", "seal of another key"])
def test_an_rllib_checkpoint_this_user_did_not_seal_is_not_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """RLlib restores pickles: `train_rllib` resumes only a checkpoint it sealed itself (`experiments.seal`, an HMAC
    under a key kept outside the folder); any other is refused in one line before Ray starts, nothing run."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    out = rllib_run(tmp_path, seal=how != "copied from elsewhere")
    if how == "changed after it was sealed":
        (out / "checkpoint" / "algorithm_state.pkl").write_bytes(pickle.dumps(Plant(tmp_path / "marker")) + b" ")
    if how == "seal of another key":
        (tmp_path / "config" / "suntzu-env" / "seal.key").write_bytes(b"k" * 32)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    before = listing(out)
    result = subprocess.run([sys.executable, "-m", "experiments.train_rllib", "--out", str(out), "--iterations", "2"],
                            cwd=ROOT, env=command_env(**env), capture_output=True, text=True, timeout=300)  # fmt: skip
    err = result.stderr.strip()
    assert result.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{out / 'checkpoint'}" in err and "seal" in err
    assert not (tmp_path / "marker").exists() and listing(out) == before


def test_a_sealed_rllib_checkpoint_is_resumed_and_a_killed_save_leaves_one_that_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seal of this user's own checkpoint matches; while a new one is written both seals stand, so a run killed
    between the renames resumes from whichever checkpoint is in place."""
    from experiments.seal import add_seal
    from experiments.seal import is_sealed
    from experiments.train_rllib import SEAL
    from experiments.train_rllib import RLlibConfig
    from experiments.train_rllib import iterations_done

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    out = rllib_run(tmp_path, seal=True)
    assert iterations_done(RLlibConfig(out=out)) == 1
    newer = out / ".checkpoint.tmp"
    shutil.copytree(out / "checkpoint", newer)
    (newer / "more").write_bytes(b"the next iteration's state")
    add_seal(out / SEAL, newer)  # killed here, before the rename: the old checkpoint still resumes
    assert is_sealed(out / SEAL, out / "checkpoint") and is_sealed(out / SEAL, newer)
    (out / "checkpoint").rename(out / ".checkpoint.old")
    newer.rename(out / "checkpoint")  # killed here, after it: the new one resumes
    assert iterations_done(RLlibConfig(out=out)) == 1
    assert (tmp_path / "config" / "suntzu-env" / "seal.key").stat().st_mode & 0o077 == 0
