"""`SunTzuVecEnv`: many games of Sun Tzu for one learner, stepped at once in compiled code, as a Stable-Baselines3
`VecEnv` (the face; `suntzu_env.suntzu.vec_env` describes the environment, `suntzu_env.suntzu.vec.slots` its opponents,
`suntzu_env.suntzu.vec_core` the compiled step)."""

from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from suntzu_env.core import saved_arrays as saved
from suntzu_env.core import vec_table
from suntzu_env.core.agent import Opponent
from suntzu_env.core.checks import (
    MAX_SEED,
    IllegalActionWarning,
    check_choice,
    check_seed,
    illegal_action_warning,
    is_integer,
    mix_cdf,
)
from suntzu_env.core.policy_net import seated_net, seated_state
from suntzu_env.core.rng import GENERATOR
from suntzu_env.core.threads import ThreadCount
from suntzu_env.core.vec_shell import PER_ENV, BatchedVecEnv
from suntzu_env.suntzu import vec_core as core
from suntzu_env.suntzu.actions import ACTION_STRINGS, N_ACTIONS
from suntzu_env.suntzu.engine import legal_mask, side_to_act
from suntzu_env.suntzu.episode import EnvSettings
from suntzu_env.suntzu.game import RESULTS, Game, engine_map
from suntzu_env.suntzu.layout import ADJ, EVENTS_ON, STATE_DTYPE, STATE_SIZE, VARIANT
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.records import checked_state
from suntzu_env.suntzu.rules import N_PROVINCES, SEATS, VARIANTS
from suntzu_env.suntzu.suntzu_v3 import observation_box
from suntzu_env.suntzu.vec.slots import OpponentSlots, Slot, describe

SEAT_MODES = ("alternate", "blue", "red")


