"""`BinFaVecEnv`: many games of Bin'Fa for one learner seat each, stepped at once in compiled code.

A Stable-Baselines3 `VecEnv` (with `action_masks()` for sb3-contrib's `MaskablePPO`) whose `step` plays, for
every game in one compiled call (threads over games): the learner's action (a learning id,
`suntzu_env.binfa.encoding`), every other seat's answers by the game's opponent (a compiled agent, `random`,
`greedy` or `heuristic` of `suntzu_env.binfa.agents`, or a policy network: a trained model, a self-play pool's
snapshot, each seat seen from its own point of view, `suntzu_env.binfa.policy`; one, or a weighted mix drawn per
game), the rewards and ends, the next
game where one ended, and the observations (`suntzu_env.binfa.observation`, the learner's point of view, BD12)
and masks. It plays the games `BinFaGymEnv` plays, with the same engine, encoding, observation and rewards.
`get_state()`/`set_state()` hold everything its future depends on (a training checkpoint's games in progress,
the policy networks of its opponents included). The settings the kernels read and the per-game table's columns
are declared once, with their meaning (`PARAM_FIELDS`, `TABLE_FIELDS`).
It is Bin'Fa's `GameRules.batched_env` (`suntzu_env.binfa.plugin`). `BinFaVectorEnv` is the same under
Gymnasium's vector API.

    from sb3_contrib import MaskablePPO
    from suntzu_env.binfa.vec_env import BinFaVecEnv

    env = BinFaVecEnv(64, opponent={"random": 1, "greedy": 2}, seed=0)
    MaskablePPO("MlpPolicy", env).learn(100_000)

The speed is measured by `python -m suntzu_env.binfa.vec_env --envs 256 --steps 600 --threads 2`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numba
import numpy as np
from gymnasium import spaces
from numba import njit, prange

from suntzu_env.binfa import records
from suntzu_env.binfa.agents import AGENTS, SCRATCH_SIZE
from suntzu_env.binfa.binfa_v3 import AGENT_NAMES, observation_box
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_id, learn_mask, view_rotation
from suntzu_env.binfa.engine import (
    I_ANSWERS,
    INVARIANTS,
    LEGAL_CAPACITY,
    check_invariants,
    init_state,
    legal_actions,
    step,
)
from suntzu_env.binfa.geometry import N_COLOURS, N_UNITS
from suntzu_env.binfa.layout import (
    ALIVE,
    DEC_KIND,
    DK_RETREAT,
    FIELD_BY_NAME,
    FIELDS,
    MAX_TURNS,
    OUT_RANK,
    PAWN,
    RETREAT_N,
    RETREAT_STEP,
    STATE_DTYPE,
    STATE_SIZE,
    TO_ACT,
    TURNS,
    UNDECIDED,
    UNIT_AT,
    UNIT_LEVEL,
    WINNER,
)
from suntzu_env.binfa.observation import OBSERVATION_SIZE, observe
from suntzu_env.binfa.options import Options
from suntzu_env.binfa.policy import NET, checked_net, compiled_net, seat_action
from suntzu_env.core import saved_arrays as saved
from suntzu_env.core import vec_table
from suntzu_env.core.checks import MAX_SEED, check_seed, mix_cdf
from suntzu_env.core.fields import Columns
from suntzu_env.core.policy_net import CompiledNet, pack_nets, seated_net, seated_state
from suntzu_env.core.rng import random_legal, random_legal_states, rng_below, rng_seed
from suntzu_env.core.vec_shell import PER_ENV, BatchedVecEnv, BatchedVectorEnv

SEAT_ALTERNATE = -1
# The settings the kernels read (`params`): the options a new game's state holds (their fields of the state's layout,
# which says what they mean), then the learner's seat and the number of envs.
PARAM_FIELDS = Columns()
OPTION_PARAMS = ("level", "players", "armies_per_player", "deployment_random", "max_turns")
P_LEVEL, P_PLAYERS, P_ARMIES, P_RANDOM_DEPLOY, P_MAX_TURNS = (PARAM_FIELDS.add(n, FIELD_BY_NAME[n].doc)
                                                               for n in OPTION_PARAMS)  # fmt: skip
P_SEAT = PARAM_FIELDS.add("seat", "the learner's seat in every game, or SEAT_ALTERNATE: (env + game) mod players")
P_ENVS = PARAM_FIELDS.add("envs", "the number of envs: game k of env i is seeded seed + envs * k + i")
PARAM_COUNT = len(PARAM_FIELDS)

# Columns of the per-game table (one row per env), declared once with their meaning: those of every batched env
# (`suntzu_env.core.vec_table`; the result is the winner, UNDECIDED none, -1 an illegal action), then Bin'Fa's own.
TABLE_FIELDS = vec_table.table_columns()
T_GAMES = TABLE_FIELDS.add("games", "games begun in this env")
T_NET_RNG = TABLE_FIELDS.add("net_rng", "a sampling policy network's generator in the game in progress (one int64)")
T_TRUNCATED = TABLE_FIELDS.add("truncated", "1 when the game the last step ended ended undecided at max_turns (BD5)")
TABLE_COLUMNS = len(TABLE_FIELDS)
CHUNK = 16  # envs a thread plays before writing what they see: the engine's code, then observe's, stays in the cache
DRAW_SALT = 0x2545F4914F6CDD1D  # the opponent's draw has its own generator: the opponent's own draws stay as they were
AGENT_SALT = 0x5BD1E995  # a compiled opponent's generator: rng_seed(game seed ^ this)
NET_SALT = 0x3C6EF372  # a sampling policy network opponent's generator: rng_seed(game seed ^ this)
STATE_KEYS = ("seed", "params", "mix", "states", "legal", "table", "rngs", "scratch", "buffers", "mask_buffers",
              "flip", "terminal_obs", "ids", "rewards")  # fmt: skip
BUFFER_KEYS = ("buffers", "mask_buffers")  # pairs of arrays written in turn, one per step
UNIT_FIELDS = np.zeros(STATE_SIZE, dtype=np.bool_)  # where units are numbered: a position record keeps their colours
UNIT_FIELDS[UNIT_AT : UNIT_AT + N_UNITS] = UNIT_FIELDS[UNIT_LEVEL : UNIT_LEVEL + N_UNITS] = True
RETREAT_FIELDS = np.zeros(STATE_SIZE, dtype=np.bool_)  # kept from the last retreat: the next one writes them first
RETREAT_FIELDS[[RETREAT_STEP, RETREAT_N]] = True


def field_at(i: int) -> str:
    """The name of the state's field at index `i` (with its element when it has several)."""
    f = next(f for f in FIELDS if f.offset <= i < f.offset + f.size)
    return f"{f.name}[{i - f.offset}]" if f.size > 1 else f.name


