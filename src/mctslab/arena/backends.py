"""Where games are played: this process, a local process pool, or a Ray cluster.

A backend takes a lazy stream of :class:`GameTask` and yields record
entries as games finish, in any order. It pulls a task only when it has a
free slot, so a match that stops early (SPRT) or is interrupted has no
queue of unplayed games to throw away; closing the stream (breaking out of
the loop, Ctrl-C) stops the games still running. Every backend runs
:func:`~mctslab.arena.game.run_task`, so the entries are the same.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import socket
from collections.abc import Iterator
from typing import Any, Protocol

from mctslab._extras import install_hint
from mctslab._interrupt import noticing_ctrl_c
from mctslab.arena.game import GameFailed, GameTask, play_game, run_task

#: Seconds between checks for a finished game (and for Ctrl-C).
_POLL_SECONDS = 0.2
#: Seconds a worker waits for its next task before checking that its parent lives.
_WORKER_IDLE_CHECK = 1.0


class Backend(Protocol):
    """Plays tasks and yields their record entries as they finish."""

    #: Games played at once.
    slots: int

    def play(self, tasks: Iterator[GameTask]) -> Iterator[dict[str, Any]]: ...


def _checked(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry``, or GameFailed if it reports a game that stopped on an error (numbered from 1,
    as the progress lines count games)."""
    if entry.get("type") == "error":
        raise GameFailed(
            f"Game {entry['index'] + 1} stopped on an error: {entry['error']}\n{entry['traceback']}"
        )
    return entry


class InProcess:
    """Plays the games one after another in this process (and the ``human`` player's home).

    Ctrl-C stops the run: a search it interrupts returns its best move, so
    the game is stopped after that move (in the main thread, where signal
    handlers live).
    """

    slots = 1

    def play(self, tasks: Iterator[GameTask]) -> Iterator[dict[str, Any]]:
        with noticing_ctrl_c() as interrupted:
            for task in tasks:
                yield play_game(task, interrupted=interrupted)


#: Seconds the pool waits for a terminated worker to close its players (an external
#: engine's farewell and grace included) before it kills the worker.
_WORKER_EXIT_SECONDS = 10.0


class _Terminated:
    """Whether this worker was told to stop (SIGTERM)."""

    told = False


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """Unwind a terminated worker, so that its game closes its players: a worker that
    died at once would leave an external engine running (under init) with its processes.

    The SystemExit may land where it is turned into another error (numba's dispatcher
    makes one of any exception) that the game's task catches, so the worker also
    remembers that it was told to stop.
    """
    _Terminated.told = True
    raise SystemExit(128 + signum)


def _worker(tasks: Any, results: Any, parent: int) -> None:
    """A pool worker: play tasks until told to stop or orphaned; Ctrl-C is the parent's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    while not _Terminated.told:
        try:
            task = tasks.get(timeout=_WORKER_IDLE_CHECK)
        except queue.Empty:
            if os.getppid() != parent:  # the parent was killed: nobody wants the result
                return
            continue
        results.put(run_task(task))


class ProcessPool:
    """Up to ``workers`` local processes, each playing whole games.

    The processes are started with "spawn" (safe alongside the progress
    display's thread) and are not daemons, so a player may start processes
    of its own (``mcts:workers=N``). They ignore Ctrl-C: the main process
    catches it and terminates them, and a terminated worker closes its
    players first, so that an external engine is killed with its processes.
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"The 'workers' parameter must be an int >= 1. Got {workers!r}.")
        self.slots = workers

    def play(self, tasks: Iterator[GameTask]) -> Iterator[dict[str, Any]]:
        context = multiprocessing.get_context("spawn")
        task_queue = context.Queue()
        result_queue = context.Queue()
        # Started as tasks come, each when every worker already started is busy: more
        # workers than games to play (a short match, a resumed one) start only those needed.
        processes: list[Any] = []
        try:
            running = 0
            pending = iter(tasks)
            exhausted = False
            while True:
                while not exhausted and running < self.slots:
                    task = next(pending, None)
                    if task is None:
                        exhausted = True
                    else:
                        if len(processes) == running:
                            process = context.Process(
                                target=_worker,
                                args=(task_queue, result_queue, os.getpid()),
                                daemon=False,
                            )
                            process.start()  # listed once started: only those are stopped
                            processes.append(process)
                        task_queue.put(task)
                        running += 1
                if running == 0:
                    return
                try:
                    entry = result_queue.get(timeout=_POLL_SECONDS)
                except queue.Empty:
                    if not all(process.is_alive() for process in processes):
                        raise GameFailed("A worker process died; see its output above.") from None
                    continue
                running -= 1
                yield _checked(entry)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(_WORKER_EXIT_SECONDS)
                if process.is_alive():  # stuck where no signal handler runs
                    process.kill()
                    process.join()
            task_queue.close()
            result_queue.close()


#: Seconds to wait for a Ray cluster's port to answer (Ray itself retries without end).
_RAY_CONNECT_SECONDS = 10.0


def _check_reachable(address: str) -> None:
    """Raise ConnectionError if ``address`` names a HOST:PORT that does not accept connections."""
    host, colon, port = address.rpartition(":")
    if address in ("auto", "local") or "://" in address or not colon or not port.isdigit():
        return  # Ray finds, starts or reaches these itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), _RAY_CONNECT_SECONDS).close()
    except OSError as error:
        raise ConnectionError(f"nothing answers at {address} ({error})") from None


class RayCluster:
    """Games as Ray tasks, on a cluster (``address``) or a local Ray instance.

    ``address`` is "auto" (a running cluster), ``"local"`` (start one on this
    machine) or a cluster address; when Ray is already initialised in this
    process it is used as it is. Every node needs mctslab installed.
    ``slots`` defaults to the cluster's CPUs.
    """

    def __init__(self, address: str, slots: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ImportError(f"Ray is not installed; {install_hint('ray')}") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            _check_reachable(address)
            ray.init(address=address, log_to_driver=False)
            self._started = True
        self.slots = slots or max(1, int(ray.cluster_resources().get("CPU", 1)))

    def play(self, tasks: Iterator[GameTask]) -> Iterator[dict[str, Any]]:
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        #: Each running task's reference, and its game's index to name it if its worker dies.
        running: dict[Any, int] = {}
        pending = iter(tasks)
        exhausted = False
        try:
            while True:
                while not exhausted and len(running) < self.slots:
                    task = next(pending, None)
                    if task is None:
                        exhausted = True
                    else:
                        running[remote.remote(task)] = task.index
                if not running:
                    return
                done, _ = ray.wait(list(running), num_returns=1, timeout=_POLL_SECONDS)
                for ref in done:
                    index = running.pop(ref)
                    try:
                        entry = ray.get(ref)
                    except ray.exceptions.RayError as error:  # its worker died, its node left
                        raise GameFailed(f"Game {index + 1} stopped on an error: {error}") from None
                    yield _checked(entry)
        finally:
            for ref in running:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)

    def close(self) -> None:
        """Shut down the Ray instance if this backend started it."""
        if self._started:
            self._ray.shutdown()
            self._started = False
