"""The array tree: its invariants after searches of wide and narrow games, and compaction."""

from __future__ import annotations

import numpy as np
import pytest

from mctslab import State, make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._loop import FREE, NUM_COUNTERS, USED, block_size
from mctslab.fast._tree import Tree


def check_tree(tree: Tree, root_state: State, *, fresh_root: bool) -> int:
    """Assert the tree's invariants, position by position; returns the nodes reached.

    A node's first visit is its own simulation, and each later one goes
    through exactly one child (a fresh root has no visit of its own); child
    moves are distinct legal moves; blocks and free lists account for every
    slot handed out; the node count is the nodes reachable from the root.
    """
    slots = 1
    nodes = 1
    stack = [(0, root_state)]
    while stack:
        node, state = stack.pop()
        children = tree.children(node)
        if not children:
            continue
        moves = [int(m) for m in tree.move[children.start : children.stop]]
        legal = state.legal_moves()
        assert len(set(moves)) == len(moves) and set(moves) <= set(legal)
        assert tree.num_moves[node] == len(legal)
        own = 0 if node == 0 and fresh_root else 1
        assert tree.visits[children.start : children.stop].sum() == tree.visits[node] - own
        means = (
            tree.values[children.start : children.stop]
            / tree.visits[children.start : children.stop]
        )
        assert np.all((means >= 0.0) & (means <= 1.0))
        slots += block_size.py_func(len(moves), len(legal))
        nodes += len(moves)
        for child, move in zip(children, moves, strict=True):
            after = state.clone()
            after.apply(move)
            stack.append((child, after))
    free = 0
    for k in range(NUM_COUNTERS - FREE):
        block = int(tree.counters[FREE + k])
        while block:
            free += 1 << k
            block = int(tree.first_child[block])
    assert slots + free == tree.counters[USED]
    assert nodes == tree.nodes
    return nodes


@pytest.mark.parametrize(
    ("name", "params", "iterations"),
    [
        ("tictactoe", {}, 20_000),  # narrow and shallow: the whole game tree fills in
        ("gomoku", {"size": 7, "k": 4}, 20_000),  # wide: blocks grow and move a lot
        ("othello", {}, 5_000),
        ("numbers", {"turns": 6}, 5_000),  # one player
    ],
)
@pytest.mark.parametrize("tree_policy", ["uct", "coinflip"])
def test_invariants_after_a_search(
    name: str, params: dict[str, int], iterations: int, tree_policy: str
) -> None:
    mcts = FastMCTS(SearchConfig(seed=1, tree_policy=tree_policy))  # type: ignore[arg-type]
    state = make(name, **params)
    result = mcts.search(state, Budget(iterations=iterations))
    assert mcts._tree is not None
    assert check_tree(mcts._tree, state, fresh_root=True) == result.nodes


def test_invariants_after_advancing_twice() -> None:
    mcts = FastMCTS(SearchConfig(seed=2))
    state = make("gomoku", size=7, k=4)
    result = mcts.search(state, Budget(iterations=20_000))
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    result = mcts.search(state, Budget(iterations=5_000))
    assert mcts._tree is not None
    assert check_tree(mcts._tree, state, fresh_root=False) == result.nodes


def test_terminal_nodes_hold_their_movers_return() -> None:
    mcts = FastMCTS(SearchConfig(seed=2))
    root_state = make("tictactoe")
    mcts.search(root_state, Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    checked = 0
    stack = [(0, root_state)]
    while stack:
        node, state = stack.pop()
        for child in tree.children(node):
            after = state.clone()
            after.apply(int(tree.move[child]))
            if after.is_terminal():
                normalised = (after.returns()[state.current_player] + 1.0) / 2.0
                assert tree.values[child] / tree.visits[child] == normalised
                checked += 1
            stack.append((child, after))
    assert checked > 1000


def _shape(tree: Tree, root: int) -> list[tuple[int, int, float, int]]:
    """(move, visits, value sum, child count) of every node under ``root``, breadth first."""
    shape = []
    queue = [root]
    for node in queue:
        shape.append(
            (
                int(tree.move[node]),
                int(tree.visits[node]),
                float(tree.values[node]),
                int(tree.num_children[node]),
            )
        )
        queue.extend(tree.children(node))
    return shape


def test_subtree_copies_exactly_and_refuses_what_does_not_fit() -> None:
    mcts = FastMCTS(SearchConfig(seed=3))
    mcts.search(make("gomoku", size=7, k=4), Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    child = tree.best_child(0)
    assert child is not None
    copy = tree.subtree(child, tree.capacity)
    assert copy is not None
    assert _shape(copy, 0)[1:] == _shape(tree, child)[1:]
    assert copy.nodes == len(_shape(tree, child))
    assert tree.subtree(child, copy.nodes // 2) is None
