"""The episode core: one game at a time as the environments play it, written once.

The AEC and Parallel environments (`suntzu_env.suntzu.suntzu_v3`) and the Gymnasium wrapper
(`suntzu_env.suntzu.gym_env`) are thin adapters over `Episode`: it draws each game from the environment's seeded
generator, gives each seat its action mask (simultaneous placement included, R4.1), applies actions under
the illegal-action policy, pays the rewards (the result, R6.5, plus potential-based shaping), ends the
episode and undoes a step. It knows no PettingZoo or Gymnasium type, so a batched environment can sit on
it too. `EnvSettings` is the one declaration of the environments' arguments.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from suntzu_env.core.checks import (
    IllegalActionWarning,
    check_bool,
    check_choice,
    check_number,
    check_reset,
    illegal_action_warning,
)
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.game import RESULTS, Game
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.options import OPTION_FIELDS, Options
from suntzu_env.suntzu.render import HUMAN_EXTRA, PYGAME_MISSING, pygame_installed
from suntzu_env.suntzu.rules import SEATS
from suntzu_env.suntzu.tables import OFFENDER_BIT, episode_over, shaping_potential, shaping_term, step_reward

RENDER_MODES = ("ansi", "rgb_array", "human")
ILLEGAL_ACTION_MODES = ("raise", "loss")


def render_modes() -> list[str]:
    """The render modes this installation can serve: "human" only where pygame is installed (the `human`
    extra), so checkers that try every mode of `metadata["render_modes"]` (Gymnasium's `check_env`) pass."""
    return [mode for mode in RENDER_MODES if mode != "human" or pygame_installed()]


def require_pygame() -> None:
    """Raise a one-line ModuleNotFoundError naming the extra where pygame is missing."""
    if not pygame_installed():
        raise ModuleNotFoundError(PYGAME_MISSING)


@dataclass(frozen=True)
class EnvSettings:
    """An environment's arguments, validated once: the game's `Options` and how the environment serves it.

    `options`: the rules (variant, events, map; see `suntzu_env.suntzu.options.Options`). `render_mode`: None,
    "ansi", "rgb_array" or "human" (which needs pygame: the `human` extra). `shaped_reward`: weight of the
    potential-based shaping term, a finite number >= 0. `illegal_action`: "loss" (the game ends, the offender
    gets -1) or "raise" (ValueError, nothing changes). `flat_observation`: one Box vector (observation then mask)
    instead of a dict.
    A wrong type raises TypeError, a value not allowed ValueError, each naming the argument.
    """

    options: Options = field(default_factory=Options)
    render_mode: str | None = None
    shaped_reward: float = 0.0
    illegal_action: str = "loss"
    flat_observation: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.options, Options):
            raise TypeError(f"options must be a suntzu_env.suntzu.options.Options, got {type(self.options).__name__}")
        if self.render_mode is not None:
            check_choice(self.render_mode, "render_mode", RENDER_MODES)
            if self.render_mode == "human":
                require_pygame()
        object.__setattr__(self, "shaped_reward", check_number(self.shaped_reward, "shaped_reward", low=0.0))
        check_choice(self.illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
        object.__setattr__(self, "flat_observation", check_bool(self.flat_observation, "flat_observation"))

    @classmethod
    def of(cls, options: Options | Mapping[str, Any] | None = None, **kwargs: Any) -> EnvSettings:
        """The settings of an environment's keyword arguments: the game's fields (variant, events, adjacency)
        on top of `options`, and the environment's own (render_mode, shaped_reward, ...).

        An unknown keyword raises TypeError naming it, as a Python signature would.
        """
        game_fields = {key: kwargs.pop(key) for key in OPTION_FIELDS if key in kwargs}
        for key in kwargs:
            if key not in ENV_FIELDS:
                known = ", ".join(("options", *OPTION_FIELDS, *ENV_FIELDS))
                raise TypeError(f"unexpected keyword argument {key!r}; the environment takes {known}")
        return cls(Options.of(options, **game_fields), **kwargs)


ENV_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(EnvSettings) if f.name != "options")


