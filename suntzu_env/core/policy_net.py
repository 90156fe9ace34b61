"""A trained policy's actor network in compiled code: its logits and its move, written once.

Two kinds of net are packed into one float32 vector each and played by the same compiled move:

- a `PolicyNet`, a multilayer perceptron (linear layers, with Tanh or ReLU between them), each layer's weights
  stored input-major so that the forward pass adds, for each nonzero input, that input times its row of weights:
  an observation is mostly zeros (one-hot pieces), and those rows are never read;
- a `CellNet`, a network shared over the cells of a board (a game's `CellLayout`: its cells, each cell's
  neighbours, the observation's values per cell, the actions per cell and per cell and direction): each layer
  mixes a cell's vector with its neighbours' by the same weights everywhere, so what it learns in one place holds
  in every other.

`net_act` is the move of a net, the argmax of its masked logits or a sample of their softmax from an engine
generator: `agents.ppo.PPOAgent` plays it one game or a batch at a time, and the batched environments play it
inside their compiled step for every game whose opponent is such an agent (a self-play snapshot, `ppo:<path>`).

A net is described to compiled code by a header row (int64, `HEADER_SIZE` entries, the `H_*` columns): where
its parameters start in the packed vector, its kind, whether it plays the argmax, its input and output widths,
then its kind's sizes (an MLP's layers, activation and widths; a cell network's `CELL_SIZES`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numba import njit, prange

from suntzu_env.core.fields import IntEntry
from suntzu_env.core.rng import rng_below

ACTIVATIONS: tuple[str, ...] = ("Tanh", "ReLU")  # by id, named as torch names the layers
ACT_TANH, ACT_RELU = 0, 1
MAX_LAYERS = 8  # linear layers a net may have

KINDS: tuple[str, ...] = ("mlp", "cells")  # a net's kind, by id: a multilayer perceptron, a cell network
KIND_MLP, KIND_CELLS = 0, 1

# Columns of a net's header row, first those of every kind.
H_OFFSET = 0  # where its parameters start in the packed vector
H_KIND = 1  # an id of KINDS
H_DETERMINISTIC = 2  # 1: the argmax of the masked logits; 0: a sample of their softmax
H_INPUTS = 3  # the observation's width
H_OUTPUTS = 4  # the logits' width (the actions)
# An MLP's.
H_LAYERS = 5  # linear layers
H_ACTIVATION = 6  # an id of ACTIVATIONS
H_WIDTHS = 7  # layer widths: the input, each hidden layer, the logits (H_LAYERS + 1 entries)
HEADER_SIZE = H_WIDTHS + MAX_LAYERS + 1
# A cell network's: its sizes, in the order of `CELL_SIZES` (below).
H_CELL_SIZES = 5

_UNIT_BITS = 24  # a sample's uniform number: 24 bits of the generator


class CompiledNet:
    """What every kind of packed net has: its parameters (`params`), its header, its widths and its scratch."""

    params: np.ndarray
    header: np.ndarray

    @property
    def kind(self) -> str:
        """ "mlp" or "cells" (`KINDS`), as its header says."""
        return KINDS[int(self.header[H_KIND])]

    n_inputs = IntEntry("header", H_INPUTS, "the observation's width")
    n_outputs = IntEntry("header", H_OUTPUTS, "the logits' width (the actions)")

    @property
    def work_size(self) -> int:
        """The float32 scratch a forward pass needs."""
        raise NotImplementedError

    def check(self) -> None:
        """ValueError unless the packed vector and the header still fit the net (before compiled code reads them)."""
        raise NotImplementedError

    def state(self) -> dict[str, np.ndarray]:
        """The net as named arrays (for `np.savez`; `net_from_state` reads them back)."""
        raise NotImplementedError

    def playing(self, deterministic: bool) -> np.ndarray:
        """The header of this net playing the argmax (`deterministic`) or sampling."""
        header = self.header.copy()
        header[H_DETERMINISTIC] = int(deterministic)
        return header

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Unmasked logits of (D,) or (M, D) observations."""
        x = np.asarray(observations, dtype=np.float32)
        if x.shape[-1:] != (self.n_inputs,) or x.ndim not in (1, 2):
            raise ValueError(f"observations must have shape ({self.n_inputs},) or (M, {self.n_inputs}), got {x.shape}")
        rows = np.ascontiguousarray(x.reshape(-1, self.n_inputs))
        out = np.empty((len(rows), self.n_outputs), dtype=np.float32)
        work = np.empty((len(rows), self.work_size), dtype=np.float32)
        net_logits_batch(self.params, self.header, rows, work, out)
        return out.reshape(*x.shape[:-1], self.n_outputs)


