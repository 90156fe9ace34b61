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
(optional) add one-off powers. The rules are `docs/rules.md` with the decisions of
`docs/rules-decisions.md`; the engine behind this environment is `suntzu_env.suntzu.engine`.

Every decision belongs to exactly one side (R10), so the AEC environment selects whichever agent must
answer next, often the same agent several times in a row (blue's five placements, then red's). Placement
is simultaneous in the game and stays so here: an observation never shows a face-down card before its
reveal, so placing one side after the other changes nothing that either side knows. A decision with a
single legal answer is taken automatically and never shown to an agent.

In `parallel_env` both sides place in the same steps, each its next card (R4.1 is simultaneous); every
other decision belongs to one side, so those steps take the action of the one agent whose action mask is
not all zero and ignore the other agent's entry, which may be left out. Both agents stay in `agents` and
get an observation at every step until the game ends: PettingZoo's Parallel API (and `parallel_api_test`)
wants every live agent in every step's dictionaries. A learner that must not record the idle side's steps
should use the AEC environment (a turn-based learner sees only the agent to act) or drop the steps whose
mask is all zero.

`parallel_env(idle="noop")` is for learners that sample every agent's action from its mask at every step
(TorchRL, AgileRL, RLlib's `ParallelPettingZooEnv`), which an all-zero mask breaks: the action space gains one
action, `noop` (id {n_actions}, `NOOP`), the one legal action of an agent with nothing to decide (and of both
once the game is over), so no mask is ever all zero; `infos[agent]["active"]` says whether the agent decides
in this step, so a learner can leave out the idle steps. An active agent's `noop`, or an idle agent's other
action, is illegal like any action outside the mask.

PettingZoo's converters: `aec_to_parallel(env())` refuses (metadata `is_parallelizable` is False, since
agents do not act in a fixed cycle; use the native `parallel_env`); `turn_based_aec_to_parallel(env())`
works, with placements one side after the other and `infos[agent]["active_agent"]` naming the agent to act;
`parallel_to_aec(parallel_env())` works too, giving each agent a turn in every cycle (the idle side's turn
has an all-zero mask and its action is ignored), so prefer `env()` for an AEC learner.

## Arguments

```python
from suntzu_env.suntzu.suntzu_v3 import env
from suntzu_env.suntzu.suntzu_v3 import parallel_env

env(variant="standard", events=False, render_mode=None, shaped_reward=0.0, illegal_action="loss",
    adjacency=None, flat_observation=False)
parallel_env(..., idle="empty")  # the same arguments, and idle: "empty" or "noop" (above)
env(options=Options(variant="beginner", events=True), shaped_reward=0.1)  # the same rules as one value
```

The rules of the game (`variant`, `events`, `adjacency`) may come as one `suntzu_env.suntzu.options.Options` value,
`options=`, with any of its fields as keywords on top; the environment's arguments are declared once, in
`suntzu_env.suntzu.episode.EnvSettings`, and checked once when the environment is made.

`variant`: `"standard"` (warlords, 20 cards and 3 armies set aside per side) or `"beginner"` (no warlords,
no `+2`/`+3`, R2.2).

`events`: play with the five event cards (R2.3, R7). Off by default, as in the rulebook.

`render_mode`: `None`, `"ansi"` (the board as text), `"rgb_array"` (the board as an image) or `"human"`
(the image in a pygame window, refreshed at every step; it needs the `human` extra,
`pip install "suntzu-env[human]"`, and is listed in `metadata["render_modes"]` only where pygame is
installed). Only public information is drawn.

