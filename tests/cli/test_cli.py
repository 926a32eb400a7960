"""The `mctslab` command, driven as a user would (through Typer's runner)."""

from __future__ import annotations

import contextlib
import errno
import gc
import inspect
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from mctslab.cli import _options as opt
from mctslab.cli import _records, main
from mctslab.cli._app import app
from mctslab.cli._thinking import Thinking
from mctslab.core.config import Budget
from mctslab.games import State, make
from mctslab.games.countdown import solve
from mctslab.players.random_player import RandomPlayer
from mctslab.records import load_record
from tests.conftest import OTHELLO_WHITE_MUST_PASS, load_data
from tests.core.tictactoe_minimax import move_values, position
from tests.ctrl_c import CtrlCInTheLoop
from tests.protocols.helpers import scripted

runner = CliRunner()
ENGINES = ["python", "compiled"]


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.output


def test_version_and_the_short_help_option() -> None:
    from mctslab import __version__

    assert run("--version") == (0, f"mctslab {__version__}\n")
    for args in (["-h"], ["play", "-h"]):
        code, output = run(*args)
        assert code == 0 and "Usage: mctslab" in output


def test_flags_show_no_value_to_give() -> None:
    # Typer showed "<bool>" beside --json, --quick, --ai-first and --help itself, as if
    # they took a value ("analyze --json true" is an error).
    for command in ("", "play", "analyze", "bench", "serve"):
        code, output = run(*command.split(), "--help")
        assert code == 0 and "<bool>" not in output, command


def test_the_terminal_alone_wraps_the_help_s_paragraphs() -> None:
    # Typer kept a docstring's line breaks after its first paragraph, and the terminal broke
    # those lines again: "... the AI plays both sides, or" alone on a line in play --help.
    for name, command in typer.main.get_command(app).commands.items():
        result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "300"})
        lines = [line.strip() for line in result.output.splitlines()]
        for paragraph in (inspect.getdoc(command.callback) or "").split("\n\n"):
            assert " ".join(paragraph.split()) in lines, (name, paragraph)


