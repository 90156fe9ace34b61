"""The seam between a game and the experiments: what training, evaluation and the notebooks ask of a game.

`experiments` drive a game only through these protocols and never import a game's package: a game plugs in
by providing one `GameRules` value and registering it under a name (`suntzu_env.core.games`). Nothing here imports
a game. `GamePlugin` is a base that answers most of `GameRules` from a few facts (a turn game, its options
dataclass, its agents), so that a small game is a few dozen lines.

A game is turn-based, with named seats (two, or as many as its options say: `seats_of`), a flat discrete
action space (`n_actions` ids, each with a string) and a flat float32 observation of `observation_size` per
seat. Simultaneous decisions are asked one seat at a time. All its randomness comes from the seed it is made
with, so seed, options and actions (its `record()`) replay it exactly.
"""

from __future__ import annotations

import copy
import dataclasses
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

import numpy as np

from suntzu_env.core.agent import IncompatibleModelError
from suntzu_env.core.asking import ask as ask  # re-exported: the protocol's way to ask an agent
from suntzu_env.core.asking import hand_game as hand_game

if TYPE_CHECKING:
    from suntzu_env.core.policy_net import CellLayout

O = TypeVar("O", bound="GameOptions")


@runtime_checkable
class GameOptions(Protocol):
    """The validated rules one game is played under (a variant, a map, ...), as a frozen value."""

    def as_dict(self) -> dict[str, Any]:
        """The fields, JSON-ready once lists stand for tuples."""
        ...


