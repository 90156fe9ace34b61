"""Bin'Fa's compiled agents, their ladder, and the batched env (which plays the games the Game plays)."""

from __future__ import annotations

import numpy as np
import pytest
from suntzu_env.binfa import Game
from suntzu_env.binfa.agents import AG_GREEDY
from suntzu_env.binfa.agents import AG_HEURISTIC
from suntzu_env.binfa.agents import WEIGHTS
from suntzu_env.binfa.agents import agent_action
from suntzu_env.binfa.agents import closing_reach
from suntzu_env.binfa.agents import evaluate
from suntzu_env.binfa.agents import new_scratch
from suntzu_env.binfa.encoding import N_LEARN_ACTIONS
from suntzu_env.binfa.geometry import TRIANGLE_NAMES
from suntzu_env.binfa.ladder import ladder
from suntzu_env.binfa.ladder import main
from suntzu_env.binfa.observation import OBSERVATION_SIZE
from suntzu_env.binfa.tactics import FAR
from suntzu_env.binfa.tactics import throw_reach
from suntzu_env.binfa.vec_env import BinFaVecEnv
from suntzu_env.binfa.vec_env import BinFaVectorEnv
from suntzu_env.core.rng import rng_seed
from suntzu_env.core.stats import wilson
from test_binfa_helpers import game
from test_binfa_helpers import stacks


def _greedy(g: Game, agent: int = AG_GREEDY) -> str:
    scratch = new_scratch()
    return g.action_to_string(int(agent_action(agent, g._s, g._legal, g._n, rng_seed(0), scratch)))


def test_b7_greedy_covers_a_lone_enemy_unit():
    # one move left: red's 12 units on red-2-2 may cover the lone green unit on red-2-1 (B7): green loses a unit
    # and red's stack counts it (B12), the best swing on the board
    g = game({"red-2-2": ["red"] * 12, "red-2-1": ["green"], "green-4-0": ["green"] * 11}, decision="move",
             mode="move", moves_left=1, throw=[2, 1])  # fmt: skip
    assert _greedy(g).startswith("move:red-2-2>red-2-1:")


def test_b10_greedy_keeps_its_stack_out_of_encirclement():
    # red's pair on red-2-1 has green pairs on red-2-0 and red-2-2: one more on red-1-0 captures it (B10, B11);
    # the evaluation counts that danger, so the pair moving in (to red-1-0) scores worse than staying whole
    g = game({"red-2-1": ["red"] * 2, "red-4-0": ["red"] * 10, "red-2-0": ["green"] * 2, "red-2-2": ["green"] * 2,
              "green-4-0": ["green"] * 8})  # fmt: skip
    safe = evaluate(g._s, 0, WEIGHTS[AG_GREEDY])
    g2 = game({"red-2-1": ["red"] * 2, "red-4-0": ["red"] * 10, "red-2-0": ["green"] * 2,
               "green-4-0": ["green"] * 10})  # fmt: skip
    assert evaluate(g2._s, 0, WEIGHTS[AG_GREEDY]) > safe


def _moves(g: Game, agent: int) -> list[str]:
    played = []
    while g.decision is not None and g.decision["kind"] == "move":
        played.append(_greedy(g, agent))
        g.apply(played[-1])
    return played


def test_b3_a_throw_reaches_as_far_as_its_difference() -> None:
    # B3: a throw moves as many times as its two dice differ. Of the 36 throws, 30 differ by 1 or more, 20 by 2 or
    # more (4+3+2+1 pairs each way), 12 by 3, 6 by 4, 2 by 5 (1-6, 6-1), none by 6; 0 steps away is already there.
    assert [throw_reach(steps) for steps in range(8)] == pytest.approx([1, 30 / 36, 20 / 36, 12 / 36, 6 / 36,
                                                                        2 / 36, 0, 0])  # fmt: skip
    assert throw_reach(FAR + 1) == 0.0  # no stack at all


