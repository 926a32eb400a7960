"""The search tree of the generic engine: one small object per position.

Nodes hold no parent pointer and no game state: a search walks down from the
root replaying moves on a clone of the root state and keeps the path it took,
so the tree has no reference cycles and a discarded subtree is freed at once.
"""

from __future__ import annotations

#: What ``Budget(memory_mb=...)`` charges a node: the object, its list of
#: children and the numbers it counts with. Its list of untried moves is charged
#: apart, :data:`BYTES_PER_MOVE` a move, since a node of a wide game lists
#: hundreds. Measured with ``tracemalloc`` (CPython 3.11, the bundled games
#: searched to budgets of 0.25 to 4 MiB, the moves' own share taken out): about
#: 180 to 240 bytes.
BYTES_PER_NODE = 240
#: What ``Budget(memory_mb=...)`` charges each move of a node's untried-move list,
#: from when the list is made: its slot (8 bytes) and the int object of a move id
#: past the 256 that CPython caches (32), so that a memory budget is a ceiling
#: whatever the ids. 19x19 Gomoku, whose ids run to 360, measured about 19.
BYTES_PER_MOVE = 40


class Node:
    """A position reached by ``move``, with statistics for the player who made it.

    ``value_sum`` adds up rewards in ``[0, 1]`` for ``mover``, the player who
    made ``move`` (the root, reached by no move, has ``mover`` -1 and no value).
    ``untried`` is None until the node is first walked through: most leaves
    are visited once, so their legal moves are never listed.
    """

    __slots__ = ("children", "move", "mover", "untried", "value_sum", "visits")

    def __init__(self, move: int = -1, mover: int = -1) -> None:
        self.move = move
        self.mover = mover
        self.visits = 0
        self.value_sum = 0.0
        self.children: list[Node] = []
        self.untried: list[int] | None = None

    @property
    def mean(self) -> float:
        """Mean reward for ``mover`` (0 before the first visit)."""
        return self.value_sum / self.visits if self.visits else 0.0

    def child(self, move: int) -> Node | None:
        """The child reached by ``move``, or None if it was never expanded."""
        for child in self.children:
            if child.move == move:
                return child
        return None

    def __repr__(self) -> str:
        return (
            f"<Node move={self.move} mover={self.mover} visits={self.visits} "
            f"mean={self.mean:.3f} children={len(self.children)}>"
        )


def count_nodes(root: Node) -> int:
    """How many nodes the subtree under ``root`` holds, ``root`` included (no recursion)."""
    return tree_size(root)[0]


def tree_size(root: Node) -> tuple[int, int]:
    """``(nodes, moves)`` of the subtree under ``root``, ``root`` included (no recursion).

    ``moves`` counts each move its nodes listed as untried, expanded since or
    not: what a memory budget charges :data:`BYTES_PER_MOVE` for.
    """
    nodes = moves = 0
    stack = [root]
    while stack:
        node = stack.pop()
        nodes += 1
        if node.untried is not None:
            moves += len(node.untried) + len(node.children)
        stack.extend(node.children)
    return nodes, moves


def visits_then_mean(node: Node) -> tuple[int, float]:
    """Sort key for the robust child: most visits, ties broken by the higher mean."""
    return node.visits, node.mean


def mean_then_visits(node: Node) -> tuple[float, int]:
    """Sort key for the best-valued child: highest mean, ties broken by more visits."""
    return node.mean, node.visits