class SunTzuVecEnv(BatchedVecEnv):
    """`n_envs` games of Sun Tzu, one learner seat each, against compiled or policy opponents.

    Arguments:

    - `n_envs`: how many games are played at once (an int >= 1).
    - `opponents`: one opponent for every env, a sequence of `n_envs` (env i always meets the i-th), or a
      mapping opponent -> weight (each new game draws its opponent with those weights from the env's seed).
      An opponent is an agent spec string (`random`, `greedy`, `heuristic` play compiled; other specs go
      through `suntzu_env.suntzu.players.make_agent`), a callable `policy(observations[M, D], masks[M, A]) ->
      actions[M]` (int8
      masks, one batched call for every game waiting on it), or an object with `act_batch(observations, masks)`
      or `act(observation, mask)`. An agent whose `compiled_policy()` gives a policy network and whether it
      plays the argmax (`agents.ppo.PPOAgent`) plays in compiled code, sampling (when it samples) from each
      game's opponent generator; the others are asked from Python. `set_opponents` changes them.
      `opponent=` (the name `SunTzuGymEnv` takes, so `gymnasium.make_vec` passes it on) is one opponent for
      every env, in place of `opponents`.
    - `seed`: the seed of every deck, seat draw and opponent generator (an int in [0, 2**63), None: fresh
      entropy). The same seed and the same actions give the same games.
    - `seat`: the learner's seat: "alternate" (the default: env i starts as blue when i is even, red when
      odd, and changes seat every game), "blue" or "red".
    - `records`: put each finished game's record (`{"seed", "rules", "actions"}`, `Game.replay` rebuilds it) in
      `infos[i]["record"]`; `last_record(i)` returns it either way.
    - `options` (or `variant`, `events`, `adjacency`), `shaped_reward`, `illegal_action`: as for
      `SunTzuGymEnv` (declared in `suntzu_env.suntzu.episode.EnvSettings`; illegal actions lose by default).
    - `threads`: the numba threads a step runs on: "auto" (the default: the count that steps fastest now,
      timed as the env runs, so a core taken by another process costs no more than that core;
      `suntzu_env.core.threads`) or a whole number from 1 to numba's `NUMBA_NUM_THREADS`. The games do not depend
      on it.

    The step (SB3's convention): `step(actions)` returns observations (N, D) float32, rewards (N,) float32,
    dones (N,) bool and N info dicts. A finished game's env has already started its next game: its
    observation is the new game's, and its info holds the last one as "terminal_observation", with "seat",
    "winner" (None after an illegal action), "score" (the final marker, + toward blue), "opponent" (its name),
    "illegal_action" (when so) and "record" (with `records=True`). `action_masks()` gives the (N, A) bool
    masks of the learner's legal actions.
    Rewards: +1/-1/0 at the end (R6.5), plus w·(Φ(s')−Φ(s)) toward the learner when `shaped_reward` = w.
    An illegal learner action under `illegal_action="raise"` raises ValueError naming the env, the decision
    and the legal actions, and nothing is played; a policy opponent that answers illegally (or raises) leaves
    every game as it was before the step.
    """

    def __init__(
        self,
        n_envs: int,
        opponents: Opponent | Sequence[Opponent] | Mapping[Opponent, float] | None = None,
        seed: int | None = None,
        seat: str = "alternate",
        records: bool = False,
        options: Options | Mapping[str, Any] | None = None,
        threads: int | str = "auto",
        *,
        opponent: Opponent | None = None,
        **kwargs: Any,
    ) -> None:
        if opponent is not None and opponents is not None:
            raise TypeError("give opponent= or opponents=, not both (opponent= is one opponent for every env)")
        if opponents is None:
            opponents = "random" if opponent is None else opponent
        if not is_integer(n_envs) or isinstance(n_envs, bool):
            raise TypeError(f"n_envs must be an integer >= 1, got {n_envs!r} ({type(n_envs).__name__})")
        if n_envs < 1:
            raise ValueError(f"n_envs must be an integer >= 1, got {n_envs}")
        n = int(n_envs)
        kwargs.setdefault("illegal_action", "loss")
        settings = EnvSettings.of(options, **kwargs)
        if settings.render_mode is not None:
            raise ValueError("render_mode: SunTzuVecEnv does not render; leave it None (SunTzuGymEnv renders a game)")
        if settings.flat_observation:
            raise ValueError("flat_observation: SunTzuVecEnv's observation is already one Box vector; leave it False")
        self.settings = settings
        self.seat_mode = check_choice(seat, "seat", SEAT_MODES)
        if not isinstance(records, (bool, np.bool_)):
            raise TypeError(f"records must be True or False, got {records!r}")
        self.records = bool(records)
        self.render_mode = None
        self.threads = ThreadCount(threads)
        self._seed = check_seed(seed, optional=True)
        super().__init__(n, observation_box(), spaces.Discrete(N_ACTIONS))

        self._states = np.zeros((n, STATE_SIZE), dtype=STATE_DTYPE)
        self._masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self._table = np.zeros((n, core.TABLE_COLUMNS), dtype=np.int64)
        self._table[:, core.T_ENDED_SEED] = -1
        self._phi = np.zeros(n, dtype=np.float64)
        self._streams = np.zeros(n, dtype=np.uint64)
        self._actions = np.zeros((n, core.RECORD_CAPACITY), dtype=np.int16)
        self._finished = np.zeros((n, core.RECORD_CAPACITY), dtype=np.int16)
        self._obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)  # the last returned: never written again
        self._terminal_obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        self._rewards = np.zeros(n, dtype=np.float32)
        self._policy_obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        self._scratch = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        self._mutable = (
            self._states, self._masks, self._table, self._phi, self._streams, self._actions, self._finished,
            self._terminal_obs, self._rewards,
        )  # fmt: skip
        options = settings.options
        seat_code = core.SEAT_ALTERNATE if self.seat_mode == "alternate" else SEATS.index(self.seat_mode)
        self._settings = np.array([VARIANTS.index(options.variant), int(options.events), seat_code], np.int64)
        self._adj = engine_map(options)
        self._rules = Game.new(0, options).record()["rules"]
        self._weight = float(settings.shaped_reward)
        self._slots = OpponentSlots(n)
        self._mix_cdf = np.ones(1, dtype=np.float64)
        self._pending_actions: np.ndarray | None = None
        self._illegal = np.zeros(n, dtype=np.uint8)
        self._warned_illegal = False
        self._started = False
        self._seed_streams(self._seed)
        self.set_opponents(opponents)

    # ------------------------------------------------------------ opponents

    def set_opponents(
        self, opponents: Opponent | Sequence[Opponent] | Mapping[Opponent, float], indices: VecEnvIndices = None
    ) -> None:
        """Play `opponents` from each env's next game on (the game in progress keeps its opponent).

        One opponent, a sequence (one per env of `indices`), or a mapping opponent -> weight (drawn per game;
        for every env, so `indices` must be None). See the class docstring for what an opponent is.
        """
        envs = list(self._get_indices(indices))
        if isinstance(opponents, Mapping):
            if indices is not None:
                raise ValueError("set_opponents: a mix (opponent -> weight) applies to every env; leave indices None")
            self._mix_cdf = mix_cdf(opponents, lambda o: self._slots.index(o, self._seed), lambda: len(self._slots),
                                    describe)  # fmt: skip
            self._table[:, core.T_FIXED_OPPONENT] = -1
            return
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != len(envs):
                raise ValueError(
                    f"opponents: a sequence needs one opponent per env ({len(envs)}), got {len(opponents)}"
                )
            slots = [self._slots.index(opponent, self._seed) for opponent in opponents]
        else:
            slots = [self._slots.index(opponents, self._seed)] * len(envs)
        self._table[envs, core.T_FIXED_OPPONENT] = slots
        if self._mix_cdf.shape[0] != len(self._slots):  # keep the mix's table as long as the slots
            self._mix_cdf = np.concatenate([self._mix_cdf, np.ones(len(self._slots) - self._mix_cdf.shape[0])])

    def set_opponent(self, opponent: Opponent, indices: VecEnvIndices = None) -> None:
        """`set_opponents` with one opponent (the name `SunTzuGymEnv` uses, for `env_method("set_opponent", ...)`)."""
        self.set_opponents(opponent, indices)

    @property
    def opponent_names(self) -> list[str]:
        """The name of the opponent each env plays in its game in progress."""
        return [self._slots[k].name for k in self._table[:, vec_table.OPPONENT]]

    # ------------------------------------------------------------ seeds and games

    def _seed_streams(self, seed: int | None) -> None:
        self._streams[:] = np.random.SeedSequence(seed).generate_state(self.num_envs, np.uint64)
        self._table[:, core.T_NEXT_SEAT] = np.arange(self.num_envs) % 2

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the games that the next `reset` starts (and all after them); returns the seed per env."""
        self._seeds = [check_seed(seed, optional=True)] * self.num_envs
        return list(self._seeds)

    def reset(self) -> np.ndarray:
        """A new game in every env (the games in progress are dropped); returns the learners' observations."""
        if self._seeds[0] is not None:
            self._seed = self._seeds[0]
            self._seed_streams(self._seed)
        self._reset_seeds()
        self._reset_options()
        return self._start(np.arange(self.num_envs), np.full((self.num_envs, 3), -1, dtype=np.int64))

    def play_games(
        self,
        game_seeds: Sequence[int] | np.ndarray,
        seats: Sequence[str],
        opponent_seeds: Sequence[int] | np.ndarray | None = None,
        envs: Sequence[int] | np.ndarray | None = None,
    ) -> np.ndarray:
        """A new game in each env of `envs` (None: all) from the given deck seeds and learner seats (e.g. to
        evaluate on fixed deals), the compiled opponent's generator seeded from `opponent_seeds` (None: drawn;
        a seed gives the generator `Agent.reset(seed)` gives). The other envs' games go on; when these games
        end, each env goes on with games drawn from its seed. Returns every env's observation."""
        at = np.arange(self.num_envs) if envs is None else np.array([self._env_index(i) for i in envs], np.int64)
        if len(set(at.tolist())) != at.size:
            raise ValueError("play_games: an env is named twice in envs")
        m = at.size
        if len(game_seeds) != m or len(seats) != m:
            raise ValueError(f"play_games needs {m} deck seeds and {m} seats (one per env), got {len(game_seeds)} "
                             f"and {len(seats)}")  # fmt: skip
        if opponent_seeds is not None and len(opponent_seeds) != m:
            raise ValueError(f"play_games needs {m} opponent seeds (one per env), got {len(opponent_seeds)}")
        starts = np.empty((m, 3), dtype=np.int64)
        for j in range(m):
            starts[j, 0] = check_seed(game_seeds[j], f"game_seeds[{j}]")
            starts[j, 1] = SEATS.index(check_choice(seats[j], f"seats[{j}]", SEATS))
            starts[j, 2] = -1 if opponent_seeds is None else check_seed(opponent_seeds[j], f"opponent_seeds[{j}]")
        return self._start(at, starts)

    def sit_out(self, envs: Sequence[int] | np.ndarray) -> None:
        """These envs sit out every step (their actions are ignored, they report nothing) until `play_games`
        or `reset` starts a game in them: a fixed set of games is played out without playing more."""
        self._table[[self._env_index(i) for i in envs], core.T_IDLE] = 1

    def _start(self, envs: np.ndarray, starts: np.ndarray) -> np.ndarray:
        self._run(core.start_games, envs, starts, others=np.setdiff1d(np.arange(self.num_envs), envs))
        self._started = True
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs

    def _batch(self, obs: np.ndarray) -> core.Batch:
        """What the kernels play on, the learners' observations written into `obs`."""
        slots = self._slots
        return core.Batch(
            self._states, self._masks, self._table, self._phi, self._streams, self._actions, self._finished, obs,
            self._terminal_obs, self._rewards, self._scratch, slots.agents, self._mix_cdf, self._settings, self._adj,
            slots.net_params, slots.net_headers, slots.work, self._weight,
        )  # fmt: skip

    def _run(
        self, kernel: Callable[..., None], first: np.ndarray, second: np.ndarray, others: np.ndarray | None = None
    ) -> None:
        """Run a kernel, then the policy opponents' rounds; a failing policy leaves everything as it was.

        The learners' observations go into a new array, which becomes `_obs` (and is returned as is): an array
        handed out is never written again, so it needs no copy. The kernel writes the envs it plays; `others`
        (envs it leaves alone) are observed again, unchanged.
        """
        saved = [a.copy() for a in self._mutable] if self._slots.any_policy else None
        obs = np.empty_like(self._obs)
        if others is not None and self._started:
            core.observe(others, False, self._states, self._table, obs, others)
        elif others is not None:
            obs[others] = 0.0  # no game yet
        try:
            with self.threads.chosen():
                kernel(first, second, *self._batch(obs))
                if self._slots.any_policy:
                    self._serve_policies(obs)
        except BaseException:
            if saved is not None:
                for array, copy in zip(self._mutable, saved, strict=True):
                    np.copyto(array, copy)
            raise
        self._obs = obs

    def _serve_policies(self, obs: np.ndarray) -> None:
        """Opponent rounds: every game waiting on a policy gets its answer from one call per policy (the learners'
        observations written into `obs`)."""
        table = self._table
        while True:
            waiting = np.flatnonzero(table[:, core.T_WAITING])
            if waiting.size == 0:
                return
            waiting = waiting[np.argsort(table[waiting, vec_table.OPPONENT], kind="stable")]  # each policy's in a row
            slots = table[waiting, vec_table.OPPONENT]
            observations = self._policy_obs[: waiting.size]
            core.observe(waiting, True, self._states, table, observations, np.arange(waiting.size))
            masks = self._masks[waiting]
            answers = np.empty(waiting.size, dtype=np.int64)
            bounds = [0, *(np.flatnonzero(slots[1:] != slots[:-1]) + 1).tolist(), waiting.size]  # one run per policy
            for lo, hi in itertools.pairwise(bounds):
                slot = self._slots[slots[lo]]
                if slot.searcher is not None:
                    answers[lo:hi] = self._search_answers(slot, waiting[lo:hi])
                    continue
                answers[lo:hi] = self._shaped_answers(slot, slot.policy(observations[lo:hi], masks[lo:hi]), hi - lo)
            j = core.check_actions(answers, masks, np.empty(waiting.size, dtype=np.uint8))
            if j >= 0:
                raise ValueError(f"opponent {self._slots[slots[j]].name!r} played an illegal action: "
                                 f"{self._illegal_error(waiting[j], answers[j])}")  # fmt: skip
            core.resume_games(waiting, answers, *self._batch(obs))

    def _search_answers(self, slot: Slot, games: np.ndarray) -> list[int]:
        """A search's moves in `games`, on as many threads as the step runs (each a copy of the search, which
        releases the GIL while it searches); the moves depend only on each game's state and generator, never on
        the threads."""
        count = min(numba.get_num_threads(), len(games))
        if count <= 1:
            return [self._search_answer(slot.searcher, i) for i in games]
        while len(slot.searcher_copies) < count - 1:
            slot.searcher_copies.append(copy.deepcopy(slot.searcher))
        searchers = [slot.searcher, *slot.searcher_copies[: count - 1]]
        parts = np.array_split(games, count)
        with ThreadPoolExecutor(count) as pool:
            found = pool.map(lambda k: [self._search_answer(searchers[k], i) for i in parts[k]], range(count))
            return [a for part in found for a in part]

    def _search_answer(self, searcher: Any, i: int) -> int:
        """A search's move in game i, for the seat the learner does not hold, drawn from the game's own generator."""
        rng = self._table[i, core.T_AGENT_RNG : core.T_AGENT_RNG + 1]
        seat = 1 - int(self._table[i, vec_table.SEAT])
        return int(searcher.act_in_state(self._states[i], seat, self._masks[i], rng))

    @staticmethod
    def _shaped_answers(slot: Slot, answers: Any, m: int) -> np.ndarray:
        """A policy's answers for m games as int64 (m,); else ValueError naming the opponent."""
        if type(answers) is np.ndarray and answers.dtype == np.int64 and answers.shape == (m,):
            return answers  # what a batched policy usually returns: nothing to check or convert
        out = np.asarray(answers)
        if out.size != m or (out.ndim > 1 and out.shape[0] != m):
            raise ValueError(
                f"opponent {slot.name!r} returned actions of shape {out.shape} for {m} games; "
                f"a policy must return one action per observation"
            )
        if not np.issubdtype(out.dtype, np.integer):
            raise ValueError(f"opponent {slot.name!r} returned actions of dtype {out.dtype}; expected integers")
        return out.reshape(m)

    def _illegal_error(self, i: int, action: Any) -> ValueError:
        """The error of `action` in env i's pending decision (the same text as `Game.apply`)."""
        try:
            Game(self._states[i].copy()).apply(action.item() if isinstance(action, np.generic) else action)
        except ValueError as error:
            return ValueError(f"env {i}: {error}")
        return ValueError(f"env {i}: action {action!r} is not the learner's to play now")

    # ------------------------------------------------------------ stepping

    def step_async(self, actions: np.ndarray) -> None:
        if not self._started:
            raise RuntimeError("step() needs games in progress: call reset() first")
        self._pending_actions = self._checked_actions(actions)

    def _checked_actions(self, actions: Any) -> np.ndarray:
        """The learners' actions as int64 (N,); illegal ones flagged in `_illegal` (or raised, "raise")."""
        n = self.num_envs
        a = np.asarray(actions)
        if a.shape not in ((n,), (n, 1)):
            raise ValueError(f"actions must have shape ({n},), one action id per env, got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integer action ids, got dtype {a.dtype}")
        a = a.reshape(n).astype(np.int64)
        i = core.check_actions(a, self._masks, self._illegal)
        if i >= 0:
            error = self._illegal_error(i, a[i])
            if self.settings.illegal_action == "raise":
                raise error
            if not self._warned_illegal:
                self._warned_illegal = True
                seat = SEATS[self._table[i, vec_table.SEAT]]
                warnings.warn(illegal_action_warning(error, seat), IllegalActionWarning, stacklevel=4)
            a[self._illegal != 0] = 0
        return a

    def _advance(self) -> np.ndarray:
        """Play the actions given to `step_async`; returns which envs ended a game."""
        if self._pending_actions is None:
            raise RuntimeError("step_wait() without step_async(): call step(actions)")
        actions, self._pending_actions = self._pending_actions, None
        self._run(core.step_games, actions, self._illegal)
        return self._table[:, vec_table.DONE].astype(bool)

    def step_wait(self) -> VecEnvStepReturn:
        dones = self._advance()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        for i, info in zip(ended.tolist(), self._end_infos(ended), strict=True):
            infos[i] = info
        return self._obs, self._rewards.copy(), dones, infos

    def _end_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        """The infos of the envs whose game just ended: its learner's last observation, seat, winner, ..."""
        if ended.size == 0:
            return []
        terminal = self._terminal_obs[ended]
        columns = [vec_table.ENDED_SEAT, vec_table.ENDED_RESULT, vec_table.ENDED_OPPONENT, vec_table.ILLEGAL]
        rows = self._table[ended][:, [*columns, core.T_ENDED_SCORE]].tolist()
        infos = []
        for j, (learner, result, slot, illegal, score) in enumerate(rows):
            info: dict[str, Any] = {
                "terminal_observation": terminal[j],
                "seat": SEATS[learner],
                "winner": RESULTS[result] if result >= 0 else None,
                "opponent": self._slots[slot].name,
                "score": score,
            }
            if illegal:
                info["illegal_action"] = True
            if self.records:
                info["record"] = self.last_record(int(ended[j]))
            infos.append(info)
        return infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (N, A) bool (every env's learner is to act between steps)."""
        if not self._started:
            raise RuntimeError("action_masks() before reset(): there are no games yet, call reset() first")
        return self._masks.astype(bool)

    def last_record(self, i: int) -> dict[str, Any]:
        """The record of env i's last finished game: `{"seed", "generator", "rules", "actions"}` (`Game.replay`
        rebuilds it)."""
        i = self._env_index(i)
        row = self._table[i]
        if row[core.T_ENDED_SEED] < 0:
            raise ValueError(f"env {i} has not finished a game yet")
        actions = self._finished[i, : row[core.T_ENDED_LEN]].tolist()
        return {
            "seed": int(row[core.T_ENDED_SEED]),
            "generator": GENERATOR,
            "rules": dict(self._rules),
            "actions": [ACTION_STRINGS[a] for a in actions],
        }

    def game(self, i: int) -> Game:
        """A copy of env i's game in progress as a `Game` (its record holds the actions played so far)."""
        i = self._env_index(i)
        game = Game.replay(
            {
                "seed": int(self._table[i, core.T_GAME_SEED]),
                "generator": GENERATOR,
                "rules": dict(self._rules),
                "actions": [ACTION_STRINGS[a] for a in self._actions[i, : self._table[i, core.T_REC_LEN]].tolist()],
            }
        )
        return game

    @property
    def seats(self) -> list[str]:
        """The learner's seat in each env's game in progress."""
        return [SEATS[side] for side in self._table[:, vec_table.SEAT]]

    def _env_index(self, i: Any) -> int:
        if not is_integer(i) or not 0 <= int(i) < self.num_envs:
            raise ValueError(f"env index must be an integer in [0, {self.num_envs}), got {i!r}")
        return int(i)

    # ------------------------------------------------------------ saving and restoring

    _STATE_ARRAYS = ("_states", "_masks", "_table", "_phi", "_streams", "_actions", "_finished", "_obs",
                     "_terminal_obs", "_rewards", "_illegal", "_mix_cdf")  # fmt: skip

    def get_state(self) -> dict[str, np.ndarray]:
        """Everything the env's future depends on, as arrays (for `np.savez`): the games in progress, their
        generators, the seeds, the opponent mix and its slots (a slot's policy network included). Reading it
        changes nothing; `set_state` on an env of the same size and options continues exactly from here."""
        if self._pending_actions is not None:
            raise RuntimeError("get_state() between step_async() and step_wait(): finish the step first")
        out = {name[1:]: getattr(self, name).copy() for name in self._STATE_ARRAYS}
        seeds = [-1 if s is None else s for s in (self._seeds or [None] * self.num_envs)]
        out["seed"] = np.array([-1 if self._seed is None else self._seed], dtype=np.int64)
        out["pending_seeds"] = np.array(seeds, dtype=np.int64)
        out["started"] = np.array(self._started)
        out["slot_names"] = np.array([slot.name for slot in self._slots], dtype=str)
        out["slot_specs"] = np.array([slot.key if isinstance(slot.key, str) else "" for slot in self._slots], dtype=str)
        out["slot_agents"] = self._slots.agents.copy()
        for k, slot in enumerate(self._slots):
            if slot.net is not None:
                net, deterministic = slot.net
                out |= seated_state(net, deterministic, f"slot{k}_")
        return out

    def opponent_slot(self, opponent: Any) -> int:
        """The index of the slot `opponent` plays in (as `set_state`'s `opponents` names it); ValueError if none."""
        k = self._slots.find(opponent)
        if k < 0:
            raise ValueError(f"{describe(opponent)!r} is not one of this env's opponents")
        return k

    def set_state(self, state: Mapping[str, np.ndarray], opponents: Mapping[int, Any] | None = None) -> None:
        """Continue exactly from a `get_state`: its games, generators, seeds, opponent mix and slots.

        A slot named by an agent spec is made again from its spec; a slot of another object needs that object in
        `opponents` (slot index -> object) to be chosen again by `set_opponents`, and one played from Python
        needs it to play at all; a policy network's slot without one plays its saved network. ValueError naming the
        array, row and field, and nothing changed, when the state does not fit this env or holds a value the
        compiled step cannot take (every value is checked first: a state may come from a file from outside).
        """
        opponents = dict(opponents or {})
        try:
            arrays = {name: np.asarray(state[name[1:]]) for name in self._STATE_ARRAYS}
            names, specs = [str(x) for x in state["slot_names"]], [str(x) for x in state["slot_specs"]]
            agents = np.asarray(state["slot_agents"], dtype=np.int64)
            seed, pending = int(state["seed"][0]), [int(x) for x in state["pending_seeds"]]
            started = bool(state["started"])
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ValueError(f"set_state: not a state of SunTzuVecEnv ({error})") from None
        for name, array in arrays.items():
            mine = getattr(self, name)
            if name != "_mix_cdf" and (array.shape != mine.shape or array.dtype != mine.dtype):
                raise ValueError(f"set_state: {name[1:]} has shape {array.shape} ({array.dtype}); this env's has "
                                 f"{mine.shape} ({mine.dtype}): another number of envs or another version")  # fmt: skip
        if not (len(names) == len(specs) == agents.size == arrays["_mix_cdf"].size) or len(pending) != self.num_envs:
            raise ValueError("set_state: the opponent slots do not match the opponent mix")
        for k, value in enumerate([seed, *pending]):
            if value != -1:
                check_seed(value, "set_state: seed" if k == 0 else f"set_state: pending_seeds row {k - 1}")
        self._check_games(arrays, len(names))
        slots = []
        for k, (name, spec, agent) in enumerate(zip(names, specs, agents.tolist(), strict=True)):
            if k in opponents:
                slot = self._slots.agent_slot(opponents[k], name, opponents[k])
            elif spec:
                slot = self._slots.spec_slot(spec, self._seed)
            elif agent == core.AGENT_NET:
                try:
                    slot = self._slots.net_slot(object(), name, *seated_net(state, f"slot{k}_"))
                except (KeyError, IndexError, TypeError, ValueError) as error:
                    raise ValueError(f"set_state: opponent slot {k} ({name!r}): not a policy network this env can "
                                     f"play ({error})") from None  # fmt: skip
            else:
                raise ValueError(f"set_state: opponent slot {k} ({name!r}) is played from Python: pass its agent")
            if slot.agent != agent:
                raise ValueError(f"set_state: opponent slot {k} ({name!r}) plays otherwise than when it was saved")
            slots.append(slot)
        self._slots.replace(slots)
        for name, array in arrays.items():
            if name == "_mix_cdf":
                self._mix_cdf = array.astype(np.float64, copy=True)
            else:
                np.copyto(getattr(self, name), array)
        self._seed = None if seed < 0 else seed
        self._seeds = [None if s < 0 else s for s in pending]
        self._started = started
        self._pending_actions = None

    def _check_games(self, arrays: dict[str, np.ndarray], n_slots: int) -> None:
        """ValueError naming the array, row and field of the first saved value the compiled step cannot take (it
        does no bounds checks): each game a state the engine can be in, of this env's rules, its learner to act,
        its mask the engine's; each index, count and flag of the table in range; the actions real ones; the
        floats finite; the mix cumulative. A row whose state is all zeros is an env with no game yet."""
        table, states, masks = arrays["_table"], arrays["_states"], arrays["_masks"]
        for name in ("_phi", "_obs", "_terminal_obs", "_rewards"):
            saved.check_finite(name[1:], arrays[name])
        saved.check_cdf("mix_cdf", arrays["_mix_cdf"], n_slots)
        saved.check_flags("illegal", arrays["_illegal"])
        for name in ("_actions", "_finished"):
            saved.check_within(name[1:], arrays[name], 0, N_ACTIONS - 1)
        seeds, capacity = (0, MAX_SEED - 1), (0, core.RECORD_CAPACITY)
        bounds = vec_table.shared_bounds(len(SEATS), n_slots, N_ACTIONS, (-1, len(RESULTS) - 1))
        bounds |= {core.T_STAGE: (core.S_PLAY, core.S_READY), core.T_FIXED_OPPONENT: (-1, n_slots - 1),
                   core.T_GAME_SEED: seeds, core.T_REC_LEN: capacity, core.T_WAITING: (0, 0),
                   core.T_ENDED_LEN: capacity, core.T_ENDED_SEED: (-1, MAX_SEED - 1),
                   core.T_NEXT_SEAT: (0, len(SEATS) - 1), core.T_IDLE: (0, 1)}  # fmt: skip
        saved.check_columns("table", table, core.TABLE_FIELDS, bounds)
        rules = {"variant": (VARIANT, self._settings[core.SET_VARIANT]),
                 "events_on": (EVENTS_ON, self._settings[core.SET_EVENTS])}  # fmt: skip
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        for i in range(self.num_envs):
            s, n = states[i], table[i, vec_table.N_LEGAL]
            if not s.any():  # no game yet: what a new env holds
                if masks[i].any() or n != 0:
                    raise saved.fail("masks", i, "an env with no game yet has no legal actions")
                continue
            try:
                checked_state(s)
            except ValueError as error:
                raise saved.fail("states", i, str(error)) from None
            for field, (at, value) in rules.items():
                if s[at] != value:
                    raise saved.fail("states", i, f"{field}: {s[at]} is not this env's ({value})")
            if not np.array_equal(s[ADJ : ADJ + N_PROVINCES], self._adj):
                raise saved.fail("states", i, "adjacency: not this env's map")
            legal = int(legal_mask(s, mask))
            if legal == 0 or side_to_act(s) != table[i, vec_table.SEAT]:
                raise saved.fail("table", i, "seat: the game's pending decision is not the learner's")
            if not np.array_equal(masks[i], mask):
                raise saved.fail("masks", i, "not the legal actions of the game's pending decision")
            if n != legal:
                raise saved.fail("table", i, f"n_legal: {n}, but the pending decision has {legal} legal answers")

    # ------------------------------------------------------------ the rest of SB3's VecEnv

    def env_values(self, name: str) -> list[Any] | None:
        """Each env's own "seat" and "opponent" (its game in progress's), for `get_attr`."""
        return {"seat": self.seats, "opponent": self.opponent_names}[name] if name in PER_ENV else None

    def set_env_opponents(self, opponent: Opponent, envs: list[int]) -> None:
        """`set_attr("opponent", ...)`: `set_opponents` for the envs `envs` (a mix: every env)."""
        self.set_opponents(opponent, None if envs == list(range(self.num_envs)) else envs)

    def vector_step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The step of `SunTzuVectorEnv`, without per-env info dicts (a game of Sun Tzu ends, never cut)."""
        self.step_async(actions)
        dones = self._advance()
        return self._obs, self._rewards.copy(), dones, np.zeros_like(dones), self._terminal_obs

    def mask_rows(self) -> np.ndarray:
        """The (N, A) int8 masks, as `SunTzuVectorEnv`'s infos hold them."""
        return self._masks


__all__ = ["SEAT_MODES", "SunTzuVecEnv"]
