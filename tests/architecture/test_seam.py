"""The seam between the games and the experiments: the registry, the fence, and a game that plugs in from a
test folder alone (`tests/toy_game`, Duel) and is trained and evaluated through the command lines."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from experiments import evaluate
from experiments import train
from suntzu_env.core import games
from suntzu_env.core.protocol import GameRules

ROOT = Path(__file__).resolve().parents[2]
TOY = "toy_game:DUEL"  # tests/ is on the path of the tests (and of their subprocesses, with PYTHONPATH)
# What the experiments may import of the package: the core (`suntzu_env.core`: the seam, the registries, the thread
# control, the networks, the one reader of a run folder's array files, the user's folders), which knows no game;
# the shipped agents' files (`suntzu_env.pretrained`: data, each entry naming its game); and the trained-policy
# machinery (`agents.ppo`: a MaskablePPO actor of any game's sizes played in compiled code; `agents.cell_policy`: a
# board network reading the layout a game declares), which is no game's agent. A game's own modules and agents are
# reached through its GameRules.
ALLOWED = ("suntzu_env.core", "suntzu_env.pretrained", "agents.ppo", "agents.cell_policy")
TITLES = ("Sun Tzu", "Bin'Fa", "binfa")  # the games as people name them


def _imports(tree: ast.AST) -> list[str]:
    """Every module an AST imports, inside functions too (`from a import b` counts as `a.b` and `a`)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def _words() -> list[str]:
    """What names a game's specifics: each registered game's name, seats, option flags and agents (but
    `random`, which every game has and the experiments say of seeds and seats)."""
    words = set()
    for name in games.names():
        rules = games.game(name)
        words |= {name, rules.name, *rules.seats, *(f.name for f in rules.option_flags), *rules.agent_names}
    return sorted((words - {"random"}) | set(TITLES))


def _texts(path: Path) -> list[tuple[int, str]]:
    """Every string literal (docstrings too) and comment of a module, with its line."""
    out = [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text()))
           if isinstance(node, ast.Constant) and isinstance(node.value, str)]  # fmt: skip
    with path.open() as f:
        out += [(t.start[0], t.string) for t in tokenize.generate_tokens(f.readline) if t.type == tokenize.COMMENT]
    return out