@njit(cache=True, inline="always")
def _opponents(
    s: np.ndarray, legal: np.ndarray, n: int, seat: int, agent: int, rng: np.ndarray, scratch: np.ndarray,
    net_params: np.ndarray, header: np.ndarray, net_rng: np.ndarray, net_obs: np.ndarray, net_mask: np.ndarray,
    net_ids: np.ndarray, work: np.ndarray,
) -> int:  # fmt: skip
    """Every other seat answers (the opponent slot's agent: a compiled agent, or a policy network from each seat's
    own point of view, `seat_action`) until the learner must act, is out (B12), or the game ends. Inlined into
    the kernels (passing its 14 arrays to a call would cost a good part of a step)."""
    while n > 0 and s[TO_ACT] != seat and s[OUT_RANK + seat] == 0:
        a = seat_action(agent, s, legal, n, rng, scratch, net_params, header, net_rng, net_obs, net_mask, net_ids,
                        work)  # fmt: skip
        n = step(s, a, legal)
    return n


@njit(cache=True)
def _draw_opponent(mix: np.ndarray, game_seed: int) -> int:
    """The game's opponent from `mix` (each agent's cumulative probability, the last 1.0), drawn from its seed."""
    u = rng_below(rng_seed(game_seed ^ DRAW_SALT), 1 << 53) / float(1 << 53)
    last = 0
    for k in range(mix.shape[0]):
        weight = mix[k] - (mix[k - 1] if k > 0 else 0.0)
        if weight > 0.0:
            last = k
            if u < mix[k]:
                return k
    return last


@njit(cache=True)
def _start(i: int, seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray, legal: np.ndarray,
           table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, slot_agents: np.ndarray, net_params: np.ndarray,
           net_headers: np.ndarray, net_obs: np.ndarray, net_masks: np.ndarray, net_ids: np.ndarray,
           work: np.ndarray) -> None:  # fmt: skip
    """Env `i` starts its next game: seed `seed + n_envs * games + i`, the seat alternating or fixed, the
    opponent drawn from the mix."""
    k = table[i, T_GAMES]
    players = params[P_PLAYERS]
    seat = (i + k) % players if params[P_SEAT] == SEAT_ALTERNATE else params[P_SEAT]
    table[i, vec_table.SEAT] = seat
    empty = np.zeros(0, dtype=np.int64)
    game_seed = seed + params[P_ENVS] * k + i
    rngs[i] = rng_seed(game_seed ^ AGENT_SALT)
    opponent = _draw_opponent(mix, game_seed)
    table[i, vec_table.OPPONENT] = opponent
    if slot_agents[opponent] == NET:  # only a net reads it
        table[i, T_NET_RNG] = rng_seed(game_seed ^ NET_SALT)[0]
    s = states[i]
    n = init_state(s, game_seed, params[P_LEVEL], players, params[P_ARMIES], params[P_RANDOM_DEPLOY],
                   params[P_MAX_TURNS], 0, empty, empty, legal[i])  # fmt: skip
    table[i, vec_table.N_LEGAL] = _opponents(s, legal[i], n, seat, slot_agents[opponent], rngs[i], scratch[i],
                                             net_params, net_headers[opponent], table[i, T_NET_RNG : T_NET_RNG + 1],
                                             net_obs[i], net_masks[i], net_ids[i], work[i])  # fmt: skip


