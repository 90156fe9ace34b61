"""Sun Tzu as an OpenSpiel game: `import suntzu_env.suntzu.openspiel` registers `"python_suntzu"` with pyspiel.

Needs the `openspiel` extra (`pip install -e ".[openspiel]"`, which pins `open_spiel==2.0.2`).

```python
import pyspiel
import suntzu_env.suntzu.openspiel  # registers the game

game = pyspiel.load_game("python_suntzu", {"variant": "beginner", "events": False})
state = game.new_initial_state()  # a chance node: the deal
```

| fact                  | value                                                                           |
|-----------------------|---------------------------------------------------------------------------------|
| players               | 2: player 0 is blue, player 1 red (R0)                                          |
| chance                | one explicit chance node first: the deal, the game's seed among `deals`         |
|                       | equally likely ones (default 1024); after it nothing is random (R3.5)           |
| actions               | the 57 flat actions and their strings (`place:+2`, R10); deal `d` is `deal:d`   |
| dynamics              | sequential: the simultaneous placement (R4.1) is blue's five cards, then red's, |
|                       | red seeing none of blue's                                                       |
| utilities             | +1 win, -1 loss, 0 draw, at the end only (R6.5): zero-sum                       |
| information           | imperfect (R9)                                                                  |
| max game length       | `MAX_GAME_LENGTH` decisions, a bound worked out from the rules                  |
| observation tensor    | the seat's observation vector (`suntzu_env.suntzu.observation`), pieces as views       |
| information state     | string only: the seat's observations and own actions since the deal (perfect    |
|                       | recall), hashed; no tensor (the observation vector is not perfect recall, and   |
|                       | Deep CFR or NFSP trust `provides_information_state_tensor`)                     |
| resample_from_infostate | `Game.sample_determinization` (`suntzu_env.suntzu.determinize`)                      |

Parameters: `variant` ("standard" or "beginner"), `events` (bool), `deals` (chance outcomes, >= 1),
`endgame` (a whole number >= 0; 0, the default: the whole game). With `endgame` k > 0 each deal's game is
first played out to its end by uniformly random moves drawn from the deal's number, and the players take over
k decisions before that end: a small game whose tree tabular solvers can walk (`CFRSolver` on
`{"variant": "standard", "deals": 1, "endgame": 6}`, `tests/suntzu/envs/test_openspiel.py`). The full game is
out of their reach: one external-sampling iteration on `beginner` meets hundreds of thousands of information sets.

The state reads these settings from `game.get_parameters()`, never from Python attributes of the game, so
clones (`state.child(a)`, `state.clone()`) and pickled games and states (`pickle`, `serialize=True`) keep them.

`AgentBot` plays any of our agents (`agents.make_agent`) as a `pyspiel.Bot`, e.g. in
`open_spiel.python.algorithms.evaluate_bots`; `ISMCTSBot` is OpenSpiel's Python information-set MCTS with the
`restart_at` that OpenSpiel's game loops call. OpenSpiel's C++ search bots (`pyspiel.MCTSBot`) crash the
interpreter (a segmentation fault) on any game written in Python, OpenSpiel's own `python_tic_tac_toe`
included: use the Python ones (`open_spiel.python.algorithms.mcts`, `ISMCTSBot` here).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from suntzu_env.core.checks import check_bool, is_integer
from suntzu_env.core.openspiel import ParameterGame, VectorObserver, game_info, sequential_game_type, with_defaults
from suntzu_env.suntzu.actions import ACTION_STRINGS, N_ACTIONS
from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.observation import OBSERVATION_PIECES, OBSERVATION_SIZE
from suntzu_env.suntzu.options import Options, check_variant
from suntzu_env.suntzu.rules import N_BASE_CARDS, N_PROVINCES, N_ROUNDS, SEATS, VARIANT_RULES

GAME_NAME = "python_suntzu"
DEFAULT_DEALS = 1024
N_PLAYERS = 2
PARAMETERS: dict[str, Any] = {"variant": "standard", "events": False, "deals": DEFAULT_DEALS, "endgame": 0}


def max_game_length() -> int:
    """An upper bound on the decisions of one game (R10 asks only decisions with two answers or more).

    Per side: its warlord at setup and at `war_chariot` (R3.3, R7.4); five placements a round (R4.1); one
    recall per non-base card (R4.2); two keeps a round (R4.6); the reveal order, four choices a round from
    round 2 (R4.3); window offers, two warlords at most held, two windows a round in rounds 1-6, and two
    targets per use (R8); reactive offers, two per battle; and an army source per army paid or taken:
    a `+3` cost and a six-mark per battle, and a shortfall of at most the largest battle margin, 13 (R5.3-R5.6),
    plus `pandemic`, `champion` and `hero` once each (R7).
    """
    non_base = max(sum(v.card_copies[N_BASE_CARDS:]) for v in VARIANT_RULES)
    battles = N_ROUNDS * N_PROVINCES
    per_side = (
        2
        + battles
        + non_base
        + 2 * N_ROUNDS
        + (N_PROVINCES - 1) * (N_ROUNDS - 1)
        + 2 * 2 * 6
        + 2 * 2
        + 2 * battles
        + battles * (2 + 1 + 13)
        + 1
        + 1
        + 2
    )
    return N_PLAYERS * per_side


MAX_GAME_LENGTH = max_game_length()

GAME_TYPE = sequential_game_type(
    GAME_NAME,
    "Sun Tzu",
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    perfect_information=False,
    seat_counts=[N_PLAYERS],
    parameters=PARAMETERS,
)


def check_parameters(params: Mapping[str, Any]) -> tuple[Options, int, int]:
    """The rules, the number of deals and `endgame` of a game's parameters (defaults for the missing ones).

    A bad value raises ValueError naming the parameter.
    """
    p = with_defaults(params, PARAMETERS)
    try:
        options = Options(variant=check_variant(p["variant"]), events=check_bool(p["events"], "events"))
    except TypeError as error:
        raise ValueError(str(error)) from None
    for name, low in (("deals", 1), ("endgame", 0)):
        if not is_integer(p[name]) or p[name] < low:
            raise ValueError(f"{name} must be a whole number >= {low}, got {p[name]!r}")
    return options, int(p["deals"]), int(p["endgame"])


def _chain(trace: bytes, data: bytes) -> bytes:
    return hashlib.blake2b(trace + data, digest_size=16).digest()


def random_playout(game: Game, deal: int) -> list[int]:
    """The actions of `game` played out to its end by uniformly random moves drawn from `deal` (`endgame`)."""
    rng = np.random.default_rng(deal)
    playout = game.clone()
    actions = []
    while not playout.is_terminal:
        legal = playout.legal_actions()
        actions.append(legal[int(rng.integers(len(legal)))])
        playout.apply(actions[-1])
    return actions


class SunTzuGame(ParameterGame):
    """The OpenSpiel game: parameters `variant`, `events`, `deals`, `endgame` (see the module); `options` the rules
    the first two make."""

    GAME_TYPE = GAME_TYPE
    check_parameters = staticmethod(check_parameters)

    @staticmethod
    def game_info(settings: tuple[Any, ...]) -> pyspiel.GameInfo:
        return game_info(N_ACTIONS, settings[1], N_PLAYERS, MAX_GAME_LENGTH, utility_sum=0.0)  # settings[1]: deals


class SunTzuState(pyspiel.State):
    """A state: the chance node of the deal, then a `Game`.

    Its Python attributes are the game in progress and the seats' traces only: pyspiel copies them (deep
    copies on `clone`, a pickle on `serialize`), and reads the settings from the game's parameters.
    """

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        self.game: Game | None = None
        self._traces = [b"", b""]  # per seat, a running hash of what it observed and did

    def _settings(self) -> tuple[Options, int, int]:
        return check_parameters(self.get_game().get_parameters())

    # ------------------------------------------------------------ the game

    def current_player(self) -> int:
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return SEATS.index(self.game.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        if self.game is None or self.game.is_terminal or player != self.current_player():
            return []
        return self.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self._settings()[1]
        return [(d, 1.0 / deals) for d in range(deals)]

    def _apply_action(self, action: int) -> None:
        if self.game is not None:
            self._play(int(action))
            return
        options, _, endgame = self._settings()
        self.game = Game.new(int(action), options)
        self._remember()
        if endgame:
            for move in random_playout(self.game, int(action))[:-endgame]:
                self._play(move)

    def _play(self, action: int) -> None:
        side = self.current_player()
        self._traces[side] = _chain(self._traces[side], b"a%d" % action)
        self.game.apply(action)
        self._remember()

    def _remember(self) -> None:
        """Perfect recall: each seat's trace takes in what it observes after every move."""
        for side, seat in enumerate(SEATS):
            self._traces[side] = _chain(self._traces[side], self.game.observation(seat).tobytes())

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{action}"
        return ACTION_STRINGS[action]

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_terminal

    def returns(self) -> list[float]:
        if self.game is None:
            return [0.0, 0.0]
        r = self.game.returns()
        return [r[seat] for seat in SEATS]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SunTzuState:
        """A state `player_id` cannot tell from this one (R9): `Game.sample_determinization`.

        The other seat's trace is replaced by one drawn for this sample, so nothing it held shows through.
        """
        clone = self.get_game().new_initial_state()
        if self.game is None:
            return clone
        seed = int(float(probability_sampler()) * 2**53)
        clone.game = self.game.sample_determinization(SEATS[player_id], seed)
        clone._traces[player_id] = self._traces[player_id]
        clone._traces[1 - player_id] = _chain(self._traces[player_id], b"resampled %d" % seed)
        return clone

    def information_key(self, player: int) -> str:
        """The perfect-recall information state of `player`, as a short string."""
        return f"{SEATS[player]} {self._traces[player].hex()}"

    def __str__(self) -> str:
        if self.game is None:
            return "deal pending"
        g = self.game
        about = f"round {g.round} score {g.score} decision {g.decision} winner {g.winner}"
        return f"{about} state {g.state.tobytes().hex()}"


