"""`BINFA`: Bin'Fa as a `suntzu_env.core.protocol.GameRules`, registered as the game "binfa" (`suntzu_env.core.games`).

Its seats are `player_0` .. `player_<n-1>` for the `players` option (2 by default, up to 6: `seats_of`).
Actions are the learning ids of `suntzu_env.binfa.encoding` and observations those of
`suntzu_env.binfa.observation`, from each seat's point of view (BD12); records hold the engine's strings.
Its agents `random`, `greedy` and `heuristic` are the compiled agents of `suntzu_env.binfa.agents`, and `mcts` (or
`mcts:<iterations>`) the compiled search of `suntzu_env.binfa.search`, each handed the game before it acts
(`suntzu_env.core.protocol.ask`): after deployment Bin'Fa hides nothing, so they read the whole position. A
trained model plays as `ppo:<run folder or .zip>` (the installed kinds of `suntzu_env.suntzu.players.trained_kinds`,
loaded as data for Bin'Fa's observation and action sizes): it sees its seat's observation and answers a learning
id, as the learner did in training.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from suntzu_env.binfa.agents import AGENTS, SCRATCH_SIZE, agent_action, new_scratch
from suntzu_env.binfa.binfa_v3 import AGENT_NAMES, engine_action
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_action_name, learn_id, learn_ids, view_rotation
from suntzu_env.binfa.engine import LEGAL_CAPACITY
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.layout import DEC_KIND, DK_DEPLOY, STATE_DTYPE, TO_ACT
from suntzu_env.binfa.observation import OBSERVATION_SIZE, observation_bounds
from suntzu_env.binfa.options import DEPLOYMENTS, LEVELS, Options
from suntzu_env.binfa.policy import BOARD, NET, compiled_net, play_chunk
from suntzu_env.binfa.search import E_ACTION, E_VISITS, SEARCH, SearchTree, check_iterations, default_iterations, search
from suntzu_env.core.agent import ModelError
from suntzu_env.core.checks import check_seed
from suntzu_env.core.players import short_label, trained_kinds, trained_spec
from suntzu_env.core.policy_net import CompiledNet, pack_nets
from suntzu_env.core.protocol import GamePlugin, OptionFlag, Rung, TurnGame
from suntzu_env.core.rng import rng_seed

SEATS = AGENT_NAMES[:2]  # the default options' seats
PLAY_BLOCK = 512  # games `play_batched` plays at once
PLAY_CHUNK = 1024  # decisions a game of the block makes between two looks from Python (a long game takes several)
RANDOM = "random"  # terrain and whirlpools drawn from the seed
OPTION_FLAGS = (
    OptionFlag("level", Literal[LEVELS], 1, "rules level: 1 dice, 2 + terrain, 3 + supply, 4 + whirlpools"),  # type: ignore[valid-type]
    OptionFlag("players", Literal[2, 3, 4, 5, 6], 2,
               "seats player_0 .. player_<n-1>; with more than 2, an agent evaluated or trained plays each seat in "
               "turn, copies of its opponent all the others"),
    OptionFlag("armies_per_player", Literal[1, 2, 3], 1, "armies each seat commands (BD4): 2 with 3 players, 3 with 2"),
    OptionFlag("terrain", tuple[str, ...] | None, None,
               "terrain markers (level 2+): up to 9 triangle names such as red-4-6 (None: drawn from the seed, B21)",
               metavar="{None}|TRIANGLE [...]"),
    OptionFlag("whirlpools", tuple[str, ...] | None, None,
               "whirlpools (level 4, with --terrain): 3 triangle names (None: drawn from the seed, B38)",
               metavar="{None}|TRIANGLE [...]"),
    OptionFlag("deployment", Literal[DEPLOYMENTS], "choose",  # type: ignore[valid-type]
               "choose: the seats place their units (B1); random: the seed places them"),
    OptionFlag("max_turns", int, 300, "the game ends undecided (a draw) after this many turns (BD5)"),
)  # fmt: skip
LADDER: tuple[Rung, ...] = (
    ("greedy", "random", 0.80),
    # binfa_v3, level 1, 1,000 games (seeds 0-499): 986 won, 14 undecided (BD5), none lost
    ("heuristic", "greedy", 0.65),
)


def _seat_index(seat: str, players: int = 2) -> int:
    seats = AGENT_NAMES[:players]
    if seat not in seats:
        raise ValueError(f"seat must be one of {', '.join(seats)}, got {seat!r:.40}")
    return seats.index(seat)


class SeatGame:
    """A `suntzu_env.binfa.Game` as a `protocol.TurnGame`: seats by name, learning ids, seat views."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seats = AGENT_NAMES[: game.players]

    @property
    def current_player(self) -> str | None:
        p = self.game.current_player
        return None if p is None else AGENT_NAMES[p]

    def legal_mask(self) -> np.ndarray:
        return self.game.learn_mask()

    def legal_actions(self) -> list[int]:
        return self.game.learn_actions()

    def apply(self, action: int | str) -> None:
        self.game.apply(engine_action(self.game, action))

    def observation(self, seat: str) -> np.ndarray:
        return self.game.observation(_seat_index(seat, self.game.players))

    def returns(self) -> dict[str, float]:
        """+1 to the winner, -1 to every other seat (out, B12); 0 to all while on and when undecided (BD5, BD21)."""
        w = self.winner
        return {s: 0.0 if w in (None, "draw") else 1.0 if s == w else -1.0 for s in self.seats}

    @property
    def winner(self) -> str | None:
        w = self.game.winner
        return None if w is None else ("draw" if w == "undecided" else AGENT_NAMES[w])

    @property
    def is_terminal(self) -> bool:
        return self.game.is_terminal

    @property
    def score(self) -> int:
        """The first seat's result: +1 win, -1 out, 0 otherwise."""
        return int(self.returns()[self.seats[0]])

    @property
    def round(self) -> int:
        return self.game.turns

    def record(self) -> dict[str, Any]:
        return self.game.record()

    def sample_determinization(self, seat: str, rng: np.random.Generator) -> SeatGame:
        """A game `seat` cannot tell from this one (`Game.sample_determinization`: the other players' hidden
        deployment placed again, BD6)."""
        return SeatGame(self.game.sample_determinization(_seat_index(seat, self.game.players), rng))


