"""The opponents of the batched environment, in slots: one slot per distinct opponent, each a compiled baseline
(`agent` >= 0: an id of `vec_core.COMPILED_AGENTS`), a policy network played in compiled code (`AGENT_NET`) or a
policy asked from Python (`AGENT_POLICY`): a batched policy, or a search asked game by game with the game's state
(`searcher`); the compiled step reads the slots' agents and packed networks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from suntzu_env.core.agent import Opponent, Policy, searches_states
from suntzu_env.core.policy_net import HEADER_SIZE, CompiledNet, compiled_policy, pack_nets, playable_net
from suntzu_env.suntzu import vec_core as core
from suntzu_env.suntzu.actions import N_ACTIONS
from suntzu_env.suntzu.observation import OBSERVATION_SIZE
from suntzu_env.suntzu.players import make_agent

OPPONENTS_HELP = (
    "an agent spec ('random', 'greedy', 'heuristic', 'ppo:<path>', 'ismcts[:<iterations>]', "
    "'ismcts-value:<path>'), a callable policy(observations[M, D], "
    "masks[M, A]) -> actions[M], an object with .act_batch(observations, masks) or .act(observation, mask)"
)


class Slot:
    """One opponent of the env: a compiled agent (`agent` >= 0), a policy network played in compiled code (`net`:
    the net and whether it plays the argmax), a policy asked from Python, or a search asked from Python game by game
    (`searcher`: an agent with `act_in_state`)."""

    def __init__(
        self,
        key: Any,
        name: str,
        agent: int,
        policy: Policy | None,
        net: tuple[CompiledNet, bool] | None = None,
        searcher: Any = None,
    ) -> None:
        self.key = key
        self.name = name
        self.agent = agent
        self.policy = policy
        self.net = net
        self.searcher = searcher
        self.searcher_copies: list[Any] = []  # copies of the search for the step's other threads, made as needed


def row_by_row(agent: Any) -> Policy:
    """A batched policy over an `Agent`: its `act` asked for each game in turn."""

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([agent.act(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64)

    return policy


def describe(opponent: Any) -> str:
    """An opponent's name, for messages and infos."""
    if isinstance(opponent, str):
        return opponent
    return getattr(opponent, "name", None) or getattr(opponent, "__name__", None) or type(opponent).__name__


class OpponentSlots:
    """The slots of an env of `n_envs` games, and what the compiled step reads of them: `agents` (each slot's
    agent id), `net_params` and `net_headers` (the policy networks, packed), `work` (their scratch per game)."""

    def __init__(self, n_envs: int) -> None:
        self.n_envs = n_envs
        self.slots: list[Slot] = []
        self.agents = np.zeros(0, dtype=np.int64)
        self.any_policy = False  # some slot is a policy asked from Python (follows `agents`)
        self.net_params = np.zeros(1, dtype=np.float32)  # the policy networks' slots (follow `slots`)
        self.net_headers = np.zeros((0, HEADER_SIZE), dtype=np.int64)
        self.work = np.zeros((n_envs, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, k: int) -> Slot:
        return self.slots[k]

    def __iter__(self) -> Iterator[Slot]:
        return iter(self.slots)

    def find(self, opponent: Opponent) -> int:
        """The index of `opponent`'s slot, -1 if it has none (a spec string is one slot, however often named)."""
        for k, slot in enumerate(self.slots):
            if slot.key is opponent or (isinstance(opponent, str) and slot.key == opponent):
                return k
        return -1

    def index(self, opponent: Opponent, seed: int | None) -> int:
        """The slot index of `opponent`, added if new (a spec string is resolved once, its agent seeded from
        `seed`, the env's)."""
        k = self.find(opponent)
        if k >= 0:
            return k
        if isinstance(opponent, str):
            slot = self.spec_slot(opponent, seed)
        elif callable(getattr(opponent, "act_batch", None)) or callable(getattr(opponent, "act", None)):
            if searches_states(opponent):
                slot = Slot(opponent, describe(opponent), core.AGENT_POLICY, None, searcher=opponent)
            elif callable(getattr(opponent, "observe_game", None)):
                raise ValueError(f"opponents: {opponent!r} searches the game itself and cannot play in SunTzuVecEnv; "
                                 "give it act_in_state(state, seat, mask, rng)")  # fmt: skip
            else:
                slot = self.agent_slot(opponent, describe(opponent), opponent)
        elif callable(opponent):
            slot = Slot(opponent, describe(opponent), core.AGENT_POLICY, opponent)
        else:
            raise TypeError(f"opponents: each opponent must be {OPPONENTS_HELP}; got {opponent!r}")
        self.replace([*self.slots, slot])
        return len(self.slots) - 1

    def spec_slot(self, spec: str, seed: int | None) -> Slot:
        """The slot of an agent spec: a compiled agent, or the agent it makes."""
        if spec in core.COMPILED_AGENTS:
            return Slot(spec, spec, core.COMPILED_AGENTS.index(spec), None)
        agent = make_agent(spec, seed=int(np.random.SeedSequence(seed).generate_state(1)[0]))
        if searches_states(agent):  # each decision drawn from the game's own generator, not the agent's seed
            return Slot(spec, spec, core.AGENT_POLICY, None, searcher=agent)
        if callable(getattr(agent, "observe_game", None)):
            raise ValueError(
                f"opponents: {spec!r} searches the game itself and cannot play in SunTzuVecEnv; "
                "evaluate it with experiments.evaluate"
            )
        return self.agent_slot(spec, spec, agent)

    def agent_slot(self, key: Any, name: str, agent: Any) -> Slot:
        """The slot of an agent object: its policy network played in compiled code, or the agent asked from Python."""
        spec = compiled_policy(agent)
        if spec is None:
            act_batch = getattr(agent, "act_batch", None)
            return Slot(key, name, core.AGENT_POLICY, act_batch if callable(act_batch) else row_by_row(agent))
        net, deterministic = spec
        return self.net_slot(key, name, net, deterministic)

    @staticmethod
    def net_slot(key: Any, name: str, net: Any, deterministic: bool) -> Slot:
        """The slot of a policy network played in compiled code: ValueError unless it is one of this game's shape
        whose packed parameters fit it (an agent's, or one read back from a saved state)."""
        playable_net(net, OBSERVATION_SIZE, N_ACTIONS, f"opponents: {name!r}")
        return Slot(key, name, core.AGENT_NET, None, (net, bool(deterministic)))

    def replace(self, slots: list[Slot]) -> None:
        """These slots from now on, and the compiled step's view of them."""
        self.slots = slots
        self.agents = np.array([s.agent for s in slots], dtype=np.int64)
        self.any_policy = bool((self.agents == core.AGENT_POLICY).any())
        self._pack_nets()

    def _pack_nets(self) -> None:
        """The compiled step's view of the slots' policy networks: one parameter vector, a header per slot."""
        self.net_params, self.net_headers, width = pack_nets([slot.net for slot in self.slots])
        if self.work.shape[1] < width:
            self.work = np.zeros((self.n_envs, width), dtype=np.float32)


__all__ = ["OPPONENTS_HELP", "OpponentSlots", "Slot", "describe", "row_by_row"]
