"""An engine protocol's stdin and stdout, taken before the engine starts.

Only the protocol's lines go to stdout, and stdin is read from then on, each
line timed as it arrives. Light to import (the standard library only): the
``mctslab`` command takes them for a protocol command before it loads the
games (see :func:`mctslab.cli.main`), and the command itself before it
starts its engine, so that nothing printed while they start (numba's cache
messages, worker processes, which inherit the file descriptor) comes ahead
of the protocol's first answer, and a controller's clock, which runs from
when it sent a command, is kept even for commands sent while they start
(Gomocup's managers send the first move without waiting for ``START``'s
answer).
"""

from __future__ import annotations

import io
import os
import queue
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO

#: The most bytes read from a pipe at once (a read takes what has arrived).
READ_SIZE = 65536
_LINE_END = re.compile(rb"\r\n|\r|\n")


def read_lines(fd: int) -> Iterator[str]:
    """The lines read from the file descriptor ``fd`` (a pipe, stdin) to its end, decoded as UTF-8,
    each as soon as its end has arrived.

    A line ends with CR LF, LF or CR alone: the Gomocup protocol allows all three. A CR
    ends its line at once, without waiting to see whether an LF follows (text mode's
    universal newlines waited, so a brain ending its lines with CR alone was never
    heard); an LF that then comes first in the next read completes that CR LF.
    """
    pending = b""
    after_cr = False
    while piece := os.read(fd, READ_SIZE):
        if after_cr and piece.startswith(b"\n"):
            piece = piece[1:]
        data = pending + piece
        after_cr = data.endswith(b"\r")
        *lines, pending = _LINE_END.split(data)
        for line in lines:
            yield line.decode("utf-8", errors="replace")
    if pending:
        yield pending.decode("utf-8", errors="replace")


class StdinLines:
    """The lines of ``stream``, each with the ``time.monotonic()`` of its arrival, read by a
    thread from the start: iterate them to handle them one after the other.

    :meth:`listen` shows a listener each line the moment it arrives, before the lines ahead
    of it are handled (NBoard's ``ping`` and Gomocup's ``END`` stop a search under way).
    """

    def __init__(self, stream: TextIO | None) -> None:
        self._lines: queue.Queue[tuple[str, float] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._hear: Callable[[str], None] | None = None
        #: Lines that arrived before a listener did: it is shown them when it comes.
        self._unheard: list[str] = []
        #: What ended the reading, other than the input's end.
        self._failure: Exception | None = None
        threading.Thread(
            target=self._read, args=(stream,), name="mctslab-stdin", daemon=True
        ).start()

    def listen(self, hear: Callable[[str], None]) -> None:
        """Show ``hear`` every line as it arrives, those that have arrived already first."""
        with self._lock:
            for line in self._unheard:
                hear(line)
            self._unheard = []
            self._hear = hear

    def __iter__(self) -> Iterator[tuple[str, float]]:
        """The lines, to the input's end; an error that ended the reading is raised here."""
        while (item := self._lines.get()) is not None:
            yield item
        if self._failure is not None:
            raise self._failure

    def _read(self, stream: TextIO | None) -> None:
        try:
            for line in _lines_of(stream):
                arrived = time.monotonic()
                with self._lock:
                    if self._hear is None:
                        self._unheard.append(line)
                    else:
                        self._hear(line)
                self._lines.put((line, arrived))
        except Exception as error:  # told to the server's loop, which would wait for ever
            self._failure = error
        finally:
            self._lines.put(None)


def _lines_of(stream: TextIO | None) -> Iterable[str]:
    """The lines of ``stream``: none where there is no stdin (closed when the process began),
    each as it arrives through :func:`read_lines` where it has a file descriptor."""
    if stream is None:
        return ()
    try:  # a CR alone ends a line too, as it arrives
        return read_lines(stream.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):  # a test's text stream
        return stream


@dataclass(frozen=True)
class ProtocolStdio:
    """The streams of a protocol engine: ``out`` on the real stdout, for its lines alone, and
    ``lines`` read from stdin since they were taken."""

    out: TextIO
    lines: StdinLines

    def write(self, line: str) -> None:
        """Write one protocol line, flushed."""
        self.out.write(line + "\n")
        self.out.flush()


_taken: ContextVar[ProtocolStdio | None] = ContextVar("protocol_stdio", default=None)


@contextmanager
def protocol_stdio() -> Iterator[ProtocolStdio]:
    """stdout kept for a protocol's lines, everything else written to it sent to stderr, and
    stdin read from now on, each line timed as it arrives.

    Taken by the outermost call; the calls within it share them, so that each
    step of a start (the command, then its server) takes them before its own
    work without taking them again.
    """
    taken = _taken.get()
    if taken is not None:
        yield taken
        return
    with protocol_stdout() as out:
        taken = ProtocolStdio(out, StdinLines(sys.stdin))
        token = _taken.set(taken)
        try:
            yield taken
        finally:
            _taken.reset(token)


@contextmanager
def protocol_stdout() -> Iterator[TextIO]:
    """A stream on the real stdout for protocol lines, with everything else sent to stderr.

    At the file-descriptor level when stdout has one (so child processes and
    C code are caught too), else by swapping ``sys.stdout`` (as under a test
    runner's captured streams).
    """
    stdout = sys.stdout
    stdout.flush()
    try:
        fd = stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        sys.stdout = sys.stderr
        try:
            yield stdout
        finally:
            sys.stdout = stdout
        return
    saved = os.dup(fd)
    os.dup2(sys.stderr.fileno(), fd)
    out = os.fdopen(os.dup(saved), "w", encoding="utf-8", newline="\n")
    try:
        yield out
    finally:
        out.close()
        stdout.flush()  # stray output still buffered belongs to stderr too
        os.dup2(saved, fd)
        os.close(saved)
