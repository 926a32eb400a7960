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
and moves to a block twice as big when it fills, its old block going on a
free list for its size. Allocating a slot for every legal move at once would
be simpler, but UCT expands most nodes it visits twice, so wide games
(Gomoku 15x15: 225 moves) would fill ~90 slots per iteration (measured).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    RNG,
    ROLLOUT_SIG,
    STATE,
    randint,
    uniform,
)

#: Tree policies, as the loop's ``policy`` argument.
UCT, COINFLIP = 0, 1
#: What the loop does when a new child does not fit in the arrays.
STOP_WHEN_FULL, SIMULATE_WHEN_FULL = 0, 1
#: Slots of the ``counters`` array: slots handed out, nodes in the tree, why
#: the loop returned early, then one free-list head per block size 2**k (0 = empty).
USED, NODES, REASON, FREE = 0, 1, 2, 3
NUM_COUNTERS = FREE + 16
#: Values of ``counters[REASON]``.
RAN_ALL, NODE_LIMIT, FULL = 0, 1, 2

VISITS = types.int32[::1]
VALUES = types.float64[::1]
FIRST_CHILD = types.int32[::1]
COUNT = types.int16[::1]
MOVE = types.int16[::1]
PROVEN = types.int8[::1]
COUNTERS = types.int64[::1]
#: The tree's arrays, in the order the compiled functions take them.
TREE_ARGS = (VISITS, VALUES, FIRST_CHILD, COUNT, COUNT, MOVE, PROVEN)

SEARCH_SIG = types.int64(
    types.FunctionType(LEGAL_MOVES_SIG),
    types.FunctionType(APPLY_SIG),
    types.FunctionType(IS_TERMINAL_SIG),
    types.FunctionType(RETURNS_SIG),
    types.FunctionType(CURRENT_PLAYER_SIG),
    types.FunctionType(ROLLOUT_SIG),
    *TREE_ARGS,
    COUNTERS,
    STATE,  # root state
    RNG,
    types.int64,  # iterations
    types.int64,  # node limit
    types.int64,  # when full
    types.int64,  # policy
    types.float64,  # c
    types.float64,  # min_return
    types.float64,  # scale
    types.int64,  # num_players
    types.int64,  # num_actions
    types.int64,  # max_depth
)

COMPACT_SIG = types.boolean(*TREE_ARGS, types.int64, *TREE_ARGS, COUNTERS)


@njit(cache=True)
def block_size(children: int, moves: int) -> int:
    """Slots of the block of a node with ``children`` children of ``moves`` legal moves.

    The next power of two, but never more than ``moves``: the last block of a
    node is exactly as big as its move list (and never moves again).
    """
    size = 1 if children > 0 else 0
    while size < children:
        size *= 2
    return min(size, moves)


@njit(cache=True)
def _size_class(size: int) -> int:
    """k for a block of 2**k slots."""
    k = 0
    while (1 << k) < size:
        k += 1
    return k


@njit(cache=True)
def _free(counters: np.ndarray, first_child: np.ndarray, block: int, size: int) -> None:
    """Put ``block`` of ``size`` slots (a power of two) on its free list.

    A free block links to the next one of its size through its first slot's ``first_child``.
    """
    head = FREE + _size_class(size)
    first_child[block] = counters[head]
    counters[head] = block


@njit(cache=True)
def _allocate(counters: np.ndarray, first_child: np.ndarray, size: int, capacity: int) -> int:
    """First slot of a free block of ``size`` slots, or -1 if none is left.

    A power-of-two size is served from its free list, else by splitting the
    smallest bigger free block (buddy-style, without merging); other sizes
    and misses take fresh slots.
    """
    wanted = _size_class(size)
    if (1 << wanted) == size:
        for k in range(wanted, NUM_COUNTERS - FREE):
            block = counters[FREE + k]
            if block != 0:
                counters[FREE + k] = first_child[block]
                while k > wanted:
                    k -= 1
                    _free(counters, first_child, block + (1 << k), 1 << k)
                return block
    if counters[USED] + size > capacity:
        return -1
    counters[USED] += size
    return counters[USED] - size


@njit(cache=True, error_model="numpy")
def _best_uct(
    visits: np.ndarray,
    values: np.ndarray,
    parent_visits: int,
    first: int,
    count: int,
    c: float,
    scores: np.ndarray,
) -> int:
    """The child maximising mean + c * sqrt(ln N / n) (Kocsis & Szepesvári 2006).

    Ties go to the earliest child, as in the generic engine. Scores are
    float32 in the ``scores`` scratch array so the loop vectorises (no
    division-by-zero check: every child has a visit), which makes selection
    in wide nodes several times faster.
    """
    explore = np.float32(c * math.sqrt(math.log(parent_visits)))
    # Slices, not visits[first + i]: indices known to be >= 0 need no wraparound code.
    child_visits = visits[first : first + count]
    child_values = values[first : first + count]
    for i in range(count):
        inverse = np.float32(1.0) / np.float32(child_visits[i])
        scores[i] = np.float32(child_values[i]) * inverse + explore * np.sqrt(inverse)
    best = 0
    best_score = scores[0]
    for i in range(1, count):
        if scores[i] > best_score:
            best_score = scores[i]
            best = i
    return first + best