class CompiledAgent:
    """One of the compiled agents (`suntzu_env.binfa.agents`) as an `Agent`: handed the game before each answer
    (`observe_game`), it plays the engine's choice as a learning id; its generator is seeded by `reset(seed)`."""

    kind = AGENTS[0]

    def __init__(self, seed: int | None = None) -> None:
        self._scratch = new_scratch()
        self._game: SeatGame | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(2**62))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer 0..2**63-1 or None, got {seed!r:.40}")
        self._rng = rng_seed(int(seed))

    def observe_game(self, game: Any, seat: str) -> None:
        if not isinstance(game, SeatGame):
            raise ValueError(f"{self.kind}: plays a game of Bin'Fa (BINFA.new), got {type(game).__name__}")
        self._game = game

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self._game
        if game is None or game.game.current_player is None:
            raise ValueError(f"{self.kind}: reads the position; hand it the game first (suntzu_env.core.protocol.ask)")
        state, legal, n = game.game.engine_view()
        a = int(agent_action(AGENTS.index(self.kind), state, legal, n, self._rng, self._scratch))
        return int(learn_id(state, a, view_rotation(state, int(state[TO_ACT]))))


class RandomAgent(CompiledAgent):
    kind = "random"


class GreedyAgent(CompiledAgent):
    kind = "greedy"


class HeuristicAgent(CompiledAgent):
    kind = "heuristic"