def test_b10_heuristic_brings_a_pair_up_to_close_an_encirclement():
    # green's pair on red-3-2 has red pairs on red-3-1 and red-3-3; its third side, red-4-3, is open (B10, B11).
    # Red's pair on red-4-1 is 2 steps from it: one throw brings it there with a difference of 2 or more, 20 of
    # 36 throws (B3); from red-4-2, 30 of 36; with the 2 moves of a throw being played, surely (B5). With a throw
    # of 2 moves `heuristic` makes both steps and captures the pair (B4, B10, B11) rather than split its six
    # (`tall`); `greedy`, which gives that chance no weight, moves its six-stack instead.
    board = {"red-3-1": ["red"] * 2, "red-3-3": ["red"] * 2, "red-4-1": ["red"] * 2, "red-1-0": ["red"] * 6,
             "red-3-2": ["green"] * 2, "green-2-1": ["green"] * 8}  # fmt: skip
    target = TRIANGLE_NAMES.index("red-3-2")
    green_to_move = {"dice": [[3, 3], [2, 1]]}  # red's double ends its turn (B8); green moves, the board as it was
    g = game(board, **green_to_move)
    assert g.current_player == 1 and stacks(g) == board
    assert closing_reach(g._s, target, 0) == pytest.approx(20 / 36)
    closer = {**board, "red-4-2": board["red-4-1"]}
    del closer["red-4-1"]
    assert closing_reach(game(closer, **green_to_move)._s, target, 0) == pytest.approx(30 / 36)
    g = game(board, decision="move", mode="move", moves_left=2, throw=[3, 1])
    assert closing_reach(g._s, target, 0) == 1.0 and closing_reach(g._s, target, 1) == 0.0
    g.apply("move:red-1-0>red-2-1:1")
    assert closing_reach(g._s, target, 0) == pytest.approx(20 / 36)  # one move left: 2 steps away again
    g = game(board, decision="move", mode="move", moves_left=2, throw=[3, 1])
    assert _moves(g, AG_HEURISTIC) == ["move:red-4-1>red-4-2:2", "move:red-4-2>red-4-3:2"]
    assert "red-3-2" not in stacks(g) and stacks(g)["red-4-3"] == ["red"] * 2
    g = game(board, decision="move", mode="move", moves_left=2, throw=[3, 1])
    assert not any(m.startswith("move:red-4-1>") for m in _moves(g, AG_GREEDY))
    assert stacks(g)["red-3-2"] == ["green"] * 2


def _deploy(seed: int, agents: tuple[int, int]) -> dict[str, list[str]]:
    """Game `seed`'s board once every unit stands, each seat placing by its agent."""
    g = Game.new(seed)
    while g.decision is not None and g.decision["kind"] == "deploy":
        g.apply(_greedy(g, agents[g.current_player]))
    return stacks(g)


def test_b1_bd6_heuristic_deploys_four_triples_whatever_the_other_army_placed():
    # B1: stacks of 1 to 12 on the base. `heuristic` no longer piles its 12 units into one stack (BD31's largest,
    # which no stack can dislodge, B14: strictly lower): it places four stacks of 3 two steps apart, which can
    # close encirclements together (B10, B11). It reads nothing of the other placements (BD6: they are hidden):
    # the second seat places the same stacks whatever the first placed.
    board = _deploy(5, (AG_GREEDY, AG_HEURISTIC))
    colour = Game.new(5).to_dict()["armies"]
    first, second = sorted(colour, key=colour.get)
    mine = {t: units for t, units in board.items() if units[0] == second}
    assert sorted(mine) == sorted(f"{second}-{row}" for row in ("2-0", "2-2", "3-1", "3-3"))
    assert all(units == [second] * 3 for units in mine.values())
    assert sum(len(units) for units in board.values() if units[0] == first) == 12
    again = _deploy(5, (AG_HEURISTIC, AG_HEURISTIC))
    assert {t: units for t, units in again.items() if units[0] == second} == mine


