"""Tree snapshots (build_tree_view): which nodes they keep, in what order, named how."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mctslab import Budget, SearchConfig, State, make
from mctslab.core import COINFLIP_C
from mctslab.core.tree_view import TreeView, build_tree_view
from mctslab.players import new_engine
from mctslab.viz.tree import tree_to_dot


@dataclass
class Node:
    move: int
    visits: int
    mean: float = 0.5
    children: list[Node] = field(default_factory=list)


def snapshot(root: Node, *, max_depth: int, top_k: int, max_nodes: int = 100) -> TreeView:
    return build_tree_view(
        root,
        make("tictactoe"),
        lambda node: node.children,
        lambda node: (node.move, node.visits, node.mean),
        max_depth=max_depth,
        top_k=top_k,
        max_nodes=max_nodes,
    )


def shape(view: TreeView) -> tuple[object, ...]:
    """A snapshot as nested tuples of (visits, left out, children as (move, child))."""
    return (view.visits, view.left_out, tuple((m, shape(c)) for m, c in view.children))


def parents(view: TreeView) -> dict[int, int]:
    """How many parents each position of a snapshot has, by its view's id."""
    count: dict[int, int] = {}
    stack = [view]
    while stack:
        for _, child in stack.pop().children:
            count[id(child)] = count.get(id(child), 0) + 1
            if count[id(child)] == 1:
                stack.append(child)
    return count


def test_a_snapshot_keeps_the_most_visited_children_in_order_down_to_its_depth() -> None:
    # Tic-tac-toe move ids: 0 a3, 1 b3, 2 c3, 3 a2, 4 b2, ... (rows from the top).
    grandchildren = [Node(0, 3), Node(2, 9), Node(8, 0), Node(1, 5)]
    root = Node(
        -1,
        40,
        children=[
            Node(0, 6),
            Node(4, 20, 0.7, children=grandchildren),
            Node(8, 0),  # unvisited: not in the snapshot, nor counted as left out
            Node(2, 14, children=[Node(4, 13, children=[Node(0, 12)])]),
        ],
    )
    assert shape(snapshot(root, max_depth=2, top_k=2)) == (
        40,
        1,
        (
            ("b2", (20, 1, (("c3", (9, 0, ())), ("b3", (5, 0, ()))))),
            ("c3", (14, 0, (("b2", (13, 1, ())),))),  # depth 2: its child left out
        ),
    )
    assert snapshot(root, max_depth=0, top_k=5).children == ()
    assert snapshot(root, max_depth=1, top_k=5).children[0][1].value == 0.7
    deeper = snapshot(root, max_depth=3, top_k=2)
    assert deeper.count() == 7 and deeper.children[1][1].children[0][1].children[0][0] == "a3"


def test_a_snapshot_keeps_its_most_visited_positions_however_deep() -> None:
    # Before, nothing bounded a snapshot but its depth and the children kept per node.
    line = Node(4, 30, children=[Node(0, 29, children=[Node(8, 28, children=[Node(2, 27)])])])
    root = Node(-1, 40, children=[line, Node(0, 6), Node(8, 4)])
    # The line of the most visits first, to its end, then the root's next child: its
    # third, of 4 visits, is cut (and counted as left out).
    assert shape(snapshot(root, max_depth=9, top_k=3, max_nodes=6)) == (
        40,
        1,
        (
            ("b2", (30, 0, (("a3", (29, 0, (("c1", (28, 0, (("c3", (27, 0, ())),))),))),))),
            ("a3", (6, 0, ())),
        ),
    )
    assert snapshot(root, max_depth=9, top_k=3, max_nodes=1).children == ()


def test_a_snapshot_says_whether_its_cap_left_positions_out() -> None:
    # Before, a caller could only guess from a count equal to the cap, and `mctslab numbers`
    # said "the 7 most visited positions (--tree-nodes)" of a tree of 7 drawn whole.
    root = Node(-1, 40, children=[Node(4, 30, children=[Node(0, 29)]), Node(0, 6), Node(8, 4)])
    whole = snapshot(root, max_depth=9, top_k=3, max_nodes=5)
    assert whole.count() == 5 and not whole.cut_by_max_nodes
    cut = snapshot(root, max_depth=9, top_k=3, max_nodes=4)
    assert cut.count() == 4 and cut.cut_by_max_nodes
    # Positions that the depth or the width leave out are not the cap's doing.
    assert not snapshot(root, max_depth=1, top_k=2, max_nodes=3).cut_by_max_nodes
    assert not any(child.cut_by_max_nodes for _, child in cut.children)