@njit(cache=True)
def _emit(
    i: int, states: np.ndarray, legal: np.ndarray, table: np.ndarray, obs: np.ndarray, masks: np.ndarray,
    ids: np.ndarray
) -> None:  # fmt: skip
    """Env i's observation, and its mask with the learning id of each legal engine action (kept in `ids`), over
    the whole of their rows (what was there before, a caller's writes included, is gone)."""
    s = states[i]
    seat = table[i, vec_table.SEAT]
    observe(s, seat, obs[i])
    rot = view_rotation(s, seat)
    masks[i, :] = False
    for k in range(table[i, vec_table.N_LEGAL]):
        c = learn_id(s, legal[i, k], rot)
        ids[i, k] = c
        masks[i, c] = True


@njit(cache=True, parallel=True)
def reset_games(seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray, legal: np.ndarray,
                table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, obs: np.ndarray, masks: np.ndarray,
                ids: np.ndarray, slot_agents: np.ndarray, net_params: np.ndarray, net_headers: np.ndarray,
                net_obs: np.ndarray, net_masks: np.ndarray, net_ids: np.ndarray, work: np.ndarray) -> None:  # fmt: skip
    for i in prange(states.shape[0]):
        table[i, T_GAMES] = 0
        _start(i, seed, params, mix, states, legal, table, rngs, scratch, slot_agents, net_params, net_headers,
               net_obs, net_masks, net_ids, work)  # fmt: skip
        _emit(i, states, legal, table, obs, masks, ids)


@njit(cache=True, inline="always")
def _play(i: int, actions: np.ndarray, seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray,
          legal: np.ndarray, table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, ids: np.ndarray,
          rewards: np.ndarray, terminal_obs: np.ndarray, slot_agents: np.ndarray,
          net_params: np.ndarray, net_headers: np.ndarray, net_obs: np.ndarray, net_masks: np.ndarray,
          net_ids: np.ndarray, work: np.ndarray) -> None:  # fmt: skip
    """Env i plays its learner's action (a learning id of `ids`, the last emit's) and the replies, and starts its
    next game where one ended. Inlined into `step_games`."""
    s = states[i]
    seat = table[i, vec_table.SEAT]
    n = table[i, vec_table.N_LEGAL]
    a = -1
    for k in range(n):
        if ids[i, k] == actions[i]:
            a = legal[i, k]
            break
    table[i, vec_table.DONE] = 0
    table[i, T_TRUNCATED] = 0
    table[i, vec_table.ILLEGAL] = 0
    if a < 0:  # an illegal action loses
        rewards[i] = -1.0
        table[i, vec_table.DONE] = 1
        table[i, vec_table.ILLEGAL] = 1
        table[i, vec_table.ENDED_RESULT] = -1
    else:
        n = step(s, a, legal[i])
        slot = table[i, vec_table.OPPONENT]
        n = _opponents(s, legal[i], n, seat, slot_agents[slot], rngs[i], scratch[i], net_params, net_headers[slot],
                       table[i, T_NET_RNG : T_NET_RNG + 1], net_obs[i], net_masks[i], net_ids[i], work[i])  # fmt: skip
        table[i, vec_table.N_LEGAL] = n
        out = s[OUT_RANK + seat] > 0
        rewards[i] = -1.0 if out else (1.0 if s[WINNER] == seat else 0.0)
        if out or n == 0:
            table[i, vec_table.DONE] = 1
            table[i, vec_table.ENDED_RESULT] = s[WINNER]
            if not out and s[WINNER] == UNDECIDED and s[TURNS] >= s[MAX_TURNS]:
                table[i, T_TRUNCATED] = 1
    if table[i, vec_table.DONE] == 1:
        observe(s, seat, terminal_obs[i])
        table[i, vec_table.ENDED_SEAT] = seat
        table[i, vec_table.ENDED_OPPONENT] = table[i, vec_table.OPPONENT]
        table[i, T_GAMES] += 1
        _start(i, seed, params, mix, states, legal, table, rngs, scratch, slot_agents, net_params, net_headers,
               net_obs, net_masks, net_ids, work)  # fmt: skip


