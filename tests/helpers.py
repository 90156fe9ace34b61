"""Builders and drivers shared by the tests: the rule scenarios' records, a Bin'Fa model (`binfa_model`), and a
small value network for the search (`net_of`, `saved`).

Scenarios start from a start-of-round record written by hand (R11), loaded with
`Game.from_dict`, then played by action string. Every expected value in the tests is
worked out from the rules (`docs/rules.md`) and `docs/rules-decisions.md`, never read back
from the engine.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from suntzu_env import Game
from suntzu_env.core.policy_net import PolicyNet
from suntzu_env.suntzu.rules import RULES_VERSION
from suntzu_env.suntzu.values import VALUE_FILE
from suntzu_env.suntzu.values import VALUE_INPUTS

State = dict[str, Any]

PROVINCES: tuple[str, ...] = ("QIN", "CHU", "JIN-YAN", "HAN-QI", "WU")
CARD_ORDER: tuple[str, ...] = (
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "+1", "+2", "+3", "-1", "P",
)  # fmt: skip
# R11 (v1): a recycled Plague copy is written "P*" in hand and deck; it sorts after "P".
RECORD_CARD_ORDER: tuple[str, ...] = (*CARD_ORDER, "P*")
BASE_CARDS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
DISPLAYS: tuple[tuple[int, int, int], ...] = (
    (1, 2, 4), (1, 3, 5), (1, 4, 3), (2, 3, 2), (2, 3, 4),
    (2, 5, 2), (3, 1, 5), (3, 2, 3), (4, 1, 4), (4, 3, 2),
)  # fmt: skip
WARLORDS: dict[str, tuple[str, ...]] = {
    "blue": ("march", "feint", "head_start", "recycle_minus_one", "reinforce"),
    "red": ("double_six", "purge", "devastating_plague", "counter_plague", "recycle_plague"),
}
EVENTS: tuple[str, ...] = ("pandemic", "war_chariot", "champion", "hero", "light_infantry")
FULL_DECK: dict[str, int] = {
    **{str(n): 1 for n in range(1, 11)}, "+1": 3, "+2": 1, "+3": 1, "-1": 3, "P": 2,
}  # fmt: skip
TOTAL_ARMIES = 21
DEFAULT_HAND: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
# Cards used for the four inert battles of a single-battle scenario: equal numbers, no 1, no 6.
TIE_CARDS: tuple[str, ...] = ("2", "3", "4", "5", "7", "8", "10", "9")
# The cards both sides place, in board order, for a round of five inert ties.
TIES: tuple[str, ...] = TIE_CARDS[:5]


def canonical(cards: Iterable[str]) -> list[str]:
    """Sort cards (recycled Plague copies `P*` included) in the canonical order of R11 hands."""
    return sorted(cards, key=RECORD_CARD_ORDER.index)


def side_state(
    variant: str,
    color: str,
    *,
    reserve: int | None = None,
    set_aside: int = 0,
    marked_armies: int = 0,
    armies: Sequence[int] = (0, 0, 0, 0, 0),
    six_marks: Sequence[int] = (0, 0, 0, 0, 0),
    hand: Iterable[str] = DEFAULT_HAND,
    deck: Sequence[str] = (),
    held: Sequence[str] = (),
    used: Sequence[str] | None = None,
    sixes_revealed: int | None = None,
    plagues_revealed: int = 0,
) -> State:
    """One side of an R11 record; `reserve` defaults to what I1 leaves over.

    `sixes_revealed` (R7.4) defaults to the side's six-marks, one revealed `6` each (R5.5), so that a
    record with marks is one the rules can reach; `plagues_revealed` (R7.1) counts the side's Plague
    copies revealed at least once (0..2), and `hand`/`deck` may hold a recycled copy `"P*"`.
    In the standard variant a side holding nothing is given one spent warlord
    (`head_start` for blue, `purge` for red) so that no window is ever offered.
    """
    if reserve is None:
        reserve = TOTAL_ARMIES - set_aside - marked_armies - sum(armies)
    if variant == "beginner":
        warlords: dict[str, list[str]] = {"held": [], "used": [], "unchosen": []}
    else:
        if used is None:
            used = [] if held else [{"blue": "head_start", "red": "purge"}[color]]
        taken = set(held) | set(used)
        warlords = {
            "held": list(held),
            "used": list(used),
            "unchosen": [w for w in WARLORDS[color] if w not in taken],
        }
    return {
        "reserve": reserve,
        "set_aside": set_aside,
        "marked_armies": marked_armies,
        "armies": list(armies),
        "six_marks": list(six_marks),
        "hand": canonical(hand),
        "deck": list(deck),
        "sixes_revealed": sum(six_marks) if sixes_revealed is None else sixes_revealed,
        "plagues_revealed": plagues_revealed,
        "warlords": warlords,
    }


def make_state(
    variant: str = "beginner",
    *,
    round_: int = 1,
    score: int = 0,
    privilege: str | None = None,
    plague_reveals: int | None = None,
    events: Sequence[str] | None = None,
    values: Sequence[Sequence[int]] | None = None,
    blue: dict[str, Any] | None = None,
    red: dict[str, Any] | None = None,
) -> State:
    """A start-of-round R11 record; `events` lists the event cards, face-up one first.

    `plague_reveals` (every Plague reveal so far) defaults to the copies both sides have revealed.
    """
    if values is None:
        values = DISPLAYS[:5]
    blue_side = side_state(variant, "blue", **(blue or {}))
    red_side = side_state(variant, "red", **(red or {}))
    if plague_reveals is None:
        plague_reveals = blue_side["plagues_revealed"] + red_side["plagues_revealed"]
    return {
        "rules": {"version": RULES_VERSION, "variant": variant, "events": events is not None},
        "round": round_,
        "score": score,
        "province_values": [list(v) for v in values],
        "privilege": privilege,
        "plague_reveals": plague_reveals,
        "events": {
            "face_up": events[0] if events else None,
            "deck": list(events[1:]) if events else [],
        },
        "blue": blue_side,
        "red": red_side,
        "phase": "placement",
        "winner": None,
    }


def load(state: State) -> Game:
    """Load a hand-made record (a copy, so the test keeps its own): a scenario, not checked for its history."""
    return Game.from_dict(copy.deepcopy(state), hand_made=True)


def legal(g: Game) -> set[str]:
    """The legal action strings of the pending decision, as a set."""
    return set(g.legal_action_strings())


def expect(g: Game, kind: str, player: str, **fields: str | None) -> None:
    """Assert the pending decision's kind, player and any further fields."""
    d = g.decision
    assert d is not None, f"expected a {kind} decision for {player}, the game is over"
    got = {"kind": d["kind"], "player": d["player"], **{k: d[k] for k in fields}}
    want = {"kind": kind, "player": player, **fields}
    assert got == want, f"decision {d} (legal {g.legal_action_strings()}), expected {want}"


