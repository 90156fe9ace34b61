"""The warm start keeps its decisions compact (`experiments.warm_start.Decisions`) and gives them back exactly."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from experiments.warm_start import DecisionLog
from experiments.warm_start import Decisions
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st


def _logged(rng: np.random.Generator, n: int, width: int, n_actions: int) -> tuple[Decisions, np.ndarray, np.ndarray]:
    """`n` random decisions logged one by one, and their dense observations (as float16, then float32) and masks."""
    obs = rng.random((n, width), dtype=np.float32) * (rng.random((n, width)) < 0.2)  # mostly zeros, as observed
    obs[:, :1] = 1e-9  # below float16's range: it is learnt as 0, so it is kept as 0
    masks = rng.random((n, n_actions)) < 0.1
    log = DecisionLog(width, n_actions)
    for i in range(n):
        log.add(obs[i], masks[i].astype(np.int8), int(i))
    decisions = log.decisions([float(i % 3 - 1) for i in range(n)], [(n - i) % 5 for i in range(n)])
    return decisions, obs.astype(np.float16).astype(np.float32), masks


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=4),
    width=st.integers(1, 70),
    n_actions=st.integers(1, 40),
)
def test_decisions_give_back_the_dense_observations_and_masks_of_any_rows(
    seed: int, sizes: list[int], width: int, n_actions: int
) -> None:
    """Logged in parts, joined, then read back in any order (repeats included): exactly the observations as they are
    learnt (rounded to float16), the masks, the labels, the results and the decisions left."""
    rng = np.random.default_rng(seed)
    parts = [_logged(rng, n, width, n_actions) for n in sizes]
    joined = Decisions.concatenate([p[0] for p in parts])
    dense = np.concatenate([p[1] for p in parts])
    masks = np.concatenate([p[2] for p in parts])
    assert joined.size == sum(sizes)
    rows = rng.integers(0, max(joined.size, 1), size=joined.size * 2) if joined.size else np.zeros(0, dtype=np.int64)
    obs, got_masks = joined.batch(rows)
    assert obs.dtype == np.float32 and got_masks.dtype == np.bool_
    assert np.array_equal(obs, dense[rows]) and np.array_equal(got_masks, masks[rows])
    assert np.array_equal(joined.actions, np.concatenate([p[0].actions for p in parts]))
    assert np.array_equal(joined.results[rows], np.concatenate([p[0].results for p in parts])[rows])
    assert np.array_equal(joined.remaining, np.concatenate([p[0].remaining for p in parts]))


def test_the_value_learns_each_result_discounted_by_the_seats_decisions_left() -> None:
    """`--gamma` below 1: a result 3 of the seat's decisions away is worth gamma**3 of it, as PPO's returns
    count it; at gamma 1 the results themselves."""
    log = DecisionLog(2, 2)
    for i in range(4):
        log.add(np.ones(2), np.ones(2, dtype=np.int8), i % 2)
    data = log.decisions([1.0, 1.0, -1.0, 0.5], [3, 0, 1, 0])
    rows = np.arange(4)
    assert np.allclose(data.value_targets(rows, 0.5), [0.125, 1.0, -0.5, 0.5])
    assert np.array_equal(data.value_targets(rows, 1.0), data.results)
    assert np.array_equal(log.decisions([1.0] * 4).value_targets(rows, 0.5), np.ones(4))  # none counted: undiscounted


def test_the_decisions_left_are_counted_per_seat_to_the_end_of_each_game() -> None:
    """Decisions of two seats interleaved: each counts the later ones of its own seat; a teacher's demonstrations
    (one seat recorded in each Bin'Fa game) count down to 0 at each game's last decision."""
    from experiments.warm_start import _decisions_after
    from experiments.warm_start import _demo_job
    from suntzu_env.binfa.plugin import BINFA

    assert _decisions_after([0, 1, 0, 0, 1]) == [2, 1, 1, 0, 0]
    assert _decisions_after([]) == []
    decisions = _demo_job(("binfa", "heuristic", 5, 2, BINFA.options(max_turns=10)))
    left = decisions.remaining.tolist()
    ends = [i for i, k in enumerate(left) if k == 0]
    assert len(ends) == 2 and ends[-1] == len(left) - 1
    for start, end in zip([0, ends[0] + 1], ends, strict=True):
        assert left[start : end + 1] == list(range(end - start, -1, -1))


def test_a_binfa_decision_takes_under_a_sixth_of_its_dense_bytes() -> None:
    """A Bin'Fa position's observation is mostly zeros and its mask mostly False: kept compact, a decision of the
    teacher's demonstrations takes under a sixth of the bytes of its float16 observation and boolean mask (the
    tactical pieces of binfa_v3, `enemy_closeness` above all, are not sparse)."""
    from experiments.warm_start import _demo_job
    from suntzu_env.binfa.plugin import BINFA

    decisions = _demo_job(("binfa", "heuristic", 5, 1, BINFA.options(max_turns=10)))
    compact = sum(getattr(decisions, name).nbytes for name in ("starts", "columns", "values", "masks"))
    dense = decisions.size * (2 * BINFA.observation_size + BINFA.n_actions)
    assert decisions.size > 0 and compact * 6 < dense


def test_the_teachers_shares_are_kept_and_joined_with_one_hots() -> None:
    """A teacher that gives its shares of the actions (a search's visits) has them kept beside its labels; parts
    of teachers without them join as one-hots of their labels, and decisions with none at all keep none."""
    rng = np.random.default_rng(0)
    plain, _, masks = _logged(rng, 3, 5, 4)
    assert plain.targets is None and np.array_equal(plain.shares_of(np.arange(3)), np.eye(4, dtype=np.float16)[:3])
    log = DecisionLog(5, 4)
    shares = np.array([[0.5, 0.25, 0.25, 0.0], [0.0, 0.0, 0.125, 0.875]], dtype=np.float32)
    log.add(np.ones(5), masks[0].astype(np.int8), 0, shares[0])
    log.add(np.ones(5), masks[1].astype(np.int8), 3)  # no shares for this one: its label's one-hot
    log.add(np.ones(5), masks[2].astype(np.int8), 3, shares[1])
    searched = log.decisions([1.0, 0.0, 1.0])
    assert searched.targets is not None and searched.targets.values.dtype == np.float16
    assert len(searched.targets.values) == 6  # the non-zeros alone: 3 + 1 + 2
    expected = np.array([shares[0], [0, 0, 0, 1], shares[1]], dtype=np.float16)
    assert np.array_equal(searched.shares_of(np.arange(3)), expected)
    assert np.array_equal(searched.shares_of(np.array([2, 0])), expected[[2, 0]])
    joined = Decisions.concatenate([plain, searched])
    assert np.array_equal(joined.shares_of(np.arange(6)), np.concatenate([np.eye(4, dtype=np.float16)[:3], expected]))
    assert Decisions.concatenate([plain, plain]).targets is None


@pytest.mark.parametrize("shares", [True, False])
def test_the_cloning_learns_the_teachers_shares_not_only_its_move(shares: bool) -> None:
    """Fitted to a position whose teacher played action 0 but gave it 3/4 of its visits and action 5 the rest, the
    policy learns about 3/4 and 1/4, the masked actions nothing; with `--no-bc-shares`, the move alone: nearly 1."""
    import torch
    from experiments.warm_start import _fit
    from sb3_contrib import MaskablePPO
    from suntzu_env import SunTzuGymEnv

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu", seed=0)
    width, n_actions = model.policy.observation_space.shape[0], int(model.policy.action_space.n)
    mask = np.zeros(n_actions, dtype=np.int8)
    mask[[0, 5, 9]] = 1
    share = np.zeros(n_actions, dtype=np.float32)
    share[[0, 5]] = 0.75, 0.25
    log = DecisionLog(width, n_actions)
    for _ in range(64):
        log.add(np.full(width, 0.5, dtype=np.float32), mask, 0, share)
    data = log.decisions([1.0] * 64)
    cfg = SimpleNamespace(bc_batch_size=32, batch_size=32, vf_coef=0.5, max_grad_norm=0.5, bc_shares=shares, gamma=1.0)
    optimizer = torch.optim.Adam(model.policy.parameters(), lr=3e-3)
    for _ in range(60):
        _fit(model.policy, optimizer, cfg, data, np.arange(64))
    obs = torch.full((1, width), 0.5)
    with torch.no_grad():
        dist = model.policy.get_distribution(obs, action_masks=mask[None].astype(bool))
    probs = dist.distribution.probs[0].numpy()
    if shares:
        assert abs(probs[0] - 0.75) < 0.05 and abs(probs[5] - 0.25) < 0.05 and probs[9] < 0.02
    else:
        assert probs[0] > 0.95


def test_the_dagger_rounds_ask_the_dagger_teacher_and_the_demonstrations_the_bc_teacher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--dagger-teacher`: a costly teacher may label only the positions the policy reaches, after a cheap teacher's
    demonstrations; without it, the DAgger rounds ask `--bc-teacher` (the run's one teacher)."""
    from experiments import warm_start
    from experiments.config import train_config_class
    from sb3_contrib import MaskablePPO
    from suntzu_env import SunTzuGymEnv

    asked: list[tuple[str, str]] = []

    def demo(job: tuple) -> Decisions:
        asked.append(("demo", job[1]))
        return real_demo(job)

    def student(job: tuple) -> tuple[Decisions, int]:
        asked.append(("dagger", job[1]))
        return real_student(job)

    real_demo, real_student = warm_start._demo_job, warm_start._student_job
    monkeypatch.setattr(warm_start, "_demo_job", demo)
    monkeypatch.setattr(warm_start, "_student_job", student)
    model = MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu", seed=0)
    config = train_config_class("suntzu")
    small = {"bc_games": 2, "bc_epochs": 1, "dagger_rounds": 1, "dagger_games": 2, "workers": 1, "progress_bar": False}
    figures = warm_start.behaviour_cloning(model, config(**small, dagger_teacher="random"))
    assert set(asked) == {("demo", "heuristic"), ("dagger", "random")} and figures["dagger"][0]["decisions"] > 0
    asked.clear()
    warm_start.behaviour_cloning(model, config(**small))
    assert set(asked) == {("demo", "heuristic"), ("dagger", "heuristic")}


def test_with_no_cloning_epoch_only_the_dagger_rounds_fit(capsys: pytest.CaptureFixture[str]) -> None:
    """`--bc-epochs 0`: the demonstrations are played but fitted only inside the DAgger rounds' passes; with no
    round the policy is left as it was, and the progress says so without a cloning stage of 0 epochs."""
    import torch
    from experiments import warm_start
    from experiments.config import train_config_class
    from sb3_contrib import MaskablePPO
    from suntzu_env import SunTzuGymEnv

    model = MaskablePPO("MlpPolicy", SunTzuGymEnv(), n_steps=64, batch_size=64, device="cpu", seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    config = train_config_class("suntzu")
    small = {"bc_games": 2, "bc_epochs": 0, "dagger_games": 2, "workers": 1, "progress_bar": True}
    figures = warm_start.behaviour_cloning(model, config(**small, dagger_rounds=0))
    assert figures["decisions"] > 0 and "loss" not in figures and "dagger" not in figures
    assert all(torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    figures = warm_start.behaviour_cloning(model, config(**small, dagger_rounds=1))
    assert figures["dagger"][0]["decisions"] > 0 and "loss" in figures["dagger"][0]
    assert not all(torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    out = capsys.readouterr().out
    assert "then no epoch" in out and "behaviour cloning on" not in out  # the epochs' stage line is not printed
