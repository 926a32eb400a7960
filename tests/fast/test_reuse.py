"""Keeping the tree between searches: advance() re-roots it, search() continues it.

Plain UCT, whose visit counts add up exactly (transpositions: tests/fast/test_tree.py)."""

from __future__ import annotations

import tracemalloc

import pytest

from mctslab import make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.games import IllegalMoveError
from tests.core.tictactoe_minimax import position


def test_advance_keeps_the_subtree_and_search_continues_it() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    state = position("")
    first = mcts.search(state, Budget(iterations=2000))
    kept = {m.move: m.visits for m in first.moves}[first.best_move]
    mcts.advance(first.best_move)
    state.apply(first.best_move)
    second = mcts.search(state, Budget(iterations=300))
    # The kept root's first visit was its own expansion; every other visit, old
    # or new, went through one of its children.
    assert sum(m.visits for m in second.moves) == kept - 1 + 300
    assert second.simulations == 300


@pytest.mark.parametrize("memory_mb", [None, 0.5])
def test_two_advances_follow_both_moves(memory_mb: float | None) -> None:
    # A memory budget unlike the first search's moves the kept subtree into
    # arrays of the new size.
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    state = make("connect4")
    result = mcts.search(state, Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    child = tree.child(0, result.pv[0])
    assert child is not None
    grandchild = tree.child(child, result.pv[1])
    assert grandchild is not None
    kept = int(tree.visits[grandchild])
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    again = mcts.search(state, Budget(iterations=10, memory_mb=memory_mb))
    assert sum(m.visits for m in again.moves) == kept - 1 + 10


def test_advance_to_an_unexpanded_move_starts_from_a_bare_root() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    state = position("")
    first = mcts.search(state, Budget(iterations=3))
    unexpanded = next(m for m in state.legal_moves() if m not in {s.move for s in first.moves})
    mcts.advance(unexpanded)
    state.apply(unexpanded)
    result = mcts.search(state, Budget(iterations=50))
    assert sum(m.visits for m in result.moves) == 50


def test_another_position_starts_a_fresh_tree() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    mcts.search(position(""), Budget(iterations=500))
    result = mcts.search(position("b2"), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 100


def test_same_position_continues_and_reset_forgets() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    mcts.search(position(""), Budget(iterations=500))
    assert sum(m.visits for m in mcts.search(position(""), Budget(iterations=100)).moves) == 600
    mcts.reset()
    assert sum(m.visits for m in mcts.search(position(""), Budget(iterations=100)).moves) == 100


def test_close_lets_the_tree_go() -> None:
    # A closed engine (a finished web game, say) must not hold its tree's arrays.
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    mcts.search(position(""), Budget(iterations=500))
    mcts.close()
    assert mcts._tree is None
    assert sum(m.visits for m in mcts.search(position(""), Budget(iterations=100)).moves) == 100


def test_without_reuse_every_search_is_fresh() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0, reuse_tree=False))
    state = position("")
    first = mcts.search(state, Budget(iterations=500))
    mcts.advance(first.best_move)  # nothing kept: a no-op
    assert sum(m.visits for m in mcts.search(state, Budget(iterations=100)).moves) == 100


def test_advancing_by_an_illegal_move_is_refused() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=0))
    state = position("b2")
    mcts.search(state, Budget(iterations=50))
    # Named in the game's notation, as State.play does (before: a ValueError listing ids).
    with pytest.raises(IllegalMoveError, match="root position; legal moves: a3 b3 c3 a2 c2 a1"):
        mcts.advance(4)


@pytest.mark.parametrize("game", ["connect4", "gomoku"])  # Gomoku: GRAVE's tables too
@pytest.mark.parametrize("advance", [True, False])
def test_a_search_holds_one_tree_not_the_one_before_too(game: str, advance: bool) -> None:
    # The memory budget covers the engine's whole tree: while the second search
    # runs (re-rooted by advance(), or from another position), the first tree
    # and its AMAF tables must be gone. Re-rooting copies the subtree kept, so
    # for that copy two trees exist; a fresh tree never coexists with the old.
    # tracemalloc sees numpy's arrays (the code is loaded before it starts).
    budget = Budget(iterations=4000, memory_mb=2.0)
    limit = 2.0 * 2**20
    state = make(game) if game == "connect4" else make(game, size=9)
    FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=100))
    mcts = FastMCTS(SearchConfig(seed=0), progress_interval=0.0)
    held: list[int] = []
    tracemalloc.start()
    try:
        first = mcts.search(state, budget)
        if advance:
            mcts.advance(first.best_move)
        state.apply(first.best_move)
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        mcts.search(
            state, budget, progress=lambda _: held.append(tracemalloc.get_traced_memory()[0])
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert before >= 0.5 * limit  # the first tree was traced (a hash table grows later)
    assert held
    assert max(held) <= 1.1 * limit
    assert peak <= (2.2 if advance else 1.1) * limit