def answer(g: Game, kind: str, player: str, action: str, **fields: str | None) -> None:
    """Check the pending decision, then apply `action` to it."""
    expect(g, kind, player, **fields)
    g.apply(action)


def choose(g: Game, kind: str, player: str, options: set[str], action: str, **fields: str | None) -> None:
    """Check the pending decision and that it offers exactly `options`, then apply `action` to it."""
    expect(g, kind, player, **fields)
    assert legal(g) == options, f"{kind} of {player} offers {sorted(legal(g))}, expected {sorted(options)}"
    g.apply(action)


def place(g: Game, blue: Sequence[str], red: Sequence[str]) -> None:
    """Play both sides' five placements (R4.1: blue QIN..WU, then red QIN..WU)."""
    for color, cards in (("blue", blue), ("red", red)):
        assert len(cards) == len(PROVINCES)
        for province, card in zip(PROVINCES, cards, strict=True):
            answer(g, "place", color, f"place:{card}", province=province)


def reveal(g: Game, player: str, order: Sequence[str]) -> None:
    """Answer the reveal-order decisions (R4.3); the last province is automatic."""
    for province in order[:-1]:
        answer(g, "reveal", player, f"province:{province}")


def battle_cards(blue_card: str, red_card: str, at: int = 4) -> tuple[list[str], list[str]]:
    """Placements with one real battle at province `at` and four inert ties elsewhere."""
    ties = [c for c in TIE_CARDS if c not in (blue_card, red_card)][:4]
    blue, red = list(ties), list(ties)
    blue.insert(at, blue_card)
    red.insert(at, red_card)
    return blue, red


def with_hands(state: State, blue: Sequence[str], red: Sequence[str]) -> State:
    """A copy of `state` whose hands hold the base cards plus the cards to place."""
    s = copy.deepcopy(state)
    s["blue"]["hand"] = canonical(set(BASE_CARDS) | set(blue))
    s["red"]["hand"] = canonical(set(BASE_CARDS) | set(red))
    return s


def single_battle(
    state: State,
    blue_card: str,
    red_card: str,
    at: int = 4,
    blue_extra: Sequence[str] = (),
    red_extra: Sequence[str] = (),
) -> Game:
    """Load `state` and place so that only province `at` sees a real battle; the extra cards stay in hand."""
    blue, red = battle_cards(blue_card, red_card, at)
    g = load(with_hands(state, [*blue, *blue_extra], [*red, *red_extra]))
    place(g, blue, red)
    return g


