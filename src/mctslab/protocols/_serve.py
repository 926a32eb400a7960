"""What the protocol servers share: the line loop, a clean stdout, and searching to a clock.

Each server is a ``handle(line) -> Iterable[str]`` core (so tests drive it with
no process at all) run by :func:`serve` over any lines and any writer;
:func:`serve_stdio` runs it on the real stdin/stdout, where the protocol
lines must be the only output: everything else written to stdout, by us,
numba or a worker process, is sent to stderr instead.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Protocol

from mctslab._stdio import protocol_stdio
from mctslab.core.config import Budget
from mctslab.core.engine import Engine
from mctslab.core.result import SearchResult
from mctslab.games import State
from mctslab.games._base import first_line

#: Seconds a move when neither the controller's clock nor the command line sets a budget.
DEFAULT_MOVE_SECONDS = 1.0
#: Our moves still to come are estimated as the plies left over two, at most
#: this many: games rarely last longer, and the estimate is redone every move,
#: so a game that does goes on with geometrically shrinking shares of the clock.
HORIZON_MOVES = 30
#: Kept back from every allotment: a share for the reply and the process, a
#: fixed part for the search's last chunk (the compiled loop checks the clock
#: about every 50 ms) and for the pipes.
SAFETY_FRACTION = 0.1
SAFETY_SECONDS = 0.05
#: The least a search is given, even when the clock says "as fast as possible".
MIN_SECONDS = 0.01

Log = Callable[[str], None]


def log_to_stderr(message: str) -> None:
    """Diagnostics of a protocol server: never on stdout, which belongs to the protocol."""
    print(message, file=sys.stderr, flush=True)


class LineServer(Protocol):
    """A protocol server core: each input line in, the reply lines out.

    ``arrived`` is the ``time.monotonic()`` when the line arrived (None: now); a server
    with a clock counts a move's time from when its command arrived, as its controller
    does. The replies may be produced lazily (NBoard yields its "thinking" status before
    searching), so a caller iterates them as they come.
    """

    finished: bool

    def handle(self, line: str, arrived: float | None = None) -> Iterable[str]: ...


def serve(
    server: LineServer,
    lines: Iterable[str] | Iterable[tuple[str, float]],
    write: Callable[[str], None],
) -> None:
    """Feed ``lines`` (each alone or with the ``time.monotonic()`` it arrived at) to
    ``server`` and ``write`` every reply line, until it has finished."""
    for item in lines:
        line, arrived = (item, None) if isinstance(item, str) else item
        # A server of one's own may take the line alone, where no arrival is known.
        replies = server.handle(line) if arrived is None else server.handle(line, arrived)
        for reply in replies:
            write(reply)
        if server.finished:
            return


def serve_stdio(server: LineServer) -> None:
    """Run ``server`` on stdin/stdout, one flushed line at a time; stray output goes to stderr
    (see :func:`mctslab._stdio.protocol_stdio`). A server with a ``hear(line)`` method is
    shown each line the moment it arrives: NBoard's ``ping`` and Gomocup's ``END`` must stop a
    search under way, while lines are otherwise handled one after the other."""
    with protocol_stdio() as stdio:
        # Without a listener the reader would keep every line it passes on.
        stdio.lines.listen(getattr(server, "hear", _pass_over))
        serve(server, stdio.lines, stdio.write)


def _pass_over(line: str) -> None:
    """A listener for a server that stops no search on a line's arrival."""


def failure_message(error: Exception, log: Log) -> str:
    """One line for a protocol error reply; an unexpected error's traceback goes to ``log``."""
    if not isinstance(error, ValueError):
        log("".join(traceback.format_exception(error)).rstrip())
        return f"internal error: {type(error).__name__}: {error}"
    return " ".join(first_line(error).split())


def verdict(state: State) -> str:
    """How a game stands, in a few words for an error message ("White won with 5 in a row")."""
    outcome = state.outcome()
    if outcome is None:
        return "it goes on"
    if outcome.winner is None:
        return f"a draw, {outcome.reason}"
    return f"{state.spec.player_names[outcome.winner]} won with {outcome.reason}"


