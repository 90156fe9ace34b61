"""The board network (`--network cells`): a layout declared once by the game, a torch policy and the same net in
compiled code, giving the same logits; read as data, refused when tampered with, and refused for a game without a
board."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.cell_policy import CellTrunk  # noqa: E402
from agents.cell_policy import MaskedCategoricalDistribution  # noqa: E402
from agents.cell_policy import cell_sizes  # noqa: E402
from agents.ppo import ModelError  # noqa: E402
from agents.ppo import PolicyActor  # noqa: E402
from agents.ppo import load_ppo_agent  # noqa: E402
from experiments.cli import ConfigError  # noqa: E402
from experiments.config import TrainConfig  # noqa: E402
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution  # noqa: E402
from suntzu_env.binfa.encoding import COUNT_SLOTS  # noqa: E402
from suntzu_env.binfa.encoding import N_DIRECTIONS  # noqa: E402
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS  # noqa: E402
from suntzu_env.binfa.encoding import to_view  # noqa: E402
from suntzu_env.binfa.geometry import N_TRIANGLES  # noqa: E402
from suntzu_env.binfa.geometry import STEP  # noqa: E402
from suntzu_env.binfa.observation import OBSERVATION_SIZE  # noqa: E402
from suntzu_env.binfa.plugin import BINFA  # noqa: E402
from suntzu_env.binfa.policy import BOARD  # noqa: E402
from suntzu_env.core.policy_net import CellLayout  # noqa: E402
from suntzu_env.core.policy_net import CellNet  # noqa: E402
from suntzu_env.core.policy_net import net_from_state  # noqa: E402

from helpers import binfa_model  # noqa: E402

# Two cells in a line: cell 0's only neighbour is cell 1, cell 1 has none. One channel per cell (observation
# values 0 and 1), one global value (2). Actions: one per cell (ids 0, 1), one per edge (ids 2, 3), one global (4).
LINE = CellLayout(neighbours=np.array([[1], [-1]]), cell_inputs=np.array([[0, 1]]), n_inputs=3, n_actions=5,
                  cell_actions=(0,), edge_actions=((2, 1),))  # fmt: skip


# Three cells, the first two with the third as their only neighbour: one cell read twice in the same direction.
FAN = CellLayout(neighbours=np.array([[2], [2], [-1]]), cell_inputs=np.array([[0, 1, 2]]), n_inputs=4, n_actions=7,
                 cell_actions=(0,), edge_actions=((3, 1),))  # fmt: skip


def line_net() -> CellTrunk:
    """The line's network, width 1, one layer, a global head 1 wide, with weights chosen to be added by hand."""
    trunk = CellTrunk(LINE, width=1, layers=1, hidden=1)
    values = {
        "input.weight": [[1.0]], "input.bias": [0.0], "globals.weight": [[1.0]], "position": [[0.0], [0.0]],
        "layers.0.weight": [[1.0, 1.0]], "layers.0.bias": [0.0],  # itself x 1 + its neighbour x 1
        "cell_head.weight": [[2.0]], "cell_head.bias": [1.0],
        "edge_head.weight": [[1.0, 10.0]], "edge_head.bias": [0.0],  # the cell x 1 + the neighbour x 10
        "other_head.0.weight": [[1.0, 1.0, 1.0]], "other_head.0.bias": [-1.0],  # mean, max, the global value
        "other_head.2.weight": [[2.0]], "other_head.2.bias": [0.5],
    }  # fmt: skip
    with torch.no_grad():
        for name, param in trunk.named_parameters():
            if name in values:
                param.copy_(torch.tensor(values[name]))
    return trunk


