"""Bin'Fa as an OpenSpiel game: `import suntzu_env.binfa.openspiel` registers `"python_binfa"` with pyspiel.

Needs the `openspiel` extra (`pip install -e ".[openspiel]"`, which pins `open_spiel==2.0.2`).

```python
import pyspiel
import suntzu_env.binfa.openspiel  # registers the game

game = pyspiel.load_game("python_binfa", {"players": 3, "level": 2, "seed": 7})
state = game.new_initial_state()  # the seed's setup; player 0 deploys its first unit
```

| fact                  | value                                                                           |
|-----------------------|---------------------------------------------------------------------------------|
| players               | `players`, 2..6, numbered as `binfa.Game`'s (seat order)                        |
| setup                 | the `seed` parameter's: terrain and whirlpools (B21, B38), the players' colours |
|                       | (B1) and, with `deployment="random"`, the deployment and the first player's     |
|                       | throws (B2, B25), all made before the first decision                            |
| chance                | every later throw of the two dice is a chance node: 36 ordered outcomes, 1/36   |
|                       | each, outcome `6 * (die1 - 1) + die2 - 1`, string `throw:3-5` (B0.5)            |
| actions               | the learning ids of `suntzu_env.binfa.encoding` (4,269, in the acting player's  |
|                       | frame, BD12); their strings are the engine's (`move:red-2-1>red-2-2:3`)         |
| dynamics              | sequential; a decision with a single answer applies itself (as in `binfa.Game`) |
| utilities             | at the end only: +1 the winner, -1 each eliminated player, 0 the others         |
|                       | (max_turns reached, BD5): general-sum, in [-1, 1]                               |
| information           | perfect (B36): only the future dice are unknown                                 |
| max game length       | setup decisions + `max_turns` x `TURN_DECISIONS` (Bin'Fa has no finite bound)   |
| observation tensor    | `binfa.observation`'s vector (2,437 values), from the player's point of view    |
| information state     | string only: the history (everything is public); no tensor (the observation     |
|                       | vector is not perfect recall)                                                   |

Why ordered dice: the engine throws die 1 then die 2 (`engine.throw`), a record's `dice` list and the observation
keep them apart (`dice` one-hot per die), so the 36 ordered outcomes give exactly the engine's throws and
positions. The 21 unordered ones would put each mixed throw one way round only: the positions after the other
order could not be reached. (The rules read a throw either way round, so a search may merge them.)

How a throw becomes a chance node: the engine throws inside `step`, and one answer may bring several throws
before the next decision (a double ends the turn and the next player's only answer throws again; B2's ties
throw again). The state keeps the game at the last decision, the answer waiting for its throws and the throws
drawn so far; `binfa.Game.apply_with_dice` (the engine's `step_thrown`) replays the answer with them and either
reaches the next decision or asks for one throw more, and so on. The rules stay the engine's alone. At most
`DICE_CAPACITY` (64) throws fit between two decisions; more, which would take dozens of forced throws in a
row, raises ValueError. At a chance node the observation is the position before the throwing answer; its
string names the answer and the throws so far.

Parameters: the options of `suntzu_env.binfa.Options` (`level`, `players`, `armies_per_player`, `deployment`,
`max_turns`, and `terrain`, `whirlpools`: "random" or triangle names separated by spaces, `"red-4-6 blue-2-1"`)
and `seed` (>= 0). A bad value raises ValueError naming what is allowed. The state reads them from
`game.get_parameters()`, never from Python attributes of the game, so clones (`state.child(a)`,
`state.clone()`), `game.new_initial_state()` on a copied or unpickled game, and serialized states keep them.

OpenSpiel's Python MCTS (`open_spiel.python.algorithms.mcts.MCTSBot`) searches it, through the chance nodes
(tests/binfa/test_binfa_openspiel.py). OpenSpiel's C++ search bots crash on any game written in Python (see
`suntzu_env.suntzu.openspiel`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, learn_action_name
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.geometry import UNITS_PER_ARMY
from suntzu_env.binfa.observation import OBSERVATION_PIECES, OBSERVATION_SIZE
from suntzu_env.binfa.options import ARMIES_FOR, Options
from suntzu_env.core.checks import check_seed
from suntzu_env.core.openspiel import ParameterGame, VectorObserver, game_info, sequential_game_type, with_defaults

GAME_NAME = "python_binfa"
PLAYER_COUNTS = ARMIES_FOR[1]  # 2..6 players: the counts that play one army each (BD4)
PARAMETERS: dict[str, Any] = {**Options().to_dict(), "seed": 0}
LIST_OPTIONS = ("terrain", "whirlpools")  # "random", or triangle names separated by spaces
DIE = 6
N_THROWS = DIE * DIE  # the chance outcomes: ordered throws of two dice (B0.5)
THROW_OUTCOMES = [(o, 1.0 / N_THROWS) for o in range(N_THROWS)]
# Decisions a turn counted by `max_game_length`. A turn lasts until a double or a stop (B8, B9), so Bin'Fa has no
# bound: random play that never stops makes 17 decisions a turn on average (level 1, 200 games), and 2,000 take
# hundreds of throws without a double (each throw brings at most 5 moves, B3).
TURN_DECISIONS = 2_000
INT_MAX = 2**31 - 1  # OpenSpiel's game length is a C++ int

GAME_TYPE = sequential_game_type(
    GAME_NAME,
    "Bin'Fa: The Tao of War",
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    perfect_information=True,
    seat_counts=PLAYER_COUNTS,
    parameters=PARAMETERS,
)


def check_parameters(params: Mapping[str, Any]) -> tuple[Options, int]:
    """The options and the seed of a game's parameters (defaults for the missing ones).

    A bad value raises ValueError naming the parameter and what it allows.
    """
    p = with_defaults(params, PARAMETERS)
    fields = {name: p[name] for name in PARAMETERS if name != "seed"}
    for name in LIST_OPTIONS:
        value = fields[name]
        if not isinstance(value, str) or "," in value:  # commas cut OpenSpiel's game strings
            raise ValueError(f"{name} must be 'random' or triangle names separated by spaces, got {value!r:.60}")
        if value != "random":
            fields[name] = value.split()
    try:
        return Options.of(fields), int(check_seed(p["seed"]))
    except TypeError as error:
        raise ValueError(str(error)) from None


def max_game_length(options: Options) -> int:
    """Decisions of a game at most: deployment (B1) and pawns (B24), then `TURN_DECISIONS` a turn (see there)."""
    armies = options.players * options.armies_per_player
    setup = armies * (UNITS_PER_ARMY + 1)
    return min(setup + options.max_turns * TURN_DECISIONS, INT_MAX)


def throw_of(outcome: int) -> list[int]:
    """The two dice of chance outcome `outcome` (0..35); ValueError for any other."""
    if isinstance(outcome, bool) or not isinstance(outcome, (int, np.integer)) or not 0 <= outcome < N_THROWS:
        raise ValueError(f"a chance outcome is a throw of two dice, 0..{N_THROWS - 1}, got {outcome!r:.40}")
    return [int(outcome) // DIE + 1, int(outcome) % DIE + 1]


class BinFaGame(ParameterGame):
    """The OpenSpiel game: the parameters are `binfa.Options`' and `seed` (see the module), `options` the first."""

    GAME_TYPE = GAME_TYPE
    check_parameters = staticmethod(check_parameters)

    @staticmethod
    def game_info(settings: tuple[Any, ...]) -> pyspiel.GameInfo:
        options = settings[0]
        return game_info(N_LEARN_ACTIONS, N_THROWS, options.players, max_game_length(options), utility_sum=None)


