"""Worker processes for root-parallel search: one FastMCTS with its own tree in each.

Processes are started with the "spawn" method (the one every platform has,
and safe when the caller runs threads, as the web app does); each imports
the package and loads the compiled loop from numba's disk cache once, and
then serves searches until closed. A worker ignores Ctrl-C: the main process
catches it and tells the workers to stop, so a search still returns its best
move so far.

Closing terminates the workers instead of asking them to exit: a worker holds
nothing that outlives it (its tree goes with it, its results came over the
pipe, and the compiled code was cached by the main process before it
started), while a Python interpreter that has loaded numba takes about a
second to finalise on a busy machine. An engine protocol's manager kills an
engine that lingers after its game (Gomocup's after about 1 s).
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import traceback
import weakref
from dataclasses import replace
from functools import partial
from multiprocessing.connection import Connection, wait
from time import perf_counter
from typing import Any, cast

import numpy as np

from mctslab._interrupt import ctrl_c_sets
from mctslab.core.config import Budget, SearchConfig
from mctslab.core.engine import Progress, StopEvent
from mctslab.core.result import SearchResult
from mctslab.fast._loop import warm_up
from mctslab.fast._stats import LINES_PER_WORKER, RootStats, build_result, merge
from mctslab.fast._tree import Tree
from mctslab.games._base import State

#: Seconds between checks of the stop event while the workers search.
_POLL_SECONDS = 0.02


def worker_seed(seed: int | None, index: int) -> int | None:
    """The seed of worker ``index``: derived from (seed, index), fresh entropy for None."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint64)[0])


