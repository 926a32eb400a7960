"""`mctslab arena`: local runs, the JSONL record, resuming, pairs, SPRT, sweeps, backends."""

from __future__ import annotations

import io
import json
import math
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from mctslab.arena import openings as openings_module
from mctslab.arena.backends import InProcess, ProcessPool
from mctslab.arena.game import GameFailed, GameTask, play_game, run_task
from mctslab.arena.match import FEW_PAIRS, Match, PointResult, Sweep, Tally, run_match
from mctslab.arena.openings import FileOpenings, RandomOpenings, StartPosition
from mctslab.arena.record import RecordInUseError, RunRecord
from mctslab.arena.spec import PlayerSpec, parse_player
from mctslab.arena.stats import SPRT
from mctslab.cli import _options as opt
from mctslab.cli._app import app
from mctslab.core import MCTS as GenericMCTS
from mctslab.core import Budget, SearchConfig
from mctslab.games import make
from mctslab.players import MCTSPlayer
from mctslab.protocols import EngineError, EngineResignedError, EngineTimeoutError
from tests.protocols.helpers import exited_within, scripted

runner = CliRunner()
MCTS = "mcts:engine=python,iterations=200"  # canonical: keys sorted
BASE = ["arena", "tictactoe", "--player", MCTS, "--player", "random", "--seed", "1"]


def arena(*args: str, input: str | None = None) -> tuple[int, str]:
    """Run the command; the output with its line wrapping undone (rich wraps at 80 columns)."""
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, " ".join(result.output.split())


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return lines[0], lines[1:]


def without_times(entries: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, Any]]:
    """Entries by key, minus the thinking times (the only part that varies between runs)."""
    return {
        (e["sweep"], e["index"]): {k: v for k, v in e.items() if k != "seconds"} for e in entries
    }


