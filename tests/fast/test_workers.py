"""Root-parallel search in worker processes: merged statistics, determinism, lifetime."""

from __future__ import annotations

import dataclasses
import multiprocessing
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from time import perf_counter

import numpy as np
import pytest

from mctslab import SearchResult, make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._loop import LOSS
from mctslab.fast._pool import WorkerPool, _rebuilt, split_budget, worker_seed
from mctslab.fast._stats import RootStats, build_result, merge
from mctslab.games import IllegalMoveError
from tests.core.tictactoe_minimax import best_moves, move_values, position


@pytest.fixture(scope="module")
def pool() -> Iterator[FastMCTS]:
    """One two-worker engine for the module: starting processes takes about a second."""
    with FastMCTS(SearchConfig(seed=7), workers=2, progress_interval=0.0) as engine:
        yield engine


def test_budget_shares() -> None:
    shares = split_budget(Budget(iterations=7, seconds=1.0, max_nodes=100, memory_mb=3.0), 2)
    assert shares == [
        Budget(iterations=4, seconds=1.0, max_nodes=50, memory_mb=1.5),
        Budget(iterations=3, seconds=1.0, max_nodes=50, memory_mb=1.5),
    ]
    assert split_budget(Budget(iterations=1), 3)[1:] == [None, None]
    assert worker_seed(7, 0) != worker_seed(7, 1) == worker_seed(7, 1)
    assert worker_seed(None, 0) is None


def test_a_root_one_worker_proved_is_proven_in_the_merged_result() -> None:
    # O to move after b2 a2 c1 is lost. One worker proved it, every move a loss;
    # the other ran out of its share first. The merged result said "iterations"
    # (the first of two reasons, one each), so the proof was shown as a win-rate
    # estimate of 0%.
    state = position("b2 a2 c1")
    assert set(move_values(state).values()) == {-1.0}
    moves = np.array(state.legal_moves(), dtype=np.int64)

    def part(proven: np.ndarray, stopped_by: str) -> RootStats:
        ones = np.ones(len(moves), dtype=np.int64)
        return RootStats(moves, ones, np.zeros(len(moves)), proven, {}, len(moves), 6, stopped_by)

    unproven = part(np.zeros(len(moves), dtype=np.int8), "iterations")
    proving = part(np.full(len(moves), LOSS, dtype=np.int8), "proven")
    merged = merge([unproven, proving], state.spec.num_actions, None)
    assert merged.stopped_by == "proven"
    result = build_result(state, merged, "visits", 0.0, "compiled")
    assert result.value == 0.0 and {m.proven for m in result.moves} == {"loss"}
    assert result.proven == "loss"  # what the player reads


def fake_pool(*workers: Callable[[Connection], None]) -> WorkerPool:
    """A WorkerPool whose workers are ``workers``, each run on a thread with its end of a pipe."""
    pool = WorkerPool.__new__(WorkerPool)
    pool.config, pool.progress_interval = SearchConfig(), 0.1
    pool._connections, pool._processes = [], []
    pool._finalizer = weakref.finalize(pool, lambda: None)
    for worker in workers:
        mine, theirs = multiprocessing.Pipe()
        threading.Thread(target=worker, args=(theirs,), daemon=True).start()
        pool._connections.append(mine)
    return pool


def test_a_proof_stops_the_workers_still_searching() -> None:
    # One worker proves the root (O to move after b2 a2 c1 is lost); another would search
    # to the end of its 30 s, as it did (the docs say a search ends once the root's value
    # is known). Told to stop, it reports "stopped", and the proof outranks that.
    state = position("b2 a2 c1")
    moves = np.array(state.legal_moves(), dtype=np.int64)
    ones = np.ones(len(moves), dtype=np.int64)
    told: list[str] = []

    def stats(proven: int, stopped_by: str) -> RootStats:
        proofs = np.full(len(moves), proven, dtype=np.int8)
        return RootStats(moves, ones, np.zeros(len(moves)), proofs, {}, 7, 6, stopped_by)

    def proving(connection: Connection) -> None:
        connection.recv()
        connection.send(("done", stats(LOSS, "proven")))

    def searching(connection: Connection) -> None:
        connection.recv()
        stopped = connection.poll(30.0)
        told.append(connection.recv()[0] if stopped else "nothing")
        connection.send(("done", stats(0, "stopped" if stopped else "seconds")))

    start = perf_counter()
    result = fake_pool(proving, searching)._search(state, Budget(seconds=30.0), None, None)
    assert perf_counter() - start < 15.0 and told == ["stop"]
    assert result.stopped_by == "proven" and result.proven == "loss"
    # A stop asked for (Ctrl-C, the stop event) does not hide a proof either.
    parts = [stats(LOSS, "proven"), stats(0, "stopped")]
    assert merge(parts, state.spec.num_actions, "stopped").stopped_by == "proven"
    assert merge(parts, state.spec.num_actions, "running").stopped_by == "running"


