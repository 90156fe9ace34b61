"""
# Bin'Fa

| Import | `from suntzu_env.binfa import env, parallel_env, raw_env` |
|---|---|
| Actions | Discrete |
| Parallel API | Yes: `parallel_env`, PettingZoo's turn-based conversion (one player decides at a time) |
| Manual Control | No |
| Agents | `agents= ['player_0', 'player_1', ...]` |
| Agents | 2 to 6 |
| Action Shape | Discrete({n_actions}) |
| Action Values | Discrete({n_actions}) |
| Observation Shape | ({observation_size},), with an action mask ({n_actions},) |
| Observation Values | [0, {high}] |

*Bin'Fa: The Tao of War* (Kenterprises) is a game of stacks on a hexagonal board of 96 triangles for two
to six players, each with an army of 12 units on its base. A player throws two dice and makes as many moves
as the difference, until a double; a stack of two or more is captured when every side is held by enemy
stacks of two or more; an army down to three units is eliminated; the last player in the game wins. The
rules are `docs/binfa-rules.md` (ids B1-B50, decisions BD1 on); the engine is `suntzu_env.binfa.engine`.

Each decision belongs to one player, often the same one several times in a row (a throw's moves, the
deployment of twelve units); a dislodged stack's owner answers its retreat out of turn (B16). The AEC
environment selects whichever agent must answer. A decision with a single legal answer is taken
automatically and never shown to an agent. When a player is eliminated (B12) its agent gets −1 and is
terminated, then leaves `agents` at its next (None) step; the winner gets +1 (B13) when the game ends.

## Arguments

```python
from suntzu_env.binfa import env
env(level=1, players=2, armies_per_player=1, deployment="choose", max_turns=300, render_mode=None,
    illegal_action="loss")
env(options=Options(level=3, players=4))  # the rules as one value, fields as keywords on top
```

The rules (`level`, `players`, `armies_per_player`, `terrain`, `whirlpools`, `deployment`, `max_turns`)
are `suntzu_env.binfa.Options` (B0.7). `render_mode`: None or "ansi" (the board as text).
`illegal_action`: "loss" (default of `env`): an action outside the mask ends the game, the offender gets −1
and with two players the other +1 (else 0), its info holds `"illegal_action": True`, and the first one sends
an `IllegalActionWarning`; "raise" (default of `raw_env`): `ValueError` naming the decision and its legal
actions, and nothing changes.

## Starting State

`reset(seed=s)` seeds the environment's generator, which draws the game's seed; the setup (terrain, the
armies' colours, random deployment, every throw) follows from it. `env.unwrapped.game` is the game (a
`suntzu_env.binfa.Game`): `game.record()` replays it with the engine's action strings.

## Observation Space

Each agent observes a dict: `observation`, a float32 vector of size {observation_size} seen from that
agent's point of view (BD12: the board turned so that its first army's base is sector 0, armies counted
clockwise from it, so one policy plays every seat), and `action_mask`, an int8 vector of size {n_actions},
1 for each legal action of that agent (all zero when it has nothing to decide). The mask is also in
`infos[agent]["action_mask"]`. Nothing in Bin'Fa is hidden after deployment (B36): the observation is then the
whole position. During deployment (rules v1.1, BD6) each player sees only its own placed units, as the rulebook's
players deploy at the same time; `render()` shows the board as the agent to act sees it.

{observation_table}

## Action Space

The learning action space of `suntzu_env.binfa.encoding`, {n_actions} ids in the acting player's frame
(triangles turned as in the observation; a move is a triangle, a direction and a count; the count slot
`all` is a whole stack of more than 12). `step` also takes the engine's action strings
(`"move:red-2-1>red-2-2:3"`); `game.learn_action_string(id)` names an id.

{action_table}

## Rewards

+1 to the winner (B13); −1 to a player when it is eliminated (B12); 0 to the players still in a game
truncated by `max_turns` (BD5). Rewards come only at those moments.

## Episode End

The game ends when one player is left (terminations), or undecided after `max_turns` turns (truncations
of the players still in), or with `illegal_action="loss"` at an illegal action.

## Version History

* v3: The observation gains five pieces from `enemy_closeness` on (`suntzu_env.binfa.observation`): how near the
  other armies are, the stacks with one open side left, the chance of closing each one on this or the next throw
  (B5, B10, B11) and the reach of a throw onto single units (B3), each on the triangle it concerns, blank during
  deployment (BD6). 2,437 values where v2 had 1,957; play, records and results are v2's. PettingZoo name `binfa_v3`,
  Gymnasium id BinFa-v3; the v2 names raise an error saying so, and a model trained on v2's observation is refused
  by its size.
* v2: Rules v1.1 (`docs/binfa-rules.md`, "What changed in v1.1"): a turn's first throw is compulsory, `stop` only
  after a throw (BD30); no stack holds more than 12 units (BD31); a whirlpool exit onto a lone unit of another
  colour is a dislodge, not a covering (BD32); deployment is hidden from the other players until every unit stands
  (BD6). Records name their rules (`"rules_version": "1.1"`); a record of rules 1 replays under v1. PettingZoo name
  `binfa_v2`, Gymnasium id BinFa-v2; the v1 names raise an error saying so.
* v1: One generator for every game (`suntzu_env.core.rng`: SplitMix64 seeded with the seed's whole width, dice
  without modulo bias), so the dice to come cannot be solved for from the throws seen; the same seed gives another
  game than in v0. Records name their generator (`"generator"`; positions carry its 64-bit state as `rng`); a record
  without one replays as v0 played it. PettingZoo name `binfa_v1`, Gymnasium id BinFa-v1; the v0 names raise an
  error saying so.
* v0: Initial release.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from suntzu_env.binfa import ENV_NAME
from suntzu_env.binfa.actions import string_to_action
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS, describe_learn_actions
from suntzu_env.binfa.game import Game
from suntzu_env.binfa.observation import OBSERVATION_SIZE, describe_observation, observation_bounds
from suntzu_env.binfa.options import Options
from suntzu_env.core.aec import AgentSpaces, dead_step, start_agents
from suntzu_env.core.checks import IllegalActionWarning, check_choice, check_reset

AGENT_NAMES = tuple(f"player_{i}" for i in range(6))
ILLEGAL_ACTIONS = ("loss", "raise")
RENDER_MODES = ("ansi",)

if __doc__:  # the tables are generated from the declarations (absent under python -OO)
    __doc__ = __doc__.format(
        n_actions=N_LEARN_ACTIONS,
        observation_size=OBSERVATION_SIZE,
        high=f"{observation_bounds()[1].max():g}",
        observation_table=describe_observation(),
        action_table=describe_learn_actions(),
    )


def observation_box() -> spaces.Box:
    low, high = observation_bounds()
    return spaces.Box(low=low, high=high, dtype=np.float32)


def engine_action(game: Game, action: Any) -> int:
    """The legal engine action of a learning id or an engine action string; ValueError naming the decision and
    its legal actions otherwise (nothing changes)."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action.item()
    if isinstance(action, str):
        try:
            a = string_to_action(action)
        except ValueError:
            a = -1
        if a not in game.legal_actions():
            raise ValueError(game._illegal_message(action))
        return a
    return game.learn_to_action(action)