def test_local_run_records_every_game(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    code, output = arena(*BASE, "--games", "6", "--openings", "random:2", "--out", str(out))
    assert code == 0, output
    header, games = read(out)
    assert header["match"]["players"] == [MCTS, "random"]
    assert header["match"]["openings"]["kind"] == "random" and header["seed"] == 1
    assert sorted(g["index"] for g in games) == list(range(6))
    wins = draws = losses = 0
    for game in games:
        # Pairs share the opening, with colours swapped: A moves first in the even game.
        partner = next(g for g in games if g["index"] == game["index"] ^ 1)
        assert game["pair"] == game["index"] // 2 and game["opening"] == partner["opening"]
        assert len(game["opening"]) == 2
        assert [p["id"] for p in game["players"]] == (
            ["A", "B"] if game["index"] % 2 == 0 else ["B", "A"]
        )
        assert {p["spec"] for p in game["players"]} == {MCTS, "random"}
        assert len(game["seconds"]) == len(game["moves"])
        # The moves replay to the recorded result, and the score is A's.
        state = make("tictactoe")
        for move in game["opening"] + game["moves"]:
            state.play(move)
        outcome = state.outcome()
        assert outcome is not None
        assert (outcome.winner, outcome.reason) == (game["winner"], game["reason"])
        a_seat = 0 if game["players"][0]["id"] == "A" else 1
        expected = 0.5 if outcome.winner is None else float(outcome.winner == a_seat)
        assert game["score"] == expected
        wins += expected == 1.0
        draws += expected == 0.5
        losses += expected == 0.0
    assert f"{wins}-{draws}-{losses}" in output
    # Without a terminal (a log) each game gets a line as it ends, instead of a progress bar.
    for game in games:
        who = {1.0: "A wins", 0.5: "a draw", 0.0: "B wins"}[game["score"]]
        assert f"Game {game['index'] + 1}: {game['result']} ({game['reason']}), {who}." in output
    # Three pairs: too few for an interval (two pairs of a win and a loss each gave +0 +/- 17).
    assert "│ Elo │" in output and "Elo [95%]" not in output and "│ LOS │" not in output
    assert "With fewer than 20 pairs no 95% interval or LOS is given" in output


def test_a_log_has_one_line_a_game(tmp_path: Path) -> None:
    # Before, a game's line was broken at 80 columns: "Game 2: ... LLR" and "0.13 (-2.94, ..."
    # on the next line, which a search of the log for the game did not show.
    out = tmp_path / "log.jsonl"
    args = [*BASE, "--games", "4", "--sweep", "iterations=20,40", "--sprt", "elo0=0,elo1=50"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    _, games = read(out)
    lines = [line for line in result.output.splitlines() if ", Game " in line]
    assert len(lines) == len(games) == 8
    for line in lines:
        assert re.fullmatch(
            r"iterations=\d+, Game \d: \S+ \(.+\), .+\. \+\d =\d -\d  score \d+\.\d%  "
            r"LLR -?\d\.\d\d \(-2\.94, 2\.94\)  Elo [+-]\d+",
            line,
        ), line


def test_enough_pairs_give_an_interval_and_an_odd_game_is_said_to_count_in_the_score_only(
    tmp_path: Path,
) -> None:
    out = tmp_path / "odd.jsonl"
    code, output = arena(
        "arena", "tictactoe", "--player", "random", "--player", "random", "--games", "41",
        "--seed", "3", "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    assert "│ Elo [95%] │" in output and "│ LOS │" in output and "fewer than 20" not in output
    unpaired = "(an odd --games, or an SPRT that stopped mid-pair) counts in W-D-L and score"
    assert f"1 game without a colour-swapped partner {unpaired}" in output
    _, games = read(out)
    wins = sum(g["score"] == 1.0 for g in games)
    draws = sum(g["score"] == 0.5 for g in games)
    assert f"{wins}-{draws}-{41 - wins - draws}" in output
    assert f"Record: {out}" in output


def test_resume_after_a_cut_record_plays_only_the_missing_games(tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    args = [*BASE, "--games", "6", "--openings", "random:2"]
    assert arena(*args, "--out", str(full))[0] == 0
    lines = full.read_text().splitlines(keepends=True)
    # Killed while writing game 4: three games whole, the fourth half written.
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    code, output = arena(*args, "--out", str(cut))
    assert code == 0, output
    assert f"Resuming {cut}: 3 games played before." in output
    _, games = read(cut)
    keys = [(g["sweep"], g["index"]) for g in games]
    assert len(keys) == len(set(keys)) == 6
    assert cut.read_text().startswith("".join(lines[:4]))
    # Seeds come from the run's seed and the game's index: the resumed games are the same.
    assert without_times(games) == without_times(read(full)[1])
    # Run again: nothing left to play, nothing added.
    before = cut.read_text()
    code, output = arena(*args, "--out", str(cut))
    assert code == 0 and "6 games played before" in output
    assert cut.read_text() == before


def test_a_record_with_blank_lines_resumes(tmp_path: Path) -> None:
    # Before, a blank line was "not a JSON line" and the record could not be resumed.
    out = tmp_path / "blank.jsonl"
    assert arena(*BASE, "--games", "2", "--out", str(out))[0] == 0
    header, *games = out.read_text().splitlines(keepends=True)
    out.write_text(header + "\n" + games[0] + " \t\n" + games[1] + "\n")
    code, output = arena(*BASE, "--games", "4", "--out", str(out))
    assert code == 0, output
    assert f"Resuming {out}: 2 games played before." in output and "│ games │ 4 │" in output


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            b'{"type":"game",\n',
            "is not a JSON line (Expecting property name enclosed in double quotes",
        ),
        # Before, "'utf-8' codec can't decode byte 0xe9 in position ...", with no file named.
        (b'{"type":"game","by":"Ren\xe9"}\n', "is not a JSON line (byte 0xe9 is not UTF-8)."),
        # Before, a traceback: 'int' object has no attribute 'get'.
        (b"5\n", "is not a JSON object, as a record's lines are."),
    ],
)
def test_a_bad_line_in_a_record_is_named_by_its_file_and_number(
    tmp_path: Path, line: bytes, problem: str
) -> None:
    out = tmp_path / "bad.jsonl"
    assert arena(*BASE, "--games", "2", "--out", str(out))[0] == 0
    out.write_bytes(out.read_bytes() + line)
    code, output = arena(*BASE, "--games", "2", "--out", str(out))
    assert code == 2 and f"{out}:4 {problem}" in output


def test_a_killed_run_resumes_without_losing_or_repeating_games(tmp_path: Path) -> None:
    out = tmp_path / "killed.jsonl"
    args = [
        "arena", "connect4", "--player", "mcts:iterations=2000,engine=python",
        "--player", "mcts:iterations=500,engine=python", "--games", "8", "--seed", "5",
        "--out", str(out),
    ]  # fmt: skip
    command = [str(Path(sys.executable).parent / "mctslab"), *args]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 3:  # the header and two games
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    _, before = read(out)
    assert 2 <= len(before) < 8
    code, output = arena(*args)
    assert code == 0, output
    _, after = read(out)
    indices = [g["index"] for g in after]
    assert sorted(indices) == list(range(8))
    assert after[: len(before)] == before


def test_ctrl_c_stops_a_pool_run_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "interrupted.jsonl"
    args = [
        "arena", "connect4", "--player", "mcts:iterations=2000,engine=python",
        "--player", "mcts:iterations=500,engine=python", "--games", "40", "--seed", "5",
        "--workers", "2", "--out", str(out),
    ]  # fmt: skip
    command = [str(Path(sys.executable).parent / "mctslab"), *args]
    # With faulthandler on, SIGABRT prints every thread's stack: what a hang is waiting for.
    environment = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        output, _ = process.communicate(timeout=30)
        pytest.fail(f"No exit 30 s after Ctrl-C; the stacks then:\n{output}")
    assert process.returncode == 130, output
    assert "run the same command to resume" in " ".join(output.split())
    _, games = read(out)
    assert 1 <= len(games) < 40
    assert len({g["index"] for g in games}) == len(games)


def test_ctrl_c_stops_a_pool_run_with_its_external_engines(tmp_path: Path) -> None:
    # The terminated workers died without closing their players, leaving the engines
    # running under init. Each engine, thinking for a minute over every move, adds its
    # pid to a file (exec keeps the shell's pid).
    pids = tmp_path / "pids"
    slow = scripted(("(\\d+) genmove", ["SLEEP 60"]), ("(\\d+) .*", [r"=\1", ""]))
    engine = ["sh", "-c", f'echo $$ >> {shlex.quote(str(pids))}; exec "$0" "$@"', *slow]
    args = [
        "arena", "tictactoe", "--player", f"engine:gtp={shlex.join(engine)}",
        "--player", "random", "--games", "4", "--workers", "2",
        "--out", str(tmp_path / "run.jsonl"),
    ]  # fmt: skip
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "mctslab"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if pids.exists() and pids.read_text().count("\n") >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130, output
    engines = [int(pid) for pid in pids.read_text().split()]
    left = [pid for pid in engines if not exited_within(5, pid)]
    for pid in left:  # nothing is left behind
        os.kill(pid, signal.SIGKILL)
    assert len(engines) == 2 and not left, f"engines left running: {left}"


def test_a_different_match_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert arena(*BASE, "--games", "2", "--out", str(out))[0] == 0
    code, output = arena(
        "arena", "tictactoe", "--player", "random", "--player", "random", "--games", "2",
        "--out", str(out),
    )  # fmt: skip
    assert code == 2
    assert "records a different match" in output and "players" in output
    code, output = arena(*BASE[:-1], "2", "--games", "2", "--out", str(out))
    assert code == 2 and "seed: the record has 1, the command 2" in output
    # Without --seed the record's seed is used: a resume, not a new run.
    assert arena(*BASE[:-2], "--games", "4", "--out", str(out))[0] == 0
    assert len(read(out)[1]) == 4
    # Fewer games than recorded: the first ones count, and the resume says so.
    code, output = arena(*BASE[:-2], "--games", "2", "--out", str(out))
    assert code == 0 and "4 games played before; --games 2 counts 2." in output
    assert "│ games │ 2 │" in output


def test_an_interrupted_run_counts_the_games_it_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, "Finished games: 4": the record's games beyond --games were counted too.
    out = tmp_path / "run.jsonl"
    assert arena(*BASE, "--games", "4", "--out", str(out))[0] == 0

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("mctslab.cli.arena.run_match", interrupted)
    code, output = arena(*BASE, "--games", "2", "--out", str(out))
    assert code == 130 and f"Interrupted. Finished games: 2, in {out}" in output


def test_a_record_without_games_is_started_afresh_by_a_corrected_command(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    missing = tmp_path / "no-such-engine"
    code, output = arena(
        "arena", "tictactoe", "--player", f"engine:gtp={missing}", "--player", "random",
        "--games", "2", "--seed", "11", "--out", str(out),
    )  # fmt: skip
    assert code == 1  # the engine would not start (the command prints why)
    assert len(read(out)[1]) == 0  # the header alone
    code, output = arena(*BASE[:-2], "--games", "2", "--out", str(out))
    assert code == 0, output
    header, games = read(out)
    assert header["match"]["players"][0] == MCTS and len(games) == 2
    assert header["seed"] == 11  # without --seed, the record's, as any resume


def test_a_record_in_use_by_another_run_is_refused(tmp_path: Path) -> None:
    # Two runs on one record would play the same games and write each twice.
    path = tmp_path / "shared.jsonl"
    identity = {"game": "tictactoe", "players": ["random", "random"]}
    with RunRecord.open(path, identity, 1):
        with pytest.raises(RecordInUseError, match="is in use by another arena run"):
            RunRecord.open(path, identity, 1)
        code, output = arena(
            "arena", "tictactoe", "--player", "random", "--player", "random", "--games", "2",
            "--out", str(path),
        )  # fmt: skip
        assert code == 2 and "is in use by another arena run" in output
    with RunRecord.open(path, identity, 1) as record:  # free again once the first run closed it
        assert record.seed == 1


@pytest.mark.parametrize(
    "content",
    [b"4453\n", b"hello\nworld", b"no newline at all", b"\x89PNG\r\n\x1a\n\x00\xff\xfe"],
)
def test_a_file_that_is_no_record_is_refused_and_left_as_it_was(
    tmp_path: Path, content: bytes
) -> None:
    out = tmp_path / "not-a-record"
    out.write_bytes(content)
    code, output = arena(*BASE, "--games", "2", "--out", str(out))
    assert code == 2 and "is not an mctslab arena record; choose another --out" in output
    assert out.read_bytes() == content


def test_the_default_record_is_found_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert arena(*BASE, "--games", "2")[0] == 0
    assert arena(*BASE, "--games", "2")[0] == 0
    records = list(tmp_path.glob("arena-tictactoe-*.jsonl"))
    assert len(records) == 1 and len(read(records[0])[1]) == 2


def test_a_sweep_gains_values_in_its_default_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the default name was a digest of the sweep's values too: the longer sweep
    # made a new record and played every point again.
    monkeypatch.chdir(tmp_path)
    args = [*BASE, "--games", "2"]
    assert arena(*args, "--sweep", "iterations=10,20")[0] == 0
    code, output = arena(*args, "--sweep", "iterations=10,20,40")
    assert code == 0, output
    [record] = tmp_path.glob("arena-tictactoe-*.jsonl")
    assert f"Resuming {record.name}: 4 games played before." in output
    assert len(read(record)[1]) == 6
    # Once extended, the record still answers to the longer sweep and to a longer one.
    code, output = arena(*args, "--sweep", "iterations=10,20,40,80")
    assert code == 0 and f"Resuming {record.name}: 6 games played before." in output
    # Other values, another swept option or other players: a record of its own each.
    # (After the first fix, a sweep of other values met the record and was refused.)
    assert arena(*args, "--sweep", "iterations=20,10")[0] == 0
    assert arena(*args, "--sweep", "c=1,2")[0] == 0
    assert arena(*BASE[:5], "mcts:engine=python,iterations=5", *BASE[6:], "--games", "2",
                 "--sweep", "iterations=10,20")[0] == 0  # fmt: skip
    assert len(list(tmp_path.glob("arena-tictactoe-*.jsonl"))) == 4
    assert len(read(record)[1]) == 8
    # A sweep that left the record's values at 10,20 is a match of its own: before, it
    # met the record named by 10,20 (which gained 40 and 80) and was refused.
    assert arena(*args, "--sweep", "iterations=10,20,30")[0] == 0
    assert len(list(tmp_path.glob("arena-tictactoe-*.jsonl"))) == 5


def test_process_pool_plays_the_same_games(tmp_path: Path) -> None:
    # The compiled engine against the python one; each worker loads numba's cache.
    local, pooled = tmp_path / "local.jsonl", tmp_path / "pooled.jsonl"
    args = [
        "arena", "tictactoe", "--player", "mcts:iterations=300", "--player", MCTS,
        "--seed", "1", "--games", "4", "--openings", "random:1",
    ]  # fmt: skip
    assert arena(*args, "--out", str(local))[0] == 0
    code, output = arena(*args, "--out", str(pooled), "--workers", "2")
    assert code == 0, output
    assert without_times(read(pooled)[1]) == without_times(read(local)[1])


def test_a_pool_starts_no_more_workers_than_games_to_play() -> None:
    import multiprocessing

    # Before, --workers 6 for two games started six processes, each loading numba (on two
    # cores: 5.6 s for the run against 2.4 s with two workers).
    tasks = [
        GameTask("tictactoe", {}, ("random", "random"), (index, index + 9), index, index % 2, ())
        for index in range(2)
    ]
    seen = []
    before = set(multiprocessing.active_children())  # another test's, if any are left
    for entry in ProcessPool(6).play(iter(tasks)):
        seen.append((entry["index"], len(set(multiprocessing.active_children()) - before)))
    assert sorted(index for index, _ in seen) == [0, 1]
    assert all(workers <= 2 for _, workers in seen), seen


def test_sprt_stops_the_match_when_it_decides(tmp_path: Path) -> None:
    out = tmp_path / "sprt.jsonl"
    args = [*BASE, "--games", "200", "--sprt", "elo0=0,elo1=50", "--out", str(out)]
    code, output = arena(*args)
    assert code == 0, output
    played = len(read(out)[1])
    assert played < 200
    assert "pass: H1 (elo 50) accepted" in output
    assert arena(*args)[0] == 0
    assert len(read(out)[1]) == played  # already decided: nothing more to play


def test_openings_file_is_used_in_order(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# two openings\nB2 a1\n\n c3, a3  # a comment\n")
    out = tmp_path / "run.jsonl"
    code, output = arena(*BASE, "--games", "8", "--openings", str(book), "--out", str(out))
    assert code == 0, output
    by_pair = {g["pair"]: g["opening"] for g in read(out)[1]}
    assert by_pair == {0: ["b2", "a1"], 1: ["c3", "a3"], 2: ["b2", "a1"], 3: ["c3", "a3"]}
    book.write_text("b2 a1\nb2 b2\n")
    code, output = arena(*BASE, "--games", "2", "--openings", str(book), "--out", str(out))
    assert code == 2 and "book.txt:2: move 2 ('b2'): 'b2' is not legal" in output


@pytest.mark.parametrize(
    ("game", "line", "opening"),
    [
        ("connect4", "4453", ("4", "4", "5", "3")),
        ("othello", "f5d6c3", ("f5", "d6", "c3")),
        ("othello", "f5 d6, c3d3", ("f5", "d6", "c3", "d3")),
    ],
)
def test_openings_may_be_written_as_compactly_as_a_record(
    tmp_path: Path, game: str, line: str, opening: tuple[str, ...]
) -> None:
    # docs/records.md: Connect Four's columns and Othello's squares need no spaces.
    book = tmp_path / "compact.txt"
    book.write_text(line + "\n")
    assert FileOpenings(book, make(game)).lines == [opening]


def test_gomoku_openings_may_use_gomocup_coordinates(tmp_path: Path) -> None:
    book = tmp_path / "gomoku.txt"
    book.write_text("7,7 8,8\nh8, i9\n")
    openings = FileOpenings(book, make("gomoku"))
    assert openings.lines == [("h8", "i7"), ("h8", "i9")]


def test_an_openings_file_is_read_as_a_record_is(tmp_path: Path) -> None:
    # The same reader as play --load: a byte order mark is dropped, other encodings
    # are named (before, the BOM spoilt the first opening and latin-1 was a bare
    # "'utf-8' codec can't decode").
    book = tmp_path / "book.txt"
    book.write_bytes("\ufeffh8 i9\r\n".encode())
    assert FileOpenings(book, make("gomoku")).lines == [("h8", "i9")]
    book.write_bytes("h8 i9  # Ren\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"': line 1 is not UTF-8 text \(byte 0xe9\)") as refused:
        FileOpenings(book, make("gomoku"))
    assert str(refused.value).startswith(f"Cannot read the openings file {str(book)!r}")


def test_random_openings_are_balanced_and_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    start = make("tictactoe")
    book = RandomOpenings(start, 3)
    first = [book.opening(pair, seed=9) for pair in range(4)]
    assert first == [RandomOpenings(start, 3).opening(pair, seed=9) for pair in range(4)]
    assert first != [book.opening(pair, seed=10) for pair in range(4)]
    for opening in first:
        state = start.clone()
        for move in opening:
            state.play(move)
        assert len(opening) == 3 and not state.is_terminal()
    # No position is within 0 of an even game for a quick search: nothing is accepted.
    monkeypatch.setattr(openings_module, "BALANCE_MARGIN", -1.0)
    monkeypatch.setattr(openings_module, "MAX_ATTEMPTS", 3)
    with pytest.raises(ValueError, match="No balanced opening of 3 random moves"):
        RandomOpenings(start, 3).opening(0, seed=9)


def test_more_random_opening_moves_than_a_game_has_are_refused_before_the_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "long.jsonl"
    code, output = arena(*BASE, "--games", "2", "--openings", "random:9", "--out", str(out))
    assert code == 2 and "a tictactoe game lasts at most 9 moves" in output
    assert not out.exists()


@pytest.mark.parametrize("count", ["x", "-1", "0", "1.5", "\u00b2"])
def test_random_openings_need_a_whole_number_of_moves_from_1(count: str) -> None:
    # Before, random:-1 said "needs a whole number N" (-1 is one), random:0 "needs N >= 1",
    # and random:\u00b2 (a digit to str.isdigit, not to int) "invalid literal for int()".
    code, output = arena(*BASE, "--openings", f"random:{count}")
    assert code == 2
    assert f"--openings random:N needs a whole number N >= 1. Got 'random:{count}' instead." in (
        output
    )


def test_random_openings_in_python_refuse_fewer_than_one_move_in_the_usual_form() -> None:
    with pytest.raises(ValueError, match="The 'moves' parameter of RandomOpenings must be an int"):
        RandomOpenings(make("tictactoe"), 0)


def test_sweep_plays_a_match_per_value(tmp_path: Path) -> None:
    out = tmp_path / "sweep.jsonl"
    args = [*BASE, "--games", "4", "--sweep", "iterations=20,400", "--out", str(out)]
    code, output = arena(*args)
    assert code == 0, output
    header, games = read(out)
    assert header["match"]["sweep"] == {"key": "iterations", "values": ["20", "400"]}
    for point, iterations in enumerate((20, 400)):
        point_games = [g for g in games if g["sweep"] == point]
        assert sorted(g["index"] for g in point_games) == list(range(4))
        spec = f"mcts:engine=python,iterations={iterations}"
        assert all(p["spec"] == spec for g in point_games for p in g["players"] if p["id"] == "A")
        assert all(g["sweep_value"] == str(iterations) for g in point_games)
    assert "iterations" in output and "400" in output
    # The title names the swept option, not the base spec's value that each point replaces.
    assert "A = mcts:engine=python with iterations swept vs B = random" in output
    code, output = arena(*BASE, "--sweep", "budget=1,2", "--games", "2")
    assert code == 2 and "unknown option 'budget'" in output
    code, output = arena(*BASE, "--sweep", "iterations=10,20,10", "--games", "2")
    assert code == 2 and "--sweep values must differ: 10 and 10 are the same player" in output
    code, output = arena(*BASE, "--sweep", "c=1,1.0", "--games", "2")
    assert code == 2 and "1 and 1.0 are the same player" in output


def test_a_sweep_gains_values_at_the_end_of_its_list(tmp_path: Path) -> None:
    out = tmp_path / "sweep.jsonl"
    args = [*BASE, "--games", "2", "--out", str(out)]
    assert arena(*args, "--sweep", "iterations=10,20")[0] == 0
    _, before = read(out)
    code, output = arena(*args, "--sweep", "iterations=10,20,40")
    assert code == 0, output
    assert f"Resuming {out}: 4 games played before." in output
    header, games = read(out)
    assert header["match"]["sweep"] == {"key": "iterations", "values": ["10", "20", "40"]}
    assert games[:4] == before  # the recorded points are kept, not played again
    assert [(g["sweep"], g["sweep_value"]) for g in games[4:]] == [(2, "40"), (2, "40")]
    assert not list(tmp_path.glob("*.new"))
    # Values in another order, or fewer, would change which point a game belongs to.
    for values in ("10,40,20", "10", "20,10,40"):
        code, output = arena(*args, "--sweep", f"iterations={values}")
        assert code == 2 and "a sweep may gain values at the end of its list" in output
    code, output = arena(*BASE[:-2], "--seed", "2", "--games", "2", "--out", str(out),
                         "--sweep", "iterations=10,20,40,80")  # fmt: skip
    assert code == 2 and "seed: the record has 1, the command 2" in output
    assert read(out)[1] == games


def test_plot_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    single, swept = tmp_path / "single.png", tmp_path / "sweep.png"
    args = [*BASE, "--games", "4", "--out", str(tmp_path / "run.jsonl"), "--plot", str(single)]
    assert arena(*args)[0] == 0
    args = [*BASE, "--games", "2", "--sweep", "iterations=10,100", "--plot", str(swept)]
    assert arena(*args, "--out", str(tmp_path / "sweep.jsonl"))[0] == 0
    tested = tmp_path / "sprt.png"
    args = [*BASE, "--games", "4", "--sprt", "elo0=0,elo1=50", "--plot", str(tested)]
    assert arena(*args, "--out", str(tmp_path / "sprt.jsonl"))[0] == 0
    for path in (single, swept, tested):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_plots_games_axis_counts_whole_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, two games were labelled 1.0, 1.2, 1.4, ... 2.0.
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from mctslab.arena.plot import plot_run

    drawn: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda figure, *args, **kwargs: drawn.append(figure))
    tally = Tally()
    tally.add(0, 1.0)
    tally.add(0, 0.5)
    point = PointResult(None, parse_player("random"), tally)
    plot_run([point], tmp_path / "run.png", title="two games", sweep_key=None)
    ticks = drawn[0].axes[-1].get_xticks()
    assert len(ticks) > 1 and all(tick == round(tick) for tick in ticks), ticks


@pytest.mark.parametrize("width", [40, 50])
def test_a_narrow_terminal_keeps_the_game_count_and_time_and_cuts_the_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    screen = io.StringIO()
    terminal = Console(file=screen, width=width, force_terminal=True, color_system=None)
    monkeypatch.setattr(opt, "error_console", terminal)
    out = tmp_path / "narrow.jsonl"
    code, output = arena(*BASE, "--games", "4", "--sprt", "elo0=0,elo1=5", "--out", str(out))
    assert code == 0, output
    # The display's last drawing, after the run: each redraw starts at a carriage return.
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue()).split("\r")
    last = next(line for line in reversed(lines) if line.startswith("A vs B"))
    _, games = read(out)
    wins = sum(game["score"] == 1.0 for game in games)
    draws = sum(game["score"] == 0.5 for game in games)
    # One line, as wide as the terminal, with the count and the time whole and the status
    # (it starts with the tally) after them, cut at its end.
    assert "\n" not in last.rstrip("\n") and len(last.rstrip("\n")) <= width
    assert re.search(rf" 4/4 0:00:\d\d \+{wins} =", last), last
    assert f"+{wins} ={draws} -{4 - wins - draws}  score" in last, last


def test_a_sweep_table_has_one_elo_column_when_only_some_points_have_an_interval() -> None:
    from rich.console import Console

    from mctslab.cli.arena import _table

    def point(value: str, pairs: int) -> PointResult:
        tally = Tally()
        for pair in range(pairs):
            tally.add(pair, 1.0)
            tally.add(pair, 0.5)
        return PointResult(value, parse_player(f"mcts:iterations={value}"), tally)

    match = Match(
        game="tictactoe", params={}, players=(parse_player(MCTS), parse_player("random")),
        openings=StartPosition(), games=60, sweep=Sweep.parse("iterations=10,20"),
    )  # fmt: skip
    console = Console(width=200, record=True)
    console.print(_table(match, [point("10", 3), point("20", FEW_PAIRS + 5)]))
    header = console.export_text().splitlines()[1]
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == [
        "iterations", "games", "W-D-L", "score", "Elo [95%]", "LOS", "pairs",
    ]  # fmt: skip


def test_the_result_table_is_never_cut(tmp_path: Path) -> None:
    from mctslab.cli.arena import _table

    # A sweep with an SPRT is wider than 80 columns. In a log (not a terminal) its rows are
    # written whole, one line each; before, they were fitted to 80 columns and cut:
    # "iterati…", "inconcl…".
    out = tmp_path / "sweep.jsonl"
    args = [*BASE, "--games", "2", "--sweep", "iterations=20,40", "--sprt", "elo0=0,elo1=50"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith(("┃", "│"))]
    cells = [[cell.strip() for cell in row.split(row[0])[1:-1]] for row in rows]
    assert cells[0] == ["iterations", "games", "W-D-L", "score", "Elo", "pairs", "LLR", "SPRT"]
    _, games = read(out)
    for row in cells[1:]:
        point = [game for game in games if game["sweep_value"] == row[0]]
        wins = sum(game["score"] == 1.0 for game in point)
        draws = sum(game["score"] == 0.5 for game in point)
        assert row[1:3] == ["2", f"{wins}-{draws}-{2 - wins - draws}"]
        assert row[-2].endswith("(-2.94, 2.94)") and row[-1] == "inconclusive"
    assert [row[0] for row in cells[1:]] == ["20", "40"]
    # In a terminal too narrow for it a cell's text is folded onto more lines, not cut.
    match = Match(
        game="tictactoe", params={}, players=(parse_player(MCTS), parse_player("random")),
        openings=StartPosition(), games=2, sprt=SPRT.parse("elo0=0,elo1=50"),
        sweep=Sweep.parse("iterations=20,40"),
    )  # fmt: skip
    tally = Tally()
    tally.add(0, 1.0)
    tally.add(0, 0.5)
    points = [PointResult(value, parse_player(MCTS), tally, 0.1) for value in ("20", "40")]
    terminal = Console(width=50, record=True)
    terminal.print(_table(match, points))
    text = terminal.export_text()
    assert "…" not in text and max(map(len, text.splitlines())) <= 50
    column = [line.split("│")[-2].strip() for line in text.splitlines() if line.startswith("│")]
    assert "".join(column[: len(column) // 2]) == "inconclusive"


def test_the_plotted_interval_starts_where_the_table_shows_one() -> None:
    from mctslab.arena.plot import _running

    tally = Tally()
    for pair in range(FEW_PAIRS + 5):
        tally.add(pair, 1.0)
        tally.add(pair, 0.5 if pair % 2 else 0.0)
    point = PointResult(None, parse_player("random"), tally)
    games, _, elos, lows, highs, llrs = _running(point)
    shown = [game for game, low, high in zip(games, lows, highs, strict=True) if low <= high]
    assert shown == list(range(2 * FEW_PAIRS, 2 * FEW_PAIRS + 11))
    assert all(math.isfinite(elo) for elo in elos) and llrs == []
    # With an SPRT, its LLR after each game: the last is the whole match's.
    sprt = SPRT.parse("elo0=0,elo1=50")
    llrs = _running(point, sprt)[5]
    assert len(llrs) == len(games) and llrs[-1] == sprt.llr(tally.pentanomial())


def test_a_person_needs_a_terminal_to_play_in_the_arena(tmp_path: Path) -> None:
    # Before, the games began, the person's moves met the end of input, and the run ended as
    # if interrupted: "Interrupted. Finished games: 0", exit status 130.
    out = tmp_path / "human.jsonl"
    args = ["arena", "tictactoe", "--player", "random", "--player", "human", "--games", "2"]
    code, output = arena(*args, "--out", str(out), input="")
    assert code == 2, output
    assert "--player human reads moves from a terminal, and stdin is not one." in output
    assert not out.exists()


def test_a_person_can_play_in_the_arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opt, "stdin_is_terminal", lambda: True)
    out = tmp_path / "human.jsonl"
    # The person tries every cell in turn; illegal ones are asked again.
    moves = "\n".join(["nonsense", *(f"{c}{r}" for r in "321" for c in "abc")] * 5) + "\n"
    args = ["arena", "tictactoe", "--player", "human", "--player", "random", "--games", "1"]
    code, output = arena(*args, "--out", str(out), input=moves)
    assert code == 0, output
    assert "not a move" in output and len(read(out)[1]) == 1
    code, output = arena(*args, "--games", "3", "--out", str(out), input="b2\nquit\n")
    assert code == 130 and "Finished games: 1, in" in output
    code, output = arena(*args, "--workers", "2", "--out", str(out))
    assert code == 2 and "a human player needs this terminal" in output


def test_an_external_engine_plays_through_its_protocol(tmp_path: Path) -> None:
    # mctslab's own GTP server as the external engine, run as a subprocess per game.
    program = Path(sys.executable).parent / "mctslab"
    engine = f"engine:gtp={program} gtp tictactoe --iterations 300 --engine python --seed 1"
    out = tmp_path / "gtp.jsonl"
    args = ["arena", "tictactoe", "--player", engine, "--player", "random", "--games", "2"]
    code, output = arena(*args, "--seed", "1", "--out", str(out))
    assert code == 0, output
    _, games = read(out)
    assert len(games) == 2
    engine_entries = [p for g in games for p in g["players"] if p["id"] == "A"]
    assert all(p["spec"] == engine and p["seed"] is None for p in engine_entries)
    # The engine's process made A's moves: its first in each game (a fresh process, seeded)
    # is the one the same search, run here, finds in that position.
    for game in games:
        seat = [p["id"] for p in game["players"]].index("A")
        state = make("tictactoe")
        for move in game["moves"][:seat]:
            state.play(move)
        search = GenericMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=300))
        assert game["moves"][seat] == search.best_notation, game["moves"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "tictactoe", "--player", "random"], "give exactly two --player options"),
        (
            ["arena", "numbers", "--player", "random", "--player", "random"],
            "the arena plays two-player games (countdown, gomoku, othello, connect4, tictactoe); "
            "got 'numbers'",
        ),
        (["arena", "chess", "--player", "random", "--player", "random"], "got 'chess'"),
        ([*BASE, "--games", "0"], "--games must be at least 1"),
        ([*BASE, "--workers", "0"], "--workers must be at least 1"),
        ([*BASE, "--sprt", "elo1=5"], "--sprt needs elo0"),
        ([*BASE, "--openings", "random:x"], "random:N needs a whole number"),
        # The reason once, as a game record's is said (it said "...: [Errno 2] No such file
        # or directory: '/nonexistent/book'").
        (
            [*BASE, "--openings", "/nonexistent/book"],
            "Cannot read the openings file '/nonexistent/book': No such file or directory. Try",
        ),
        ([*BASE[:3], "naive", *BASE[4:]], "The naive player plays gomoku only"),
        ([*BASE[:3], "mcts:c=-2", *BASE[4:]], "The 'c' parameter of SearchConfig"),
    ],
)
def test_bad_arena_input_gets_a_clear_error(args: list[str], message: str) -> None:
    code, output = arena(*args)
    assert code == 2
    assert message in output