def test_b14_b16_heuristic_dislodges_a_lower_stack_that_can_retreat():
    # red's 4 on red-3-2 beside green's pair on red-3-3, which may retreat to red-2-2 or red-3-4 (B16): a
    # dislodge throw costs nothing more than a move throw (B17) and pushes it back or, on a 6 with nowhere to
    # go, takes it (B20). `heuristic` declares it; `greedy` dislodges only a stack with nowhere to retreat.
    board = {"red-3-2": ["red"] * 4, "red-4-0": ["red"] * 8, "red-3-3": ["green"] * 2, "green-4-0": ["green"] * 10}
    g = game(board)
    assert sorted(g.legal_action_strings()) == ["dislodge:red-3-2>red-3-3", "roll"]
    assert _greedy(g, AG_HEURISTIC) == "dislodge:red-3-2>red-3-3"
    assert _greedy(g, AG_GREEDY) == "roll"


def test_b9_bd30_heuristic_throws_again_rather_than_stop():
    # after a throw (BD30) stop is legal (B9); `heuristic` keeps throwing, since its moves press the enemy
    g = game({"red-3-2": ["red"] * 4, "red-4-0": ["red"] * 8, "green-4-0": ["green"] * 12}, mode="move")
    assert "stop" in g.legal_action_strings() and _greedy(g, AG_HEURISTIC) == "roll"


def test_heuristic_decides_its_games_and_beats_greedy_outright():
    # heuristic's games against itself end before max_turns (B12, B13, not BD5), and it wins against greedy;
    # the older heuristic, which piled its units into one stack and kept its distance, left all of them undecided
    itself = ladder("heuristic", "heuristic", 20, seed=7)
    assert itself["undecided"] <= 10
    assert ladder("heuristic", "greedy", 20, seed=7)["wins"] >= 16


def test_ladder_counts_and_repeats():
    r = ladder("greedy", "random", 6, seed=3)
    assert r["wins"] + r["losses"] + r["undecided"] == 6
    assert r["win_rate"] == r["wins"] / 6 and (r["ci_low"], r["ci_high"]) == wilson(r["wins"], 6)
    assert r["score"] == (r["wins"] + r["undecided"] / 2) / 6
    assert ladder("greedy", "random", 6, seed=3) == r
    with pytest.raises(ValueError, match="unknown agent"):
        ladder("oracle", "random", 2)


def test_ladder_prints_won_undecided_lost_and_the_outright_rate(capsys):
    """The headline is the games won outright, with their Wilson interval; the score counting undecided half
    follows it."""
    assert main(["--a", "greedy", "--b", "random", "--games", "6", "--seed", "3", "--max-turns", "20"]) == 0
    r = ladder("greedy", "random", 6, seed=3, max_turns=20)
    printed = capsys.readouterr().out
    assert r["undecided"] > 0  # a game cut short, so that the two rates differ
    assert (
        f"6 games: {r['wins']} won, {r['undecided']} undecided, {r['losses']} lost; won {100 * r['wins'] / 6:.1f}% "
        f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}] outright, score (undecided = ½) {r['score']:.1%} ("
    ) in printed