def split_budget(budget: Budget, workers: int) -> list[Budget | None]:
    """Each worker's share: iterations split (None: no work), node and memory limits divided."""
    shares: list[Budget | None] = []
    for index in range(workers):
        iterations = budget.iterations
        if iterations is not None:
            iterations = iterations // workers + (1 if index < iterations % workers else 0)
            if iterations == 0:
                shares.append(None)
                continue
        shares.append(
            Budget(
                iterations=iterations,
                seconds=budget.seconds,
                max_nodes=None if budget.max_nodes is None else max(2, budget.max_nodes // workers),
                memory_mb=None if budget.memory_mb is None else budget.memory_mb / workers,
            )
        )
    return shares


class WorkerError(RuntimeError):
    """A worker process failed; the message carries its traceback."""


class WorkerPool:
    """``workers`` processes, each searching its own tree; statistics merged at the root."""

    def __init__(self, config: SearchConfig, workers: int, progress_interval: float) -> None:
        self.config = config
        self.progress_interval = progress_interval
        context = multiprocessing.get_context("spawn")
        self._connections: list[Connection] = []
        processes: list[multiprocessing.process.BaseProcess] = []
        for index in range(workers):
            mine, theirs = context.Pipe()
            worker_config = replace(config, seed=worker_seed(config.seed, index))
            process = context.Process(
                target=_serve,
                args=(theirs, worker_config, progress_interval),
                name=f"mctslab-worker-{index}",
                daemon=True,
            )
            process.start()
            theirs.close()
            self._connections.append(mine)
            processes.append(process)
        self._processes = processes
        self._finalizer = weakref.finalize(self, _shut_down, processes, list(self._connections))
        for connection in self._connections:
            self._receive(connection)

    def search(
        self,
        state: State,
        budget: Budget,
        *,
        progress: Progress | None,
        stop: StopEvent | None,
    ) -> SearchResult:
        """Search ``state`` in every worker with a share of ``budget``; merge at the root.

        Ctrl-C (in the main thread) stops the workers like ``stop`` does. If
        anything else interrupts the search, answers may still be in flight:
        the pool is closed, and the next search starts a new one.
        """
        try:
            return self._search(state, budget, progress, stop)
        except BaseException:
            self.close()
            raise

    @property
    def alive(self) -> bool:
        """False once closed (by :meth:`close` or after a worker failed)."""
        return self._finalizer.alive

    def _search(
        self,
        state: State,
        budget: Budget,
        progress: Progress | None,
        stop: StopEvent | None,
    ) -> SearchResult:
        start = perf_counter()
        busy = []
        for connection, share in zip(
            self._connections, split_budget(budget, len(self._connections)), strict=True
        ):
            if share is not None:
                connection.send(("search", state, share, progress is not None))
                busy.append(connection)
        latest: dict[Connection, RootStats] = {}
        running = list(busy)
        stopping = False
        interrupted = threading.Event()
        next_progress = start + self.progress_interval
        with ctrl_c_sets(interrupted):
            while running:
                for ready in wait(running, timeout=_POLL_SECONDS):
                    connection = cast(Connection, ready)
                    kind, stats = self._receive(connection)
                    latest[connection] = stats
                    if kind == "done":
                        running.remove(connection)
                        if stats.stopped_by == "proven" and not stopping:
                            # The root's value is known: the others' budgets would add nothing.
                            for other in running:
                                other.send(("stop",))
                            stopping = True
                if not stopping and (interrupted.is_set() or (stop is not None and stop.is_set())):
                    for connection in running:
                        connection.send(("stop",))
                    stopping = True
                now = perf_counter()
                if progress is not None and len(latest) == len(busy) and now >= next_progress:
                    interim = merge(self._in_order(latest), state.spec.num_actions, "running")
                    progress(self._result(state, interim, now - start))
                    next_progress = perf_counter() + self.progress_interval
        merged = merge(
            self._in_order(latest), state.spec.num_actions, "stopped" if stopping else None
        )
        return self._result(state, merged, perf_counter() - start)

    def prepare(self, state: State | None) -> None:
        """Have every worker load ``state``'s game now (see :meth:`FastMCTS.prepare`)."""
        if state is not None:
            self._broadcast(("prepare", state))

    def advance(self, move: int) -> None:
        """Re-root every worker's tree at ``move``."""
        self._broadcast(("advance", move))

    def reset(self) -> None:
        """Forget every worker's tree."""
        self._broadcast(("reset",))

    def close(self) -> None:
        """Stop the worker processes (terminated: a search in flight on another thread
        fails with WorkerError, so close after it)."""
        self._finalizer()

    # -- helpers -------------------------------------------------------------------
    def _broadcast(self, request: tuple[Any, ...]) -> None:
        for connection in self._connections:
            connection.send(request)
        errors = []
        for connection in self._connections:
            try:
                self._receive(connection)
            except ValueError as error:
                errors.append(error)
        if errors:
            raise errors[0]

    def _in_order(self, latest: dict[Connection, RootStats]) -> list[RootStats]:
        return [latest[c] for c in self._connections if c in latest]

    def _receive(self, connection: Connection) -> tuple[Any, ...]:
        """The next message from a worker; its ValueError raised again here (of the same
        class, with the same message), other failures wrapped."""
        try:
            message: tuple[Any, ...] = connection.recv()
        except EOFError:
            self.close()
            raise WorkerError(
                "A search worker process died (its own error, if it printed one, is above). "
                "If a script started the search, it must do so under "
                'if __name__ == "__main__": (a worker imports the script anew).'
            ) from None
        if message[0] == "invalid":
            raise _rebuilt(message[1], message[2])
        if message[0] == "error":
            self.close()
            raise WorkerError(f"A search worker failed:\n{message[1]}")
        return message

    def _result(self, state: State, stats: RootStats, seconds: float) -> SearchResult:
        return build_result(state, stats, self.config.final_move, seconds, "compiled")


def _shut_down(processes: list[Any], connections: list[Connection]) -> None:
    # All signalled before any is waited for: the joins then only reap them.
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()
    for connection in connections:
        connection.close()


def _serve(connection: Connection, config: SearchConfig, progress_interval: float) -> None:
    """A worker's main loop: answer each request of the main process until terminated."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from mctslab.fast._engine import FastMCTS  # not at the top: _engine imports this module

    engine = FastMCTS(config, progress_interval=progress_interval)
    warm_up()
    connection.send(("ready",))
    while True:
        request = connection.recv()
        try:
            if request[0] == "search":
                _, state, budget, reporting = request
                stats = engine._search_own_tree(
                    state,
                    budget,
                    lambda: connection.poll() and connection.recv()[0] == "stop",
                    partial(_report, connection, config) if reporting else None,
                    lines=LINES_PER_WORKER,
                )
                connection.send(("done", stats))
            elif request[0] == "prepare":
                engine.prepare(request[1])
                connection.send(("ok",))
            elif request[0] == "advance":
                engine.advance(request[1])
                connection.send(("ok",))
            elif request[0] == "reset":
                engine.reset()
                connection.send(("ok",))
        except ValueError as error:
            # Its kind too (IllegalMoveError, say), as an engine on one thread raises it;
            # a class the main process could not import goes as a plain ValueError.
            try:
                connection.send(("invalid", type(error), str(error)))
            except Exception:
                connection.send(("invalid", ValueError, str(error)))
        except Exception:
            connection.send(("error", traceback.format_exc()))


def _rebuilt(kind: type[ValueError], message: str) -> ValueError:
    """A worker's error of class ``kind`` again, or a plain ValueError where ``kind`` takes
    more than its message (UnicodeDecodeError, say)."""
    try:
        return kind(message)
    except Exception:
        return ValueError(message)


def _report(connection: Connection, config: SearchConfig, tree: Tree, simulations: int) -> None:
    """Send the main process the statistics so far (a worker's progress report)."""
    stats = RootStats.of_tree(tree, simulations, "running", config.final_move, LINES_PER_WORKER)
    connection.send(("report", stats))
