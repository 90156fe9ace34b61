"""`BINFA`: Bin'Fa as a `suntzu_env.protocol.GameRules`, the shape of Sun Tzu's `suntzu_env.SUNTZU`.

Seats are `player_0`, `player_1` (the protocol's two seats; the environments themselves take 2 to 6 players
from the options). Actions are the learning ids of `suntzu_env.binfa.encoding` and observations those of
`suntzu_env.binfa.observation`, from each seat's point of view (BD12); records hold the engine's strings.
Nothing registers this value: the game registry names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from suntzu_env.binfa.agents import AGENTS, agent_action, agent_rng, new_scratch
from suntzu_env.binfa.binfa_v0 import AGENT_NAMES, engine_action
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_action_name
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.options import Options

SEATS = AGENT_NAMES[:2]


def _seat_index(seat: str, players: int) -> int:
    if seat not in AGENT_NAMES[:players]:
        raise ValueError(f"seat must be one of {', '.join(AGENT_NAMES[:players])}, got {seat!r:.40}")
    return AGENT_NAMES.index(seat)


class SeatGame:
    """A `suntzu_env.binfa.Game` as a `protocol.TurnGame`: seats by name, learning ids, seat observations."""

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
        return self.game.observation(_seat_index(seat, self.game.players))

    def returns(self) -> dict[str, float]:
        return {AGENT_NAMES[p]: r for p, r in self.game.returns().items()}

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
        return int(self.game.returns()[0])

    @property
    def round(self) -> int:
        return self.game.turns

    def record(self) -> dict[str, Any]:
        return self.game.record()


class BinFaRules:
    """Bin'Fa's facts, `Options` and constructors, as `GameRules` declares them."""

    name = "binfa"
    seats: tuple[str, ...] = SEATS
    n_actions = N_LEARN_ACTIONS
    observation_size = OBSERVATION_SIZE
    options_type = Options

    def options(self, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        return Options.of(options, **fields)

    def label(self, options: Options) -> str:
        """`level1-2p`, `level3-2p-3armies-random`, ...; chosen terrain adds `-terrain`."""
        label = f"level{options.level}-{options.players}p"
        if options.armies_per_player > 1:
            label += f"-{options.armies_per_player}armies"
        if options.deployment == "random":
            label += "-random"
        if options.terrain != "random":
            label += "-terrain"
        return label

    def new(self, seed: int, options: Options | None = None) -> SeatGame:
        return SeatGame(Game.new(seed, Options.of(options)))

    def replay(self, record: dict[str, Any]) -> SeatGame:
        return SeatGame(Game.replay(record))

    def action_string(self, action: int) -> str:
        return learn_action_name(action)

    def learner_env(self, options: Options | None = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.binfa.gym_env import BinFaGymEnv

        _no_shaping(shaped_reward)
        return BinFaGymEnv(options=Options.of(options))

    def env(self, options: Options | None = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.binfa.binfa_v0 import env

        return env(options=Options.of(options), render_mode=render_mode)

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: Options | None = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        from suntzu_env.binfa.vec_env import BinFaVecEnv  # lazy: imports Stable-Baselines3

        _no_shaping(shaped_reward)
        return BinFaVecEnv(n_envs, opponent=_one_opponent(opponents), seed=seed, options=Options.of(options))

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
        rules = Options.of(options)
        if rules.players != 2:
            raise ValueError(f"play_batched plays two-player games, got players={rules.players}")
        scratch = new_scratch()
        results = []
        for k, (seed, a_seat, a_seed, b_seed) in enumerate(games):
            first = _seat_index(a_seat, 2)
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

    def __repr__(self) -> str:
        return "BINFA"


def _no_shaping(weight: float) -> None:
    if weight != 0.0:
        raise ValueError(f"shaped_reward: Bin'Fa's environments have no shaping term; use 0.0, got {weight!r:.40}")


def _one_opponent(opponents: Any) -> str:
    if isinstance(opponents, Mapping) and len(opponents) == 1:
        opponents = next(iter(opponents))
    if not (isinstance(opponents, str) and opponents in AGENTS):
        raise ValueError(f"opponents: Bin'Fa's batched env plays one compiled agent ({', '.join(AGENTS)})")
    return opponents


BINFA = BinFaRules()
