"""A trained policy's actor network in compiled code: its logits and its move, written once.

A `PolicyNet` is a multilayer perceptron (linear layers, with Tanh or ReLU between them) packed into one
float32 vector, each layer's weights stored input-major so that the forward pass adds, for each nonzero input,
that input times its row of weights: an observation is mostly zeros (one-hot pieces), and those rows are never
read. `net_act` is the move of such a net, the argmax of its masked logits or a sample of their softmax from an
engine generator: `agents.ppo.PPOAgent` plays it one game or a batch at a time, and `SunTzuVecEnv` plays it
inside its compiled step for every game whose opponent is such an agent (a self-play snapshot, `ppo:<path>`).

A net is described to compiled code by a header row (int64, `HEADER_SIZE` entries, the `H_*` columns): where
its parameters start in the packed vector, its number of layers, its activation, whether it plays the argmax,
and its layer widths.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numba import njit, prange

from suntzu_env.engine.rng import rng_below

ACTIVATIONS: tuple[str, ...] = ("Tanh", "ReLU")  # by id, named as torch names the layers
ACT_TANH, ACT_RELU = 0, 1
MAX_LAYERS = 8  # linear layers a net may have

# Columns of a net's header row.
H_OFFSET = 0  # where its parameters start in the packed vector
H_LAYERS = 1  # linear layers
H_ACTIVATION = 2  # an id of ACTIVATIONS
H_DETERMINISTIC = 3  # 1: the argmax of the masked logits; 0: a sample of their softmax
H_WIDTHS = 4  # layer widths: the input, each hidden layer, the logits (H_LAYERS + 1 entries)
HEADER_SIZE = H_WIDTHS + MAX_LAYERS + 1

_UNIT_BITS = 24  # a sample's uniform number: 24 bits of the generator


class PolicyNet:
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
    def n_inputs(self) -> int:
        return self.widths[0]

    @property
    def n_outputs(self) -> int:
        return self.widths[-1]

    @property
    def work_size(self) -> int:
        """The float32 scratch a forward pass needs (two hidden layers' or the logits' width)."""
        return work_size(self.widths)

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each layer's (out, in) weights and (out,) bias, as views of the packed vector."""
        out, at = [], 0
        for n_in, n_out in itertools.pairwise(self.widths):
            bias = at + n_in * n_out
            out.append((self.params[at:bias].reshape(n_in, n_out).T, self.params[bias : bias + n_out]))
            at = bias + n_out
        return out

    def check(self) -> None:
        """ValueError unless the packed vector and the header still fit the widths (before compiled code reads them)."""
        w = self.widths
        size = sum((a + 1) * b for a, b in itertools.pairwise(w))
        params, header = self.params, self.header
        if not (isinstance(params, np.ndarray) and params.dtype == np.float32 and params.shape == (size,)
                and params.flags.c_contiguous and np.isfinite(params).all()):  # fmt: skip
            raise ValueError(f"a policy network of widths {w} needs {size} finite float32 parameters")
        expected = header_of(w, self.activation)
        if not (isinstance(header, np.ndarray) and np.array_equal(header, expected) and header.dtype == np.int64):
            raise ValueError(f"a policy network's header does not match its widths {w} and {self.activation}")

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


def header_of(widths: Sequence[int], activation: str) -> np.ndarray:
    """The header of a net of these layer widths and activation, its parameters at offset 0, playing by sampling."""
    header = np.zeros(HEADER_SIZE, dtype=np.int64)
    header[H_LAYERS] = len(widths) - 1
    header[H_ACTIVATION] = ACTIVATIONS.index(activation)
    header[H_WIDTHS : H_WIDTHS + len(widths)] = widths
    return header


def pack_nets(nets: Sequence[tuple[PolicyNet, bool] | None]) -> tuple[np.ndarray, np.ndarray, int]:
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
    """The logits of observation `x`, written into `work`; returns where they start there.

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


@njit(cache=True)
def net_act(params: np.ndarray, header: np.ndarray, x: np.ndarray, mask: np.ndarray, rng: np.ndarray,
            work: np.ndarray) -> int:  # fmt: skip
    """The net's move at observation `x` among the actions `mask` allows (at least one): the first of the highest
    masked logits, or (header's H_DETERMINISTIC 0) a sample of their softmax, one draw of `rng`. Logits that are
    not numbers never win over a legal action: the move is always legal."""
    at = net_forward(params, header, x, work)
    n = header[H_WIDTHS + header[H_LAYERS]]
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