class SunTzuObserver(VectorObserver):
    """Tensors from the observation pieces of `suntzu_env.suntzu.observation`; strings (see the module)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        super().__init__(iig_obs_type, params, OBSERVATION_SIZE, [(p.name, p.size) for p in OBSERVATION_PIECES])

    def check_type(self, iig_obs_type: Any) -> None:
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a player's own observation (public and its private information) is provided")

    def set_from(self, state: SunTzuState, player: int) -> None:
        if self.tensor is None:
            return
        if state.game is None:
            self.tensor.fill(0.0)
            return
        state.game.observation(SEATS[player], out=self.tensor)

    def string_from(self, state: SunTzuState, player: int) -> str:
        if self.perfect_recall:
            return state.information_key(player)
        if state.game is None:
            return f"{SEATS[player]}: deal pending"
        return state.game.render(SEATS[player])


class AgentBot(pyspiel.Bot):
    """One of our agents (`agents.make_agent`) as a pyspiel Bot for `player`; searching agents get the game."""

    def __init__(self, agent: Any, player: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self.seat = SEATS[player]

    def step(self, state: SunTzuState) -> int:
        game = state.game
        if game is None:
            raise ValueError("AgentBot.step: the deal (chance node) comes first")
        observe = getattr(self.agent, "observe_game", None)
        if observe is not None:
            observe(game, self.seat)
        return int(self.agent.act(game.observation(self.seat), game.legal_mask()))

    def restart_at(self, state: SunTzuState) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(None)

    def inform_action(self, state: SunTzuState, player_id: int, action: int) -> None:
        pass


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python `ISMCTSBot` (on our determinization, `resample_from_infostate`), with the
    `restart_at` that OpenSpiel's game loops (`evaluate_bots`) call: it searches afresh at every step, so a
    new game only clears its tree."""

    def restart_at(self, state: pyspiel.State) -> None:
        self.reset()


SunTzuGame.STATE, SunTzuGame.OBSERVER = SunTzuState, SunTzuObserver
pyspiel.register_game(GAME_TYPE, SunTzuGame)
