"""An engine protocol's stdout, taken before the engine starts: only the protocol's lines go there.

Light to import (the standard library only): the ``mctslab`` command takes
stdout for a protocol command before it loads the games (see
:func:`mctslab.cli.main`), and the command itself before it starts its
engine, so that nothing printed while they start (numba's cache messages,
worker processes, which inherit the file descriptor) comes ahead of the
protocol's first answer.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO


@dataclass(frozen=True)
class ProtocolStdio:
    """The streams of a protocol engine: ``out`` on the real stdout, for its lines alone."""

    out: TextIO

    def write(self, line: str) -> None:
        """Write one protocol line, flushed."""
        self.out.write(line + "\n")
        self.out.flush()


_taken: ContextVar[ProtocolStdio | None] = ContextVar("protocol_stdio", default=None)


@contextmanager
def protocol_stdio() -> Iterator[ProtocolStdio]:
    """stdout kept for a protocol's lines, everything else written to it sent to stderr.

    Taken by the outermost call; the calls within it share it, so that each
    step of a start (the command, then its server) takes it before its own
    work without taking it again.
    """
    taken = _taken.get()
    if taken is not None:
        yield taken
        return
    with protocol_stdout() as out:
        taken = ProtocolStdio(out)
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