def test_a_line_of_two_cells_gives_the_logits_worked_out_by_hand() -> None:
    # Observation (1, 2, 0.5): first vectors ReLU(x_t + g) = 1.5, 2.5. The layer adds ReLU(self + neighbour):
    # cell 0: 1.5 + (1.5 + 2.5) = 5.5; cell 1 (no neighbour): 2.5 + 2.5 = 5.
    # Per cell: 2 h + 1 = 12, 11. Per edge: cell 0 -> 1: 5.5 + 10 * 5 = 55.5; cell 1 (no neighbour): 5.
    # Global: ReLU(mean 5.25 + max 5.5 + 0.5 - 1) = 10.25, then 2 * 10.25 + 0.5 = 21.
    x = np.array([[1.0, 2.0, 0.5]], np.float32)
    expected = [[12.0, 11.0, 55.5, 5.0, 21.0]]
    trunk = line_net()
    with torch.no_grad():
        np.testing.assert_allclose(trunk.forward_actor(torch.as_tensor(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(CellNet(trunk.arrays()).logits(x), expected, rtol=1e-6)


def test_bin_fa_s_board_names_every_observation_value_and_learning_id_once() -> None:
    tables = BOARD.tables()
    # terrain ... transfer_to with the six colours apart (17), then the five tactical pieces (binfa_v3)
    assert tables["cell_inputs"].shape == (22, N_TRIANGLES)
    assert len(tables["global_inputs"]) == OBSERVATION_SIZE - 22 * N_TRIANGLES
    assert tables["edge_ids"].shape == (N_TRIANGLES * N_DIRECTIONS, 1 + COUNT_SLOTS)  # dislodge, 13 move counts
    assert len(tables["other_ids"]) == N_LEARN_ACTIONS - N_TRIANGLES * (1 + N_DIRECTIONS * (1 + COUNT_SLOTS))
    every = np.concatenate([tables[k].ravel() for k in ("cell_ids", "edge_ids", "other_ids")])
    assert sorted(every.tolist()) == list(range(N_LEARN_ACTIONS))


def test_the_board_s_directions_are_the_same_from_every_seat() -> None:
    """BD12 turns the board to the viewer: a triangle's neighbour in each direction turns with it, so one
    neighbour table serves every seat's observation."""
    view = to_view.py_func
    for rot in range(6):
        for t in range(N_TRIANGLES):
            for d in range(N_DIRECTIONS):
                u = STEP[t, d]
                assert STEP[view(t, rot), d] == (view(int(u), rot) if u >= 0 else -1)


def positions(n: int) -> np.ndarray:
    """Observations of both seats along random games."""
    rng = np.random.default_rng(0)
    out = []
    for seed in range(3):
        game = BINFA.new(seed, BINFA.options(max_turns=30))
        while (name := game.current_player) is not None and len(out) < n * (seed + 1) // 3:
            out.append(game.observation(name))
            game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    return np.array(out, np.float32)


@pytest.mark.parametrize(("width", "layers"), [(8, 1), (24, 3)])
def test_compiled_logits_are_the_torch_network_s(width: int, layers: int) -> None:
    torch.manual_seed(width)
    trunk = CellTrunk(BOARD, width, layers, hidden=32)
    with torch.no_grad():
        trunk.position.normal_(0.0, 0.5)  # (zero when made: each cell its own here)
    x = positions(60)
    with torch.no_grad():
        expected = trunk.forward_actor(torch.as_tensor(x)).numpy()
    net = CellNet(trunk.arrays())
    np.testing.assert_allclose(net.logits(x), expected, rtol=1e-4, atol=1e-4)
    again = PolicyActor.from_state(PolicyActor.of(net).state()).net  # a pool snapshot's round trip
    assert again.kind == "cells" and np.array_equal(again.params, net.params)


def plain_forward(trunk: CellTrunk, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The network's logits and value layer computed plainly, by torch's own indexing and autograd: each layer on
    a cell and its neighbours side by side (zeros where there is none), the edge head on an edge's two ends."""
    tables, batch = trunk.tables, obs.shape[0]
    n_cells, degree = tables["neighbours"].shape
    neighbour = torch.as_tensor(np.where(tables["neighbours"] < 0, n_cells, tables["neighbours"]))
    globals_ = obs[:, torch.as_tensor(tables["global_inputs"])]
    h = torch.relu(trunk.input(obs[:, torch.as_tensor(tables["cell_inputs"].T)]) + trunk.position
                   + trunk.globals(globals_)[:, None])  # fmt: skip

    def beside(h: torch.Tensor, d: int) -> torch.Tensor:
        return torch.cat([h, h.new_zeros(batch, 1, h.shape[2])], 1)[:, neighbour[:, d]]

    for layer in trunk.layers:
        h = h + torch.relu(layer(torch.cat([h, *(beside(h, d) for d in range(degree))], 2)))
    pooled = torch.cat([h.mean(1), h.amax(1), globals_], 1)
    logits = h.new_zeros(batch, trunk.latent_dim_pi)
    logits[:, torch.as_tensor(tables["cell_ids"].ravel())] = trunk.cell_head(h).reshape(batch, -1)
    edge_ids = tables["edge_ids"].reshape(n_cells, degree, -1)
    for d in range(degree):
        edges = trunk.edge_head(torch.cat([h, beside(h, d)], 2))
        logits[:, torch.as_tensor(edge_ids[:, d].ravel())] = edges.reshape(batch, -1)
    logits[:, torch.as_tensor(tables["other_ids"])] = trunk.other_head(pooled)
    return logits, trunk.value_hidden(pooled)


@pytest.mark.parametrize(
    ("layout", "width", "layers", "batch"), [(LINE, 3, 2, 5), (FAN, 2, 3, 4), (BOARD, 6, 2, 7), (BOARD, 5, 1, 1)]
)
def test_the_fused_network_gives_the_plain_computation_s_outputs_and_gradients(
    layout: CellLayout, width: int, layers: int, batch: int
) -> None:
    """The layers fused into one gather and one product each, the heads of a cell in one product and the logits
    in one gather of the heads' outputs give the logits, values and every weight's gradient of the plain
    computation (a line with a cell without a neighbour, a cell read twice in one direction, Bin'Fa's board)."""
    torch.manual_seed(width)
    trunk = CellTrunk(layout, width, layers, hidden=4).double()
    with torch.no_grad():
        trunk.position.normal_(0.0, 0.5)
    obs = torch.rand(batch, layout.n_inputs, dtype=torch.float64) * (torch.rand(batch, layout.n_inputs) < 0.3)
    found = []
    for forward in (trunk.forward, lambda x: plain_forward(trunk, x)):
        trunk.zero_grad()
        logits, values = forward(obs)
        weights = torch.randn(logits.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        ((logits * weights).sum() + values.square().sum()).backward()
        grads = {name: p.grad.clone() for name, p in trunk.named_parameters() if p.grad is not None}
        found.append((logits.detach(), values.detach(), grads))
    (logits, values, grads), (plain_logits, plain_values, plain_grads) = found
    np.testing.assert_allclose(logits.numpy(), plain_logits.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(values.numpy(), plain_values.numpy(), rtol=1e-12, atol=1e-12)
    assert grads.keys() == plain_grads.keys() == {name for name, _ in trunk.named_parameters()}
    for name, grad in grads.items():
        np.testing.assert_allclose(grad.numpy(), plain_grads[name].numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_the_masked_distribution_is_sb3_contrib_s() -> None:
    """The board policy's distribution (normalised once, no exponential of a masked logit) gives sb3_contrib's
    log-probabilities, entropy, probabilities, modes and gradients, masked or not."""
    rng = np.random.default_rng(0)
    logits = torch.as_tensor(rng.normal(0.0, 3.0, (16, 300)))
    masks = rng.random((16, 300)) < 0.1
    masks[:, 0] = True
    actions = torch.as_tensor([np.flatnonzero(m)[-1] for m in masks])
    found = []
    for kind in (MaskableCategoricalDistribution, MaskedCategoricalDistribution):
        for mask in (masks, None):
            x = logits.clone().requires_grad_()
            dist = kind(300).proba_distribution(x)
            if mask is not None:
                dist.apply_masking(mask)
            log_p, entropy = dist.log_prob(actions), dist.entropy()
            (log_p.sum() + 0.3 * entropy.sum()).backward()
            assert x.grad is not None
            found.append([log_p.detach(), entropy.detach(), dist.distribution.probs.detach(), dist.mode(), x.grad,
                          dist.distribution.logits.detach()])  # fmt: skip
    for theirs, ours in zip(found[:2], found[2:], strict=True):
        for a, b in zip(theirs[:-1], ours[:-1], strict=True):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ours[-1].numpy(), theirs[-1].numpy(), rtol=1e-6)  # masked: about -1e8


def test_a_tampered_cell_net_is_refused_before_compiled_code_reads_it() -> None:
    arrays = line_net().arrays()
    for name, value, message in (
        ("neighbours", np.array([[2], [-1]]), r"neighbours reach outside \[-1, 2\)"),
        ("cell_ids", np.array([[0], [0]]), "ids tables must name each action once"),
        ("global_inputs", np.array([1]), "inputs tables must name each observation value once"),
        ("edge_ids", np.array([[2.5], [3]]), "tables hold fractions"),
        ("layer_w", np.zeros((1, 3, 1, 1)), "do not fit together: layer_w"),
        ("input_w", np.full((1, 1), np.nan), "finite float32 parameters"),
    ):
        with pytest.raises(ValueError, match=message):
            CellNet(arrays | {name: value})
    with pytest.raises(ValueError, match="needs the arrays position"):
        CellNet({k: v for k, v in arrays.items() if k != "position"})
    net = CellNet(arrays)
    net.params[0] = 7.0  # cell 0's neighbour, past the board
    with pytest.raises(ValueError, match="neighbours reach outside"):
        net.check()
    net = CellNet(arrays)
    net.header[6] += 1
    with pytest.raises(ValueError, match="header does not match"):
        net.check()
    with pytest.raises(ValueError, match="layers must be a whole number from 1 to 32"):
        cell_sizes({"width": 8, "layers": 10**6})
    with pytest.raises(ValueError, match="sizes are width, layers, hidden; got depth"):
        cell_sizes({"depth": 3})
    assert net_from_state(PolicyActor.of(CellNet(arrays)).state()).kind == "cells"


def test_a_board_model_reads_back_as_data_and_plays_as_saved(tmp_path: Path) -> None:
    model, path = binfa_model(tmp_path, network="cells")
    agent = load_ppo_agent(path, game=BINFA)
    x = positions(20)
    with torch.no_grad():
        expected = model.policy.mlp_extractor.forward_actor(torch.as_tensor(x)).numpy()  # type: ignore[attr-defined]
    assert agent.actor.net.kind == "cells"
    np.testing.assert_allclose(agent.actor.logits(x), expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(ModelError, match=r"trained on observations of shape \(2437,\) and 4269 actions"):
        load_ppo_agent(path)  # a Bin'Fa model is not Sun Tzu's


def test_a_board_network_is_refused_for_a_game_without_a_board() -> None:
    with pytest.raises(ConfigError, match="network: suntzu declares no board of cells; use mlp"):
        TrainConfig(network="cells")
    with pytest.raises(ConfigError, match="network must be one of mlp, cells"):
        TrainConfig(game="binfa", network="gnn")
    assert TrainConfig(game="binfa").network == "cells"  # Bin'Fa's default run


def test_the_legal_actions_alone_give_the_full_logits_actions_values_and_gradients() -> None:
    """With masks, the board policy computes only the legal actions' logits: its rollout's actions (argmax),
    values and log-probabilities, and its update's values, log-probabilities (-1e8 for a forbidden action),
    entropies and gradients are those of every action's logits masked."""
    from agents.cell_policy import CellPolicy
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    space = spaces.Box(-np.inf, np.inf, (BOARD.n_inputs,), np.float32)
    policy = CellPolicy(space, spaces.Discrete(BOARD.n_actions), lambda _: 1e-3, cells={"width": 8, "layers": 2},
                        layout=BOARD)  # fmt: skip
    obs = torch.as_tensor(positions(9))
    rng = np.random.default_rng(0)
    masks = rng.random((9, BOARD.n_actions)) < 0.01
    masks[:, 5] = True
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks])
    found = []
    for evaluate in (policy.evaluate_actions, lambda *a: MaskableActorCriticPolicy.evaluate_actions(policy, *a)):
        policy.zero_grad()
        values, log_prob, entropy = evaluate(obs, actions, torch.as_tensor(masks, dtype=torch.float32))
        assert entropy is not None
        (values.sum() + log_prob.sum() + 0.1 * entropy.sum()).backward()
        found.append([values.detach(), log_prob.detach(), entropy.detach()] + [p.grad for p in policy.parameters()])
    for ours, theirs in zip(*found, strict=True):
        assert theirs is not None and ours is not None
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        ours = policy(obs, deterministic=True, action_masks=masks)
        theirs = MaskableActorCriticPolicy.forward(policy, obs, deterministic=True, action_masks=masks)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
        sampled = policy(obs, action_masks=masks)[0].numpy()
        assert masks[np.arange(9), sampled].all()
        forbidden = torch.as_tensor([int(np.flatnonzero(~m)[0]) for m in masks])
        assert (policy.evaluate_actions(obs, forbidden, masks)[1] == -1e8).all()