def test_a_position_reached_by_several_move_orders_is_one_view() -> None:
    # Nodes that stand for one position (the compiled engine's transpositions) share a
    # view, a child of each parent; before, it was copied under every one of them.
    shared = Node(8, 10, children=[Node(2, 9)])
    root = Node(-1, 30, children=[Node(0, 12, children=[shared]), Node(4, 11, children=[shared])])
    view = build_tree_view(
        root,
        make("tictactoe"),
        lambda node: node.children,
        lambda node: (node.move, node.visits, node.mean),
        max_depth=3,
        top_k=2,
        position=lambda node: node.visits,  # each position's visits are its own, here
    )
    a3, b2 = (child for _, child in view.children)
    assert a3.children[0][1] is b2.children[0][1]
    assert view.count() == 5 and sorted(parents(view).values()) == [1, 1, 1, 2]


def test_a_child_drawn_at_another_depth_is_not_counted_as_left_out() -> None:
    # The position of 10 visits is the root's child and, by a longer line, a3's: it is drawn
    # once, below the root, with no arrow from a3. Before, a3 still counted it, and its box
    # said "(+1 more)" of a child that was drawn.
    pytest.importorskip("graphviz")
    shared = Node(8, 10)
    root = Node(-1, 30, children=[Node(0, 12, children=[shared]), shared])
    view = build_tree_view(
        root,
        make("tictactoe"),
        lambda node: node.children,
        lambda node: (node.move, node.visits, node.mean),
        max_depth=2,
        top_k=2,
        position=lambda node: node.visits,
    )
    assert "more" not in tree_to_dot(view)
    assert shape(view) == (30, 0, (("a3", (12, 0, ())), ("c1", (10, 0, ()))))


def test_the_compiled_engines_snapshot_holds_each_position_once() -> None:
    # Before, depth 7 of this 4,003-node tree made 18,778 views, depth 10 1,041,042.
    state = make("numbers")
    config = SearchConfig(seed=1, tree_policy="coinflip", c=COINFLIP_C, bandit="ucb1")
    engine = new_engine("compiled", config)
    result = engine.search(state, Budget(iterations=3000))
    view = engine.tree_view(state, max_depth=7, top_k=4)  # type: ignore[attr-defined]
    assert view.count() <= 100 < result.nodes
    whole = engine.tree_view(state, max_depth=10, top_k=4, max_nodes=10**6)  # type: ignore[attr-defined]
    assert whole.count() < result.nodes
    assert max(parents(whole).values()) > 1
    # Each position, however many move orders reach it, is one view: replayed, every path
    # to a view leads to its one position, and no two views hold the same position.
    position_of: dict[int, bytes] = {id(whole): state.position_key()}
    stack: list[tuple[TreeView, State]] = [(whole, state)]
    while stack:
        view, position = stack.pop()
        for move, child in view.children:
            after = position.clone()
            after.play(move)
            if id(child) in position_of:  # reached before by another move order
                assert position_of[id(child)] == after.position_key(), move
            else:
                position_of[id(child)] = after.position_key()
                stack.append((child, after))
    assert len(set(position_of.values())) == len(position_of) == whole.count()


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_snapshots_first_level_is_the_searchs_root_statistics(engine: str) -> None:
    state = make("connect4")
    searcher = new_engine(engine, SearchConfig(seed=3))
    result = searcher.search(state, Budget(iterations=3000))
    view = searcher.tree_view(state, max_depth=1, top_k=7)  # type: ignore[attr-defined]
    ranked = sorted(result.moves, key=lambda move: move.visits, reverse=True)
    assert [(m, c.visits) for m, c in view.children] == [(m.notation, m.visits) for m in ranked]
    assert view.left_out == 0 and len(result.moves) == 7
