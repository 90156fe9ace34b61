"""Sun Tzu as an OpenSpiel game: `import suntzu_env.openspiel` registers `"python_suntzu"` with pyspiel.

Needs the `openspiel` extra (`pip install -e ".[openspiel]"`, which pins `open_spiel==2.0.2`).

```python
import pyspiel
import suntzu_env.openspiel  # registers the game

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
| observation tensor    | the seat's observation vector (`suntzu_env.observation`), pieces as views       |
| information state     | string: the seat's observations and own actions since the deal (perfect         |
|                       | recall), hashed; tensor: the current observation vector (not perfect recall)    |
| resample_from_infostate | `Game.sample_determinization` (`suntzu_env.determinize`)                      |

Parameters: `variant` ("standard" or "beginner"), `events` (bool), `deals` (chance outcomes, >= 1).
`AgentBot` plays any of our agents (`agents.make_agent`) as a `pyspiel.Bot`, e.g. in
`open_spiel.python.algorithms.evaluate_bots`.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pyspiel

from suntzu_env.actions import ACTION_STRINGS, N_ACTIONS
from suntzu_env.game import Game
from suntzu_env.observation import OBSERVATION_PIECES, OBSERVATION_SIZE
from suntzu_env.options import check_variant
from suntzu_env.rules import N_BASE_CARDS, N_PROVINCES, N_ROUNDS, SEATS, VARIANT_RULES

GAME_NAME = "python_suntzu"
DEFAULT_DEALS = 1024
N_PLAYERS = 2


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

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Sun Tzu (suntzu-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=N_PLAYERS,
    min_num_players=N_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"variant": "standard", "events": False, "deals": DEFAULT_DEALS},
)


def _game_info(deals: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=N_ACTIONS,
        max_chance_outcomes=deals,
        num_players=N_PLAYERS,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=MAX_GAME_LENGTH,
    )


def _chain(trace: bytes, data: bytes) -> bytes:
    return hashlib.blake2b(trace + data, digest_size=16).digest()


class SunTzuGame(pyspiel.Game):
    """The OpenSpiel game: parameters `variant`, `events`, `deals` (see the module)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.variant = check_variant(params.get("variant", "standard"))
        events = params.get("events", False)
        if not isinstance(events, bool):
            raise ValueError(f"events must be a bool, got {events!r}")
        self.events = events
        deals = params.get("deals", DEFAULT_DEALS)
        if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
            raise ValueError(f"deals must be a whole number >= 1, got {deals!r}")
        self.deals = deals
        super().__init__(GAME_TYPE, _game_info(deals), params)

    def new_initial_state(self) -> SunTzuState:
        return SunTzuState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SunTzuObserver:
        return SunTzuObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class SunTzuState(pyspiel.State):
    """A state: the chance node of the deal, then a `Game`."""

    def __init__(self, game: SunTzuGame) -> None:
        super().__init__(game)
        self._spiel_game = game
        self.game: Game | None = None
        self._traces = [b"", b""]  # per seat, a running hash of what it observed and did

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
        p = 1.0 / self._spiel_game.deals
        return [(d, p) for d in range(self._spiel_game.deals)]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self.game = Game.new(int(action), self._spiel_game.variant, self._spiel_game.events)
        else:
            side = self.current_player()
            self._traces[side] = _chain(self._traces[side], b"a%d" % action)
            self.game.apply(int(action))
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
        clone = SunTzuState(self._spiel_game)
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


class SunTzuObserver:
    """Tensors from the observation pieces of `suntzu_env.observation`; strings (see the module)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a player's own observation (public and its private information) is provided")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for piece in OBSERVATION_PIECES:
            self.dict[piece.name] = self.tensor[at : at + piece.size]
            at += piece.size

    def set_from(self, state: SunTzuState, player: int) -> None:
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


pyspiel.register_game(GAME_TYPE, SunTzuGame)
