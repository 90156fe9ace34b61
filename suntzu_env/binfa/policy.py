"""Trained policies in Bin'Fa's compiled code: a policy network (`suntzu_env.core.policy_net`) answering for the
player to
act, as the learner did in training, and many games between seated agents played at once.

`policy_action` is the one place a net plays Bin'Fa in compiled code: it sees the acting player's observation
(`suntzu_env.binfa.observation`, its own point of view, BD12) and the mask of the learning ids of the legal actions
(`suntzu_env.binfa.encoding`, the board turned by `view_rotation`), and its learning id is played as the legal
engine action it names. An agent is a slot: a compiled agent (its id in `AGENTS`, >= 0) or `NET` (the slot's net,
described by its header row). `BinFaVecEnv` plays opponents this way inside its step, and `play_chunk` plays
`BINFA.play_batched`'s games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from suntzu_env.binfa.agents import agent_action
from suntzu_env.binfa.encoding import (
    COUNT_SLOTS,
    L_DEPLOY,
    L_DISLODGE,
    L_MOVE,
    N_LEARN_ACTIONS,
    learn_id,
    view_rotation,
)
from suntzu_env.binfa.engine import step
from suntzu_env.binfa.geometry import N_TRIANGLES, STEP
from suntzu_env.binfa.layout import TO_ACT
from suntzu_env.binfa.observation import OBSERVATION_PIECES, OBSERVATION_SIZE, observe
from suntzu_env.core.policy_net import CellLayout, CompiledNet, compiled_policy, net_act, playable_net

NET = -1  # a slot's agent: its policy network, not a compiled agent


def _board() -> CellLayout:
    """The board as a cell network sees it: the 96 triangles in the viewer's numbering (BD12), each with its
    neighbours left, right and across (`STEP`: turning the board keeps every triangle's directions), the
    observation's pieces of one value per triangle as channels, `deploy` per triangle, `dislodge` and `move` per
    triangle and direction; every other piece and action is global."""
    rows = [np.arange(p.offset + k * N_TRIANGLES, p.offset + (k + 1) * N_TRIANGLES)
            for p in OBSERVATION_PIECES if p.size % N_TRIANGLES == 0 for k in range(p.size // N_TRIANGLES)]  # fmt: skip
    return CellLayout(neighbours=STEP, cell_inputs=np.stack(rows), n_inputs=OBSERVATION_SIZE,
                      n_actions=N_LEARN_ACTIONS, cell_actions=(L_DEPLOY,),
                      edge_actions=((L_DISLODGE, 1), (L_MOVE, COUNT_SLOTS)))  # fmt: skip


BOARD = _board()


@njit(cache=True)
def policy_action(
    s: np.ndarray,
    legal: np.ndarray,
    n: int,
    params: np.ndarray,
    header: np.ndarray,
    rng: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    ids: np.ndarray,
    work: np.ndarray,
) -> int:
    """The legal engine action (of `legal[:n]`) that the net of `header` plays for the player to act: from that
    player's observation (written into `obs`) and the mask of its learning ids (`mask`, int8 over N_LEARN_ACTIONS,
    clear before and after; `ids` holds each legal action's id meanwhile). A sampling net draws from `rng`."""
    p = s[TO_ACT]
    observe(s, p, obs)
    rot = view_rotation(s, p)
    for k in range(n):
        c = learn_id(s, legal[k], rot)
        ids[k] = c
        mask[c] = 1
    c = net_act(params, header, obs, mask, rng, work)
    a = legal[0]
    for k in range(n):
        mask[ids[k]] = 0
        if ids[k] == c:
            a = legal[k]
    return a


@njit(cache=True, inline="always")
def seat_action(
    agent: int,
    s: np.ndarray,
    legal: np.ndarray,
    n: int,
    rng: np.ndarray,
    scratch: np.ndarray,
    params: np.ndarray,
    header: np.ndarray,
    net_rng: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    ids: np.ndarray,
    work: np.ndarray,
) -> int:
    """The answer of a slot's agent: compiled agent `agent` (its generator `rng`, a spare state `scratch`) or, for
    `NET`, the net of `header` (`policy_action`, its generator `net_rng`). Inlined where it is called: a compiled
    agent's answer then passes no more arrays than before the nets (each array passed costs reference counts)."""
    if agent == NET:
        return policy_action(s, legal, n, params, header, net_rng, obs, mask, ids, work)
    return agent_action(agent, s, legal, n, rng, scratch)


@njit(cache=True, parallel=True)
def play_chunk(
    states: np.ndarray,
    legal: np.ndarray,
    n_legal: np.ndarray,
    seat_slots: np.ndarray,
    slot_agents: np.ndarray,
    params: np.ndarray,
    headers: np.ndarray,
    rngs: np.ndarray,
    net_rngs: np.ndarray,
    scratch: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    ids: np.ndarray,
    work: np.ndarray,
    actions: np.ndarray,
    lengths: np.ndarray,
) -> None:
    """Plays game g on (its state `states[g]`, its pending decision `legal[g, :n_legal[g]]`), seat p answered by
    slot `seat_slots[g, p]` with its generators `rngs[g, p]` and `net_rngs[g, p]`, until it ends or
    `actions.shape[1]` decisions are made: they are written to `actions[g]`, their number to `lengths[g]`."""
    cap = actions.shape[1]
    for g in prange(states.shape[0]):
        s = states[g]
        n = n_legal[g]
        count = 0
        while n > 0 and count < cap:
            p = s[TO_ACT]
            slot = seat_slots[g, p]
            a = seat_action(slot_agents[slot], s, legal[g], n, rngs[g, p], scratch[g], params, headers[slot],
                            net_rngs[g, p], obs[g], masks[g], ids[g], work[g])  # fmt: skip
            actions[g, count] = a
            n = step(s, a, legal[g])
            count += 1
        n_legal[g] = n
        lengths[g] = count


def compiled_net(agent: Any, name: str) -> tuple[CompiledNet, bool] | None:
    """The policy network an agent plays in compiled code and whether it plays the argmax (`compiled_policy()`,
    as `agents.ppo.PPOAgent` gives it), None for an agent without one; ValueError for a net not of Bin'Fa's
    sizes (a model of another game)."""
    spec = compiled_policy(agent)
    if spec is None:
        return None
    net, deterministic = spec
    return checked_net(net, deterministic, name)


def checked_net(net: Any, deterministic: bool, name: str) -> tuple[CompiledNet, bool]:
    """A policy network that compiled code may play in Bin'Fa (`playable_net`), and whether it plays the argmax."""
    return playable_net(net, OBSERVATION_SIZE, N_LEARN_ACTIONS, name), bool(deterministic)


__all__ = ["BOARD", "NET", "checked_net", "compiled_net", "play_chunk", "policy_action", "seat_action"]
