"""Tree snapshots (build_tree_view): which nodes they keep, in what order, named how."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mctslab import Budget, SearchConfig, make
from mctslab.core.tree_view import TreeView, build_tree_view
from mctslab.players import new_engine


@dataclass
class Node:
    move: int
    visits: int
    mean: float = 0.5
    children: list[Node] = field(default_factory=list)


def snapshot(root: Node, *, max_depth: int, top_k: int) -> TreeView:
    return build_tree_view(
        root,
        make("tictactoe"),
        lambda node: node.children,
        lambda node: (node.move, node.visits, node.mean),
        max_depth=max_depth,
        top_k=top_k,
    )


def shape(view: TreeView) -> tuple[object, ...]:
    """A snapshot as nested tuples of (move, visits, expanded, children)."""
    return (view.move, view.visits, view.expanded, tuple(shape(c) for c in view.children))


def test_a_snapshot_keeps_the_most_visited_children_in_order_down_to_its_depth() -> None:
    # Tic-tac-toe move ids: 0 a3, 1 b3, 2 c3, 3 a2, 4 b2, ... (rows from the top).
    grandchildren = [Node(0, 3), Node(2, 9), Node(8, 0), Node(1, 5)]
    root = Node(
        -1,
        40,
        children=[
            Node(0, 6),
            Node(4, 20, 0.7, children=grandchildren),
            Node(8, 0),  # unvisited: left out, and not counted as expanded
            Node(2, 14, children=[Node(4, 13, children=[Node(0, 12)])]),
        ],
    )
    assert shape(snapshot(root, max_depth=2, top_k=2)) == (
        None,
        40,
        3,
        (
            ("b2", 20, 3, (("c3", 9, 0, ()), ("b3", 5, 0, ()))),
            ("c3", 14, 1, (("b2", 13, 1, ()),)),  # depth 2: its child is counted, not kept
        ),
    )
    assert snapshot(root, max_depth=0, top_k=5).children == ()
    assert snapshot(root, max_depth=1, top_k=5).children[0].value == 0.7
    deeper = snapshot(root, max_depth=3, top_k=2)
    assert deeper.count() == 7 and deeper.children[1].children[0].children[0].move == "a3"


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_snapshots_first_level_is_the_searchs_root_statistics(engine: str) -> None:
    state = make("connect4")
    searcher = new_engine(engine, SearchConfig(seed=3))
    result = searcher.search(state, Budget(iterations=3000))
    view = searcher.tree_view(state, max_depth=1, top_k=7)  # type: ignore[attr-defined]
    ranked = sorted(result.moves, key=lambda move: move.visits, reverse=True)
    assert [(c.move, c.visits) for c in view.children] == [(m.notation, m.visits) for m in ranked]
    assert view.expanded == len(result.moves) == 7