def run_json(*args: str) -> Any:
    """The JSON a command that succeeds prints on stdout, read; what it says on stderr (such
    as the first run's "Compiling the search engine...") is not part of it."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_command_has_help() -> None:
    code, output = run("--help")
    assert code == 0
    for command in ("play", "analyze", "numbers", "countdown"):
        assert command in output
        code, output_command = run(command, "--help")
        assert code == 0 and "--seed" in output_command


@pytest.mark.parametrize("engine", ENGINES)
def test_analyze_json_finds_the_winning_move(engine: str) -> None:
    # X holds a1 and b2, O holds a2 and b3: c3 completes X's diagonal at once.
    data = run_json(
        "analyze", "tictactoe", "--moves", "a1 a2 b2 b3", "--iterations", "2000",
        "--engine", engine, "--seed", "1", "--json",
    )  # fmt: skip
    assert data["best_move"] == "c3"
    assert {"best_move", "moves", "pv", "simulations", "sims_per_second"} <= set(data)
    assert data["pv"][0] == "c3"
    assert sum(m["visits"] for m in data["moves"]) <= data["simulations"] + 1
    assert all({"move", "visits", "value"} <= set(m) for m in data["moves"])


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_mb_caps_the_tree(engine: str) -> None:
    data = run_json(
        "analyze", "gomoku", "--size", "9", "--seconds", "60", "--memory-mb", "1",
        "--engine", engine, "--seed", "1", "--json",
    )  # fmt: skip
    assert data["stopped_by"] == "memory" and data["seconds"] < 60
    code, output = run(
        "analyze", "gomoku", "--size", "9", "--seconds", "60", "--memory-mb", "1",
        "--engine", engine, "--seed", "1",
    )  # fmt: skip
    assert code == 0 and "the tree filled --memory-mb" in output


def test_play_searches_within_the_memory_cap_and_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[Budget] = []

    def record(engine: str, config: object, budget: Budget, workers: int) -> None:
        budgets.append(budget)
        raise typer.Exit(0)

    monkeypatch.setattr(opt, "mcts_player", record)
    assert run("play", "tictactoe", "--memory-mb", "64")[0] == 0
    assert run("play", "tictactoe", "--memory-mb", "64", "--iterations", "500")[0] == 0
    assert budgets == [Budget(seconds=1.0, memory_mb=64), Budget(iterations=500, memory_mb=64)]
    assert "'--memory-mb'" in run("play", "tictactoe", "--memory-mb", "0.5")[1]


def test_analyze_shows_the_start_of_a_long_principal_variation() -> None:
    args = ["analyze", "countdown", "--start", "1000", "--iterations", "2000", "--seed", "1"]
    pv = run_json(*args, "--json")["pv"]
    assert len(pv) > 20  # deep down, countdown's line is nearly random: not worth a screen
    code, output = run(*args)
    shown = " ".join(pv[:20]) + f" … ({len(pv) - 20} more)"
    assert code == 0 and f"principal variation: {shown}" in " ".join(output.split())


def test_ctrl_c_during_the_first_compile_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # numba answers an interrupted compile with a RuntimeError of its own ("no compiled
    # object yet"); before, a 74-frame traceback. Any other compile error still propagates.
    from mctslab import fast

    def interrupted_compile() -> None:
        with contextlib.suppress(KeyboardInterrupt):  # numba swallows it, then fails
            os.kill(os.getpid(), signal.SIGINT)
        raise RuntimeError("no compiled object yet for <Library '_unlink'>")

    monkeypatch.setattr(fast, "is_warm", lambda: False)
    monkeypatch.setattr(fast, "warm_up", interrupted_compile)
    result = runner.invoke(app, ["analyze", "tictactoe", "--iterations", "10"])
    assert result.exit_code == 130 and result.output.splitlines()[-1] == "Interrupted."
    assert result.exception is None or isinstance(result.exception, SystemExit)

    def broken_compile() -> None:
        raise RuntimeError("a real compile error")

    monkeypatch.setattr(fast, "warm_up", broken_compile)
    result = runner.invoke(app, ["analyze", "tictactoe", "--iterations", "10"])
    assert isinstance(result.exception, RuntimeError)


def test_more_workers_than_cpus_get_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mctslab.cli._options.os.cpu_count", lambda: 1)
    code, output = run("analyze", "tictactoe", "--workers", "2", "--iterations", "200")
    assert code == 0 and "Note: 2 workers on 1 CPU: they share the CPUs" in output
    code, output = run("analyze", "tictactoe", "--workers", "2", "--engine", "python")
    assert code == 2 and "Note:" not in output  # refused workers need no note
    # Both ways out are named (before: only "use --engine compiled").
    assert "use --engine compiled or --workers 1." in " ".join(output.split())
    monkeypatch.setattr("mctslab.cli._options.os.cpu_count", lambda: 2)
    code, output = run("analyze", "tictactoe", "--workers", "2", "--iterations", "200")
    assert code == 0 and "Note:" not in output


def test_analyze_sets_the_numbers_games_turns_and_goal() -> None:
    def after(state: State, move: int) -> State:
        state = state.clone()
        state.apply(move)
        return state

    def best_reward(state: State) -> float:  # brute force over the 4**turns lines
        if state.is_terminal():
            return float(state.returns()[0])
        return max(best_reward(after(state, move)) for move in state.legal_moves())

    start = make("numbers", turns=3, goal=5)
    args = ["analyze", "numbers", "--turns", "3", "--goal", "5", "--iterations", "3000"]
    chosen = after(start, start.parse_move(run_json(*args, "--seed", "1", "--json")["best_move"]))
    assert best_reward(chosen) == best_reward(start) == 1.0  # 5 exactly: +6 -4 +3, +9 -6 +2
    code, output = run("analyze", "numbers", "--turns", "3", "--goal", "5", "--iterations", "10")
    assert code == 0 and "Numbers game, 3 turns, goal 5" in output


def test_analyze_table_output() -> None:
    # The table shows the search --json reports for the same seeded search, row by row.
    args = ("analyze", "connect4", "--iterations", "500", "--engine", "python", "--seed", "1")
    data = run_json(*args, "--json")
    code, output = run(*args)
    assert code == 0, output
    text = " ".join(output.split())
    assert f"X to move: best {data['best_move']}, value {data['value']:.1%}" in text
    assert f"principal variation: {' '.join(data['pv'])}" in text
    rows = [line.strip("│ ").split(" │ ") for line in output.splitlines() if line.startswith("│")]
    visits = sum(m["visits"] for m in data["moves"])  # a move's share is of the moves' visits
    assert [[cell.strip() for cell in row] for row in rows] == [
        [m["move"], f"{m['visits']:,}", f"{m['visits'] / visits:.1%}", f"{m['value']:.1%}"]
        for m in data["moves"]
    ]


def test_analyze_table_says_which_moves_are_proven() -> None:
    # O must block at c1, which draws; every other move loses (brute force: move_values).
    code, output = run("analyze", "tictactoe", "--moves", "a1 b2 b1", "--top", "9", "--seed", "1")
    assert code == 0, output
    rows = {line.split()[1]: line.split() for line in output.splitlines() if line.startswith("│")}
    assert "proven" in output
    truth = {1.0: "win", 0.0: "draw", -1.0: "loss"}
    values = move_values(position("a1 b2 b1"))
    assert {move: rows[move][-2] for move in rows} == {m: truth[v] for m, v in values.items()}
    # The summary says the root's proof, not a win rate that could be an estimate.
    assert "O to move: best c1, a proven draw (" in " ".join(output.split())
    code, output = run("analyze", "connect4", "--iterations", "500", "--seed", "1")
    assert code == 0 and "proven" not in output  # no column where nothing is proven


@pytest.mark.parametrize("line", ["", "b2"])
def test_analyze_proves_a_drawn_position_where_play_would_not(line: str) -> None:
    # Tic-tac-toe is a draw (brute force: move_values). analyze proves drawn
    # positions (prove_draws): the start in about 6,200 simulations, after b2
    # in about 1,200; with --no-prove-draws, as the players search, neither
    # is proven in 200,000 (the drawn moves take nearly every visit).
    args = ["analyze", "tictactoe", "--iterations", "200000", "--seed", "0", "--json"]
    args += ["--moves", line] if line else []
    data = run_json(*args)
    assert data["stopped_by"] == "proven" and data["value"] == 0.5 and data["proven"] == "draw"
    truth = {1.0: "win", 0.0: "draw", -1.0: "loss"}
    values = move_values(position(line))
    assert {m["move"]: m["proven"] for m in data["moves"]} == {
        move: truth[value] for move, value in values.items()
    }
    assert data["simulations"] < 7_000
    played = run_json(*args, "--no-prove-draws")
    assert played["stopped_by"] == "iterations" and played["simulations"] == 200_000
    assert played["proven"] is None


def test_analyze_draws_a_compact_board_in_a_narrow_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the 15x15 board was 51 columns wide in any terminal.
    monkeypatch.setenv("COLUMNS", "40")  # the terminal's width, as Rich reads it
    code, output = run(
        "analyze", "gomoku", "--moves", "h8", "--iterations", "10", "--engine", "python"
    )
    assert code == 0, output
    state = make("gomoku")
    state.play("h8")
    assert state.render(width=40) in output and str(state) not in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "chess"], "Unknown game 'chess'; choose numbers, countdown, gomoku,"),
        # A command names the games it plays (before: every game, numbers for play and gtp).
        (["play", "chess"], "Unknown game 'chess'; choose countdown, gomoku, othello,"),
        (["gtp", "chess"], "GTP is offered for the board games gomoku, othello, connect4,"),
        # Before the game's options, which numbers has not (it said "--size: not an option").
        (["gtp", "numbers", "--size", "9"], "GTP is offered for the board games gomoku,"),
        (["analyze", "gomoku", "--size", "40"], "The 'size' parameter of gomoku"),
        (["analyze", "gomoku", "--size", "3"], "must be an int in [5, 19]"),
        (["analyze", "gomoku", "--size", "7", "--k", "9"], "The 'k' parameter of gomoku"),
        (["analyze", "othello", "--k", "4"], "--k: not an option of othello; its options: none."),
        # In the command line's terms: numbers' "moves" parameter has no option (before,
        # "accepted: turns, moves, goal", though --moves is the moves played).
        (
            ["analyze", "numbers", "--start", "4"],
            "--start: not an option of numbers; its options: --turns, --goal.",
        ),
        (["analyze", "tictactoe", "--moves", "b2 b2"], "--moves: move 2 ('b2'): 'b2' is not legal"),
        (["analyze", "tictactoe", "--moves", "q7"], "is not a move in tictactoe notation"),
        (["analyze", "tictactoe", "--iterations", "0"], "'--iterations'"),
        (
            ["analyze", "tictactoe", "--seconds", "0"],
            "'--seconds': must be a finite number more than 0",
        ),
        (["analyze", "tictactoe", "--c", "-1"], "'--c'"),
        (["analyze", "tictactoe", "--engine", "gpu"], "choose compiled or python; got 'gpu'"),
        (["analyze", "tictactoe", "--moves", "a1 a2 b1 b2 c1"], "the game is already over"),
        (
            ["analyze", "numbers", "--moves", "+20 -18 +16 -14 +12 -10 +8 -6 +4 -2"],
            "the game is already over (all turns played; value 10",
        ),
        (["analyze", "tictactoe", "--top", "0"], "--top"),
        (["analyze", "tictactoe", "--workers", "0"], "--workers"),
        # 100 workers on 2 CPUs ran past a minute with the load average at 52.
        (
            ["analyze", "tictactoe", "--workers", str(opt.MAX_WORKERS + 1)],
            f"'--workers': must be a whole number at least 1 and at most {opt.MAX_WORKERS:,}; "
            f"got {opt.MAX_WORKERS + 1}.",
        ),
        (["play", "numbers"], "numbers is a one-player game: 'mctslab numbers' plays it."),
        # Rich would read "[a1]" as markup and print nothing of it.
        (["analyze", "tictactoe", "--moves", "[a1]"], "'[a1]' is not a move"),
        (["play", "tictactoe", "--opponent", "naive"], "The naive player plays gomoku only"),
        (
            ["play", "gomoku", "--width", "9", "--height", "7", "--opponent", "engine:gtp=cat"],
            "GTP boards are square; this gomoku board is 9x7",
        ),
        (["countdown", "--max", "1000001"], "--max must be from 1 to 1000000. Got 1000001"),
        # Every command's search limits are checked where they are read, naming the option.
        (["analyze", "tictactoe", "--seconds", "inf"], "'--seconds': must be a finite number"),
        (["analyze", "tictactoe", "--c", "inf"], "'--c': must be a finite number"),
        (["numbers", "--c", "-1"], "'--c': must be a finite number at least 0"),
        (["play", "tictactoe", "--seconds", "0"], "'--seconds': must be a finite number more"),
        (["play", "tictactoe", "--iterations", "0"], "'--iterations'"),
        (["play", "tictactoe", "--memory-mb", "0.5"], "'--memory-mb': must be a finite number"),
        (["play", "tictactoe", "--memory-mb", "2", "--workers", "4"], "each of the 4 workers"),
        (["countdown", "--iterations", "0"], "'--iterations'"),
        # A controller's boardsize N makes N x N: the engine refuses what it cannot keep.
        (["gtp", "gomoku", "--width", "9", "--height", "7"], "GTP boards are square; this gomoku"),
        (["gtp", "othello", "--seconds", "0"], "'--seconds': must be a finite number more"),
        (["gtp", "othello", "--iterations", "0"], "'--iterations'"),
        (["nboard", "--seconds", "-2"], "'--seconds': must be a finite number more"),
        (["nboard", "--iterations", "0"], "'--iterations'"),
        (["brain", "--seconds", "nan"], "'--seconds': must be a finite number more"),
        (["brain", "--c", "-0.1"], "'--c': must be a finite number at least 0"),
        (["numbers", "--levels", "0"], "'--levels'"),
        (["numbers", "--num-sims", "0"], "'--num-sims'"),
        (["numbers", "--policy", "foo"], "'--policy': choose uct or coinflip; got 'foo'"),
        (["analyze", "tictactoe", "--seed", "-1"], "'--seed'"),
        (["analyze", "tictactoe", "--seed", str(2**64)], "'--seed'"),
        (["arena", "tictactoe", "-p", "random", "-p", "random", "--seed", "-1"], "'--seed'"),
    ],
)
def test_bad_input_gets_a_clear_error(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a command that wrongly got going writes its files here
    code, output = run(*args)
    assert code == 2
    assert message in output


def test_a_memory_cap_beyond_this_machine_is_refused() -> None:
    code, output = run("play", "tictactoe", "--memory-mb", "1e12")
    assert code == 2 and "'--memory-mb': must be a finite number at least 1 and at most" in output


def test_countdown_json_rows_match_the_solver() -> None:
    rows = run_json(
        "countdown", "--max", "12", "--iterations", "3000", "--engine", "python",
        "--seed", "3", "--json",
    )  # fmt: skip
    truth = solve(12)
    assert [row["start"] for row in rows] == list(range(1, 13))
    for row in rows:
        solution = truth[row["start"]]
        # Before, "best_move" (and the table's "AI says") did not say what the number counts.
        assert {"start", "numbers_to_say", "win_rate", "correct"} <= set(row)
        assert row["correct"] == (
            row["numbers_to_say"] - 1 in solution.winning_moves or not solution.wins
        )
        assert 0.0 <= row["win_rate"] <= 1.0
    # Starts 1-3 are won at once by saying every number down to 1.
    assert [row["numbers_to_say"] for row in rows[:3]] == [1, 2, 3]
    assert all(row["correct"] for row in rows[:3])


@pytest.mark.parametrize(
    ("game", "moves", "played"),
    [
        ("othello", "f5d6c3", "f5 d6 c3"),  # compact
        ("othello", "f5,d6,c3", "f5 d6 c3"),
        # A forced pass left out: after c1 Black has no move.
        ("othello", "d3 c3 e6 d2 d1 e1 b2 c1 d6", "d3 c3 e6 d2 d1 e1 b2 c1 pass d6"),
        ("gomoku", "7,7 8,8", "h8 i7"),  # Gomocup x,y: y counts rows from the top
        ("gomoku", "h8,i9", "h8 i9"),
    ],
)
def test_moves_take_record_notation(
    game: str, moves: str, played: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The position analysed is the one the moves, one at a time in the game's own notation,
    # lead to: its board is drawn as the game draws it (wide enough for the 15x15 board).
    state = make(game)
    for move in played.split():
        state.play(move)
    monkeypatch.setenv("COLUMNS", "120")
    code, output = run(
        "analyze", game, "--moves", moves, "--iterations", "200", "--engine", "python"
    )
    assert code == 0, output
    assert str(state) in output
    assert "(200 simulations in " in " ".join(output.split())


def numbers_json(*args: str) -> Any:
    """``mctslab numbers ARGS --json``, read."""
    return run_json("numbers", *args, "--json")


def test_numbers_says_when_a_level_stopped_at_the_visit_cap() -> None:
    # Past 40 turns rewards count in 1/4096 steps: the tree's sums cap a level at 2**20 - 1
    # visits (docs/decisions.md), fewer than the 3,000,000 asked for.
    data = numbers_json("--turns", "50", "--num-sims", "3000000", "--levels", "1", "--seed", "1")
    level = data["levels"][0]
    assert level["stopped_by"] == "visits" and level["simulations"] == 2**20 - 1


def test_numbers_levels_and_budgets() -> None:
    data = numbers_json("--num-sims", "120", "--levels", "3", "--engine", "python", "--seed", "2")
    assert [level["simulations"] for level in data["levels"]] == [120, 60, 40]
    for index, level in enumerate(data["levels"]):
        assert len(level["children"]) == 4
        assert all(len(child["moves"]) == index + 1 for child in level["children"])
        turn = 10 - index
        assert sorted(int(child["move"]) for child in level["children"]) == sorted(
            m * turn for m in (2, -2, 3, -3)
        )
    # Each level continues from the best child of the last.
    for before, after in zip(data["levels"], data["levels"][1:], strict=False):
        assert after["children"][0]["moves"][:-1] == before["best"]["moves"]
    assert data["final"]["moves"] == data["levels"][-1]["best"]["moves"]


@pytest.mark.parametrize("engine", ENGINES)
def test_numbers_spreads_the_first_levels_visits(engine: str) -> None:
    # The classic example's UCB1 visits every child; UCB1-Tuned, at the coin-flip
    # constant of 1/(2 sqrt 2) used before, had given one child 96-99% of the visits.
    for seed in ("1", "2", "3"):
        data = numbers_json(
            "--num-sims", "1000", "--levels", "1", "--engine", engine, "--seed", seed
        )
        visits = [child["visits"] for child in data["levels"][0]["children"]]
        assert max(visits) < 0.6 * sum(visits), visits


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("policy", "order"), [("coinflip", ("mean", "visits")), ("uct", ("visits", "mean"))]
)
def test_numbers_plays_the_child_its_policy_names(
    engine: str, policy: str, order: tuple[str, str]
) -> None:
    # The classic example plays the child of highest mean (BESTCHILD(root, 0)); before, its
    # coin-flip policy here played the most visited child, as UCT does.
    for seed in ("1", "2"):
        data = numbers_json(
            "--num-sims", "200", "--levels", "6", "--policy", policy, "--engine", engine,
            "--seed", seed,
        )  # fmt: skip
        for level in data["levels"]:
            best = max(level["children"], key=lambda child: (child[order[0]], child[order[1]]))
            assert level["best"]["move"] == best["move"], level


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--tree", "/no/such/folder/t.svg"], "there is no folder /no/such/folder"),
        (["--tree", "t.txt"], "must end in .svg, .png, .pdf, .dot"),
        (["--tree-depth", "0"], "--tree-depth"),
        (["--tree-top", "0"], "--tree-top"),
        (["--tree-nodes", "0"], "--tree-nodes"),
    ],
)
def test_numbers_refuses_a_bad_tree_request(options: list[str], message: str) -> None:
    code, output = run("numbers", "--num-sims", "10", *options)
    assert code == 2 and message in output, output


@pytest.mark.parametrize("where", ["folder", "dot_folder"])
def test_numbers_checks_the_tree_files_before_searching(tmp_path: Path, where: str) -> None:
    # Before, a tree file that could not be written failed only after the search (which can
    # be long), and a folder in the picture's place ended in graphviz's traceback.
    (tmp_path / ("tree.svg" if where == "folder" else "tree.dot")).mkdir()
    tree = tmp_path / "tree.svg"
    code, output = run("numbers", "--num-sims", "10", "--engine", "python", "--tree", str(tree))
    assert code == 2, output
    written = tree if where == "folder" else tree.with_suffix(".dot")
    assert f"cannot write the search tree {written}: Is a directory." in output
    assert "level 0" not in output


def test_numbers_checks_the_graphviz_package_before_searching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a missing viz extra was found only when the tree was drawn, after the search.
    monkeypatch.setitem(sys.modules, "graphviz", None)  # importing it now fails
    players: list[Any] = []
    monkeypatch.setattr(opt, "mcts_player", lambda *args: players.append(args))
    tree = tmp_path / "tree.svg"
    code, output = run("numbers", "--num-sims", "10", "--engine", "python", "--tree", str(tree))
    assert code == 2, output
    assert f"--tree {tree}: Drawing trees needs the graphviz package; " in output
    # The README's command: mctslab is not on PyPI ("pip install 'mctslab[viz]'" before).
    assert "in the clone of mctslab: .venv/bin/pip install -e '.[viz]'" in output
    assert players == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_numbers_prints_children_and_best(tmp_path: Path, engine: str) -> None:
    tree = tmp_path / "tree.svg"
    code, output = run(
        "numbers", "--num-sims", "100", "--levels", "2", "--engine", engine, "--seed", "1",
        "--tree", str(tree),
    )  # fmt: skip
    assert code == 0, output
    assert "level 0: 4 children, 100 simulations\n" in output and "Best child:" in output
    # Level 1's children hold level 0's visits too, more than its 50 simulations: said.
    assert "level 1: 4 children, 50 simulations (visits include those of earlier levels" in output
    dot = tmp_path / "tree.dot"
    assert dot.exists() and "digraph" in dot.read_text()
    # The root and its four children, each labelled with its visits.
    assert dot.read_text().count("visits") >= 5
    if shutil.which("dot"):
        assert tree.exists() and "<svg" in tree.read_text()


def test_numbers_tree_help_names_every_file_it_takes() -> None:
    # Before, it named FILE.svg/.png/.pdf, though FILE.dot is taken too.
    numbers = typer.main.get_command(app).commands["numbers"]  # type: ignore[attr-defined]
    help_text = next(param.help for param in numbers.params if param.name == "tree")
    assert all(f"FILE{suffix}" in help_text for suffix in (".svg", ".dot"))


def test_numbers_draws_at_most_tree_nodes_positions_and_says_so(tmp_path: Path) -> None:
    # Before, --tree-depth 7 drew this 4,003-node tree as 18,778 boxes (1,041,042 at depth
    # 10): each position the compiled engine shares among move orders was copied under each.
    dot = tmp_path / "deep.dot"
    code, output = run(
        "numbers", "--num-sims", "3000", "--levels", "1", "--seed", "1", "--tree", str(dot),
        "--tree-depth", "7",
    )  # fmt: skip
    assert code == 0, output
    assert f"Search tree written to {dot}: the 100 most visited positions (--tree-nodes)" in output
    assert dot.read_text().count('[label="visits ') == 99  # and the root's box
    assert "the 100 most visited positions (--tree-nodes)" in dot.read_text()


def test_numbers_says_tree_nodes_cut_the_drawing_only_when_it_did(tmp_path: Path) -> None:
    # This tree's snapshot holds 77 positions. Before, --tree-nodes 77 said "the 77 most
    # visited positions (--tree-nodes)" of a drawing that left none out.
    dot = tmp_path / "tree.dot"
    for cap, said in (
        ("77", "77 positions"),
        ("76", "the 76 most visited positions (--tree-nodes)"),
    ):
        code, output = run(
            "numbers", "--num-sims", "1000", "--levels", "1", "--seed", "1", "--tree", str(dot),
            "--tree-nodes", cap,
        )  # fmt: skip
        assert code == 0, output
        assert f"Search tree written to {dot}: {said}\n" in output
        assert ("(--tree-nodes)" in dot.read_text()) == (cap == "76")


def test_ctrl_c_stops_numbers_after_the_levels_decided(monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine answers Ctrl-C by returning its best move so far; before, the command then
    # went on to the next level with a fresh budget, so a long run could not be stopped.
    searches: list[object] = []

    def ctrl_c_in_level_1(self: Thinking, result: object) -> None:
        searches.append(result)
        if "Level 1" in self._who and not any(isinstance(s, str) for s in searches):
            searches.append("interrupted")
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Thinking, "__call__", ctrl_c_in_level_1)
    code, output = run(
        "numbers", "--num-sims", "40000", "--levels", "3", "--engine", "python", "--seed", "1"
    )
    assert "interrupted" in searches, output
    assert code == 130, output
    assert "level 0: 4 children, 40,000 simulations" in output and "level 1:" not in output
    assert output.splitlines()[-1] == "Interrupted at level 1."
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_in_a_compiled_search_stops_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, Ctrl-C now and then landed in numba's dispatcher as it converted the compiled
    # loop's function arguments, and the command ended in numba's TypeError (status 1)
    # instead of "Interrupted at level N." (tests/fast/test_budget.py sends it at every
    # point of such a call). Here it is sent at points spread over level 1's first call.
    level_1 = False
    ctrl_c = CtrlCInTheLoop(monkeypatch, lambda: level_1)
    enter = Thinking.__enter__

    def start_level(self: Thinking) -> Thinking:
        nonlocal level_1
        level_1 = level_1 or self._who == "Level 1"
        return enter(self)

    monkeypatch.setattr(Thinking, "__enter__", start_level)
    numbers = ["numbers", "--num-sims", "2000", "--levels", "3", "--seed", "1"]
    assert run(*numbers)[0] == 0
    made = ctrl_c.calls
    for send_at in range(1, made + 1, made // 20):
        ctrl_c.again(send_at)
        level_1 = False
        code, output = run(*numbers)
        assert (code, output.splitlines()[-1]) == (130, "Interrupted at level 1."), (
            send_at,
            output,
        )
        assert "level 0: 4 children" in output and "level 1:" not in output
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_stops_countdown_with_the_starts_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from mctslab.players.mcts import MCTSPlayer

    analyse = MCTSPlayer.analyse
    calls: list[int] = []

    def ctrl_c_in_the_second_search(self: MCTSPlayer, state: State, **options: Any) -> Any:
        calls.append(1)

        def progress(result: object) -> None:
            if len(calls) == 2:
                calls.append(2)
                os.kill(os.getpid(), signal.SIGINT)

        return analyse(self, state, progress=progress)

    monkeypatch.setattr(MCTSPlayer, "analyse", ctrl_c_in_the_second_search)
    code, output = run(
        "countdown", "--max", "8", "--iterations", "100000", "--engine", "python", "--seed", "1"
    )
    assert code == 130, output
    assert len(calls) == 3  # two searches, the second one interrupted
    assert "1 of 1 starts right." in output
    assert output.splitlines()[-1] == "Interrupted: 1 of 8 starts checked."


@pytest.mark.parametrize("given", [(), ("--moves", "b2 a1")])
def test_play_ai_vs_ai_to_the_end(given: tuple[str, ...]) -> None:
    code, output = run(
        "play", "tictactoe", *given, "--ai-vs-ai", "--iterations", "3000", "--engine", "python",
        "--seed", "5",
    )  # fmt: skip
    assert code == 0, output
    # Perfect play from both sides of tic-tac-toe is a draw; 3000 simulations find it.
    # The count and the list include the moves given before the game.
    assert "Result: draw (board full) after 9 moves." in output
    if given:
        assert "Last move: O a1" in output  # shown before the first search
        assert "Moves: b2 a1 " in output


def test_a_proven_move_says_so_rather_than_a_speed() -> None:
    # X holds a1, c1 and c3 (b1 and c2 both win), O to move: O is lost and X wins at once.
    # Before, such moves read "0 simulations, 0/s" or "1 simulation, 5/s".
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--moves", "a1 b2 c3 a3 c1", "--iterations", "2000",
        "--seed", "3",
    )  # fmt: skip
    assert code == 0, output
    assert "(proven: every move loses, after " in output
    assert "(a proven win, no search needed)" in output and "/s)" not in output


@pytest.mark.parametrize(
    ("opponent", "sides"),
    [([], "both sides"), (["--opponent", "random"], "against the --opponent")],
)
def test_play_without_a_terminal_lets_the_ai_play_both_sides(
    opponent: list[str], sides: str
) -> None:
    # A notice, on stderr (stdout is the game), once the players are known: before it
    # was on stdout and said "both sides" with a random player on one of them.
    args = ["play", "connect4", "--iterations", "200", "--engine", "python", *opponent]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stderr == f"No terminal to read moves from: the AI plays {sides}.\n"
    assert "Result:" in result.stdout


def test_save_refuses_a_file_that_is_not_a_record_and_saves_over_a_record(
    tmp_path: Path,
) -> None:
    # Before, --save notes.md replaced the notes with a game record, unasked.
    notes = tmp_path / "notes.md"
    notes.write_text("important notes\n")
    game = ["play", "connect4", "--ai-vs-ai", "--iterations", "50", "--engine", "python"]
    code, output = run(*game, "--save", str(notes))
    assert code == 2 and f"{notes} is there and is not a game record" in output
    assert notes.read_text() == "important notes\n"
    # A record is saved over: a game continued from it (--load) goes back to it.
    record = tmp_path / "game.txt"
    assert run(*game, "--save", str(record))[0] == 0
    code, output = run(*game[:1], "--load", str(record), *game[2:], "--save", str(record))
    assert code == 0, output
    assert load_record(record.read_text()).game == "connect4"


def test_save_and_resign_at_the_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: both were "not a move in tictactoe notation"; a game was saved only at its end.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    (tmp_path / "notes.md").write_text("important notes\n")
    keys = [
        "a1",
        "save",  # to --save's file
        f"save {tmp_path / 'later' / 'mid.txt'}",
        f"save {tmp_path / 'afile' / 'x.txt'}",  # refused, and the game goes on
        f"save {tmp_path / 'notes.md'}",  # not a record: refused too
        "resign",
    ]
    code, output = run(
        "play", "tictactoe", "--iterations", "300", "--engine", "python", "--seed", "1",
        "--save", str(tmp_path / "end.txt"), input="\n".join(keys) + "\n",
    )  # fmt: skip
    assert code == 0, output
    text = " ".join(output.split())
    assert "save [FILE] (the game so far), resign, quit" in text
    # A line that names a file is one line, however long the path (the terminal wraps it).
    assert f"cannot write the game record {tmp_path / 'afile' / 'x.txt'}: " in output
    assert f"Game record saved to {tmp_path / 'later' / 'mid.txt'}." in output
    assert f"{tmp_path / 'notes.md'} is there and is not a game record; it is not" in output
    assert (tmp_path / "notes.md").read_text() == "important notes\n"
    assert "You resign." in text and "Game stopped." not in text
    assert "O (the AI) wins (X resigned) after 2 moves." in text
    # "save" with no file wrote to --save's file mid-game; the end wrote it again.
    assert load_record((tmp_path / "later" / "mid.txt").read_text()).notation()[0] == "a1"
    end = load_record((tmp_path / "end.txt").read_text())
    assert len(end.notation()) == 2 and end.tags["Result"] == "0-1"
    assert not (tmp_path / "mctslab-tictactoe.txt").exists()


def test_save_at_the_prompt_without_save_names_a_file_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    monkeypatch.chdir(tmp_path)
    code, output = run(
        "play", "tictactoe", "--iterations", "300", "--engine", "python", "--seed", "1",
        input="b2\nsave\nquit\n",
    )  # fmt: skip
    assert code == 0, output
    assert "Game record saved to mctslab-tictactoe.txt." in output
    assert load_record((tmp_path / "mctslab-tictactoe.txt").read_text()).notation()[0] == "b2"


def test_play_human_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    script = "\n".join(
        ["help", "zz", "[/x]", "a1", "undo", "moves", "hint", "b2", "b2", "quit"]
    )  # bad text (one Rich would read as markup), a move, undo, a move, an occupied cell, quit
    code, output = run(
        "play", "tictactoe", "--iterations", "500", "--engine", "python", "--seed", "1",
        input=script + "\n",
    )  # fmt: skip
    assert code == 0, output
    assert "'zz' is not a move in tictactoe notation" in output
    assert "'[/x]' is not a move" in output
    assert "Legal moves:" in output
    # Ranked by their share of the search, which it says: before, only the win rates were
    # shown ("c5 (45%), d6 (47%), d4 (48%)"), which looked ranked upside down.
    hint = re.search(r"The AI suggests, best first: (.*?\))\.", " ".join(output.split()))
    assert hint is not None, output
    shares = [
        int(share) for share in re.findall(r"\w+ \((\d+)% of the search, win rate \d+%\)", hint[1])
    ]
    assert len(shares) == 3 and shares == sorted(shares, reverse=True), hint[1]
    assert "'b2' is not legal for X" in output
    assert "Game stopped." in output and "Result: unfinished after 2 moves." in output
    # The AI answered a1 and then b2; undo took back a1 and the AI's answer.
    moves = output.split("Moves: ")[-1].splitlines()[0].split()
    assert len(moves) == 2 and moves[0] == "b2"


@pytest.mark.parametrize(
    ("engine", "workers", "script"),
    [
        ("python", 1, None),
        ("compiled", 1, None),
        ("compiled", 2, None),
        ("compiled", 1, "hint\nd4\n"),  # Ctrl-C during a hint, the person to move
    ],
)
def test_ctrl_c_while_the_ai_thinks_stops_the_game(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    engine: str,
    workers: int,
    script: str | None,
) -> None:
    # The engines answer Ctrl-C by returning their best move so far; play must stop
    # anyway, as Ctrl-C at the prompt does (before, it played that move and went on:
    # an AI-against-AI game could not be stopped).
    if script is not None:
        monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    searches: list[object] = []

    def ctrl_c_once(self: Thinking, result: object) -> None:
        if not searches:
            searches.append(result)
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Thinking, "__call__", ctrl_c_once)
    saved = tmp_path / "stopped.txt"
    code, output = run(
        "play", "gomoku", "--size", "8", *(["--ai-vs-ai"] if script is None else []),
        "--seconds", "2", "--engine", engine, "--workers", str(workers), "--save", str(saved),
        input=script,
    )  # fmt: skip
    assert code == 0, output
    assert searches and "The AI suggests" not in output
    assert "Game stopped." in output and "Result: unfinished after 0 moves." in output
    assert "Game record saved to" in output and load_record(saved.read_text()).moves == ()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_forced_pass_is_played_for_the_person_and_said_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the person had to guess "pass" (b1 was refused: "legal moves: pass"),
    # and the pass was then reported twice under the board.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    code, output = run(
        "play", "othello", "--moves", OTHELLO_WHITE_MUST_PASS, "--ai-first", "--iterations",
        "200", "--engine", "python", "--seed", "1", input="quit\n",
    )  # fmt: skip
    assert code == 0, output
    passed = output.split("White has no legal move and passes.")
    assert len(passed) == 2 and "Your move:" not in passed[0]
    assert "(last move: pass by White)" in passed[1] and "Last move: White pass" not in output
    assert "f1 a2 pass " in " ".join(output.split("Moves: ")[1].split())


def test_othellos_move_help_leaves_out_the_pass_played_for_the_person(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the help said '"pass" when forced', though a forced pass is played for the
    # person and the prompt only ever asks one who has a placement.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    code, output = run("play", "othello", "--iterations", "10", input="help\nquit\n")
    assert code == 0, output
    text = " ".join(output.split())
    help_text = "Type a move (column a-h then row 1-8 counted from the top, e.g. f5), or a"
    assert text.count(help_text) == 2 and "pass" not in text  # the greeting's and help's


@pytest.mark.parametrize(("columns", "compact"), [(40, True), (51, False)])
def test_play_draws_a_compact_board_where_the_normal_one_does_not_fit(
    monkeypatch: pytest.MonkeyPatch, columns: int, compact: bool
) -> None:
    # Before, a 15x15 board was 51 columns wide whatever the terminal: in 40 columns every
    # row wrapped onto a second line.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", str(columns))  # the terminal's width, as Rich reads it
    code, output = run(
        "play", "gomoku", "--moves", "h8", "--iterations", "10", "--engine", "python",
        "--seed", "1", input="quit\n",
    )  # fmt: skip
    assert code == 0, output
    moves = output.split("Moves: ")[1].splitlines()[0].split()
    state = make("gomoku")
    for move in moves:
        state.play(move)
    board = state.render(width=columns)
    assert board in output and board.startswith("   a b c" if compact else "    a  b  c")
    assert "[O]" in board


def test_the_ais_forced_pass_is_played_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "AI (White) plays pass" after a whole search of the one possible move.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    code, output = run(
        "play", "othello", "--moves", OTHELLO_WHITE_MUST_PASS, "--iterations", "200",
        "--engine", "python", "--seed", "1", input="quit\n",
    )  # fmt: skip
    assert code == 0, output
    assert "White has no legal move and passes." in output and "plays pass" not in output


def test_othellos_result_reads_cleanly_with_the_winners_discs_first() -> None:
    # Before: "White wins (wipe-out (0-59))", the loser's count first, in nested brackets.
    moves = load_data("othello.json")["many_passes_game"]["moves"]
    code, output = run("play", "othello", "--moves", moves, "--iterations", "10")
    assert code == 0, output
    assert "Game over: White wins with a wipe-out, 59 to 0." in output
    assert "Result: White wins (a wipe-out, 59 to 0) after " in output


def test_countdown_says_who_wins_and_what_was_said(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the help never said who wins, and "Last move: Player 1 2" repeated the board.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    code, output = run(
        "play", "countdown", "--start", "10", "--iterations", "100", "--engine", "python",
        input="2\nquit\n",
    )  # fmt: skip
    assert code == 0, output
    assert "whoever says 1 wins" in " ".join(output.split())
    assert "Player 1 said 10, 9." in output and "Last move:" not in output


def test_play_human_wins_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    # Starting from a position where X wins at once, the person finishes it.
    code, output = run(
        "play", "tictactoe", "--moves", "a1 a2 b2 b3", "--iterations", "50", "--engine",
        "python", input="c3\n",
    )  # fmt: skip
    assert code == 0, output
    assert "X (you) wins (three in a row)" in output


def test_play_against_another_player() -> None:
    # mctslab's AI (X, first) against a random mover: the record names both sides.
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--opponent", "random", "--iterations", "2000",
        "--engine", "python", "--seed", "4",
    )  # fmt: skip
    assert code == 0, output
    assert "random plays" in output and "AI (X) plays" in output
    assert "AI (O) plays" not in output
    assert "Result:" in output and "O wins" not in output  # a random mover never beats it here


def test_play_against_an_external_engine_over_a_pipe() -> None:
    gtp = f"{sys.executable} -m mctslab gtp tictactoe --engine python --iterations 300 --seed 2"
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--opponent", f"engine:gtp={gtp}",
        "--iterations", "2000", "--engine", "python", "--seed", "4",
    )  # fmt: skip
    assert code == 0, output
    assert "AI (X) plays" in output and "Result:" in output
    # O's every move is the engine's, as its GTP name says, and none is the AI's.
    moves = output.split("Moves: ")[1].split("\n")[0].split()
    assert len(moves) >= 5 and re.findall(r"gtp:mctslab plays (\w+)", output) == moves[1::2]
    assert "AI (O) plays" not in output


def test_an_engine_that_resigns_loses_the_game(tmp_path: Path) -> None:
    gtp = shlex.join(scripted(("(\\d+) genmove", [r"=\1 resign", ""]), ("(\\d+) .*", [r"=\1", ""])))
    save = tmp_path / "resigned.txt"
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--opponent", f"engine:gtp={gtp}",
        "--iterations", "200", "--engine", "python", "--save", str(save),
    )  # fmt: skip
    assert code == 0, output
    assert "resigns." in output and "Result: X wins (O resigned) after 1 move." in output
    assert "to move" not in output.split("resigns.")[1]  # the game is over
    assert '[Result "1-0"]' in save.read_text()


def test_an_engine_named_in_two_lines_is_saved_under_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the name's line break reached the record's tag: the in-game save and the save
    # at the end both crashed with a ValueError traceback, and nothing was saved.
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    gtp = shlex.join(
        scripted(
            ("(\\d+) name", [r"=\1 Two  Line", "Engine", ""]),
            ("(\\d+) .*", [r"=\1", ""]),
        )
    )
    mid, end = tmp_path / "mid.txt", tmp_path / "end.txt"
    code, output = run(
        "play", "tictactoe", "--opponent", f"engine:gtp={gtp}", "--iterations", "50",
        "--engine", "python", "--save", str(end), input=f"save {mid}\nquit\n",
    )  # fmt: skip
    assert code == 0, output
    for path in (mid, end):
        assert f"Game record saved to {path}." in output
        assert load_record(path.read_text()).tags == {
            "X": "you", "O": "gtp:Two Line Engine", "Result": "*"
        }  # fmt: skip


def test_a_game_that_a_record_cannot_hold_is_a_clear_error(tmp_path: Path) -> None:
    # The one save of play (at the end and at the prompt): a ValueError was a traceback.
    path = tmp_path / "new" / "game.txt"
    refused = _records.save(path, make("tictactoe"), [], {"Event": "a\nb"})
    assert refused == (
        f"cannot write the game record {path}: "
        "A record tag value must be one line. Got 'a\\nb' for Event."
    )
    assert not path.parent.exists()


def test_bad_opponent_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    monkeypatch.setattr(opt, "mcts_player", lambda *args: built.append(args))
    code, output = run("play", "tictactoe", "--opponent", "wizard")
    assert code == 2 and "--opponent:" in output
    assert not built  # refused before the AI is built (and compiled, on a first run)


def test_the_opponent_is_named_and_a_person_is_refused_as_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    code, output = run(
        "play", "tictactoe", "--opponent", "random", "--engine", "python", input="quit\n"
    )
    assert code == 0 and "You play X, random plays O." in output  # before: "the AI plays O"
    # Before, a second person half-worked: the board twice, no undo, quit without a summary.
    built: list[object] = []
    monkeypatch.setattr(opt, "mcts_player", lambda *args: built.append(args))
    code, output = run("play", "tictactoe", "--opponent", "human")
    assert code == 2 and not built
    assert "--opponent: human is no opponent here" in output


def test_the_opponent_is_closed_when_the_ai_settings_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed: list[object] = []
    monkeypatch.setattr(RandomPlayer, "close", lambda self: closed.append(self))
    args = ["--opponent", "random", "--engine", "python", "--workers", "2"]
    code, output = run("play", "tictactoe", *args)
    assert code == 2 and "searches on one thread" in output
    assert len(closed) == 1


@pytest.fixture
def main_returned() -> Iterator[None]:
    """For a test that calls main(): the collector it freezes for the exit thaws after."""
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("main_returned")
def test_the_exit_skips_the_collectors_passes_over_numbas_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the collector's passes at interpreter shutdown took 0.3 s and more of
    # the exit (of a protocol engine too, which its controller times: Gomocup's
    # manager kills a brain still there about 1 s after END).
    monkeypatch.setattr(sys, "argv", ["mctslab", "brain", "--engine", "python"])
    monkeypatch.setattr(sys, "stdin", io.StringIO("END\n"))
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 0
    assert gc.get_freeze_count() > 0


def arena_with_a_gtp_engine(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> str:
    """What ``mctslab arena`` says on stderr when its GTP engine ``command`` fails (exit 1)."""
    argv = ["mctslab", "arena", "tictactoe", "-p", f"engine:gtp={command}", "-p", "random"]
    argv += ["--games", "2", "--out", str(tmp_path / "run.jsonl")]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 1
    return str(capsys.readouterr().err)


def test_a_game_that_fails_is_an_error_line_then_its_traceback(tmp_path: Path) -> None:
    # The traceback is what tells where a game broke; it is in no record. (A tree of
    # 0.001 MiB cannot hold the root's moves: the search refuses the budget.)
    args = ["arena", "gomoku", "--size", "7", "-p", "mcts:memory_mb=0.001,iterations=10"]
    args += ["-p", "random", "--games", "2", "--out", str(tmp_path / "run.jsonl")]
    args += ["--workers", "2"]  # with one, the arena refuses the budget before any game
    code, output = run(*args)
    assert code == 1  # a failure of the work; 2 is for mistakes in the command line
    assert re.search(r"^Error: Game \d stopped on an error: ValueError: ", output)
    assert "Traceback (most recent call last):" in output
    # Not a mistake in the command line: no pointer to the help.
    assert "--help" not in output


@pytest.mark.usefixtures("main_returned")
def test_an_engine_that_will_not_start_is_an_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = arena_with_a_gtp_engine(str(tmp_path / "no-such-engine"), tmp_path, monkeypatch, capsys)
    assert "Error:" in error and "Cannot start the GTP engine" in error
    assert "Traceback" not in error


@pytest.mark.usefixtures("main_returned")
def test_an_engine_that_dies_is_an_error_line_then_what_it_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An error is one line, a library message's board left out; an engine's last
    # words are what the user needs to mend it, so they follow the line whole.
    dying = f"{sys.executable} -c 'import sys; sys.stderr.write(\"[boom]\\n\"); sys.exit(3)'"
    lines = arena_with_a_gtp_engine(dying, tmp_path, monkeypatch, capsys).splitlines()
    assert lines[0].startswith("Error: The GTP engine") and lines[-2:] == [
        "Its stderr ended with:",
        "  [boom]",
    ]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("plot.xyz", "--plot cannot write .xyz files. Use one of:"),
        ("plot", "Plot written to {tmp}/plot.png"),
        # Before, both games were played, then "[Errno 17] File exists: 'afile'".
        (
            "afile/plot.png",
            "cannot write the plot {tmp}/afile/plot.png: {tmp}/afile is a file, not a folder.",
        ),
    ],
)
def test_the_plot_file_is_checked_before_the_games(
    tmp_path: Path, target: str, message: str
) -> None:
    (tmp_path / "afile").write_text("")
    out = tmp_path / "run.jsonl"
    code, output = run(
        "arena", "tictactoe", "-p", "random", "-p", "random", "--games", "2",
        "--out", str(out), "--plot", str(tmp_path / target),
    )  # fmt: skip
    assert message.format(tmp=tmp_path) in output
    if code == 0:
        assert (tmp_path / "plot.png").is_file()
    else:
        assert code == 2 and not out.exists()


def test_the_plot_may_not_replace_the_arena_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the games were played into the record, then the plot was drawn over it.
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run.png"
    code, output = run(
        "arena", "tictactoe", "-p", "random", "-p", "random", "--games", "2",
        "--out", str(out), "--plot", "run.png",
    )  # fmt: skip
    assert code == 2 and "--plot and --out name one file, run.png" in output
    assert not out.exists()


def test_a_folder_as_the_arena_record_is_a_clear_error(tmp_path: Path) -> None:
    code, output = run(
        "arena", "tictactoe", "-p", "random", "-p", "random", "--games", "2",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 2
    assert f"cannot write the record {tmp_path}: Is a directory." in output


def test_openspiel_missing_is_said_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # importing it now fails
    out = tmp_path / "run.jsonl"
    code, output = run(
        "arena", "tictactoe", "-p", "openspiel:iterations=50", "-p", "random", "--games", "2",
        "--out", str(out),
    )  # fmt: skip
    hint = (
        "install the compare extra in the clone of mctslab: .venv/bin/pip install -e '.[compare]'"
    )
    assert code == 2 and hint in output and not out.exists()
    code, output = run("play", "tictactoe", "--opponent", "openspiel:iterations=50")
    assert code == 2 and hint in output


@pytest.mark.parametrize("game", ["othello", "tictactoe"])
def test_play_says_whose_turn_it_is_once_a_move(game: str) -> None:
    # Othello's board text says it already: the command must not say it again.
    code, output = run("play", game, "--ai-vs-ai", "--iterations", "20", "--seed", "1")
    assert code == 0, output
    turns = [line for line in output.splitlines() if line.endswith(" to move.")]
    assert len(turns) == output.count(" plays ") > 0


@pytest.mark.parametrize(
    ("number", "nouns", "text"),
    [
        (1, ("simulation",), "1 simulation"),
        (1500, ("simulation",), "1,500 simulations"),
        (1, ("child", "children"), "1 child"),
        (0, ("child", "children"), "0 children"),
    ],
)
def test_counts_are_in_the_plural_unless_one(
    number: int, nouns: tuple[str, ...], text: str
) -> None:
    from mctslab.cli._options import counted

    assert counted(number, *nouns) == text


def test_a_plot_that_cannot_be_written_keeps_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The place is checked before the games; the disk can still fill up during them.
    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("matplotlib.figure.Figure.savefig", disk_full)
    out = tmp_path / "run.jsonl"
    code, output = run(
        "arena", "tictactoe", "-p", "random", "-p", "random", "--games", "2",
        "--out", str(out), "--plot", str(tmp_path / "plot.png"),
    )  # fmt: skip
    assert code == 1 and "(the record is kept): [Errno 28] No space left on device" in output
    assert len(out.read_text().splitlines()) == 3  # the header and both games


@pytest.mark.usefixtures("main_returned")
def test_a_warm_installation_says_nothing_of_compiling(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["mctslab", "--version"])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 0 and capsys.readouterr().err == ""


def test_the_command_s_entry_loads_no_game_and_no_numba() -> None:
    # Before the handler that makes Ctrl-C an "Interrupted." is set, nothing may compile:
    # importing mctslab loaded the games, and numba compiled for about 2 s on a first run.
    code = (
        "import sys, mctslab.cli; print(sorted(m for m in sys.modules"
        " if 'numba' in m or m.startswith('mctslab.games')))"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert answer.stdout.strip() == "[]"
    # The package's names are still there, loaded when asked for.
    assert (
        subprocess.run(
            [sys.executable, "-c", "import mctslab; print(mctslab.make('tictactoe').spec.name)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        == "tictactoe"
    )


def test_a_cold_installation_is_told_and_ctrl_c_then_interrupts(tmp_path: Path) -> None:
    # An empty numba cache: the games compile when the commands are imported. Before,
    # `mctslab --help` sat silent about 35 s, and Ctrl-C gave numba's traceback.
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "mctslab", "--help"]
    with subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=environment
    ) as process:
        assert process.stderr is not None
        assert process.stderr.readline().startswith("mctslab: loading (the first run after")
        process.send_signal(signal.SIGINT)
        error = process.stderr.read()
        code = process.wait(timeout=120)
    assert (code, error.strip()) == (130, "Interrupted.")
