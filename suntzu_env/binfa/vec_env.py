"""`BinFaVecEnv`: many games of Bin'Fa for one learner seat each, stepped at once in compiled code.

A Stable-Baselines3 `VecEnv` (with `action_masks()` for sb3-contrib's `MaskablePPO`) whose `step` plays, for
every game in one compiled call (threads over games): the learner's action (a learning id,
`suntzu_env.binfa.encoding`), every other seat's answers by a compiled opponent (`random`, `greedy` or
`heuristic`, `suntzu_env.binfa.agents`; one, or a weighted mix drawn per game), the rewards and ends, the next
game where one ended, and the observations (`suntzu_env.binfa.observation`, the learner's point of view, BD12)
and masks. It plays the games `BinFaGymEnv` plays, with the same engine, encoding, observation and rewards.
`get_state()`/`set_state()` hold everything its future depends on (a training checkpoint's games in progress).
It is Bin'Fa's `GameRules.batched_env` (`suntzu_env.binfa.plugin`). `BinFaVectorEnv` is the same under
Gymnasium's vector API.

    from sb3_contrib import MaskablePPO
    from suntzu_env.binfa.vec_env import BinFaVecEnv

    env = BinFaVecEnv(64, opponent={"random": 1, "greedy": 2}, seed=0)
    MaskablePPO("MlpPolicy", env).learn(100_000)

The speed is measured by `python -m suntzu_env.binfa.vec_env --envs 256 --steps 200 --threads 2`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space
from numba import njit, prange
from stable_baselines3.common.vec_env import VecEnv

from suntzu_env.binfa.agents import AGENTS, SCRATCH_SIZE, agent_action, agent_rng, below
from suntzu_env.binfa.binfa_v0 import AGENT_NAMES, observation_box
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_id, view_rotation
from suntzu_env.binfa.engine import LEGAL_CAPACITY, init_state, step
from suntzu_env.binfa.layout import MAX_TURNS, OUT_RANK, STATE_DTYPE, STATE_SIZE, TO_ACT, TURNS, UNDECIDED, WINNER
from suntzu_env.binfa.observation import OBSERVATION_SIZE, observe
from suntzu_env.binfa.options import Options
from suntzu_env.options import check_seed

P_LEVEL, P_PLAYERS, P_ARMIES, P_RANDOM_DEPLOY, P_MAX_TURNS, P_SEAT, P_ENVS = range(7)
SEAT_ALTERNATE = -1
# per-game columns of the table: games begun, the game's seat, legal actions, opponent; the last step's end
G_GAMES, G_SEAT, G_N, G_OPPONENT, G_WINNER, G_DONE, G_TRUNCATED, G_ILLEGAL, G_ENDED_SEAT, G_ENDED_OPPONENT = range(10)
TABLE_COLUMNS = 10
DRAW_SALT = 0x2545F4914F6CDD1D  # the opponent's draw has its own generator: the opponent's own draws stay as they were
STATE_KEYS = ("seed", "params", "mix", "states", "legal", "table", "rngs", "scratch", "buffers", "flip",
              "terminal_obs", "masks", "ids", "rewards")  # fmt: skip


@njit(cache=True)
def _opponents(
    s: np.ndarray, legal: np.ndarray, n: int, seat: int, opponent: int, rng: np.ndarray, scratch: np.ndarray
) -> int:
    """Every other seat answers until the learner must act, is out (B12), or the game ends."""
    while n > 0 and s[TO_ACT] != seat and s[OUT_RANK + seat] == 0:
        n = step(s, agent_action(opponent, s, legal, n, rng, scratch), legal)
    return n


@njit(cache=True)
def _draw_opponent(mix: np.ndarray, game_seed: int) -> int:
    """The game's opponent from `mix` (each agent's cumulative probability, the last 1.0), drawn from its seed."""
    u = below(agent_rng(game_seed ^ DRAW_SALT), 1 << 53) / float(1 << 53)
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
           table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray) -> None:  # fmt: skip
    """Env `i` starts its next game: seed `seed + n_envs * games + i`, the seat alternating or fixed, the
    opponent drawn from the mix."""
    k = table[i, G_GAMES]
    players = params[P_PLAYERS]
    seat = (i + k) % players if params[P_SEAT] == SEAT_ALTERNATE else params[P_SEAT]
    table[i, G_SEAT] = seat
    empty = np.zeros(0, dtype=np.int64)
    game_seed = seed + params[P_ENVS] * k + i
    rngs[i] = agent_rng(game_seed ^ 0x5BD1E995)
    opponent = _draw_opponent(mix, game_seed)
    table[i, G_OPPONENT] = opponent
    s = states[i]
    n = init_state(s, game_seed, params[P_LEVEL], players, params[P_ARMIES], params[P_RANDOM_DEPLOY],
                   params[P_MAX_TURNS], 0, empty, empty, legal[i])  # fmt: skip
    table[i, G_N] = _opponents(s, legal[i], n, seat, opponent, rngs[i], scratch[i])


@njit(cache=True)
def _emit(
    i: int, states: np.ndarray, legal: np.ndarray, table: np.ndarray, obs: np.ndarray, masks: np.ndarray,
    ids: np.ndarray
) -> None:  # fmt: skip
    """Env i's observation, and its mask with the learning id of each legal engine action (kept in `ids`);
    the mask's row must be clear (`_clear_mask`)."""
    s = states[i]
    seat = table[i, G_SEAT]
    observe(s, seat, obs[i])
    rot = view_rotation(s, seat)
    for k in range(table[i, G_N]):
        c = learn_id(s, legal[i, k], rot)
        ids[i, k] = c
        masks[i, c] = True