def test_ladder_cli_errors_are_one_line(capsys):
    assert main(["--games", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "even" in err


def test_batched_env_plays_the_games_of_game():
    # env i's first game is Game.new(seed + i) with the learner at seat i % 2 and greedy in the other seat:
    # replaying the learner's actions and greedy's answers on a Game gives the same observations and masks
    n = 3
    vec = BinFaVecEnv(n, opponent="greedy", seed=11)
    obs = vec.reset()
    games = [Game.new(11 + i) for i in range(n)]
    scratch = new_scratch()

    def catch_up(i: int) -> None:
        g = games[i]
        while g.current_player is not None and g.current_player != i % 2:
            g.apply(int(agent_action(AG_GREEDY, g._s, g._legal, g._n, rng_seed(0), scratch)))

    for step in range(40):
        masks = vec.action_masks()
        actions = []
        for i in range(n):
            catch_up(i)
            np.testing.assert_array_equal(obs[i], games[i].observation(i % 2))
            np.testing.assert_array_equal(masks[i], games[i].learn_mask().astype(bool))
            actions.append(games[i].learn_actions()[(step * 7) % len(games[i].learn_actions())])
        for i in range(n):
            games[i].apply_learn(actions[i])
        obs, rewards, dones, infos = vec.step(np.array(actions))
        for i in np.flatnonzero(dones):  # B0.8: the game's result for the learner, seen at its end
            catch_up(i)
            seat = i % 2
            assert rewards[i] == games[i].returns()[seat] and infos[i]["seat"] == f"player_{seat}"
            np.testing.assert_array_equal(infos[i]["terminal_observation"], games[i].observation(seat))
            return


def test_batched_env_ends_games_and_illegal_actions_lose():
    vec = BinFaVecEnv(2, opponent="random", seed=0)
    vec.reset()
    masks = vec.action_masks()
    bad = [int(np.flatnonzero(~masks[0])[0]), int(np.flatnonzero(masks[1])[0])]
    obs, rewards, dones, infos = vec.step(np.array(bad))
    assert dones.tolist() == [True, False] and rewards[0] == -1.0
    assert infos[0]["illegal_action"] and infos[0]["terminal_observation"].shape == (OBSERVATION_SIZE,)
    assert vec.action_masks()[0].any()  # its next game has begun
    gym_vec = BinFaVectorEnv(2, opponent="greedy", seed=0)
    obs, info = gym_vec.reset()
    assert obs.shape == (2, OBSERVATION_SIZE) and info["action_mask"].shape == (2, N_LEARN_ACTIONS)


def test_batched_env_hands_out_its_masks_uncopied_until_the_step_after_next_whatever_is_written_to_them():
    """`action_masks()` is not a copy: the masks stay as they were through the next step, and the step after next
    writes the whole array again, a caller's writes included (the env then plays on as an untouched twin does)."""
    n = 40  # more envs than a thread takes at a time (CHUNK)
    vec, twin = BinFaVecEnv(n, opponent="random", seed=3), BinFaVecEnv(n, opponent="random", seed=3)
    vec.reset()
    twin.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = vec.action_masks()
        kept = masks.copy()
        np.testing.assert_array_equal(masks, twin.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in kept])
        vec.step(actions)
        twin.step(actions)
        np.testing.assert_array_equal(masks, kept)  # unchanged by the next step
        masks[:, :7] = True  # a caller's writes, gone after the step after next
    np.testing.assert_array_equal(vec.core.obs, twin.core.obs)


def test_batched_env_plays_the_same_games_on_one_thread_and_on_two():
    """The envs are shared among the threads as each takes the next chunk left: which thread plays which env
    changes nothing."""
    one, two = (BinFaVecEnv(50, opponent={"random": 1, "greedy": 1}, seed=8, threads=k) for k in (1, 2))
    rng = np.random.default_rng(4)
    seen = [one.reset(), two.reset()]
    for _ in range(60):
        np.testing.assert_array_equal(seen[0], seen[1])
        np.testing.assert_array_equal(one.action_masks(), two.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in one.action_masks()])
        out = [one.step(actions), two.step(actions)]
        seen = [out[0][0], out[1][0]]
        np.testing.assert_array_equal(out[0][1], out[1][1])
        np.testing.assert_array_equal(out[0][2], out[1][2])


