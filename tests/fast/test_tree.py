"""The array tree: its invariants after searches of wide and narrow games, and compaction.

Plain UCT keeps a tree; with transpositions it is a graph of positions (aliases).
"""

from __future__ import annotations

import dataclasses
import errno
import math
import mmap
import random
import weakref
from typing import Any

import numpy as np
import pytest

from mctslab import State, make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._loop import (
    ALIAS,
    DRAW,
    DRAWS,
    FREE,
    LARGEST,
    LOSS,
    USED,
    WIN,
    block_size,
    find,
    position_hash,
)
from mctslab.fast._pages import HUGE_PAGE_BYTES, MAPPED_BYTES, zeros
from mctslab.fast._rave import AmafTables
from mctslab.fast._tree import Tree, bytes_per_node
from mctslab.games import othello
from mctslab.games._check import ConformanceError, check_game
from tests.conftest import garbage_collector_off
from tests.core.tictactoe_minimax import move_values


def check_tree(tree: Tree, root_state: State, *, fresh_root: bool) -> int:
    """Assert the tree's invariants, position by position; returns the nodes reached.

    A node's first visit is its own simulation, and each later one goes
    through exactly one child (a fresh root has no visit of its own); child
    moves are distinct legal moves; blocks and free lists account for every
    slot handed out; the node count is the nodes reachable from the root.
    """
    slots = 1
    nodes = 1
    stack = [(0, root_state)]
    while stack:
        node, state = stack.pop()
        children = tree.children(node)
        if not children:
            continue
        moves = [int(m) for m in tree.move[children.start : children.stop]]
        legal = state.legal_moves()
        assert len(set(moves)) == len(moves) and set(moves) <= set(legal)
        assert tree.num_moves[node] == len(legal)
        own = 0 if node == 0 and fresh_root else 1
        assert tree.visits[children.start : children.stop].sum() == tree.visits[node] - own
        means = [tree.mean(child) for child in children]
        assert all(0.0 <= mean <= 1.0 for mean in means)
        slots += len(legal) if node == 0 else block_size.py_func(len(moves), len(legal))
        nodes += len(moves)
        for child, move in zip(children, moves, strict=True):
            after = state.clone()
            after.apply(move)
            stack.append((child, after))
    assert slots + free_slots(tree) == tree.counters[USED]
    assert nodes == tree.nodes
    return nodes


@pytest.mark.parametrize(
    ("name", "params", "iterations"),
    [
        ("tictactoe", {}, 20_000),  # narrow and shallow: the whole game tree fills in
        ("gomoku", {"size": 7, "k": 4}, 20_000),  # wide: blocks grow and move a lot
        ("othello", {}, 5_000),
        ("numbers", {"turns": 6}, 5_000),  # one player
    ],
)
@pytest.mark.parametrize("tree_policy", ["uct", "coinflip"])
def test_invariants_after_a_search(
    name: str, params: dict[str, int], iterations: int, tree_policy: str
) -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=1, tree_policy=tree_policy))
    state = make(name, **params)
    result = mcts.search(state, Budget(iterations=iterations))
    assert mcts._tree is not None
    assert check_tree(mcts._tree, state, fresh_root=True) == result.nodes


def test_invariants_after_advancing_twice() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=2))
    state = make("gomoku", size=7, k=4)
    result = mcts.search(state, Budget(iterations=20_000))
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    result = mcts.search(state, Budget(iterations=5_000))
    assert mcts._tree is not None
    assert check_tree(mcts._tree, state, fresh_root=False) == result.nodes


