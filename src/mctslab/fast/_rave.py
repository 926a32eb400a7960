"""GRAVE for the compiled engine: AMAF tables in a pool, and the loop's helpers over them.

RAVE (Gelly & Silver 2007, 2011) keeps, at a node, all-moves-as-first
(AMAF) statistics: for each move of each player, the simulations through
the node in which that player played the move at some later point (in the
tree or in the playout, its first time only), and their mean reward for
that player. GRAVE (Cazenave 2015) reads them at the closest ancestor whose
statistics are big enough (``ref`` simulations), so that a node with few
visits borrows the estimates of a node above instead of its own noisy ones.

A table holds ``num_players * num_actions`` entries (an int32 count and a
float64 reward sum each), far more than the ~18 bytes of a tree node, so
tables are not kept per node: they come from a pool, a share
(:data:`AMAF_SHARE`) of the tree's memory, handed out to the nodes that
reach ``ref`` visits (every node with ``ref=0``, until the pool runs out).
A node's table counts the simulations from then on, and is read once it
holds ``ref`` of them; a node without one reads its ancestors'. Each slot
has the number of its table plus one (0: none) in an int32 array, 4 bytes
per slot, moved with the slot when its block grows. A kept subtree starts
with an empty pool (the compaction does not carry tables).

Every helper here runs only with RAVE on; the plain loop never calls them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab._jit import NO_REFCOUNTS, randint
from mctslab.fast._pages import zeros

#: Share of the tree's memory given to AMAF tables when RAVE is on.
AMAF_SHARE = 0.25
#: Bytes per tree slot for its table number.
SLOT_BYTES = 4
#: The value of a move no simulation has played yet: above every mean, so it is tried first.
_UNSEEN = 2.0


def table_bytes(num_players: int, num_actions: int) -> int:
    """Bytes of one AMAF table: a count and a reward sum per move of each player, and its size."""
    return num_players * num_actions * (4 + 8) + 4


def split(capacity: int, node_bytes: int, table_size: int, keep: int) -> tuple[int, int]:
    """Tree slots and AMAF tables that fit in ``capacity`` slots of ``node_bytes`` each.

    :data:`AMAF_SHARE` of the bytes go to tables of ``table_size`` bytes,
    but the tree always keeps the ``keep`` slots a search needs (the root
    and its children's block).
    """
    slots = max(keep, int(capacity * (1.0 - AMAF_SHARE)))
    return slots, max(0, (capacity - slots) * node_bytes // table_size)


class AmafTables:
    """The AMAF pool of one tree (empty arrays when RAVE is off).

    ``slot_table[slot]`` is the table number of a node plus one (0: none);
    table ``t`` has ``counts[t]`` simulations and its entries at
    ``t * width + player * num_actions + move`` of ``visits`` and ``values``.
    """

    __slots__ = ("counts", "slot_table", "used", "values", "visits", "width")

    def __init__(self, capacity: int, tables: int, width: int) -> None:
        self.width = width
        self.slot_table = zeros(capacity, np.int32)
        self.counts = zeros(tables, np.int32)
        self.visits = zeros(tables * width, np.int32)
        self.values = zeros(tables * width, np.float64)
        self.used = np.zeros(1, dtype=np.int64)

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the compiled loop takes them."""
        return self.slot_table, self.counts, self.visits, self.values, self.used

    def table_of(self, node: int) -> int | None:
        """The table number of ``node``, or None if it has none."""
        table = int(self.slot_table[node]) - 1
        return table if table >= 0 else None

    def entry(self, node: int, player: int, move: int, num_actions: int) -> tuple[int, float]:
        """AMAF count and reward sum of ``player``'s ``move`` in ``node``'s table (0s if none)."""
        table = self.table_of(node)
        if table is None:
            return 0, 0.0
        index = table * self.width + player * num_actions + move
        return int(self.visits[index]), float(self.values[index])


@njit(cache=True, **NO_REFCOUNTS)
def reference(slot_table: np.ndarray, counts: np.ndarray, node: int, ref: int, current: int) -> int:
    """The table selection reads below ``node``: its own once it holds ``ref`` simulations.

    ``current`` is the table chosen above (-1: none yet); GRAVE's tref.
    """
    table = slot_table[node] - 1
    if table >= 0 and counts[table] >= ref:
        return table
    return current


@njit(cache=True, error_model="numpy", **NO_REFCOUNTS)
def blend(
    scores: np.ndarray,
    visits: np.ndarray,
    values: np.ndarray,
    first: int,
    move: np.ndarray,
    first_move: int,
    count: int,
    base: int,
    amaf_visits: np.ndarray,
    amaf_values: np.ndarray,
    bias: float,
    per_unit: float,
) -> int:
    """Blend the children's scores with their AMAF means; the index of the best afterwards.

    ``scores`` are the bandit's (mean + exploration) for the children whose
    statistics are ``visits``/``values`` from ``first`` and whose moves are
    ``move`` from ``first_move``; -inf marks a child left out (lost, or with
    ``prove_draws`` drawn). A
    child's mean becomes (1 - beta) * mean + beta * AMAF mean with
    beta = m / (m + n + bias * m * n) (Cazenave 2015), for its n visits and
    the m AMAF samples of its move at ``base`` of the reference table (a
    value sum counts ``1 / per_unit`` per reward of 1). Ties
    go to the earliest child, as in plain selection.
    """
    best = -1
    best_score = -np.inf
    for i in range(count):
        if scores[i] == -np.inf:
            continue
        index = base + move[first_move + i]
        samples = amaf_visits[index]
        if samples > 0:
            n = visits[first + i]
            mean = values[first + i] * per_unit / n
            beta = samples / (samples + n + bias * samples * n)
            scores[i] += np.float32(beta * (amaf_values[index] / samples - mean))
        if scores[i] > best_score:
            best_score = scores[i]
            best = i
    return best


@njit(cache=True, **NO_REFCOUNTS)
def best_untried(
    legal: np.ndarray,
    count: int,
    move: np.ndarray,
    first: int,
    tried: int,
    seen: np.ndarray,
    stamp: int,
    base: int,
    amaf_visits: np.ndarray,
    amaf_values: np.ndarray,
    rng: np.ndarray,
) -> tuple[int, int]:
    """The index in ``legal`` of the untried move with the best AMAF mean, and the new stamp.

    Moves never played in a simulation come first; ties are broken
    uniformly at random. The ``tried`` children's moves (``move`` from
    ``first``) are marked in ``seen`` with a fresh stamp.
    """
    stamp += 1
    for sibling in move[first : first + tried]:
        seen[sibling] = stamp
    best = -1
    best_value = -1.0
    ties = 0
    for i in range(count):
        candidate = legal[i]
        if seen[candidate] == stamp:
            continue
        samples = amaf_visits[base + candidate]
        value = amaf_values[base + candidate] / samples if samples > 0 else _UNSEEN
        if value > best_value:
            best, best_value, ties = i, value, 1
        elif value == best_value:
            ties += 1
            if randint(rng, ties) == 0:
                best = i
    return best, stamp


@njit(cache=True, **NO_REFCOUNTS)
def record(
    path: np.ndarray,
    depth: int,
    line: np.ndarray,
    movers: np.ndarray,
    played: np.ndarray,
    recorded: int,
    leaf_player: int,
    gains: np.ndarray,
    visits: np.ndarray,
    ref: int,
    slot_table: np.ndarray,
    counts: np.ndarray,
    amaf_visits: np.ndarray,
    amaf_values: np.ndarray,
    used: np.ndarray,
    num_players: int,
    num_actions: int,
    seen: np.ndarray,
    stamp: int,
) -> int:
    """Add one simulation to the AMAF tables of the nodes on its path; the new stamp.

    The simulation is the tree moves ``line[k]`` (played at ``path[k]`` by
    ``movers[k + 1]``) then the ``recorded`` playout moves in ``played``,
    the first by ``leaf_player`` and then in turn. A node on the path with
    no table gets one if it has ``ref`` visits (this one counted) and the
    pool has one left. A table counts, once per simulation, each
    (player, move) played after its node, with that player's gain.
    """
    width = num_players * num_actions
    for level in range(depth + 1):
        node = path[level]
        table = slot_table[node] - 1
        if table < 0:
            if visits[node] < ref or used[0] >= counts.shape[0]:
                continue
            table = used[0]
            used[0] += 1
            slot_table[node] = table + 1
        counts[table] += 1
        base = table * width
        stamp += 1
        for k in range(level, depth):
            player = movers[k + 1]
            key = player * num_actions + line[k]
            if seen[key] != stamp:
                seen[key] = stamp
                amaf_visits[base + key] += 1
                amaf_values[base + key] += gains[player]
        player = leaf_player
        for k in range(recorded):
            key = player * num_actions + played[k]
            if seen[key] != stamp:
                seen[key] = stamp
                amaf_visits[base + key] += 1
                amaf_values[base + key] += gains[player]
            player = (player + 1) % num_players
    return stamp
