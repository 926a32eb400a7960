"""Noticing Ctrl-C although a search swallows it.

The engines answer Ctrl-C by stopping the search and returning the best move
so far (an anytime search), so a caller that must stop altogether (the
arena's run, ``mctslab play``) cannot rely on the KeyboardInterrupt reaching
it: it asks :func:`noticing_ctrl_c`'s flag after each search instead.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def noticing_ctrl_c() -> Iterator[Callable[[], bool]]:
    """While inside, Ctrl-C raises KeyboardInterrupt as usual and is remembered.

    Yields a function that says whether Ctrl-C was pressed since entering.
    Signal handlers live in the main thread only: elsewhere, or where Ctrl-C
    is ignored, nothing changes and the function always says False.
    """
    pressed = False

    def on_interrupt(signum: int, frame: Any) -> None:
        nonlocal pressed
        pressed = True
        raise KeyboardInterrupt

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main_thread else signal.SIG_IGN
    if previous != signal.SIG_IGN:
        signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield lambda: pressed
    finally:
        if previous != signal.SIG_IGN:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