class SearchAgent(CompiledAgent):
    """The search `mcts` (`suntzu_env.binfa.search`) with `iterations` per decision (None: `default_iterations` of
    the game's players), its dice drawn from the generator `reset(seed)` seeds."""

    kind = SEARCH

    def __init__(self, seed: int | None = None, iterations: int | None = None) -> None:
        self.iterations = None if iterations is None else check_iterations(str(iterations))
        self._tree: SearchTree | None = None
        self._target: np.ndarray | None = None
        super().__init__(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self._game
        if game is None or game.game.current_player is None:
            raise ValueError(f"{self.kind}: reads the position; hand it the game first (suntzu_env.core.protocol.ask)")
        g = game.game
        budget = self.iterations or default_iterations(g.players)
        if self._tree is None or self._tree.iterations < budget:
            self._tree = SearchTree(budget)
        a = search(g._s, g._legal, g._n, self._rng, budget, self._tree)
        rotation = view_rotation(g._s, int(g._s[TO_ACT]))
        chosen = int(learn_id(g._s, a, rotation))
        self._target = np.zeros(N_LEARN_ACTIONS, dtype=np.float32)
        edges = self._tree.arrays[1][: g._n]
        if g._s[DEC_KIND] == DK_DEPLOY or edges[:, E_VISITS].sum() == 0:  # not searched (BD6): the move alone
            self._target[chosen] = 1.0
        else:
            np.add.at(self._target, learn_ids(g._s, edges[:, E_ACTION], rotation), edges[:, E_VISITS])
            self._target /= self._target.sum()
        return chosen

    def policy_target(self) -> np.ndarray:
        """Each learning action's share of the search's visits at the root of the last decision (N_LEARN_ACTIONS
        float32, summing to 1, zero where no legal answer leads; the move alone at a deployment, which is not
        searched): what the search thought of every answer, which the warm start learns (`experiments.warm_start`)."""
        if self._target is None:
            raise RuntimeError("policy_target: the agent has not decided yet")
        return self._target.copy()


class BinFaRules(GamePlugin):
    """Bin'Fa's facts, options, constructors, agents and training defaults, as `GameRules` declares them."""

    name = "binfa"
    title = "Bin'Fa"
    web = "suntzu_env.binfa.web.face:FACE"
    seats: tuple[str, ...] = SEATS
    n_actions = N_LEARN_ACTIONS
    observation_size = OBSERVATION_SIZE
    options_type = Options
    option_flags = OPTION_FLAGS
    agents: Mapping[str, Callable[[int | None], Any]] = {
        "random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent, SEARCH: SearchAgent,
    }  # fmt: skip
    ladder = LADDER
    rating_anchor = "heuristic"
    no_winner = "undecided"
    """a game stopped at `max_turns` (BD5) or with everybody out at once (BD21) has no winner and is no draw of the
    rules: evaluations lead with the games won outright, undecided ones beside them"""
    replay_command = "python -m suntzu_env.play --results {out}"
    training_opponents = "greedy=1,heuristic=2"
    self_play_pool = True
    eval_opponents = ("random", "greedy", "heuristic")
    teacher = "heuristic"
    teacher_opponents = ("greedy", "random")
    cell_layout = BOARD
    training_defaults: Mapping[str, Any] = {
        "network": "cells", "cell_width": 32, "cell_layers": 2, "bc_games": 600, "bc_epochs": 6,
        "bc_batch_size": 256, "dagger_rounds": 3, "dagger_games": 50, "dagger_teacher": SEARCH, "n_envs": 64,
        "n_epochs": 2, "gamma": 0.98,
        "learning_rate": 2e-3, "total_timesteps": 2_000_000, "eval_every": 250_000, "final_eval_games": 200,
    }  # fmt: skip
    """The board network (32 values a triangle, 2 layers), cloned from 600 games of heuristic (about 160,000 of its
    decisions, 6 passes), then three DAgger rounds of 50 games each (the network plays, the search mcts labels its
    positions with its shares of the visits), then PPO for 2,000,000 timesteps (64 games at once, 2 passes over each
    rollout, the learning rate 2e-3 decaying to 0: at 3e-4 an update hardly moved the policy; the result discounted
    by 0.98 a decision: a win sooner is worth more than one later, and PPO's advantages are less noisy than at 1)
    against greedy and heuristic (one game in three against greedy: PPO learns more against the stronger mix than
    against random and greedy), evaluated against random, greedy and heuristic every 250,000 (200 games each: the
    learning curve) and at the end (`experiments.evaluate` plays more). The policy agrees with the search on about a
    third of its own positions, yet PPO climbs further from that clone than from one whose DAgger rounds heuristic
    labelled (six rounds of 100 games: 74.0% against heuristic, 25.8% lost; with the search's rounds 84.6%, 15.4%
    lost). A flat MLP cloned the same way agrees with heuristic on its own positions less than half the time and does
    not press an attack."""
    playout_options: Mapping[str, Any] = {"max_turns": 12}
    """random playouts of the tests end in a few hundred decisions (random play rarely decides a game)"""
    seats_option = "players"
    turn_limit_option = "max_turns"

    # ------------------------------------------------------------ options
    def options(self, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        return Options.of(options, **fields)

    def options_from_flags(self, flags: Mapping[str, Any]) -> Options:
        """`--terrain red-4-6 ...` (None or `random`: drawn from the seed), `--level`, `--deployment`, ..."""
        fields = dict(flags)
        for key in ("terrain", "whirlpools"):
            value = fields.get(key)
            if value is None or (isinstance(value, (list, tuple)) and list(value) == [RANDOM]):
                fields[key] = RANDOM
            elif isinstance(value, list):
                fields[key] = tuple(value)
        return self.options(fields)

    def option_fields(self, options: Options) -> dict[str, Any]:
        return options.to_dict()

    def describe_options(self, fields: Mapping[str, Any]) -> str:
        """`level 1, 1 army each, deployment choose, max 300 turns` (chosen terrain and whirlpools named)."""
        armies, players = fields["armies_per_player"], fields.get("players", 2)
        text = f"level {fields['level']}" + (f", {players} players" if players != 2 else "")
        text += f", {armies} arm{'y' if armies == 1 else 'ies'} each"
        for key in ("terrain", "whirlpools"):
            if fields.get(key, RANDOM) != RANDOM:
                text += f", {key} {' '.join(fields[key])}"
        return text + f", deployment {fields['deployment']}, max {fields['max_turns']} turns"

    def label(self, options: Options) -> str:
        """`level1-2p`, `level3-2p-3armies-random`, ...; chosen terrain adds `-terrain<6 hex digits>`, another turn
        limit `-turns<n>`."""
        label = f"level{options.level}-{options.players}p"
        if options.armies_per_player > 1:
            label += f"-{options.armies_per_player}armies"
        if options.deployment == "random":
            label += "-random"
        if options.terrain != RANDOM:
            chosen = repr((sorted(options.terrain), sorted(options.whirlpools) if options.whirlpools != RANDOM else []))
            label += "-terrain" + hashlib.sha1(chosen.encode()).hexdigest()[:6]
        if options.max_turns != Options().max_turns:
            label += f"-turns{options.max_turns}"
        return label

    def seats_of(self, options: Options | None = None) -> tuple[str, ...]:
        """`player_0` .. `player_<n-1>` for the options' `players`."""
        return AGENT_NAMES[: self.options(options).players]

    # ------------------------------------------------------------ games
    def new(self, seed: int, options: Options | None = None) -> SeatGame:
        return SeatGame(Game.new(seed, self.options(options)))

    def replay(self, record: dict[str, Any]) -> SeatGame:
        return SeatGame(Game.replay(record))

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observation_bounds()

    def action_string(self, action: int) -> str:
        return learn_action_name(action)

    # ------------------------------------------------------------ environments
    def learner_env(self, options: Options | None = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.binfa.gym_env import BinFaGymEnv

        self.check_shaping(shaped_reward)
        return BinFaGymEnv(options=self.options(options))

    def env(self, options: Options | None = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.binfa.binfa_v3 import env

        return env(options=self.options(options), render_mode=render_mode)

    def make_batched_env(
        self, n_envs: int, opponents: Any, seed: int | None, options: Options, shaped_reward: float
    ) -> Any:
        """The compiled `suntzu_env.binfa.vec_env.BinFaVecEnv`: a mix drawn per game of the compiled agents, trained
        models (`ppo:<path>`) and the self-play pool's snapshots, all played in its compiled step; the learner's
        seat alternating."""
        from suntzu_env.binfa.vec_env import BinFaVecEnv  # lazy: imports Stable-Baselines3

        return BinFaVecEnv(n_envs, opponents, seed=seed, options=options, make_agent=self.make_agent)

    def batchable(self, agent: Any) -> bool:
        """A compiled agent's name, a trained model's spec (`ppo:<path>`) or an agent whose policy network plays in
        compiled code (`compiled_policy()`, as a loaded `ppo:` agent)."""
        if isinstance(agent, str):
            return agent in AGENTS or trained_spec(agent) is not None
        try:
            return compiled_net(agent, "agent") is not None
        except ValueError:
            return False

    def batched_games(
        self, a: Any, b: Any, games: Sequence[tuple[Any, ...]], rules: Options
    ) -> Iterator[dict[str, Any]]:
        """Each game `(seed, a's seat, a's seed, b's seed per other seat in seat order)` of a against copies of b
        (what `batchable` accepts), up to `PLAY_BLOCK` at once in compiled code (threads over games): the games
        played one at a time with the agents reset to those seeds (a policy plays the argmax, or samples from its
        seed, as its agent does). Every game is checked before any is played."""
        slots = [self._slot(agent) for agent in (a, b)]
        for k, (seed, a_seat, a_seed, *b_seeds) in enumerate(games):  # every game checked before any is played
            check_seed(seed), _seat_index(a_seat, rules.players), check_seed(a_seed, "a's seed")
            if len(b_seeds) != rules.players - 1:
                raise ValueError(f"games[{k}]: expected a's seed and b's for each of the other {rules.players - 1} "
                                 f"seats, got {len(b_seeds)} of b's")  # fmt: skip
            for b_seed in b_seeds:
                check_seed(b_seed, "b's seed")
        params, headers, width = pack_nets([net for _, net in slots])
        slot_agents = np.array([agent for agent, _ in slots], dtype=np.int64)
        for start in range(0, len(games), PLAY_BLOCK):
            block = games[start : start + PLAY_BLOCK]
            g = len(block)
            played = [Game.new(seed, rules) for seed, *_ in block]
            views = [game.engine_view() for game in played]
            states = np.stack([state for state, _, _ in views])
            legal = np.stack([legal for _, legal, _ in views])
            n_legal = np.array([n for _, _, n in views], dtype=np.int64)
            seat_slots = np.zeros((g, rules.players), dtype=np.int64)
            rngs = np.zeros((g, rules.players, 1), dtype=np.int64)
            net_rngs = np.zeros((g, rules.players, 1), dtype=np.int64)
            for k, (_, a_seat, a_seed, *b_seeds) in enumerate(block):
                first = _seat_index(a_seat, rules.players)
                seeds = list(b_seeds)
                seeds.insert(first, a_seed)  # b's seeds in seat order, a's in its seat
                for p, seed in enumerate(seeds):
                    seat_slots[k, p] = int(p != first)
                    rngs[k, p] = rng_seed(int(seed))
                    net_rngs[k, p] = rng_seed(int(seed))
            scratch = np.zeros((g, SCRATCH_SIZE), dtype=STATE_DTYPE)
            obs = np.zeros((g, OBSERVATION_SIZE), dtype=np.float32)
            masks = np.zeros((g, N_LEARN_ACTIONS), dtype=np.int8)
            ids = np.zeros((g, LEGAL_CAPACITY), dtype=np.int64)
            work = np.zeros((g, width), dtype=np.float32)
            chunk = np.zeros((g, PLAY_CHUNK), dtype=np.int32)
            lengths = np.zeros(g, dtype=np.int64)
            moves: list[list[np.ndarray]] = [[] for _ in block]
            while n_legal.any():
                play_chunk(states, legal, n_legal, seat_slots, slot_agents, params, headers, rngs, net_rngs, scratch,
                           obs, masks, ids, work, chunk, lengths)  # fmt: skip
                for k in np.flatnonzero(lengths).tolist():
                    moves[k].append(chunk[k, : lengths[k]].copy())
            for k, game in enumerate(played):
                actions = np.concatenate(moves[k]).tolist() if moves[k] else []
                game.end_as_played(states[k], actions)
                seat_game = SeatGame(game)
                yield {"winner": seat_game.winner, "score": seat_game.score, "decisions": len(actions),
                       "record": game.record()}  # fmt: skip

    def random_playouts(self, games: int, seed: int = 0, options: Options | None = None) -> int | None:
        """`suntzu_env.binfa.playouts.play` under `options` (the defaults: level 1, 2 players, 300 turns)."""
        from suntzu_env.binfa.playouts import play

        r = self.options(options)
        out = play(games, seed, r.level, r.players, r.armies_per_player, random_deploy=r.deployment == "random",
                   max_turns=r.max_turns)  # fmt: skip
        return int(out[:, 1].sum())

    def openspiel_game(self, options: Options | None = None) -> Any:
        """`python_binfa` (`suntzu_env.binfa.openspiel`) under the options, its setup drawn from seed 0."""
        import pyspiel

        from suntzu_env.binfa.openspiel import GAME_NAME  # registers the game

        fields = self.options(options).to_dict()
        params = {k: " ".join(v) if isinstance(v, list) else v for k, v in fields.items()}
        return pyspiel.load_game(GAME_NAME, params)

    def _slot(self, agent: Any) -> tuple[int, tuple[CompiledNet, bool] | None]:
        """A player of `play_batched` as a slot: a compiled agent's id, or `NET` and its network."""
        if not self.batchable(agent):
            raise ValueError(f"play_batched plays the compiled agents {', '.join(AGENTS)}, trained models (ppo:<path>) "
                             f"and agents with a compiled policy network; got {agent!r:.60}")  # fmt: skip
        if isinstance(agent, str) and agent in AGENTS:
            return AGENTS.index(agent), None
        if isinstance(agent, str):
            agent = self.make_agent(agent)
        return NET, compiled_net(agent, str(getattr(agent, "name", "agent")))

    # ------------------------------------------------------------ agents: the compiled ones and trained models
    user_errors: tuple[type[Exception], ...] = (ModelError,)

    @property
    def scripted_agents(self) -> tuple[str, ...]:
        """The compiled agents cheap enough to play while a learner samples (not the search)."""
        return tuple(name for name in self.agents if name != SEARCH)

    def valid_agents(self) -> str:
        """`random, greedy, heuristic, mcts, mcts:<iterations>, or ppo:<path-to-model>`."""
        specs = [*self.agents, f"{SEARCH}:<iterations>"]
        specs += [f"{kind.name}:{kind.argument}" for kind in trained_kinds().values()]
        return ", ".join(specs[:-1]) + f", or {specs[-1]}" if len(specs) > 1 else specs[0]

    def check_agent(self, spec: str) -> None:
        if isinstance(spec, str) and spec.startswith(f"{SEARCH}:"):
            try:
                check_iterations(spec.partition(":")[2])
            except ValueError as error:
                raise ValueError(f"agent {spec!r:.80}: {error}; valid: {self.valid_agents()}") from None
            return
        if not (isinstance(spec, str) and (spec in self.agents or trained_spec(spec) is not None)):
            raise ValueError(f"unknown agent {spec!r:.80}; valid: {self.valid_agents()}")

    def make_agent(self, spec: str, seed: int | None = None) -> Any:
        """A compiled agent by name, the search with its budget (`mcts:<iterations>`), or a trained model
        (`ppo:<path>`, loaded for Bin'Fa: a model of another game is refused with `ModelError`)."""
        self.check_agent(spec)
        if spec.startswith(f"{SEARCH}:"):
            return SearchAgent(seed, check_iterations(spec.partition(":")[2]))
        trained = trained_spec(spec)
        if trained is None:
            return self.agents[spec](seed)
        kind, argument = trained
        assert kind.load is not None
        return kind.load(argument, seed, self)

    def short_label(self, spec: str, width: int = 28) -> str:
        return short_label(spec, width)

    def trained_model(self, spec: str) -> str | None:
        trained = trained_spec(spec)
        return None if trained is None else trained[1]

    def picture(self, game: TurnGame, size: int = 480) -> Any:
        """The hexagon of `game` as a PIL image `size` pixels wide (`Game.picture`)."""
        return game.game.picture(size)  # type: ignore[attr-defined]

    def compile_notice(self) -> str | None:
        """Said before a first run compiles the engine and agents with numba, so that the wait is not a hang."""
        import numba

        from suntzu_env.core.numba_cache import compiled_before, part_folder

        if compiled_before("binfa_*/agents", "binfa") or numba.config.DISABLE_JIT:
            return None
        later = f"later runs load it from {part_folder('binfa')}"
        return f"compiling Bin'Fa's engine with numba (first run only, a few minutes; {later})"

    def __repr__(self) -> str:
        return "BINFA"


BINFA = BinFaRules()