class PolicyNet(CompiledNet):
    """An MLP actor, packed: `weights[k]` is layer k's (out, in) matrix (torch's layout), `biases[k]` its (out,)."""

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray], activation: str = "Tanh") -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {list(ACTIVATIONS)}, got {activation!r}")
        if len(weights) != len(biases) or not 1 <= len(weights) <= MAX_LAYERS:
            raise ValueError(f"expected as many weight matrices as bias vectors, 1 to {MAX_LAYERS}")
        widths = [np.shape(weights[0])[1] if np.ndim(weights[0]) == 2 else -1]
        parts = []
        for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
            w, b = np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)
            if w.ndim != 2 or w.shape[1] != widths[-1] or b.shape != (w.shape[0],) or w.shape[0] < 1:
                raise ValueError(f"layer {k}: weights of shape {w.shape} and bias of shape {b.shape} do not follow "
                                 f"a layer of width {widths[-1]}")  # fmt: skip
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"layer {k}: the weights or biases hold NaN or infinity")
            parts += [np.ascontiguousarray(w.T).ravel(), b]
            widths.append(w.shape[0])
        self.widths = tuple(int(x) for x in widths)
        self.activation = activation
        self.params = np.concatenate(parts)
        self.header = header_of(self.widths, activation)

    @property
    def work_size(self) -> int:
        """The float32 scratch a forward pass needs (two hidden layers' or the logits' width)."""
        return work_size(self.widths)

    def state(self) -> dict[str, np.ndarray]:
        layers = self.layers()
        out = {f"w{i}": w.copy() for i, (w, _) in enumerate(layers)} | {
            f"b{i}": b.copy() for i, (_, b) in enumerate(layers)
        }
        return out | {"activation": np.array(self.activation)}

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each layer's (out, in) weights and (out,) bias, as views of the packed vector."""
        out, at = [], 0
        for n_in, n_out in itertools.pairwise(self.widths):
            bias = at + n_in * n_out
            out.append((self.params[at:bias].reshape(n_in, n_out).T, self.params[bias : bias + n_out]))
            at = bias + n_out
        return out

    def check(self) -> None:
        w = self.widths
        size = sum((a + 1) * b for a, b in itertools.pairwise(w))
        params, header = self.params, self.header
        if not (isinstance(params, np.ndarray) and params.dtype == np.float32 and params.shape == (size,)
                and params.flags.c_contiguous and np.isfinite(params).all()):  # fmt: skip
            raise ValueError(f"a policy network of widths {w} needs {size} finite float32 parameters")
        expected = header_of(w, self.activation)
        if not (isinstance(header, np.ndarray) and np.array_equal(header, expected) and header.dtype == np.int64):
            raise ValueError(f"a policy network's header does not match its widths {w} and {self.activation}")


def header_of(widths: Sequence[int], activation: str) -> np.ndarray:
    """The header of a net of these layer widths and activation, its parameters at offset 0, playing by sampling."""
    header = np.zeros(HEADER_SIZE, dtype=np.int64)
    header[H_KIND] = KIND_MLP
    header[H_INPUTS], header[H_OUTPUTS] = widths[0], widths[-1]
    header[H_LAYERS] = len(widths) - 1
    header[H_ACTIVATION] = ACTIVATIONS.index(activation)
    header[H_WIDTHS : H_WIDTHS + len(widths)] = widths
    return header


def compiled_policy(agent: object) -> tuple[CompiledNet, bool] | None:
    """The policy network `agent` plays in compiled code and whether it plays the argmax (its `compiled_policy()`,
    as a loaded `ppo:` agent gives it); None for an agent without one. Its sizes are the caller's to check."""
    method = getattr(agent, "compiled_policy", None)
    return method() if callable(method) else None


