"""A seal on a folder of pickles that only its writer may load: RLlib's checkpoints, which `--resume` restores.

RLlib restores an algorithm from pickles, and a pickle runs code as it loads. `experiments.train_rllib` therefore
resumes only from a checkpoint this user wrote on this machine: each checkpoint it saves is sealed with an HMAC
(SHA-256) of its files, keyed by a secret kept outside every run folder (`key_path`: `seal.key` in the package's
config folder, `suntzu_env.core.user_folders.config_folder`, made on first use, readable by its owner alone). A
checkpoint copied from elsewhere, or changed after it was written, has no matching seal and is refused before
anything in it is read. Its policy still plays anywhere as `rllib:<checkpoint>`, whose weights are read as data
(`agents.rllib`).

The seal file lists the seals of the checkpoint in place and, while a new one is written, of that one too: a run
killed between the two renames resumes from whichever checkpoint stands.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from suntzu_env.core.files import write_atomic
from suntzu_env.core.user_folders import config_folder

KEY_BYTES = 32
MAX_SEALS = 2  # the checkpoint in place and the one being written


def key_path() -> Path:
    """Where this user's sealing key lives (never inside a run folder)."""
    return config_folder() / "seal.key"


def _key() -> bytes:
    """This user's sealing key, made (owner-only) on first use; two processes making it at once agree on one."""
    path = key_path()
    for _ in range(2):
        try:
            key = path.read_bytes()
        except FileNotFoundError:
            key = b""
        if len(key) == KEY_BYTES:
            return key
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
        try:
            if key:  # a damaged key: replaced (seals made with it no longer match)
                os.replace(temporary, path)
            else:
                os.link(temporary, path)  # fails where another process made it first: then read that one
        except FileExistsError:
            pass
        finally:
            temporary.unlink(missing_ok=True)
    raise OSError(f"{path}: the sealing key could not be made")


def digest(folder: Path) -> str:
    """A digest of every file below `folder`: its path relative to the folder, then its bytes."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        if path.is_symlink():  # a link could point anywhere: it is part of what is sealed, not followed
            h.update(b"link:" + os.readlink(path).encode() + b"\0")
            continue
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    return h.hexdigest()


def seal_of(folder: Path) -> str:
    """The seal of `folder`'s contents under this user's key."""
    return hmac.new(_key(), digest(folder).encode(), hashlib.sha256).hexdigest()


def _seals(seal_file: Path) -> list[str]:
    try:
        value = json.loads(seal_file.read_text())
    except (OSError, ValueError):
        return []
    seals = value.get("seals") if isinstance(value, dict) else None
    if not isinstance(seals, list):
        return []
    return [s for s in seals[:MAX_SEALS] if isinstance(s, str) and len(s) == 64]


def add_seal(seal_file: Path, folder: Path) -> None:
    """Seal `folder` (a checkpoint written aside, before it is renamed into place) beside the seal in force."""
    seals = [seal_of(folder), *_seals(seal_file)][:MAX_SEALS]
    write_atomic(seal_file, json.dumps({"seals": seals}) + "\n")


def keep_only(seal_file: Path, folder: Path) -> None:
    """Once `folder` is in place, its seal alone."""
    write_atomic(seal_file, json.dumps({"seals": [seal_of(folder)]}) + "\n")


def is_sealed(seal_file: Path, folder: Path) -> bool:
    """Whether `folder` is one this user sealed, unchanged since (compared in constant time)."""
    seals = _seals(seal_file)
    if not seals or not folder.is_dir():
        return False
    mine = seal_of(folder)
    return any(hmac.compare_digest(mine, s) for s in seals)
