"""Real pipes: mctslab's clients play whole games against mctslab's own engines as subprocesses,
each engine's stdout holds protocol lines only, bad input included, and an engine's processes
end when the client is done with them."""

from __future__ import annotations

import io
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mctslab._stdio import StdinLines, protocol_stdio, read_lines
from mctslab.arena import play_games
from mctslab.core.config import Budget, SearchConfig
from mctslab.games import make
from mctslab.players import MCTSPlayer, Player, RandomPlayer
from mctslab.protocols import (
    GomocupEnginePlayer,
    GTPEnginePlayer,
    NBoardEnginePlayer,
    _process,
    serve_stdio,
)
from mctslab.protocols._process import Deadline, program_name
from mctslab.protocols._serve import MIN_SECONDS, serve
from tests.protocols.helpers import exited_within, mctslab_command, play_game, scripted

ROOT = Path(__file__).resolve().parents[2]


def mcts(iterations: int, seed: int) -> MCTSPlayer:
    return MCTSPlayer("python", SearchConfig(seed=seed), Budget(iterations=iterations))


def engine_args(command: str, *args: str, iterations: int) -> list[str]:
    return mctslab_command(
        command, *args, "--engine", "python", "--iterations", str(iterations), "--seed", "3"
    )


def test_gomocup_client_plays_mctslabs_brain() -> None:
    brain = GomocupEnginePlayer(engine_args("brain", iterations=200), timeout_turn_ms=5000)
    ours = mcts(200, seed=1)
    try:
        # Two games on 7x7, the brain first then second (the second starts with RESTART).
        for players in ((brain, ours), (ours, brain)):
            state = make("gomoku", size=7)
            moves = play_game(state, players)
            assert state.is_terminal() and len(moves) >= 9  # five stones need nine moves
        assert brain.name == "gomocup:mctslab"  # from its ABOUT
    finally:
        brain.close()


def test_nboard_client_plays_mctslabs_engine() -> None:
    engine = NBoardEnginePlayer(engine_args("nboard", iterations=100), depth=1)
    try:
        state = make("othello")
        moves = play_game(state, [mcts(100, seed=2), engine])
        assert state.is_terminal() and len(moves) >= 9  # the shortest Othello game
        assert engine.name == "nboard:mctslab"
    finally:
        engine.close()


@pytest.mark.parametrize("game", ["connect4", "othello", "tictactoe"])
def test_gtp_client_plays_mctslabs_engine(game: str) -> None:
    engine = GTPEnginePlayer(engine_args("gtp", game, iterations=100))
    try:
        state = make(game)
        players: list[Player] = [engine, mcts(100, seed=4)]
        moves = play_game(state, players)
        assert state.is_terminal() and len(moves) >= 5
        assert engine.name == "gtp:mctslab"
    finally:
        engine.close()


#: What each engine may write on stdout.
PROTOCOL_LINES = {
    "brain": re.compile(r"^(OK|\d+,\d+|(UNKNOWN|ERROR|MESSAGE|DEBUG) .+|name=\".*)$"),
    "nboard": re.compile(r"^(set myname \S+|pong \d+|nodestats \d+ [\d.]+|=== \S+|status.*)$"),
    "gtp": re.compile(r"^([=?]\d* ?.*|)$"),
}