def playable_net(net: Any, n_inputs: int, n_outputs: int, name: str) -> CompiledNet:
    """`net` if compiled code may play it in a game of `n_inputs` observation values and `n_outputs` actions: a
    packed net of those sizes whose parameters still fit its header (an agent's, or one read back from a saved
    state); else ValueError, led by `name`, saying what it has and what the game needs."""
    if not isinstance(net, CompiledNet) or (net.n_inputs, net.n_outputs) != (n_inputs, n_outputs):
        has = f"{getattr(net, 'n_inputs', '?')} inputs and {getattr(net, 'n_outputs', '?')} outputs"
        raise ValueError(f"{name}: a policy network of {has}; the game needs {n_inputs} and {n_outputs}")
    try:
        net.check()
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    return net


def pack_nets(nets: Sequence[tuple[CompiledNet, bool] | None]) -> tuple[np.ndarray, np.ndarray, int]:
    """What compiled code reads of several nets, one per slot (None: a slot without one): their parameters in one
    vector, a header per slot (each net playing the argmax or sampling, as paired; zeros for None), and the scratch
    width the widest forward pass needs (0: no net)."""
    headers = np.zeros((len(nets), HEADER_SIZE), dtype=np.int64)
    parts, at, width = [], 0, 0
    for k, entry in enumerate(nets):
        if entry is not None:
            net, deterministic = entry
            headers[k] = net.playing(deterministic)
            headers[k, H_OFFSET] = at
            parts.append(net.params)
            at += net.params.size
            width = max(width, net.work_size)
    return (np.concatenate(parts) if parts else np.zeros(1, dtype=np.float32)), headers, width


def work_size(widths: Sequence[int]) -> int:
    """Scratch of a forward pass through layers of these widths: two halves, each the widest layer after the input."""
    return 2 * max(widths[1:])


@njit(cache=True)
def net_forward(params: np.ndarray, header: np.ndarray, x: np.ndarray, work: np.ndarray) -> int:
    """The logits of observation `x` by the net of `header`, written into `work`; returns where they start there."""
    if header[H_KIND] == KIND_CELLS:
        return cell_forward(params, header, x, work)
    return mlp_forward(params, header, x, work)


@njit(cache=True)
def mlp_forward(params: np.ndarray, header: np.ndarray, x: np.ndarray, work: np.ndarray) -> int:
    """An MLP's logits of observation `x`, written into `work`; returns where they start there.

    Each layer is written into one half of `work` (the layers alternate halves); zero inputs are skipped.
    """
    half = work.shape[0] // 2
    at = header[H_OFFSET]
    relu = header[H_ACTIVATION] == ACT_RELU
    n_layers = header[H_LAYERS]
    src = x
    start = 0
    for layer in range(n_layers):
        n_in = header[H_WIDTHS + layer]
        n_out = header[H_WIDTHS + layer + 1]
        start = (layer % 2) * half
        dst = work[start : start + n_out]
        bias = at + n_in * n_out
        dst[:] = params[bias : bias + n_out]
        for i in range(n_in):
            v = src[i]
            if v != 0.0:
                row = params[at + i * n_out : at + (i + 1) * n_out]
                for j in range(n_out):
                    dst[j] += v * row[j]
        if layer < n_layers - 1:
            for j in range(n_out):
                dst[j] = max(dst[j], np.float32(0.0)) if relu else np.tanh(dst[j])
        at = bias + n_out
        src = dst
    return start


# ---------------------------------------------------------------------------------------------------- cell networks
CELL_SIZES: tuple[str, ...] = ("cells", "degree", "channels", "globals", "cell_actions", "edge_actions",
                               "other_actions", "width", "layers", "hidden")  # fmt: skip
C_CELLS, C_DEGREE, C_CHANNELS, C_GLOBALS, C_CELL_OUT, C_EDGE_OUT, C_OTHER_OUT, C_WIDTH, C_LAYERS, C_HIDDEN = (
    H_CELL_SIZES + k for k in range(len(CELL_SIZES))
)
assert C_HIDDEN < HEADER_SIZE
MAX_CELL_WIDTH = 1024  # a cell network's widest layer
MAX_CELL_LAYERS = 32


