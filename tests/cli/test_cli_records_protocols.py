"""Game records on the command line (play --load/--save, analyze --record) and the protocol
commands (brain, nboard, gtp) driven through Typer's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mctslab import make
from mctslab.cli import _options as opt
from mctslab.cli import _protocol, _records
from mctslab.cli._app import app
from mctslab.cli._protocol import thinker as protocol_thinker
from mctslab.core.engine import Engine
from mctslab.players.mcts import new_engine as real_new_engine
from mctslab.records import load_record

runner = CliRunner()


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.output


def test_play_saves_a_record_that_loads_back(tmp_path: Path) -> None:
    path = tmp_path / "new folder" / "game.txt"  # made for the record
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--moves", "b2 a1", "--iterations", "300",
        "--engine", "python", "--seed", "5", "--save", str(path),
    )  # fmt: skip
    assert code == 0, output
    assert f"Game record saved to {path}." in output  # one line, however long the path
    record = load_record(path.read_text())
    assert record.final.is_terminal()
    assert record.notation()[:2] == ["b2", "a1"]  # the --moves are part of the game
    assert record.tags == {"X": "mcts-python", "O": "mcts-python", "Result": "1/2-1/2"}
    assert "Result: draw" in output


def _play_loaded(
    record: str, keys: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *options: str
) -> tuple[str, Path]:
    """``play --load`` of ``record`` at a terminal with ``options``, typing ``keys``; the
    output and the save."""
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    loaded, saved = tmp_path / "start.txt", tmp_path / "end.txt"
    loaded.write_text(record)
    code, output = run(
        "play", "--load", str(loaded), "--iterations", "50", "--engine", "python",
        "--save", str(saved), *options, input=keys,
    )  # fmt: skip
    assert code == 0, output
    return output, saved


def test_play_continues_a_loaded_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = 'tictactoe\n[Event "test"]\na1 a2 b2 b3\n'
    output, saved = _play_loaded(record, "c3\n", tmp_path, monkeypatch)
    assert "X (you) wins (three in a row)" in output
    record_saved = load_record(saved.read_text())
    assert record_saved.notation() == ["a1", "a2", "b2", "b3", "c3"]
    assert record_saved.tags["X"] == "you" and record_saved.tags["Result"] == "1-0"
    # The loaded record's own tags are kept, first (before, only the players and result).
    assert next(iter(record_saved.tags)) == "Event" and record_saved.tags["Event"] == "test"


def test_only_the_sides_that_moved_are_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, saving a loaded game named "you" and the AI for both sides, whoever moved.
    record = 'tictactoe\n[X "Alice"]\n[O "Bob"]\na1 a2 b2 b3\n'
    _, saved = _play_loaded(record, "c3\n", tmp_path, monkeypatch)
    assert load_record(saved.read_text()).tags == {"X": "you", "O": "Bob", "Result": "1-0"}
    # A finished game loaded and saved again: nobody moved, so nobody is renamed.
    finished = 'tictactoe\n[X "Alice"]\n[O "Alice"]\n[Result "1-0"]\na1 a2 b1 b2 c1\n'
    path = tmp_path / "finished.txt"
    path.write_text(finished)
    code, output = run(
        "play", "--load", str(path), "--ai-vs-ai", "--iterations", "50", "--engine", "python",
        "--save", str(path),
    )  # fmt: skip
    assert code == 0, output
    assert path.read_text() == finished
    # Moves given with --moves are this session's (before, credited to the record's players),
    # and those taken back are no longer anyone's (before, the names stayed replaced).
    _, saved = _play_loaded(record, "", tmp_path, monkeypatch, "--moves", "c3")
    assert load_record(saved.read_text()).tags == {"X": "you", "O": "Bob", "Result": "1-0"}
    _, saved = _play_loaded(record, "c2\nundo\nundo\nquit\n", tmp_path, monkeypatch)
    assert load_record(saved.read_text()).notation() == ["a1", "a2"]
    assert load_record(saved.read_text()).tags == {"X": "Alice", "O": "Bob", "Result": "*"}


def test_undo_takes_back_loaded_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "There is no move of yours to take back." for any move of the record.
    record = "tictactoe\na1 a2 b2 b3\n"
    output, saved = _play_loaded(record, "undo\nundo\nquit\n", tmp_path, monkeypatch)
    assert "no move of yours" not in output
    assert load_record(saved.read_text()).notation() == []  # X's b2 and a1 taken back


def test_quitting_saves_the_unfinished_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    saved = tmp_path / "quit.txt"
    code, output = run(
        "play", "connect4", "--iterations", "50", "--engine", "python", "--seed", "1",
        "--save", str(saved), input="4\nquit\n",
    )  # fmt: skip
    assert code == 0, output
    record = load_record(saved.read_text())
    assert record.notation()[0] == "4" and len(record.moves) == 2
    assert record.tags["Result"] == "*"


def test_a_game_that_ended_before_its_position_did_is_not_played_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a resigned game loaded was played on, and its save overwrote the result.
    record = 'tictactoe\n[X "Alice"]\n[O "Bob"]\n[Result "0-1"]\na1 b2\n'
    path = tmp_path / "resigned.txt"
    path.write_text(record)
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    game = ["play", "--load", str(path), "--iterations", "50", "--engine", "python"]
    code, output = run(*game, "--save", str(path), input="c3\n")
    assert code == 0, output
    text = " ".join(output.split())
    assert "The record's game ended 0-1 before its position did" in text
    assert "Your move" not in text and "X to move" not in text
    assert "Result: O (the AI) wins (as the record ends it) after 2 moves." in text
    assert path.read_text() == record  # saved as it was
    code, output = run(*game, "--moves", "c3")
    assert code == 2 and 'set its Result tag to "*"' in " ".join(output.split())
    # Without side tags it is saved as it was too, with no player set up or named for it.
    bare = tmp_path / "bare.txt"
    bare.write_text('tictactoe\n[Result "0-1"]\nb2 a1\n')
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: False)
    code, output = run(*game[:1], "--load", str(bare), *game[3:], "--save", str(bare))
    assert code == 0, output
    assert bare.read_text() == 'tictactoe\n[Result "0-1"]\nb2 a1\n'
    assert "No terminal" not in output and "Result: O wins (as the record ends it)" in output
    monkeypatch.setattr("mctslab.cli._options.stdin_is_terminal", lambda: True)
    # Its Result tag set to "*", the game goes on from its position.
    output, saved = _play_loaded(record.replace('"0-1"', '"*"'), "c3\n", tmp_path, monkeypatch)
    assert load_record(saved.read_text()).notation()[:3] == ["a1", "b2", "c3"]


def test_a_save_refused_at_the_end_is_a_failure_not_a_mistake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The path was checked before the game: a save that fails at its end (a full disk, a
    # folder gone) exits 1 without the usage hint; before, 2 with it.
    monkeypatch.setattr(_records, "save", lambda *args: "cannot write the game record: gone.")
    code, output = run(
        "play", "tictactoe", "--ai-vs-ai", "--iterations", "50", "--engine", "python",
        "--save", str(tmp_path / "game.txt"),
    )  # fmt: skip
    assert code == 1 and "cannot write the game record: gone." in output
    assert "--help" not in output


def test_a_save_path_that_cannot_be_written_is_refused_before_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the game was played to the end and then "File exists" was all it said.
    (tmp_path / "afile").write_text("")
    built: list[object] = []
    monkeypatch.setattr(opt, "mcts_player", lambda *args: built.append(args))
    target = tmp_path / "afile" / "game.txt"
    code, output = run("play", "tictactoe", "--save", str(target))
    assert code == 2 and not built
    message = (
        f"cannot write the game record {target}: {tmp_path / 'afile'} is a file, not a folder."
    )
    assert message in " ".join(output.split())
    # The check leaves nothing behind when the game then does not start.
    fresh = tmp_path / "fresh.txt"
    code, output = run("play", "tictactoe", "--save", str(fresh), "--opponent", "wizard")
    assert code == 2 and "--opponent:" in output and not fresh.exists()


def test_analyze_a_record(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    # X holds a1 and b2, O holds a2: O must block c3, the one square that completes X's line.
    path.write_text("tictactoe\na1 a2 b2\n")
    code, output = run(
        "analyze", "--record", str(path), "--iterations", "2000", "--engine", "python",
        "--seed", "1", "--json",
    )  # fmt: skip
    assert code == 0, output
    assert json.loads(output)["best_move"] == "c3"
    # After O's b3 instead (--moves go on from the record), X completes the diagonal at c3.
    code, output = run(
        "analyze", "--record", str(path), "--moves", "b3", "--iterations", "2000",
        "--engine", "python", "--seed", "1", "--json",
    )  # fmt: skip
    assert code == 0, output
    assert json.loads(output)["best_move"] == "c3"


@pytest.mark.parametrize(
    ("args", "record", "message"),
    [
        (["analyze", "gomoku"], "tictactoe\n", "records a game of tictactoe, not gomoku"),
        (["analyze", "--size", "9"], "gomoku size=7\n", "sets the game's parameters; drop --size"),
        (["play"], "tictactoe\nb2 b2\n", "record line 2, move 2 ('b2'): 'b2' is not legal"),
        (["analyze"], "tictactoe\na1 a2 b1 b2 c1\n", "the game is already over"),
    ],
)
def test_record_errors(tmp_path: Path, args: list[str], record: str, message: str) -> None:
    path = tmp_path / "r.txt"
    path.write_text(record)
    option = "--load" if args[0] == "play" else "--record"
    code, output = run(*args, option, str(path), "--engine", "python")
    assert code == 2
    assert message in " ".join(output.split())


@pytest.mark.parametrize("option", ["play --load", "analyze --record"])
def test_a_record_file_may_begin_with_a_bom_but_must_be_utf_8(tmp_path: Path, option: str) -> None:
    # Notepad begins UTF-8 files with a byte order mark: before, the game was
    # "unknown game '\ufeffgomoku'"; a file in another encoding was a traceback.
    command, flag = option.split()
    path = tmp_path / "notepad.txt"
    path.write_bytes("\ufeffgomoku size=8\r\nd4 e5\r\n".encode())
    code, output = run(command, flag, str(path), "--iterations", "20", "--engine", "python")
    assert code == 0, output
    assert "Black to move" in output  # after d4 e5
    path.write_bytes('tictactoe\n[Black "Ren\xe9"]\nb2\n'.encode("latin-1"))
    code, output = run(command, flag, str(path), "--engine", "python")
    assert code == 2 and "Traceback" not in output
    message = f"{path}: line 2 is not UTF-8 text (byte 0xe9); save the file as UTF-8."
    assert message in " ".join(output.split())


def test_a_game_or_a_record_is_needed(tmp_path: Path) -> None:
    code, output = run("analyze")
    assert code == 2 and "name the game" in output
    code, output = run("play", "--load", str(tmp_path / "missing.txt"))
    assert code == 2 and "cannot read the game record" in output


def test_protocol_commands_have_help() -> None:
    for command in ("brain", "nboard", "gtp"):
        code, output = run(command, "--help")
        assert code == 0 and "--seconds" in output and "--engine" in output


def test_gtp_command_speaks_gtp() -> None:
    code, output = run(
        "gtp", "gomoku", "--size", "9", "--engine", "python", "--iterations", "50",
        input="1 protocol_version\n2 boardsize 9\n3 play black e5\n4 genmove white\nquit\n",
    )  # fmt: skip
    assert code == 0, output
    lines = output.splitlines()
    assert lines[:6] == ["=1 2", "", "=2", "", "=3", ""]
    assert lines[6].startswith("=4 ") and lines[8] == "="


def test_protocol_commands_check_their_options() -> None:
    code, output = run("gtp", "countdown")
    assert code == 2 and "GTP is offered for the board games" in output
    code, output = run("brain", "--engine", "gpu")
    assert code == 2 and "choose compiled or python; got 'gpu'" in output
    # The library's message, in the library's terms (before: "use --engine compiled").
    code, output = run("gtp", "tictactoe", "--engine", "python", "--workers", "2")
    message = "searches on one thread; use the compiled engine or one worker"
    assert code == 2 and message in " ".join(output.split())


def test_a_protocol_engine_starts_its_workers_before_the_first_command() -> None:
    # Before, the first search started them, and the first move of an engine with
    # --workers 2 took 2 to 3.4 s whatever the controller's clock allowed.
    thinker = protocol_thinker("compiled", 1, None, None, 0.1, 2, make("gomoku", size=9))
    try:
        pool = getattr(thinker.engine, "_pool", None)
        assert pool is not None and pool.alive
        result = thinker.search(make("gomoku", size=9))
        assert result.simulations > 0 and thinker.engine._pool is pool  # type: ignore[attr-defined]
    finally:
        thinker.close()


def test_a_protocol_command_takes_stdout_before_its_engine_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Starting the engine prints (numba's cache messages, its worker processes): before,
    # stdout became the protocol's only once the engine had started, after that output.
    def new_engine(*args: Any, **kwargs: Any) -> Engine:
        print("printed while the engine starts")
        return real_new_engine(*args, **kwargs)

    monkeypatch.setattr(_protocol, "new_engine", new_engine)
    result = runner.invoke(app, ["brain", "--engine", "python"], input="START 7\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "OK\n" and "printed while the engine starts" in result.stderr