def moves_to_go(plies_left: int) -> int:
    """Our moves still to come, estimated from the plies the game can last at most."""
    return max(1, min(HORIZON_MOVES, (plies_left + 1) // 2))


def allot(
    *, per_move: float | None = None, remaining: float | None = None, moves_left: int = 1
) -> float | None:
    """Seconds to search one move: the tighter of the move limit and a share of the time left.

    None when the controller gave no limit. The safety margins are taken off,
    and the result is at least :data:`MIN_SECONDS` (a limit of 0 means "as
    fast as possible" in the Gomocup protocol).
    """
    limits = []
    if per_move is not None:
        limits.append(per_move)
    if remaining is not None:
        limits.append(remaining / max(1, moves_left))
    if not limits:
        return None
    limit = max(0.0, min(limits))
    return max(MIN_SECONDS, limit * (1.0 - SAFETY_FRACTION) - SAFETY_SECONDS)


class Thinker:
    """An engine with the command line's budget, searching each move to the controller's clock.

    - ``iterations``: a fixed number of simulations a move (reproducible with
      a seed); it overrides any mapping a protocol makes (NBoard's depth).
    - ``seconds``: the most time a move, whatever the clock allows; also the
      budget when the controller sets no clock (default
      :data:`DEFAULT_MOVE_SECONDS`).
    - ``memory_mb``: the tree's memory limit (the Gomocup brain sets it from
      ``INFO max_memory``).
    """

    def __init__(
        self,
        engine: Engine,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        memory_mb: float | None = None,
    ) -> None:
        self.engine = engine
        self.iterations = iterations
        self.seconds = seconds
        self.memory_mb = memory_mb
        Budget(iterations=iterations, seconds=seconds, memory_mb=memory_mb)  # checks them
        #: When the last search ended: the controller had its move no earlier.
        self._moved_at: float | None = None

    @property
    def workers(self) -> int:
        """Processes the engine searches in (each holds its own tree and interpreter)."""
        return int(getattr(self.engine, "workers", 1))

    def budget(self, allotted: float | None = None, iterations: int | None = None) -> Budget:
        """The budget of one move: the clock's ``allotted`` seconds and ``iterations`` if given.

        The command line's ``iterations`` win over the ones given here; its
        ``seconds`` cap the allotment.
        """
        seconds = min(
            (limit for limit in (allotted, self.seconds) if limit is not None), default=None
        )
        if seconds is None and self.iterations is None:
            # No clock: a protocol's own measure (NBoard's depth) is capped like any move;
            # only the command line's fixed simulations go uncapped, to be reproducible.
            seconds = DEFAULT_MOVE_SECONDS
        iterations = self.iterations if self.iterations is not None else iterations
        return Budget(iterations=iterations, seconds=seconds, memory_mb=self.memory_mb)

    def search(
        self,
        state: State,
        allotted: float | None = None,
        iterations: int | None = None,
        *,
        arrived: float | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Search ``state`` for the clock's ``allotted`` seconds (see :meth:`budget`), counted
        from :meth:`clock_start` (at least :data:`MIN_SECONDS` are searched)."""
        if allotted is not None and arrived is not None:
            allotted = max(MIN_SECONDS, allotted - (time.monotonic() - self.clock_start(arrived)))
        try:
            return self.engine.search(state, self.budget(allotted, iterations), stop=stop)
        finally:
            self._moved_at = time.monotonic()

    def clock_start(self, arrived: float | None) -> float:
        """When the controller's clock for a move began: when its command ``arrived`` (the
        ``time.monotonic()`` then; None: now), but not before the last search ended, as the
        controller had the last move no earlier (commands piped in all at once arrive long
        before their turn)."""
        began = time.monotonic() if arrived is None else arrived
        return began if self._moved_at is None else max(began, self._moved_at)

    def advance(self, move: int) -> None:
        """Keep the subtree of ``move``; a tree that does not hold the move is dropped."""
        try:
            self.engine.advance(move)
        except ValueError:
            self.engine.reset()

    def reset(self) -> None:
        self.engine.reset()

    def close(self) -> None:
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()
