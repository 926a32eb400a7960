"""A plain snapshot of the top of a search tree, for drawing and study."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from mctslab._validation import check_int
from mctslab.core.config import SearchConfig
from mctslab.core.protocol import GameState

N = TypeVar("N")


def no_tree(config: SearchConfig, state: object = None) -> ValueError:
    """The error of an engine asked to draw a tree it does not hold, saying why.

    ``state``: the position asked for, where the engine holds the tree of another.
    """
    if not config.reuse_tree:
        return ValueError(
            "The engine keeps no search tree (its config has reuse_tree=False); "
            "search with reuse_tree=True to draw one."
        )
    if state is not None and type(state).__eq__ is object.__eq__:
        return ValueError(
            "There is no search tree for this position: a state other than the one searched "
            f"must compare equal to it, and {type(state).__name__} does not define __eq__ "
            "(define it, or pass the state searched)."
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

    # Breadth first, without recursion: a nested function that calls itself holds
    # itself in its closure, a reference cycle that would keep ``children`` and
    # ``stats`` (and through them the engine's whole tree, hundreds of MiB for the
    # compiled engine) alive after the engine lets go of it, until the garbage
    # collector's next full pass.
    # Per node: itself, its position, depth, the move into it and its parent's index;
    # a node's position goes once its children have theirs.
    pending: deque[tuple[N, GameState, int, str | None, int]] = deque(
        [(root, root_state.clone(), 0, None, -1)]
    )
    found: list[tuple[str | None, int, int, float, int]] = []
    while pending:
        node, state, depth, move, parent = pending.popleft()
        index = len(found)
        _, visits, value = stats(node)
        below = [child for child in children(node) if stats(child)[1] > 0]
        found.append((move, parent, visits, value, len(below)))
        if depth < max_depth:
            ranked = sorted(below, key=lambda child: stats(child)[1], reverse=True)[:top_k]
            for child in ranked:
                child_move = stats(child)[0]
                after = state.clone()
                after.apply(child_move)
                pending.append((child, after, depth + 1, state.move_to_str(child_move), index))
    # Children come after their parent, in rank order: built from the last node back,
    # each node's children arrive in reverse rank order, and the root comes last.
    below_views: list[list[TreeView]] = [[] for _ in found]
    for index in reversed(range(len(found))):
        move, parent, visits, value, expanded = found[index]
        children_views = tuple(reversed(below_views[index]))
        view = TreeView(
            move=move, visits=visits, value=value, children=children_views, expanded=expanded
        )
        if parent >= 0:
            below_views[parent].append(view)
    return view