@pytest.mark.parametrize(
    ("command", "script", "answers", "last"),
    [
        (
            ["brain"],
            "START 7\nFOO\nTURN x\nBOARD\n1,2\nDONE\nINFO rule 4\nTURN 3,3\n",
            6,
            r"^\d+,\d+$",
        ),
        (["nboard"], "nboard 2\nset depth 1\nfrobnicate\nmove z9\nping 1\ngo\n", 6, r"^=== "),
        (["gtp", "tictactoe"], "1 name\nfrob\n2 play b z9\n3 genmove b\nquit\n", 10, r"^=$"),
    ],
    ids=["gomocup", "nboard", "gtp"],
)
def test_stdout_holds_protocol_lines_only(
    command: list[str], script: str, answers: int, last: str
) -> None:
    result = subprocess.run(
        engine_args(*command, iterations=50),
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == answers, result.stdout
    pattern = PROTOCOL_LINES[command[0]]
    assert all(pattern.match(line) for line in lines), result.stdout
    # After the bad commands the engine still answered the last one.
    assert re.match(last, [line for line in lines if line][-1]), result.stdout


class _Broken(io.StringIO):
    def __iter__(self) -> Iterator[str]:
        yield "name\n"
        raise ValueError("the input broke")


def test_a_reader_that_fails_ends_the_server_with_its_error() -> None:
    # Before, the reading thread died and the server waited for a line for ever.
    # The lines read before the failure are handed on first, then the error is raised.
    handed: list[str] = []
    with pytest.raises(ValueError, match="the input broke"):
        for line, _ in StdinLines(_Broken()):
            handed.append(line)
    assert handed == ["name\n"]
    # No stdin at all (closed as the process began) is an input at its end.
    assert list(StdinLines(None)) == []


def test_a_server_that_hears_no_line_has_none_kept_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the reader kept every line for a listener (GTP has none) for the process's life.
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\nb\n"))

    class Quiet:
        finished = False

        def handle(self, line: str, arrived: float | None = None) -> list[str]:
            return []

    with protocol_stdio() as stdio:
        serve_stdio(Quiet())
        assert stdio.lines._unheard == []


def test_serve_feeds_plain_lines_to_a_server_that_takes_the_line_alone() -> None:
    class Echo:
        finished = False

        def handle(self, line: str) -> list[str]:
            return [line.upper()]

    written: list[str] = []
    serve(Echo(), ["a", "b"], written.append)  # type: ignore[arg-type]
    assert written == ["A", "B"]


def test_stray_output_is_sent_to_stderr() -> None:
    # A server whose work prints to stdout, from Python and below it (file descriptor 1).
    code = textwrap.dedent(
        """
        import os
        from mctslab.protocols import serve_stdio

        class Noisy:
            finished = False
            def handle(self, line, arrived=None):
                print("stray print")
                os.write(1, b"stray write\\n")
                return ["reply " + line.strip()]

        serve_stdio(Noisy())
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input="a\nb\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["reply a", "reply b"]
    assert result.stderr.count("stray print") == 2 and result.stderr.count("stray write") == 2


#: The ``mctslab`` command (its command line argv[1:]) with the Python code of the environment
#: variable ``LOADING`` run as it loads the games: ``mctslab.cli.main`` finds
#: ``mctslab.cli._app`` stubbed with a ``run`` that runs the code, then the real one.
MCTSLAB_LOADING = textwrap.dedent(
    """
    import os, subprocess, sys, types
    from mctslab import cli

    def load_and_run():
        exec(os.environ["LOADING"], globals())
        del sys.modules["mctslab.cli._app"]
        from mctslab.cli._app import run
        run()

    stub = types.ModuleType("mctslab.cli._app")
    stub.run = load_and_run
    sys.modules["mctslab.cli._app"] = stub
    sys.argv[0] = "mctslab"
    cli.main()
    """
)


def test_what_a_protocol_command_prints_as_it_loads_goes_to_stderr() -> None:
    # As numba's cache messages do (NUMBA_DEBUG_CACHE=1): before, stdout was taken for the
    # protocol once the games had loaded and the engine had started, with its workers.
    loading = textwrap.dedent(
        """
        print("printed while loading")
        os.write(1, b"written while loading\\n")
        subprocess.run([sys.executable, "-c", "print('a child process while loading')"])
        """
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            MCTSLAB_LOADING,
            "brain",
            "--engine",
            "python",
            "--iterations",
            "50",
        ],
        input="START 7\nBEGIN\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "LOADING": loading},
    )
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert len(answers) == 2 and answers[0] == "OK" and re.match(r"^\d+,\d+$", answers[1])
    for stray in (
        "printed while loading",
        "written while loading",
        "a child process while loading",
    ):
        assert stray in result.stderr
    # Its help is no protocol: on stdout.
    help_text = subprocess.run(
        mctslab_command("brain", "--help"), capture_output=True, text=True, timeout=60, check=False
    ).stdout
    assert "--seconds" in help_text


def test_the_first_moves_time_counts_from_its_arrival_however_slow_the_start() -> None:
    # Gomocup's managers send START, INFO and the first move at once, and time the move
    # from then. Before, stdin was read once the games had loaded and the engine had
    # started, and the first move searched its whole time after that.
    loading = textwrap.dedent(
        """
        import atexit, time
        from mctslab.cli import _protocol
        from tests.protocols.helpers import RecordingEngine

        time.sleep(1.0)  # a slow load (a first run compiles the games: half a minute)
        engine = RecordingEngine()
        _protocol.new_engine = lambda *args, **kwargs: engine
        budgets = engine.budgets
        atexit.register(lambda: print("budgets", [b.seconds for b in budgets], file=sys.stderr))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", MCTSLAB_LOADING, "brain", "--engine", "python"],
        input="START 9\r\nINFO timeout_turn 500\r\nBEGIN\r\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "LOADING": loading},
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    # The 0.4 s the move had were gone: it searched as little as it can.
    assert f"budgets [{MIN_SECONDS}]" in result.stderr


def test_the_brain_reads_commands_ended_by_cr_alone() -> None:
    # The Gomocup protocol allows CR alone; before, text-mode stdin read the whole input
    # as one line: "ERROR START takes the board size; got '8\rINFO ...'".
    result = subprocess.run(
        [sys.executable, "-m", "mctslab", "brain", "--engine", "python", "--iterations", "50"],
        input=b"START 8\rINFO timeout_turn 500\rBEGIN\r",
        capture_output=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    answer, move = result.stdout.decode().splitlines()
    assert answer == "OK" and re.fullmatch(r"[0-7],[0-7]", move)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["./pbrain-foo"], "pbrain-foo"),
        (["python3", "engines/resigner.py", "--fast"], "resigner.py"),
        (["/usr/bin/python3.11", "-u", "engine.py"], "engine.py"),
        ([sys.executable, "-m", "mctslab", "gtp", "othello"], "mctslab"),
        (["python3"], "python3"),
        (["python3", "-W", "ignore", "-X", "dev", "engine.py"], "engine.py"),
        (["python3", "-c", "import engine; engine.main()"], "python3"),
    ],
)
def test_an_engine_is_named_by_its_program_or_its_script(args: list[str], name: str) -> None:
    assert program_name(args) == name


