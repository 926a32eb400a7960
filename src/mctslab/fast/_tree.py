"""The compiled engine's tree: parallel NumPy arrays, one slot per node.

Per slot: visits (int32), value sum (float64: a float32 sum stops growing by
1 past 2**24 visits), first child slot (int32), child count and legal-move
count (int16 each), the move that led here (int16) and a proven value (int8,
kept for the solver; 0 means unproven). That is :data:`BYTES_PER_NODE` bytes.
Children blocks are rounded up to a power of two of slots and outgrown blocks
wait on free lists (see :mod:`mctslab.fast._loop`): measured, a tree uses
1.0-1.1 slots per node on tic-tac-toe, Connect Four and Othello, and up to
about 2 on Gomoku 15x15, whose thousands of wide nodes outgrow their blocks
together.

The arrays are allocated at full size up front with ``np.zeros``: the
operating system hands out zeroed pages only when first written, so a big
capacity costs address space, not memory, until the tree grows into it.
"""

from __future__ import annotations

import numpy as np

from mctslab.fast._loop import NODES, NUM_COUNTERS, USED, compact

_DTYPES = (np.int32, np.float64, np.int32, np.int16, np.int16, np.int16, np.int8)
BYTES_PER_NODE = sum(np.dtype(dtype).itemsize for dtype in _DTYPES)
#: Largest move id the int16 move array can hold.
MAX_ACTIONS = int(np.iinfo(np.int16).max)


class Tree:
    """The arrays of one search tree; slot 0 is the root."""

    __slots__ = (
        "counters",
        "first_child",
        "move",
        "num_children",
        "num_moves",
        "proven",
        "values",
        "visits",
    )

    visits: np.ndarray
    values: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    num_moves: np.ndarray
    move: np.ndarray
    proven: np.ndarray

    def __init__(self, capacity: int) -> None:
        (
            self.visits,
            self.values,
            self.first_child,
            self.num_children,
            self.num_moves,
            self.move,
            self.proven,
        ) = (np.zeros(capacity, dtype=dtype) for dtype in _DTYPES)
        self.counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self.counters[USED] = 1
        self.counters[NODES] = 1

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The node arrays in the order the compiled functions take them."""
        return (
            self.visits,
            self.values,
            self.first_child,
            self.num_children,
            self.num_moves,
            self.move,
            self.proven,
        )

    @property
    def capacity(self) -> int:
        return int(self.visits.shape[0])

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self.arrays)

    @property
    def nodes(self) -> int:
        return int(self.counters[NODES])

    def children(self, node: int) -> range:
        """The slots of ``node``'s children, in the order they were tried."""
        first = int(self.first_child[node])
        return range(first, first + int(self.num_children[node]))

    def child(self, node: int, move: int) -> int | None:
        """The slot of ``node``'s child reached by ``move``, or None if it was never tried."""
        slots = self.children(node)
        found = np.flatnonzero(self.move[slots.start : slots.stop] == move)
        return slots.start + int(found[0]) if found.size else None

    def best_child(self, node: int) -> int | None:
        """The most visited child, ties to the higher mean then the earlier; None if no child."""
        slots = self.children(node)
        if not slots:
            return None
        visits = self.visits[slots.start : slots.stop]
        means = self.values[slots.start : slots.stop] / visits
        return slots.start + int(np.argmax(np.where(visits == visits.max(), means, -np.inf)))

    def line(self, node: int) -> tuple[int, ...]:
        """Moves of the principal variation below ``node`` (most visited child at each step)."""
        moves = []
        child = self.best_child(node)
        while child is not None:
            moves.append(int(self.move[child]))
            child = self.best_child(child)
        return tuple(moves)

    def subtree(self, root: int, capacity: int) -> Tree | None:
        """A compact copy of the subtree under ``root``, or None if it does not fit ``capacity``."""
        tree = Tree(capacity)
        if not compact(*self.arrays, root, *tree.arrays, tree.counters):
            return None
        return tree
