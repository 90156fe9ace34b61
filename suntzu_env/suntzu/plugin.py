"""`SUNTZU`: Sun Tzu as a `suntzu_env.core.protocol.GameRules`, registered as the game "suntzu"
(`suntzu_env.core.games`).

The one place that names Sun Tzu's option flags, agents, ladder and training defaults for the experiments.
Its agents (`agents`, a layer above the environments) are imported only inside the methods that name them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from suntzu_env.core import players as core_players
from suntzu_env.core.agent import ModelError
from suntzu_env.core.protocol import GamePlugin, OptionFlag, Rung, TurnGame, ValueLearning
from suntzu_env.suntzu import players
from suntzu_env.suntzu.actions import N_ACTIONS, action_to_string
from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.observation import OBSERVATION_SIZE, observation_bounds
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.rules import ADJACENCY, PROVINCES, SEATS, VARIANTS, adjacency_masks

BORDER = ":"  # between the two provinces of a border on the command line (province names hold '-')
OPTION_FLAGS = (
    OptionFlag("variant", Literal[VARIANTS], "standard", "rules variant"),  # type: ignore[valid-type]
    OptionFlag("events", bool, False, "play with the event cards (R7)"),
    OptionFlag("adjacency", tuple[str, ...] | None, None,
               "the map: its borders as PROVINCE:PROVINCE pairs, e.g. QIN:CHU CHU:WU (None: the rules' map)",
               metavar="{None}|PROVINCE:PROVINCE [...]"),
)  # fmt: skip
LADDER: tuple[Rung, ...] = (
    ("greedy", "random", 0.80),
    ("heuristic", "greedy", 0.60),
    ("ismcts", "heuristic", 0.90),  # the search baseline at its default settings
)


def borders(values: tuple[str, ...] | None) -> tuple[tuple[str, str], ...] | None:
    """`--adjacency QIN:CHU CHU:WU` as pairs of province names (checked by the options); None stays None."""
    if values is None:
        return None
    if not values:
        raise ValueError(f"adjacency: expected one or more bordering pairs PROVINCE{BORDER}PROVINCE "
                         "(None: the rules' map), got none")  # fmt: skip
    pairs = []
    for value in values:
        parts = value.split(BORDER)
        if len(parts) != 2:
            raise ValueError(f"adjacency: expected bordering pairs PROVINCE{BORDER}PROVINCE of "
                             f"{', '.join(PROVINCES)}, got {value!r}")  # fmt: skip
        pairs.append((parts[0], parts[1]))
    return tuple(pairs)


class SunTzuRules(GamePlugin):
    """Sun Tzu's facts, `Options`, constructors and agents, as `GameRules` declares them (adapts `Game`'s public
    API and `agents`).

    One `Options` value reaches `Game.new` and the environments, as their keywords (`**options.as_dict()`)
    until they take it whole (`options=options`).
    """

    name = "suntzu"
    title = "Sun Tzu"
    web = "suntzu_env.suntzu.web.face:FACE"
    seats: tuple[str, ...] = SEATS
    n_actions = N_ACTIONS
    observation_size = OBSERVATION_SIZE
    options_type = Options
    option_flags = OPTION_FLAGS
    ladder = LADDER
    rating_anchor = "heuristic"
    replay_command = "python -m suntzu_env.play --results {out}"
    training_opponents = "random=1,greedy=2,heuristic=4,pool=1"
    eval_opponents = ("random", "greedy", "heuristic")
    teacher = "heuristic"
    shaping = True
    spaces_owner = "this version of suntzu-env"
    teacher_opponents = ("random", "greedy", None)

    # ------------------------------------------------------------ options
    def options(self, options: Options | Mapping[str, Any] | None = None, **fields: Any) -> Options:
        return Options.of(options, **fields)

    def options_from_flags(self, flags: Mapping[str, Any]) -> Options:
        """`--variant`, `--events`, `--adjacency QIN:CHU ...`; a refused border is named as it was given."""
        fields = dict(flags)
        given = fields.get("adjacency")
        fields["adjacency"] = borders(given)
        try:
            return Options.of(**fields)
        except (TypeError, ValueError) as error:  # `adjacency[i] ...` names the border as it was given
            message = re.sub(r"^adjacency\[(\d+)\]", lambda m: f"adjacency {given[int(m[1])]}:", str(error))
            raise ValueError(message) from None

    def option_fields(self, options: Options) -> dict[str, Any]:
        """The options as JSON-ready fields (the map as lists of two names)."""
        return {k: [list(pair) for pair in v] if k == "adjacency" and v is not None else v
                for k, v in options.as_dict().items()}  # fmt: skip

    def describe_options(self, fields: Mapping[str, Any]) -> str:
        """`standard, events off, map QIN:CHU CHU:WU`."""
        text = f"{fields['variant']}, events {'on' if fields['events'] else 'off'}"
        if fields.get("adjacency") is not None:
            text += ", map " + " ".join(BORDER.join(pair) for pair in fields["adjacency"])
        return text

    def label(self, options: Options) -> str:
        """`standard`, `beginner-events`, ...; a map other than the declared one adds `-map<6 hex digits>`."""
        label = options.variant + ("-events" if options.events else "")
        if options.adjacency is not None:
            masks = adjacency_masks(options.adjacency)
            if masks != adjacency_masks(ADJACENCY):
                label += "-map" + hashlib.sha1(repr(masks).encode()).hexdigest()[:6]
        return label

    def new(self, seed: int, options: Options | None = None) -> Game:
        return Game.new(seed, **Options.of(options).as_dict())

    def replay(self, record: dict[str, Any]) -> Game:
        return Game.replay(record)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observation_bounds()

    def action_string(self, action: int) -> str:
        return action_to_string(action)

    def learner_env(self, options: Options | None = None, *, shaped_reward: float = 0.0) -> Any:
        from suntzu_env.suntzu.gym_env import SunTzuGymEnv

        return SunTzuGymEnv(**Options.of(options).as_dict(), shaped_reward=shaped_reward)

    def env(self, options: Options | None = None, *, render_mode: str | None = None) -> Any:
        from suntzu_env.suntzu.suntzu_v3 import env

        return env(**Options.of(options).as_dict(), render_mode=render_mode)

    def parallel_env(self, options: Options | None = None) -> Any:
        from suntzu_env.suntzu.suntzu_v3 import parallel_env

        return parallel_env(**Options.of(options).as_dict())

    def rllib_env(self, options: Options | None = None) -> Any:
        from suntzu_env.core.formats import rllib_observations

        return rllib_observations(self.env(options))

    def make_batched_env(
        self, n_envs: int, opponents: Any, seed: int | None, options: Options, shaped_reward: float
    ) -> Any:
        from suntzu_env.suntzu.vec_env import SunTzuVecEnv  # lazy: imports Stable-Baselines3

        return SunTzuVecEnv(n_envs, opponents, seed=seed, options=options, shaped_reward=shaped_reward)

    def batchable(self, agent: Any) -> bool:
        from suntzu_env.suntzu.vec_env import batchable

        return batchable(agent)

    def play_batched(
        self,
        a: Any,
        b: Any,
        games: Sequence[tuple[int, str, int, int]],
        options: Options | None = None,
        on_game: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[dict[str, Any]]:
        from suntzu_env.suntzu.vec_env import play_batched

        return play_batched(a, b, games, Options.of(options), on_game=on_game)

    def openspiel_game(self, options: Options | None = None) -> Any:
        """`python_suntzu` (`suntzu_env.suntzu.openspiel`) with the options' variant and events; None for a map of
        one's own (`adjacency`), which the OpenSpiel game does not take."""
        o = Options.of(options)
        if o.adjacency is not None:
            return None
        import pyspiel

        from suntzu_env.suntzu.openspiel import GAME_NAME  # registers the game

        return pyspiel.load_game(GAME_NAME, {"variant": o.variant, "events": o.events})

    def picture(self, game: TurnGame, size: int = 480) -> Any:
        """The map of `game` (`suntzu_env.suntzu.render.board_image`) as a PIL image `size` pixels wide."""
        from PIL import Image

        from suntzu_env.suntzu.render import board_image

        image = Image.fromarray(board_image(game.state))  # type: ignore[attr-defined]
        return image.resize((size, image.height * size // image.width), Image.LANCZOS)

    def compile_notice(self) -> str | None:
        """Said before the first run compiles the batched kernels with numba, so that the wait is not a hang."""
        import numba

        from suntzu_env.core.numba_cache import compiled_before, part_folder

        if compiled_before("vec_core", "suntzu") or numba.config.DISABLE_JIT:
            return None
        later = f"later runs load it from {part_folder('suntzu')}"
        return f"compiling the game engine with numba (first run only, a minute or so; {later})"

    # ------------------------------------------------------------ a learned evaluation for the search
    @property
    def value_learning(self) -> ValueLearning:  # type: ignore[override]
        """Round starts of an agent against itself (`heuristic`, or a trained policy), for `ismcts-value:<path>`
        (`suntzu_env.suntzu.values`)."""
        from suntzu_env.core.policy_net import compiled_policy
        from suntzu_env.suntzu import values
        from suntzu_env.suntzu.game import engine_map

        def positions(games: int, seed: int, options: Any, threads: int, player: str) -> tuple[np.ndarray, np.ndarray]:
            o = Options.of(options)
            game = (games, seed, VARIANTS.index(o.variant), int(o.events), engine_map(o))
            if player in values.COMPILED_AGENTS:
                return values.value_positions(*game, player, threads)
            policy = compiled_policy(players.make_agent(player))
            if policy is None:
                baselines = ", ".join(values.COMPILED_AGENTS)
                raise ValueError(f"{player!r} does not play in compiled code: name one of {baselines} or a trained "
                                 "policy, ppo:<run>")  # fmt: skip
            return values.value_positions(*game, threads=threads, policy=policy)

        return ValueLearning(
            positions, values.inputs_of, "ismcts-value:", values.VALUE_FILE,
            "round starts, each labelled with blue's result; the network scores the rollouts of the search "
            "ismcts-value:<run folder>", values.read_value_net,
        )  # fmt: skip

    # ------------------------------------------------------------ agents (the registry of players by name)
    @property
    def agent_names(self) -> tuple[str, ...]:
        return players.agent_names()

    @property
    def scripted_agents(self) -> tuple[str, ...]:
        """The compiled baselines: cheap enough to play while a learner samples (not `ismcts`)."""
        return tuple(name for name in self.agent_names if name != "ismcts")

    @property
    def user_errors(self) -> tuple[type[Exception], ...]:  # type: ignore[override]
        return (ModelError,)

    def valid_agents(self) -> str:
        return players.valid_specs()

    def check_agent(self, spec: str) -> None:
        players.check_spec(spec)

    def make_agent(self, spec: str, seed: int | None = None) -> Any:
        return players.make_agent(spec, seed)

    def short_label(self, spec: str, width: int = 28) -> str:
        return core_players.short_label(spec, width)

    def trained_model(self, spec: str) -> str | None:
        """The path of a `ppo:` or `rllib:` spec."""
        return core_players.model_path(spec)

    def __repr__(self) -> str:
        return "SUNTZU"


SUNTZU = SunTzuRules()
