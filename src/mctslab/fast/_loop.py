"""The compiled search loop and the tree compaction, over first-class game-kernel functions.

The loop takes a game's kernel functions as arguments typed with the fixed
signatures of :mod:`mctslab._jit`, so one machine-code version serves every
game and numba can cache it on disk (dispatcher arguments or closures would be
compiled again per game and not cached). Nothing is compiled at import: the
first search or :func:`warm_up` loads the cached code, or compiles it once.

The tree is a set of parallel arrays, one slot per node (see
:mod:`mctslab.fast._tree`); slot 0 is the root. The children of a node sit
in one block of slots, in the order they were tried, so selection scans
contiguous memory. A node gains one child per expansion, as in the generic
engine; its block holds a power of two of slots (the next one at or above
its child count, or exactly its number of legal moves if that is smaller)
and moves to a block twice as big when it fills. Allocating a slot for every
legal move at once would be simpler, but UCT expands most nodes it visits
twice, so wide games (Gomoku 15x15: 225 moves) would fill ~90 slots per
iteration (measured). The root is the exception: every search past its
first few iterations tries all its moves, so its block holds them all from
the start, right after the root (slot 1, not aligned: it never moves), and
leaves no outgrown blocks behind (on 19x19 those, with the gap an aligned
block left, were half the slots of a 500-node tree).

Blocks come from a buddy allocator (Knowlton 1965): a free block of 2**k
slots starts at a multiple of 2**k and waits on the free list for k; a
request takes the smallest free block that holds it and frees the rest, and
a freed block merges with its buddy (the other half of the block twice as
big) while that is free. Wide nodes' frontiers grow in step: in Gomoku 15x15
the ~50,000 grandchildren of the root each take a block of 1, then of 2, 4
and 8 at about the same time, so without merging the small blocks they
leave behind waited unused on their lists (measured at 300,000 simulations:
0.29 free slots per node, 1.54 slots per node in all; merged, 0.08 and 1.33).

The helpers the loop calls per iteration allocate nothing and are compiled
with ``_nrt=False`` (numba's option for code without reference-counted
allocations): with it on, every call of a helper increfs and decrefs each
array argument with an atomic instruction, which the loop's stores make
slow. Measured on tic-tac-toe: 40 such operations per simulation; without
them plain UCT from the start runs 1.6 times as fast on tic-tac-toe and 1.8
on Connect Four (1,000,000 simulations, process time, best of 3).

The playing-strength options (:class:`mctslab.core.SearchConfig`) are
branches on loop arguments, so the plain search pays only for the tests:

- **MCTS-Solver** (Winands, Björnsson & Saito 2008), with draws: ``proven``
  holds a node's game-theoretic value for the player who moved into it
  (:data:`WIN`, :data:`LOSS`, :data:`DRAW`; 0 while unknown). A new child
  is proven at once when it ends the game, or lost when the player to move
  there has a forced win (the kernel's ``winning_move``: the decisive move
  of Teytaud & Teytaud 2010 found in the tree, and Gomoku's open and double
  fours). A root with a forced win expands that move first and follows it
  until its proof is complete. A node is lost for its
  mover when a child is won for the player to move, and otherwise known
  once every child is: the best of them, negated. Proofs travel up the
  iteration's path; a node reached through a proven child learns it on the
  way down too, which is how proofs cross transpositions. Selection skips
  lost children and stops at proven nodes, backing up their value instead
  of a playout. With ``prove_draws`` it skips drawn children too, so that
  their unknown siblings are searched (and the node proven) rather than a
  known draw visited over and over; the draw stays in the node's value as a
  bound instead: every reward backed up through a node whose player to
  move has a drawn child is at least a draw for that player (a pessimistic
  bound in the sense of Cazenave & Saffidine's score-bounded MCTS, 2010;
  looked for only once the tree holds a draw, :data:`DRAWS`). Players
  alternate in every bundled two-player game (Othello passes are moves),
  so "the opponent" of a node's mover is the player to move there; a game
  of one's own whose turn does not pass to the next player (two moves in a
  row, or a player skipped) stops the loop (``TURNS``) when an expansion
  meets it with the solver, transpositions or GRAVE on. GRAVE also credits
  a playout's moves to the players in turn; playouts are not checked.
- **Transpositions**: a child whose position is already in the tree becomes
  an *alias* (``first_child == ALIAS``) of that node, found through a hash
  table of position hashes, and the iteration goes on from there: the tree
  becomes a DAG whose statistics live once per position, shared by every
  path into it (the graph view of Childs, Brodeur & Kocsis 2008; Saffidine,
  Cazenave & Méhat 2012). Sharing stays sound under the value convention:
  the position includes the player to move, hence the player who moved in,
  so every parent reads a shared value for the same player; and a position's
  proven value depends on the position alone, since no bundled game's rules
  look at its history.
- **First-play urgency** (Gelly & Wang 2006): an untried move is worth
  ``fpu``; a partly expanded node follows its best tried child when that
  child's UCT score is at least ``fpu`` instead of always expanding.
- **UCB1-Tuned** (Auer, Cesa-Bianchi & Fischer 2002): the exploration term
  uses each child's reward variance, from the ``squares`` array.
- **GRAVE** (Cazenave 2015; see :mod:`mctslab.fast._rave`): the tree moves
  of an iteration are kept in ``line`` and the playout's come back from the
  rollout; the AMAF tables of the path are updated after the backup, the
  bandit's scores are blended with the reference table's AMAF means, and
  the untried move with the best AMAF mean is expanded.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np
from numba import njit, types

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    NO_REFCOUNTS,
    RETURNS_SIG,
    RNG,
    ROLLOUT_SIG,
    STATE,
    WINNING_MOVE_SIG,
    randint,
    uniform,
)
from mctslab.fast import _rave
from mctslab.games._base import STEP_TOLERANCE

#: Tree policies, as the loop's ``policy`` argument.
UCT, COINFLIP = 0, 1
#: What the loop does when a new child does not fit in the arrays.
STOP_WHEN_FULL, SIMULATE_WHEN_FULL = 0, 1
#: Slots of the ``counters`` array: slots handed out, nodes in the tree, why
#: the loop returned early, entries in the transposition table, nodes the
#: solver proved drawn (with ``prove_draws``, the bound on rewards is looked
#: for only once there is one), then one free-list head per block size 2**k
#: (0 = empty), k up to :data:`LARGEST`.
USED, NODES, REASON, ENTRIES, DRAWS, FREE = 0, 1, 2, 3, 4, 5
NUM_COUNTERS = FREE + 16
#: The largest block size class: 2**15 slots, more than an int16 move count.
LARGEST = NUM_COUNTERS - FREE - 1
#: Values of ``counters[REASON]``: the transposition table must grow before
#: the next iteration (GROW); the root's value is proven (PROVEN); a reward
#: was outside [0, 1] or, where value units are exact, not a whole number of
#: them (OFF_GRID); the turn did not pass to the next player (a player moved
#: twice in a row, or one was skipped) while an option that needs turns taken
#: in order was on (TURNS).
RAN_ALL, NODE_LIMIT, FULL, GROW, PROVEN, OFF_GRID, TURNS = 0, 1, 2, 3, 4, 5, 6
#: Proven values, for the player who moved into the node (0: not proven).
WIN, LOSS, DRAW = 1, -1, 2
#: ``first_child`` of a transposition: the node lives elsewhere, found by its hash.
ALIAS = -1
#: A table holds at most this share of entries before it must grow.
MAX_LOAD = 0.5
# Markers of compaction, in new_first_child before a copied node is processed.
_UNUSED, _PENDING_ALIAS = -2, -3

VISITS = types.int32[::1]
VALUES = types.uint32[::1]
FIRST_CHILD = types.int32[::1]
COUNT = types.int16[::1]
MOVE = types.int16[::1]
PROVEN_VALUES = types.int8[::1]
SQUARES = types.float64[::1]
HASHES = types.int64[::1]
TABLE = types.int32[::1]
COUNTERS = types.int64[::1]
#: The tree's arrays, in the order the compiled functions take them.
TREE_ARGS = (VISITS, VALUES, FIRST_CHILD, COUNT, COUNT, MOVE, PROVEN_VALUES, SQUARES, HASHES)

SEARCH_SIG = types.int64(
    types.FunctionType(LEGAL_MOVES_SIG),  # the moves to expand: legal or candidate moves
    types.FunctionType(APPLY_SIG),
    types.FunctionType(IS_TERMINAL_SIG),
    types.FunctionType(RETURNS_SIG),
    types.FunctionType(CURRENT_PLAYER_SIG),
    types.FunctionType(ROLLOUT_SIG),
    types.FunctionType(WINNING_MOVE_SIG),
    *TREE_ARGS,
    TABLE,
    COUNTERS,
    STATE,  # root state
    types.int64[::1],  # the state words that identify a position (hashed)
    RNG,
    types.int64,  # iterations
    types.int64,  # node limit
    types.int64,  # when full
    types.int64,  # policy
    types.float64,  # c
    types.float64,  # fpu (infinity: off)
    types.float64,  # min_return
    types.float64,  # scale
    types.int64,  # value units per reward of 1
    types.boolean,  # rewards must be whole units (else rounded)
    types.int64,  # num_players
    types.int64,  # num_actions
    types.int64,  # max_depth
    types.boolean,  # solver
    types.boolean,  # prove_draws (with the solver)
    types.boolean,  # UCB1-Tuned
    types.boolean,  # transpositions
    types.boolean,  # rave
    types.int64,  # rave_ref
    types.float64,  # rave_bias
    types.int32[::1],  # AMAF: each slot's table number + 1
    types.int32[::1],  # AMAF: simulations per table
    types.int32[::1],  # AMAF: counts
    types.float64[::1],  # AMAF: reward sums
    types.int64[::1],  # AMAF: tables handed out
)

COMPACT_SIG = types.boolean(*TREE_ARGS, TABLE, types.int64, *TREE_ARGS, TABLE, COUNTERS)
REINDEX_SIG = types.void(HASHES, FIRST_CHILD, types.int64, TABLE)

_HASH_START = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U27, _U30, _U31 = np.uint64(27), np.uint64(30), np.uint64(31)


@njit(WINNING_MOVE_SIG, cache=True)
def no_winning_move(state: np.ndarray) -> int:
    """The ``winning_move`` of a game that offers none."""
    return -1


@njit(cache=True, **NO_REFCOUNTS)
def block_size(children: int, moves: int) -> int:
    """Slots of the block of a node with ``children`` children of ``moves`` legal moves.

    The next power of two, but never more than ``moves``: the last block of a
    node is exactly as big as its move list (and never moves again).
    """
    size = 1 if children > 0 else 0
    while size < children:
        size *= 2
    return min(size, moves)


@njit(cache=True, **NO_REFCOUNTS)
def _size_class(size: int) -> int:
    """k for a block of 2**k slots (the smallest that holds ``size`` slots)."""
    k = 0
    while (1 << k) < size:
        k += 1
    return k


@njit(cache=True, **NO_REFCOUNTS)
def _unlink(
    counters: np.ndarray, first_child: np.ndarray, visits: np.ndarray, block: int, k: int
) -> None:
    """Take the free ``block`` of 2**k slots off its list (doubly linked: next, previous)."""
    after = first_child[block]
    before = visits[block]
    if before == 0:
        counters[FREE + k] = after
    else:
        first_child[before] = after
    if after != 0:
        visits[after] = before


@njit(cache=True, **NO_REFCOUNTS)
def _release(
    counters: np.ndarray,
    first_child: np.ndarray,
    num_children: np.ndarray,
    visits: np.ndarray,
    block: int,
    k: int,
) -> None:
    """Put the aligned ``block`` of 2**k slots on a free list, merged with its free buddies.

    A free block is marked in its first slot, which no node uses meanwhile:
    ``num_children`` holds -1 - k, ``first_child`` the next block of the
    list and ``visits`` the previous one (0: none; slot 0 is the root, never
    free). Only a free block's first slot is marked, so a buddy is free
    exactly when its first slot says so with the same k.
    """
    while k < LARGEST:
        buddy = block ^ (1 << k)
        if buddy >= counters[USED] or num_children[buddy] != -1 - k:
            break
        _unlink(counters, first_child, visits, buddy, k)
        num_children[buddy] = 0
        block = min(block, buddy)
        k += 1
    num_children[block] = -1 - k
    head = counters[FREE + k]
    first_child[block] = head
    visits[block] = 0
    if head != 0:
        visits[head] = block
    counters[FREE + k] = block


@njit(cache=True, **NO_REFCOUNTS)
def _free(
    counters: np.ndarray,
    first_child: np.ndarray,
    num_children: np.ndarray,
    visits: np.ndarray,
    start: int,
    size: int,
) -> None:
    """Free ``size`` slots from ``start``, as the largest aligned power-of-two blocks they hold.

    Any run of slots: a whole block, the rest of a block split for a smaller
    request, or the blocks of a compacted tree (see :func:`compact`), which
    are packed rather than aligned.
    """
    end = start + size
    while start < end:
        k = 0
        while k < LARGEST and (start & (1 << k)) == 0 and start + (2 << k) <= end:
            k += 1
        _release(counters, first_child, num_children, visits, start, k)
        start += 1 << k


@njit(cache=True, **NO_REFCOUNTS)
def _allocate(
    counters: np.ndarray,
    first_child: np.ndarray,
    num_children: np.ndarray,
    visits: np.ndarray,
    size: int,
    capacity: int,
    aligned: bool,
) -> int:
    """First slot of ``size`` free slots, or -1 if none are left.

    They start the smallest free block that holds them, else a fresh block
    of that size, aligned (the slots skipped to align it are freed); the
    rest of the block is freed again. Sizes other than a power of two are
    a node's last block, which never moves again. A block that is never
    freed (the root's) is taken unaligned at the top instead: no gap.
    """
    used = counters[USED]
    if not aligned:
        if used + size > capacity:
            return -1
        counters[USED] = used + size
        return used
    k = _size_class(size)
    for j in range(k, LARGEST + 1):
        block = counters[FREE + j]
        if block != 0:
            _unlink(counters, first_child, visits, block, j)
            num_children[block] = 0
            _free(counters, first_child, num_children, visits, block + size, (1 << j) - size)
            return block
    block = (used + (1 << k) - 1) & -(1 << k)
    if block + size > capacity:
        return -1
    counters[USED] = min(block + (1 << k), capacity)
    _free(counters, first_child, num_children, visits, used, block - used)
    _free(counters, first_child, num_children, visits, block + size, counters[USED] - block - size)
    return block


# -- transpositions --------------------------------------------------------------


@njit(cache=True, **NO_REFCOUNTS)
def position_hash(state: np.ndarray, words: np.ndarray) -> int:
    """A 64-bit hash of the position: the ``words`` of ``state``, chained through SplitMix64.

    Each word goes through the full SplitMix64 finaliser (Steele, Lea & Flood
    2014), whose every output bit depends on every input bit: a single
    multiply-xorshift round lets differences in high bits of two words
    cancel (measured: Othello bitboards collided within a few games).
    """
    mixed = _HASH_START
    for word in words:
        mixed = (mixed ^ np.uint64(state[word])) + _HASH_START
        mixed = (mixed ^ (mixed >> _U30)) * _MIX1
        mixed = (mixed ^ (mixed >> _U27)) * _MIX2
        mixed ^= mixed >> _U31
    return int(np.int64(mixed))


@njit(cache=True, **NO_REFCOUNTS)
def find(table: np.ndarray, hashes: np.ndarray, key: int) -> int:
    """The slot of the node whose position hashes to ``key``, or -1 (linear probing).

    Entries are slots; 0 marks an empty entry (the root is never entered: no
    position recurs below itself, as every game here ends within a bounded
    number of moves that only its position decides).
    """
    mask = table.shape[0] - 1
    entry = key & mask
    while table[entry] != 0:
        if hashes[table[entry]] == key:
            return table[entry]
        entry = (entry + 1) & mask
    return -1


@njit(cache=True, **NO_REFCOUNTS)
def _enter(table: np.ndarray, key: int, slot: int) -> None:
    mask = table.shape[0] - 1
    entry = key & mask
    while table[entry] != 0:
        entry = (entry + 1) & mask
    table[entry] = slot


@njit(cache=True, **NO_REFCOUNTS)
def _moved(table: np.ndarray, key: int, old: int, new: int) -> None:
    """Point the table entry of the node at slot ``old`` to its new slot."""
    mask = table.shape[0] - 1
    entry = key & mask
    while table[entry] != old:
        entry = (entry + 1) & mask
    table[entry] = new


@njit(cache=True, **NO_REFCOUNTS)
def resolve(first_child: np.ndarray, hashes: np.ndarray, table: np.ndarray, slot: int) -> int:
    """The node a child slot stands for: itself, or the node an alias refers to."""
    if first_child[slot] != ALIAS:
        return slot
    return find(table, hashes, hashes[slot])


def _reindex(hashes: Any, first_child: Any, used: int, table: Any) -> None:
    """Enter every node among the first ``used`` slots into the empty ``table``.

    The nodes are the slots with a hash that are not aliases: slots never
    handed out and slots of freed blocks have hash 0 (the loop clears a block
    it frees). Built from the tree rather than from the old table, so that
    the old table can be freed first and the two never take memory together
    (measured: rehashing from the old one, Othello's peak RSS grew 116% of
    its budget with the default settings). The root (slot 0) is never entered.
    """
    for slot in range(1, used):
        if hashes[slot] != 0 and first_child[slot] != ALIAS:
            _enter(table, hashes[slot], slot)


# -- the solver --------------------------------------------------------------------


@njit(cache=True, **NO_REFCOUNTS)
def _value(proven: int) -> int:
    """A proven code as a number: win 1, draw 0, loss -1."""
    return 0 if proven == DRAW else proven


@njit(cache=True, **NO_REFCOUNTS)
def settle(
    first_child: np.ndarray,
    num_children: np.ndarray,
    num_moves: np.ndarray,
    proven: np.ndarray,
    hashes: np.ndarray,
    table: np.ndarray,
    node: int,
    transpose: bool,
) -> int:
    """The value ``node``'s children prove for its mover, or 0 if they prove nothing yet.

    Lost when a child is won for its own mover (the opponent); else, once
    every move has a child and every child is proven, the opposite of the
    best of them (negamax). The node's ``proven`` entry is not written.
    """
    count = num_children[node]
    first = first_child[node]
    complete = count > 0 and count == num_moves[node]
    best = -1
    for i in range(count):
        child = first + i
        if transpose:
            child = resolve(first_child, hashes, table, child)
        outcome = proven[child]
        if outcome == WIN:
            return LOSS
        if outcome == 0:
            complete = False
        elif _value(outcome) > best:
            best = _value(outcome)
    if not complete:
        return 0
    return DRAW if best == 0 else -best


@njit(cache=True, **NO_REFCOUNTS)
def _root_settled(
    first_child: np.ndarray,
    num_children: np.ndarray,
    num_moves: np.ndarray,
    proven: np.ndarray,
    hashes: np.ndarray,
    table: np.ndarray,
    transpose: bool,
) -> bool:
    """Whether the root's value is proven: the search is over.

    A root lost for its mover by a winning move (the player to move wins) is
    marked before that move's line is proven, so it counts once its children
    prove it (a kept root's winning move may not be expanded yet).
    """
    return proven[0] != 0 and (
        proven[0] != LOSS
        or settle(first_child, num_children, num_moves, proven, hashes, table, 0, transpose) != 0
    )


@njit(cache=True, **NO_REFCOUNTS)
def _can_draw(
    first_child: np.ndarray,
    num_children: np.ndarray,
    proven: np.ndarray,
    hashes: np.ndarray,
    table: np.ndarray,
    node: int,
    transpose: bool,
) -> bool:
    """Whether a child of ``node`` is proven drawn: the player to move there can secure a draw."""
    first = first_child[node]
    for i in range(num_children[node]):
        child = first + i
        if transpose:
            child = resolve(first_child, hashes, table, child)
        if proven[child] == DRAW:
            return True
    return False


# -- selection ---------------------------------------------------------------------

#: What selection returns instead of a child index.
NO_CHILD, WON_CHILD = -1, -2


@njit(cache=True, error_model="numpy", **NO_REFCOUNTS)
def _best_child(
    visits: np.ndarray,
    values: np.ndarray,
    proven: np.ndarray,
    squares: np.ndarray,
    parent_visits: int,
    first: int,
    count: int,
    c: float,
    per_unit: float,
    scores: np.ndarray,
    solver: bool,
    skip_draws: bool,
    tuned: bool,
) -> int:
    """Index of the child in slots ``first..first+count`` with the best upper confidence bound.

    UCB1: mean + c * sqrt(ln N / n) (Kocsis & Szepesvári 2006). UCB1-Tuned:
    mean + c/sqrt(2) * sqrt(ln N / n * min(1/4, V)) with V = variance +
    sqrt(2 ln N / n), Auer et al.'s formula at the default c. Ties go to
    the earliest child, as in the generic engine. A mean is the value sum
    times ``per_unit`` (the reward a value unit stands for) over the visits.
    Scores are float32 in the ``scores`` scratch array so the loops
    vectorise (no division-by-zero check: every child has a visit), which
    makes selection in wide nodes several times faster. With the solver,
    lost children are skipped (NO_CHILD when no other is left) and a won one
    returns WON_CHILD; with ``skip_draws`` (``prove_draws``) drawn children
    are skipped too: a draw is known, and visiting it again would teach
    nothing (the loop backs its value up as a bound instead).
    """
    # Single precision, as the scores: logf costs half of log (measured: 7% of a
    # Connect Four search in log), and ln N needs no more than float32's 7 digits.
    log_n = np.log(np.float32(parent_visits))
    # Slices, not visits[first + i]: indices known to be >= 0 need no wraparound code.
    child_visits = visits[first : first + count]
    child_values = values[first : first + count]
    unit = np.float32(per_unit)
    if tuned:
        child_squares = squares[first : first + count]
        scale = np.float32(c / math.sqrt(2.0))
        for i in range(count):
            inverse = np.float32(1.0) / np.float32(child_visits[i])
            mean = np.float32(child_values[i]) * unit * inverse
            spread = max(np.float32(0.0), np.float32(child_squares[i]) * inverse - mean * mean)
            bound = min(np.float32(0.25), spread + np.sqrt(np.float32(2.0) * log_n * inverse))
            scores[i] = mean + scale * np.sqrt(log_n * inverse * bound)
    else:
        explore = np.float32(c) * np.sqrt(log_n)
        for i in range(count):
            inverse = np.float32(1.0) / np.float32(child_visits[i])
            scores[i] = np.float32(child_values[i]) * unit * inverse + explore * np.sqrt(inverse)
    if solver:
        child_proven = proven[first : first + count]
        # Two loops, so that the default (draws kept) tests no more than before.
        if skip_draws:
            for i in range(count):
                if child_proven[i] == LOSS or child_proven[i] == DRAW:
                    scores[i] = -np.inf
                elif child_proven[i] == WIN:
                    return WON_CHILD
        else:
            for i in range(count):
                if child_proven[i] == LOSS:
                    scores[i] = -np.inf
                elif child_proven[i] == WIN:
                    return WON_CHILD
    best = 0
    best_score = scores[0]
    for i in range(1, count):
        if scores[i] > best_score:
            best_score = scores[i]
            best = i
    return NO_CHILD if best_score == -np.inf else best


@njit(cache=True, **NO_REFCOUNTS)
def _gather(
    visits: np.ndarray,
    values: np.ndarray,
    first_child: np.ndarray,
    proven: np.ndarray,
    squares: np.ndarray,
    hashes: np.ndarray,
    table: np.ndarray,
    first: int,
    count: int,
    targets: np.ndarray,
    gathered: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> bool:
    """Copy the statistics of the children's nodes (aliases resolved) into ``gathered``.

    ``targets`` gets each child's node. Returns whether any child is an
    alias; if none is, nothing is copied and the slots can be read in place.
    """
    aliased = False
    for slot in first_child[first : first + count]:
        aliased |= slot == ALIAS
    if not aliased:
        return False
    gathered_visits, gathered_values, gathered_proven, gathered_squares = gathered
    tuned = squares.shape[0] > 0
    solver = gathered_proven.shape[0] > 0  # sized only when the loop's solver is on
    for i in range(count):
        node = resolve(first_child, hashes, table, first + i)
        targets[i] = node
        gathered_visits[i] = visits[node]
        gathered_values[i] = values[node]
        if solver:
            gathered_proven[i] = proven[node]
        if tuned:
            gathered_squares[i] = squares[node]
    return True


@njit(cache=True, **NO_REFCOUNTS)
def _backup_bounded(
    visits: np.ndarray,
    values: np.ndarray,
    first_child: np.ndarray,
    num_children: np.ndarray,
    proven: np.ndarray,
    squares: np.ndarray,
    hashes: np.ndarray,
    table: np.ndarray,
    path: np.ndarray,
    movers: np.ndarray,
    depth: int,
    points: np.ndarray,
    gains: np.ndarray,
    bounded: np.ndarray,
    draw_points: int,
    transpose: bool,
    tuned: bool,
) -> None:
    """Back an iteration's rewards up its ``path`` (the root's visit aside), leaf first,
    bounded by proven draws (``prove_draws``).

    A node whose player to move has a proven draw is worth at most a draw to
    its mover: from there up the rewards are bounded by it, since the drawn
    child is no longer visited and its siblings' worse playouts must not
    lower the node below a draw for the player who can take it. ``points``
    is overwritten with the bounded rewards and ``bounded`` with the bounded
    ``gains`` (kept for GRAVE, whose statistics are the moves'). Two players.
    """
    bounded[0] = gains[0]
    bounded[1] = gains[1]
    for level in range(depth, 0, -1):
        entered = path[level]
        mover = movers[level]
        if _can_draw(first_child, num_children, proven, hashes, table, entered, transpose):
            points[mover] = min(points[mover], draw_points)
            points[1 - mover] = max(points[1 - mover], draw_points)
            bounded[mover] = min(bounded[mover], 0.5)
            bounded[1 - mover] = max(bounded[1 - mover], 0.5)
        visits[entered] += 1
        values[entered] += points[mover]
        if tuned:
            squares[entered] += bounded[mover] * bounded[mover]


# -- the search loop -----------------------------------------------------------------


def _search(  # type: ignore[no-untyped-def]
    expand_moves,
    apply,
    is_terminal,
    returns,
    current_player,
    rollout,
    winning_move,
    visits,
    values,
    first_child,
    num_children,
    num_moves,
    move,
    proven,
    squares,
    hashes,
    table,
    counters,
    root_state,
    words,
    rng,
    iterations,
    node_limit,
    when_full,
    policy,
    c,
    fpu,
    min_return,
    scale,
    units,
    exact,
    num_players,
    num_actions,
    max_depth,
    solver,
    prove_draws,
    tuned,
    transpose,
    rave,
    rave_ref,
    rave_bias,
    slot_table,
    amaf_counts,
    amaf_visits,
    amaf_values,
    amaf_used,
):
    """Run up to ``iterations`` iterations from the root; returns how many ran.

    It returns early, with ``counters[REASON]`` saying why, when the tree
    holds ``node_limit`` nodes (never more: an iteration that reaches it
    through a transposition plays out from there), when a new child does
    not fit and ``when_full`` is ``STOP_WHEN_FULL`` (that iteration is
    undone: the tree is untouched and the generator rewound), when the
    transposition table must grow, when the solver has proven the root, when ``exact`` and a reward
    is not a whole number of ``units`` (the value units of a reward of 1;
    otherwise rewards are rounded to them), or when the turn does not pass to
    the next player (a player moves twice in a row, or one is skipped) while
    the solver, transpositions or GRAVE are on (each reads who moved into a
    node from the player to move there; every edge of the tree is checked
    once, when its child is expanded; that iteration is left half done).
    With ``SIMULATE_WHEN_FULL`` a full tree simulates from the leaf reached
    instead of expanding it.
    ``num_moves`` of a node is 0 until its moves are first listed.
    ``squares`` (UCB1-Tuned), ``proven`` (the solver), ``hashes``/``table``
    (transpositions) and the AMAF arrays (RAVE) are only touched when their
    option is on.
    """
    capacity = visits.shape[0]
    state = np.empty_like(root_state)
    legal = np.empty(num_actions, dtype=np.int64)
    marks = np.zeros(num_actions, dtype=np.int64)
    scores = np.empty(num_actions, dtype=np.float32)
    targets = np.empty(num_actions, dtype=np.int64)
    gathered = (
        np.empty(num_actions if transpose else 0, dtype=np.int32),
        np.empty(num_actions if transpose else 0, dtype=np.uint32),
        np.empty(num_actions if transpose and solver else 0, dtype=np.int8),
        np.empty(num_actions if transpose and tuned else 0, dtype=np.float64),
    )
    stamp = 0
    rewards = np.empty(num_players, dtype=np.float64)
    gains = np.empty(num_players, dtype=np.float64)
    points = np.empty(num_players, dtype=np.uint32)  # the gains in value units
    bounded = np.empty(num_players, dtype=np.float64)  # the gains backed up, draws bounding them
    draw_points = round(0.5 * units)  # a draw's reward in value units, as a proven draw backs up
    per_unit = 1.0 / units
    path = np.empty(max_depth + 1, dtype=np.int64)
    movers = np.empty(max_depth + 1, dtype=np.int64)
    line = np.empty(max_depth + 1, dtype=np.int64)  # the move played at each level
    played = np.empty(max_depth + 1 if rave else 0, dtype=np.int64)  # the playout's moves
    seen = np.zeros(num_players * num_actions if rave else 0, dtype=np.int64)
    amaf_stamp = 0
    leaf_player = 0
    use_fpu = policy == UCT and fpu < np.inf
    check_turns = solver or transpose or rave
    path[0] = 0
    counters[REASON] = RAN_ALL
    # A root with a forced win: its move is expanded first and then always
    # followed, so that its proof (and the search) ends soon.
    root_winner = winning_move(root_state) if solver else -1
    if root_winner >= 0:
        proven[0] = LOSS
    for iteration in range(iterations):
        # Before the other limits: a root proven by the iteration that reached one is reported so.
        if solver and _root_settled(
            first_child, num_children, num_moves, proven, hashes, table, transpose
        ):
            counters[REASON] = PROVEN
            return iteration
        if counters[NODES] >= node_limit:
            counters[REASON] = NODE_LIMIT
            return iteration
        if transpose and counters[ENTRIES] + 1 > MAX_LOAD * table.shape[0]:
            counters[REASON] = GROW
            return iteration
        rewind = rng[0]
        state[:] = root_state
        node = 0
        depth = 0
        known = 0  # the proven value of the last node, when it makes a playout needless
        reference = -1  # GRAVE's table for the choice at this node
        base = 0  # where the mover's entries of that table start
        # Selection, ending with the expansion of one child (or at a known or final node).
        while True:
            if solver and depth > 0 and proven[node] != 0:
                known = proven[node]
                break
            if is_terminal(state):
                break
            if rave:
                reference = _rave.reference(slot_table, amaf_counts, node, rave_ref, reference)
                base = (reference * num_players + current_player(state)) * num_actions
            tried = num_children[node]
            first = first_child[node]
            if depth == 0 and root_winner >= 0:
                winner_slot = -1
                for i in range(tried):
                    if move[first + i] == root_winner:
                        winner_slot = first + i
                if winner_slot >= 0:
                    child = (
                        resolve(first_child, hashes, table, winner_slot)
                        if transpose
                        else winner_slot
                    )
                    movers[1] = current_player(state)
                    line[0] = root_winner
                    apply(state, root_winner)
                    depth = 1
                    path[1] = child
                    node = child
                    continue
            descend = tried > 0 and (
                tried == num_moves[node] or (policy == COINFLIP and uniform(rng) < 0.5) or use_fpu
            )
            if descend:
                # Through aliases, selection reads the nodes' statistics gathered.
                gather = transpose and _gather(
                    visits,
                    values,
                    first_child,
                    proven,
                    squares,
                    hashes,
                    table,
                    first,
                    tried,
                    targets,
                    gathered,
                )
                if gather:
                    pick = _best_child(
                        gathered[0],
                        gathered[1],
                        gathered[2],
                        gathered[3],
                        visits[node],
                        0,
                        tried,
                        c,
                        per_unit,
                        scores,
                        solver,
                        prove_draws,
                        tuned,
                    )
                else:
                    pick = _best_child(
                        visits,
                        values,
                        proven,
                        squares,
                        visits[node],
                        first,
                        tried,
                        c,
                        per_unit,
                        scores,
                        solver,
                        prove_draws,
                        tuned,
                    )
                if rave and pick >= 0 and reference >= 0:
                    pick = _rave.blend(
                        scores,
                        gathered[0] if gather else visits,
                        gathered[1] if gather else values,
                        0 if gather else first,
                        move,
                        first,
                        tried,
                        base,
                        amaf_visits,
                        amaf_values,
                        rave_bias,
                        per_unit,
                    )
                if solver and (
                    pick == WON_CHILD or (pick == NO_CHILD and tried == num_moves[node])
                ):
                    # Proven by its children, learnt on the way down (through a transposition).
                    known = settle(
                        first_child, num_children, num_moves, proven, hashes, table, node, transpose
                    )
                    proven[node] = known
                    counters[DRAWS] += known == DRAW
                    break
                if pick >= 0 and (tried == num_moves[node] or not use_fpu or scores[pick] >= fpu):
                    # The move is the slot's own: an alias's node was reached by another.
                    child = targets[pick] if gather else first + pick
                    movers[depth + 1] = current_player(state)
                    line[depth] = move[first + pick]
                    apply(state, move[first + pick])
                    depth += 1
                    path[depth] = child
                    node = child
                    continue
            if counters[NODES] >= node_limit:
                # The limit was reached in this iteration: an alias (a transposition) took
                # the last node it allows, and the iteration went on from there. Play out.
                break
            # Expansion: a uniformly random untried move (RAVE: the best by AMAF; the
            # root's forced win first).
            count = expand_moves(state, legal)
            if count <= tried:
                # Only two positions merged by a hash collision get here: play out.
                break
            num_moves[node] = count
            if not (rave and reference >= 0):
                pick = randint(rng, count - tried)
                if tried > 0:
                    stamp += 1
                    for sibling in move[first : first + tried]:
                        marks[sibling] = stamp
                    for i in range(count):
                        if marks[legal[i]] != stamp:
                            if pick == 0:
                                pick = i
                                break
                            pick -= 1
            else:
                pick, amaf_stamp = _rave.best_untried(
                    legal,
                    count,
                    move,
                    first,
                    tried,
                    seen,
                    amaf_stamp,
                    base,
                    amaf_visits,
                    amaf_values,
                    rng,
                )
            if depth == 0 and root_winner >= 0:
                for i in range(count):
                    if legal[i] == root_winner:
                        pick = i
            # Is the block full (or there none)? The root's holds all its moves at once,
            # and never moves: it needs no alignment.
            at_root = node == 0
            if (tried == 0) if at_root else (tried == block_size(tried, count)):
                size = count if at_root else block_size(tried + 1, count)
                block = _allocate(
                    counters, first_child, num_children, visits, size, capacity, not at_root
                )
                if block < 0:
                    if when_full == SIMULATE_WHEN_FULL:
                        break
                    rng[0] = rewind
                    counters[REASON] = FULL
                    return iteration
                for i in range(tried):
                    visits[block + i] = visits[first + i]
                    values[block + i] = values[first + i]
                    first_child[block + i] = first_child[first + i]
                    num_children[block + i] = num_children[first + i]
                    num_moves[block + i] = num_moves[first + i]
                    move[block + i] = move[first + i]
                    if solver:
                        proven[block + i] = proven[first + i]
                    if tuned:
                        squares[block + i] = squares[first + i]
                    if rave:
                        slot_table[block + i] = slot_table[first + i]
                    if transpose:
                        hashes[block + i] = hashes[first + i]
                        if first_child[first + i] != ALIAS:
                            _moved(table, hashes[first + i], first + i, block + i)
                        hashes[first + i] = 0  # freed (see _reindex)
                if tried > 0:
                    _free(counters, first_child, num_children, visits, first, tried)
                first = block
                first_child[node] = block
            child = first + tried
            visits[child] = 0
            values[child] = 0
            first_child[child] = 0
            num_children[child] = 0
            num_moves[child] = 0
            move[child] = legal[pick]
            if solver:
                proven[child] = 0
            if tuned:
                squares[child] = 0.0
            if rave:
                slot_table[child] = 0
            num_children[node] = tried + 1
            counters[NODES] += 1
            movers[depth + 1] = current_player(state)
            line[depth] = legal[pick]
            apply(state, legal[pick])
            depth += 1
            if (
                check_turns
                and current_player(state) != (movers[depth] + 1) % num_players
                and not is_terminal(state)  # at the end, the player to move means nothing
            ):
                counters[REASON] = TURNS
                return iteration
            if transpose:
                key = position_hash(state, words)
                hashes[child] = key
                same = find(table, hashes, key)
                if same >= 0:
                    # A transposition: this child stands for that node; go on from it.
                    first_child[child] = ALIAS
                    path[depth] = same
                    node = same
                    continue
                _enter(table, key, child)
                counters[ENTRIES] += 1
            path[depth] = child
            if solver:
                if is_terminal(state):
                    # Zeroed before each returns(): a kernel that leaves one unwritten (a
                    # draw's, say) would otherwise give the last game's again, and false
                    # proofs. State.returns names such a kernel; a check here would cost
                    # every simulation.
                    rewards[:] = 0.0
                    returns(state, rewards)
                    mover = movers[depth]
                    if rewards[mover] > rewards[1 - mover]:
                        proven[child] = WIN
                    elif rewards[mover] < rewards[1 - mover]:
                        proven[child] = LOSS
                    else:
                        proven[child] = DRAW
                        counters[DRAWS] += 1
                elif winning_move(state) >= 0:
                    proven[child] = LOSS
                known = proven[child]
            break
        if depth == 0 and known != 0:
            continue  # the root was settled on the way down: nothing was simulated
        # Simulation (unless the outcome is proven), then each mover's reward scaled to [0, 1].
        recorded = 0
        if known == 0:
            if rave:
                leaf_player = current_player(state)
            recorded = rollout(state, rng, played)
            rewards[:] = 0.0  # as before the solver's returns() above
            returns(state, rewards)
            for player in range(num_players):
                gains[player] = (rewards[player] - min_return) * scale
        elif depth > 0:
            mover = movers[depth]
            gains[mover] = 0.5 if known == DRAW else (1.0 if known == WIN else 0.0)
            gains[1 - mover] = 1.0 - gains[mover]
        # In value units: whole ones (rounded where the game's steps are finer than
        # a unit); UCB1-Tuned's squares and the AMAF sums keep the unrounded gains.
        for player in range(num_players):
            amount = gains[player] * units
            whole = round(amount) if -STEP_TOLERANCE <= amount <= units + STEP_TOLERANCE else -1
            if whole < 0 or (exact and abs(amount - whole) > STEP_TOLERANCE):
                counters[REASON] = OFF_GRID  # the game's spec is wrong: the tree is let go
                return iteration
            points[player] = whole
        # Backpropagation, and proofs passed up while they decide the parent.
        visits[0] += 1
        if prove_draws and counters[DRAWS] > 0:
            _backup_bounded(
                visits,
                values,
                first_child,
                num_children,
                proven,
                squares,
                hashes,
                table,
                path,
                movers,
                depth,
                points,
                gains,
                bounded,
                draw_points,
                transpose,
                tuned,
            )
        else:
            for level in range(1, depth + 1):
                entered = path[level]
                mover = movers[level]
                visits[entered] += 1
                values[entered] += points[mover]
                if tuned:
                    squares[entered] += gains[mover] * gains[mover]
        if rave:
            amaf_stamp = _rave.record(
                path,
                depth,
                line,
                movers,
                played,
                recorded,
                leaf_player,
                gains,
                visits,
                rave_ref,
                slot_table,
                amaf_counts,
                amaf_visits,
                amaf_values,
                amaf_used,
                num_players,
                num_actions,
                seen,
                amaf_stamp,
            )
        if solver and known != 0:
            for level in range(depth, 0, -1):
                parent = path[level - 1]
                if proven[parent] != 0:
                    break
                outcome = settle(
                    first_child, num_children, num_moves, proven, hashes, table, parent, transpose
                )
                if outcome == 0:
                    break
                proven[parent] = outcome
                counters[DRAWS] += outcome == DRAW
    # The last iteration may have proven the root: said so, not taken for the iteration budget.
    if solver and _root_settled(
        first_child, num_children, num_moves, proven, hashes, table, transpose
    ):
        counters[REASON] = PROVEN
    return iterations


def _compact(  # type: ignore[no-untyped-def]
    visits,
    values,
    first_child,
    num_children,
    num_moves,
    move,
    proven,
    squares,
    hashes,
    table,
    root,
    new_visits,
    new_values,
    new_first_child,
    new_num_children,
    new_num_moves,
    new_move,
    new_proven,
    new_squares,
    new_hashes,
    new_table,
    new_counters,
):
    """Copy the subtree (sub-DAG) under ``root`` into the zeroed ``new_*`` arrays, breadth first.

    Returns False when it does not fit; fills ``new_counters`` otherwise.
    Blocks keep their children in order and get the size :func:`block_size`
    gives. Until a copied node is processed its ``new_first_child`` holds its
    slot in the source (_UNUSED for the tail of a block, _PENDING_ALIAS for
    an alias). With transpositions (``new_table`` longer than 1) each position
    is copied once, where breadth-first order first meets it, and entered
    in ``new_table``; later children for it become aliases. ``squares`` and
    ``proven`` are copied when they have slots.
    """
    capacity = new_visits.shape[0]
    transpose = new_table.shape[0] > 1
    tuned = new_squares.shape[0] > 0
    solver = new_proven.shape[0] > 0
    new_visits[0] = visits[root]
    new_values[0] = values[root]
    new_num_moves[0] = num_moves[root]
    new_move[0] = move[root]
    if solver:
        new_proven[0] = proven[root]
    if tuned:
        new_squares[0] = squares[root]
    if transpose:
        new_hashes[0] = hashes[root]
    new_first_child[0] = root
    used = 1
    nodes = 1
    entries = 0
    draws = 1 if solver and proven[root] == DRAW else 0
    node = 0
    while node < used:
        origin = new_first_child[node]
        if origin == _PENDING_ALIAS:
            new_first_child[node] = ALIAS
            node += 1
            continue
        new_first_child[node] = 0
        count = num_children[origin] if origin >= 0 else 0
        if count > 0:
            size = num_moves[origin] if node == 0 else block_size(count, num_moves[origin])
            if used + size > capacity:
                return False
            first = first_child[origin]
            for i in range(count):
                slot = used + i
                child = first + i
                new_move[slot] = move[child]
                if transpose:
                    key = hashes[child]
                    new_hashes[slot] = key
                    if find(new_table, new_hashes, key) >= 0:
                        new_first_child[slot] = _PENDING_ALIAS
                        continue
                    child = resolve(first_child, hashes, table, child)
                    _enter(new_table, key, slot)
                    entries += 1
                new_visits[slot] = visits[child]
                new_values[slot] = values[child]
                new_num_moves[slot] = num_moves[child]
                if solver:
                    new_proven[slot] = proven[child]
                    draws += proven[child] == DRAW
                if tuned:
                    new_squares[slot] = squares[child]
                new_first_child[slot] = child
            new_first_child[used + count : used + size] = _UNUSED
            new_first_child[node] = used
            new_num_children[node] = count
            used += size
            nodes += count
        node += 1
    new_counters[USED] = used
    new_counters[NODES] = nodes
    new_counters[ENTRIES] = entries
    new_counters[DRAWS] = draws
    return True


# Dispatchers without a signature compile nothing at import; warm_up() gives
# them their one explicit signature (loaded from the on-disk cache when there).
search_loop: Any = njit(cache=True)(_search)
compact: Any = njit(cache=True)(_compact)
reindex: Any = njit(cache=True)(_reindex)
_COMPILED = ((search_loop, SEARCH_SIG), (compact, COMPACT_SIG), (reindex, REINDEX_SIG))
#: Held while loading or compiling them: a second thread would find compiling
#: disabled by the first ("compilation disabled") before its signature is in.
_WARMING = threading.Lock()


def is_warm() -> bool:
    """Whether the compiled engine is ready without compiling: loaded, or in numba's disk cache.

    It reads numba's cache index the way ``Dispatcher.compile`` does; if that
    internal layout ever changes, it answers False (a spinner shown for nothing).
    """
    return all(
        bool(dispatcher.signatures) or _in_disk_cache(dispatcher, signature)
        for dispatcher, signature in _COMPILED
    )


def warm_up() -> None:
    """Load the compiled engine from numba's disk cache, compiling it first if it is not there.

    Compiling takes several seconds and happens once per installation (and
    after an upgrade of numba or of this module); loading takes a fraction of a second.
    """
    with _WARMING:  # threads (the web board's searches) must not compile at once
        for dispatcher, signature in _COMPILED:
            if not dispatcher.signatures:
                dispatcher.compile(signature)
                # Calls must convert kernel dispatchers to the first-class function
                # types of this one signature, never specialise on them.
                dispatcher.disable_compile()


def _in_disk_cache(dispatcher: Any, signature: Any) -> bool:
    try:
        disk_cache = dispatcher._cache
        key = disk_cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in disk_cache._cache_file._load_index()
    except Exception:
        return False