class _Faulty:
    """A player that answers ``answer`` (or raises it) when asked to move or told a move."""

    name = "faulty"

    def __init__(self, answer: int | Exception, when: str = "choose") -> None:
        self.answer, self.when = answer, when

    def start(self, state: Any) -> None: ...

    def choose(self, state: Any) -> int:
        if isinstance(self.answer, Exception):
            if self.when == "choose":
                raise self.answer
            return int(state.legal_moves()[0])
        return self.answer

    def observe(self, move: int) -> None:
        if self.when == "observe" and isinstance(self.answer, Exception):
            raise self.answer

    def close(self) -> None: ...


def _with_faulty_a(player: _Faulty) -> Any:
    """A ``play_game`` builder giving player A's seat to ``player``."""
    return lambda player_id, spec, seed: player if player_id == "A" else spec.build(seed)


def test_an_illegal_move_loses_the_game() -> None:
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
    entry = play_game(task, build=_with_faulty_a(_Faulty(99)))
    assert entry["winner"] == 1 and entry["score"] == 0.0
    assert entry["reason"] == "illegal move 99 by A"


@pytest.mark.parametrize(
    ("error", "when", "reason"),
    [
        (EngineResignedError("The GTP engine 'x' resigned as X.", 0), "choose", "A resigned"),
        (
            EngineTimeoutError("The GTP engine 'x' did not answer genmove b within 5.0 s.\nlog"),
            "choose",
            "A lost on time: The GTP engine 'x' did not answer genmove b within 5.0 s.",
        ),
        (
            EngineError("The GTP engine 'x' answered genmove b with 'Z9': not legal.\nboard"),
            "choose",
            "A forfeits: The GTP engine 'x' answered genmove b with 'Z9': not legal.",
        ),
        (
            EngineError("The Gomocup engine 'x' could not be sent 'TURN 1,1' (it exited)."),
            "observe",
            "A forfeits: The Gomocup engine 'x' could not be sent 'TURN 1,1' (it exited).",
        ),
    ],
)
def test_an_external_engine_that_resigns_times_out_or_breaks_loses_the_game(
    error: Exception, when: str, reason: str
) -> None:
    # As in engine tournaments: the game is scored, and the run goes on.
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
    entry = play_game(task, build=_with_faulty_a(_Faulty(error, when)))
    assert entry["winner"] == 1 and entry["score"] == 0.0 and entry["result"] == "0-1"
    assert entry["reason"] == reason


