"""
# Sun Tzu

| Import | `from suntzu_env import env, parallel_env, raw_env` |
|---|---|
| Actions | Discrete |
| Parallel API | Yes (`parallel_env`) |
| Manual Control | No |
| Agents | `agents= ['blue', 'red']` |
| Agents | 2 |
| Action Shape | Discrete({n_actions}) |
| Action Values | Discrete({n_actions}) |
| Observation Shape | ({observation_size},), with an action mask ({n_actions},) |
| Observation Values | [{low}, {high}] |

*Sun Tzu* (Alan Newman) is a two-player game of simultaneous card play and area control in China in
506 BC. Blue plays Sun Tzu, red the King of Chu. Each round both sides put one card
face down against each of five provinces; the provinces are then revealed one at a time, and in each
battle the higher card moves armies by the difference. At the end of rounds 3, 6 and 9 each side scores the
provinces it holds and the score marker moves by the margin. Warlords (standard variant) and event cards
(optional) add one-off powers. The rules are `../shared/RULES.md` with the decisions of
`docs/rules-decisions.md`; the engine behind this environment is `suntzu_env.engine`.

Every decision belongs to exactly one side (R10), so the AEC environment selects whichever agent must
answer next, often the same agent several times in a row (blue's five placements, then red's). Placement
is simultaneous in the game and stays so here: an observation never shows a face-down card before its
reveal, so placing one side after the other changes nothing that either side knows. A decision with a
single legal answer is taken automatically and never shown to an agent. In `parallel_env` each step takes
the action of the one agent whose action mask is not all zero; the other agent's entry is ignored. (Since
agents do not act in a fixed cycle, PettingZoo's generic `aec_to_parallel` converter does not apply: use
`parallel_env`, which is native.)

## Arguments

```python
from suntzu_env import env, parallel_env

env(variant="standard", events=False, render_mode=None, shaped_reward=0.0, illegal_action="raise",
    adjacency=None)
```

`variant`: `"standard"` (warlords, 20 cards and 3 armies set aside per side) or `"beginner"` (no warlords,
no `+2`/`+3`, R2.2).

`events`: play with the five event cards (R2.3, R7). Off by default, as in the rulebook.

`render_mode`: `None`, `"ansi"` (the board as text), `"rgb_array"` (the board as an image) or `"human"`
(the image in a pygame window, refreshed at every step). Only public information is drawn.

`shaped_reward`: weight w of an optional shaping term, `0.0` (off) by default. With w > 0 every step also
pays each side w·(Φ(s') − Φ(s)), where Φ is the marker toward that side as it would stand if the next
scoring were made now (R4.5), divided by 9, and Φ = 0 once the game is over. The terms add up to zero over
a game: they give earlier signal without changing which play is best (potential-based shaping, Ng et al.
1999).

`illegal_action`: `"raise"` (default): an illegal action raises `ValueError` naming the decision and the
legal actions, and changes nothing. `"loss"`: the game ends at once, the offender gets −1, the other side
+1, and the offender's info holds `"illegal_action": True`.

`adjacency`: the borders of the map as pairs of province names, replacing those of D1 (R1.4).

## Starting State

`reset(seed=s)` seeds the environment's generator, which draws the game's seed; the setup (score
displays, decks, events: R3) follows from that seed alone, and `reset()` without a seed draws the next
game. The current game is `env.unwrapped.game` (a `suntzu_env.Game`): `game.record()` replays it.

## Observation Space

Each agent observes a dict: `observation`, a float32 vector of size {observation_size} seen from that agent's
seat, and `action_mask`, an int8 vector of size {n_actions} holding 1 for each legal action of the agent to
act (all zero for the other agent and once the game is over). The agent's own features come first, so one
policy can play either seat. The observation holds only what R9 lets a side know: never the opponent's
hand, its face-down cards, any deck's order or the opponent's unused warlords. `state()` gives both
observations side by side (a full-information view for centralized critics).

{observation_table}

## Action Space

One flat space of {n_actions} actions (R10); the mask says which answer the pending decision. `step` also
takes the action strings.

{action_table}

## Rewards

| Winner | Loser | Draw |
| :----: | :---: | :--: |
| +1     | −1    | 0    |

Rewards come at the end of the game only (R6.5), plus the shaping term when `shaped_reward` is set.

## Episode End

The game ends when the marker stands at ±9 after the scoring of round 3 or 6 (R6.1), after the scoring
of round 9 (R6.2), or when the last event card is applied (R6.3); with the marker at 0 the larger reserve
wins, else it is a draw (R6.4). Both agents are then terminated. There is no truncation: a game has at
most nine rounds.

## Version History

* v1: Rules v1 (docs/rules.md, "Changes in rules v1"): a Plague cancels the opposing card's effects, war_chariot
  on a third revealed `6` and optional, pandemic on the four Plague copies, the privilege counted after the
  window, recall at army-source decisions, purge of blue armies only; observation pieces `sixes_revealed`,
  `plague_copies_revealed`, `my_recycled_plagues`, `opp_recycled_plagues`, `my_cancelled`, `opp_cancelled`.
* v0: Initial release (suntzu-env 0.1.0).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from suntzu_env.actions import ACTION_GROUPS, ACTION_MEANINGS, N_ACTIONS
from suntzu_env.game import Game
from suntzu_env.layout import ARMIES, DEC_SIDE, ROUND, SCORE, VALUES
from suntzu_env.observation import OBSERVATION_SIZE, describe_observation, encode_observation, observation_bounds
from suntzu_env.render import HumanWindow, RevealMemory, board_image, board_text
from suntzu_env.rules import MAX_SCORE, N_PROVINCES, SEATS, VARIANTS

NP = N_PROVINCES
SIDE: dict[str, int] = {seat: i for i, seat in enumerate(SEATS)}
RENDER_MODES = ("ansi", "rgb_array", "human")
ILLEGAL_ACTION_MODES = ("raise", "loss")


def observation_box() -> spaces.Box:
    """The Box of one observation vector."""
    low, high = observation_bounds()
    return spaces.Box(low=low, high=high, dtype=np.float32)


def describe_actions() -> str:
    """A Markdown table of the action space: id, action string, meaning."""
    rows = ["| id | action | meaning |", "|---|---|---|"]
    for group, names in ACTION_GROUPS:
        for name in names:
            action = f"{group}:{name}" if name else group
            rows.append(f"| {len(rows) - 2} | `{action}` | {ACTION_MEANINGS[group].format(name)} |")
    return "\n".join(rows)


def projected_marker(s: np.ndarray) -> float:
    """The marker toward blue / 9, as it would stand if the next scoring (R4.5) were made now."""
    col = min(2, (int(s[ROUND]) - 1) // 3)
    margin = 0
    for p in range(NP):
        if s[ARMIES + p] > 0:
            margin += int(s[VALUES + 3 * p + col])
        elif s[ARMIES + NP + p] > 0:
            margin -= int(s[VALUES + 3 * p + col])
    return max(-MAX_SCORE, min(MAX_SCORE, int(s[SCORE]) + margin)) / MAX_SCORE


def check_options(
    variant: str,
    events: bool,
    render_mode: str | None,
    shaped_reward: float,
    illegal_action: str,
    adjacency: tuple[tuple[str, str], ...] | None,
) -> tuple[tuple[str, str], ...] | None:
    """Reject bad environment arguments with a message that names them; return the map as string pairs."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if not isinstance(events, (bool, np.bool_)):
        raise ValueError(f"events must be True or False, got {events!r}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    if not isinstance(shaped_reward, (int, float)) or isinstance(shaped_reward, bool) or shaped_reward < 0:
        raise ValueError(f"shaped_reward must be a number >= 0 (0 turns shaping off), got {shaped_reward!r}")
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
    if adjacency is None:
        return None
    adjacency = tuple((str(a), str(b)) for a, b in adjacency)
    Game.new(0, variant, adjacency=adjacency)  # fails early on a bad map
    return adjacency


if __doc__:  # the tables are generated from the declarations (absent under python -OO)
    _low, _high = observation_bounds()
    __doc__ = __doc__.format(
        n_actions=N_ACTIONS,
        observation_size=OBSERVATION_SIZE,
        low=f"{_low.min():g}",
        high=f"{_high.max():g}",
        observation_table=describe_observation(),
        action_table=describe_actions(),
    )


class BoardPictures:
    """`render` and `close` for an environment holding `game`, `render_mode`, `metadata`, `_memory`, `_window`."""

    game: Game | None
    render_mode: str | None
    metadata: ClassVar[dict[str, Any]]
    _memory: RevealMemory | None
    _window: HumanWindow | None

    def render(self) -> str | np.ndarray | None:
        """The board, as `render_mode` says: text, an RGB image, or a window (returns None)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: pass render_mode= to the constructor")
            return None
        if self.game is None:
            raise RuntimeError("render() before reset(): there is no game yet")
        if self.render_mode == "ansi":
            return board_text(self.game._s, self._memory)
        image = board_image(self.game._s, self._memory)
        if self.render_mode == "rgb_array":
            return image
        if self._window is None:
            self._window = HumanWindow(self.metadata["render_fps"])
        self._window.show(image)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_window"] = None  # a window does not travel; a new one opens on the next render
        return state


class _SunTzuTable(BoardPictures):
    """What the AEC and Parallel environments share: arguments, spaces, observations and rewards."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "suntzu_v1",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def _configure(
        self,
        variant: str,
        events: bool,
        render_mode: str | None,
        shaped_reward: float,
        illegal_action: str,
        adjacency: tuple[tuple[str, str], ...] | None,
    ) -> None:
        adjacency = check_options(variant, events, render_mode, shaped_reward, illegal_action, adjacency)
        self.variant = variant
        self.events = bool(events)
        self.render_mode = render_mode
        self.shaped_reward = float(shaped_reward)
        self.illegal_action = illegal_action
        self.adjacency = adjacency
        self.possible_agents: list[str] = list(SEATS)
        self.agents: list[str] = []
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": observation_box(),
                    "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        low, high = observation_bounds()
        self.state_space = spaces.Box(low=np.tile(low, 2), high=np.tile(high, 2), dtype=np.float32)
        self.game: Game | None = None
        self._rng: np.random.Generator | None = None
        self._over = False  # the game is over (or was forfeited by an illegal action)
        self._phi = 0.0  # the shaping potential toward blue at the last step
        self._memory = RevealMemory() if render_mode is not None else None
        self._window: HumanWindow | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _new_game(self, seed: int | None) -> Game:
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        self.game = Game.new(int(self._rng.integers(2**63)), self.variant, self.events, self.adjacency)
        self._over = False
        self._phi = 0.0
        if self._memory is not None:
            self._memory.reset()
        return self.game

    def _observe(self, side: int) -> dict[str, np.ndarray]:
        game = self.game
        obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
        encode_observation(game._s, side, obs)
        mask = game._mask.copy() if game._s[DEC_SIDE] == side and not self._over else np.zeros(N_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def _apply(self, action: Any) -> bool:
        """Apply the acting agent's action; False when it was illegal and `illegal_action` is "loss"."""
        game = self.game
        memory = self._memory
        if memory is not None:
            memory.before(game._s, action)
        try:
            game.apply(action)
        except ValueError:
            if self.illegal_action == "raise":
                raise
            return False
        if memory is not None:
            memory.after(game._s)
        return True

    def _step_rewards(self, forfeit: str | None = None) -> float:
        """Blue's reward for the step just taken (red's is its negative); sets `_over` at the end."""
        game = self.game
        if forfeit is not None:
            self._over = True
            reward = -1.0 if forfeit == "blue" else 1.0
        elif game._n_legal == 0:
            self._over = True
            reward = game.returns()["blue"]
        else:
            reward = 0.0
        if self.shaped_reward:
            phi = 0.0 if self._over else self.shaped_reward * projected_marker(game._s)
            reward += phi - self._phi
            self._phi = phi
        return reward

    def state(self) -> np.ndarray:
        """Both sides' observations, blue's first: a full-information view (for centralized critics)."""
        out = np.empty(2 * OBSERVATION_SIZE, dtype=np.float32)
        encode_observation(self.game._s, 0, out[:OBSERVATION_SIZE])
        encode_observation(self.game._s, 1, out[OBSERVATION_SIZE:])
        return out


class raw_env(_SunTzuTable, AECEnv[str, dict[str, np.ndarray], Any]):
    """Sun Tzu as a PettingZoo AEC environment without wrappers; see the module docstring."""

    def __init__(
        self,
        variant: str = "standard",
        events: bool = False,
        render_mode: str | None = None,
        shaped_reward: float = 0.0,
        illegal_action: str = "raise",
        adjacency: tuple[tuple[str, str], ...] | None = None,
    ) -> None:
        super().__init__()
        self._configure(variant, events, render_mode, shaped_reward, illegal_action, adjacency)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self._new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = SEATS[game._s[DEC_SIDE]]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observe(SIDE[agent])

    def step(self, action: Any) -> None:
        """Answer the pending decision with an action id (or its string); None for a finished agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        forfeit = None if self._apply(action) else agent
        reward = self._step_rewards(forfeit)
        rewards = self.rewards
        rewards["blue"] = reward
        rewards["red"] = -reward
        if self._over:
            for a in self.agents:
                self.terminations[a] = True
            if forfeit is not None:
                self.infos[agent]["illegal_action"] = True
        else:
            self.agent_selection = SEATS[self.game._s[DEC_SIDE]]
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


ParallelStep = tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]


class SunTzuParallelEnv(_SunTzuTable, ParallelEnv[str, dict[str, np.ndarray], Any]):
    """Sun Tzu as a PettingZoo Parallel environment; see the module docstring.

    Each `step(actions)` answers one decision: that of the agent whose action mask is not all zero.
    The other agent's entry is ignored and may be left out.
    """

    def __init__(
        self,
        variant: str = "standard",
        events: bool = False,
        render_mode: str | None = None,
        shaped_reward: float = 0.0,
        illegal_action: str = "raise",
        adjacency: tuple[tuple[str, str], ...] | None = None,
    ) -> None:
        self._configure(variant, events, render_mode, shaped_reward, illegal_action, adjacency)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return {agent: self._observe(side) for side, agent in enumerate(SEATS)}, {agent: {} for agent in SEATS}

    def step(self, actions: dict[str, Any]) -> ParallelStep:
        if not self.agents:
            raise RuntimeError("step() after the game ended: call reset()")
        agent = SEATS[self.game._s[DEC_SIDE]]
        if agent not in actions:
            raise ValueError(f"no action for {agent!r}, the agent to act (got actions for {sorted(actions)})")
        forfeit = None if self._apply(actions[agent]) else agent
        reward = self._step_rewards(forfeit)
        infos: dict[str, dict[str, Any]] = {a: {} for a in SEATS}
        if forfeit is not None:
            infos[agent]["illegal_action"] = True
        observations = {a: self._observe(side) for side, a in enumerate(SEATS)}
        done = self._over
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return (
            observations,
            {"blue": reward, "red": -reward},
            dict.fromkeys(SEATS, done),
            dict.fromkeys(SEATS, False),
            infos,
        )


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], Any]:
    """The AEC environment in PettingZoo's order checks; takes the arguments of `raw_env`."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> SunTzuParallelEnv:
    """The Parallel environment; takes the arguments of `raw_env`."""
    return SunTzuParallelEnv(**kwargs)


__all__ = [
    "SunTzuParallelEnv",
    "describe_actions",
    "env",
    "observation_box",
    "parallel_env",
    "projected_marker",
    "raw_env",
]
