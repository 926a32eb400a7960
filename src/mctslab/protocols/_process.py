"""An external engine as a subprocess: lines over pipes, with timeouts and clear failures.

Two daemon threads drain the engine's stdout (into a queue read with a
timeout) and stderr (its last lines are kept for error messages), so an
engine that talks a lot on stderr never blocks on a full pipe.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mctslab._stdio import read_lines
from mctslab.games._base import os_reason

#: Lines of the engine's stderr (and of the conversation) quoted when it fails.
TAIL_LINES = 8
#: Seconds a closing engine gets to exit before it is killed.
CLOSE_GRACE = 2.0
#: Seconds a move may take beyond the engine's time limit before it is lost on time.
MOVE_GRACE = 2.0
#: Seconds between checks of whether an engine has exited (it is not reaped meanwhile).
_EXIT_POLL = 0.01


class EngineError(RuntimeError):
    """An external engine could not start, died, timed out, or broke its protocol."""


class EngineTimeoutError(EngineError):
    """An external engine did not answer in time."""


class EngineResignedError(EngineError):
    """An external engine resigned (GTP's ``genmove`` answered ``resign``).

    ``player`` is the index of the side that resigned, for a caller scoring the game.
    """

    def __init__(self, message: str, player: int) -> None:
        super().__init__(message)
        self.player = player


@dataclass(frozen=True)
class Deadline:
    """When an answer is due: ``seconds`` (the limit, which a timeout names) from when it
    was set; :meth:`after` sets one from now."""

    seconds: float
    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(seconds, time.monotonic() + seconds)

    def left(self) -> float:
        """Seconds still to wait, 0 once it has passed."""
        return max(0.0, self.at - time.monotonic())


def command_args(command: str | Sequence[str], owner: str) -> list[str]:
    """The argument list of ``command`` (a shell-like string is split as a POSIX shell does)."""
    args = shlex.split(command) if isinstance(command, str) else [str(arg) for arg in command]
    if not args:
        raise ValueError(
            f"The 'command' parameter of {owner} must name a program to run. "
            f"Got {command!r} instead."
        )
    return args


def program_name(args: Sequence[str]) -> str:
    """A short name for the engine: its program's file name, or its script's when the
    program is an interpreter (``python3 engine.py`` is ``engine.py``)."""
    program = Path(args[0]).name or args[0]
    if not re.fullmatch(r"(python|pypy)[0-9.]*(\.exe)?", program.lower()):
        return program
    rest = list(args[1:])
    if "-m" in rest[:-1]:
        return rest[rest.index("-m") + 1]
    script = next((arg for arg in rest if arg.endswith((".py", ".pyw"))), None)
    return program if script is None else Path(script).name


class EngineProcess:
    """One running engine; ``protocol`` names it in error messages (e.g. "Gomocup")."""

    def __init__(self, args: Sequence[str], protocol: str) -> None:
        self.args = list(args)
        self.label = f"{protocol} engine {program_name(self.args)!r}"
        try:
            self._process = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                # A session, and so a process group, of its own: kill() stops what the engine
                # started too (the engine behind a wrapper script such as run.sh, wine's program).
                start_new_session=True,
            )
        except OSError as error:
            # The reason alone: an OSError's text repeats the errno and the program's path.
            raise EngineError(
                f"Cannot start the {self.label} ({shlex.join(self.args)}): {os_reason(error)}."
            ) from error
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=TAIL_LINES)
        self._talk: deque[str] = deque(maxlen=TAIL_LINES)
        self._killed = False
        assert self._process.stdout is not None and self._process.stderr is not None
        threading.Thread(target=self._drain, args=(self._process.stdout,), daemon=True).start()
        self._stderr_reader = threading.Thread(
            target=self._keep_stderr, args=(self._process.stderr,), daemon=True
        )
        self._stderr_reader.start()

    @property
    def alive(self) -> bool:
        return not self._exited_within(0.0)

    def send(self, line: str, newline: str = "\n") -> None:
        """Write one line to the engine (flushed)."""
        stdin = self._process.stdin
        assert stdin is not None
        self._talk.append(f"> {line}")
        try:
            stdin.write((line + newline).encode("utf-8"))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self.failure(f"could not be sent {line!r}") from None

    def receive(self, deadline: Deadline, command: str) -> str:
        """The engine's next line (line ending removed), part of its answer to ``command``
        (e.g. "TURN 2,1", which error messages name); once ``deadline`` has passed the
        engine is killed and EngineTimeoutError raised."""
        try:
            line = self._lines.get(timeout=deadline.left())
        except queue.Empty:
            raise self._given_up(
                EngineTimeoutError(
                    f"The {self.label} did not answer {command} within {deadline.seconds:g} s."
                    + self._context()
                )
            ) from None
        if line is None:
            self._lines.put(None)  # later reads fail the same way
            raise self.failure(f"closed its output while we waited for its answer to {command}")
        self._talk.append(f"< {line}")
        return line

    def failure(self, what: str) -> EngineError:
        """An error saying the engine ``what``, with its exit status and last words; the
        engine is killed if it has not exited."""
        exited = self._exited_within(0.5)
        self.kill()
        status = f" (it exited with status {self._process.returncode})" if exited else ""
        # Its last words may still be on their way through the pipe: read them all.
        self._stderr_reader.join(timeout=0.5)
        return EngineError(f"The {self.label} {what}{status}." + self._context())

    def protocol_error(self, line: str, expected: str) -> EngineError:
        """An error for a line that the protocol does not allow here; the engine is killed."""
        return self._given_up(
            EngineError(
                f"The {self.label} answered {line!r} where the protocol expects {expected}."
                + self._context()
            )
        )

    def close(self, farewell: Sequence[str] = (), newline: str = "\n") -> None:
        """Say ``farewell`` (e.g. "END", "quit"), close its input, give it ``CLOSE_GRACE``
        seconds to exit, then kill what is left of it: the engine if it lingers, and any
        process it started that outlives it. The kill happens even when an exception (a
        pool worker's SIGTERM, Ctrl-C) cuts the farewell or the grace short."""
        try:
            if self.alive:
                for line in farewell:
                    try:
                        self.send(line, newline)
                    except EngineError:
                        break
            try:
                if self._process.stdin is not None:
                    self._process.stdin.close()
            except OSError:
                pass
            self._exited_within(CLOSE_GRACE)
        finally:
            self.kill()

    def kill(self) -> None:
        """Kill the engine at once, with every process it started, then reap it."""
        if not self._killed:
            # Signalled once only, and before the engine is reaped: until then its pid, the
            # group's id, cannot be given to another process group, which must not be signalled.
            self._killed = True
            if sys.platform == "win32":  # no process groups: the engine alone
                self._process.kill()
            else:
                # None of them is left (macOS says EPERM where only zombies are).
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()

    def _exited_within(self, seconds: float) -> bool:
        """Whether the engine has exited, waiting up to ``seconds`` for it. On POSIX it is
        left unreaped (a zombie, which Popen's poll and wait would reap), so that kill()
        still signals its group, not another group given its pid."""
        if not hasattr(os, "waitid"):
            # Windows has no process groups, so reaping is harmless; macOS before Python
            # 3.13 has no waitid, and there the group is signalled after reaping, as it was.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=seconds)
            return self._process.returncode is not None
        deadline = time.monotonic() + seconds
        while self._process.returncode is None:  # None until kill() reaps it
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            try:
                if os.waitid(os.P_PID, self._process.pid, flags) is not None:
                    return True
            except ChildProcessError:  # reaped already (SIGCHLD ignored, say): gone
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(_EXIT_POLL)
        return True

    def _given_up(self, error: EngineError) -> EngineError:
        """``error``, once the engine is killed: out of step with its protocol, it would
        have its late answer to one command read as the answer to the next (the next
        game's, when its player starts it again), or go on searching beside that game."""
        self.kill()
        return error

    def _context(self) -> str:
        parts = []
        if self._talk:
            parts.append("\nLast lines exchanged:\n  " + "\n  ".join(self._talk))
        if self._stderr:
            parts.append("\nIts stderr ended with:\n  " + "\n  ".join(self._stderr))
        return "".join(parts)

    def _drain(self, stream: IO[bytes]) -> None:
        for line in read_lines(stream.fileno()):
            self._lines.put(line)
        self._lines.put(None)

    def _keep_stderr(self, stream: IO[bytes]) -> None:
        for line in read_lines(stream.fileno()):
            self._stderr.append(line)
