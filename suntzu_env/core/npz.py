"""Array files from outside, read as data: `read_npz` (any `.npz` of a run folder) and `read_net_file` (a network's).

Every `.npz` a command reads (a value network, a self-play pool's snapshot, a training checkpoint's state) goes
through `read_npz`: its arrays' headers are read first, and a file whose arrays hold pickled objects, or declare
more numbers than the file holds (a header made to exhaust memory), is refused (`UnsafeFileError`) before any
array is built; nothing in it is unpickled.
"""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path

import numpy as np

from suntzu_env.core.agent import ModelError
from suntzu_env.core.policy_net import CELL_TABLES, CELL_WEIGHTS, MAX_LAYERS, CompiledNet, net_from_state

MAX_FILE = 512 * 2**20  # bytes: the most an array file may unpack to (a network is a few MB)
MAX_ARRAYS = 4096  # arrays in one file (a training checkpoint's state holds a few dozen)
NUMBERS, TEXT = "biuf", "U"  # the dtype kinds an array file may hold


class UnsafeFileError(ModelError):
    """A file from outside that holds something other than data (pickled objects, a forged size): refused whole,
    never moved aside or skipped as a damaged file would be."""


def _array_header(member: zipfile.ZipExtFile) -> tuple[tuple[int, ...], np.dtype]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"its .npy format {version} is not one numpy.savez writes")
    return shape, dtype


def read_npz(file: Path, max_bytes: int = MAX_FILE) -> dict[str, np.ndarray]:
    """The arrays of an `.npz` file by name, read as data: numbers and text only (`UnsafeFileError` for pickled
    objects or a header declaring more than the file holds; ValueError, OSError or `zipfile.BadZipFile` for a
    damaged or oversized file)."""
    with zipfile.ZipFile(file) as archive:
        members = archive.infolist()
        if len(members) > MAX_ARRAYS:
            raise ValueError(f"it holds {len(members)} arrays, more than {MAX_ARRAYS}")
        if sum(info.file_size for info in members) > max_bytes:
            raise ValueError(f"it unpacks to more than {max_bytes} bytes")
        for info in members:
            name = info.filename.removesuffix(".npy")
            with archive.open(info) as member:
                shape, dtype = _array_header(member)
            if dtype.hasobject or dtype.kind not in NUMBERS + TEXT:
                raise UnsafeFileError(f"its array {name!r} holds {dtype} (pickled objects are never read)")
            declared = math.prod(shape) * dtype.itemsize
            if declared > info.file_size:
                raise UnsafeFileError(f"its array {name!r} declares the shape {shape} ({declared} bytes) in "
                                      f"{info.file_size} bytes")  # fmt: skip
    try:
        with np.load(file, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except MemoryError:
        raise ValueError("its arrays do not fit in memory") from None


NET_ARRAY = re.compile(r"[wb][0-9]{1,2}")  # an MLP's weights and biases, `w<i>` and `b<i>`
NET_TEXT = ("activation", "kind")


def read_net_file(file: Path) -> CompiledNet:
    """The network of a `.npz` of `CompiledNet.state()` (an MLP's or a cell network's arrays), read as data
    (`read_npz`) and checked before compiled code reads it; other arrays in the file are left out."""
    arrays = read_npz(file)
    state = {}
    for name, value in arrays.items():
        if name in NET_TEXT:
            if value.dtype.kind != TEXT or value.ndim != 0:
                raise ValueError(f"its {name} is not a word")
        elif NET_ARRAY.fullmatch(name) or name in CELL_TABLES or name in CELL_WEIGHTS:
            if value.dtype.kind not in "iuf":
                raise ValueError(f"its array {name} is not numbers ({value.dtype})")
        else:
            continue
        state[name] = value
    if sum(1 for name in state if NET_ARRAY.fullmatch(name)) > 2 * MAX_LAYERS:
        raise ValueError(f"it has more than {MAX_LAYERS} layers")
    return net_from_state(state)


__all__ = ["MAX_FILE", "UnsafeFileError", "read_net_file", "read_npz"]