@dataclasses.dataclass(frozen=True, eq=False)
class CellLayout:
    """How a cell network reads a game's observation and answers its actions: declared once by the game.

    The board is `neighbours.shape[0]` cells, each with up to `neighbours.shape[1]` neighbours, one per direction
    (-1 where there is none). `cell_inputs[c, t]` is the observation index of channel c's value at cell t; every
    other observation value is global (seen by every cell). `cell_actions` are the first ids of the action groups of
    one action per cell (id: first + cell), `edge_actions` the (first id, actions per edge) of the groups per cell
    and direction (id: first + (cell * degree + direction) * per + j); every other action is global.
    """

    neighbours: np.ndarray
    cell_inputs: np.ndarray
    n_inputs: int
    n_actions: int
    cell_actions: tuple[int, ...]
    edge_actions: tuple[tuple[int, int], ...]

    def tables(self) -> dict[str, np.ndarray]:
        """The index tables a `CellNet` packs (`CELL_TABLES`), checked."""
        cells, degree = self.neighbours.shape
        cell_ids = np.array([[first + t for first in self.cell_actions] for t in range(cells)], np.int64)
        cell_ids = cell_ids.reshape(cells, len(self.cell_actions))
        edge_ids = np.array([[first + e * per + j for first, per in self.edge_actions for j in range(per)]
                             for e in range(cells * degree)], np.int64).reshape(cells * degree, -1)  # fmt: skip
        used = np.zeros(self.n_actions, bool)
        for ids in (cell_ids, edge_ids):
            if ids.size and (ids.min() < 0 or ids.max() >= self.n_actions):
                raise ValueError(f"a cell layout's action groups reach past its {self.n_actions} actions")
            if used[ids.ravel()].any() or len(np.unique(ids)) != ids.size:
                raise ValueError("a cell layout's action groups overlap")
            used[ids.ravel()] = True
        inputs = np.zeros(self.n_inputs, bool)
        inputs[self.cell_inputs.ravel()] = True
        out = {
            "neighbours": self.neighbours,
            "cell_inputs": self.cell_inputs,
            "global_inputs": np.flatnonzero(~inputs),
            "cell_ids": cell_ids,
            "edge_ids": edge_ids,
            "other_ids": np.flatnonzero(~used),
        }
        return {name: np.asarray(table, np.int64) for name, table in out.items()}


# The arrays of a cell network, in the order they are packed: the index tables (stored as float32, exact below
# 2**24), then the weights, each input-major (a row per input). T cells, K directions, C channels, G global inputs,
# Cc/E/O actions per cell, per edge and global, H the width, L the layers, D the global head's hidden width.
CELL_TABLES: tuple[str, ...] = ("neighbours", "cell_inputs", "global_inputs", "cell_ids", "edge_ids", "other_ids")
CELL_WEIGHTS: tuple[str, ...] = (
    "input_w", "global_w", "input_b", "position", "layer_w", "layer_b", "cell_w", "cell_b", "edge_w", "edge_b",
    "other_w1", "other_b1", "other_w2", "other_b2",
)  # fmt: skip