def next_within(seconds: float, lines: Iterator[str]) -> str:
    """The next of ``lines``; queue.Empty if it takes more than ``seconds``."""
    got: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: got.put(next(lines)), daemon=True).start()
    return got.get(timeout=seconds)


def test_lines_end_with_cr_lf_lf_or_cr_alone_each_as_it_arrives() -> None:
    reading, writing = os.pipe()
    with open(reading, "rb", buffering=0) as reader:
        lines = read_lines(reader.fileno())
        with open(writing, "wb", buffering=0) as writer:
            writer.write(b"OK\r")
            assert next_within(5, lines) == "OK"  # at once: no waiting for an LF that may follow
            writer.write(b"\n3,3\r\n")  # that CR's LF (no empty line), then a CR LF line
            assert next_within(5, lines) == "3,3"
            writer.write(b"MESSAGE \xc3\xa9\n\r\nDEBUG \xff\rlast")
        assert list(lines) == ["MESSAGE \u00e9", "", "DEBUG \ufffd", "last"]


def wrapped(command: list[str]) -> list[str]:
    """``command`` run by a shell script that waits for it, as a wrapper script does (run.sh,
    wine); ``exit`` keeps the shell there, which would otherwise exec a last command."""
    return ["sh", "-c", f"{shlex.join(command)}; exit $?"]


def test_without_waitid_an_engine_is_still_killed_with_its_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # macOS before Python 3.13 has no os.waitid: every engine client raised AttributeError.
    monkeypatch.delattr(os, "waitid", raising=False)
    monkeypatch.setattr(_process, "CLOSE_GRACE", 0.2)
    engine = _process.EngineProcess(["sh", "-c", "sleep 60 & echo $!; wait"], "GTP engine")
    child = int(engine.receive(Deadline.after(5.0), "its child's pid"))
    assert engine.alive
    engine.close()
    assert not engine.alive and exited_within(5, child)