@njit(cache=True)
def _clear_mask(i: int, table: np.ndarray, masks: np.ndarray, ids: np.ndarray) -> None:
    """Clears env i's mask row where the last `_emit` set it (its ids), not the whole row."""
    for k in range(table[i, G_N]):
        masks[i, ids[i, k]] = False


@njit(cache=True, parallel=True)
def reset_games(seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray, legal: np.ndarray,
                table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, obs: np.ndarray, masks: np.ndarray,
                ids: np.ndarray) -> None:  # fmt: skip
    for i in prange(states.shape[0]):
        _clear_mask(i, table, masks, ids)
        table[i, G_GAMES] = 0
        _start(i, seed, params, mix, states, legal, table, rngs, scratch)
        _emit(i, states, legal, table, obs, masks, ids)


@njit(cache=True, parallel=True)
def step_games(actions: np.ndarray, seed: int, params: np.ndarray, mix: np.ndarray, states: np.ndarray,
               legal: np.ndarray, table: np.ndarray, rngs: np.ndarray, scratch: np.ndarray, obs: np.ndarray,
               masks: np.ndarray, ids: np.ndarray, rewards: np.ndarray, terminal_obs: np.ndarray) -> None:  # fmt: skip
    """Plays every env's learner action and the replies; a finished game's env starts its next game."""
    for i in prange(states.shape[0]):
        s = states[i]
        seat = table[i, G_SEAT]
        n = table[i, G_N]
        a = -1
        for k in range(n):
            if ids[i, k] == actions[i]:
                a = legal[i, k]
                break
        _clear_mask(i, table, masks, ids)
        table[i, G_DONE] = 0
        table[i, G_TRUNCATED] = 0
        table[i, G_ILLEGAL] = 0
        if a < 0:  # an illegal action loses
            rewards[i] = -1.0
            table[i, G_DONE] = 1
            table[i, G_ILLEGAL] = 1
            table[i, G_WINNER] = -1
        else:
            n = step(s, a, legal[i])
            n = _opponents(s, legal[i], n, seat, table[i, G_OPPONENT], rngs[i], scratch[i])
            table[i, G_N] = n
            out = s[OUT_RANK + seat] > 0
            rewards[i] = -1.0 if out else (1.0 if s[WINNER] == seat else 0.0)
            if out or n == 0:
                table[i, G_DONE] = 1
                table[i, G_WINNER] = s[WINNER]
                if not out and s[WINNER] == UNDECIDED and s[TURNS] >= s[MAX_TURNS]:
                    table[i, G_TRUNCATED] = 1
        if table[i, G_DONE] == 1:
            observe(s, seat, terminal_obs[i])
            table[i, G_ENDED_SEAT] = seat
            table[i, G_ENDED_OPPONENT] = table[i, G_OPPONENT]
            table[i, G_GAMES] += 1
            _start(i, seed, params, mix, states, legal, table, rngs, scratch)
        _emit(i, states, legal, table, obs, masks, ids)