def cell_shapes(sizes: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a cell network of these `CELL_SIZES`."""
    t, k, c, g = sizes["cells"], sizes["degree"], sizes["channels"], sizes["globals"]
    cc, e, o = sizes["cell_actions"], sizes["edge_actions"], sizes["other_actions"]
    h, n_layers, d = sizes["width"], sizes["layers"], sizes["hidden"]
    return {
        "neighbours": (t, k), "cell_inputs": (c, t), "global_inputs": (g,), "cell_ids": (t, cc),
        "edge_ids": (t * k, e), "other_ids": (o,),
        "input_w": (c, h), "global_w": (g, h), "input_b": (h,), "position": (t, h),
        "layer_w": (n_layers, k + 1, h, h), "layer_b": (n_layers, h),
        "cell_w": (h, cc), "cell_b": (cc,), "edge_w": (2, h, e), "edge_b": (e,),
        "other_w1": (2 * h + g, d), "other_b1": (d,), "other_w2": (d, o), "other_b2": (o,),
    }  # fmt: skip


class CellNet(CompiledNet):
    """A cell network's actor, packed from its named arrays (`CELL_TABLES` and `CELL_WEIGHTS`).

    A cell's vector starts as ReLU(its channels x input_w + the global inputs x global_w + input_b + its
    position's row); each layer adds ReLU(b + the cell's vector x W_self + each neighbour's x W_direction) to it.
    A per-cell action's logit is read from the cell's vector, a per-edge action's from the cell's and the
    neighbour's (the edge's two ends), a global action's from the cells' mean and maximum and the global inputs
    (one hidden ReLU layer). The index tables are checked against the sizes: compiled code reads only in range.
    """

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        missing = [name for name in (*CELL_TABLES, *CELL_WEIGHTS) if name not in arrays]
        if missing:
            raise ValueError(f"a cell network needs the arrays {', '.join(missing)}")
        shape = {name: np.shape(arrays[name]) for name in (*CELL_TABLES, *CELL_WEIGHTS)}
        if len(shape["layer_w"]) != 4 or len(shape["neighbours"]) != 2 or len(shape["other_w1"]) != 2:
            raise ValueError("a cell network's layer_w, neighbours or other_w1 has the wrong number of axes")
        t, k = shape["neighbours"]
        sizes = {"cells": t, "degree": k, "channels": shape["cell_inputs"][0] if shape["cell_inputs"] else 0,
                 "globals": shape["global_inputs"][0] if shape["global_inputs"] else 0,
                 "cell_actions": shape["cell_ids"][-1], "edge_actions": shape["edge_ids"][-1],
                 "other_actions": shape["other_ids"][0] if shape["other_ids"] else 0,
                 "width": shape["layer_w"][2], "layers": shape["layer_w"][0],
                 "hidden": shape["other_w1"][1]}  # fmt: skip
        expected = cell_shapes(sizes)
        wrong = [
            f"{name} {shape[name]} (expected {expected[name]})" for name in expected if shape[name] != expected[name]
        ]
        if wrong:
            raise ValueError(f"a cell network's arrays do not fit together: {'; '.join(wrong)}")
        if not (1 <= sizes["width"] <= MAX_CELL_WIDTH and 1 <= sizes["layers"] <= MAX_CELL_LAYERS and t >= 1):
            raise ValueError(f"a cell network needs 1 to {MAX_CELL_WIDTH} wide, 1 to {MAX_CELL_LAYERS} layers, cells")
        self.sizes = sizes
        parts = [np.asarray(arrays[name], np.float32).ravel() for name in (*CELL_TABLES, *CELL_WEIGHTS)]
        self.params = np.concatenate(parts)
        self.header = cell_header(sizes)
        self.check()

    @property
    def work_size(self) -> int:
        return cell_work_size(self.sizes)

    def _views(self) -> dict[str, np.ndarray]:
        """The named arrays as views of the packed parameters."""
        out, at = {}, 0
        for name, shape in cell_shapes(self.sizes).items():
            size = int(np.prod(shape))
            out[name] = self.params[at : at + size].reshape(shape)
            at += size
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        """The named arrays, copies (the tables as int64)."""
        views = self._views()
        return {name: value.astype(np.int64) if name in CELL_TABLES else value.copy() for name, value in views.items()}

    def state(self) -> dict[str, np.ndarray]:
        return self.arrays() | {"kind": np.array(KINDS[KIND_CELLS])}

    def check(self) -> None:
        sizes, params, header = self.sizes, self.params, self.header
        size = sum(int(np.prod(shape)) for shape in cell_shapes(sizes).values())
        if not (isinstance(params, np.ndarray) and params.dtype == np.float32 and params.shape == (size,)
                and params.flags.c_contiguous and np.isfinite(params).all()):  # fmt: skip
            raise ValueError(f"a cell network of sizes {sizes} needs {size} finite float32 parameters")
        if not (
            isinstance(header, np.ndarray) and header.dtype == np.int64 and np.array_equal(header, cell_header(sizes))
        ):
            raise ValueError(f"a cell network's header does not match its sizes {sizes}")
        n_tables = sum(int(np.prod(cell_shapes(sizes)[name])) for name in CELL_TABLES)
        if not np.array_equal(params[:n_tables], np.round(params[:n_tables])):
            raise ValueError("a cell network's index tables hold fractions")
        views = self._views()
        tables = {name: views[name].astype(np.int64) for name in CELL_TABLES}  # only the tables are copied
        n_in, n_out, t = int(header[H_INPUTS]), int(header[H_OUTPUTS]), sizes["cells"]
        for name, value in tables.items():
            low, high = (-1, t) if name == "neighbours" else (0, n_in if name.endswith("inputs") else n_out)
            if value.size and (value.min() < low or value.max() >= high):
                raise ValueError(f"a cell network's {name} reach outside [{low}, {high})")
        for suffix, what, count in (("inputs", "observation value", n_in), ("ids", "action", n_out)):
            every = np.concatenate([tables[name].ravel() for name in tables if name.endswith(suffix)])
            if len(every) != count or len(np.unique(every)) != count:
                raise ValueError(f"a cell network's {suffix} tables must name each {what} once")


def cell_header(sizes: Mapping[str, int]) -> np.ndarray:
    """The header of a cell network of these `CELL_SIZES`, its parameters at offset 0, playing by sampling."""
    header = np.zeros(HEADER_SIZE, dtype=np.int64)
    header[H_KIND] = KIND_CELLS
    header[H_INPUTS] = sizes["cells"] * sizes["channels"] + sizes["globals"]
    header[H_OUTPUTS] = (sizes["cells"] * sizes["cell_actions"] + sizes["cells"] * sizes["degree"] *
                         sizes["edge_actions"] + sizes["other_actions"])  # fmt: skip
    for k, name in enumerate(CELL_SIZES):
        header[H_CELL_SIZES + k] = sizes[name]
    return header


def cell_work_size(sizes: Mapping[str, int]) -> int:
    """Scratch of a cell network's forward pass: the logits, the cells' vectors (and a zero row), a layer's output,
    the edge heads' two halves, the pooled vector, the global head's hidden layer and outputs."""
    t, h, e, g = sizes["cells"], sizes["width"], sizes["edge_actions"], sizes["globals"]
    n_out = int(cell_header(sizes)[H_OUTPUTS])
    return n_out + (t + 1) * h + t * h + t * e + (t + 1) * e + 2 * h + g + sizes["hidden"] + sizes["other_actions"]


def net_from_state(state: Mapping[str, Any]) -> CompiledNet:
    """The net of `CompiledNet.state()`'s arrays (an MLP's `w<i>`, `b<i>` and `activation`; a cell network's
    `kind` "cells" and its named arrays), checked."""
    if "kind" in state and str(np.asarray(state["kind"])) == "cells":
        return CellNet({name: np.asarray(state[name]) for name in (*CELL_TABLES, *CELL_WEIGHTS) if name in state})
    n = sum(1 for key in state if key.startswith("w") and key[1:].isdigit())
    return PolicyNet([state[f"w{i}"] for i in range(n)], [state[f"b{i}"] for i in range(n)],
                     str(np.asarray(state.get("activation", "Tanh"))))  # fmt: skip


def seated_state(net: CompiledNet, deterministic: bool, prefix: str) -> dict[str, np.ndarray]:
    """A net seated in an environment's slot, as arrays named `<prefix><array>` (`seated_net` reads them back):
    `<prefix>net` holds its kind (an MLP: its activation) and how it plays, "argmax" or "sample"."""
    state = net.state()
    label = str(state.pop("kind" if net.kind == "cells" else "activation"))
    how = np.array([label, "argmax" if deterministic else "sample"], dtype=str)
    return {f"{prefix}net": how} | {f"{prefix}{name}": value for name, value in state.items()}


def seated_net(state: Mapping[str, np.ndarray], prefix: str) -> tuple[CompiledNet, bool]:
    """The net of `seated_state`'s arrays and whether it plays the argmax."""
    label, how = (str(x) for x in state[f"{prefix}net"])
    arrays: dict[str, Any] = {key[len(prefix) :]: state[key] for key in state
                              if key.startswith(prefix) and key != f"{prefix}net"}  # fmt: skip
    arrays["kind" if label == "cells" else "activation"] = np.array(label)
    return net_from_state(arrays), how == "argmax"