def test_an_engine_that_dies_on_the_last_move_leaves_the_result_as_it_is() -> None:
    # X (A) wins with c3 from this opening; B's engine dies when told of it.
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ("a1", "a2", "b2", "b3"))

    c3 = make("tictactoe").parse_move("c3")

    class DiesOnC3(_Faulty):
        def observe(self, move: int) -> None:
            if move == c3:
                raise EngineError("The GTP engine 'x' could not be sent 'play b c3'.")

    def build(player_id: str, spec: PlayerSpec, seed: int | None) -> Any:
        return _Faulty(c3) if player_id == "A" else DiesOnC3(0)

    entry = play_game(task, build=build)
    assert entry["moves"] == ["c3"] and entry["reason"] == "three in a row"
    assert entry["winner"] == 0 and entry["score"] == 1.0


def test_an_engine_that_dies_while_told_the_opening_loses_the_game() -> None:
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ("a1", "a2"))
    broken = EngineError("The GTP engine 'x' closed its output while we waited for play b A1.")
    entry = play_game(task, build=_with_faulty_a(_Faulty(broken, "observe")))
    assert entry["moves"] == [] and entry["winner"] == 1 and entry["score"] == 0.0
    assert entry["reason"] == f"A forfeits: {broken}"


def test_another_error_of_a_player_still_stops_the_game() -> None:
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
    with pytest.raises(ZeroDivisionError):
        play_game(task, build=_with_faulty_a(_Faulty(ZeroDivisionError("a bug"))))