@njit(cache=True, parallel=True)
def random_learner_actions(masks: np.ndarray, rngs: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal learning id per env (for speed measurements)."""
    for i in prange(masks.shape[0]):
        n = 0
        for c in range(masks.shape[1]):
            if masks[i, c]:
                n += 1
        k = below(rngs[i], max(n, 1))
        for c in range(masks.shape[1]):
            if masks[i, c]:
                if k == 0:
                    out[i] = c
                    break
                k -= 1


def mix_of(opponents: Any) -> np.ndarray:
    """A compiled opponent's name, or a mapping name -> weight (>= 0, not all 0), as the cumulative probabilities
    the compiled step draws from (one per agent of `AGENTS`)."""
    allowed = f"one of {', '.join(AGENTS)} or a mapping of them to weights"
    given = opponents if isinstance(opponents, Mapping) else {opponents: 1.0}
    weights = np.zeros(len(AGENTS), dtype=np.float64)
    for name, weight in given.items():
        if not isinstance(name, str) or name not in AGENTS:
            raise ValueError(f"opponents: Bin'Fa's batched env plays its compiled agents only ({allowed}; no "
                             f"self-play pool or trained policy), got {name!r:.40}")  # fmt: skip
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer, np.floating)) or \
                not 0 <= weight < math.inf:  # fmt: skip
            raise ValueError(f"opponents: each weight must be a finite number >= 0, got {name}={weight!r:.40}")
        weights[AGENTS.index(name)] += float(weight)
    if weights.sum() <= 0:
        raise ValueError(f"opponents: expected {allowed} with weights not all 0, got {opponents!r:.60}")
    cumulative = np.cumsum(weights / weights.sum())
    cumulative[np.flatnonzero(weights)[-1] :] = 1.0
    return cumulative


class _Core:
    """The arrays of `n` games and the compiled calls over them, shared by both vector faces."""

    def __init__(
        self, n: int, opponent: Any, seed: int | None, seat: int | str, options: Any, threads: int | None
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n_envs must be an integer >= 1, got {n!r:.40}")
        self.mix = mix_of(opponent)
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
        r = self.rules
        self.params = np.array(
            [r.level, players, r.armies_per_player, int(r.deployment == "random"), r.max_turns,
             SEAT_ALTERNATE if seat == "alternate" else int(seat), self.n],
            dtype=np.int64,
        )  # fmt: skip
        self.states = np.zeros((self.n, STATE_SIZE), dtype=STATE_DTYPE)
        self.legal = np.zeros((self.n, LEGAL_CAPACITY), dtype=np.int32)
        self.table = np.zeros((self.n, TABLE_COLUMNS), dtype=np.int64)
        self.rngs = np.zeros((self.n, 1), dtype=np.uint64)
        self.scratch = np.zeros((self.n, SCRATCH_SIZE), dtype=STATE_DTYPE)
        # two observation arrays, written in turn: the one a step returns stays as it is through the next step;
        # each allocated alone, so aligned as any array is (torch's matrix products round by their inputs' alignment:
        # a learner resumed from a copy of the observations then computes what it computed on these)
        self.buffers = (np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32),
                        np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32))  # fmt: skip
        self.flip = 0
        self.terminal_obs = np.zeros((self.n, OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.zeros((self.n, N_LEARN_ACTIONS), dtype=np.bool_)
        self.ids = np.zeros((self.n, LEGAL_CAPACITY), dtype=np.int64)
        self.rewards = np.zeros(self.n, dtype=np.float32)

    @property
    def obs(self) -> np.ndarray:
        """The observations of the last reset or step."""
        return self.buffers[self.flip]

    def _threads(self) -> None:
        if self.threads is not None:
            numba.set_num_threads(self.threads)

    def reset(self) -> None:
        self._threads()
        self.flip = 1 - self.flip
        reset_games(self.seed, self.params, self.mix, self.states, self.legal, self.table, self.rngs, self.scratch,
                    self.obs, self.masks, self.ids)  # fmt: skip

    def step(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(-1).astype(np.int64)
        if actions.shape[0] != self.n:
            raise ValueError(f"actions: expected {self.n} actions, got {actions.shape[0]}")
        self._threads()
        self.flip = 1 - self.flip
        step_games(actions, self.seed, self.params, self.mix, self.states, self.legal, self.table, self.rngs,
                   self.scratch, self.obs, self.masks, self.ids, self.rewards, self.terminal_obs)  # fmt: skip

    def info(self, i: int) -> dict[str, Any]:
        """Env i's info after a step: at the end of a game, its seat, winner ("draw" when undecided, BD5; None
        after an illegal action) and opponent by name, and its terminal observation."""
        row = self.table[i]
        if not row[G_DONE]:
            return {}
        winner = int(row[G_WINNER])
        info: dict[str, Any] = {
            "terminal_observation": self.terminal_obs[i].copy(),
            "seat": AGENT_NAMES[row[G_ENDED_SEAT]],
            "winner": None if winner < 0 else ("draw" if winner == UNDECIDED else AGENT_NAMES[winner]),
            "opponent": AGENTS[row[G_ENDED_OPPONENT]],
            "TimeLimit.truncated": bool(row[G_TRUNCATED]),
        }
        if row[G_ILLEGAL]:
            info["illegal_action"] = True
        return info

    def _state_values(self) -> dict[str, Any]:
        """Every value the games' future depends on (with the seed, the mix and the settings), as held."""
        return {key: np.stack(self.buffers) if key == "buffers" else getattr(self, key) for key in STATE_KEYS}

    def get_state(self) -> dict[str, np.ndarray]:
        """Copies of every array the games' future depends on (with the seed, the mix and the settings)."""
        return {key: np.array(value, copy=True) for key, value in self._state_values().items()}

    def set_state(self, state: Mapping[str, np.ndarray]) -> None:
        """Continue from `get_state`'s arrays: refused, changing nothing, unless they are an env's of this size and
        these settings."""
        missing = [key for key in STATE_KEYS if key not in state]
        if missing:
            raise ValueError(f"set_state: not a BinFaVecEnv state (no {', '.join(missing)})")
        mine = {key: np.asarray(value) for key, value in self._state_values().items()}
        for key in STATE_KEYS:
            value = np.asarray(state[key])
            if value.shape != mine[key].shape or value.dtype != mine[key].dtype:
                raise ValueError(f"set_state: {key} has shape {value.shape} {value.dtype}; this env's is "
                                 f"{mine[key].shape} {mine[key].dtype} ({self.n} envs)")  # fmt: skip
        if not np.array_equal(state["params"], self.params):
            raise ValueError("set_state: the state is of an env with other options or seat (params "
                             f"{np.asarray(state['params']).tolist()}, this env's {self.params.tolist()})")  # fmt: skip
        mix = np.asarray(state["mix"], dtype=np.float64)
        if not (np.all(np.diff(mix, prepend=0.0) >= 0) and mix[-1] == 1.0):
            raise ValueError(f"set_state: mix must be cumulative probabilities ending at 1, got {mix.tolist()}")
        for key in STATE_KEYS:
            if key not in ("seed", "flip", "params", "mix", "buffers"):
                getattr(self, key)[...] = state[key]
        for buffer, saved in zip(self.buffers, state["buffers"], strict=True):
            buffer[...] = saved
        self.seed, self.flip = int(state["seed"]), int(state["flip"])
        self.mix = mix.copy()