@njit(cache=True, parallel=True)
def step_games(actions: np.ndarray, seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray,
               legal: np.ndarray, table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, obs: np.ndarray,
               masks: np.ndarray, ids: np.ndarray, rewards: np.ndarray, terminal_obs: np.ndarray,
               slot_agents: np.ndarray, net_params: np.ndarray, net_headers: np.ndarray, net_obs: np.ndarray,
               net_masks: np.ndarray, net_ids: np.ndarray, work: np.ndarray) -> None:  # fmt: skip
    """Plays every env's learner action and the replies (`_play`); the observations and masks go to the arrays of
    two steps ago. A thread takes `CHUNK` envs at a time, the next chunk left when called with a parallel chunk size
    of 1 (`_Core.step`: a thread slowed by another process leaves more to the others); it plays them all, then
    writes what they see."""
    n_envs = states.shape[0]
    for chunk in prange((n_envs + CHUNK - 1) // CHUNK):
        first, last = chunk * CHUNK, min((chunk + 1) * CHUNK, n_envs)
        for i in range(first, last):
            _play(i, actions, seed, params, mix, states, legal, table, rngs, scratch, ids, rewards, terminal_obs,
                  slot_agents, net_params, net_headers, net_obs, net_masks, net_ids, work)  # fmt: skip
        for i in range(first, last):
            _emit(i, states, legal, table, obs, masks, ids)


OPPONENTS_HELP = (
    f"{', '.join(AGENTS)}, a trained model (ppo:<path>), an agent whose policy network plays in "
    "compiled code (a loaded ppo: agent, a self-play pool's snapshot), or a mapping of them to weights"
)


class _NetSlot(NamedTuple):
    """A policy network's opponent slot: what named it (an agent, or a spec), its name, the net and whether it
    plays the argmax."""

    key: Any
    name: str
    net: CompiledNet
    deterministic: bool


class OpponentSlots:
    """The opponents a batched env draws from, by slot: first the compiled agents (slot k: `AGENTS[k]`), then each
    policy network named since (`nets`), played inside the compiled step (`policy.seat_action`). `make_agent`
    makes a trained model's spec (`ppo:<path>`) into its agent (the plugin's `make_agent`; None: specs refused)."""

    def __init__(self, n_envs: int, make_agent: Callable[[str], Any] | None) -> None:
        self.n_envs = n_envs
        self.make_agent = make_agent
        self.work = np.zeros((n_envs, 0), dtype=np.float32)  # the nets' forward passes' scratch, per env
        self.replace([])

    def __len__(self) -> int:
        return len(AGENTS) + len(self.nets)

    def name(self, k: int) -> str:
        return AGENTS[k] if k < len(AGENTS) else self.nets[k - len(AGENTS)].name

    def find(self, opponent: Any) -> int:
        """The slot of `opponent`, -1 if it has none (a spec is one slot, however often named)."""
        if isinstance(opponent, str) and opponent in AGENTS:
            return AGENTS.index(opponent)
        for k, slot in enumerate(self.nets):
            if slot.key is opponent or (isinstance(opponent, str) and slot.key == opponent):
                return len(AGENTS) + k
        return -1

    def index(self, opponent: Any) -> int:
        """The slot of `opponent`, added if new; ValueError for what this env cannot play."""
        k = self.find(opponent)
        if k >= 0:
            return k
        self.replace([*self.nets, self.net_slot(opponent, opponent)])
        return len(self) - 1

    def net_slot(self, key: Any, opponent: Any) -> _NetSlot:
        """The slot of a trained model's spec or of an agent with a compiled policy network."""
        agent, name = opponent, str(getattr(opponent, "name", type(opponent).__name__))
        if isinstance(opponent, str):
            if self.make_agent is None or ":" not in opponent:
                raise ValueError(f"opponents: Bin'Fa's batched env plays {OPPONENTS_HELP}; got {opponent!r:.60}")
            agent, name = self.make_agent(opponent), opponent
        try:
            net = compiled_net(agent, f"opponents: {name!r:.60}")
        except ValueError as error:
            raise ValueError(str(error)) from None
        if net is None:
            raise ValueError(f"opponents: Bin'Fa's batched env plays {OPPONENTS_HELP}; got {opponent!r:.60}")
        return _NetSlot(key, name, *net)

    def replace(self, nets: list[_NetSlot]) -> None:
        """These policy networks' slots from now on, and what the compiled step reads of all slots: each slot's
        agent (`agents`), the nets packed (`net_params`, `net_headers`) and their scratch per env (`work`)."""
        self.nets = nets
        self.agents = np.array([*range(len(AGENTS)), *[NET] * len(nets)], dtype=np.int64)
        packed = [None] * len(AGENTS) + [(slot.net, slot.deterministic) for slot in nets]
        self.net_params, self.net_headers, width = pack_nets(packed)
        if self.work.shape[1] < width:
            self.work = np.zeros((self.n_envs, width), dtype=np.float32)

    def mix(self, opponents: Any) -> np.ndarray:
        """One opponent, or a mapping opponent -> weight (>= 0, not all 0), as the cumulative probabilities over the
        slots that the compiled step draws each game's opponent from (`suntzu_env.suntzu.options.mix_cdf`)."""
        given = opponents if isinstance(opponents, Mapping) else {opponents: 1.0}
        return mix_cdf(given, self.index, lambda: len(self))

    def state(self) -> dict[str, np.ndarray]:
        """The policy networks' slots as arrays (`slot<k>_net`: activation and "argmax" or "sample";
        `slot<k>_w<i>`, `slot<k>_b<i>`: its layers; `slot_names`, `slot_specs`: every slot's)."""
        out = {
            "slot_names": np.array([self.name(k) for k in range(len(self))], dtype=str),
            "slot_specs": np.array([*AGENTS, *(s.key if isinstance(s.key, str) else "" for s in self.nets)], dtype=str),
        }
        for j, slot in enumerate(self.nets):
            k = len(AGENTS) + j
            out |= seated_state(slot.net, slot.deterministic, f"slot{k}_")
        return out

    def restored(self, state: Mapping[str, np.ndarray], count: int, opponents: Mapping[int, Any]) -> list[_NetSlot]:
        """The policy networks' slots of a `state` of `count` slots: a slot in `opponents` (slot -> agent) plays
        that agent's net, one named by a spec is made again from it, any other plays its saved net."""
        for k in opponents:
            if not len(AGENTS) <= k < count:
                raise ValueError(f"slot {k!r:.20} is not a policy network's (slots {len(AGENTS)} to {count - 1})")
        nets = []
        for k in range(len(AGENTS), count):
            name, spec = str(state["slot_names"][k]), str(state["slot_specs"][k])
            if k in opponents:
                nets.append(self.net_slot(opponents[k], opponents[k])._replace(name=name))
            elif spec:
                nets.append(self.net_slot(spec, spec))
            else:
                net, deterministic = checked_net(*seated_net(state, f"slot{k}_"), f"slot {k} ({name!r:.60})")
                nets.append(_NetSlot(object(), name, net, deterministic))
        return nets


class _Core:
    """The arrays of `n` games and the compiled calls over them, shared by both vector faces."""

    def __init__(
        self,
        n: int,
        opponent: Any,
        seed: int | None,
        seat: int | str,
        options: Any,
        threads: int | None,
        make_agent: Callable[[str], Any] | None = None,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n_envs must be an integer >= 1, got {n!r:.40}")
        self.rules = Options.of(options)
        players = self.rules.players
        if seat != "alternate" and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < players
        ):
            raise ValueError(f"seat must be 'alternate' or a seat 0..{players - 1}, got {seat!r:.40}")
        if self.rules.terrain != "random" or self.rules.whirlpools != "random":
            raise ValueError("terrain, whirlpools: the batched env draws them from each game's seed; leave 'random'")
        if threads is not None and (isinstance(threads, bool) or not 1 <= threads <= numba.config.NUMBA_NUM_THREADS):
            raise ValueError(f"threads must be None or 1..{numba.config.NUMBA_NUM_THREADS}, got {threads!r:.40}")
        self.threads = threads
        self.n = int(n)
        self.seed = check_seed(seed, optional=True)
        if self.seed is None:
            self.seed = int(np.random.default_rng().integers(2**62))
        self.slots = OpponentSlots(self.n, make_agent)
        self.mix = self.slots.mix(opponent)
        r = self.rules
        params = {"level": r.level, "players": players, "armies_per_player": r.armies_per_player,
                  "deployment_random": int(r.deployment == "random"), "max_turns": r.max_turns,
                  "seat": SEAT_ALTERNATE if seat == "alternate" else int(seat), "envs": self.n}  # fmt: skip
        self.params = np.array([params[field.name] for field in PARAM_FIELDS], dtype=np.int64)
        self.states = np.zeros((self.n, STATE_SIZE), dtype=STATE_DTYPE)
        self.legal = np.zeros((self.n, LEGAL_CAPACITY), dtype=np.int32)
        self.table = np.zeros((self.n, TABLE_COLUMNS), dtype=np.int64)
        self.rngs = np.zeros((self.n, 1), dtype=np.int64)
        self.scratch = np.zeros((self.n, SCRATCH_SIZE), dtype=STATE_DTYPE)
        # two observation arrays, written in turn: the one a step returns stays as it is through the next step;
        # each allocated alone, so aligned as any array is (torch's matrix products round by their inputs' alignment:
        # a learner resumed from a copy of the observations then computes what it computed on these)
        self.buffers = (np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32),
                        np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32))  # fmt: skip
        # the masks too: `action_masks()` hands them out as they are, not copied
        self.mask_buffers = (np.zeros((self.n, N_LEARN_ACTIONS), dtype=np.bool_),
                             np.zeros((self.n, N_LEARN_ACTIONS), dtype=np.bool_))  # fmt: skip
        self.flip = 0
        self.started = False  # games in progress: after a reset, or a saved state of an env that was reset
        self.terminal_obs = np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32)
        self.ids = np.zeros((self.n, LEGAL_CAPACITY), dtype=np.int64)  # the learning id of each of `legal`'s actions
        self.rewards = np.zeros(self.n, dtype=np.float32)
        # a policy network opponent's view, mask (clear between its answers) and learning ids: scratch
        self.net_obs = np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32)
        self.net_masks = np.zeros((self.n, N_LEARN_ACTIONS), dtype=np.int8)
        self.net_ids = np.zeros((self.n, LEGAL_CAPACITY), dtype=np.int64)

    def _opponent_arrays(self) -> tuple[np.ndarray, ...]:
        """What the compiled step reads of the opponents: the slots' agents and nets, the nets' scratch."""
        s = self.slots
        return s.agents, s.net_params, s.net_headers, self.net_obs, self.net_masks, self.net_ids, s.work

    @property
    def obs(self) -> np.ndarray:
        """The observations of the last reset or step."""
        return self.buffers[self.flip]

    @property
    def masks(self) -> np.ndarray:
        """The masks of the last reset or step."""
        return self.mask_buffers[self.flip]

    def _threads(self) -> None:
        if self.threads is not None:
            numba.set_num_threads(self.threads)

    def reset(self) -> None:
        self._threads()
        self.flip = 1 - self.flip
        reset_games(self.seed, self.params, self.mix, self.states, self.legal, self.table, self.rngs, self.scratch,
                    self.obs, self.masks, self.ids, *self._opponent_arrays())  # fmt: skip
        self.started = True

    def require_games(self, what: str) -> None:
        """RuntimeError naming `what` (a method) when no game is in progress: nothing before the first reset."""
        if not self.started:
            raise RuntimeError(f"{what} needs games in progress: call reset() first")

    def step(self, actions: np.ndarray) -> None:
        self.require_games("step()")
        actions = np.asarray(actions).reshape(-1).astype(np.int64)
        if actions.shape[0] != self.n:
            raise ValueError(f"actions: expected {self.n} actions, got {actions.shape[0]}")
        self._threads()
        self.flip = 1 - self.flip
        previous = numba.set_parallel_chunksize(1)  # each thread takes the next chunk of envs left
        try:
            step_games(actions, self.seed, self.params, self.mix, self.states, self.legal, self.table, self.rngs,
                       self.scratch, self.obs, self.masks, self.ids, self.rewards, self.terminal_obs,
                       *self._opponent_arrays())  # fmt: skip
        finally:
            numba.set_parallel_chunksize(previous)

    def info(self, i: int) -> dict[str, Any]:
        """Env i's info after a step: at the end of a game, its seat, winner ("draw" when undecided, BD5; None
        after an illegal action) and opponent by name, and its terminal observation."""
        row = self.table[i]
        if not row[vec_table.DONE]:
            return {}
        winner = int(row[vec_table.ENDED_RESULT])
        info: dict[str, Any] = {
            "terminal_observation": self.terminal_obs[i].copy(),
            "seat": AGENT_NAMES[row[vec_table.ENDED_SEAT]],
            "winner": None if winner < 0 else ("draw" if winner == UNDECIDED else AGENT_NAMES[winner]),
            "opponent": self.slots.name(int(row[vec_table.ENDED_OPPONENT])),
            "TimeLimit.truncated": bool(row[T_TRUNCATED]),
        }
        if row[vec_table.ILLEGAL]:
            info["illegal_action"] = True
        return info

    def _state_values(self) -> dict[str, Any]:
        """Every value the games' future depends on (with the seed, the mix and the settings), as held."""
        return {key: np.stack(getattr(self, key)) if key in BUFFER_KEYS else getattr(self, key) for key in STATE_KEYS}

    def get_state(self) -> dict[str, np.ndarray]:
        """Copies of every array the games' future depends on (with the seed, the mix and the settings), and the
        opponent slots (a policy network's layers included)."""
        out = {key: np.array(value, copy=True) for key, value in self._state_values().items()}
        return out | self.slots.state()

    def set_state(self, state: Mapping[str, np.ndarray], opponents: Mapping[int, Any] | None = None) -> None:
        """Continue from `get_state`'s arrays: refused (ValueError naming the array, row and field), changing
        nothing, unless they are an env's of this size and these settings whose every value the compiled step can
        take (`_check_games`). A policy network's slot plays the agent `opponents` names for it (slot -> agent: then
        `set_opponents` finds it again), else the model its spec names, else its saved network."""
        missing = [key for key in (*STATE_KEYS, "slot_names", "slot_specs") if key not in state]
        if missing:
            raise ValueError(f"set_state: not a BinFaVecEnv state (no {', '.join(missing)})")
        mine = {key: np.asarray(value) for key, value in self._state_values().items()}
        for key in STATE_KEYS:
            value = np.asarray(state[key])
            if key != "mix" and (value.shape != mine[key].shape or value.dtype != mine[key].dtype):
                raise ValueError(f"set_state: {key} has shape {value.shape} {value.dtype}; this env's is "
                                 f"{mine[key].shape} {mine[key].dtype} ({self.n} envs)")  # fmt: skip
        if not np.array_equal(state["params"], self.params):
            raise ValueError("set_state: the state is of an env with other options or seat (params "
                             f"{np.asarray(state['params']).tolist()}, this env's {self.params.tolist()})")  # fmt: skip
        mix = np.asarray(state["mix"], dtype=np.float64)
        names, specs = np.asarray(state["slot_names"]), np.asarray(state["slot_specs"])
        count = names.size
        if not (names.ndim == specs.ndim == 1 and count >= len(AGENTS) and specs.size == count):
            raise ValueError(f"set_state: slot_names, slot_specs: one name each per opponent slot, {len(AGENTS)} "
                             "or more")  # fmt: skip
        saved.check_cdf("mix", mix, count)
        self._check_games({key: np.asarray(state[key]) for key in STATE_KEYS}, count)
        try:
            nets = self.slots.restored(state, mix.size, dict(opponents or {}))
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ValueError(f"set_state: the opponent slots cannot be made again ({error})") from None
        self.slots.replace(nets)
        for key in STATE_KEYS:
            if key not in ("seed", "flip", "params", "mix", *BUFFER_KEYS):
                getattr(self, key)[...] = state[key]
        for key in BUFFER_KEYS:
            for buffer, kept in zip(getattr(self, key), state[key], strict=True):
                buffer[...] = kept
        self.seed, self.flip = int(state["seed"]), int(state["flip"])
        self.mix = mix.copy()
        self.started = bool(self.states.any())

    def _check_games(self, arrays: dict[str, np.ndarray], n_slots: int) -> None:
        """ValueError naming the array, row and field of the first saved value the compiled step cannot take (it
        does no bounds checks): each game a state the engine can be in (its position record reads back to it, its
        units numbered as the engine may number them, its invariants kept) of this env's options, its legal
        actions, learning ids and mask the engine's; each index, count and flag of the table in range; the seeds
        games are dealt from valid ones; the floats finite."""
        players = int(self.params[P_PLAYERS])
        check_seed(int(arrays["seed"]), "set_state: seed")
        saved.check_within("flip", arrays["flip"].reshape(1), 0, 1)
        for key in ("buffers", "terminal_obs", "rewards"):
            saved.check_finite(key, arrays[key])
        bounds = vec_table.shared_bounds(players, n_slots, LEGAL_CAPACITY, (-1, UNDECIDED))
        bounds |= {T_GAMES: (0, (MAX_SEED - 1) // self.n), T_TRUNCATED: (0, 1)}
        table, states, masks = arrays["table"], arrays["states"], arrays["mask_buffers"][int(arrays["flip"])]
        saved.check_columns("table", table, TABLE_FIELDS, bounds)
        legal = np.zeros(LEGAL_CAPACITY, dtype=np.int32)
        mask = np.zeros(N_LEARN_ACTIONS, dtype=np.bool_)
        for i in range(self.n):
            s, n = states[i], int(table[i, vec_table.N_LEGAL])
            if not s.any():  # an env never reset (a run saved before its first rollout), as a new env holds it
                if table[i].any():
                    raise saved.fail("table", i, "an env that began no game holds no game's columns")
                continue
            # as its record holds it: without an eliminated army's pawn (the engine may leave one, never reading it
            # but modulo the circles), its units numbered in any order, no retreat's step and units but during one
            position = s.copy()
            position[PAWN : PAWN + N_COLOURS][s[ALIVE : ALIVE + N_COLOURS] == 0] = -1
            try:
                record = records.record_from_state(position, self.rules)
            except (IndexError, KeyError, TypeError, ValueError, OverflowError) as error:
                raise saved.fail("states", i, f"a field is out of range ({error})") from None
            try:
                again, _ = records.state_from_record(record)
            except (IndexError, KeyError, TypeError, ValueError) as error:
                raise saved.fail("states", i, str(error)) from None
            unread = UNIT_FIELDS if s[DEC_KIND] == DK_RETREAT else UNIT_FIELDS | RETREAT_FIELDS
            differs = np.flatnonzero((position != again) & ~unread)
            if differs.size:
                raise saved.fail("states", i, f"{field_at(int(differs[0]))} does not match the rest of the state")
            code = int(check_invariants(position, legal))  # its units where the record puts them, in any order
            if code and code != I_ANSWERS:
                raise saved.fail("states", i, f"breaks an invariant: {INVARIANTS[code]}")
            found = int(legal_actions(s, legal))
            if n != found or not np.array_equal(arrays["legal"][i, :n], legal[:n]):
                raise saved.fail("legal", i, f"not the game's {found} legal actions (table n_legal {n})")
            rot = view_rotation(s, table[i, vec_table.SEAT])
            learn_mask(s, legal, n, rot, mask)
            if not np.array_equal(masks[i], mask):
                raise saved.fail("mask_buffers", i, "not the learner's legal actions in the game")
            ids = [learn_id(s, a, rot) for a in legal[:n].tolist()]
            if arrays["ids"][i, :n].tolist() != ids:
                raise saved.fail("ids", i, "not the learning ids of the game's legal actions")


class BinFaVecEnv(BatchedVecEnv):
    """`n_envs` games of Bin'Fa, a learner seat each, against opponents played in compiled code (see the module
    docstring).

    Arguments: `n_envs`; `opponent`: "random", "greedy" or "heuristic", a trained model's spec (`ppo:<path>`, with
    `make_agent`), an agent whose policy network plays in compiled code (`compiled_policy()`: a loaded `ppo:`
    agent, a self-play pool's snapshot), or a mapping of them to weights (each game's opponent drawn from its
    seed; a policy network answers for every other seat, each from its own point of view); `seed` (game k of env
    i is seeded `seed + n_envs * k + i`; None: fresh entropy); `seat`: "alternate" (env i's game k seats the
    learner at (i + k) mod players) or a seat;
    `options`: `suntzu_env.binfa.Options` or a dict of its fields (terrain and whirlpools drawn from each seed);
    `threads`: numba threads for a step (None: numba's setting); `make_agent`: how a trained model's spec becomes
    its agent (the plugin's `BINFA.make_agent`; None: specs other than the compiled agents' names are refused).
    The observations a step returns, and the masks `action_masks()` returns, are not copied: they stay as they are
    until the step after next.
    An illegal learner action ends that game with −1 (`info["illegal_action"]`). A finished game's env starts
    its next game in the same step; its info holds "terminal_observation", "seat" and "winner" (seat names
    `player_<p>`; winner "draw" when undecided, BD5, None after an illegal action), "opponent" (its name) and
    "TimeLimit.truncated" (max_turns, BD5).
    """

    def __init__(
        self,
        n_envs: int,
        opponent: Any = "random",
        seed: int | None = 0,
        seat: int | str = "alternate",
        options: Options | dict[str, Any] | None = None,
        threads: int | None = None,
        make_agent: Callable[[str], Any] | None = None,
    ) -> None:
        self.core = _Core(n_envs, opponent, seed, seat, options, threads, make_agent)
        self.render_mode = None
        super().__init__(self.core.n, observation_box(), spaces.Discrete(N_LEARN_ACTIONS))
        self._actions = np.zeros(self.core.n, dtype=np.int64)

    def reset(self) -> np.ndarray:
        self.core.reset()
        return self.core.obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> Any:
        core = self.core
        core.step(self._actions)
        done = core.table[:, vec_table.DONE].astype(bool)
        infos: list[dict[str, Any]] = [{} for _ in range(core.n)]
        for i in np.flatnonzero(done).tolist():
            infos[i] = core.info(i)
        return core.obs, core.rewards.copy(), done, infos

    def set_opponents(self, opponents: Any) -> None:
        """Draw each game's opponent from `opponents` (one opponent, or a mapping of them to weights; see the class
        docstring) from the next game on; the games in progress keep theirs."""
        self.core.mix = self.core.slots.mix(opponents)

    set_opponent = set_opponents

    def opponent_slot(self, opponent: Any) -> int:
        """The slot `opponent` plays in (as `set_state`'s `opponents` names it); ValueError if none."""
        k = self.core.slots.find(opponent)
        if k < 0:
            raise ValueError(f"opponent_slot: {opponent!r:.60} is not one of this env's opponents")
        return k

    def get_state(self) -> dict[str, np.ndarray]:
        """The games in progress, their generators, the seed, the opponent mix and its slots (a policy network's
        layers included), as arrays (a checkpoint's)."""
        return self.core.get_state()

    def set_state(self, state: Mapping[str, np.ndarray], opponents: Mapping[int, Any] | None = None) -> None:
        """Continue exactly from `get_state`'s arrays; `opponents` (slot -> agent): the agents of its policy
        networks' slots, as a self-play pool names its snapshots."""
        self.core.set_state(state, opponents)

    def action_masks(self) -> np.ndarray:
        """The (n_envs, N_LEARN_ACTIONS) booleans of the learners' legal actions, not copied: like the observations,
        they stay as they are until the step after next."""
        self.core.require_games("action_masks()")
        return self.core.masks

    def seed(self, seed: int | None = None) -> list[int | None]:
        self.core.seed = check_seed(seed, optional=True) or 0
        return [self.core.seed] * self.core.n

    def env_values(self, name: str) -> list[Any] | None:
        """Each env's own "seat" (`player_<p>`) and "opponent" (its name), its game in progress's, for `get_attr`."""
        if name not in PER_ENV:
            return None
        table = self.core.table
        if name == "seat":
            return [AGENT_NAMES[int(s)] for s in table[:, vec_table.SEAT]]
        return [self.core.slots.name(int(k)) for k in table[:, vec_table.OPPONENT]]

    def vector_step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The step of `BinFaVectorEnv`, without per-env info dicts."""
        core = self.core
        core.step(actions)
        ended, cut = core.table[:, vec_table.DONE].astype(bool), core.table[:, T_TRUNCATED].astype(bool)
        return core.obs, core.rewards.copy(), ended, cut, core.terminal_obs


class BinFaVectorEnv(BatchedVectorEnv):
    """`BinFaVecEnv`'s games under Gymnasium's vector API (`suntzu_env.core.vec_shell.BatchedVectorEnv`: same-step
    autoreset, a finished game's observation in `infos["final_obs"]` where `infos["_final_obs"]`, a game cut by
    max_turns truncated); arguments as `BinFaVecEnv`'s."""

    def __init__(self, num_envs: int, opponent: str = "random", seed: int | None = 0, seat: int | str = "alternate",
                 options: Options | dict[str, Any] | None = None, threads: int | None = None) -> None:  # fmt: skip
        super().__init__(BinFaVecEnv(num_envs, opponent, seed, seat, options, threads))


def measure(envs: int, steps: int, opponent: str, threads: int | None, seed: int = 0) -> tuple[float, float]:
    """Learner steps per second (wall clock, and per CPU second of this process) of `envs` games against
    `opponent`, the learner playing random legal ids."""
    env = BinFaVecEnv(envs, opponent=opponent, seed=seed, threads=threads)
    env.reset()
    state = random_legal_states(envs)
    actions = np.zeros(envs, dtype=np.int64)
    for _ in range(3):  # warm up
        random_legal(env.core.masks, state, actions)
        env.core.step(actions)
    elapsed = cpu = 0.0
    for _ in range(steps):
        random_legal(env.core.masks, state, actions)
        start, start_cpu = time.perf_counter(), time.process_time()
        env.step(actions)
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
    return envs * steps / elapsed, envs * steps / cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suntzu_env.binfa.vec_env", description="Learner steps per second")
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--opponent", default="random", choices=AGENTS)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    if args.envs < 1 or args.steps < 1:
        print("error: --envs and --steps must be at least 1", file=sys.stderr)
        return 2
    rate, per_cpu = measure(args.envs, args.steps, args.opponent, args.threads)
    print(
        f"{args.envs} envs x {args.steps} steps against {args.opponent}, threads {args.threads or 'numba default'}: "
        f"{rate:,.0f} learner steps/s ({per_cpu:,.0f} per CPU second; VecEnv.step, observations and masks included)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
