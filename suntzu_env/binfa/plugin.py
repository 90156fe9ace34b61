"""`BINFA`: Bin'Fa as a `suntzu_env.protocol.GameRules`, registered as the game "binfa" (`suntzu_env.games`).

The experiments play it two-handed: seats `player_0`, `player_1` (3 to 6 players play in the environments,
`suntzu_env.binfa.env`). Actions are the learning ids of `suntzu_env.binfa.encoding` and observations those of
`suntzu_env.binfa.observation`, from each seat's point of view (BD12); records hold the engine's strings.
Its agents `random`, `greedy` and `heuristic` are the compiled agents of `suntzu_env.binfa.agents`, handed the
game before they act (`suntzu_env.protocol.ask`): Bin'Fa hides nothing, so they read the whole position.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from suntzu_env.binfa.agents import AGENTS, agent_action, agent_rng, new_scratch
from suntzu_env.binfa.binfa_v0 import AGENT_NAMES, engine_action
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_action_name, learn_id, view_rotation
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.layout import TO_ACT
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.options import DEPLOYMENTS, LEVELS, Options
from suntzu_env.protocol import GamePlugin, OptionFlag, Rung

SEATS = AGENT_NAMES[:2]
RANDOM = "random"  # terrain and whirlpools drawn from the seed
OPTION_FLAGS = (
    OptionFlag("level", Literal[LEVELS], 1, "rules level: 1 dice, 2 + terrain, 3 + supply, 4 + whirlpools"),  # type: ignore[valid-type]
    OptionFlag("armies_per_player", Literal[1, 3], 1, "armies each seat commands (BD4)"),
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
    # it scored 79.8% over 2,000 games at level 1 (seeds 0-999, draws a half): 1,293 won, 101 lost, 606 undecided (BD5)
    ("heuristic", "greedy", 0.65),
)


def _seat_index(seat: str) -> int:
    if seat not in SEATS:
        raise ValueError(f"seat must be one of {', '.join(SEATS)}, got {seat!r:.40}")
    return SEATS.index(seat)


def _two_players(options: Options, where: str = "players") -> Options:
    if options.players != 2:
        raise ValueError(f"{where}: the experiments play Bin'Fa with 2 players (seats {', '.join(SEATS)}), got "
                         f"{options.players}; 3 to 6 players play in the environments")  # fmt: skip
    return options


class SeatGame:
    """A two-player `suntzu_env.binfa.Game` as a `protocol.TurnGame`: seats by name, learning ids, seat views."""

    def __init__(self, game: Game) -> None:
        self.game = game

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
        return self.game.observation(_seat_index(seat))

    def returns(self) -> dict[str, float]:
        """+1 to the winner, -1 to the other seat (out, B12); 0 to both while on and when undecided (BD5)."""
        w = self.winner
        return {s: 0.0 if w in (None, "draw") else 1.0 if s == w else -1.0 for s in SEATS}

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
        return int(self.returns()[SEATS[0]])

    @property
    def round(self) -> int:
        return self.game.turns

    def record(self) -> dict[str, Any]:
        return self.game.record()


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
        self._rng = agent_rng(int(seed))

    def observe_game(self, game: Any, seat: str) -> None:
        if not isinstance(game, SeatGame):
            raise ValueError(f"{self.kind}: plays a game of Bin'Fa (BINFA.new), got {type(game).__name__}")
        self._game = game

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self._game
        if game is None or game.game.current_player is None:
            raise ValueError(f"{self.kind}: reads the position; hand it the game first (suntzu_env.protocol.ask)")
        g = game.game
        a = int(agent_action(AGENTS.index(self.kind), g._s, g._legal, g._n, self._rng, self._scratch))
        return int(learn_id(g._s, a, view_rotation(g._s, int(g._s[TO_ACT]))))


class RandomAgent(CompiledAgent):
    kind = "random"


class GreedyAgent(CompiledAgent):
    kind = "greedy"


class HeuristicAgent(CompiledAgent):
    kind = "heuristic"


class BinFaRules(GamePlugin):
    """Bin'Fa's facts, options, constructors, agents and training defaults, as `GameRules` declares them."""

    name = "binfa"
    seats: tuple[str, ...] = SEATS
    n_actions = N_LEARN_ACTIONS
    observation_size = OBSERVATION_SIZE
    options_type = Options
    option_flags = OPTION_FLAGS
    agents: Mapping[str, Callable[[int | None], Any]] = {
        "random": RandomAgent, "greedy": GreedyAgent, "heuristic": HeuristicAgent,
    }  # fmt: skip
    ladder = LADDER
    rating_anchor = "greedy"
    training_opponents = "random=1,greedy=2"
    self_play_pool = False
    eval_opponents = ("random", "greedy")
    playout_options: Mapping[str, Any] = {"max_turns": 12}
    """random playouts of the tests end in a few hundred decisions (random play rarely decides a game)"""

    # ------------------------------------------------------------ options
    def options(self, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        return _two_players(Options.of(options, **fields))

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
        armies = fields["armies_per_player"]
        text = f"level {fields['level']}, {armies} arm{'y' if armies == 1 else 'ies'} each"
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

    # ------------------------------------------------------------ games
    def new(self, seed: int, options: Options | None = None) -> SeatGame:
        return SeatGame(Game.new(seed, self.options(options)))

    def replay(self, record: dict[str, Any]) -> SeatGame:
        game = Game.replay(record)
        _two_players(game.options, "record.options.players")
        return SeatGame(game)

    def action_string(self, action: int) -> str:
        return learn_action_name(action)

    # ------------------------------------------------------------ environments
    def learner_env(self, options: Options | None = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.binfa.gym_env import BinFaGymEnv

        _no_shaping(shaped_reward)
        return BinFaGymEnv(options=self.options(options))

    def env(self, options: Options | None = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.binfa.binfa_v0 import env

        return env(options=self.options(options), render_mode=render_mode)

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: Options | None = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        """The compiled `suntzu_env.binfa.vec_env.BinFaVecEnv`: a mix of the compiled agents drawn per game, the
        learner's seat alternating; it plays no self-play pool (`self_play_pool` is False)."""
        from suntzu_env.binfa.vec_env import BinFaVecEnv  # lazy: imports Stable-Baselines3

        _no_shaping(shaped_reward)
        return BinFaVecEnv(n_envs, opponents, seed=seed, options=self.options(options))

    def batchable(self, agent: Any) -> bool:
        return isinstance(agent, str) and agent in AGENTS

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[int, str, int, int]],
        options: Options | None = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        for agent in (a, b):
            if not self.batchable(agent):
                raise ValueError(f"play_batched plays the compiled agents {', '.join(AGENTS)}; got {agent!r:.40}")
        rules = self.options(options)
        scratch = new_scratch()
        results = []
        for k, (seed, a_seat, a_seed, b_seed) in enumerate(games):
            first = _seat_index(a_seat)
            kinds = [AGENTS.index(a), AGENTS.index(b)] if first == 0 else [AGENTS.index(b), AGENTS.index(a)]
            rngs = [agent_rng(a_seed), agent_rng(b_seed)] if first == 0 else [agent_rng(b_seed), agent_rng(a_seed)]
            game = Game.new(seed, rules)
            decisions = 0
            while game.current_player is not None:
                p = game.current_player
                game.apply(int(agent_action(kinds[p], game._s, game._legal, game._n, rngs[p], scratch)))
                decisions += 1
            seat_game = SeatGame(game)
            result = {"winner": seat_game.winner, "score": seat_game.score, "decisions": decisions,
                      "record": game.record()}  # fmt: skip
            results.append(result)
            if on_game is not None:
                on_game(k, result)
        return results

    def random_playouts(self, games: int, seed: int = 0, options: Options | None = None) -> int | None:
        """`suntzu_env.binfa.playouts.play` under `options` (the defaults: level 1, 2 players, 300 turns)."""
        from suntzu_env.binfa.playouts import play

        r = self.options(options)
        out = play(games, seed, r.level, r.players, r.armies_per_player, random_deploy=r.deployment == "random",
                   max_turns=r.max_turns)  # fmt: skip
        return int(out[:, 1].sum())

    def compile_notice(self) -> str | None:
        """Said before a first run compiles the engine and agents with numba, so that the wait is not a hang."""
        import numba

        from suntzu_env.numba_cache import CACHE_FOLDER, compiled_before

        if compiled_before("binfa_*/agents") or numba.config.DISABLE_JIT:
            return None
        later = f"later runs load it from {CACHE_FOLDER}"
        return f"compiling Bin'Fa's engine with numba (first run only, a few minutes; {later})"

    def __repr__(self) -> str:
        return "BINFA"


def _no_shaping(weight: float) -> None:
    if weight != 0.0:
        raise ValueError(f"shaped_reward: Bin'Fa's environments have no shaping term; use 0.0, got {weight!r:.40}")


BINFA = BinFaRules()