def expect_next_round(g: Game, round_: int = 2) -> State:
    """Assert the game stands at the start of `round_`'s placement (once the round under test is over); return its
    record."""
    expect(g, "place", "blue", province="QIN")
    d = g.to_dict()
    assert d["round"] == round_
    assert d["phase"] == "placement"
    assert "engine" not in d
    return d


# D1: the board's borders, as the tests' own oracle.
ADJACENT: dict[str, frozenset[str]] = {
    "QIN": frozenset({"CHU", "JIN-YAN"}),
    "CHU": frozenset({"QIN", "JIN-YAN", "HAN-QI", "WU"}),
    "JIN-YAN": frozenset({"QIN", "CHU", "HAN-QI"}),
    "HAN-QI": frozenset({"CHU", "JIN-YAN", "WU"}),
    "WU": frozenset({"CHU", "HAN-QI"}),
}


def provinces(*names: str) -> set[str]:
    """`province:<NAME>` action strings."""
    return {f"province:{n}" for n in names}


def warlord_picks(*names: str) -> set[str]:
    """The `warlord:<name>` actions of a warlord choice (R7.4)."""
    return {f"warlord:{name}" for name in names}


def sorted_warlords(d: State, color: str) -> dict[str, list[str]]:
    """A side's warlord lists, each sorted (their order is not part of the contract)."""
    return {k: sorted(v) for k, v in d[color]["warlords"].items()}


def assert_blind_to_hidden(agent: Any, game: Game, rng: Any, decisions: int, agent_seed: int) -> None:
    """R9: at each of `decisions` decisions of a game played on at random, `agent` (reset to `agent_seed`) plays the
    same move when handed a game whose hidden parts were resampled from the seat's view."""
    from suntzu_env.core.protocol import ask

    checked = 0
    while not game.is_terminal and checked < decisions:
        seat = game.current_player
        twin = game.sample_determinization(seat, rng)
        moves = []
        for g in (game, twin):
            agent.reset(agent_seed)
            moves.append(ask(agent, g, seat))
        assert moves[0] == moves[1], game.decision
        checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def binfa_model(tmp_path: Path, name: str = "model.zip", seed: int = 0, network: str = "mlp") -> tuple[object, Path]:
    """A MaskablePPO made on BinFaVecEnv (untrained: its random weights are a policy as good as any), saved: an MLP
    or (`network="cells"`) a small board network."""
    from agents.cell_policy import CellPolicy
    from sb3_contrib import MaskablePPO
    from suntzu_env.binfa.policy import BOARD
    from suntzu_env.binfa.vec_env import BinFaVecEnv

    env = BinFaVecEnv(2, "random", seed=0, options={"max_turns": 20})
    policy, kwargs = ("MlpPolicy", {"net_arch": [16]}) if network == "mlp" else \
        (CellPolicy, {"cells": {"width": 8, "layers": 2, "hidden": 16}, "layout": BOARD})  # fmt: skip
    model = MaskablePPO(policy, env, n_steps=32, batch_size=32, device="cpu", seed=seed, policy_kwargs=kwargs)
    if network == "mlp":  # SB3 starts the logits 100 times smaller: legal answers would tie in float32
        import torch

        with torch.no_grad():
            model.policy.action_net.weight.mul_(100.0)
    path = tmp_path / name
    model.save(path)
    return model, path


def net_of(bias: float, seed: int = 0, hidden: int = 8) -> PolicyNet:
    """A small value network: random first layer, zero last layer, so that it answers `bias` everywhere (0: a
    random last layer too)."""
    rng = np.random.default_rng(seed)
    w0 = rng.normal(0, 0.1, (hidden, VALUE_INPUTS))
    w1 = rng.normal(0, 0.5, (1, hidden)) if bias == 0 else np.zeros((1, hidden))
    return PolicyNet([w0, w1], [np.zeros(hidden), np.array([bias])], "ReLU")


def saved(net: PolicyNet, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / VALUE_FILE, **net.state())
    return folder


def model_weights(model_zip: Path) -> list[bytes]:
    """A saved model's parameters and its optimizer's state, as bytes (equal only when equal bit for bit)."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_zip, device="cpu")
    out = [p.detach().numpy().tobytes() for p in model.policy.parameters()]
    for state in model.policy.optimizer.state_dict()["state"].values():
        out += [v.numpy().tobytes() for v in state.values()]
    return out