def test_terminal_nodes_hold_their_movers_return() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=2))
    root_state = make("tictactoe")
    mcts.search(root_state, Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    checked = 0
    stack = [(0, root_state)]
    while stack:
        node, state = stack.pop()
        for child in tree.children(node):
            after = state.clone()
            after.apply(int(tree.move[child]))
            if after.is_terminal():
                normalised = (after.returns()[state.current_player] + 1.0) / 2.0
                assert tree.mean(child) == normalised
                checked += 1
            stack.append((child, after))
    assert checked > 1000


def test_value_sums_are_exact_after_two_million_simulations() -> None:
    # A node's first visit is its own playout; every later one goes through a
    # child, whose rewards are the other player's. So its value sum is that
    # playout's result (0, 1/2 or 1: 0, 1 or 2 half points) plus what its
    # children's sums imply, exactly. A float32 running mean drifted here by
    # up to 2e-3 (rounding lost the updates of outcomes near the mean),
    # enough to reorder tic-tac-toe's first moves.
    mcts = FastMCTS(SearchConfig.plain(seed=1))
    mcts.search(make("tictactoe"), Budget(iterations=2_000_000))
    tree = mcts._tree
    assert tree is not None
    assert tree.units == 2
    checked = 0
    stack = list(tree.children(0))
    while stack:  # the nodes of 100 visits or more, where rounding would add up
        node = stack.pop()
        children = tree.children(node)
        if not children or tree.visits[node] < 100:
            continue
        implied = 2 * int(np.sum(tree.visits[children.start : children.stop])) - int(
            np.sum(tree.values[children.start : children.stop], dtype=np.int64)
        )
        assert int(tree.values[node]) - implied in (0, 1, 2), node
        checked += 1
        stack.extend(children)
    assert checked > 1000


@pytest.mark.parametrize(
    ("size", "iterations"), [(15, 300_000), (19, 500), (15, 30_000), (8, 2_000)]
)
def test_a_plain_gomoku_tree_takes_at_most_32_bytes_per_node(size: int, iterations: int) -> None:
    # The memory goal at the benchmark's 300,000 simulations from the empty
    # 15x15 board (see mctslab.benchmark._games): the frontier's blocks of 1,
    # 2 and 4 slots, outgrown together, must merge to serve bigger ones. On
    # 19x19 a 500-node tree is mostly the root's block, which must leave no
    # outgrown blocks and no alignment gap. 15x15 at 30,000 and 8x8 at 2,000
    # simulations took the most slots a node in a sweep of sizes (1.73,
    # benchmarks/RESULTS.md), which 18-byte slots keep within 32 bytes.
    mcts = FastMCTS(SearchConfig.plain(seed=1))
    mcts.search(make("gomoku", size=size), Budget(iterations=iterations))
    tree = mcts._tree
    assert tree is not None
    slot_bytes = bytes_per_node(tuned=False, hashed=False, solver=False)
    assert int(tree.counters[USED]) * slot_bytes <= 32 * tree.nodes
    if iterations == 300_000:  # merged: the frontier has outgrown its small blocks
        assert free_slots(tree) < 0.1 * tree.nodes


def _shape(tree: Tree, root: int) -> list[tuple[int, int, int, int]]:
    """(move, visits, value sum, child count) of every node under ``root``, breadth first."""
    shape = []
    queue = [root]
    for node in queue:
        shape.append(
            (
                int(tree.move[node]),
                int(tree.visits[node]),
                int(tree.values[node]),
                int(tree.num_children[node]),
            )
        )
        queue.extend(tree.children(node))
    return shape


def test_subtree_copies_exactly_and_refuses_what_does_not_fit() -> None:
    mcts = FastMCTS(SearchConfig.plain(seed=3))
    mcts.search(make("gomoku", size=7, k=4), Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    child = tree.best_child(0)
    assert child is not None
    copy = tree.subtree(child, tree.capacity)
    assert copy is not None
    assert _shape(copy, 0)[1:] == _shape(tree, child)[1:]
    assert copy.nodes == len(_shape(tree, child))
    assert tree.subtree(child, copy.nodes // 2) is None


def free_slots(tree: Tree) -> int:
    """Slots waiting on the free lists, whose blocks are aligned, marked and linked both ways."""
    free = 0
    for k in range(LARGEST + 1):
        block = int(tree.counters[FREE + k])
        previous = 0
        while block:
            assert block % (1 << k) == 0 and block + (1 << k) <= tree.counters[USED]
            assert tree.num_children[block] == -1 - k and tree.visits[block] == previous
            free += 1 << k
            previous, block = block, int(tree.first_child[block])
    return free


def check_graph(
    tree: Tree, root_state: State, expand_moves: Any, *, fresh_root: bool = True
) -> dict[int, State]:
    """Assert the invariants of a tree with transpositions; returns each node's position.

    Every path to a node reaches the same position (whose hash the node
    holds); an alias holds the hash of a node that is not an alias; the
    table finds exactly the nodes; slots, nodes and free lists add up. A
    kept root may have fewer visits than a node that was reached by other
    paths before the re-rooting.
    """
    positions = {0: root_state}
    blocks = aliases = 0
    queue = [0]
    moves_out = np.empty(root_state.spec.num_actions, dtype=np.int64)
    for node in queue:
        state = positions[node]
        slots = tree.children(node)
        if not slots:
            continue
        listed = moves_out[: expand_moves(state.data.copy(), moves_out)].tolist()
        moves = [int(tree.move[slot]) for slot in slots]
        assert len(set(moves)) == len(moves) and set(moves) <= set(listed)
        assert tree.num_moves[node] == len(listed)
        blocks += len(listed) if node == 0 else block_size.py_func(len(moves), len(listed))
        for slot, move in zip(slots, moves, strict=True):
            child = tree.node_of(slot)
            after = state.clone()
            after.apply(move)
            assert tree.hashes[slot] == tree.hashes[child]
            assert tree.hashes[child] == position_hash(after.data.copy(), after.position_words())
            if child != slot:
                aliases += 1
                assert tree.first_child[child] != ALIAS
            if child in positions:
                assert positions[child].position_key() == after.position_key()
            else:
                positions[child] = after
                queue.append(child)
            assert 0.0 <= tree.mean(child) <= 1.0
            assert tree.visits[child] <= tree.visits[0] or not fresh_root
    nodes = len(positions)
    assert tree.nodes == nodes + aliases
    assert tree.entries == nodes - 1
    assert all(
        find(tree.table, tree.hashes, tree.hashes[node]) == node for node in positions if node
    )
    assert 1 + blocks + free_slots(tree) == tree.counters[USED]
    if tree.solver:  # the count that tells prove_draws to look for drawn children
        assert tree.counters[DRAWS] == sum(tree.proven[node] == DRAW for node in positions)
    return positions


def test_big_tree_arrays_are_mapped_from_the_system_and_go_back_with_the_tree() -> None:
    # From malloc, arrays up to glibc's raised mmap threshold (32 MiB) came from its heaps once
    # a tree had been freed: cleared by calloc, so resident in full however little of them a
    # tree used, and kept by the heaps after the tree went (benchmarks/web_memory.py).
    capacity = MAPPED_BYTES  # every array at least a byte a slot
    tree = Tree(capacity, tuned=True, hashed=True, solver=True, table_size=capacity)
    amaf = AmafTables(capacity, 1, capacity)
    arrays = (*tree.arrays, tree.table, amaf.slot_table, amaf.visits, amaf.values)
    assert all(isinstance(array.base.obj, mmap.mmap) for array in arrays)
    assert all(array.flags.writeable and not array.any() for array in arrays)
    with garbage_collector_off():
        pages = weakref.ref(tree.visits.base.obj)
        del tree, arrays
        assert pages() is None


def test_an_array_the_system_cannot_map_raises_memory_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As np.zeros does: mmap's own OSError (ENOMEM) would slip past code that catches
    # MemoryError, and into handlers meant for files.
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOMEM, "Cannot allocate memory")

    monkeypatch.setattr(mmap, "mmap", refuse)
    with pytest.raises(MemoryError, match="Unable to map 8,388,608 bytes"):
        zeros(2**20, np.int64)


@pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="no huge pages to ask for")
def test_big_arrays_ask_for_huge_pages_as_numpys_do(monkeypatch: pytest.MonkeyPatch) -> None:
    advised: list[tuple[int, int]] = []
    real = mmap.mmap

    class Recording(real):  # type: ignore[misc, valid-type]
        def madvise(self, option: int, *args: int) -> None:
            advised.append((len(self), option))
            super().madvise(option, *args)

    monkeypatch.setattr(mmap, "mmap", Recording)
    zeros(HUGE_PAGE_BYTES, np.int8)
    zeros(HUGE_PAGE_BYTES - 1, np.int8)
    assert advised == [(HUGE_PAGE_BYTES, mmap.MADV_HUGEPAGE)]


def test_small_arrays_come_from_numpy() -> None:
    small = zeros(MAPPED_BYTES // 8 - 1, np.int64)
    assert small.base is None and small.dtype == np.int64 and not small.any()
    assert zeros(0, np.int8).shape == (0,)


@pytest.mark.parametrize(
    ("name", "params", "iterations"),
    [
        ("tictactoe", {}, 20_000),
        ("connect4", {}, 20_000),
        ("countdown", {"start": 60}, 5_000),
        ("gomoku", {"size": 7, "k": 4}, 20_000),
        ("othello", {}, 3_000),
        ("numbers", {"turns": 6}, 5_000),
    ],
)
def test_graph_invariants_with_transpositions(
    name: str, params: dict[str, int], iterations: int
) -> None:
    mcts = FastMCTS(SearchConfig(seed=4, candidates=False))
    state = make(name, **params)
    result = mcts.search(state, Budget(iterations=iterations))
    assert mcts._tree is not None
    positions = check_graph(mcts._tree, state, state.kernel.legal_moves)
    assert result.nodes >= len(positions)
    if name in ("tictactoe", "connect4", "countdown"):
        assert result.nodes > len(positions)  # some move orders transposed


def test_graph_invariants_with_candidate_moves() -> None:
    mcts = FastMCTS(SearchConfig(seed=4))
    state = make("gomoku", size=9)
    mcts.search(state, Budget(iterations=10_000))
    assert mcts._tree is not None
    check_graph(mcts._tree, state, state.kernel.candidate_moves)


def test_every_proven_node_holds_its_minimax_value() -> None:
    mcts = FastMCTS(SearchConfig(seed=5, reuse_tree=True))
    root_state = make("tictactoe")
    mcts.search(root_state, Budget(iterations=30_000))
    tree = mcts._tree
    assert tree is not None
    positions = check_graph(tree, root_state, root_state.kernel.legal_moves)
    checked = 0
    for node, state in positions.items():
        for slot in tree.children(node):
            child = tree.node_of(slot)
            if tree.proven[child]:
                value = move_values(state)[state.move_to_str(int(tree.move[slot]))]
                assert tree.proven[child] == {1.0: WIN, 0.0: DRAW, -1.0: LOSS}[value]
                checked += 1
    assert checked > 500


@pytest.mark.parametrize(
    ("name", "options", "line"),
    [
        ("connect4", {}, ""),
        ("countdown", {}, ""),
        # The copy counts its draws (check_graph): from the start none is proven in
        # 20,000 iterations; 20 cells from the end 57 are, 75 after the second search.
        ("connect4", {"prove_draws": True}, "1666425755643557763612"),
        ("tictactoe", {"prove_draws": True}, ""),
    ],
)
def test_graph_kept_across_moves(name: str, options: dict[str, Any], line: str) -> None:
    # Re-rooting copies the sub-graph once per position: children that
    # transposed to nodes outside it become nodes of their own.
    mcts = FastMCTS(SearchConfig(seed=6, **options))
    state = make(name, start=80) if name == "countdown" else make(name)
    for move in line:
        state.play(move)
    result = mcts.search(state, Budget(iterations=20_000))
    drawing = options.get("prove_draws", False)
    assert mcts._tree is not None and (mcts._tree.counters[DRAWS] > 0 or not drawing)
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    assert mcts._root != 0
    again = mcts.search(state, Budget(iterations=2_000))
    assert mcts._tree is not None and (mcts._tree.counters[DRAWS] > 0 or not drawing)
    check_graph(mcts._tree, state, state.kernel.legal_moves, fresh_root=False)
    assert again.simulations <= 2_000


def test_the_draw_count_survives_re_rooting_without_transpositions() -> None:
    # check_graph counts the draws of trees with transpositions; this is the plain copy.
    mcts = FastMCTS(SearchConfig(seed=6, transpositions=False, prove_draws=True))
    state = make("tictactoe")
    result = mcts.search(state, Budget(iterations=20_000))
    for move in result.pv[:2]:
        mcts.advance(move)
        state.apply(move)
    mcts.search(state, Budget(iterations=2_000))
    tree = mcts._tree
    assert tree is not None and not tree.hashed
    drawn, queue = 0, [0]
    for node in queue:
        drawn += tree.proven[node] == DRAW
        queue.extend(tree.child_nodes(node))
    assert drawn > 0 and tree.counters[DRAWS] == drawn


def test_positions_hash_apart() -> None:
    # Two Othello positions that one multiply-xorshift round per word hashed
    # alike (found when a search merged them and crashed); and every
    # position one move away from the positions of random games.
    once_alike = [othello.from_discs(0x410387C040000, 0x8078EF0000080000)]
    once_alike.append(othello.from_discs(0x200410383C040000, 0x8078EF0000080000))
    hashes = {position_hash(s.data.copy(), s.position_words()) for s in once_alike}
    assert len(hashes) == 2
    rng = random.Random(0)
    seen: dict[int, bytes] = {}
    for name in ("othello", "connect4"):
        for _ in range(60):
            state = make(name)
            while not state.is_terminal():
                for move in state.legal_moves():
                    child = state.clone()
                    child.apply(move)
                    key = position_hash(child.data.copy(), child.position_words())
                    assert seen.setdefault(key, child.position_key()) == child.position_key()
                state.apply(rng.choice(state.legal_moves()))
    assert len(seen) > 20_000


def test_numbers_value_sums_count_exact_steps_of_the_reward() -> None:
    # The classic 10-turn game's reward is 1 - distance / 225: whole steps of
    # 1/225. A node's sum is its own playout's reward plus its children's.
    state = make("numbers")
    mcts = FastMCTS(SearchConfig.plain(seed=4))
    mcts.search(state, Budget(iterations=200_000))
    tree = mcts._tree
    assert tree is not None
    assert tree.units == state.spec.return_steps == 225
    checked = 0
    stack = [(0, state)]
    while stack:
        node, position = stack.pop()
        children = tree.children(node)
        if position.is_terminal():
            steps = round(position.returns()[0] * 225)  # the reward in steps of 1/225
            assert int(tree.values[node]) == int(tree.visits[node]) * steps
            checked += 1
        elif children and node != 0:
            own = int(tree.values[node]) - int(
                np.sum(tree.values[children.start : children.stop], dtype=np.int64)
            )
            assert 0 <= own <= 225
        for child in children:
            after = position.clone()
            after.apply(int(tree.move[child]))
            stack.append((child, after))
    assert checked > 100


def _with_spec(state: State, **changes: Any) -> State:
    """``state`` with its spec changed (the same position)."""
    return type(state)(dataclasses.replace(state.spec, **changes), state.data.copy())


def test_a_search_stops_before_a_value_sum_overflows() -> None:
    # Steps of 1/4096 (MAX_UNITS): a sum counts 2**32 - 1 units, so a node
    # takes at most 1,048,575 visits.
    state = _with_spec(make("tictactoe"), return_steps=4096)
    mcts = FastMCTS(SearchConfig.plain(seed=5))
    result = mcts.search(state, Budget(iterations=2_000_000))
    assert (result.simulations, result.stopped_by) == (1_048_575, "visits")


def test_a_kept_tree_near_its_visit_limit_is_let_go() -> None:
    state = make("numbers", turns=41)  # steps of 1/4100, rounded to 1/4096
    mcts = FastMCTS(SearchConfig.plain(seed=5, reuse_tree=True))
    first = mcts.search(state, Budget(iterations=1_000))
    kept = mcts._tree
    assert kept is not None
    assert (kept.units, kept.exact, kept.max_visits) == (4096, False, 1_048_575)
    kept.visits[0] = kept.max_visits - 10  # as if searched that long
    result = mcts.search(state, Budget(iterations=1_000))
    assert mcts._tree is not kept
    assert (result.simulations, result.stopped_by) == (1_000, "iterations")
    # The same after a move: a node below it with most of the visits a node
    # may take leaves its copy too little headroom.
    kept = mcts._tree
    move = first.best_move
    child = kept.child(0, move)
    assert child is not None
    kept.visits[kept.child_nodes(child)[0]] = kept.max_visits - 10
    mcts.advance(move)
    state.apply(move)
    mcts.search(state, Budget(iterations=100))
    assert mcts._tree is not None and mcts._tree.visits[0] == 100  # a fresh root


def test_a_copied_subtree_counts_the_visits_its_nodes_have_over_its_root() -> None:
    # Through transpositions a node below a rarely visited move may have
    # gathered more visits (by other paths) than that move: the copy's lead,
    # which bounds its nodes' counts for as long as it is searched.
    mcts = FastMCTS(SearchConfig(seed=1, reuse_tree=True))
    mcts.search(make("numbers"), Budget(iterations=20_000))
    tree = mcts._tree
    assert tree is not None
    rare = min(tree.child_nodes(0), key=lambda node: int(tree.visits[node]))
    copy = tree.subtree(rare, tree.capacity)
    assert copy is not None
    reached, queue = {0}, [0]
    for node in queue:
        for child in copy.child_nodes(node):
            if child not in reached:
                reached.add(child)
                queue.append(child)
    most = max(int(copy.visits[node]) for node in reached)
    assert copy.lead == most - int(copy.visits[0]) > 0


def test_returns_off_the_specs_steps_or_range_are_refused() -> None:
    # The numbers game's rewards with win/draw/loss steps; tic-tac-toe's
    # -1 for a loss below a claimed min_return of 0, and its 1 for a win
    # above a claimed max_return of 0.
    for state in (
        _with_spec(make("numbers"), return_steps=2),
        _with_spec(make("tictactoe"), min_return=0.0),
        _with_spec(make("tictactoe"), max_return=0.0),
    ):
        mcts = FastMCTS(SearchConfig.plain(seed=6, reuse_tree=True))
        # Found in the one game played out before the search, else by the loop.
        with pytest.raises(ValueError, match=r"in \[min_return, max_return\] = "):
            mcts.search(state, Budget(iterations=1_000))
        assert mcts._tree is None
    with pytest.raises(ConformanceError, match="not whole steps of 1/2"):
        check_game(lambda: _with_spec(make("numbers"), return_steps=2))
    # A GameSpec (every State's) refuses an infinite range when it is made.
    with pytest.raises(ValueError, match="must have finite returns with max_return > min_return"):
        _with_spec(make("tictactoe"), max_return=math.inf)


def test_return_steps_must_be_a_whole_number_of_at_least_one() -> None:
    spec = make("numbers").spec
    with pytest.raises(
        ValueError, match="'return_steps' parameter of GameSpec must be an int >= 1"
    ):
        dataclasses.replace(spec, return_steps=0)