def test_players_built_on_one_engine_are_refused() -> None:
    shared = GenericMCTS(SearchConfig(seed=1))

    def build(player_id: str, spec: PlayerSpec, seed: int | None) -> Any:
        return MCTSPlayer(shared, budget=Budget(iterations=100))

    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
    with pytest.raises(ValueError, match=r"^Players A and B of play_game share one engine"):
        play_game(task, build=build)


def _games_against_random(player: str, games: int, tmp_path: Path) -> list[dict[str, Any]]:
    """The recorded games of ``player`` (as A) against random at tic-tac-toe."""
    out = tmp_path / "games.jsonl"
    code, output = arena(
        "arena", "tictactoe", "--player", player, "--player", "random",
        "--games", str(games), "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    return read(out)[1]


def test_a_resigning_gtp_engine_loses_each_game_and_the_run_goes_on(tmp_path: Path) -> None:
    engine = shlex.join(
        scripted(("(\\d+) genmove", [r"=\1 resign", ""]), ("(\\d+) .*", [r"=\1", ""]))
    )
    games = _games_against_random(f"engine:gtp={engine}", 2, tmp_path)
    assert [g["reason"] for g in games] == ["A resigned", "A resigned"]
    assert [g["score"] for g in games] == [0.0, 0.0]


def test_a_gtp_engine_is_told_its_time_and_loses_the_game_past_it(tmp_path: Path) -> None:
    # The engine accepts exactly the time of its spec, then never answers genmove.
    engine = shlex.join(
        scripted(
            ("(\\d+) time_settings 0 1 1$", [r"=\1", ""]),
            ("(\\d+) time_settings", [r"?\1 told the wrong time", ""]),
            ("(\\d+) genmove", []),
            ("(\\d+) .*", [r"=\1", ""]),
        )
    )
    games = _games_against_random(f"engine:seconds=1,gtp={engine}", 1, tmp_path)
    assert games[0]["players"][0]["spec"] == f"engine:seconds=1,gtp={engine}"
    assert games[0]["reason"].startswith("A lost on time: The GTP engine")
    assert "within 3 s." in games[0]["reason"] and games[0]["score"] == 0.0


@pytest.mark.parametrize("player", ["mcts:seconds=0.3", "mcts:seconds=0.3,workers=2"])
def test_ctrl_c_stops_an_in_process_run_although_the_search_catches_it(player: str) -> None:
    # A search stopped by Ctrl-C returns its best move (with workers, its own
    # handler hears the Ctrl-C); the run must stop anyway (before, the game
    # and the next ones were played to the end).
    task = GameTask("connect4", {}, (player, player), (1, 2), 0, 0, ())
    timer = threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            list(InProcess().play(iter([task, task])))
    finally:
        timer.join()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_crashing_game_stops_the_run_and_names_the_game(tmp_path: Path) -> None:
    task = GameTask("tictactoe", {"size": 3}, ("random", "random"), (1, 2), 7, 1, ())
    entry = run_task(task)
    assert entry["type"] == "error" and entry["index"] == 7
    assert "Unknown parameter(s) 'size'" in entry["error"]
    pool = ProcessPool(1)
    # Numbered from 1, as the progress lines count (before, "Game 7": the index).
    with pytest.raises(GameFailed, match=r"^Game 8 stopped on an error"):
        list(pool.play(iter([task])))


def test_a_crashing_game_of_a_sweep_names_its_point(tmp_path: Path) -> None:
    engine = f"engine:gtp={tmp_path / 'no-such-engine'}"
    args = ["arena", "tictactoe", "--player", engine, "--player", "random", "--games", "1"]
    args += ["--workers", "2", "--sweep", "seconds=1,2", "--out", str(tmp_path / "run.jsonl")]
    code, output = arena(*args)
    assert code == 1
    assert "Error: seconds=1, Game 1 stopped on an error: EngineError: Cannot start" in output


def test_a_ray_address_where_nothing_answers_fails_at_once(tmp_path: Path) -> None:
    pytest.importorskip("ray")  # Ray itself would retry without end
    with socket.socket() as bound:  # a port that is taken but takes no connections
        bound.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{bound.getsockname()[1]}"
        args = [*BASE, "--games", "2", "--ray", address, "--out", str(tmp_path / "r.jsonl")]
        code, output = arena(*args)
    assert code == 1 and f"cannot start or reach Ray at '{address}': nothing answers" in output
    assert not (tmp_path / "r.jsonl").exists()  # before, a record of its header alone


def test_ray_local_starts_a_ray_instance_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # "local" was passed to Ray as no address, with which Ray looks for a cluster to join
    # (RAY_ADDRESS, then the last `ray start`) before it starts one.
    ray = pytest.importorskip("ray")
    from mctslab.arena.backends import RayCluster

    monkeypatch.setenv("RAY_ADDRESS", "no-such-cluster")
    backend = RayCluster("local", 1)
    try:
        task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
        assert [entry["type"] for entry in backend.play(iter([task]))] == ["game"]
    finally:
        backend.close()
    assert not ray.is_initialized()


def test_ray_backend_plays_the_same_games(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from mctslab.arena.backends import RayCluster

    match = Match(
        "tictactoe",
        {},
        (parse_player(MCTS), parse_player("random")),
        StartPosition(),
        games=4,
    )
    with RunRecord.open(tmp_path / "local.jsonl", match.identity(), 3) as record:
        run_match(match, record, InProcess())
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with RunRecord.open(tmp_path / "ray.jsonl", match.identity(), 3) as record:
            results = run_match(match, record, RayCluster("auto"))
    finally:
        ray.shutdown()
    assert results[0].tally.games == 4
    assert without_times(read(tmp_path / "ray.jsonl")[1]) == without_times(
        read(tmp_path / "local.jsonl")[1]
    )


def test_a_ray_worker_that_dies_stops_the_run_naming_its_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker killed while it plays (Ray's memory monitor, the kernel's OOM killer): Ray's
    # own WorkerCrashedError went out as a traceback, where a local worker's death is a
    # GameFailed that the command says on its Error: line.
    ray = pytest.importorskip("ray")
    from mctslab.arena import backends

    def killed(task: GameTask) -> dict[str, Any]:
        os._exit(9)

    monkeypatch.setattr(backends, "run_task", killed)
    task = GameTask("tictactoe", {}, ("random", "random"), (1, 2), 0, 0, ())
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        with pytest.raises(GameFailed, match=r"^Game 1 stopped on an error: .*died"):
            list(backends.RayCluster("auto").play(iter([task])))
    finally:
        ray.shutdown()


def test_a_worker_told_to_stop_takes_no_more_games(monkeypatch: pytest.MonkeyPatch) -> None:
    # Numba's dispatcher makes a TypeError of any exception, SIGTERM's SystemExit too, which
    # the game's task then catches: before, the worker went on to the next task, and the
    # pool, which waited for it without end, hung after Ctrl-C.
    from mctslab.arena import backends

    def told_mid_game(task: object) -> dict[str, Any]:
        backends._Terminated.told = True  # as _exit_on_sigterm does before raising
        return {"type": "error", "index": 0}

    monkeypatch.setattr(backends, "run_task", told_mid_game)
    monkeypatch.setattr(backends._Terminated, "told", False)
    monkeypatch.setattr(backends.signal, "signal", lambda *args: None)  # this process's own
    tasks: queue.Queue[object] = queue.Queue()
    results: queue.Queue[object] = queue.Queue()
    for task in ("first", "second", None):
        tasks.put(task)
    backends._worker(tasks, results, os.getppid())
    assert results.qsize() == 1 and tasks.qsize() == 2


def test_the_help_says_what_the_seed_of_a_run_is() -> None:
    # It said "Random seed, for reproducible searches." as the searching commands do, though
    # the arena's seeds the players and the openings, and a resumed run keeps its record's.
    command = typer.main.get_command(app).commands["arena"]  # type: ignore[attr-defined]
    (seed,) = (param for param in command.params if param.name == "seed")
    assert seed.help.startswith("The run's seed, from which the players' and the openings'")
    assert "a resumed run keeps its record's" in seed.help
