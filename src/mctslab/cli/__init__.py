"""The ``mctslab`` command.

Only :func:`main` is here, light to import: the commands import the games,
whose compiled rules numba builds when their modules are first imported on an
installation (about half a minute, cached on disk after), and ``main`` says so
while that happens.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from mctslab._interrupt import noticing_ctrl_c

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


def main() -> None:
    """Entry point of the ``mctslab`` console script; it ends the process (the collector
    is frozen on the way out), so it is not for calling from a program that goes on."""
    # Whether numba's cache holds the games is its own business: a load that takes
    # long is a compile, and is said so while it goes on.
    notice = threading.Timer(NOTICE_AFTER, _notice)
    notice.daemon = True
    notice.start()
    with noticing_ctrl_c() as pressed:
        try:
            from mctslab.cli._app import run
        except (KeyboardInterrupt, RuntimeError):
            # numba may turn the interruption into a RuntimeError of its own, deep in a
            # traceback that says nothing to the user.
            if not pressed():
                raise
            print("Interrupted.", file=sys.stderr)
            sys.exit(130)
        finally:
            notice.cancel()
    run()


def __getattr__(name: str) -> Any:
    """``mctslab.cli.app``, the Typer application, loaded when asked for (it loads the games)."""
    if name == "app":
        from mctslab.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
