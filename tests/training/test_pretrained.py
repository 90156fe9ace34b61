"""The agents shipped inside the package (`suntzu_env.pretrained`): small files read as data, named like every
model (`ppo:pretrained/<name>`, `ismcts-value:pretrained/<name>`), offered by the app, each held to the win rates
its docs give on a small sample."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest
from experiments.game import game_of
from experiments.matches import play_match
from experiments.stats import headline
from suntzu_env.core.agent import IncompatibleModelError
from suntzu_env.core.agent import ModelError
from suntzu_env.core.npz import read_npz
from suntzu_env.core.stats import wilson
from suntzu_env.pretrained import CATALOG
from suntzu_env.pretrained import POLICY
from suntzu_env.pretrained import SHIPPED
from suntzu_env.pretrained import VALUE
from suntzu_env.pretrained import Shipped
from suntzu_env.pretrained import shipped
from suntzu_env.pretrained import shipped_specs

ROOT = Path(__file__).resolve().parents[2]
MAX_BYTES = 2 * 2**20  # a shipped file stays small: actor weights only, float32
Z99 = 2.5758293035489  # a 99% interval: a sample this small rarely misses the documented rate by chance
SAMPLE = 40  # seat-balanced games a documented rate is checked on
POLICIES = [entry for entry in SHIPPED.values() if entry.role == POLICY]


def test_every_shipped_network_is_a_small_float32_file_the_package_carries() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    from setuptools import find_packages

    assert "suntzu_env.pretrained" in find_packages(where=ROOT, include=config["packages"]["find"]["include"])
    patterns = config["package-data"]["suntzu_env.pretrained"]
    assert any(fnmatch(CATALOG, pattern) for pattern in patterns)
    for entry in SHIPPED.values():
        assert entry.file.parent == ROOT / "suntzu_env" / "pretrained" and entry.file.is_file(), entry.name
        assert any(fnmatch(entry.file.name, pattern) for pattern in patterns), entry.name
        assert entry.file.stat().st_size <= MAX_BYTES, entry.name
        arrays = read_npz(entry.file)
        assert all(a.dtype == np.float32 for a in arrays.values() if a.dtype.kind == "f"), entry.name
        assert not {"optimizer", "value_net", "log_std"} & set(arrays), entry.name  # the actor alone


@pytest.mark.parametrize("entry", SHIPPED.values(), ids=list(SHIPPED))
def test_each_shipped_network_learned_on_this_version_of_its_game(entry: Shipped) -> None:
    # a new environment version (another observation, other games from the same seeds) needs the agents refreshed
    assert entry.environment == game_of(entry.game).env().metadata["name"]
    assert shipped(f"pretrained/{entry.name}") is entry and entry.spec in shipped_specs(entry.game)
    assert entry.rates, f"{entry.name} documents no win rate"


def _check_rate(entry: Shipped, opponent: str, rate: float, games: int) -> None:
    result = play_match(entry.spec, opponent, games, seed=0, game=entry.game)
    won = headline(result, entry.game)[0]  # Bin'Fa's: the games won outright
    low, high = wilson(won * result["games"], result["games"], Z99)
    assert low <= rate <= high, (
        f"{entry.spec} won {won:.1%} of {games} games against {opponent}, which its documented "
        f"{rate:.1%} does not fit (99% interval [{low:.1%}, {high:.1%}])"
    )


@pytest.mark.parametrize(
    ("entry", "opponent", "rate"),
    [
        pytest.param(e, opponent, rate, marks=[pytest.mark.slow] if e.game == "binfa" else [])  # a minute each
        for e in POLICIES
        for opponent, rate, _ in e.rates
        if opponent in ("random", "greedy")
    ],
    ids=lambda value: value.name if isinstance(value, Shipped) else str(value),
)
def test_a_shipped_policy_plays_at_its_documented_win_rate(entry: Shipped, opponent: str, rate: float) -> None:
    _check_rate(entry, opponent, rate, SAMPLE)


@pytest.mark.slow
def test_the_shipped_value_network_makes_the_search_win_at_its_documented_rate() -> None:
    (entry,) = [e for e in SHIPPED.values() if e.role == VALUE]
    opponent, rate, _ = next(r for r in entry.rates if r[0] == "heuristic")
    _check_rate(entry, opponent, rate, 10)


def test_a_shipped_network_plays_only_its_own_game_and_role() -> None:
    from suntzu_env.binfa.plugin import BINFA
    from suntzu_env.suntzu.players import make_agent

    with pytest.raises(IncompatibleModelError, match="pretrained/suntzu plays the game suntzu, not binfa"):
        BINFA.make_agent("ppo:pretrained/suntzu")
    with pytest.raises(IncompatibleModelError, match="pretrained/binfa plays the game binfa, not suntzu"):
        make_agent("ppo:pretrained/binfa")
    with pytest.raises(ModelError, match="is a value network, not a policy: play it as ismcts-value:pretrained/"):
        make_agent("ppo:pretrained/suntzu-value")
    with pytest.raises(ModelError, match="not a value network: play it as ppo:pretrained/suntzu"):
        make_agent("ismcts-value:pretrained/suntzu")
    with pytest.raises(ModelError, match="no PPO model at pretrained/nothing"):
        make_agent("ppo:pretrained/nothing")
    agent = make_agent("ppo:pretrained/suntzu", 0)
    assert agent.compiled_policy() is not None  # the batched env plays it in compiled code


def test_the_app_offers_each_game_s_shipped_agents_without_a_training_run() -> None:
    from suntzu_env.binfa.web.live import BinFaMenu
    from suntzu_env.suntzu.web.live import AgentMenu

    menu, binfa = AgentMenu(), BinFaMenu()
    assert {"ppo:pretrained/suntzu", "ismcts-value:pretrained/suntzu-value"} <= set(menu.names())
    assert "ppo:pretrained/binfa" in binfa.names() and "ppo:pretrained/suntzu" not in binfa.names()
    menu.make("ppo:pretrained/suntzu", 0)  # read when a game first asks for it
    binfa.shelf.player("ppo:pretrained/binfa", 0)


def test_ship_copies_a_run_s_network_into_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from experiments import ship
    from suntzu_env import pretrained

    (entry,) = [e for e in SHIPPED.values() if e.role == VALUE]
    source = tmp_path / "run"
    source.mkdir()
    (source / "value.npz").write_bytes(entry.file.read_bytes())
    monkeypatch.setattr(pretrained, "FOLDER", tmp_path)
    file = ship.main([entry.name, str(source)])
    assert file == tmp_path / entry.file.name
    copied, original = read_npz(file), read_npz(source / "value.npz")
    assert copied.keys() == original.keys()
    assert all(np.array_equal(copied[name], original[name]) for name in original)


def test_ship_refuses_an_unknown_name_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from experiments import ship

    with pytest.raises(SystemExit) as stop:
        ship.main(["strongest", str(tmp_path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "must be one of suntzu, suntzu-distilled, suntzu-value, binfa, got 'strongest'" in err