@njit(cache=True, fastmath=True)
def _cell_layer(params: np.ndarray, work: np.ndarray, weights: int, bias: int, nb: int, hh: int, yy: int, t_n: int,
                k_n: int, h_n: int) -> None:  # fmt: skip
    """One residual layer: each cell's vector (in `work` from `hh`) adds ReLU(b + itself x W_0 + its neighbour in
    direction d x W_(d+1)); the layer's outputs are written from `yy` first, then added."""
    # The layer's weights and the output row in fresh arrays: the compiler then sees that they share memory with
    # nothing and keeps the inner loop in vector registers (read in place, the loop runs about six times slower).
    wl = params[weights : weights + (k_n + 1) * h_n * h_n].copy()
    acc = np.empty(h_n, np.float32)
    for t in range(t_n):
        for j in range(h_n):
            acc[j] = params[bias + j]
        for s in range(k_n + 1):
            src = t if s == 0 else int(params[nb + t * k_n + s - 1])
            if src < 0:
                continue
            for i in range(h_n):
                v = work[hh + src * h_n + i]
                if v != 0.0:
                    row = (s * h_n + i) * h_n
                    for j in range(h_n):
                        acc[j] += v * wl[row + j]
        for j in range(h_n):
            work[yy + t * h_n + j] = acc[j]
    for i in range(t_n * h_n):
        v = work[yy + i]
        if v > 0.0:
            work[hh + i] += v