def test_a_proven_position_ends_the_search_with_workers_long_before_its_time(
    pool: FastMCTS,
) -> None:
    # Connect Four: the player to move wins at once (4 in column 1); tic-tac-toe after
    # b2 a2 c1, O to move has lost.
    connect4 = make("connect4")
    for move in "121212":
        connect4.play(move)
    for state in (connect4, position("b2 a2 c1")):
        pool.reset()
        result = pool.search(state, Budget(seconds=30.0))
        assert result.stopped_by == "proven" and result.seconds < 15.0, str(state)


def test_a_root_proven_only_across_trees_is_proven_in_the_merged_result() -> None:
    # O to move after b2 a2 c1 has lost: each of two trees proved half its moves lost,
    # neither all. The merged moves were every move, all proven lost, yet the result
    # was no proof (stopped_by the trees' reason): the player played a lost move
    # without its resisting search, and analyze printed "value 0.0%".
    state = position("b2 a2 c1")
    moves = np.array(state.legal_moves(), dtype=np.int64)
    half = len(moves) // 2

    def part(proved: slice, root_moves: int = len(moves)) -> RootStats:
        proven = np.zeros(len(moves), dtype=np.int8)
        proven[proved] = LOSS
        ones = np.ones(len(moves), dtype=np.int64)
        return RootStats(moves, ones, np.zeros(len(moves)), proven, {}, 7, 6, "seconds", root_moves)

    merged = merge([part(slice(None, half)), part(slice(half, None))], 9, None)
    assert merged.stopped_by == "proven"
    result = build_result(state, merged, "visits", 0.0, "compiled")
    assert result.proven == "loss" and result.value == 0.0
    # Not while a move is unproven, nor where the root's move count is not known.
    assert merge([part(slice(None, half)), part(slice(half, -1))], 9, None).stopped_by == "seconds"
    assert merge([part(slice(None, half), 0), part(slice(half, None), 0)], 9, None).stopped_by == (
        "seconds"
    )
    # Nor in a progress report.
    assert merge([part(slice(None, half)), part(slice(half, None))], 9, "running").stopped_by == (
        "running"
    )
    # A tree's statistics carry its root's move count.
    tree_stats = FastMCTS()._search_own_tree(
        state, Budget(iterations=3), lambda: False, None, lines=1
    )
    assert tree_stats.root_moves == len(moves)


def test_merged_visits_add_up_and_reuse_goes_on(pool: FastMCTS) -> None:
    pool.reset()
    state = position("")
    first = pool.search(state, Budget(iterations=10_001))
    assert first.simulations == sum(m.visits for m in first.moves) == 10_001
    assert first.stopped_by == "iterations" and first.engine == "compiled"
    assert first.pv[0] == first.best_move and len(first.pv) > 1
    kept = {m.move: m.visits for m in first.moves}[first.best_move]
    pool.advance(first.best_move)
    state.apply(first.best_move)
    second = pool.search(state, Budget(iterations=1000))
    # Both workers expanded the move, so each kept root has one visit of its own.
    assert sum(m.visits for m in second.moves) == kept - 2 + 1000


def test_each_worker_lets_go_of_a_kept_tree_a_short_timed_search_cannot_copy() -> None:
    # As with one tree (tests/fast/test_reuse.py): plain UCT, whose root visits add up.
    with FastMCTS(SearchConfig.plain(seed=0), workers=2) as engine:
        state = make("connect4")
        for budget, kept_tree in ((Budget(seconds=0.001), False), (Budget(iterations=400), True)):
            engine.reset()
            first = engine.search(state, Budget(iterations=40_000))
            kept = {m.move: m.visits for m in first.moves}[first.best_move]
            engine.advance(first.best_move)
            after = state.clone()
            after.apply(first.best_move)
            second = engine.search(after, budget)
            # Each worker's kept root has one visit of its own (its expansion).
            carried = kept - 2 if kept_tree else 0
            assert sum(m.visits for m in second.moves) == carried + second.simulations


@pytest.mark.parametrize("workers", [1, 2])
def test_prepare_loads_a_game_and_forgets_its_search_and_random_numbers(workers: int) -> None:
    # The game is loaded by a search of one simulation a process, forgotten with
    # the random numbers it drew: a seeded search after it is the one without it
    # (before, the first seeded move of `mctslab gtp --seed 1` changed).
    def first_search(prepared: bool) -> SearchResult:
        with FastMCTS(SearchConfig(seed=3), workers=workers) as engine:
            if prepared:
                engine.prepare(make("gomoku", size=8))
            result = engine.search(make("gomoku", size=8), Budget(iterations=2000))
        return dataclasses.replace(result, seconds=0.0)

    assert first_search(True) == first_search(False)


