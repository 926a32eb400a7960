"""Keeping the tree between searches: advance() re-roots it, search() continues it."""

from __future__ import annotations

import pytest

from mctslab import make
from mctslab.core import MCTS, Budget, Node, SearchConfig, count_nodes
from mctslab.games import IllegalMoveError
from tests.core.tictactoe_minimax import position


def test_advance_keeps_the_subtree_and_search_continues_it() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    state = position("")
    first = mcts.search(state, Budget(iterations=2000))
    assert mcts.tree is not None
    child = mcts.tree.child(first.best_move)
    assert child is not None
    kept_visits = child.visits
    kept_nodes = count_nodes(child)

    mcts.advance(first.best_move)
    state.apply(first.best_move)
    assert mcts.tree is child
    second = mcts.search(state, Budget(iterations=300))
    # The kept root's first visit was its own expansion; every other visit, old
    # or new, went through one of its children.
    assert sum(m.visits for m in second.moves) == kept_visits - 1 + 300
    assert second.simulations == 300
    assert second.nodes == count_nodes(mcts.tree) > kept_nodes


def test_two_advances_follow_both_moves() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    state = position("")
    result = mcts.search(state, Budget(iterations=3000))
    reply = result.pv[1]
    assert mcts.tree is not None
    grandchild = mcts.tree.child(result.best_move).child(reply)  # type: ignore[union-attr]
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    assert mcts.tree is grandchild
    again = mcts.search(state, Budget(iterations=10))
    assert sum(m.visits for m in again.moves) == grandchild.visits - 1


def test_advance_to_an_unexpanded_move_starts_from_a_bare_root() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    state = position("")
    mcts.search(state, Budget(iterations=3))
    assert mcts.tree is not None
    unexpanded = next(m for m in state.legal_moves() if mcts.tree.child(m) is None)
    mcts.advance(unexpanded)
    state.apply(unexpanded)
    result = mcts.search(state, Budget(iterations=50))
    assert sum(m.visits for m in result.moves) == 50


def test_another_position_starts_a_fresh_tree() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    mcts.search(position(""), Budget(iterations=200))
    result = mcts.search(position("c3"), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 100
    assert result.nodes == 101


def test_same_position_searched_again_continues() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    mcts.search(position("a1"), Budget(iterations=200))
    result = mcts.search(position("a1"), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 300


def test_without_reuse_nothing_is_kept() -> None:
    mcts = MCTS(SearchConfig(seed=0, reuse_tree=False))
    first = mcts.search(position(""), Budget(iterations=200))
    assert mcts.tree is None
    mcts.advance(first.best_move)
    result = mcts.search(position(first.best_notation), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 100


def test_reset_forgets_the_tree() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    mcts.search(position(""), Budget(iterations=200))
    mcts.reset()
    assert mcts.tree is None
    result = mcts.search(position(""), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 100


def test_advance_without_a_tree_is_a_no_op() -> None:
    mcts = MCTS()
    mcts.advance(4)
    assert mcts.tree is None


def test_advance_refuses_an_illegal_move() -> None:
    mcts = MCTS(SearchConfig(seed=0))
    mcts.search(position("b2"), Budget(iterations=50))
    # Named in the game's notation, as State.play does (before: a ValueError listing ids).
    with pytest.raises(IllegalMoveError, match="root position; legal moves: a3 b3 c3 a2 c2 a1"):
        mcts.advance(4)  # b2 is taken


def test_searching_one_iteration_at_a_time_builds_the_tree_of_one_search() -> None:
    # The README's way to watch a search step by step: the kept tree and the random stream
    # both go on between searches, so the steps add up to the one search.
    def shape(root: Node) -> list[tuple[int, int, int, float]]:
        rows, stack = [], [(0, root)]
        while stack:
            depth, node = stack.pop()
            rows.append((depth, node.move, node.visits, node.value_sum))
            stack.extend((depth + 1, child) for child in node.children)
        return rows

    state = make("countdown", start=9)
    stepped = MCTS(SearchConfig(seed=4))
    for _ in range(300):
        stepped.search(state, Budget(iterations=1))
    whole = MCTS(SearchConfig(seed=4))
    whole.search(state, Budget(iterations=300))
    assert stepped.tree is not None and whole.tree is not None
    assert stepped.tree.visits == 300
    assert shape(stepped.tree) == shape(whole.tree)


@pytest.mark.parametrize(
    ("budget", "limit"), [(Budget(memory_mb=0.05), "memory"), (Budget(max_nodes=100), "nodes")]
)
def test_a_kept_tree_past_a_smaller_size_limit_gets_no_simulation(
    budget: Budget, limit: str
) -> None:
    # 2,001 nodes are charged about 0.46 MiB: over 0.05 MiB and 100 nodes. The tree is kept
    # as it is and the result read from it, as the engine's docstring says.
    mcts = MCTS(SearchConfig(seed=0))
    state = position("")
    first = mcts.search(state, Budget(iterations=2000))
    again = mcts.search(state, budget)
    assert (again.simulations, again.nodes, again.stopped_by) == (0, first.nodes, limit)
    assert again.moves == first.moves and again.best_move == first.best_move
