"""A plain snapshot of the top of a search tree, for drawing and study."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from mctslab._validation import check_int
from mctslab.core.config import SearchConfig
from mctslab.core.protocol import GameState

N = TypeVar("N")


def no_tree(config: SearchConfig) -> ValueError:
    """The error of an engine asked to draw a tree it does not hold, saying why."""
    if not config.reuse_tree:
        return ValueError(
            "The engine keeps no search tree (its config has reuse_tree=False); "
            "search with reuse_tree=True to draw one."
        )
    return ValueError("There is no search tree for this position; search it first.")


@dataclass(frozen=True)
class TreeView:
    """One node: the move into it, its visits and mean value (for the player who moved).

    ``children`` holds at most the ``top_k`` most visited children down to the
    snapshot's depth; ``expanded`` is how many children the node has in the tree.
    """

    move: str | None
    visits: int
    value: float
    children: tuple[TreeView, ...]
    expanded: int

    def count(self) -> int:
        """Nodes in this snapshot."""
        total, stack = 0, [self]
        while stack:
            node = stack.pop()
            total += 1
            stack.extend(node.children)
        return total


def build_tree_view(
    root: N,
    root_state: GameState,
    children: Callable[[N], Sequence[N]],
    stats: Callable[[N], tuple[int, int, float]],
    *,
    max_depth: int,
    top_k: int,
) -> TreeView:
    """A snapshot of any engine's tree, given how to read it.

    ``children(node)`` lists a node's children and ``stats(node)`` gives
    ``(move, visits, mean value)``; only visited children are kept, the
    ``top_k`` most visited of each node, down to ``max_depth`` moves.
    """
    check_int(max_depth, "max_depth", "tree_view", low=0)
    check_int(top_k, "top_k", "tree_view", low=1)

    def view(node: N, state: GameState, depth: int, move: str | None) -> TreeView:
        _, visits, value = stats(node)
        below = [child for child in children(node) if stats(child)[1] > 0]
        kept: tuple[TreeView, ...] = ()
        if depth < max_depth:
            ranked = sorted(below, key=lambda child: stats(child)[1], reverse=True)[:top_k]
            views = []
            for child in ranked:
                child_move = stats(child)[0]
                after = state.clone()
                after.apply(child_move)
                views.append(view(child, after, depth + 1, state.move_to_str(child_move)))
            kept = tuple(views)
        return TreeView(move=move, visits=visits, value=value, children=kept, expanded=len(below))

    return view(root, root_state.clone(), 0, None)