def test_prepare_refuses_a_state_a_worker_could_not_import(
    pool: FastMCTS, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a search does, before any worker is asked (a worker that failed to import the
    # game died, and the message spoke of a script's __main__ guard).
    class Interactive(type(make("tictactoe"))):  # type: ignore[misc]
        __slots__ = ()

    Interactive.__module__ = "__main__"  # as in python -c or a notebook, with no file
    monkeypatch.setattr(sys.modules["__main__"], "__file__", "<stdin>", raising=False)
    state = make("tictactoe")
    with pytest.raises(ValueError, match="defined in an interactive session"):
        pool.prepare(Interactive(state.spec, state.data.copy()))


def test_forced_move_found(pool: FastMCTS) -> None:
    pool.reset()
    result = pool.search(position("a1 b2 b1"), Budget(iterations=4000))
    assert result.best_notation in best_moves(position("a1 b2 b1"))


def test_same_seed_and_worker_count_same_result_and_close_ends_the_processes() -> None:
    def run(engine: FastMCTS) -> SearchResult:
        result = engine.search(position("a1"), Budget(iterations=6000))
        return dataclasses.replace(result, seconds=0.0)

    engine = FastMCTS(SearchConfig(seed=7), workers=2)
    first = run(engine)
    assert engine._pool is not None
    processes = engine._pool._processes
    engine.close()
    # Terminated, not asked to exit and waited for: a worker's interpreter took
    # about a second to finalise, and `mctslab brain --workers 4` as long to
    # exit after END (Gomocup's manager kills a brain that lingers about 1 s).
    assert [process.exitcode for process in processes] == [-signal.SIGTERM] * 2
    # A later search starts new workers, seeded afresh: the same result again.
    assert run(engine) == first
    engine.close()
    # One worker with the same seed searches another tree.
    assert run(FastMCTS(SearchConfig(seed=7))) != first


def test_stop_and_progress(pool: FastMCTS) -> None:
    stop = threading.Event()
    reports: list[SearchResult] = []

    def progress(interim: SearchResult) -> None:
        reports.append(interim)
        stop.set()

    pool.reset()
    result = pool.search(make("gomoku", size=9), Budget(seconds=60.0), progress=progress, stop=stop)
    assert result.stopped_by == "stopped" and result.simulations > 0
    assert reports and all(r.stopped_by == "running" for r in reports)


def test_ctrl_c_stops_the_workers_and_returns_the_best_move_so_far(pool: FastMCTS) -> None:
    handler = signal.getsignal(signal.SIGINT)
    pool.reset()
    result = pool.search(
        make("gomoku", size=9),
        Budget(seconds=60.0),
        progress=lambda interim: signal.raise_signal(signal.SIGINT),
    )
    assert result.stopped_by == "stopped" and result.simulations > 0
    assert signal.getsignal(signal.SIGINT) is handler
    assert pool.search(position(""), Budget(iterations=100)).simulations == 100


def test_errors_come_back_and_the_pool_keeps_working(pool: FastMCTS) -> None:
    pool.reset()
    state = position("b2")
    pool.search(state, Budget(iterations=100))
    # The worker's own kind of error, as one engine raises it (before: a plain ValueError).
    with pytest.raises(IllegalMoveError, match="not legal in the engine's root position"):
        pool.advance(4)
    assert pool.search(state, Budget(iterations=100)).simulations == 100


def test_a_failing_progress_callback_closes_the_pool_and_the_engine_goes_on(
    pool: FastMCTS,
) -> None:
    def progress(interim: SearchResult) -> None:
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        pool.search(position(""), Budget(seconds=60.0), progress=progress)
    assert pool._pool is not None and not pool._pool.alive
    # The trees went with the workers, as without any (before: OSError, handle is closed,
    # which a player's start or observe, the web board's undo and NBoard's reset raised).
    pool.advance(4)
    pool.reset()
    with pytest.raises(ValueError, match="The tree lives in the worker processes"):
        pool.tree_view(position(""))
    # The next search starts new workers.
    assert pool.search(position(""), Budget(iterations=100)).simulations == 100


def test_a_worker_error_of_a_class_that_takes_more_than_a_message_comes_back() -> None:
    # UnicodeDecodeError is a ValueError that needs five arguments: rebuilt from its
    # message alone it failed with a TypeError of its own.
    error = _rebuilt(UnicodeDecodeError, "bad byte")
    assert type(error) is ValueError and str(error) == "bad byte"
    assert type(_rebuilt(IllegalMoveError, "no")) is IllegalMoveError
