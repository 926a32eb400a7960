"""A plain snapshot of the top of a search tree, for drawing and study."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from mctslab._validation import check_int
from mctslab.core.config import SearchConfig
from mctslab.core.protocol import GameState, equal_only_to_itself

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
    if state is not None and equal_only_to_itself(state):
        return ValueError(
            "There is no search tree for this position: a state other than the one searched "
            f"must compare equal to it, and {type(state).__name__} does not define __eq__ "
            "(define it, or pass the state searched)."
        )
    return ValueError("There is no search tree for this position; search it first.")


#: The most positions a snapshot keeps unless told otherwise: as many as a drawing
#: can show readably and graphviz's ``dot`` lays out at once.
MAX_VIEW_NODES = 100


@dataclass(frozen=True)
class TreeView:
    """A position of the snapshot: its visits and mean value (for the player who moved into it).

    ``children`` pairs the move into each child kept with the child's view,
    most visited first; ``left_out`` is how many of the position's visited
    children the snapshot does not hold at all. A position that the search
    reached by several move orders (the compiled engine's transpositions, where
    the tree shares one node among them) is one view, at the depth where the
    snapshot first found it: the child of each parent one move above that
    depth. A parent at another depth does not list it among its ``children``,
    nor count it as left out.

    ``cut_by_max_nodes`` is the snapshot's, so the root's alone (False below):
    whether ``max_nodes`` left out positions that ``max_depth`` and ``top_k``
    would have kept.
    """

    visits: int
    value: float
    children: tuple[tuple[str, TreeView], ...]
    left_out: int
    cut_by_max_nodes: bool = False

    def count(self) -> int:
        """Positions in this snapshot, each counted once."""
        seen = {id(self)}
        stack = [self]
        while stack:
            for _, child in stack.pop().children:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        return len(seen)


def build_tree_view(
    root: N,
    root_state: GameState,
    children: Callable[[N], Sequence[N]],
    stats: Callable[[N], tuple[int, int, float]],
    *,
    max_depth: int,
    top_k: int,
    max_nodes: int = MAX_VIEW_NODES,
    position: Callable[[N], Hashable] = id,
) -> TreeView:
    """A snapshot of any engine's tree, given how to read it.

    ``children(node)`` lists a node's children and ``stats(node)`` gives
    ``(move, visits, mean value)``; ``position(node)`` is the same for every
    node that stands for one position (by default each node is its own). Only
    visited children are kept, the ``top_k`` most visited of each position,
    down to ``max_depth`` moves, and of those the ``max_nodes`` most visited
    positions: a search spends its visits on a few lines, which the snapshot
    follows as deep as they go before it shows the rarely visited ones. The
    snapshot says whether that cap left any out (``cut_by_max_nodes``).
    """
    check_int(max_depth, "max_depth", "tree_view", low=0)
    check_int(top_k, "top_k", "tree_view", low=1)
    check_int(max_nodes, "max_nodes", "tree_view", low=1)

    # Most visited first, without recursion: a nested function that calls itself holds
    # itself in its closure, a reference cycle that would keep ``children`` and ``stats``
    # (and through them the engine's whole tree, hundreds of MiB for the compiled engine)
    # alive after the engine lets go of it, until the garbage collector's next full pass.
    # Per position found: a node of it and its depth (moves from the root), and its state
    # until its children are found; ties in visits go to the position found first.
    root_key = position(root)
    found: dict[Hashable, tuple[N, int]] = {root_key: (root, 0)}
    states = {root_key: root_state}
    frontier = [(-stats(root)[1], 0, root_key)]
    kept: set[Hashable] = set()
    edges: dict[Hashable, list[tuple[str, Hashable]]] = {}
    visited_children: dict[Hashable, list[Hashable]] = {}
    while frontier and len(kept) < max_nodes:
        key = heapq.heappop(frontier)[2]
        node, depth = found[key]
        state = states.pop(key)
        kept.add(key)
        below = [child for child in children(node) if stats(child)[1] > 0]
        visited_children[key] = [position(child) for child in below]
        edges[key] = []
        if depth == max_depth:
            continue
        for child in sorted(below, key=lambda child: stats(child)[1], reverse=True)[:top_k]:
            child_move, child_visits, _ = stats(child)
            child_key = position(child)
            edges[key].append((state.move_to_str(child_move), child_key))
            if child_key not in found:
                after = state.clone()
                after.apply(child_move)
                found[child_key] = (child, depth + 1)
                states[child_key] = after
                heapq.heappush(frontier, (-child_visits, len(found), child_key))
    # Deepest first, so that every child's view exists before its parents'. An edge is
    # kept only into the depth below its parent's, where its child was first found: a
    # position reached by lines of different lengths is drawn at one depth, and one
    # reached again below itself (a game whose positions repeat) not as its own descendant.
    views: dict[Hashable, TreeView] = {}
    for key in sorted(kept, key=lambda key: found[key][1], reverse=True):
        node, depth = found[key]
        _, visits, value = stats(node)
        views[key] = TreeView(
            visits=visits,
            value=value,
            children=tuple(
                (move, views[child_key])
                for move, child_key in edges[key]
                if child_key in views and found[child_key][1] == depth + 1
            ),
            left_out=sum(child_key not in kept for child_key in visited_children[key]),
            # Positions found and not kept are left only where the cap stopped the loop.
            cut_by_max_nodes=key == root_key and bool(frontier),
        )
    return views[root_key]