@runtime_checkable
class TurnGame(Protocol):
    """One game in progress: who is asked, what they may answer, what each seat sees, how it ended."""

    @property
    def current_player(self) -> str | None:
        """The seat asked now; None once the game is over."""
        ...

    def legal_mask(self) -> np.ndarray:
        """The int8 mask over all `n_actions` of the pending decision (all zero once the game is over)."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal action ids of the pending decision."""
        ...

    def apply(self, action: int | str) -> None:
        """Answer the pending decision with an action id or string; an illegal one raises ValueError."""
        ...

    def observation(self, seat: str) -> np.ndarray:
        """What `seat` may see now, as a float32 vector of `observation_size`."""
        ...

    def returns(self) -> dict[str, float]:
        """Each seat's result: +1 win, -1 loss, 0 draw (0 for all while the game goes on)."""
        ...

    @property
    def winner(self) -> str | None:
        """The winning seat, "draw", or None while the game goes on."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    @property
    def score(self) -> int:
        """The margin of the result, + toward the first seat (what results tables show beside the winner)."""
        ...

    @property
    def round(self) -> int:
        """The round (turn) being played, for people reading along; 0 before the first."""
        ...

    def record(self) -> dict[str, Any]:
        """The game as JSON (its seed, options and action strings): `GameRules.replay` rebuilds it."""
        ...


@runtime_checkable
class LearnerEnv(Protocol):
    """The unwrapped single-learner Gymnasium environment of `GameRules.learner_env`."""

    seat_choice: str
    """the learner's seat in the next episode: one of `seats`, or "random" """

    def set_opponent(self, opponent: Any) -> None:
        """Play against `opponent` (an agent, a callable `(observation, mask) -> action` or an agent spec)."""
        ...

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (sb3-contrib's `MaskablePPO` reads them)."""
        ...


@dataclasses.dataclass(frozen=True)
class OptionFlag:
    """One command-line flag of a game's options (`--<name>`), which the experiments' command lines offer.

    `type` is the flag's value type as the command line reads it (`bool`, `int`, `str`, a `Literal` of choices,
    `tuple[str, ...] | None`); the flag's value is kept as is in a run's `config.json`, and
    `GameRules.options_from_flags` turns the flags' values into the game's options.
    """

    name: str
    type: Any
    default: Any
    help: str
    metavar: str | None = None


@dataclasses.dataclass(frozen=True)
class ValueLearning:
    """What a game offers for learning an evaluation of its positions (`python -m experiments.train_value`).

    `positions(games, seed, options, threads, player)`: positions of `games` compiled games (deck seeds `seed`
    onwards) between copies of the agent `player` (a spec; ValueError for one that cannot play in compiled code),
    as an (M, S) integer array, and the first seat's result in each, (M,) float32 in [0, 1]; the same for any
    `threads`. `inputs(positions)`: the network's (M, D) float32 inputs of such positions. `agent`: the spec
    prefix of the agent that plays a saved network (`<agent><path>`), and `file` the network's file name in a run
    folder. `describe`: one line on the positions and the agent, for `--help` and the run's summary. `read(path)`:
    the network of a run folder or file, read as data and checked (ModelError otherwise), where the game reads one.
    """

    positions: Callable[[int, int, Any, int, str], tuple[np.ndarray, np.ndarray]]
    inputs: Callable[[np.ndarray], np.ndarray]
    agent: str
    file: str
    describe: str
    read: Callable[[Any], Any] | None = None


Rung = tuple[str, str, float]
"""A ladder's rung `(a, b, bar)`: agent a should win at least `bar` of its games against agent b."""
NoWinner = Literal["draw", "undecided"]
"""What a game without a winner is (`GameRules.no_winner`): a tie, or a game stopped before it was decided."""


@runtime_checkable
class GameRules(Protocol[O]):
    """A game as the experiments see it: its facts, its options and their flags, how to start, replay and wrap
    games, its agents by name and what training plays by default."""

    name: str
    """short name, part of run names (`<name>-<options label>__...`)"""
    seats: tuple[str, ...]
    """seat names in seat order under the default options; the first is the one `score` counts toward"""
    n_actions: int
    observation_size: int
    options_type: type[O]
    option_flags: tuple[OptionFlag, ...]
    """the command-line flags of the options, in order"""

    # ------------------------------------------------------------ options
    def options(self, options: O | Mapping[str, Any] | None = None, **fields: Any) -> O:
        """Validated options from a value, a mapping of fields or defaults, with `fields` on top.

        A wrong type raises TypeError, a value not allowed ValueError naming the field and what it allows.
        """
        ...

    def options_from_flags(self, flags: Mapping[str, Any]) -> O:
        """The options of the flags' values (one per `option_flags`); ValueError naming the flag as given."""
        ...

    def option_fields(self, options: O) -> dict[str, Any]:
        """The options as JSON-ready fields (for summaries and records); `options(fields)` reads them back."""
        ...

    def describe_options(self, fields: Mapping[str, Any]) -> str:
        """Options fields (`option_fields`) as reports say them: `standard, events off`."""
        ...

    def label(self, options: O) -> str:
        """A short name of the options, fit for a folder name (`standard-events`)."""
        ...

    def seats_of(self, options: O | None = None) -> tuple[str, ...]:
        """The seats of a game under `options` (None: the defaults, whose seats are `seats`), in seat order.

        With two seats the experiments play round robins; with more, one agent in one seat against copies of
        another in all the others."""
        ...

    # ------------------------------------------------------------ games
    def new(self, seed: int, options: O | None = None) -> TurnGame:
        """A new game set up from `seed` under `options` (None: the defaults)."""
        ...

    def replay(self, record: dict[str, Any]) -> TurnGame:
        """The game a `TurnGame.record()` describes, replayed; a bad record raises ValueError naming the key."""
        ...

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The lowest and the highest value of each entry of an observation (a trained model's observation space)."""
        ...

    def action_string(self, action: int) -> str:
        """The string of an action id (as records and logs show it)."""
        ...

    # ------------------------------------------------------------ environments
    def learner_env(self, options: O | None = None, *, shaped_reward: float = 0.0) -> Any:
        """A Gymnasium environment for one learner against an opponent played inside `step`; its `unwrapped`
        is a `LearnerEnv`."""
        ...

    def env(self, options: O | None = None, *, render_mode: str | None = None) -> Any:
        """The PettingZoo AEC environment of the game (its `unwrapped.game` is the `TurnGame` played)."""
        ...

    def parallel_env(self, options: O | None = None) -> Any:
        """The PettingZoo Parallel environment of the game (None: the game has none)."""
        ...

    def rllib_env(self, options: O | None = None) -> Any:
        """The AEC environment with RLlib's observation keys (`{"observations", "action_mask"}`)."""
        ...

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: O | None = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        """`n_envs` learner games stepped at once: a Stable-Baselines3 `VecEnv` with `action_masks()`,
        `set_opponents(opponents)`, `opponent_slot(agent)`, `get_state()` and `set_state(state, agents)`;
        `opponents` is one opponent or a mapping opponent -> weight (drawn per game). An episode's last info holds
        "seat", "winner" and "opponent" (its name)."""
        ...

    def batchable(self, agent: Any) -> bool:
        """Whether `play_batched` can play `agent` (a spec or an agent object)."""
        ...

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[Any, ...]],
        options: O | None = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Each game `(deck seed, a's seat, a's seed, b's seed, ...)` of a against b, many at once: per game, in
        order, `{"winner", "score", "decisions", "record"}`, the same as playing it alone with agents reset to
        those seeds; `on_game(k, result)` as game k ends. With more than two seats (`seats_of`), b plays every
        seat but a's, the copy in each reset to the next of b's seeds, in seat order."""
        ...

    def picture(self, game: TurnGame, size: int = 480) -> Any:
        """The board of `game` as a PIL image `size` pixels wide, or None for a game without a picture."""
        ...

    def compile_notice(self) -> str | None:
        """What to say before a first run compiles the game's code (None: nothing to wait for)."""
        ...

    def random_playouts(self, games: int, seed: int = 0, options: O | None = None) -> int | None:
        """The decisions of `games` uniformly random games (seeds `seed` onwards) played in compiled code on one
        core, for the benchmark (`python -m suntzu_env.bench --game NAME`); None: the game has none."""
        ...

    # ------------------------------------------------------------ agents
    agent_names: tuple[str, ...]
    """the agents named without arguments (`random`, ...)"""
    scripted_agents: tuple[str, ...]
    """the agents cheap enough to play as opponents while a learner samples (no search)"""
    ladder: tuple[Rung, ...]
    """the bars each agent should clear over the one below it"""
    rating_anchor: str | None
    """the agent rated 0 wherever ratings are shown (None: ratings have mean 0)"""
    no_winner: NoWinner
    """what a game that ends without a winner (its winner "draw") is: "draw", a tie, a result of the game that
    counts half a win in the headline win rate; or "undecided", a game stopped before it was decided (a turn
    limit), which is no part of a win: reports lead with the outright win rate (won / games) and show won,
    undecided and lost side by side, the score counting undecided games half beside it, and ratings are fitted to
    the decided games"""
    replay_command: str | None
    """the command that replays an evaluation's games (`{out}`: its results folder), None: none"""
    user_errors: tuple[type[Exception], ...]
    """the game's exceptions that are a user's mistake (a model that cannot be loaded): one line, exit 2"""

    def valid_agents(self) -> str:
        """The accepted agent specs, for messages and `--help`."""
        ...

    def check_agent(self, spec: str) -> None:
        """ValueError naming `spec` and the valid specs unless it names an agent (no model is loaded)."""
        ...

    def make_agent(self, spec: str, seed: int | None = None) -> Any:
        """The agent `spec` names (an `Agent`: `act(observation, mask)`, `reset(seed)`)."""
        ...

    def short_label(self, spec: str, width: int = 28) -> str:
        """A spec short enough for a table's column (for reading only)."""
        ...

    def trained_model(self, spec: str) -> str | None:
        """The path of the trained model a spec plays (loaded once per process, its run's options compared), or
        None for an agent built from its name."""
        ...

    def check_spaces(self, observation_space: Any, action_space: Any, path: Path) -> None:
        """ValueError (one of `user_errors`) unless a trained model's spaces are this game's."""
        ...

    value_learning: ValueLearning | None
    """positions and results to learn an evaluation from, for the game's search (None: the game has none)"""

    # ------------------------------------------------------------ what training plays by default
    training_opponents: str
    """the default opponent mix, `spec=weight` pairs (`pool`: the self-play pool's snapshots)"""
    self_play_pool: bool
    """whether its batched env plays the self-play pool's policy snapshots (else `pool` is refused in a mix)"""
    eval_opponents: tuple[str, ...]
    """the agents a training run is evaluated against"""
    teacher: str | None
    """the agent imitated by the warm start (None: no warm start by default)"""
    teacher_opponents: tuple[str | None, ...]
    """the teacher's opponents in its demonstration games, in turn; None: itself"""
    cell_layout: CellLayout | None
    """how a cell network (`--network cells`) reads its observation and answers its actions; None: it has none"""
    training_defaults: Mapping[str, Any]
    """training settings of the game's default run that differ from the experiments' own (config field -> value:
    `total_timesteps`, `n_envs`, `net_arch`, `bc_games`, ...); {}: the experiments' defaults"""


def _json_ready(value: Any) -> Any:
    """Tuples as lists, all the way down (what JSON keeps of an options field)."""
    if isinstance(value, (tuple, list)):
        return [_json_ready(v) for v in value]
    return value


def _tuples(value: Any) -> Any:
    """Lists as tuples, all the way down (an options field read back from JSON)."""
    if isinstance(value, (tuple, list)):
        return tuple(_tuples(v) for v in value)
    return value


class GamePlugin:
    """A base for a `GameRules`: every answer from a few facts, for a game to override where it has better.

    A subclass sets `name`, `seats`, `n_actions`, `observation_size`, `options_type` (a frozen dataclass of
    plain fields: bool, int, float, str; its fields' `metadata["help"]` is their flag's help), `agents` (name ->
    `Agent` class taking a seed), and defines `new` and `replay`. It then has option flags made from its options'
    fields, every environment made from its turn games (PettingZoo AEC and Parallel, a batched learner env:
    `suntzu_env.core.turn_envs`; a Gymnasium learner env: `turn_gym`; an OpenSpiel game: `core.openspiel`), its
    text as the `ansi` render mode, a turn limit (`turn_limited`), its scripted agents' games played by
    `play_batched` (one after another; a game with a compiled batch overrides `batched_games`), agents by name,
    and training defaults: its first agent as the opponent, no warm start.
    """

    name: str
    seats: tuple[str, ...]
    n_actions: int
    observation_size: int
    options_type: type[Any]
    agents: Mapping[str, Callable[[int | None], Any]] = {}
    ladder: tuple[Rung, ...] = ()
    rating_anchor: str | None = None
    no_winner: NoWinner = "draw"
    replay_command: str | None = None
    user_errors: tuple[type[Exception], ...] = ()
    teacher: str | None = None
    teacher_opponents: tuple[str | None, ...] = (None,)
    cell_layout: CellLayout | None = None
    training_defaults: Mapping[str, Any] = {}
    playout_options: Mapping[str, Any] = {}
    """option fields under which random playouts end soon (what the conformance tests play; {}: the defaults)"""
    self_play_pool: bool = True
    shaping: bool = False
    """whether the game's learner environments add a shaping term (`shaped_reward`)"""
    value_learning: ValueLearning | None = None
    seats_option: str | None = None
    """the option field that sets the number of seats, its flag a `Literal` of the counts allowed (None: always
    `seats`); the conformance suite (`suntzu_env.testing`) plays the largest count and one between too"""
    turn_limit_option: str | None = None
    """the option field that stops a game after that many turns (None: no limit); a game it stops has no winner
    ("draw", the `no_winner` "undecided") and its environments end it truncated, not terminated"""
    title: str = ""
    """the game's name for people (the app's page and its announcement; "": `name`)"""
    web: str | None = None
    """where the game's face in the app is, `<module>:<attribute>` (a `suntzu_env.play.face.WebFace` in the game's
    own folder: its page's board, live game, replay, new-game form), imported by the app only; None: the app replays
    the game's records as its text, step by step"""
    spaces_owner: str | None = None
    """whose spaces a model of other spaces is told of (`check_spaces`; None: the game's name)"""

    # ------------------------------------------------------------ options
    @property
    def option_flags(self) -> tuple[OptionFlag, ...]:
        hints = typing.get_type_hints(self.options_type)
        return tuple(OptionFlag(f.name, hints[f.name], f.default, f.metadata.get("help", f.name))
                     for f in dataclasses.fields(self.options_type))  # fmt: skip

    def options(self, options: Any = None, **fields: Any) -> Any:
        if isinstance(options, self.options_type) and not fields:
            return options
        base = dataclasses.asdict(options) if isinstance(options, self.options_type) else dict(options or {})
        names = [f.name for f in dataclasses.fields(self.options_type)]
        for key in {**base, **fields}:
            if key not in names:
                raise ValueError(f"options: unknown key {key!r}; known keys: {tuple(names)}")
        return self.options_type(**{**base, **fields})

    def options_from_flags(self, flags: Mapping[str, Any]) -> Any:
        return self.options(**{k: _tuples(v) for k, v in flags.items()})

    def option_fields(self, options: Any) -> dict[str, Any]:
        return {k: _json_ready(v) for k, v in dataclasses.asdict(options).items()}

    def describe_options(self, fields: Mapping[str, Any]) -> str:
        return ", ".join(f"{k} {v}" for k, v in fields.items()) or "no options"

    def label(self, options: Any) -> str:
        default = self.options()
        changed = [f"{f.name}{getattr(options, f.name)}" for f in dataclasses.fields(options)
                   if getattr(options, f.name) != getattr(default, f.name)]  # fmt: skip
        return "-".join(changed) or "default"

    def seats_of(self, options: Any = None) -> tuple[str, ...]:
        return self.seats

    # ------------------------------------------------------------ games
    def new(self, seed: int, options: Any = None) -> TurnGame:
        raise NotImplementedError

    def replay(self, record: dict[str, Any]) -> TurnGame:
        raise NotImplementedError

    def turn_limited(self, game: TurnGame, options: Any) -> TurnGame:
        """`game` stopped undecided after the turn limit `options` set (the field `turn_limit_option` names; None: no
        limit), as `suntzu_env.core.turn_limit.TurnLimited`, which the core's environments end truncated: what a
        game's `new` returns to get a turn limit from the core. The game itself where there is no limit."""
        from suntzu_env.core.turn_limit import limited

        field = self.turn_limit_option
        return limited(game, None if field is None else getattr(options, field))

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.full(self.observation_size, -np.inf, dtype=np.float32),
                np.full(self.observation_size, np.inf, dtype=np.float32))  # fmt: skip

    def action_string(self, action: int) -> str:
        return str(int(action))

    # ------------------------------------------------------------ environments
    def env(self, options: Any = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.core.turn_envs import TurnAECEnv

        return TurnAECEnv(self, self.options(options), render_mode=render_mode)

    def parallel_env(self, options: Any = None) -> Any:
        from suntzu_env.core.turn_gym import turn_parallel_env

        return turn_parallel_env(self.env(options))

    def rllib_env(self, options: Any = None) -> Any:
        from suntzu_env.core.formats import rllib_observations

        return rllib_observations(self.env(options))

    def learner_env(self, options: Any = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.core.turn_gym import TurnLearnerEnv

        if shaped_reward:
            raise ValueError(f"shaped_reward: {self.name} has no shaping (give 0)")
        return TurnLearnerEnv(self, self.options(options))

    def batched_env(
        self,
        n_envs: int,
        opponents: Any,
        *,
        seed: int | None = None,
        options: Any = None,
        shaped_reward: float = 0.0,
    ) -> Any:
        options = self.options(options)
        self.check_shaping(shaped_reward)
        return self.make_batched_env(n_envs, opponents, seed, options, shaped_reward)

    def make_batched_env(
        self, n_envs: int, opponents: Any, seed: int | None, options: Any, shaped_reward: float
    ) -> Any:
        """`batched_env` over checked options: by default the one made from the game's turn games."""
        from suntzu_env.core.turn_envs import make_turn_vec_env

        return make_turn_vec_env(self, n_envs, opponents, seed, options)

    def check_shaping(self, shaped_reward: float) -> None:
        """Refuses a shaping weight other than 0 unless the game's environments shape rewards (`shaping`)."""
        if shaped_reward != 0.0 and not self.shaping:
            raise ValueError(f"shaped_reward: {self.name}'s environments have no shaping term; use 0.0, got "
                             f"{shaped_reward!r:.40}")  # fmt: skip

    def batchable(self, agent: Any) -> bool:
        """The scripted agents by name (cheap: their games are played one after another in this process; any other
        agent's are spread over worker processes)."""
        return isinstance(agent, str) and agent in self.scripted_agents

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[Any, ...]],
        options: Any = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        """The results of `batched_games`, in order; `on_game(k, result)` as game k ends."""
        out: list[dict[str, Any]] = []
        for result in self.batched_games(a, b, games, self.options(options)):
            out.append(result)
            if on_game is not None:
                on_game(len(out) - 1, result)
        return out

    def batched_games(self, a: Any, b: Any, games: Sequence[tuple[Any, ...]], options: Any) -> Iterator[dict[str, Any]]:
        """Each game's result, in order (`play_batched`): here one after another, each agent reset to its seed
        before each (b: one agent per seat); a game with a compiled batch plays many at once."""
        seats = tuple(self.seats_of(options))
        a_agent = self.make_agent(a) if isinstance(a, str) else a
        others = [self.make_agent(b) if isinstance(b, str) else copy.deepcopy(b) for _ in seats[1:]]
        for seed, a_seat, a_seed, *b_seeds in games:
            players, rest = {}, iter(zip(others, b_seeds, strict=True))
            for seat in seats:
                agent, agent_seed = (a_agent, a_seed) if seat == a_seat else next(rest)
                agent.reset(agent_seed)
                players[seat] = agent
            game, decisions = self.new(seed, options), 0
            while (seat := game.current_player) is not None:
                game.apply(ask(players[seat], game, seat))
                decisions += 1
            yield {"winner": game.winner, "score": game.score, "decisions": decisions, "record": game.record()}

    def picture(self, game: TurnGame, size: int = 480) -> Any:
        """No picture by default; a game with a board to draw answers a PIL image of it."""
        return None

    def compile_notice(self) -> str | None:
        return None

    def random_playouts(self, games: int, seed: int = 0, options: Any = None) -> int | None:
        return None

    def openspiel_game(self, options: Any = None) -> Any:
        """The game as a `pyspiel.Game` under `options` (None: the game has no OpenSpiel game, or none under these
        options); it needs OpenSpiel (`pyspiel`), which raises ModuleNotFoundError where it is missing. By default
        `python_<name>` over the turn games (`suntzu_env.core.openspiel`)."""
        from suntzu_env.core.openspiel import load

        return load(self, self.options(options))

    def max_decisions(self, options: Any = None) -> int | None:
        """The most decisions a game under `options` can take (OpenSpiel's `max_game_length`); None: unknown."""
        return None

    # ------------------------------------------------------------ agents
    @property
    def agent_names(self) -> tuple[str, ...]:
        return tuple(self.agents)

    @property
    def scripted_agents(self) -> tuple[str, ...]:
        return self.agent_names

    def valid_agents(self) -> str:
        return ", ".join(self.agent_names)

    def check_agent(self, spec: str) -> None:
        if not isinstance(spec, str) or spec not in self.agents:
            raise ValueError(f"unknown agent {spec!r}; valid: {self.valid_agents()}")

    def make_agent(self, spec: str, seed: int | None = None) -> Any:
        self.check_agent(spec)
        return self.agents[spec](seed)

    def short_label(self, spec: str, width: int = 28) -> str:
        return spec if len(spec) <= width else f"{spec[: width - 1]}…"

    def trained_model(self, spec: str) -> str | None:
        return None

    def check_spaces(self, observation_space: Any, action_space: Any, path: Path) -> None:
        """Refuse a model whose observation or action space is not this game's (`IncompatibleModelError`)."""
        shape, n = getattr(observation_space, "shape", None), getattr(action_space, "n", None)
        if shape != (self.observation_size,) or n != self.n_actions:
            raise IncompatibleModelError(
                f"{path} was trained on observations of shape {shape} and {n} actions; "
                f"{self.spaces_owner or self.name} has ({self.observation_size},) and {self.n_actions}"
            )

    # ------------------------------------------------------------ training defaults
    @property
    def training_opponents(self) -> str:
        return f"{self.agent_names[0]}=1"

    @property
    def eval_opponents(self) -> tuple[str, ...]:
        return self.agent_names

    def __repr__(self) -> str:
        return f"<game {self.name}>"