def test_batched_env_draws_each_game_s_opponent_from_the_mix_and_keeps_its_state():
    """The mix's opponents are drawn per game from its seed; `get_state`/`set_state` continue the games exactly, and
    a bad mix or state is refused, changing nothing."""

    def play(vec: BinFaVecEnv, steps: int, rng: np.random.Generator) -> list[tuple]:
        out = []
        for _ in range(steps):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()])
            obs, rewards, dones, infos = vec.step(actions)
            out.append((obs.copy(), rewards.copy(), dones.copy(), infos))
        return out

    vec = BinFaVecEnv(16, opponent={"random": 1, "greedy": 1}, seed=5, options={"max_turns": 6})
    vec.reset()
    before = play(vec, 40, np.random.default_rng(0))
    saved = vec.get_state()
    after = play(vec, 80, np.random.default_rng(1))
    ended = [info for *_, infos in before + after for info in infos if info]
    assert {info["opponent"] for info in ended} == {"random", "greedy"}
    assert {info["seat"] for info in ended} == {"player_0", "player_1"}
    assert all(info["winner"] in ("player_0", "player_1", "draw") for info in ended)  # undecided: a draw (BD5)
    again = BinFaVecEnv(16, opponent="heuristic", seed=99, options={"max_turns": 6})
    again.reset()
    again.set_state(saved)
    for (obs, rewards, dones, infos), got in zip(after, play(again, 80, np.random.default_rng(1)), strict=True):
        for a, b in zip((obs, rewards, dones), got[:3], strict=True):
            np.testing.assert_array_equal(a, b)
        assert [i.get("opponent") for i in infos] == [i.get("opponent") for i in got[3]]
    now = again.get_state()
    with pytest.raises(ValueError, match="batched env plays random, greedy, heuristic, a trained model"):
        again.set_opponents({"random": 1, "pool": 1})
    with pytest.raises(ValueError, match=r"opponents\['random'\] \(a weight\) must lie in \[0.0, inf\], got -1"):
        again.set_opponents({"random": -1})
    with pytest.raises(TypeError, match=r"opponents\['greedy'\] \(a weight\) must be a number, got 'x'"):
        again.set_opponents({"random": 1, "greedy": "x"})
    with pytest.raises(ValueError, match="the weights of the mix add up to 0"):
        again.set_opponents({"random": 0, "ppo:nowhere": 0})  # refused before the model is looked for
    with pytest.raises(ValueError, match=r"states has shape \(2, "):
        again.set_state(BinFaVecEnv(2).get_state())
    with pytest.raises(ValueError, match="slot 0 is not a policy network's"):
        again.set_state(now, {0: object()})
    assert all(np.array_equal(v, again.get_state()[k]) for k, v in now.items())


def test_the_batched_env_s_columns_are_declared_once() -> None:
    """The per-game table's columns and the kernels' settings are named fields, numbered by their declaration."""
    from suntzu_env.binfa import vec_env

    for fields, count in ((vec_env.TABLE_FIELDS, vec_env.TABLE_COLUMNS), (vec_env.PARAM_FIELDS, vec_env.PARAM_COUNT)):
        assert [f.offset for f in fields] == list(range(count)) and len({f.name for f in fields}) == count
        assert all(f.size == 1 and f.doc for f in fields)
    # the options among the settings are the state's fields of them, meaning and all
    from suntzu_env.binfa.layout import FIELD_BY_NAME

    for name in vec_env.OPTION_PARAMS:
        assert vec_env.PARAM_FIELDS[vec_env.OPTION_PARAMS.index(name)].doc == FIELD_BY_NAME[name].doc
    env = BinFaVecEnv(2, "greedy", seed=0, seat=1)
    assert env.core.table.shape == (2, vec_env.TABLE_COLUMNS) and env.core.params[vec_env.P_SEAT] == 1
    params = dict(zip((f.name for f in vec_env.PARAM_FIELDS), env.core.params.tolist(), strict=True))
    assert params == {"level": 1, "players": 2, "armies_per_player": 1, "deployment_random": 0, "max_turns": 300,
                      "seat": 1, "envs": 2}  # fmt: skip


def test_a_batched_env_saved_before_its_first_game_continues_from_its_state():
    """A run saved before its first rollout (its env never reset) resumes: the env's state is taken back as a new
    env's, the games it then deals are the same; a row with no position but a game's columns is refused."""
    fresh = BinFaVecEnv(2, opponent="random", seed=5)
    saved = fresh.get_state()
    again = BinFaVecEnv(2, opponent="random", seed=5)
    again.set_state(saved)
    np.testing.assert_array_equal(again.reset(), fresh.reset())
    saved["table"][1, 0] = 1
    with pytest.raises(ValueError, match="table row 1: an env that began no game holds no game's columns"):
        BinFaVecEnv(2, opponent="random", seed=5).set_state(saved)


