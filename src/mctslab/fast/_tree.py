"""The compiled engine's tree: parallel NumPy arrays, one slot per node.

Per slot: visits (int32), value sum (uint32, in value units), first child
slot (int32), child count and legal-move count (int16 each) and the move
that led here (int16). That is :data:`BYTES_PER_NODE` bytes. The solver adds
a proven value (int8; 0 means unproven), UCB1-Tuned a sum of squared rewards
(float64), transpositions a position hash (int64) and a share of the hash
table (see :func:`bytes_per_node`).

A value sum is a whole number of value units, so it is exact: the rewards
of a game are whole steps of its spec's ``return_steps`` (win, draw and loss
are 1, 1/2 and 0: two units), and a tree counts in those steps, up to
:data:`MAX_UNITS` of them per reward of 1 (a game with finer steps has its
rewards rounded to that). A node takes at most :attr:`Tree.max_visits`
visits, the most its sum can count: a search stops at the tree's
:attr:`Tree.headroom`. A float would not do in 4 bytes: a
float32 sum stops counting half points past 2**23 visits, and a float32
running mean drifts once the updates of outcomes near it round away
(measured: 2,000,000 tic-tac-toe simulations gave the centre 673,210 visits
instead of 503,353).

Children blocks are rounded up to a power of two of slots and outgrown blocks
go back to a buddy allocator (see :mod:`mctslab.fast._loop`). Measured with
plain settings over tree sizes from 500 to 1,000,000 simulations (three
seeds each), a tree uses at most 1.15-1.20 slots per node on tic-tac-toe,
Connect Four and Othello and 1.71-1.73 on Gomoku 8x8, 15x15 and 19x19 (at
most 31.2 bytes), whose wide nodes leave part of their blocks empty for the children
to come and outgrown blocks waiting for reuse. How many depends on how far
the frontier has grown: on 15x15 from 1.0 (100,000 simulations) to 1.7
(15,000 and 30,000).

The arrays are allocated at full size up front, mapped zeroed from the
operating system (:mod:`mctslab.fast._pages`), which hands out pages only when
first written, so a big capacity costs address space, not memory, until the
tree grows into it, and a freed tree's memory goes back at once. The
hash table, whose entries are written all over, starts small and doubles
when half full.
"""

from __future__ import annotations

import numpy as np

from mctslab.core.config import FinalMove
from mctslab.fast._loop import (
    ALIAS,
    DRAW,
    ENTRIES,
    LOSS,
    MAX_LOAD,
    NODES,
    NUM_COUNTERS,
    USED,
    WIN,
    compact,
    reindex,
    resolve,
)
from mctslab.fast._pages import zeros
from mctslab.fast._rave import SLOT_BYTES

_DTYPES = (np.int32, np.uint32, np.int32, np.int16, np.int16, np.int16)
#: Bytes of a slot with no option that adds an array (plain UCT).
BYTES_PER_NODE = sum(np.dtype(dtype).itemsize for dtype in _DTYPES)
#: Largest move id the int16 move array can hold.
MAX_ACTIONS = int(np.iinfo(np.int16).max)
#: Entries of a new transposition table.
FIRST_TABLE = 1024
#: Most value units per reward of 1: a node can still take 2**20 - 1 visits.
MAX_UNITS = 2**12
_MAX_SUM = int(np.iinfo(np.uint32).max)
_MAX_VISITS = int(np.iinfo(np.int32).max)


def bytes_per_node(*, tuned: bool, hashed: bool, solver: bool = True, rave: bool = False) -> int:
    """Bytes a slot costs with these options, the hash table's worst case included.

    The table holds at most MAX_LOAD entries per entry slot and at most
    doubles past the capacity, so it never has more than 2 / MAX_LOAD int32
    entries per tree slot. With RAVE a slot also holds its AMAF table number;
    the tables themselves take a quarter of a memory budget
    (:data:`mctslab.fast._rave.AMAF_SHARE`), which this count leaves out.
    """
    extra = (8 if tuned else 0) + (1 if solver else 0)
    if hashed:
        extra += 8 + int(2 / MAX_LOAD) * 4
    if rave:
        extra += SLOT_BYTES
    return BYTES_PER_NODE + extra


