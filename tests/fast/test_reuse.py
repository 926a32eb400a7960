"""Keeping the tree between searches: advance() re-roots it, search() continues it.

Plain UCT, whose visit counts add up exactly (transpositions: tests/fast/test_tree.py)."""

from __future__ import annotations

import tracemalloc

import pytest

from mctslab import make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._engine import COPY_SECONDS_PER_NODE, COPY_SHARE
from mctslab.games import IllegalMoveError, State
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


def _advanced(config: SearchConfig, iterations: int) -> tuple[FastMCTS, State, int]:
    """An engine re-rooted after a Connect Four search of ``iterations``, the position,
    and the kept root's visits."""
    mcts = FastMCTS(config)
    state = make("connect4")
    move = mcts.search(state, Budget(iterations=iterations)).best_move
    mcts.advance(move)
    state.apply(move)
    assert mcts._tree is not None
    return mcts, state, int(mcts._tree.visits[mcts._root])


def _searched_kept_tree(mcts: FastMCTS, state: State, budget: Budget, kept: int) -> bool:
    """Search ``state`` with ``budget``: whether it went on with the kept root's ``kept``
    visits (else it started a fresh tree, whose root had none)."""
    result = mcts.search(state, budget)
    assert mcts._tree is not None
    root = int(mcts._tree.visits[0])
    assert root in (result.simulations, kept + result.simulations)
    return root == kept + result.simulations


@pytest.mark.parametrize("plain", [True, False])  # False: transpositions, a sub-DAG
def test_a_timed_search_too_short_for_the_copy_starts_a_fresh_tree(plain: bool) -> None:
    # A protocol's clock turns into short budgets: a big kept tree must not make one late.
    config = SearchConfig.plain(seed=0) if plain else SearchConfig(seed=0)
    mcts, state, kept = _advanced(config, 20_000)
    assert (kept + 1) * COPY_SECONDS_PER_NODE > 2 * COPY_SHARE * 0.001  # clearly too big
    assert not _searched_kept_tree(mcts, state, Budget(seconds=0.001), kept)


def test_the_rule_weighs_the_copy_against_the_seconds() -> None:
    # Plain UCT: the subtree has at most its root's visits and the root in nodes,
    # whose copy may take COPY_SHARE of the seconds.
    for share, kept_tree in ((0.9, False), (1.1, True)):
        mcts, state, kept = _advanced(SearchConfig.plain(seed=0), 20_000)
        needs = (kept + 1) * COPY_SECONDS_PER_NODE / COPY_SHARE
        budget = Budget(iterations=300, seconds=share * needs)
        assert _searched_kept_tree(mcts, state, budget, kept) is kept_tree


@pytest.mark.parametrize("plain", [True, False])
def test_a_generous_or_an_iteration_budget_keeps_the_tree(plain: bool) -> None:
    config = SearchConfig.plain(seed=0) if plain else SearchConfig(seed=0)
    for budget in (Budget(iterations=300), Budget(iterations=300, seconds=600.0)):
        mcts, state, kept = _advanced(config, 20_000)
        assert _searched_kept_tree(mcts, state, budget, kept)