def test_an_engine_that_dies_is_reported_with_all_its_last_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its stderr is read by a thread of its own, which may not have read the last lines
    # when the engine's exit is noticed (under load, in the full test suite): before,
    # the error went out without them.
    keep_stderr = _process.EngineProcess._keep_stderr

    def slow_reader(self: _process.EngineProcess, stream: object) -> None:
        time.sleep(0.2)
        keep_stderr(self, stream)  # type: ignore[arg-type]

    monkeypatch.setattr(_process.EngineProcess, "_keep_stderr", slow_reader)
    dying = "import sys; sys.stderr.write('[boom]\\n'); sys.exit(3)"
    engine = _process.EngineProcess([sys.executable, "-c", dying], "GTP engine")
    with pytest.raises(_process.EngineError, match=r"status 3\)\.(.|\n)*\[boom\]"):
        engine.receive(Deadline.after(5.0), "name")


def test_closing_an_engine_stops_the_processes_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    # An engine behind a wrapper script that lingers after quit: killing the wrapper alone
    # left the engine running.
    monkeypatch.setattr(_process, "CLOSE_GRACE", 0.2)
    engine = scripted(
        ("(\\d+) name", [r"=\1 $PID", ""]), ("quit", ["SLEEP 60"]), ("(\\d+) .*", [r"=\1", ""])
    )
    player = GTPEnginePlayer(wrapped(engine), startup_seconds=10)
    player.start(make("tictactoe"))
    pid = int(player.name.removeprefix("gtp:"))
    player.close()
    if not exited_within(5, pid):
        os.kill(pid, signal.SIGKILL)  # nothing is left behind
        pytest.fail("the engine behind the wrapper outlived close()")


def test_an_engine_is_killed_even_when_its_close_is_interrupted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A pool worker told to stop (SIGTERM, raised as SystemExit) while a game closes its
    # engine: the exception cut the grace an engine gets to exit, and the kill after it,
    # so the engine and what it started ran on under init.
    engine = _process.EngineProcess(["sh", "-c", "sleep 60 & echo $!; wait"], "GTP engine")
    child = int(engine.receive(Deadline.after(5.0), "its child's pid"))

    def terminated(seconds: float) -> bool:
        raise SystemExit(128 + signal.SIGTERM)  # as the worker's handler raises it

    monkeypatch.setattr(engine, "_exited_within", terminated)  # during the grace
    with pytest.raises(SystemExit):
        engine.close()
    if not exited_within(5, child):
        os.kill(child, signal.SIGKILL)
        pytest.fail("the engine's process outlived an interrupted close()")


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="no os.waitid (macOS before 3.13)")
def test_an_engine_is_killed_with_its_group_before_it_is_reaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A wrapper that exits at once, leaving its engine behind. close() reaped the wrapper
    # before it killed the group: once reaped, the wrapper's pid, the group's id, may be
    # given to another process group (once the group is empty), which the kill would hit.
    kill_group = os.killpg
    leader_when_killed: list[str] = []

    def killpg(group: int, sig: int) -> None:
        try:
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            exited = os.waitid(os.P_PID, group, flags) is not None
            leader_when_killed.append("exited" if exited else "running")
        except ChildProcessError:
            leader_when_killed.append("reaped")
        kill_group(group, sig)

    monkeypatch.setattr(_process.os, "killpg", killpg)
    engine = _process.EngineProcess(["sh", "-c", "sleep 60 & echo $!"], "GTP")
    child = int(engine.receive(Deadline.after(10), "its start"))
    os.waitid(os.P_PID, engine._process.pid, os.WEXITED | os.WNOWAIT)  # the wrapper has exited
    engine.close()
    assert leader_when_killed == ["exited"]
    if not exited_within(5, child):
        os.kill(child, signal.SIGKILL)
        pytest.fail("the engine left behind by its wrapper outlived close()")