def test_the_experiments_name_no_game_and_import_none() -> None:
    """No module of experiments/ imports a game's package or agents, or names a game's specifics: a game reaches
    them only as a registered GameRules."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, _words())) + r")\b", re.IGNORECASE)
    problems = []
    for path in sorted((ROOT / "experiments").glob("*.py")):
        for name in _imports(ast.parse(path.read_text())):
            ours = name.split(".")[0] in ("suntzu_env", "agents")
            if ours and not any(name == a or name.startswith(a + ".") for a in ALLOWED):
                problems.append(f"{path.name}: imports {name}")
        for line, text in _texts(path):
            if found := pattern.search(text):
                problems.append(f"{path.name}:{line}: names {found[0]!r}")
    assert not problems, "\n".join(problems)


def test_the_fence_catches_what_it_refuses(tmp_path: Path) -> None:
    """The checks above fail on an import of a game's module, of agents, and on a literal naming a game's agent."""
    tree = ast.parse("def f():\n    from suntzu_env.suntzu.rules import SEATS\n    import agents\n")
    assert _imports(tree) == ["suntzu_env.suntzu.rules.SEATS", "agents"]
    path = tmp_path / "m.py"
    path.write_text('X = "heuristic=1"  # play the greedy one\n')
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, _words())) + r")\b", re.IGNORECASE)
    assert [pattern.search(text)[0] for _, text in _texts(path)] == ["heuristic", "greedy"]


def test_the_registry_finds_games_by_name_and_says_what_it_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert games.DEFAULT in games.names()
    assert isinstance(games.game(games.DEFAULT), GameRules)
    with pytest.raises(games.UnknownGameError, match=r"unknown game 'chess'; known games: .*suntzu"):
        games.game("chess")
    (tmp_path / "probe_game.py").write_text("from toy_game import DuelRules\n\nPROBE = DuelRules()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(games.UnknownGameError, match="unknown game 'probe_game:PROBE'"):
        games.game("probe_game:PROBE")  # what a file names: nothing is imported
    assert "probe_game" not in sys.modules
    probe = games.load("probe_game:PROBE")  # what a command line names
    assert isinstance(probe, GameRules) and games.key(probe) == "probe_game:PROBE"
    assert games.game("probe_game:PROBE") is probe and "probe_game:PROBE" in games.names()
    with pytest.raises(games.UnknownGameError, match="is not a GameRules"):
        games.load("json:dumps")
    with pytest.raises(games.UnknownGameError, match="cannot import"):
        games.load("no_such_module_here:X")


def test_a_toy_game_trains_and_evaluates_through_the_command_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Duel, written only in tests/toy_game, is trained (no warm start: it has no teacher; its batched
    environment made from its turn games) and evaluated with `--game`, its `--cards` flag made from its options."""
    summary = train.main(["--game", TOY, "--cards", "2", "--runs-dir", str(tmp_path / "runs"), "--exp-name", "toy",
                          "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "32", "--batch-size", "32",
                          "--n-epochs", "1", "--net-arch", "8", "--eval-every", "0", "--final-eval-games", "4",
                          "--workers", "1", "--no-progress-bar"])  # fmt: skip
    assert summary["timesteps"] == 128 and summary["behaviour_cloning"] is None
    assert set(summary["final_eval"]) == {"random", "high"}
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("duel-cards2__toy__0__")
    config = json.loads((run / "config.json").read_text())
    assert (config["game"], config["cards"], config["opponents"]) == (TOY, 2, "random=1")
    out = tmp_path / "eval"
    results = evaluate.main(["--game", TOY, "--cards", "2", "--agents", "high", "random", "--games", "6", "--out",
                             str(out), "--no-progress"])  # fmt: skip
    assert results["config"]["game"] == TOY and results["config"]["cards"] == 2
    assert [rung["a"] for rung in results["ladder"]] == ["high"]
    rows = [json.loads(line)["record"] for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(
        len(r["actions"]) == 4 and r["options"] == {"cards": 2, "max_rounds": 5} for r in rows
    )
    text = capsys.readouterr().out
    assert "high vs random" in text and "ladder: high over random" in text  # a tie is undecided (its turn limit)


def test_a_toy_game_s_run_resumes_with_its_game_named_again(tmp_path: Path) -> None:
    """A run of a game of one's own code resumes with `--game` named again; its config.json alone imports nothing."""
    flags = ["--n-envs", "2", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "8",
             "--eval-every", "0", "--final-eval-games", "0", "--workers", "1", "--no-progress-bar"]  # fmt: skip
    train.main(["--game", TOY, "--runs-dir", str(tmp_path), "--total-timesteps", "64", "--opponents",
                "random=1,pool=1", "--pool-every", "1", "--checkpoint-every", "64", *flags])  # fmt: skip
    (run,) = tmp_path.iterdir()
    done = subprocess.run([sys.executable, "-m", "experiments.train", "--resume", str(run), "--total-timesteps", "128"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"plays the game '{TOY}', which is not registered: name it on the command line with --game {TOY}" in (
        done.stderr)  # fmt: skip
    summary = train.main(["--resume", str(run), "--game", TOY, "--total-timesteps", "128"])
    assert summary["timesteps"] == 128 and [s["from_timesteps"] for s in summary["segments"]] == [0, 64]
    assert sorted(p.name for p in (run / "pool").iterdir()) == ["snapshot_0.npz", "snapshot_64.npz"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--game", TOY, "--cards", "9"], "--cards must be a whole number from 1 to 5, got 9"),
        (["--game", TOY, "--opponents", "heuristic=1"], "--opponents: unknown agent 'heuristic'; valid: random, high"),
        (["--cards", "2"], "unrecognized arguments: --cards 2"),
    ],
)
def test_a_game_s_flags_are_checked_as_its_own(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main([*argv, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert not list(tmp_path.iterdir())


def _circles(graph: dict[str, set[str]]) -> list[str]:
    """Each module that reaches itself through the imports of `graph`, with one path it takes."""

    def reach(start: str, at: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        for nxt in sorted(graph.get(at, ())):
            if nxt == start:
                return (*path, nxt)
            if nxt not in path and (found := reach(start, nxt, (*path, nxt))):
                return found
        return None

    return [" -> ".join(c) for name in sorted(graph) if (c := reach(name, name, (name,)))]


def test_the_experiments_import_one_another_without_circles() -> None:
    """The modules of experiments/ import one another in one direction (imports inside functions count; those
    only for type checking do not), so each job's module can be read, and reused, on its own."""
    folder = ROOT / "experiments"
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and ast.unparse(node.test) == "TYPE_CHECKING" for n in ast.walk(node)}  # fmt: skip
        names = [name for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                 and id(node) not in typing_only for name in _imports(node)]  # fmt: skip
        graph[path.stem] = {n.split(".")[1] for n in names if n.startswith("experiments.")} & {
            p.stem for p in folder.glob("*.py")}  # fmt: skip
    assert not _circles(graph), _circles(graph)
    assert not graph["cluster"] & {"evaluate", "matches"}  # it is handed the function that plays a job
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a -> b -> c -> a", "b -> c -> a -> b",
                                                                         "c -> a -> b -> c"]  # fmt: skip


def test_every_command_line_takes_the_game_and_its_flags(tmp_path: Path) -> None:
    """RLlib's training and the bench build their configs for the game named too: its option flags, its agents."""
    from experiments import bench
    from experiments import train_rllib
    from experiments.cli import parse
    from experiments.config import train_config_class

    cfg = parse(train_rllib.rllib_config_class(TOY), ["--game", TOY, "--cards", "4", "--out", str(tmp_path)], "x")
    assert cfg.opponents == ("random", "high", train_rllib.SELF) and cfg.cards == 4
    assert (
        train_rllib.options_fields(cfg) == {"cards": 4, "max_rounds": 5} and train_rllib.env_name(cfg) == "duel_rllib"
    )
    with pytest.raises(Exception, match="opponents: expected one or more of random, high, self"):
        train_rllib.RLlibConfig(game=TOY, opponents=("heuristic",))
    config = train_config_class(TOY, bench.BenchConfig)
    bench_cfg = parse(config, ["--game", TOY, "--cards", "2", "--timesteps", "64"], "x")
    assert (bench_cfg.cards, bench_cfg.timesteps, bench_cfg.opponents) == (2, 64, "random=1")
    default = train_rllib.RLlibConfig()
    assert default.game == games.DEFAULT and set(default.opponents) == {*games.game(games.DEFAULT).scripted_agents,
                                                                      train_rllib.SELF}  # fmt: skip


def test_rllib_runs_seat_the_learner_in_every_seat_of_the_game() -> None:
    """A Bin'Fa run of 4 players puts its learner in each of the four seats, as the episode ids fall, and every
    other seat to the episode's opponent (`train_rllib.pairing_of` over `GameRules.seats_of` the run's options)."""
    from experiments import train_rllib
    from experiments.cli import parse
    from experiments.game import options_of

    cfg = parse(train_rllib.rllib_config_class("binfa"), ["--game", "binfa", "--players", "4"], "x")
    seats = games.game("binfa").seats_of(options_of(cfg, "binfa"))
    assert seats == ("player_0", "player_1", "player_2", "player_3")
    drawn = [train_rllib.pairing_of(f"episode-{k}", cfg.opponents, seats) for k in range(200)]
    assert {seat for seat, _ in drawn} == set(seats)
    assert {opponent for _, opponent in drawn} == set(cfg.opponents)


@pytest.mark.parametrize("name", ["\n", "two words", "tab\there", 7, ""])
def test_a_file_naming_an_unknown_game_in_a_way_no_flag_can_gets_one_line_and_no_hint(name: object) -> None:
    """A file naming a game no flag could name (a control character, a space, not a string) is refused in one line
    that suggests no `--game`; a name a flag can give is suggested (the test above)."""
    from experiments.cli import UserError
    from experiments.game import saved_game

    with pytest.raises(UserError) as refused:
        saved_game(name, "a/summary.json")
    assert "\n" not in str(refused.value) and "--game" not in str(refused.value)
    assert str(refused.value).startswith("a/summary.json plays the game ")
