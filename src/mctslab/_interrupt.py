"""Ctrl-C around searches.

The engines answer Ctrl-C by stopping the search and returning the best move
so far (an anytime search), so a caller that must stop altogether (the
arena's run, ``mctslab play``) cannot rely on the KeyboardInterrupt reaching
it: it asks :func:`noticing_ctrl_c`'s flag after each search instead. The
compiled engine turns Ctrl-C into its stop event while it searches
(:func:`ctrl_c_sets`), and calls such a caller's handler once it has stopped,
so that the flag is set and the search still returns.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def _on_ctrl_c(handler: Callable[[int, Any], None]) -> Iterator[Any]:
    """While inside, ``handler`` answers Ctrl-C; yields the handler it replaced.

    Signal handlers live in the main thread only: elsewhere, or where Ctrl-C is
    ignored, nothing changes and SIG_IGN is yielded.
    """
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main_thread else signal.SIG_IGN
    if previous == signal.SIG_IGN:
        yield previous
        return
    signal.signal(signal.SIGINT, handler)
    try:
        yield previous
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


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

    with _on_ctrl_c(on_interrupt):
        yield lambda: pressed


@contextlib.contextmanager
def ctrl_c_sets(event: threading.Event) -> Iterator[None]:
    """While inside, Ctrl-C sets ``event`` instead of raising KeyboardInterrupt.

    For work that a KeyboardInterrupt must not cut anywhere: one that landed in
    numba's dispatcher, while it converted the compiled loop's function
    arguments, came out as a TypeError of numba's. A handler of the caller's own
    (the arena's and the commands' :func:`noticing_ctrl_c`, which stop a run) is
    called once the block is left, so that it hears of the Ctrl-C too. Signal
    handlers live in the main thread only: elsewhere, or where Ctrl-C is
    ignored (a search worker process), nothing changes.
    """
    with _on_ctrl_c(lambda signum, frame: event.set()) as previous:
        yield
    if event.is_set() and callable(previous) and previous is not signal.default_int_handler:
        # The caller's handler records the Ctrl-C; the KeyboardInterrupt it raises would
        # throw away the search's best move, which the engines return (anytime search).
        with contextlib.suppress(KeyboardInterrupt):
            previous(signal.SIGINT, None)