@njit(cache=True, fastmath=True)
def cell_forward(params: np.ndarray, header: np.ndarray, x: np.ndarray, work: np.ndarray) -> int:
    """A cell network's logits of observation `x`, written at the start of `work` (returns 0). Zero inputs and
    zero cell values (after ReLU, about half) are skipped."""
    t_n, k_n, c_n, g_n = header[C_CELLS], header[C_DEGREE], header[C_CHANNELS], header[C_GLOBALS]
    cc_n, e_n, o_n = header[C_CELL_OUT], header[C_EDGE_OUT], header[C_OTHER_OUT]
    h_n, l_n, d_n = header[C_WIDTH], header[C_LAYERS], header[C_HIDDEN]
    # where each packed array starts (CELL_TABLES, then CELL_WEIGHTS)
    nb = header[H_OFFSET]
    ci = nb + t_n * k_n
    gi = ci + c_n * t_n
    cell_ids = gi + g_n
    edge_ids = cell_ids + t_n * cc_n
    other_ids = edge_ids + t_n * k_n * e_n
    input_w = other_ids + o_n
    global_w = input_w + c_n * h_n
    input_b = global_w + g_n * h_n
    position = input_b + h_n
    layer_w = position + t_n * h_n
    layer_b = layer_w + l_n * (k_n + 1) * h_n * h_n
    cell_w = layer_b + l_n * h_n
    cell_b = cell_w + h_n * cc_n
    edge_w = cell_b + cc_n
    edge_b = edge_w + 2 * h_n * e_n
    other_w1 = edge_b + e_n
    other_b1 = other_w1 + (2 * h_n + g_n) * d_n
    other_w2 = other_b1 + d_n
    other_b2 = other_w2 + d_n * o_n
    # the scratch: logits, cells (a zero row last), a layer's output, edge halves, pooled, hidden, global outputs
    n_out = header[H_OUTPUTS]
    hh = n_out
    yy = hh + (t_n + 1) * h_n
    ea = yy + t_n * h_n
    eb = ea + t_n * e_n
    pooled = eb + (t_n + 1) * e_n
    hidden = pooled + 2 * h_n + g_n
    outs = hidden + d_n
    zero = np.float32(0.0)

    # the global inputs' part of every cell's first vector, then each cell's own
    for j in range(h_n):
        work[yy + j] = params[input_b + j]
    for i in range(g_n):
        v = x[int(params[gi + i])]
        if v != 0.0:
            row = global_w + i * h_n
            for j in range(h_n):
                work[yy + j] += v * params[row + j]
    for t in range(t_n):
        at = hh + t * h_n
        for j in range(h_n):
            work[at + j] = work[yy + j] + params[position + t * h_n + j]
        for c in range(c_n):
            v = x[int(params[ci + c * t_n + t])]
            if v != 0.0:
                row = input_w + c * h_n
                for j in range(h_n):
                    work[at + j] += v * params[row + j]
        for j in range(h_n):
            work[at + j] = max(work[at + j], zero)
    for j in range(h_n):
        work[hh + t_n * h_n + j] = zero

    # residual layers: each cell adds ReLU(b + itself x W_0 + its neighbour in direction d x W_(d+1))
    for layer in range(l_n):
        _cell_layer(params, work, layer_w + layer * (k_n + 1) * h_n * h_n, layer_b + layer * h_n, nb, hh, yy, t_n,
                    k_n, h_n)  # fmt: skip

    # per-cell actions; per-edge actions from the cell's half and the neighbour's half
    for t in range(t_n):
        for j in range(cc_n):
            total = params[cell_b + j]
            for i in range(h_n):
                total += work[hh + t * h_n + i] * params[cell_w + i * cc_n + j]
            work[int(params[cell_ids + t * cc_n + j])] = total
    for t in range(t_n + 1):
        for j in range(e_n):
            work[eb + t * e_n + j] = zero
            if t < t_n:
                work[ea + t * e_n + j] = params[edge_b + j]
        for i in range(h_n):
            v = work[hh + t * h_n + i]
            if v != 0.0:
                for j in range(e_n):
                    if t < t_n:
                        work[ea + t * e_n + j] += v * params[edge_w + i * e_n + j]
                    work[eb + t * e_n + j] += v * params[edge_w + (h_n + i) * e_n + j]
    for t in range(t_n):
        for d in range(k_n):
            u = int(params[nb + t * k_n + d])
            u = t_n if u < 0 else u
            e = t * k_n + d
            for j in range(e_n):
                work[int(params[edge_ids + e * e_n + j])] = work[ea + t * e_n + j] + work[eb + u * e_n + j]

    # global actions: from the cells' mean and maximum and the global inputs
    if o_n > 0:
        for j in range(h_n):
            total = zero
            top = work[hh + j]
            for t in range(t_n):
                v = work[hh + t * h_n + j]
                total += v
                top = max(top, v)
            work[pooled + j] = total / t_n
            work[pooled + h_n + j] = top
        for i in range(g_n):
            work[pooled + 2 * h_n + i] = x[int(params[gi + i])]
        for j in range(d_n):
            work[hidden + j] = params[other_b1 + j]
        for i in range(2 * h_n + g_n):
            v = work[pooled + i]
            if v != 0.0:
                row = other_w1 + i * d_n
                for j in range(d_n):
                    work[hidden + j] += v * params[row + j]
        for j in range(o_n):
            work[outs + j] = params[other_b2 + j]
        for i in range(d_n):
            v = work[hidden + i]
            if v > 0.0:
                row = other_w2 + i * o_n
                for j in range(o_n):
                    work[outs + j] += v * params[row + j]
        for j in range(o_n):
            work[int(params[other_ids + j])] = work[outs + j]
    return 0


