"""A plain snapshot of the top of a search tree, for drawing and study."""

from __future__ import annotations

from dataclasses import dataclass


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
