"""A cell network as a MaskablePPO policy (`--network cells`): the torch side of `suntzu_env.core.policy_net.CellNet`.

The game declares its board (`GameRules.cell_layout`); the network shares its weights over the board's cells, so
what it learns of a stack on one triangle holds on every other (a flat MLP learns each of its thousands of move ids
apart, and does not carry it across the board). `CellPolicy.cell_arrays()` packs the actor for compiled play,
where `agents.ppo.PPOAgent` and the batched environments play it; the same arrays in the same order give the same
logits (a test holds them to 1e-4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn
from torch.nn import functional as F

from suntzu_env.core.policy_net import MAX_CELL_LAYERS, MAX_CELL_WIDTH, CellLayout

CELL_DEFAULTS: dict[str, int] = {"width": 64, "layers": 4, "hidden": 256}  # a cell network's sizes by default
MAX_HIDDEN = 4096
MAX_LOGIT_RUNS = 64  # the logits put together from at most this many slices; past it, by one gather


def cell_sizes(cells: Mapping[str, Any]) -> dict[str, int]:
    """A cell network's sizes (`CELL_DEFAULTS`' keys), checked: ValueError naming the one out of range."""
    unknown = sorted(set(cells) - set(CELL_DEFAULTS))
    if unknown:
        raise ValueError(f"a cell network's sizes are {', '.join(CELL_DEFAULTS)}; got {', '.join(map(str, unknown))}")
    sizes = CELL_DEFAULTS | dict(cells)
    limits = {"width": MAX_CELL_WIDTH, "layers": MAX_CELL_LAYERS, "hidden": MAX_HIDDEN}
    for name, value in sizes.items():
        if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= limits[name]):
            raise ValueError(f"a cell network's {name} must be a whole number from 1 to {limits[name]}, got {value!r}")
    return sizes


class CellGather:
    """Rows of each cell's vectors in a fixed order (`index`: a cell, or `cells` for a zero row), as a gather whose
    gradient is a gather too: each cell's gradient is the sum of the rows it was copied to, read through a table
    made once (torch's own gradient of `index_select` adds the rows one by one, which on a CPU costs more than the
    layer's matrix product)."""

    def __init__(self, index: np.ndarray, cells: int) -> None:
        index = np.asarray(index, np.int64).ravel()
        copies = [np.flatnonzero(index == cell) for cell in range(cells)]
        most = max(1, *(len(rows) for rows in copies))
        back = np.full((cells, most), len(index), np.int64)  # len(index): a zero row of the gradient
        for cell, rows in enumerate(copies):
            back[cell, : len(rows)] = rows
        self.index, self.back = torch.as_tensor(index), torch.as_tensor(back.ravel())
        self.most = most

    def to(self, device: torch.device) -> CellGather:
        self.index, self.back = self.index.to(device), self.back.to(device)
        return self

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """(B, cells, width) -> (B, len(index), width)."""
        if self.index.device != x.device:
            self.to(x.device)
        return _Gather.apply(x, self)


class _Gather(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gather: CellGather) -> torch.Tensor:  # type: ignore[override]
        ctx.gather = gather
        padded = torch.cat([x, x.new_zeros(x.shape[0], 1, x.shape[2])], 1)
        return padded.index_select(1, gather.index)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        gather: CellGather = ctx.gather
        batch, _, width = grad.shape
        padded = torch.cat([grad, grad.new_zeros(batch, 1, width)], 1)
        rows = padded.index_select(1, gather.back).view(batch, -1, gather.most, width)
        return rows.sum(2), None


class CellTrunk(nn.Module):
    """The network over the cells: the actor's logits (`forward_actor`) and the critic's hidden layer
    (`forward_critic`), from a flat observation, as SB3's `mlp_extractor` is asked for them; `forward` gives both
    from one pass over the board.

    Every gather is one `index_select` over a table made once: a cell's channels, each layer's input (the cell and
    its neighbours side by side, a zero row where there is none), the neighbour's half of the edge logits. The edge
    head is split into the cell's half and the neighbour's, computed once per cell (not once per edge), and each
    action group comes out in the order of its ids, so that the logits are a few slices put together."""

    def __init__(self, layout: CellLayout, width: int, layers: int, hidden: int) -> None:
        super().__init__()
        tables = layout.tables()
        n_cells, degree = tables["neighbours"].shape
        channels, n_globals = len(tables["cell_inputs"]), len(tables["global_inputs"])
        per_cell, per_edge, n_other = tables["cell_ids"].shape[1], tables["edge_ids"].shape[1], len(tables["other_ids"])
        self.tables = tables
        self.width, self.n_layers, self.hidden = width, layers, hidden
        self.n_cells, self.degree = n_cells, degree
        self.edge_groups = [per for _, per in layout.edge_actions]
        neighbours = np.where(tables["neighbours"] < 0, n_cells, tables["neighbours"])  # n_cells: a zero row
        around = np.concatenate([np.arange(n_cells)[:, None], neighbours], 1)  # each cell, then its neighbours
        pieces, order = self._pieces(layout, tables)
        for name, value in (("cell_index", tables["cell_inputs"].T.ravel()), ("global_inputs", tables["global_inputs"]),
                            ("logit_order", order)):  # fmt: skip
            self.register_buffer(name, torch.as_tensor(value, dtype=torch.int64), persistent=False)
        self.around = CellGather(around, n_cells)  # each layer's input
        self.neighbour = CellGather(neighbours, n_cells)  # the neighbour's half of the edge logits
        self.runs = pieces  # (start, end) slices of the pieces' concatenation, in the order of the action ids
        self.input = nn.Linear(channels, width)
        self.globals = nn.Linear(n_globals, width, bias=False)
        self.position = nn.Parameter(torch.zeros(n_cells, width))
        self.layers = nn.ModuleList(nn.Linear((degree + 1) * width, width) for _ in range(layers))
        self.cell_head = nn.Linear(width, per_cell)
        self.edge_head = nn.Linear(2 * width, per_edge)
        pooled = 2 * width + n_globals
        self.other_head = nn.Sequential(nn.Linear(pooled, hidden), nn.ReLU(), nn.Linear(hidden, n_other))
        self.value_hidden = nn.Sequential(nn.Linear(pooled, hidden), nn.ReLU())
        self.latent_dim_pi = layout.n_actions
        self.latent_dim_vf = hidden

    @staticmethod
    def _pieces(layout: CellLayout, tables: dict[str, np.ndarray]) -> tuple[list[tuple[int, int]] | None, np.ndarray]:
        """How the logits are put together from the pieces `logits` makes (each cell group, then each edge group,
        cell- or edge-major, then the global actions): slices of the pieces' concatenation in the order of the
        action ids (None where that would take more than a few), and the permutation that does it in one gather."""
        cells = tables["cell_ids"].T.ravel()  # group-major: a group's ids run over the cells
        edges, at = [], 0
        for _, per in layout.edge_actions:
            edges.append(tables["edge_ids"][:, at : at + per].ravel())
            at += per
        source = np.concatenate([cells, *edges, tables["other_ids"]])
        order = np.argsort(source)
        breaks = np.flatnonzero(np.diff(order) != 1) + 1
        starts, ends = np.concatenate([[0], breaks]), np.concatenate([breaks, [len(order)]])
        runs = [(int(order[s]), int(order[e - 1]) + 1) for s, e in zip(starts, ends, strict=True)]
        return (runs if len(runs) <= MAX_LOGIT_RUNS else None), order

    def board(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Each cell's vector (B, cells, width) and the global inputs (B, globals)."""
        batch = obs.shape[0]
        cells = obs.index_select(1, self.cell_index).view(batch, self.n_cells, -1)
        globals_ = obs.index_select(1, self.global_inputs)
        h = torch.relu(self.input(cells) + self.position + self.globals(globals_)[:, None, :])
        for layer in self.layers:
            around = self.around(h)  # (B, cells x (1 + degree), width)
            h = h + torch.relu(layer(around.view(batch, self.n_cells, -1)))
        return h, globals_

    @staticmethod
    def pooled(h: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        return torch.cat([h.mean(1), h.amax(1), globals_], 1)

    def logits(self, h: torch.Tensor, globals_: torch.Tensor, pooled: torch.Tensor | None = None) -> torch.Tensor:
        batch, width = h.shape[0], self.width
        weight = self.edge_head.weight
        halves = F.linear(h, torch.cat([weight[:, :width], weight[:, width:]], 0))  # (B, cells, 2 x per edge)
        per_edge = weight.shape[0]
        own, other = halves[..., :per_edge] + self.edge_head.bias, halves[..., per_edge:]
        other = self.neighbour(other)
        edges = own[:, :, None, :] + other.view(batch, self.n_cells, self.degree, per_edge)  # (B, cells, degree, E)
        pieces = [self.cell_head(h).transpose(1, 2).reshape(batch, -1)]
        at = 0
        for per in self.edge_groups:
            pieces.append(edges[..., at : at + per].reshape(batch, -1))
            at += per
        pieces.append(self.other_head(self.pooled(h, globals_) if pooled is None else pooled))
        if self.runs is None:
            return torch.cat(pieces, 1).index_select(1, self.logit_order)
        source = pieces[0] if len(pieces) == 1 else torch.cat(pieces, 1)
        return torch.cat([source[:, start:end] for start, end in self.runs], 1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, globals_ = self.board(features)
        pooled = self.pooled(h, globals_)
        return self.logits(h, globals_, pooled), self.value_hidden(pooled)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.logits(*self.board(features))

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_hidden(self.pooled(*self.board(features)))

    def arrays(self) -> dict[str, np.ndarray]:
        """The actor as `CellNet`'s named arrays (weights input-major)."""

        def t(x: torch.Tensor) -> np.ndarray:
            return x.detach().cpu().numpy().astype(np.float32)

        width, n_cells = self.width, self.tables["neighbours"].shape[0]
        degree = self.tables["neighbours"].shape[1]
        return dict(self.tables) | {
            "input_w": t(self.input.weight.T),
            "global_w": t(self.globals.weight.T),
            "input_b": t(self.input.bias),
            "position": t(self.position).reshape(n_cells, width),
            "layer_w": np.stack([t(layer.weight.T).reshape(degree + 1, width, width) for layer in self.layers]),
            "layer_b": np.stack([t(layer.bias) for layer in self.layers]),
            "cell_w": t(self.cell_head.weight.T),
            "cell_b": t(self.cell_head.bias),
            "edge_w": t(self.edge_head.weight.T).reshape(2, width, -1),
            "edge_b": t(self.edge_head.bias),
            "other_w1": t(self.other_head[0].weight.T),
            "other_b1": t(self.other_head[0].bias),
            "other_w2": t(self.other_head[2].weight.T),
            "other_b2": t(self.other_head[2].bias),
        }


class CellPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a `CellTrunk` for its actor and critic: `cells` sets its sizes (`CELL_DEFAULTS`),
    `layout` is the game's `cell_layout`. The logits are the trunk's own (no action layer after it)."""

    def __init__(self, *args: Any, cells: Mapping[str, Any], layout: CellLayout, **kwargs: Any) -> None:
        self.cells = cell_sizes(cells)
        self.layout = layout
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = CellTrunk(self.layout, **self.cells)  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return super()._get_constructor_parameters() | {"cells": self.cells, "layout": self.layout}

    def cell_arrays(self) -> dict[str, np.ndarray]:
        """The actor, packed for `suntzu_env.core.policy_net.CellNet`."""
        return self.mlp_extractor.arrays()  # type: ignore[operator]