@njit(cache=True)
def net_act(params: np.ndarray, header: np.ndarray, x: np.ndarray, mask: np.ndarray, rng: np.ndarray,
            work: np.ndarray) -> int:  # fmt: skip
    """The net's move at observation `x` among the actions `mask` allows (at least one): the first of the highest
    masked logits, or (header's H_DETERMINISTIC 0) a sample of their softmax, one draw of `rng`. Logits that are
    not numbers never win over a legal action: the move is always legal."""
    at = net_forward(params, header, x, work)
    n = header[H_OUTPUTS]
    best, top = -1, -np.inf
    for a in range(n):
        if mask[a] and (best < 0 or work[at + a] > top):
            best, top = a, work[at + a]
    if header[H_DETERMINISTIC] or not np.isfinite(top):
        return best
    total = 0.0
    for a in range(n):
        if mask[a]:
            total += np.exp(np.float64(work[at + a]) - top)
    u = (rng_below(rng, 1 << _UNIT_BITS) + 0.5) / (1 << _UNIT_BITS) * total
    for a in range(n):
        if mask[a]:
            u -= np.exp(np.float64(work[at + a]) - top)
            if u < 0.0:
                return a
    return best  # rounding left u at 0 past the last legal action


@njit(cache=True, parallel=True)
def net_logits_batch(params: np.ndarray, header: np.ndarray, x: np.ndarray, work: np.ndarray, out: np.ndarray) -> None:
    """`out[m]`: the logits of observation `x[m]` (`work`: one scratch row per observation)."""
    n = out.shape[1]
    for m in prange(x.shape[0]):
        at = net_forward(params, header, x[m], work[m])
        for a in range(n):
            out[m, a] = work[m, at + a]


@njit(cache=True, parallel=True)
def net_act_batch(params: np.ndarray, header: np.ndarray, x: np.ndarray, masks: np.ndarray, rng: np.ndarray,
                  work: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """`out[m]`: the net's move at `x[m]` under `masks[m]`. A sampling net draws from `rng` row after row, so its
    moves do not depend on the threads; the argmax is taken in parallel."""
    if header[H_DETERMINISTIC]:
        for m in prange(x.shape[0]):
            out[m] = net_act(params, header, x[m], masks[m], rng, work[m])
    else:
        for m in range(x.shape[0]):
            out[m] = net_act(params, header, x[m], masks[m], rng, work[m])
