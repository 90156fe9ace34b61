"""The compiled policy network: its logits, its argmax and its samples, and the nets and inputs it refuses."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from agents.ppo import PolicyActor
from agents.ppo import PPOAgent
from suntzu_env.core.policy_net import H_ACTIVATION
from suntzu_env.core.policy_net import H_OFFSET
from suntzu_env.core.policy_net import H_WIDTHS
from suntzu_env.core.policy_net import PolicyNet
from suntzu_env.core.policy_net import net_act_batch
from suntzu_env.core.rng import rng_seed


def layers(sizes: tuple[int, ...], seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0, 0.7, (o, i)).astype(np.float32) for i, o in itertools.pairwise(sizes)]
    return weights, [rng.normal(0, 0.3, o).astype(np.float32) for o in sizes[1:]]


@pytest.mark.parametrize("activation", ["Tanh", "ReLU"])
def test_logits_are_the_layers_products(activation: str) -> None:
    weights, biases = layers((6, 5, 4, 3))
    x = np.random.default_rng(1).normal(size=(7, 6)).astype(np.float32)
    x[:, 2] = 0.0  # zero inputs are skipped: the same products
    h = x.astype(np.float64)
    for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
        h = h @ w.T.astype(np.float64) + b
        if k < 2:
            h = np.tanh(h) if activation == "Tanh" else np.maximum(h, 0.0)
    net = PolicyNet(weights, biases, activation)
    np.testing.assert_allclose(net.logits(x), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.logits(x[3]), h[3], rtol=1e-5, atol=1e-6)  # one observation


def test_the_argmax_is_the_first_highest_legal_logit() -> None:
    # One layer of zero weights: the logits are the biases, whatever the observation.
    net = PolicyNet([np.zeros((5, 3), np.float32)], [np.array([1.0, 3.0, 3.0, 2.0, 3.0], np.float32)])
    agent = PPOAgent(PolicyActor([np.zeros((5, 3), np.float32)], [np.array([1, 3, 3, 2, 3], np.float32)]))
    x = np.ones((4, 3), np.float32)
    masks = np.array([[1, 1, 1, 1, 1], [1, 0, 1, 1, 1], [1, 0, 0, 1, 1], [1, 0, 0, 1, 0]], np.int8)
    assert agent.act_batch(x, masks).tolist() == [1, 2, 4, 3]  # ties go to the first
    assert [agent.act(x[m], masks[m]) for m in range(4)] == [1, 2, 4, 3]
    assert net.n_inputs == 3 and net.n_outputs == 5


def test_samples_follow_the_softmax_of_the_legal_logits() -> None:
    p = np.array([0.1, 0.2, 0.3, 0.4], np.float64)
    net = PolicyNet([np.zeros((4, 2), np.float32)], [np.log(p).astype(np.float32)])
    header = net.playing(deterministic=False)
    n = 40_000
    x = np.ones((n, 2), np.float32)
    masks = np.ones((n, 4), np.int8)
    masks[:, 1] = 0  # the legal actions' softmax: 0.1, 0.3, 0.4 over 0.8
    out = np.empty(n, np.int64)
    rng = rng_seed(3)
    net_act_batch(net.params, header, x, masks, rng, np.empty((n, net.work_size), np.float32), out)
    freq = np.bincount(out, minlength=4) / n
    np.testing.assert_allclose(freq, [0.125, 0.0, 0.375, 0.5], atol=0.01)
    again = np.empty(n, np.int64)
    net_act_batch(net.params, header, x, masks, rng_seed(3), np.empty((n, net.work_size), np.float32), again)
    assert (again == out).all()  # the same generator, the same samples


def test_a_sampling_agent_is_reproducible_from_its_seed() -> None:
    actor = PolicyActor(*layers((6, 8, 5)))
    x = np.random.default_rng(2).normal(size=(50, 6)).astype(np.float32)
    masks = np.ones((50, 5), np.int8)
    a, b = PPOAgent(actor, False, seed=4), PPOAgent(actor, False, seed=4)
    assert (a.act_batch(x, masks) == b.act_batch(x, masks)).all()
    assert len(set(a.act_batch(np.repeat(x[:1], 50, 0), masks).tolist())) > 1  # it samples


def test_bad_nets_are_refused() -> None:
    weights, biases = layers((6, 5, 3))
    with pytest.raises(ValueError, match="activation must be one of"):
        PolicyNet(weights, biases, "Sigmoid")
    with pytest.raises(ValueError, match="as many weight matrices as bias vectors"):
        PolicyNet(weights, biases[:1])
    with pytest.raises(ValueError, match="layer 1: weights of shape"):
        PolicyNet([weights[0], weights[1][:, :4]], biases)
    with pytest.raises(ValueError, match="layer 0: weights of shape"):
        PolicyNet([weights[0], weights[1]], [biases[0][:2], biases[1]])
    broken = weights[1].copy()
    broken[0, 0] = np.nan
    with pytest.raises(ValueError, match="layer 1: the weights or biases hold NaN"):
        PolicyNet([weights[0], broken], biases)
    with pytest.raises(ValueError, match="1 to 8"):
        PolicyNet([np.zeros((3, 3), np.float32)] * 9, [np.zeros(3, np.float32)] * 9)


def test_bad_inputs_are_refused() -> None:
    agent = PPOAgent(PolicyActor(*layers((6, 5, 3))))
    with pytest.raises(ValueError, match=r"observations must have shape \(6,\) or \(M, 6\)"):
        agent.actor.logits(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="observations of width 6 and masks of width 3"):
        agent.act(np.zeros(6, np.float32), np.ones(4, np.int8))
    with pytest.raises(ValueError, match="allows no action"):
        agent.act_batch(np.zeros((2, 6), np.float32), np.array([[1, 0, 0], [0, 0, 0]], np.int8))
    with pytest.raises(ValueError, match="act takes one observation"):
        agent.act(np.zeros((2, 6), np.float32), np.ones((2, 3), np.int8))


def test_a_tampered_net_is_refused_before_compiled_code_reads_it() -> None:
    net = PolicyNet(*layers((6, 5, 3)))
    net.check()
    net.params = net.params[:-1]
    with pytest.raises(ValueError, match=r"widths \(6, 5, 3\) needs 53 finite float32 parameters"):
        net.check()
    for column, value in ((H_WIDTHS, 7), (H_OFFSET, 2), (H_ACTIVATION, 5)):
        net = PolicyNet(*layers((6, 5, 3)))
        net.header[column] = value
        with pytest.raises(ValueError, match="header does not match its widths"):
            net.check()
