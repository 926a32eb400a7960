"""Budgets, stopping and progress reports of the compiled engine."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from mctslab import SearchResult, make
from mctslab._interrupt import noticing_ctrl_c
from mctslab._validation import physical_mib
from mctslab.core import DEFAULT_ITERATIONS, Budget, SearchConfig
from mctslab.fast import BYTES_PER_NODE, FastMCTS, _engine, bytes_per_node
from mctslab.games.countdown import solve
from tests.core.tictactoe_minimax import best_moves, position
from tests.ctrl_c import CtrlCInTheLoop


def engine(**kwargs: object) -> FastMCTS:
    return FastMCTS(SearchConfig.plain(seed=0), **kwargs)  # type: ignore[arg-type]


def test_iterations() -> None:
    result = engine().search(position(""), Budget(iterations=123))
    assert (result.stopped_by, result.simulations) == ("iterations", 123)


@pytest.mark.parametrize("budget", [None, Budget()])
def test_no_limit_means_the_default_iterations(budget: Budget | None) -> None:
    result = engine().search(position(""), budget)
    assert (result.stopped_by, result.simulations) == ("iterations", DEFAULT_ITERATIONS)


def test_max_nodes() -> None:
    result = engine().search(position(""), Budget(max_nodes=400))
    assert (result.stopped_by, result.nodes) == ("nodes", 400)


@pytest.mark.parametrize("max_nodes", [50, 137])
def test_max_nodes_is_exact_with_transpositions(max_nodes: int) -> None:
    # Countdown reaches its positions by many move orders. Before, an iteration whose new
    # child was a transposition (an alias, counted as a node) went on from the node it
    # stands for and expanded one there too: 51 nodes for 50, 138 and 139 for 137.
    for seed in range(3):
        result = FastMCTS(SearchConfig(seed=seed)).search(
            make("countdown", start=40), Budget(max_nodes=max_nodes, iterations=200_000)
        )
        assert (result.stopped_by, result.nodes) == ("nodes", max_nodes), seed


def test_memory_sizes_the_arrays_and_stops_the_search_when_full() -> None:
    mcts = engine()
    result = mcts.search(position(""), Budget(memory_mb=0.02))
    assert result.stopped_by == "memory"
    assert mcts._tree is not None
    assert mcts._tree.nbytes <= 0.02 * 2**20 < mcts._tree.nbytes + BYTES_PER_NODE
    # Every slot is a node but for the padding of child blocks and freed blocks.
    assert result.nodes > 0.8 * mcts._tree.capacity


@pytest.mark.parametrize("memory_mb", [1e-6, 1e-4])
def test_a_memory_budget_too_small_for_the_roots_moves_is_refused(memory_mb: float) -> None:
    # 1e-4 MiB holds a few slots, fewer than the root and its nine moves.
    with pytest.raises(
        ValueError, match=r"cannot hold the root and its children: they need \d+ bytes\.$"
    ):
        engine().search(position(""), Budget(memory_mb=memory_mb))


def test_a_memory_budget_beyond_the_machine_s_memory_is_refused_before_allocating() -> None:
    # Before: numpy's "MemoryError: Unable to allocate 74.8 TiB", or an overcommitted
    # allocation that the system kills later.
    beyond = physical_mib() * 2
    with pytest.raises(ValueError, match="MiB is more than this machine's memory"):
        engine().search(position(""), Budget(memory_mb=beyond))


def test_the_memory_budget_of_workers_is_their_trees_together() -> None:
    # The workers' trees share the budget, so the whole is checked against the machine's
    # memory (before, each worker's share was: one and a half times the machine ran on two
    # workers, where one refused it), and the errors name what was asked, not a share of it
    # (before: "The 'memory_mb' budget of 2.5e-05 MiB per tree" for 1e-4 on four workers).
    with pytest.raises(ValueError, match=r"budget of [\d.]+ MiB \([\d.]+ MiB for each of the 2 "):
        engine(workers=2).search(position(""), Budget(memory_mb=physical_mib() * 1.5, iterations=9))
    small = (
        r"budget of 0.0001 MiB \(2.5e-05 MiB for each of the 4 workers' trees\) cannot hold"
        r".* bytes a tree\.$"
    )
    with pytest.raises(ValueError, match=small):
        engine(workers=4).search(position(""), Budget(memory_mb=1e-4))


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        (Budget(iterations=50, seconds=60.0, max_nodes=10**6), "iterations"),
        (Budget(iterations=10**9, seconds=0.05), "seconds"),
        (Budget(iterations=10**6, max_nodes=30), "nodes"),
        (Budget(max_nodes=10**6, memory_mb=0.02), "memory"),
        (Budget(max_nodes=20, memory_mb=0.02), "nodes"),
    ],
)
def test_first_limit_reached_wins(budget: Budget, reason: str) -> None:
    assert engine().search(position(""), budget).stopped_by == reason


def test_without_a_memory_budget_a_full_tree_keeps_searching() -> None:
    # Shrink the default reservation so that it fills at once.
    mcts = engine()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("mctslab.fast._engine.DEFAULT_TREE_MB", 0.002)
        result = mcts.search(position(""), Budget(iterations=5000))
    assert (result.stopped_by, result.simulations) == ("iterations", 5000)
    assert mcts._tree is not None and mcts._tree.nbytes <= 0.002 * 2**20
    assert sum(m.visits for m in result.moves) == 5000


def test_stop_event() -> None:
    stop = threading.Event()
    stop.set()
    result = engine().search(position(""), Budget(seconds=60.0), stop=stop)
    # A search always runs one chunk, so a root child exists to answer with.
    assert result.stopped_by == "stopped" and result.simulations > 0


def test_progress_reports_interim_results_and_can_stop_the_search() -> None:
    stop = threading.Event()
    reports: list[SearchResult] = []

    def progress(interim: SearchResult) -> None:
        reports.append(interim)
        if len(reports) == 3:
            stop.set()

    mcts = engine(progress_interval=0.0)
    result = mcts.search(position(""), Budget(seconds=60.0), progress=progress, stop=stop)
    assert len(reports) == 3 and result.stopped_by == "stopped"
    assert all(r.stopped_by == "running" for r in reports)
    counts = [r.simulations for r in reports] + [result.simulations]
    assert counts == sorted(counts) and counts[0] > 0


def test_ctrl_c_between_chunks_returns_the_best_move_so_far() -> None:
    def interrupt(interim: SearchResult) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    mcts = engine(progress_interval=0.0)
    result = mcts.search(position(""), Budget(seconds=60.0), progress=interrupt)
    assert result.stopped_by == "stopped" and result.simulations > 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # The tree is whole (chunks are never cut short): the next search continues it.
    again = mcts.search(position(""), Budget(iterations=10))
    assert sum(m.visits for m in again.moves) == result.simulations + 10


def test_ctrl_c_anywhere_in_a_call_of_the_compiled_loop_stops_the_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, a KeyboardInterrupt that landed in numba's dispatcher while it converted
    # the loop's function arguments came out as a TypeError of numba's
    # ("_get_wrapper_address() missing 1 required positional argument: 'sig'"), which
    # `mctslab numbers` printed as a traceback. Ctrl-C is sent here at each Python call
    # the first chunk's call of the loop makes.
    ctrl_c = CtrlCInTheLoop(monkeypatch)
    mcts = engine()
    budget = Budget(iterations=2 * _engine.FIRST_CHUNK)
    assert mcts.search(position(""), budget).stopped_by == "iterations"
    made = ctrl_c.calls
    assert made > 100  # numba's dispatcher works in Python
    # Each search stops after the chunk under way, whose call goes through whole.
    stopped = ("stopped", _engine.FIRST_CHUNK, made)
    wrong: dict[int, object] = {}
    for send_at in range(1, made + 1):
        ctrl_c.again(send_at)
        try:
            result = mcts.search(position(""), budget)
        except Exception as error:  # named with the point it was sent at
            wrong[send_at] = error
        else:
            outcome = (result.stopped_by, result.simulations, ctrl_c.calls)
            if outcome != stopped:
                wrong[send_at] = outcome
    assert not wrong, repr(wrong)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_under_a_callers_handler_returns_the_search_and_tells_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The commands' and the arena's handler notes Ctrl-C and raises; called once the
    # search had stopped, its KeyboardInterrupt threw the search's best move away.
    ctrl_c = CtrlCInTheLoop(monkeypatch)
    mcts = engine()
    budget = Budget(iterations=2 * _engine.FIRST_CHUNK)
    for _ in range(2):  # the calls of a call once the loop is compiled and warm
        ctrl_c.again(None)
        mcts.search(position(""), budget)
    ctrl_c.again(ctrl_c.calls // 2)
    with noticing_ctrl_c() as pressed:
        result = mcts.search(position(""), budget)
    assert result.stopped_by == "stopped" and pressed()


def test_a_memory_budget_holds_the_transposition_table_as_it_grows() -> None:
    mcts = FastMCTS(SearchConfig(seed=0, bandit="ucb1-tuned", transpositions=True))
    result = mcts.search(make("connect4"), Budget(memory_mb=0.5))
    tree = mcts._tree
    assert result.stopped_by == "memory" and tree is not None
    used = sum(array.nbytes for array in tree.arrays) + tree.table.nbytes
    assert used <= tree.nbytes <= 0.5 * 2**20
    assert tree.table.shape[0] > 1024  # it grew from its first size
    assert tree.nbytes == tree.capacity * bytes_per_node(tuned=True, hashed=True, solver=True)


def test_a_game_the_solver_cannot_prove_gets_no_proven_values() -> None:
    # The defaults ask for the solver, but the numbers game has one player:
    # its tree must not pay for (nor the loop touch) proven values, also
    # where transpositions gather the statistics of aliased children.
    mcts = FastMCTS(SearchConfig(seed=0))
    mcts.search(make("numbers"), Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None and tree.hashed and not tree.solver
    assert tree.proven.shape == (0,)
    assert tree.nbytes == tree.capacity * bytes_per_node(tuned=True, hashed=True, solver=False)


@pytest.mark.parametrize(
    ("config", "game", "moves"),
    [
        (SearchConfig(seed=0, rave=True), "tictactoe", ""),  # AMAF tables take a share
        (SearchConfig(seed=0), "gomoku", "h8"),  # candidate moves: the root holds 24
    ],
)
def test_the_smallest_budget_for_the_roots_moves_searches(
    config: SearchConfig, game: str, moves: str
) -> None:
    state = make(game)
    for move in moves.split():
        state.play(state.parse_move(move))
    mcts = FastMCTS(config)
    root_moves = mcts._root_moves(state)
    assert root_moves == (9 if game == "tictactoe" else 24)
    # The root and its block fit once RAVE's share is taken (and with candidates
    # the budget is sized by them, not by the 224 legal moves).
    slots = 1 + root_moves + 2
    result = mcts.search(state, Budget(memory_mb=slots * mcts._node_bytes(state) / 2**20))
    assert result.stopped_by == "memory" and result.simulations > 0


def test_ctrl_c_while_the_transposition_table_grows_leaves_a_readable_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C between the old table's release and the new one's filling left
    # aliases that could not be resolved: reading the lines crashed.
    from mctslab.fast import _tree

    real = _tree.reindex
    calls = []

    def interrupted(*args: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        real(*args)

    monkeypatch.setattr(_tree, "reindex", interrupted)
    mcts = FastMCTS(SearchConfig(seed=0))
    result = mcts.search(make("connect4"), Budget(iterations=200_000))
    tree = mcts._tree
    assert result.stopped_by == "stopped" and tree is not None
    assert tree.table.shape[0] == 2 * 1024 and calls
    assert all(tree.node_of(slot) >= 0 for slot in tree.children(0))
    assert result.pv


@pytest.mark.parametrize(
    ("game", "budget"),
    [("tictactoe", Budget(memory_mb=64)), ("countdown", Budget(max_nodes=10**6))],
)
def test_a_budget_of_tree_size_alone_ends_once_the_tree_settles(game: str, budget: Budget) -> None:
    # Neither game fills the tree (plain UCT: no solver to end the search), so
    # before, such a search never ended. Once 10,000 simulations in a row add
    # no node it stops, with a move that perfect play would choose.
    state = position("") if game == "tictactoe" else make("countdown", start=14)
    result = engine().search(state, budget)
    assert result.stopped_by == "settled"
    if game == "tictactoe":
        assert result.best_notation in best_moves(position(""))
    else:
        assert result.best_move in solve(14)[14].winning_moves


def test_a_budget_with_iterations_or_seconds_does_not_stop_when_settled() -> None:
    result = engine().search(
        make("countdown", start=14), Budget(iterations=50_000, max_nodes=10**6)
    )
    assert (result.stopped_by, result.simulations) == ("iterations", 50_000)


def test_max_nodes_alone_beyond_the_default_arrays_stops_when_they_are_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Arrays of DEFAULT_TREE_MB (1 MiB here) cannot hold 10**7 nodes: the search
    # ends when they are full, as a memory budget's does (before: "settled" once
    # the full tree stopped growing, though it was full, not settled).
    monkeypatch.setattr("mctslab.fast._engine.DEFAULT_TREE_MB", 1.0)
    result = engine().search(make("gomoku", size=8), Budget(max_nodes=10**7))
    assert result.stopped_by == "memory" and result.nodes < 10**7
