"""The one random generator of every game (`suntzu_env.core.rng`): what a player sees does not predict what comes,
no two seeds deal the same game, draws carry no modulo bias, and the names of the older versions say what changed.

Each test is also run against the generator of the older records, where it fails: that is what was reported.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
from suntzu_env import N_ACTIONS
from suntzu_env import Game
from suntzu_env import RetiredEnvironmentError
from suntzu_env.binfa import Game as BinFaGame
from suntzu_env.binfa.engine import below
from suntzu_env.binfa.engine import seed_state
from suntzu_env.binfa.layout import new_state
from suntzu_env.core.checks import MAX_SEED
from suntzu_env.core.rng import GENERATOR
from suntzu_env.core.rng import LEGACY_GENERATOR
from suntzu_env.core.rng import rng_below
from suntzu_env.core.rng import rng_seed
from suntzu_env.suntzu.engine import init_state
from suntzu_env.suntzu.game import engine_map
from suntzu_env.suntzu.layout import STATE_SIZE
from suntzu_env.suntzu.options import Options


def throws(seed: int, n: int, legacy: bool) -> np.ndarray:
    """The first `n` dice a Bin'Fa game of `seed` throws after its setup (the generator moves only to throw then)."""
    s = new_state()
    seed_state(s, seed, legacy)
    return np.array([below(s, 6) + 1 for _ in range(n)])


def berlekamp_massey(bits: np.ndarray) -> np.ndarray:
    """The shortest linear recurrence over GF(2) that generates `bits`: its connection polynomial c (c[0] = 1),
    bits[i] = sum(c[j] * bits[i - j] for j in 1..L) mod 2."""
    n = len(bits)
    c, b = np.zeros(n + 1, dtype=np.uint8), np.zeros(n + 1, dtype=np.uint8)
    c[0] = b[0] = 1
    length, m = 0, -1
    for i in range(n):
        d = bits[i]
        for j in range(1, length + 1):
            d ^= c[j] & bits[i - j]
        if d:
            t = c.copy()
            c[i - m :] ^= b[: n + 1 - (i - m)]
            if 2 * length <= i:
                length, m, b = i + 1 - length, i, t
    return c[: length + 1]


def predicted_share(seed: int, legacy: bool, seen: int = 100, ahead: int = 100) -> float:
    """The share of the next `ahead` dice whose parity the GF(2)-linear model of the `seen` ones predicts.

    A die's parity is the low bit of the generator's output: linear in a 32-bit xorshift state, so a linear
    recurrence fitted to the throws a player has seen predicts every later one."""
    bits = ((throws(seed, seen + ahead, legacy) - 1) & 1).astype(np.uint8)
    c = berlekamp_massey(bits[:seen])
    known = list(bits[:seen])
    right = 0
    for i in range(seen, seen + ahead):
        guess = 0
        for j in range(1, len(c)):
            guess ^= int(c[j]) & int(known[i - j])
        right += guess == bits[i]
        known.append(bits[i])  # the player sees each throw as it comes
    return right / ahead


def test_the_throws_seen_do_not_predict_the_throws_to_come() -> None:
    """From 100 throws a player sees, a linear solver over GF(2) guesses the next throws' parities at chance."""
    shares = [predicted_share(seed, legacy=False) for seed in range(40)]
    assert 0.45 <= float(np.mean(shares)) <= 0.55, shares
    older = [predicted_share(seed, legacy=True) for seed in range(5)]
    assert min(older) == 1.0  # the older generator: every later throw's parity predicted


