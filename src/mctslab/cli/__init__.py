"""The ``mctslab`` command.

Only :func:`main` is here, light to import: the commands import the games,
whose compiled rules numba builds when their modules are first imported on an
installation (about half a minute, cached on disk after), and ``main`` says so
while that happens.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from contextlib import nullcontext
from types import FrameType
from typing import Any

from mctslab._stdio import protocol_stdio

#: The commands that speak an engine protocol on stdin/stdout.
PROTOCOL_COMMANDS = ("brain", "gtp", "nboard")
#: Seconds the commands may take to load before the compile notice is shown: loading
#: them from numba's cache takes well under one.
NOTICE_AFTER = 2.0


def _notice() -> None:
    print(
        "mctslab: loading (the first run after installing compiles the games' rules: "
        "about half a minute)...",
        file=sys.stderr,
        flush=True,
    )


def _interrupted(number: int, frame: FrameType | None) -> None:
    print("Interrupted.", file=sys.stderr, flush=True)
    os._exit(130)


def serves_a_protocol(args: Sequence[str]) -> bool:
    """Whether the command line ``args`` (after the program) runs an engine protocol on
    stdin/stdout; a protocol command's help is no protocol, and goes to stdout."""
    return bool(args) and args[0] in PROTOCOL_COMMANDS and {"-h", "--help"}.isdisjoint(args)


def main() -> None:
    """Entry point of the ``mctslab`` console script; it ends the process (the collector
    is frozen on the way out), so it is not for calling from a program that goes on."""
    # A protocol's stdout is its lines' from the start: numba may print as it loads the games.
    with protocol_stdio() if serves_a_protocol(sys.argv[1:]) else nullcontext():
        # Whether numba's cache holds the games is its own business: a load that takes
        # long is a compile, and is said so while it goes on.
        notice = threading.Timer(NOTICE_AFTER, _notice)
        notice.daemon = True
        notice.start()
        # Ctrl-C while the games compile ends the process from the handler itself: raised as
        # KeyboardInterrupt it could land where numba ignores errors (a callback, a __del__),
        # which printed their tracebacks, and a compile cut short left numba's state half
        # made for the interpreter's exit to crash on. Nothing is open yet to be closed.
        previous = signal.signal(signal.SIGINT, _interrupted)
        try:
            from mctslab.cli._app import run
        finally:
            notice.cancel()
            signal.signal(signal.SIGINT, previous)
        run()


def __getattr__(name: str) -> Any:
    """``mctslab.cli.app``, the Typer application, loaded when asked for (it loads the games)."""
    if name == "app":
        from mctslab.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