class BinFaState(pyspiel.State):
    """A state: a `binfa.Game` at a decision, or, at a chance node, that game with the answer that throws and
    the throws drawn for it so far.

    Its Python attributes are these only: pyspiel copies them (deep copies on `clone`, a pickle on `serialize`),
    and the settings come from the game's parameters.
    """

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        options, seed = check_parameters(game.get_parameters())
        self.game = Game.new(seed, options)
        self.answer: int | None = None  # the engine action waiting for its throws (a chance node)
        self.dice: list[list[int]] = []  # the throws drawn for it so far

    # ------------------------------------------------------------ the game

    def current_player(self) -> int:
        if self.answer is not None:
            return pyspiel.PlayerId.CHANCE
        player = self.game.current_player
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        if self.answer is not None or player != self.game.current_player:
            return []
        return self.game.learn_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(THROW_OUTCOMES) if self.answer is not None else []

    def _apply_action(self, action: int) -> None:
        """A learning id at a decision (ValueError naming the legal answers when illegal), a throw at a chance
        node: the answer is played once it has all its throws."""
        if self.answer is None:
            answer = self.game.learn_to_action(int(action))
            if not self.game.apply_with_dice(answer, []):
                self.answer, self.dice = answer, []
            return
        self.dice.append(throw_of(action))
        if self.game.apply_with_dice(self.answer, self.dice):
            self.answer, self.dice = None, []

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            die1, die2 = throw_of(action)
            return f"throw:{die1}-{die2}"
        if self.answer is None and player == self.game.current_player and self.game.learn_mask()[action]:
            return self.game.learn_action_string(action)  # the engine's string
        return learn_action_name(action)  # in the viewer's frame

    def is_terminal(self) -> bool:
        return self.game.is_terminal

    def returns(self) -> list[float]:
        """At the end: +1 the winner, -1 each eliminated player, 0 the others (BD5); zeros before."""
        if not self.game.is_terminal:
            return [0.0] * self.game.players
        r = self.game.returns()
        return [r[p] for p in range(self.game.players)]

    def pending(self) -> str:
        """At a chance node, the answer and the throws it has so far; else empty."""
        if self.answer is None:
            return ""
        thrown = " ".join(f"{a}-{b}" for a, b in self.dice) or "none"
        return f"throwing for {Game.action_to_string(self.answer)} (player {self.game.current_player}); so far {thrown}"

    def __str__(self) -> str:
        text = self.game.render()
        return f"{text}\n{self.pending()}" if self.answer is not None else text


class BinFaObserver(VectorObserver):
    """Tensors from the observation pieces of `binfa.observation`; strings (see the module)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        super().__init__(iig_obs_type, params, OBSERVATION_SIZE, [(p.name, p.size) for p in OBSERVATION_PIECES])

    def set_from(self, state: BinFaState, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = state.game.observation(player)

    def string_from(self, state: BinFaState, player: int) -> str:
        if self.perfect_recall:
            return f"player {player}: " + " ".join(map(str, state.history()))
        return f"player {player}\n{state}"


BinFaGame.STATE, BinFaGame.OBSERVER = BinFaState, BinFaObserver
pyspiel.register_game(GAME_TYPE, BinFaGame)
