"""Budgets, stopping and progress reports of the generic engine."""

from __future__ import annotations

import threading
import tracemalloc
from collections.abc import Sequence

import pytest

from mctslab import SearchResult
from mctslab.core import (
    BYTES_PER_MOVE,
    BYTES_PER_NODE,
    DEFAULT_ITERATIONS,
    MCTS,
    Budget,
    GameState,
    SearchConfig,
    count_nodes,
    default_simulation,
)
from mctslab.core.node import tree_size
from mctslab.games import make
from mctslab.games.countdown import solve
from tests.core.tictactoe_minimax import position


def engine(**kwargs: object) -> MCTS:
    return MCTS(SearchConfig(seed=0), **kwargs)  # type: ignore[arg-type]


def test_iterations() -> None:
    result = engine().search(position(""), Budget(iterations=123))
    assert (result.stopped_by, result.simulations) == ("iterations", 123)


def test_max_nodes() -> None:
    mcts = engine()
    result = mcts.search(position(""), Budget(max_nodes=40))
    assert (result.stopped_by, result.nodes) == ("nodes", 40)
    assert mcts.tree is not None and count_nodes(mcts.tree) == 40


def test_memory_charges_the_nodes_and_the_moves_they_list() -> None:
    mcts = engine()
    result = mcts.search(position(""), Budget(memory_mb=0.02))
    assert mcts.tree is not None
    nodes, moves = tree_size(mcts.tree)
    held = nodes * BYTES_PER_NODE + moves * BYTES_PER_MOVE
    # The search stops with the node that reaches the budget: one node and its list
    # (below the root, of at most 8 moves) less would be under it.
    last = BYTES_PER_NODE + 8 * BYTES_PER_MOVE
    assert (result.stopped_by, result.nodes) == ("memory", nodes)
    assert 0.02 * 2**20 <= held < 0.02 * 2**20 + last


def test_a_memory_budget_is_a_ceiling_on_a_wide_game() -> None:
    # Before, a node was taken for 400 bytes whatever it held: on 19x19 Gomoku, whose
    # nodes list hundreds of untried moves, 1 MiB stopped at 2,621 nodes holding 2.65 MiB.
    state = make("gomoku", size=19)
    engine().search(state, Budget(iterations=10))  # what a first search loads, outside
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = engine().search(state, Budget(memory_mb=1))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert result.stopped_by == "memory"
    assert peak <= 2**20


def test_the_smaller_of_nodes_and_memory_wins() -> None:
    assert engine().search(position(""), Budget(max_nodes=10**6, memory_mb=0.02)).stopped_by == (
        "memory"
    )
    assert engine().search(position(""), Budget(max_nodes=20, memory_mb=0.02)).stopped_by == (
        "nodes"
    )


def test_seconds() -> None:
    result = engine().search(position(""), Budget(seconds=0.05))
    assert result.stopped_by == "seconds"
    assert 0.05 <= result.seconds < 5.0


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        (Budget(iterations=50, seconds=60.0, max_nodes=10**6), "iterations"),
        (Budget(iterations=10**9, seconds=0.05), "seconds"),
        (Budget(iterations=10**6, max_nodes=30), "nodes"),
    ],
)
def test_first_limit_reached_wins(budget: Budget, reason: str) -> None:
    assert engine().search(position(""), budget).stopped_by == reason


@pytest.mark.parametrize("budget", [None, Budget()])
def test_no_limit_means_the_default_iterations(budget: Budget | None) -> None:
    # A late position keeps the default 10k iterations quick.
    result = engine().search(position("b2 a1 c3 a3"), budget)
    assert (result.stopped_by, result.simulations) == ("iterations", DEFAULT_ITERATIONS)


def test_progress_is_reported_during_the_search() -> None:
    reports: list[SearchResult] = []
    result = engine(progress_interval=0.0).search(
        position(""), Budget(iterations=30), progress=reports.append
    )
    assert [r.simulations for r in reports] == list(range(1, 31))
    assert all(r.stopped_by == "running" and r.engine == "python" for r in reports)
    assert reports[-1].moves == result.moves


def test_progress_interval_spaces_the_reports() -> None:
    reports: list[SearchResult] = []
    engine(progress_interval=3600.0).search(
        position(""), Budget(iterations=500), progress=reports.append
    )
    assert reports == []


def test_stop_event_ends_the_search() -> None:
    stop = threading.Event()

    def stop_at_ten(result: SearchResult) -> None:
        if result.simulations == 10:
            stop.set()

    result = engine(progress_interval=0.0).search(
        position(""), Budget(iterations=10**6), progress=stop_at_ten, stop=stop
    )
    assert (result.stopped_by, result.simulations) == ("stopped", 10)


def test_a_stop_already_set_still_gives_a_move() -> None:
    stop = threading.Event()
    stop.set()
    result = engine().search(position(""), Budget(iterations=1000), stop=stop)
    assert (result.stopped_by, result.simulations, len(result.moves)) == ("stopped", 1, 1)


def interrupt_after(calls: int) -> object:
    count = 0

    def simulate(state: GameState, rng: object) -> Sequence[float]:
        nonlocal count
        count += 1
        if count > calls:
            raise KeyboardInterrupt
        return default_simulation(state, rng)  # type: ignore[arg-type]

    return simulate


def test_keyboard_interrupt_returns_the_best_move_so_far() -> None:
    mcts = engine(simulation=interrupt_after(25))
    result = mcts.search(position(""), Budget(iterations=1000))
    assert (result.stopped_by, result.simulations) == ("stopped", 25)
    assert result.moves and sum(m.visits for m in result.moves) == 25
    assert mcts.tree is None  # the interrupted iteration may have left it half updated


def test_keyboard_interrupt_before_any_result_propagates() -> None:
    with pytest.raises(KeyboardInterrupt):
        engine(simulation=interrupt_after(0)).search(position(""), Budget(iterations=10))


@pytest.mark.parametrize("start", [6, 11, 13])
def test_a_budget_of_tree_size_alone_ends_once_the_tree_settles(start: int) -> None:
    # A countdown tree fits in far less than 10**6 nodes, so the node limit is
    # never reached; before, such a search never ended. Once 10,000 simulations
    # in a row add no node it stops, with the move that leaves a multiple of 4.
    result = engine().search(make("countdown", start=start), Budget(max_nodes=10**6))
    assert result.stopped_by == "settled" and result.nodes < 10**6
    assert result.best_move in solve(start)[start].winning_moves