def _search(  # type: ignore[no-untyped-def]
    legal_moves,
    apply,
    is_terminal,
    returns,
    current_player,
    rollout,
    visits,
    values,
    first_child,
    num_children,
    num_moves,
    move,
    proven,
    counters,
    root_state,
    rng,
    iterations,
    node_limit,
    when_full,
    policy,
    c,
    min_return,
    scale,
    num_players,
    num_actions,
    max_depth,
):
    """Run up to ``iterations`` iterations from the root; returns how many ran.

    It returns early, with ``counters[REASON]`` saying why, when the tree
    holds ``node_limit`` nodes, or when a new child does not fit and
    ``when_full`` is ``STOP_WHEN_FULL`` (that iteration is undone: the tree is
    untouched and the generator rewound). With ``SIMULATE_WHEN_FULL`` such an
    iteration simulates from the leaf it reached instead of expanding it.
    ``num_moves`` of a node is 0 until its legal moves are first listed.
    """
    capacity = visits.shape[0]
    state = np.empty_like(root_state)
    legal = np.empty(num_actions, dtype=np.int64)
    marks = np.zeros(num_actions, dtype=np.int64)
    scores = np.empty(num_actions, dtype=np.float32)
    stamp = 0
    rewards = np.empty(num_players, dtype=np.float64)
    path = np.empty(max_depth + 1, dtype=np.int64)
    movers = np.empty(max_depth + 1, dtype=np.int64)
    counters[REASON] = RAN_ALL
    for iteration in range(iterations):
        if counters[NODES] >= node_limit:
            counters[REASON] = NODE_LIMIT
            return iteration
        rewind = rng[0]
        state[:] = root_state
        node = 0
        depth = 0
        # Selection, ending with the expansion of one child (or at the end of the game).
        while not is_terminal(state):
            tried = num_children[node]
            first = first_child[node]
            if tried > 0 and (
                tried == num_moves[node] or (policy == COINFLIP and uniform(rng) < 0.5)
            ):
                child = _best_uct(visits, values, visits[node], first, tried, c, scores)
                movers[depth + 1] = current_player(state)
                apply(state, move[child])
                depth += 1
                path[depth] = child
                node = child
                continue
            # Expansion: a uniformly random untried move.
            count = legal_moves(state, legal)
            num_moves[node] = count
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
            if tried == block_size(tried, count):  # the block is full (or there is none)
                block = _allocate(counters, first_child, block_size(tried + 1, count), capacity)
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
                    proven[block + i] = proven[first + i]
                if tried > 0:
                    _free(counters, first_child, first, tried)
                first = block
                first_child[node] = block
            child = first + tried
            visits[child] = 0
            values[child] = 0.0
            num_children[child] = 0
            num_moves[child] = 0
            move[child] = legal[pick]
            proven[child] = 0
            num_children[node] = tried + 1
            counters[NODES] += 1
            movers[depth + 1] = current_player(state)
            apply(state, legal[pick])
            depth += 1
            path[depth] = child
            break
        # Simulation, then backpropagation of each mover's reward scaled to [0, 1].
        rollout(state, rng)
        returns(state, rewards)
        visits[0] += 1
        for level in range(1, depth + 1):
            entered = path[level]
            visits[entered] += 1
            values[entered] += (rewards[movers[level]] - min_return) * scale
    return iterations


def _compact(  # type: ignore[no-untyped-def]
    visits,
    values,
    first_child,
    num_children,
    num_moves,
    move,
    proven,
    root,
    new_visits,
    new_values,
    new_first_child,
    new_num_children,
    new_num_moves,
    new_move,
    new_proven,
    new_counters,
):
    """Copy the subtree under ``root`` into the zeroed ``new_*`` arrays, breadth first.

    Returns False when the subtree does not fit; fills ``new_counters`` otherwise.
    Blocks keep their children in order and get the size :func:`block_size`
    gives. Until a copied node is processed its ``new_first_child`` holds its
    slot in the source; the unused tail of a block holds -1.
    """
    capacity = new_visits.shape[0]
    new_visits[0] = visits[root]
    new_values[0] = values[root]
    new_num_moves[0] = num_moves[root]
    new_move[0] = move[root]
    new_proven[0] = proven[root]
    new_first_child[0] = root
    used = 1
    nodes = 1
    node = 0
    while node < used:
        source = new_first_child[node]
        new_first_child[node] = 0
        count = num_children[source] if source >= 0 else 0
        if count > 0:
            size = block_size(count, num_moves[source])
            if used + size > capacity:
                return False
            first = first_child[source]
            for i in range(count):
                new_visits[used + i] = visits[first + i]
                new_values[used + i] = values[first + i]
                new_num_moves[used + i] = num_moves[first + i]
                new_move[used + i] = move[first + i]
                new_proven[used + i] = proven[first + i]
                new_first_child[used + i] = first + i
            new_first_child[used + count : used + size] = -1
            new_first_child[node] = used
            new_num_children[node] = count
            used += size
            nodes += count
        node += 1
    new_counters[USED] = used
    new_counters[NODES] = nodes
    return True


# Dispatchers without a signature compile nothing at import; warm_up() gives
# them their one explicit signature (loaded from the on-disk cache when there).
search_loop: Any = njit(cache=True)(_search)
compact: Any = njit(cache=True)(_compact)
_COMPILED = ((search_loop, SEARCH_SIG), (compact, COMPACT_SIG))


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