`shaped_reward`: weight w of an optional shaping term, `0.0` (off) by default, a finite number >= 0. With
w > 0 every step also pays each side w·(Φ(s') − Φ(s)), where Φ is the marker toward that side as it would
stand if the next scoring were made now (R4.5), divided by 9, and Φ = 0 once the game is over. The terms add
up to zero over a game: they give earlier signal without changing which play is best (potential-based
shaping, Ng et al. 1999).

`illegal_action`: what an action outside the mask does. `"loss"` (default of `env` and `parallel_env`, as
in PettingZoo's classic games): the game ends at once, the offender gets −1 and the other side +1 (when both
sides place illegal cards in the same step, both get −1), the offender's info holds
`"illegal_action": True`, and the first one of each environment sends an `IllegalActionWarning` naming the
decision and its legal actions. `"raise"` (default of `raw_env`): `ValueError` with that message, and
nothing changes.

`adjacency`: the borders of the map as pairs of province names, replacing those of D1 (R1.4).

`flat_observation`: `False` (default) gives the dict observation below; `True` gives one float32 `Box`
vector, the observation followed by the action mask as 0.0/1.0 (size {flat_size}), for libraries that take
only `Box` observations (SuperSuit's wrappers, RLlib's default models). The mask is in the infos either way.

## Starting State

`reset(seed=s)` seeds the environment's generator, which draws the game's seed; the setup (score
displays, decks, events: R3) follows from that seed alone, and `reset()` without a seed draws the next
game. `s` is an integer >= 0 (Python or numpy). `reset` takes no options: a key in `options` is ignored
with a warning that names it. The current game is `env.unwrapped.game` (a `suntzu_env.Game`):
`game.record()` replays it.

## Observation Space

Each agent observes a dict: `observation`, a float32 vector of size {observation_size} seen from that agent's
seat, and `action_mask`, an int8 vector of size {n_actions} holding 1 for each legal action of that agent
(all zero for an agent with nothing to decide and once the game is over). The same mask is in
`infos[agent]["action_mask"]` after every `reset` and `step` (where AgileRL and others read it). The agent's
own features come first, so one policy can play either seat. The observation holds only what R9 lets a side
know: never the opponent's hand, its face-down cards, any deck's order or the opponent's unused warlords.
`state()` gives both observations side by side (a full-information view for centralized critics).

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
wins, else it is a draw (R6.4); with `illegal_action="loss"`, also at an illegal action. Both agents are
then terminated. There is no truncation: a game has at most nine rounds.

## Version History

* v3: One generator for every game (`suntzu_env.core.rng`: SplitMix64 seeded with the seed's whole width, draws
  without modulo bias), so a deal cannot be searched among 2**32 and the same seed deals another game than in v2.
  Records name their generator (`"generator"`); a record without one replays as v2 dealt it. PettingZoo name
  `suntzu_v3`, Gymnasium id SunTzu-v3; the v2 and v1 names raise an error saying so.
* v2: Rules v1.1 (docs/rules.md, "What changed in v1.1"): a side with nothing to take but a recall is asked
  `recall:<card>` or `pass` (D14); a recall of `P` discards the recycled copy first (D15); `reinforce` is
  offered with an empty reserve when a recall can supply the army (D16). Records carry the rules version.
  PettingZoo name `suntzu_v2`, Gymnasium id SunTzu-v2.
* v1 (map): observation piece `map` at the end (1 where two provinces border, R1.4), so a custom map is seen.
* v1: Rules v1 (docs/rules.md, "Changes in rules v1"): a Plague cancels the opposing card's effects, war_chariot
  on a third revealed `6` and optional, pandemic on the four Plague copies, the privilege counted after the
  window, recall at army-source decisions, purge of blue armies only; observation pieces `sixes_revealed`,
  `plague_copies_revealed`, `my_recycled_plagues`, `opp_recycled_plagues`, `my_cancelled`, `opp_cancelled`.
* v1 (environments): illegal actions end the game by default; action mask in infos; flat observation
  option; Parallel placement simultaneous; Gymnasium id SunTzu-v1.
* v0: Initial release (suntzu-env 0.1.0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from suntzu_env.core.aec import AgentSpaces, dead_step, start_agents
from suntzu_env.core.checks import IllegalActionWarning, check_choice, check_reset
from suntzu_env.suntzu.actions import ACTION_GROUPS, ACTION_MEANINGS, N_ACTIONS
from suntzu_env.suntzu.episode import EnvSettings, Episode, render_modes
from suntzu_env.suntzu.game import Game
from suntzu_env.suntzu.observation import OBSERVATION_SIZE, describe_observation, observation_bounds
from suntzu_env.suntzu.options import Options
from suntzu_env.suntzu.render import HumanWindow, board_image, board_text
from suntzu_env.suntzu.rules import N_PROVINCES, SEATS

NP = N_PROVINCES
FLAT_SIZE = OBSERVATION_SIZE + N_ACTIONS
IDLE_MODES = ("empty", "noop")  # parallel_env(idle=...): the idle side's mask all zero, or its one noop
NOOP = N_ACTIONS  # with idle="noop": the one legal action of an agent with nothing to decide


def observation_box() -> spaces.Box:
    """The Box of one observation vector."""
    low, high = observation_bounds()
    return spaces.Box(low=low, high=high, dtype=np.float32)


def flat_observation_box(n_actions: int = N_ACTIONS) -> spaces.Box:
    """The Box of one flat observation: the observation vector, then the action mask (of `n_actions`) as
    0.0/1.0."""
    low, high = observation_bounds()
    zeros, ones = np.zeros(n_actions, np.float32), np.ones(n_actions, np.float32)
    return spaces.Box(low=np.concatenate([low, zeros]), high=np.concatenate([high, ones]), dtype=np.float32)


def dict_observation_space(n_actions: int = N_ACTIONS) -> spaces.Dict:
    """The dict observation: the observation vector and the int8 action mask (of `n_actions`)."""
    return spaces.Dict(
        {
            "observation": observation_box(),
            "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
        }
    )


def describe_actions() -> str:
    """A Markdown table of the action space: id, action string, meaning."""
    rows = ["| id | action | meaning |", "|---|---|---|"]
    for group, names in ACTION_GROUPS:
        for name in names:
            action = f"{group}:{name}" if name else group
            rows.append(f"| {len(rows) - 2} | `{action}` | {ACTION_MEANINGS[group].format(name)} |")
    return "\n".join(rows)


if __doc__:  # the tables are generated from the declarations (absent under python -OO)
    _low, _high = observation_bounds()
    __doc__ = __doc__.format(
        n_actions=N_ACTIONS,
        observation_size=OBSERVATION_SIZE,
        flat_size=FLAT_SIZE,
        low=f"{_low.min():g}",
        high=f"{_high.max():g}",
        observation_table=describe_observation(),
        action_table=describe_actions(),
    )


class EnvFace:
    """What every environment here shares: its settings (validated once), the episode core, the pictures."""

    metadata: ClassVar[dict[str, Any]]
    settings: EnvSettings
    episode: Episode
    render_mode: str | None
    _window: HumanWindow | None

    def _set_up(self, settings: EnvSettings) -> None:
        self.settings = settings
        self.episode = Episode(settings)
        self.render_mode = settings.render_mode
        self._window = None

    @property
    def game(self) -> Game | None:
        """The current game (None before the first reset): `game.record()` replays it."""
        return self.episode.game

    @property
    def options(self) -> Options:
        """The rules the games are played under."""
        return self.settings.options

    @property
    def variant(self) -> str:
        return self.settings.options.variant

    @property
    def events(self) -> bool:
        return self.settings.options.events

    @property
    def adjacency(self) -> tuple[tuple[str, str], ...] | None:
        return self.settings.options.adjacency

    @property
    def shaped_reward(self) -> float:
        return self.settings.shaped_reward

    @property
    def illegal_action(self) -> str:
        return self.settings.illegal_action

    def render(self) -> str | np.ndarray | None:
        """The board, as `render_mode` says: text, an RGB image, or a window (returns None)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: pass render_mode= to the constructor")
            return None
        game = self.episode.game
        if game is None:
            raise RuntimeError("render() before reset(): there is no game yet")
        if self.render_mode == "ansi":
            return board_text(game.state)
        image = board_image(game.state)
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


class _SunTzuTable(EnvFace, AgentSpaces):
    """What the AEC and Parallel environments share: arguments, spaces, observations."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "suntzu_v3",
        "render_modes": render_modes(),  # "human" only where pygame is installed
        # agents do not act in a fixed cycle, so PettingZoo's generic aec_to_parallel does not apply
        "is_parallelizable": False,
        "render_fps": 2,
    }
    default_illegal_action: ClassVar[str] = "loss"
    n_actions: int = N_ACTIONS  # the size of the action space (one more with parallel_env(idle="noop"))

    def __init__(self, options: Options | None = None, **kwargs: Any) -> None:
        """`options` (or its fields `variant`, `events`, `adjacency` as keywords) and the environment's own
        arguments `render_mode`, `shaped_reward`, `illegal_action`, `flat_observation`: see the module
        docstring and `suntzu_env.suntzu.episode.EnvSettings`."""
        kwargs.setdefault("illegal_action", self.default_illegal_action)
        self._set_up(EnvSettings.of(options, **kwargs))
        self.possible_agents: list[str] = list(SEATS)
        self.agents: list[str] = []
        n = self.n_actions
        space = flat_observation_box if self.settings.flat_observation else dict_observation_space
        self.observation_spaces = {agent: space(n) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        low, high = observation_bounds()
        self.state_space = spaces.Box(low=np.tile(low, 2), high=np.tile(high, 2), dtype=np.float32)

    @property
    def flat_observation(self) -> bool:
        return self.settings.flat_observation

    def _new_game(self, seed: int | None) -> Game:
        self.episode.seed(seed)
        return self.episode.new_game()

    def state(self) -> np.ndarray:
        """Both sides' observations, blue's first: a full-information view (for centralized critics)."""
        return self.episode.state()


class raw_env(_SunTzuTable, AECEnv[str, Any, Any]):
    """Sun Tzu as a PettingZoo AEC environment without wrappers; see the module docstring.

    An illegal action raises `ValueError` by default here (`illegal_action="raise"`); `env()` ends the game.
    """

    default_illegal_action: ClassVar[str] = "raise"

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self._new_game(check_reset(seed, options))
        start_agents(self, self.possible_agents)
        self.agent_selection = game.current_player
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        """Each listed agent's info: its action mask (a fresh array each step, shared with `observe`)."""
        episode = self.episode
        player = None if episode.over else self.agent_selection
        self.infos = {
            agent: {"action_mask": episode.game.legal_mask() if agent == player else np.zeros(N_ACTIONS, np.int8)}
            for agent in self.agents
        }

    def observe(self, agent: str) -> Any:
        info = self.infos.get(agent)  # the mask of the last reset or step, if the agent is still listed
        return self.episode.observe(agent, info["action_mask"] if info is not None else self.episode.mask(agent))

    def step(self, action: Any) -> None:
        """Answer the pending decision with an action id (or its string); None for a finished agent."""
        if dead_step(self, action):
            return
        agent = self.agent_selection
        episode = self.episode
        error = episode.attempt(agent, action)  # one side decides at a time here
        self.rewards = episode.settle(() if error is None else (agent,))
        if episode.over:
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = episode.game.current_player
        self._set_infos()
        if error is not None:
            self.infos[agent]["illegal_action"] = True
            episode.warn_illegal(agent, error)
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


ParallelStep = tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]


class SunTzuParallelEnv(_SunTzuTable, ParallelEnv[str, Any, Any]):
    """Sun Tzu as a PettingZoo Parallel environment; see the module docstring.

    Each `step(actions)` takes the action of every agent whose action mask is not all zero: both during
    placement, one at every other decision. The other agent's entry is ignored and may be left out.
    With `idle="noop"` the idle agent's one legal action is `NOOP` (its entry may still be left out), and
    `infos[agent]["active"]` says which agents decide.
    """

    def __init__(self, options: Options | None = None, idle: str = "empty", **kwargs: Any) -> None:
        self.idle = check_choice(idle, "idle", IDLE_MODES)
        self.n_actions = N_ACTIONS + (idle == "noop")
        super().__init__(options, **kwargs)

    def _masks(self) -> dict[str, np.ndarray]:
        """Each seat's mask; with idle="noop", of `N_ACTIONS + 1` actions, `NOOP` alone where it has nothing to do."""
        masks = {agent: self.episode.mask(agent, simultaneous=True) for agent in SEATS}
        if self.idle == "noop":
            for agent, mask in masks.items():
                masks[agent] = np.append(mask, np.int8(not mask.any()))
        return masks

    def _outputs(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        masks = self._masks()
        observations = {agent: self.episode.observe(agent, masks[agent]) for agent in SEATS}
        infos: dict[str, dict[str, Any]] = {agent: {"action_mask": masks[agent]} for agent in SEATS}
        if self.idle == "noop":
            for agent in SEATS:
                infos[agent]["active"] = not masks[agent][NOOP]
        return observations, infos

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self._new_game(check_reset(seed, options))
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return self._outputs()

    def _idle_errors(self, actions: Mapping[str, Any]) -> dict[str, ValueError]:
        """With idle="noop": the idle agents whose entry is not `NOOP`, each with its error (raised under
        illegal_action="raise")."""
        errors = {}
        for agent, mask in self._masks().items():
            if mask[NOOP] and agent in actions and not _is_noop(actions[agent]):
                errors[agent] = ValueError(
                    f"{agent} has nothing to decide now: its one legal action is {NOOP} (noop), got {actions[agent]!r}"
                )
                if self.settings.illegal_action == "raise":
                    raise errors[agent]
        return errors

    def step(self, actions: dict[str, Any]) -> ParallelStep:
        if not self.agents:
            raise RuntimeError("step() after the game ended: call reset()")
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict from agent to action, got {actions!r}")
        episode = self.episode
        errors = self._idle_errors(actions) if self.idle == "noop" else {}
        if not errors:  # both placements are one move: neither stands if one is illegal
            errors = episode.attempt_simultaneous(actions)
        rewards = episode.settle(list(errors))
        observations, infos = self._outputs()
        for agent, error in errors.items():
            infos[agent]["illegal_action"] = True
            episode.warn_illegal(agent, error)
        done = episode.over
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, dict.fromkeys(SEATS, done), dict.fromkeys(SEATS, False), infos


def _is_noop(action: Any) -> bool:
    if isinstance(action, str):
        return action == "noop"
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action.item()
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool) and action == NOOP


def env(**kwargs: Any) -> AECEnv[str, Any, Any]:
    """The AEC environment in PettingZoo's order checks; takes the arguments of `raw_env`.

    Unlike `raw_env`, an illegal action ends the game by default (`illegal_action="loss"`).
    """
    kwargs.setdefault("illegal_action", "loss")
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> SunTzuParallelEnv:
    """The Parallel environment; takes the arguments of `raw_env` (an illegal action ends the game by default)
    and `idle`: "empty" (the default: an agent with nothing to decide has an all-zero mask) or "noop" (its one
    legal action is `NOOP`; see the module docstring)."""
    return SunTzuParallelEnv(**kwargs)


__all__ = [
    "IDLE_MODES",
    "NOOP",
    "EnvFace",
    "IllegalActionWarning",
    "SunTzuParallelEnv",
    "check_reset",
    "describe_actions",
    "dict_observation_space",
    "env",
    "flat_observation_box",
    "observation_box",
    "parallel_env",
    "raw_env",
]