def ranked(
    visits: np.ndarray,
    means: np.ndarray,
    proven: np.ndarray,
    final_move: FinalMove,
    draws_apart: bool,
) -> np.ndarray:
    """Indices of a node's children, best first by ``final_move``; ties keep their order.

    Proven wins come first and proven losses last (MCTS-Solver's final
    move: a proven win is always played, a proven loss only when every move
    loses). Within each group, "visits": most visits, then higher mean (the
    robust child); "value": higher mean, then more visits. This is the
    generic engine's order. With ``draws_apart`` (the search's
    ``prove_draws``, which stops visiting a proven draw so that its siblings
    may be proven), where a child is a proven draw, the unproven children
    whose mean is a draw or less come after it, their visits no longer
    comparable with its; a proven draw's mean is a half, whatever its
    playouts said before the proof.
    """
    group = np.where(proven == WIN, 0, np.where(proven == LOSS, 3, 1))
    drawn = proven == DRAW
    if draws_apart and drawn.any():
        means = np.where(drawn, 0.5, means)
        group[(proven == 0) & (means <= 0.5)] = 2
    if final_move == "visits":
        return np.lexsort((-means, -visits, group))
    return np.lexsort((-visits, -means, group))


class Tree:
    """The arrays of one search tree; slot 0 is the root.

    ``values`` counts ``units`` per reward of 1: the game's ``return_steps``,
    at most :data:`MAX_UNITS` (``exact`` tells whether they were that many).
    ``squares`` has slots only with ``tuned``, ``proven`` only with
    ``solver``, ``hashes`` only with ``hashed``; ``table`` (the
    transposition table) has one entry otherwise. With transpositions a
    child slot may be an alias of a node elsewhere: read statistics through
    :meth:`node_of`.
    """

    __slots__ = (
        "counters",
        "draws_apart",
        "first_child",
        "hashes",
        "lead",
        "move",
        "num_children",
        "num_moves",
        "proven",
        "return_steps",
        "squares",
        "table",
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

    def __init__(
        self,
        capacity: int,
        *,
        return_steps: int = 2,
        tuned: bool = False,
        hashed: bool = False,
        solver: bool = False,
        draws_apart: bool = False,
        table_size: int = 0,
    ) -> None:
        (
            self.visits,
            self.values,
            self.first_child,
            self.num_children,
            self.num_moves,
            self.move,
        ) = (zeros(capacity, dtype) for dtype in _DTYPES)
        self.return_steps = return_steps
        # How many visits the most visited node has over the root: 0 but in a
        # copied subtree, whose nodes may have gathered visits through paths
        # that pass its root by (transpositions). No iteration raises it.
        self.lead = 0
        self.proven = zeros(capacity if solver else 0, np.int8)
        # The search's prove_draws (with the solver): its proven draws are no longer visited.
        self.draws_apart = draws_apart and solver
        self.squares = zeros(capacity if tuned else 0, np.float64)
        self.hashes = zeros(capacity if hashed else 0, np.int64)
        if not hashed:
            table_size = 1
        elif table_size == 0:
            # Never more than the worst case bytes_per_node counts (a tiny tree's).
            table_size = FIRST_TABLE
            while table_size > 2 * max(capacity, 1):
                table_size //= 2
        self.table = zeros(table_size, np.int32)
        self.counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self.counters[USED] = 1
        self.counters[NODES] = 1

    @property
    def tuned(self) -> bool:
        return self.squares.shape[0] > 0

    @property
    def solver(self) -> bool:
        return self.proven.shape[0] > 0

    @property
    def hashed(self) -> bool:
        return self.hashes.shape[0] > 0

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
            self.squares,
            self.hashes,
        )

    @property
    def units(self) -> int:
        """Value units per reward of 1: the game's return steps, at most MAX_UNITS."""
        return min(self.return_steps, MAX_UNITS)

    @property
    def exact(self) -> bool:
        """Whether a value unit is one return step (else rewards are rounded to units)."""
        return self.units == self.return_steps

    @property
    def max_visits(self) -> int:
        """The most visits a node may take: its value sum and visit count must not overflow."""
        return min(_MAX_VISITS, _MAX_SUM // self.units)

    @property
    def headroom(self) -> int:
        """Iterations this tree can still take: a node gains at most one visit an iteration."""
        return self.max_visits - int(self.visits[0]) - self.lead

    @property
    def worth_keeping(self) -> bool:
        """Whether a later search may reuse this tree: half of :attr:`max_visits` is left."""
        return self.headroom >= self.max_visits // 2

    def mean(self, node: int) -> float:
        """The mean reward of ``node`` (0 before its first visit)."""
        visits = int(self.visits[node])
        return int(self.values[node]) / (visits * self.units) if visits else 0.0

    def value_sums(self, nodes: list[int]) -> np.ndarray:
        """The reward sums of ``nodes`` (float64)."""
        return self.values[nodes] / self.units

    @property
    def capacity(self) -> int:
        return int(self.visits.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes reserved: the arrays, and the most the hash table may grow to."""
        return self.capacity * bytes_per_node(
            tuned=self.tuned, hashed=self.hashed, solver=self.solver
        )

    @property
    def nodes(self) -> int:
        return int(self.counters[NODES])

    def grow_table(self) -> None:
        """Double the transposition table (when the loop says it is full enough).

        The old table is freed before the new one exists (the memory budget
        counts one). Until the new one is filled, aliases cannot be resolved;
        no KeyboardInterrupt comes in between, as the search that calls this
        hears Ctrl-C only between its chunks.
        """
        size = 2 * self.table.shape[0]
        self.table = np.zeros(0, dtype=np.int32)
        table = zeros(size, np.int32)
        reindex(self.hashes, self.first_child, self.counters[USED], table)
        self.table = table

    def node_of(self, slot: int) -> int:
        """The node a child slot stands for: itself, or the node an alias refers to."""
        if self.first_child[slot] != ALIAS:
            return slot
        return int(resolve(self.first_child, self.hashes, self.table, slot))

    def children(self, node: int) -> range:
        """The child slots of ``node``, in the order they were tried (see :meth:`node_of`)."""
        first = int(self.first_child[node])
        return range(first, first + int(self.num_children[node])) if first > 0 else range(0)

    def child_nodes(self, node: int) -> list[int]:
        """The nodes of ``node``'s children, aliases resolved, in the order they were tried."""
        return [self.node_of(slot) for slot in self.children(node)]

    def child(self, node: int, move: int) -> int | None:
        """The node of ``node``'s child reached by ``move``, or None if it was never tried."""
        slots = self.children(node)
        found = np.flatnonzero(self.move[slots.start : slots.stop] == move)
        return self.node_of(slots.start + int(found[0])) if found.size else None

    def best_child(self, node: int) -> int | None:
        """The slot of the best child, or None: the final-move rule of MCTS-Solver, the most
        visited first (:func:`ranked`, as at the root). A slot, not a node: its move is the
        one played from ``node``.
        """
        slots = self.children(node)
        if not slots:
            return None
        targets = [self.node_of(slot) for slot in slots]
        proven = self.proven[targets] if self.solver else np.zeros(len(targets), np.int8)
        means = np.array([self.mean(target) for target in targets])
        order = ranked(self.visits[targets], means, proven, "visits", self.draws_apart)
        return slots[int(order[0])]

    def line(self, node: int) -> tuple[int, ...]:
        """Moves of the principal variation below ``node`` (the best child at each step)."""
        moves = []
        slot = self.best_child(node)
        while slot is not None:
            moves.append(int(self.move[slot]))
            slot = self.best_child(self.node_of(slot))
        return tuple(moves)

    def subtree(self, root: int, capacity: int) -> Tree | None:
        """A compact copy of the subtree under ``root``, or None if it does not fit ``capacity``."""
        tree = Tree(
            capacity,
            return_steps=self.return_steps,
            tuned=self.tuned,
            hashed=self.hashed,
            solver=self.solver,
            draws_apart=self.draws_apart,
            table_size=self.table.shape[0],
        )
        if not compact(*self.arrays, self.table, root, *tree.arrays, tree.table, tree.counters):
            return None
        tree.lead = int(tree.visits[: tree.counters[USED]].max()) - int(tree.visits[0])
        return tree

    @property
    def entries(self) -> int:
        """Nodes in the transposition table."""
        return int(self.counters[ENTRIES])