def deals(seeds: np.ndarray, legacy: bool) -> set[bytes]:
    """A digest of the state each seed sets up (Sun Tzu: displays, hands, decks, events)."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    adj = engine_map(Options())
    out = set()
    for seed in seeds:
        init_state(s, int(seed), 0, 1, adj, mask, legacy)
        out.add(hashlib.blake2b(s.tobytes(), digest_size=16).digest())
    return out


def test_no_two_seeds_deal_the_same_game() -> None:
    """Seeds drawn from the documented range give as many games as seeds; the older generator folded them into 2**32
    deals, so two seeds the report names dealt the same game."""
    seeds = np.unique(np.random.default_rng(0).integers(0, MAX_SEED, size=50_000, dtype=np.int64))
    assert len(deals(seeds, legacy=False)) == len(seeds)
    same = np.array([21598293269, 28538206022])
    assert len(deals(same, legacy=True)) == 1
    assert len(deals(same, legacy=False)) == 2


def test_seeds_use_their_whole_width() -> None:
    """Seeds that differ only above bit 32, or only in bit 62, deal other games."""
    for seed in (0, 12345):
        first = Game.new(seed).to_dict()
        assert Game.new(seed + (1 << 40)).to_dict() != first
        assert Game.new(seed + (1 << 62)).to_dict() != first


def test_draws_have_no_modulo_bias() -> None:
    """`rng_below(n)` for n = 3 * 2**61: plain modulo would put 3/4 of the draws below 2**62; uniform puts 2/3."""
    rng = rng_seed(7)
    n = 3 << 61
    draws = np.array([rng_below(rng, n) for _ in range(20_000)], dtype=np.int64)
    assert draws.min() >= 0
    share = float(np.mean(draws < (1 << 62)))
    assert abs(share - 2 / 3) < 0.015, share
    dice = throws(3, 60_000, legacy=False)
    counts = np.bincount(dice, minlength=7)[1:]
    assert counts.min() > 9_500 and counts.max() < 10_500, counts


def test_records_name_their_generator_and_older_records_replay_as_dealt() -> None:
    """New records say `generator`; a record without one is dealt by the older generator, and keeps saying none."""
    record = Game.new(5).record()
    assert record["generator"] == GENERATOR
    older = Game.replay({k: v for k, v in record.items() if k != "generator"})
    assert "generator" not in older.record()
    assert older.to_dict() != Game.new(5).to_dict()
    binfa = BinFaGame.new(5, deployment="random")
    assert binfa.record()["generator"] == GENERATOR
    assert binfa.to_dict()["generator"] == GENERATOR
    older_binfa = BinFaGame.replay({k: v for k, v in binfa.record().items() if k != "generator"})
    assert older_binfa.to_dict()["generator"] == LEGACY_GENERATOR
    with pytest.raises(ValueError, match=r"record\.generator"):
        Game.replay({**record, "generator": "mt19937"})
    with pytest.raises(ValueError, match=r"record\.generator"):
        BinFaGame.replay({**binfa.record(), "generator": 3})


def test_a_position_keeps_its_generator_and_throws_on_as_it_would() -> None:
    """Bin'Fa's position records carry the generator's 64-bit state: a game loaded from one throws the same dice."""
    game = BinFaGame.new(9, deployment="random")
    loaded = BinFaGame.from_dict(game.to_dict())
    for _ in range(40):
        if game.is_terminal:
            break
        action = game.legal_action_strings()[-1]
        game.apply(action)
        loaded.apply(action)
        assert loaded.to_dict() == game.to_dict()
    with pytest.raises(ValueError, match=r"record\.rng"):
        BinFaGame.from_dict({**game.to_dict(), "rng": 2**64})


@pytest.mark.parametrize(
    ("module", "env_id", "now"),
    [("suntzu_env.suntzu_v2", "SunTzu-v2", "SunTzu-v3"), ("suntzu_env.binfa.binfa_v0", "BinFa-v0", "BinFa-v3")],
)
def test_the_names_of_the_older_generator_say_what_changed(module: str, env_id: str, now: str) -> None:
    """PettingZoo's convention: a change of play bumps the version; the old names raise, saying what changed."""
    import importlib

    import gymnasium
    import suntzu_env.binfa  # noqa: F401  registers BinFa-v3 and the retired BinFa-v0

    changed = rf"generator.*{now}"
    with pytest.raises(RetiredEnvironmentError, match=changed):
        importlib.import_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium also warns that the version is out of date
        with pytest.raises(RetiredEnvironmentError, match=changed):
            gymnasium.make(env_id)


def test_binfa_v2_names_say_the_observation_grew() -> None:
    """A change of what the learner sees bumps the version too: a model trained on v2's 1,957 values would not fit."""
    import importlib

    import gymnasium
    import suntzu_env.binfa  # noqa: F401  registers BinFa-v3 and the retired BinFa-v2

    changed = r"1,957 values.*2,437.*BinFa-v3"
    with pytest.raises(RetiredEnvironmentError, match=changed):
        importlib.import_module("suntzu_env.binfa.binfa_v2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RetiredEnvironmentError, match=changed):
            gymnasium.make("BinFa-v2")