#: Each protocol's engine that never answers a move in time (its name is its process id),
#: with a game for it.
SLOW_ENGINES = {
    "gomocup": (
        lambda: GomocupEnginePlayer(
            scripted(
                ("START|RESTART", ["OK"]), ("ABOUT", ['name="$PID"']), ("BEGIN|TURN", ["SLEEP 30"])
            ),
            timeout_turn_ms=100,
            grace_seconds=0.3,
            startup_seconds=10,
        ),
        "gomoku",
        {"size": 7},
    ),
    "gtp": (
        lambda: GTPEnginePlayer(
            scripted(
                ("(\\d+) name", [r"=\1 $PID", ""]),
                ("(\\d+) genmove", ["SLEEP 30"]),
                ("(\\d+) .*", [r"=\1", ""]),
            ),
            move_seconds=0.5,
            startup_seconds=10,
        ),
        "tictactoe",
        {},
    ),
    "nboard": (
        lambda: NBoardEnginePlayer(
            scripted(
                ("ping (\\d+)", [r"pong \1"]), ("nboard", ["set myname $PID"]), ("go", ["SLEEP 30"])
            ),
            move_seconds=0.5,
            startup_seconds=10,
        ),
        "othello",
        {},
    ),
}


@pytest.mark.parametrize("protocol", SLOW_ENGINES)
def test_an_engine_out_of_time_is_killed_and_the_next_game_gets_a_new_one(protocol: str) -> None:
    # Left running, it still owed its late answer when the next game started, and that
    # game's start failed on it.
    new_player, game, params = SLOW_ENGINES[protocol]
    player = new_player()
    try:
        entries = play_games(game, player, RandomPlayer(seed=1), games=2, params=params)
        assert [entry["reason"].split(":")[0] for entry in entries] == ["A lost on time"] * 2
        # The second game's engine (player A) was killed when its time ran out.
        assert exited_within(1, int(player.name.split(":")[1]))
    finally:
        player.close()


def engine_searching_30_s(command: str) -> subprocess.Popen[str]:
    """mctslab's ``command`` engine as a process, given 30 s a move (the generic engine)."""
    args = mctslab_command(command, "--engine", "python", "--seconds", "30")
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def send(engine: subprocess.Popen[str], text: str) -> None:
    assert engine.stdin is not None
    engine.stdin.write(text)
    engine.stdin.flush()


def reply(engine: subprocess.Popen[str]) -> str:
    assert engine.stdout is not None
    return engine.stdout.readline().strip()


def test_nboard_ping_stops_a_search_under_way() -> None:
    # "ping n - Stop thinking and respond with pong n" (NBoard protocol). Before, the
    # ping waited for the search: here 30 s, the --seconds this engine is given.
    with engine_searching_30_s("nboard") as engine:
        send(engine, "nboard 2\nset depth 60\nset game (;GM[Othello]TY[8];)\ngo\n")
        assert reply(engine).startswith("set myname")
        assert reply(engine).startswith("status")  # thinking
        began = time.monotonic()
        send(engine, "ping 7\n")
        replies = [reply(engine) for _ in range(2)]
        waited = time.monotonic() - began
        send(engine, "quit\n")
    # The cancelled go sends no move, only the status line cleared (test_nboard.py).
    assert replies == ["status", "pong 7"] and waited < 15.0


def test_gomocup_end_stops_a_search_under_way() -> None:
    # "END - When the brain receives this command, it must terminate as soon as
    # possible" (Gomocup protocol); managers kill a brain about 1 s later. Before,
    # END waited for the search: here up to 30 s, the --seconds this brain is given.
    with engine_searching_30_s("brain") as brain:
        send(brain, "START 15\nINFO timeout_turn 30000\nBEGIN\n")
        assert reply(brain) == "OK"
        began = time.monotonic()
        send(brain, "END\n")
        assert brain.wait(timeout=20) == 0
        waited = time.monotonic() - began
        # "The brain should not write anything to output after the END command": before,
        # the stopped search's move was still sent.
        assert brain.stdout is not None and brain.stdout.read() == ""
    assert waited < 15.0