class Episode:
    """One game at a time as an environment plays it: masks, actions, rewards, the end, undo.

    `game` is the current game (None before the first `new_game`), `over` whether the episode has ended
    (the game is over, or forfeited by an illegal action under `illegal_action="loss"`).
    """

    def __init__(self, settings: EnvSettings) -> None:
        self.settings = settings
        self.game: Game | None = None
        self.over = False
        self.rng: np.random.Generator | None = None
        self._phi = 0.0  # the shaping potential toward blue at the last settled step
        self._warned_illegal = False
        # The last reveal's cards, for the pictures only (the state forgets them when the next round begins).

    # ------------------------------------------------------------ games

    def seed(self, seed: int | None) -> None:
        """A new generator from `seed` (a checked int); None keeps the current stream (or starts an unseeded one).

        The same stream as Gymnasium's `seeding.np_random(seed)`.
        """
        if seed is not None or self.rng is None:
            self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))

    def new_game(self, game_seed: int | None = None) -> Game:
        """Start a new game: from `game_seed`, else from a seed drawn from the generator."""
        if game_seed is None:
            if self.rng is None:
                self.seed(None)
            game_seed = int(self.rng.integers(2**63))
        self.game = Game.new(game_seed, self.settings.options)
        self.over = False
        self._phi = 0.0
        return self.game

    # ------------------------------------------------------------ what a seat sees

    def mask(self, seat: str, simultaneous: bool = False) -> np.ndarray:
        """`seat`'s int8 action mask: the legal answers of the decision it must answer now, else all zero.

        With `simultaneous`, a seat with cards to place gets its own next placement whoever is asked now
        (both sides place in the same steps, R4.1).
        """
        game = self.game
        if self.over:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        if simultaneous:
            placement = game.placement_mask(seat)
            if placement.any():
                return placement
        if game.current_player == seat:
            return game.legal_mask()
        return np.zeros(N_ACTIONS, dtype=np.int8)

    def observe(self, seat: str, mask: np.ndarray) -> Any:
        """`seat`'s observation with `mask`: a dict, or one flat vector (`flat_observation`)."""
        observation = self.game.observation(seat)
        if self.settings.flat_observation:
            return np.concatenate([observation, mask.astype(np.float32)])
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        """Both sides' observations, blue's first: a full-information view (for centralized critics)."""
        out = np.empty(2 * OBSERVATION_SIZE, dtype=np.float32)
        self.game.observation("blue", out[:OBSERVATION_SIZE])
        self.game.observation("red", out[OBSERVATION_SIZE:])
        return out

    # ------------------------------------------------------------ acting

    def play(self, seat: str, action: Any, out_of_turn: bool = False) -> None:
        """Apply `seat`'s action (with `out_of_turn`, its own placement while the other side is asked, R4.1).

        An illegal action raises ValueError naming the decision and the legal actions, and changes nothing.
        """
        if out_of_turn:
            self.game.apply_for(seat, action)
        else:
            self.game.apply(action)

    def attempt(self, seat: str, action: Any, out_of_turn: bool = False) -> ValueError | None:
        """`play` under the illegal-action policy: the error of an illegal action under "loss" (it changed
        nothing; `settle` ends the game), else None; under "raise" the error is raised."""
        try:
            self.play(seat, action, out_of_turn)
        except ValueError as error:
            if self.settings.illegal_action == "raise":
                raise
            return error
        return None

    def attempt_simultaneous(self, actions: Mapping[str, Any]) -> dict[str, ValueError]:
        """Every acting seat's action as one move: both placements in the same step (R4.1), else the one
        seat asked. Returns the errors of the illegal ones by seat; if any, no action of the step stands.

        A seat to act without an entry in `actions` raises ValueError; entries of idle seats are ignored.
        """
        acting = [seat for seat in SEATS if self.mask(seat, simultaneous=True).any()]
        for seat in acting:
            if seat not in actions:
                raise ValueError(
                    f"no action for {seat!r}, an agent to act (agents to act: {acting}; "
                    f"got actions for {sorted(actions)})"
                )
        before = self.snapshot() if len(acting) > 1 else None
        errors: dict[str, ValueError] = {}
        try:
            for seat in acting:
                error = self.attempt(seat, actions[seat], out_of_turn=True)
                if error is not None:
                    errors[seat] = error
        except ValueError:
            if before is not None:
                self.restore(before)
            raise
        if errors and before is not None:
            self.restore(before)
        return errors

    def snapshot(self) -> Game:
        """What `restore` needs to undo the steps taken after it."""
        return self.game.clone()

    def restore(self, snapshot: Game) -> None:
        self.game = snapshot

    # ------------------------------------------------------------ rewards and the end

    def settle(self, offenders: Collection[str] = ()) -> dict[str, float]:
        """Each seat's reward for the step just taken; marks the episode over at its end.

        The result at the end (R6.5: +1, -1, 0); an illegal action (`offenders`, under "loss") ends the
        game: -1 to the offender, +1 to the other (-1 to both when both offended). With `shaped_reward` w,
        each step also pays w·(Φ(s') − Φ(s)) toward blue (the opposite to red), Φ the potential. The rules
        are `suntzu_env.suntzu.tables`' `episode_over`, `step_reward`, `shaping_potential`, `shaping_term`, which the
        batched environment calls too.
        """
        result = self._result()
        if result < 0 and not offenders:  # the game goes on and nobody offended: nothing is paid yet
            rewards = dict.fromkeys(SEATS, 0.0)
        else:
            offender_bits = sum(OFFENDER_BIT[SEATS.index(seat)] for seat in set(offenders))
            if episode_over(result, offender_bits):
                self.over = True
            rewards = {seat: step_reward(result, offender_bits, side) for side, seat in enumerate(SEATS)}
        if self.settings.shaped_reward:
            phi = self.potential()
            for side, seat in enumerate(SEATS):
                rewards[seat] += shaping_term(phi, self._phi, side)
            self._phi = phi
        return rewards

    def _result(self) -> int:
        """The game's result code for the reward functions: -1 going on, else 0 blue, 1 red, 2 a draw."""
        winner = self.game.winner
        return -1 if winner is None else RESULTS.index(winner)

    def potential(self) -> float:
        """Φ toward blue: w times the marker as it would stand if the next scoring were made now, / 9; 0 once
        the episode is over (so the shaping terms add up to zero over a game)."""
        if self.over:
            return 0.0
        return shaping_potential(self.game.projected_score(), self.settings.shaped_reward, False)

    def restart_shaping(self) -> None:
        """Measure the next step's shaping from here (the first state a learner sees)."""
        self._phi = self.potential()

    def warn_illegal(self, seat: str, error: ValueError) -> None:
        """Warn about the first illegal action of this episode core (its environment)."""
        if not self._warned_illegal:
            self._warned_illegal = True
            warnings.warn(illegal_action_warning(error, seat), IllegalActionWarning, stacklevel=3)


__all__ = [
    "ENV_FIELDS",
    "HUMAN_EXTRA",
    "ILLEGAL_ACTION_MODES",
    "RENDER_MODES",
    "EnvSettings",
    "Episode",
    "IllegalActionWarning",
    "check_reset",
    "illegal_action_warning",
    "pygame_installed",
    "render_modes",
    "require_pygame",
]
