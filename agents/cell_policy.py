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
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution, MaybeMasks
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn
from torch.distributions import Distribution
from torch.nn import functional as F

from suntzu_env.core.policy_net import MAX_CELL_LAYERS, MAX_CELL_WIDTH, CellLayout

CELL_DEFAULTS: dict[str, int] = {"width": 64, "layers": 4, "hidden": 256}  # a cell network's sizes by default
MAX_HIDDEN = 4096
MAX_BATCH_TABLES = 8  # batch sizes whose layer tables a trunk keeps


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


class CellLayers:
    """The residual layers' tables for a batch of positions, on rows of the cells' vectors flattened (position
    b's cell t is row b x cells + t, one zero row last): `forward` names the rows each cell's input reads (itself,
    then its neighbours; the zero row where there is none), `backward` the rows whose layer gradient each cell
    collects, by the part of the input it was read into and copy (`copies` at most per part; the zero row where
    there are fewer). Read so, a layer's gradient is one gather and one product, as its forward pass is."""

    def __init__(self, around: np.ndarray, n_cells: int) -> None:
        self.n_cells, self.span = n_cells, around.shape[1]
        self.around = np.where((around < 0) | (around >= n_cells), -1, around).astype(np.int64)  # -1: none
        readers = [[np.flatnonzero(self.around[:, part] == cell) for part in range(self.span)]
                   for cell in range(n_cells)]  # fmt: skip
        self.copies = max(1, *(len(rows) for parts in readers for rows in parts))
        self.back = np.full((n_cells, self.span, self.copies), -1, np.int64)  # -1: the zero row
        for cell, parts in enumerate(readers):
            for part, rows in enumerate(parts):
                self.back[cell, part, : len(rows)] = rows
        self._made: dict[tuple[int, torch.device], tuple[torch.Tensor, torch.Tensor]] = {}

    def tables(self, batch: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """(forward, backward) row indices for `batch` positions (made once per batch size and device)."""
        key = (batch, device)
        if key not in self._made:
            rows = batch * self.n_cells
            start = np.arange(batch, dtype=np.int64)[:, None, None] * self.n_cells
            forward = np.where(self.around < 0, rows, start + self.around)
            backward = np.where(self.back < 0, rows, start[..., None] + self.back)
            if len(self._made) >= MAX_BATCH_TABLES:
                self._made.pop(next(iter(self._made)))
            self._made[key] = (torch.as_tensor(forward.ravel(), device=device),
                               torch.as_tensor(backward.ravel(), device=device))  # fmt: skip
        return self._made[key]


class _Layer(torch.autograd.Function):
    """One residual layer on the flattened rows (a zero row last), fused: the rows each cell reads are gathered
    once, multiplied once, and the layer's ReLU and residual sum written into a fresh padded block. Its gradient
    is the same: the ReLU's gradient gathered by the `backward` table, times the weights' parts stacked."""

    @staticmethod
    def forward(ctx: Any, h: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,  # type: ignore[override]
                tables: tuple[torch.Tensor, torch.Tensor], copies: int) -> torch.Tensor:  # fmt: skip
        rows, width = h.shape[0] - 1, h.shape[1]
        around = h.index_select(0, tables[0]).view(rows, -1)
        act = torch.addmm(bias, around, weight.t()).relu_()
        out = h.new_empty(rows + 1, width)
        out[rows].zero_()
        torch.add(h[:rows], act, out=out[:rows])
        ctx.save_for_backward(around, act, weight)
        ctx.backward_rows, ctx.copies = tables[1], copies
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        around, act, weight = ctx.saved_tensors
        rows, width = act.shape
        g = grad[:rows]
        g_act = grad.new_empty(rows + 1, width)
        g_act[rows].zero_()
        torch.ops.aten.threshold_backward.grad_input(g, act, 0.0, grad_input=g_act[:rows])
        read = g_act.index_select(0, ctx.backward_rows).view(rows, -1)  # (rows, parts x copies x width)
        parts = weight.view(width, -1, width).transpose(0, 1)  # (parts, out, in)
        stacked = parts[:, None].expand(-1, ctx.copies, -1, -1).reshape(-1, width)
        g_h = grad.new_empty(rows + 1, width)
        g_h[rows].zero_()
        torch.addmm(g, read, stacked, out=g_h[:rows])
        g_act = g_act[:rows]
        return g_h, g_act.t() @ around, g_act.sum(0), None, None


class LogitTables:
    """Where each action's logit is read in a batch's pool of head outputs (each row: every cell's `heads`
    outputs, cell after cell, then the global actions', then a zero): `first` and `second` name the two values
    an action's logit adds (a cell's action: its own output and the zero; an edge's: the cell's half and its
    neighbour's, or the zero where there is no neighbour; a global action: its output and the zero), `back` the
    actions (padded by `n_actions`, a zero past the logits) whose gradients each pool value collects."""

    def __init__(self, tables: Mapping[str, np.ndarray]) -> None:
        n_cells, degree = tables["neighbours"].shape
        per_cell, per_edge = tables["cell_ids"].shape[1], tables["edge_ids"].shape[1]
        n_other = len(tables["other_ids"])
        self.heads = per_cell + 2 * per_edge  # per cell: its actions, its half of its edges', a neighbour's half
        self.zero = zero = n_cells * self.heads + n_other  # the zero's place in a pool row
        n_actions = len(tables["other_ids"]) + tables["cell_ids"].size + tables["edge_ids"].size
        first, second = np.zeros(n_actions, np.int64), np.full(n_actions, zero, np.int64)
        cell_at = np.arange(n_cells)[:, None] * self.heads
        first[tables["cell_ids"]] = cell_at + np.arange(per_cell)
        edges = tables["edge_ids"].reshape(n_cells, degree, per_edge)
        first[edges] = (cell_at + per_cell)[:, :, None] + np.arange(per_edge)
        neighbour = tables["neighbours"]
        far = np.where(neighbour < 0, -1, neighbour * self.heads + per_cell + per_edge)
        second[edges] = np.where(far[:, :, None] < 0, zero, far[:, :, None] + np.arange(per_edge))
        first[tables["other_ids"]] = n_cells * self.heads + np.arange(n_other)
        uses: list[list[int]] = [[] for _ in range(zero)]
        for action, (a, b) in enumerate(zip(first, second, strict=True)):
            for value in (a, b):
                if value < zero:
                    uses[value].append(action)
        self.most = max(len(u) for u in uses)
        back = np.full((zero, self.most), n_actions, np.int64)
        for value, actions in enumerate(uses):
            back[value, : len(actions)] = actions
        self.first, self.second, self.back = (torch.as_tensor(x.ravel()) for x in (first, second, back))

    def to(self, device: torch.device) -> LogitTables:
        self.first, self.second, self.back = (x.to(device) for x in (self.first, self.second, self.back))
        return self

    def padded(self) -> tuple[torch.Tensor, torch.Tensor]:
        """`first` and `second` with one more action past the last, reading the zero twice."""
        zero = self.second[-1:].new_full((1,), self.zero)
        return torch.cat([self.first, zero]), torch.cat([self.second, zero])


class _Logits(torch.autograd.Function):
    """The logits in the order of the action ids from the heads' outputs (B, cells x heads) and the global
    actions' (B, globals), each one or two gathered values added; the gradient is gathered back the same way."""

    @staticmethod
    def forward(ctx: Any, heads: torch.Tensor, other: torch.Tensor, tables: LogitTables) -> torch.Tensor:  # type: ignore[override]
        pool = torch.cat([heads, other, heads.new_zeros(heads.shape[0], 1)], 1)
        out = pool.index_select(1, tables.first)
        out += pool.index_select(1, tables.second)
        ctx.tables, ctx.split = tables, (heads.shape[1], other.shape[1])
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:  # type: ignore[override]
        tables: LogitTables = ctx.tables
        batch = grad.shape[0]
        padded = torch.cat([grad, grad.new_zeros(batch, 1)], 1)
        pool = padded.index_select(1, tables.back).view(batch, -1, tables.most).sum(2)
        heads, other = pool.split(ctx.split, 1)
        return heads, other, None


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
        neighbours = np.where(tables["neighbours"] < 0, n_cells, tables["neighbours"])  # n_cells: a zero row
        around = np.concatenate([np.arange(n_cells)[:, None], neighbours], 1)  # each cell, then its neighbours
        for name, value in (("cell_index", tables["cell_inputs"].T.ravel()),
                            ("global_inputs", tables["global_inputs"])):  # fmt: skip
            self.register_buffer(name, torch.as_tensor(value, dtype=torch.int64), persistent=False)
        self.around = CellLayers(around, n_cells)  # each layer's input
        self.logit_tables = LogitTables(tables)
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

    def board(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Each cell's vector (B, cells, width) and the global inputs (B, globals)."""
        batch = obs.shape[0]
        cells = obs.index_select(1, self.cell_index).view(batch, self.n_cells, -1)
        globals_ = obs.index_select(1, self.global_inputs)
        h = torch.relu(self.input(cells) + self.position + self.globals(globals_)[:, None, :])
        if not self.n_layers:
            return h, globals_
        tables = self.around.tables(batch, obs.device)
        rows = torch.cat([h.reshape(-1, self.width), h.new_zeros(1, self.width)])  # the cells' rows, a zero row
        for layer in self.layers:
            rows = _Layer.apply(rows, layer.weight, layer.bias, tables, self.around.copies)
        return rows[:-1].view(batch, self.n_cells, self.width), globals_

    @staticmethod
    def pooled(h: torch.Tensor, globals_: torch.Tensor) -> torch.Tensor:
        return torch.cat([h.mean(1), h.max(1).values, globals_], 1)

    def heads(self, h: torch.Tensor, pooled: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The heads' outputs the logits are read from: every cell's (B, cells x heads: its actions', its half of
        its edges', a neighbour's half) and the global actions' (B, globals)."""
        if self.logit_tables.first.device != h.device:
            self.logit_tables.to(h.device)
        width, edge = self.width, self.edge_head.weight
        weight = torch.cat([self.cell_head.weight, edge[:, :width], edge[:, width:]])  # a cell's heads, one layer
        bias = torch.cat([self.cell_head.bias, self.edge_head.bias, self.edge_head.bias.new_zeros(edge.shape[0])])
        return F.linear(h, weight, bias).view(h.shape[0], -1), self.other_head(pooled)

    def logits(self, h: torch.Tensor, globals_: torch.Tensor, pooled: torch.Tensor | None = None) -> torch.Tensor:
        """Every action's logit (B, actions)."""
        heads, other = self.heads(h, self.pooled(h, globals_) if pooled is None else pooled)
        return _Logits.apply(heads, other, self.logit_tables)

    def chosen_logits(self, h: torch.Tensor, pooled: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """The logits of actions `ids` (B, k; the id `n_actions` reads a zero), each read where `logits` reads it."""
        heads, other = self.heads(h, pooled)
        pool = torch.cat([heads, other, heads.new_zeros(heads.shape[0], 1)], 1)
        first, second = self.logit_tables.padded()
        return pool.gather(1, first[ids]) + pool.gather(1, second[ids])

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


MASKED_LOGIT = -1e8  # a masked action's log-probability, as sb3_contrib's masking gives it


def legal_ids(masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's legal actions (B, most legal in a row; ascending, padded with the number of actions) and which
    entries are legal ones (at least one a row, so that every row has a distribution)."""
    batch, n_actions = masks.shape
    rows, ids = masks.nonzero(as_tuple=True)
    counts = torch.bincount(rows, minlength=batch)
    most = max(1, int(counts.max())) if batch else 1
    at = torch.arange(len(ids), device=masks.device) - (torch.cumsum(counts, 0) - counts)[rows]
    legal = torch.full((batch, most), n_actions, dtype=torch.int64, device=masks.device)
    legal[rows, at] = ids
    valid = torch.arange(most, device=masks.device)[None, :] < counts[:, None]
    valid[:, 0] = True
    return legal, valid


class MaskedCategorical(MaskableCategorical):
    """sb3_contrib's `MaskableCategorical` (the same log-probabilities, entropy and samples), normalised once,
    after the mask, and without an exponential of a masked logit: torch's `exp` takes a slow path for arguments
    below about -87, and sb3_contrib's masked logits (-1e8) sent every one of a minibatch's thousands of masked
    actions down it, in the normalisation, the probabilities and their gradients."""

    def __init__(self, logits: torch.Tensor, masks: MaybeMasks = None) -> None:
        self._original_logits = logits
        self.masks = None if masks is None else torch.as_tensor(masks, dtype=torch.bool, device=logits.device)
        if self.masks is None:
            log_p = logits - logits.logsumexp(-1, keepdim=True)
        else:
            keep = self.masks.reshape(logits.shape)
            top = torch.where(keep, logits, -torch.inf).amax(-1, keepdim=True).detach()
            shifted = torch.where(keep, logits - top, 0.0)
            e = torch.where(keep, shifted.exp(), 0.0)
            total = e.sum(-1, keepdim=True)
            log_p = torch.where(keep, shifted - total.log(), MASKED_LOGIT)
            self.probs = e / total
            self.masks = keep
        self.logits = self._param = log_p
        self._num_events = log_p.shape[-1]
        Distribution.__init__(self, log_p.shape[:-1], validate_args=False)

    def apply_masking(self, masks: MaybeMasks) -> None:
        self.__dict__.pop("probs", None)
        self.__init__(self._original_logits, masks)  # type: ignore[misc]


class MaskedCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3_contrib's masked categorical distribution made of `MaskedCategorical`s: the logits are normalised
    when the mask is applied (or when first asked for without one), not before and after."""

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedCategoricalDistribution:
        self._logits, self._made = action_logits.view(-1, self.action_dim), None
        return self

    @property  # type: ignore[override]
    def distribution(self) -> MaskedCategorical:
        if self._made is None:
            self._made = MaskedCategorical(self._logits)
        return self._made

    @distribution.setter
    def distribution(self, value: MaskedCategorical | None) -> None:
        self._made = value

    def apply_masking(self, masks: MaybeMasks) -> None:
        self._made = MaskedCategorical(self._logits, masks)


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
        self.action_dist = MaskedCategoricalDistribution(self.layout.n_actions)
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return super()._get_constructor_parameters() | {"cells": self.cells, "layout": self.layout}

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
        """The actions (sampled, or the argmax), values and log-probabilities of `obs`, as MaskablePPO's rollouts
        ask for them; with masks, only the legal actions' logits are computed."""
        if action_masks is None:
            return super().forward(obs, deterministic)
        dist, values, legal = self._legal(obs, action_masks)
        at = dist.probs.argmax(1) if deterministic else dist.sample()
        return legal.gather(1, at[:, None])[:, 0], values, dist.log_prob(at)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks: np.ndarray | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:  # fmt: skip
        """The values, log-probabilities of `actions` and entropies at `obs`, as PPO's updates ask for them; with
        masks, only the legal actions' logits are computed (an action the mask forbids: `MASKED_LOGIT`)."""
        if action_masks is None:
            return super().evaluate_actions(obs, actions)
        dist, values, legal = self._legal(obs, action_masks)
        actions = actions.reshape(-1, 1).long()
        at = torch.searchsorted(legal, actions).clamp_(max=legal.shape[1] - 1)
        log_prob = dist.log_prob(at[:, 0])
        log_prob = torch.where(legal.gather(1, at)[:, 0] == actions[:, 0], log_prob, MASKED_LOGIT)
        return values, log_prob, dist.entropy()

    def _legal(self, obs: torch.Tensor, action_masks: np.ndarray | torch.Tensor
               ) -> tuple[MaskedCategorical, torch.Tensor, torch.Tensor]:  # fmt: skip
        """The distribution over each position's legal actions (in the order of their ids, padded), the values,
        and the legal ids (B, most legal; padded with `n_actions`)."""
        trunk: CellTrunk = self.mlp_extractor  # type: ignore[assignment]
        h, globals_ = trunk.board(self.extract_features(obs))  # type: ignore[arg-type]
        pooled = trunk.pooled(h, globals_)
        masks = torch.as_tensor(action_masks, device=h.device).reshape(h.shape[0], -1)
        legal, valid = legal_ids(masks != 0)
        dist = MaskedCategorical(trunk.chosen_logits(h, pooled, legal), valid)
        return dist, self.value_net(trunk.value_hidden(pooled)), legal

    def cell_arrays(self) -> dict[str, np.ndarray]:
        """The actor, packed for `suntzu_env.core.policy_net.CellNet`."""
        return self.mlp_extractor.arrays()  # type: ignore[operator]