class BinFaVecEnv(VecEnv):
    """`n_envs` games of Bin'Fa, a learner seat each, against compiled opponents (see the module docstring).

    Arguments: `n_envs`; `opponent`: "random", "greedy" or "heuristic", or a mapping of them to weights (each
    game's opponent drawn from its seed); `seed` (game k of env i is seeded `seed + n_envs * k + i`; None:
    fresh entropy); `seat`: "alternate" (env i's game k seats the learner at (i + k) mod players) or a seat;
    `options`: `suntzu_env.binfa.Options` or a dict of its fields (terrain and whirlpools drawn from each seed);
    `threads`: numba threads for a step (None: numba's setting).
    The observations a step returns are not copied: they stay as they are until the step after next.
    An illegal learner action ends that game with −1 (`info["illegal_action"]`). A finished game's env starts
    its next game in the same step; its info holds "terminal_observation", "seat" and "winner" (seat names
    `player_<p>`; winner "draw" when undecided, BD5, None after an illegal action), "opponent" (its name) and
    "TimeLimit.truncated" (max_turns, BD5).
    """

    def __init__(
        self,
        n_envs: int,
        opponent: str | Mapping[str, float] = "random",
        seed: int | None = 0,
        seat: int | str = "alternate",
        options: Options | dict[str, Any] | None = None,
        threads: int | None = None,
    ) -> None:
        self.core = _Core(n_envs, opponent, seed, seat, options, threads)
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
        done = core.table[:, G_DONE].astype(bool)
        infos = [core.info(i) if done[i] else {} for i in range(core.n)]
        return core.obs, core.rewards.copy(), done, infos

    def set_opponents(self, opponents: Any) -> None:
        """Draw each game's opponent from `opponents` (a compiled agent's name, or a mapping of them to weights)
        from the next game on; the games in progress keep theirs."""
        self.core.mix = mix_of(opponents)

    set_opponent = set_opponents

    def opponent_slot(self, opponent: Any) -> int:
        """The slot of a compiled opponent: its index in `AGENTS` (this env plays no policy snapshots)."""
        if not isinstance(opponent, str) or opponent not in AGENTS:
            raise ValueError(f"opponent_slot: Bin'Fa's batched env plays only {', '.join(AGENTS)}, got "
                             f"{opponent!r:.40}")  # fmt: skip
        return AGENTS.index(opponent)

    def get_state(self) -> dict[str, np.ndarray]:
        """The games in progress, their generators, the seed and the opponent mix, as arrays (a checkpoint's)."""
        return self.core.get_state()

    def set_state(self, state: Mapping[str, np.ndarray], opponents: Mapping[int, Any] | None = None) -> None:
        """Continue exactly from `get_state`'s arrays (`opponents`: the policy snapshots of a pool, which this env
        does not play, so none)."""
        if opponents:
            raise ValueError("set_state: Bin'Fa's batched env plays no policy snapshots (self-play pool); give none")
        self.core.set_state(state)

    def action_masks(self) -> np.ndarray:
        """The (n_envs, N_LEARN_ACTIONS) booleans of the learners' legal actions."""
        return self.core.masks.copy()

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> list[int | None]:
        self.core.seed = check_seed(seed, optional=True) or 0
        return [self.core.seed] * self.core.n

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.core.n))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        return [getattr(self, method_name)(*args, **kwargs) for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


class BinFaVectorEnv(gymnasium.vector.VectorEnv):
    """The same games under Gymnasium's vector API (autoreset in the same step: a finished game's observation is
    in `infos["final_obs"]`, marked by `infos["_final_obs"]`); arguments as `BinFaVecEnv`'s."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, opponent: str = "random", seed: int | None = 0, seat: int | str = "alternate",
                 options: Options | dict[str, Any] | None = None, threads: int | None = None) -> None:  # fmt: skip
        self.core = _Core(num_envs, opponent, seed, seat, options, threads)
        self.num_envs = self.core.n
        self.single_observation_space = observation_box()
        self.single_action_space = spaces.Discrete(N_LEARN_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        if seed is not None:
            self.core.seed = check_seed(seed)
        self.core.reset()
        return self.core.obs, {"action_mask": self.core.masks.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self.core
        core.step(actions)
        done = core.table[:, G_DONE].astype(bool)
        truncated = core.table[:, G_TRUNCATED].astype(bool)
        infos: dict[str, Any] = {"action_mask": core.masks.copy()}
        if done.any():
            infos["final_obs"] = np.where(done[:, None], core.terminal_obs, 0.0).astype(np.float32)
            infos["_final_obs"] = done
        return core.obs, core.rewards.copy(), done & ~truncated, truncated, infos

    def action_masks(self) -> np.ndarray:
        return self.core.masks.copy()


def measure(envs: int, steps: int, opponent: str, threads: int | None, seed: int = 0) -> tuple[float, float]:
    """Learner steps per second (wall clock, and per CPU second of this process) of `envs` games against
    `opponent`, the learner playing random legal ids."""
    env = BinFaVecEnv(envs, opponent=opponent, seed=seed, threads=threads)
    env.reset()
    rngs = np.stack([agent_rng(seed + i) for i in range(envs)])
    actions = np.zeros(envs, dtype=np.int64)
    for _ in range(3):  # warm up
        random_learner_actions(env.core.masks, rngs, actions)
        env.core.step(actions)
    elapsed = cpu = 0.0
    for _ in range(steps):
        random_learner_actions(env.core.masks, rngs, actions)
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