def test_a_batched_env_refuses_to_step_before_its_first_reset():
    """Before a reset (or after taking back a never-reset env's state) there is no game: step() and
    action_masks() say so in one line and change nothing; after a reset they play."""
    from suntzu_env.binfa.vec_env import BinFaVectorEnv

    env = BinFaVecEnv(2, opponent="random", seed=5)
    before = env.get_state()
    for call in (lambda: env.step(np.zeros(2, np.int64)), env.action_masks):
        with pytest.raises(RuntimeError, match=r"needs games in progress: call reset\(\) first"):
            call()
    for key, value in env.get_state().items():
        np.testing.assert_array_equal(value, before[key], err_msg=key)
    restored = BinFaVecEnv(2, opponent="random", seed=5)
    restored.set_state(before)
    with pytest.raises(RuntimeError, match="step"):
        restored.step(np.zeros(2, np.int64))
    restored.reset()
    moved = BinFaVecEnv(2, opponent="random", seed=5)
    moved.set_state(restored.get_state())
    moved.step(np.argmax(moved.action_masks(), axis=1))
    vector = BinFaVectorEnv(2)
    with pytest.raises(RuntimeError, match="action_masks"):
        vector.action_masks()
    with pytest.raises(RuntimeError, match="step"):
        vector.step(np.zeros(2, np.int64))


def test_batched_env_answers_sb3_per_env():
    # each env's own seat and opponent (the game in progress's); the opponent mix is one for every env
    vec = BinFaVecEnv(4, opponent="random", seed=2, options={"max_turns": 2})  # games of a few dozen steps
    vec.reset()
    assert vec.get_attr("seat") == ["player_0", "player_1", "player_0", "player_1"]  # seat "alternate": (i + k) mod 2
    assert vec.get_attr("opponent", indices=[1, 3]) == ["random", "random"] and vec.has_attr("seat")
    assert vec.env_method("set_opponent", "greedy") == [None] * 4
    with pytest.raises(ValueError, match="one mix; set it for every env"):
        vec.set_attr("opponent", "random", indices=[0])
    with pytest.raises(AttributeError, match="only 'opponent' can be set"):
        vec.set_attr("seed", 3)
    with pytest.raises(AttributeError, match="BinFaVecEnv has no attribute 'core_'"):
        vec.get_attr("core_")
    rng = np.random.default_rng(0)
    for _ in range(2000):  # the next games meet greedy
        masks = vec.action_masks()
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        if set(vec.get_attr("opponent")) == {"greedy"}:
            break
    assert set(vec.get_attr("opponent")) == {"greedy"}


def test_vector_env_marks_games_cut_by_max_turns_truncated():
    # BD5: a game stopped at max_turns is truncated, not terminated; its last observation is in infos["final_obs"]
    # (an object array, None where no game ended), as the SB3 face gives it in "terminal_observation"
    vector, twin = BinFaVectorEnv(3, seed=4, options={"max_turns": 1}), BinFaVecEnv(3, seed=4, options={"max_turns": 1})
    vector.reset()
    twin.reset()
    rng = np.random.default_rng(0)
    for _ in range(500):
        masks = vector.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, rewards, terminated, truncated, infos = vector.step(actions)
        _, twin_rewards, dones, twin_infos = twin.step(actions)
        np.testing.assert_array_equal(rewards, twin_rewards)
        np.testing.assert_array_equal(terminated | truncated, dones)
        if truncated.any():
            break
    assert truncated.any() and not (terminated & truncated).any()
    for i in range(3):
        if dones[i]:
            assert truncated[i] == twin_infos[i]["TimeLimit.truncated"]
            np.testing.assert_array_equal(infos["final_obs"][i], twin_infos[i]["terminal_observation"])
        else:
            assert infos["final_obs"][i] is None