def seat_rewards(game: Game, seats: list[int], offender: int | None = None) -> dict[int, float]:
    """B0.8's rewards of the moment for `seats`: −1 to the offender of an illegal action (the other of two
    players +1); else +1 to the winner, −1 to each eliminated seat (the caller keeps who was already out)."""
    out = dict.fromkeys(seats, 0.0)
    if offender is not None:
        for p in seats:
            out[p] = -1.0 if p == offender else (1.0 if game.players == 2 else 0.0)
        return out
    for p in game.eliminated():
        if p in out:
            out[p] = -1.0
    if isinstance(game.winner, int) and game.winner in out:
        out[game.winner] = 1.0
    return out


class raw_env(AgentSpaces, AECEnv[str, Any, Any]):
    """Bin'Fa as a PettingZoo AEC environment without wrappers; see the module docstring.

    An illegal action raises `ValueError` here by default (`illegal_action="raise"`); `env()` ends the game.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        options: Options | dict[str, Any] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **fields: Any,
    ) -> None:
        self.rules = Options.of(options, **fields)
        if render_mode is not None:
            check_choice(render_mode, "render_mode", RENDER_MODES)
        self.render_mode = render_mode
        self.illegal_action = check_choice(illegal_action, "illegal_action", ILLEGAL_ACTIONS)
        self.possible_agents: list[str] = list(AGENT_NAMES[: self.rules.players])
        self.agents: list[str] = []
        mask = spaces.Box(low=0, high=1, shape=(N_LEARN_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation_box(), "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(N_LEARN_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None
        self._rng = np.random.default_rng()
        self._warned = False
        self._ended = False  # an illegal action ended the game (illegal_action="loss")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = check_reset(seed, options)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game = Game.new(int(self._rng.integers(2**63)), self.rules)
        self.game = game
        start_agents(self, self.possible_agents)
        self._skip_agent_selection = None
        self._ended = False
        assert game.current_player is not None
        self.agent_selection = self.possible_agents[game.current_player]
        self._set_infos()

    def _set_infos(self) -> None:
        game = self.game
        assert game is not None
        to_act = None if self._ended else game.current_player
        self.infos = {}
        for agent in self.agents:
            p = self.possible_agents.index(agent)
            mask = game.learn_mask(p) if p == to_act else np.zeros(N_LEARN_ACTIONS, np.int8)
            self.infos[agent] = {"action_mask": mask}

    def observe(self, agent: str) -> Any:
        game = self.game
        assert game is not None
        info = self.infos.get(agent)
        mask = info["action_mask"] if info is not None else np.zeros(N_LEARN_ACTIONS, np.int8)
        return {"observation": game.observation(self.possible_agents.index(agent)), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Answer the pending decision with a learning id (or an engine action string); None for a finished agent."""
        if dead_step(self, action):
            return
        agent = self.agent_selection
        game = self.game
        assert game is not None
        seats = [self.possible_agents.index(a) for a in self.agents]
        me = self.possible_agents.index(agent)
        try:
            a = engine_action(game, action)
        except ValueError as error:
            if self.illegal_action == "raise":
                raise
            rewards = seat_rewards(game, seats, offender=me)
            self._ended = True
            for other in self.agents:
                self.terminations[other] = True
            self._finish_step(agent, rewards)
            self.infos[agent]["illegal_action"] = True
            if not self._warned:
                self._warned = True
                warnings.warn(f"{error}. With illegal_action='loss' the game ends", IllegalActionWarning, stacklevel=2)
            return
        game.apply(a)
        rewards = seat_rewards(game, seats)
        for p in game.eliminated():
            name = self.possible_agents[p]
            if name in self.terminations:
                self.terminations[name] = True
        if game.current_player is None:
            cut = game.winner == "undecided" and game.turns >= self.rules.max_turns  # BD5
            for other in self.agents:
                if not self.terminations[other]:
                    if cut:
                        self.truncations[other] = True
                    else:
                        self.terminations[other] = True
        self._finish_step(agent, rewards)

    def _finish_step(self, agent: str, rewards: dict[int, float]) -> None:
        game = self.game
        assert game is not None
        self.rewards = {a: rewards[self.possible_agents.index(a)] for a in self.agents}
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        if game.current_player is not None and not self._ended:
            self.agent_selection = self.possible_agents[game.current_player]
        self._set_infos()
        self._deads_step_first()

    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn("render() was called without a render_mode: pass render_mode='ansi'", stacklevel=2)
            return None
        if self.game is None:
            raise RuntimeError("render() before reset(): there is no game yet")
        return self.game.render(self.game.current_player)  # BD6: during deployment, only what the agent to act sees

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv[str, Any, Any]:
    """The AEC environment in PettingZoo's order checks; takes the arguments of `raw_env` (an illegal action
    ends the game by default, `illegal_action="loss"`)."""
    kwargs.setdefault("illegal_action", "loss")
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv[str, Any, Any]:
    """The Parallel environment: PettingZoo's `turn_based_aec_to_parallel` over `env(**kwargs)`. Each step takes
    every live agent's action and plays the one of the agent to act; the others' masks are all zero then, and their
    actions are ignored. For libraries that want the Parallel API (RLlib's `ParallelPettingZooEnv`, TorchRL)."""
    return turn_based_aec_to_parallel(env(**kwargs))


__all__ = ["AGENT_NAMES", "env", "parallel_env", "raw_env"]
