"""FastMCTS: the compiled engine, driving the compiled loop in short chunks.

Between chunks (about :data:`CHUNK_SECONDS` each) control comes back to
Python to check the clock, the stop event and Ctrl-C (which sets an event of
its own while the loop runs), and to report progress, so the search stays
anytime while the loop itself never leaves machine code for thousands of
iterations.
"""

from __future__ import annotations

import math
import os
import random
import sys
import threading
from collections.abc import Callable
from time import perf_counter
from types import TracebackType
from typing import Any, Self

import numpy as np

from mctslab._interrupt import ctrl_c_sets
from mctslab._jit import new_rng
from mctslab._validation import check_float, check_instance, check_int, physical_mib
from mctslab.core.config import SETTLED_AFTER, Budget, SearchConfig
from mctslab.core.engine import Progress, StopEvent, search_budget
from mctslab.core.result import SearchResult
from mctslab.core.search import check_returns, not_legal_at_root, return_scale
from mctslab.core.tree_view import MAX_VIEW_NODES, TreeView, build_tree_view, no_tree
from mctslab.fast._loop import (
    COINFLIP,
    FULL,
    GROW,
    NODE_LIMIT,
    OFF_GRID,
    PROVEN,
    REASON,
    SIMULATE_WHEN_FULL,
    STOP_WHEN_FULL,
    TURNS,
    UCT,
    no_winning_move,
    search_loop,
    warm_up,
)
from mctslab.fast._pool import WorkerPool, split_budget
from mctslab.fast._rave import AmafTables, split, table_bytes
from mctslab.fast._stats import RootStats, build_result
from mctslab.fast._tree import MAX_ACTIONS, Tree, bytes_per_node
from mctslab.games._base import (
    PLAYOUTS,
    Kernel,
    State,
    check_kernel,
    checked_current_player,
    list_moves,
)

#: Target wall time of one call of the compiled loop.
CHUNK_SECONDS = 0.05
#: Iterations of the first chunk of a search, before the speed is known.
FIRST_CHUNK = 64
#: Tree size when the budget sets no memory limit: the arrays reserve this much
#: address space (memory is only used as the tree grows); a tree that fills
#: it keeps searching without adding nodes.
DEFAULT_TREE_MB = 1024.0
#: Seconds the copy of a kept subtree takes per node, on the safe side: the worst
#: case measured (Connect Four, 1.38 million nodes kept after 4 s of search, then
#: advance() and a search of 0.05 s that took 0.41 s: about 0.26 microseconds a
#: node over the budget, most of it first touches of the copy's fresh memory;
#: Othello's 650,000 nodes and Gomoku's 125,000 cost less a node).
COPY_SECONDS_PER_NODE = 0.3e-6
#: The most of a timed search's seconds that the copy of a kept subtree may take
#: (by :data:`COPY_SECONDS_PER_NODE`): a bigger one is let go for a fresh tree.
COPY_SHARE = 0.5
_MIB = 2**20
_NO_LIMIT = int(np.iinfo(np.int64).max)
_POLICIES = {"uct": UCT, "coinflip": COINFLIP}
_DEFAULT_CONFIG = SearchConfig()

#: ``report(tree, simulations)``: called between chunks, at most every progress interval.
Report = Callable[[Tree, int], None]


class FastMCTS:
    """MCTS for the bundled games (any game with a compiled :class:`~mctslab.games.Kernel`).

    - ``config``: the settings shared with the generic engine
      (:class:`mctslab.core.MCTS`); both return the same :class:`SearchResult`.
    - ``workers``: independent trees searched in separate processes and
      merged at the root (root parallelisation); the processes start with the
      first search and live until :meth:`close` (or the ``with`` block ends),
      or until a search with them fails: their trees go with them, and the
      next search starts new ones.
      An iteration budget is split among them, so a seed and a worker count
      give the same result every run.
    - ``progress_interval``: seconds between calls of a search's ``progress``.

    Budgets: ``memory_mb`` sizes a tree's arrays (MiB; a tree never takes
    more, the search stops when a new node does not fit; a node takes
    :func:`~mctslab.fast.bytes_per_node` bytes, more with transpositions,
    UCB1-Tuned and RAVE, whose AMAF tables also take a quarter of the
    budget); ``max_nodes`` stops the search at that many nodes. Without
    either the arrays reserve :data:`DEFAULT_TREE_MB` and, once full, the
    search goes on without adding nodes (stops, ``"memory"``, when
    ``max_nodes`` alone is its budget). Each worker gets an equal share of
    node and memory limits. Between searches the engine keeps one tree (with
    ``reuse_tree``). A search from a kept tree's child (after :meth:`advance`)
    first copies that subtree into a tree of its own: during the copy the
    two trees exist, not their AMAF tables, so they take up to twice
    ``memory_mb`` (Connect Four with 64 MiB, the tree filled: a peak of 97
    MiB resident after :meth:`advance`, of 52 in a fresh search); then only
    the copy. The copy's time counts in the search's (Connect Four, 1.3
    million nodes kept: 0.13 to 0.4 s), so a timed search (``seconds`` in
    its budget) copies only a subtree whose copy takes at most
    :data:`COPY_SHARE` of its seconds, at :data:`COPY_SECONDS_PER_NODE` a
    node (the subtree's nodes bounded by its root's visits, or with
    transpositions by the whole tree's nodes), and searches a fresh tree
    instead of a bigger one: a short search after a long one, as an engine
    protocol's shrinking clock asks for, is not made late by it. Searches
    without ``seconds`` copy the subtree whatever its size. With workers,
    each judges its own tree by that rule (each gets the whole seconds). With
    the solver a search also ends once the root's value is proven
    (``stopped_by="proven"``). Any search ends before a node's visits pass
    what its value sum can count (``stopped_by="visits"``; see
    :attr:`~mctslab.fast._tree.Tree.headroom`), and a kept tree with less
    than half of that left is let go. The first search compiles the loop if
    numba's cache lacks it (see :func:`mctslab.fast.warm_up`).
    """

    name = "compiled"

    def __init__(
        self,
        config: SearchConfig = _DEFAULT_CONFIG,
        *,
        workers: int = 1,
        progress_interval: float = 0.1,
    ) -> None:
        self.config = check_instance(config, "config", "FastMCTS", SearchConfig, "a SearchConfig")
        self.workers = check_int(workers, "workers", "FastMCTS", low=1)
        self.progress_interval = check_float(
            progress_interval, "progress_interval", "FastMCTS", low=0.0, low_inclusive=True
        )
        self._rng = new_rng(config.seed)
        self._tuned = config.bandit == "ucb1-tuned"
        self._tree: Tree | None = None
        self._amaf: tuple[Tree, AmafTables] | None = None
        self._root = 0
        self._root_state: State | None = None
        self._pool: WorkerPool | None = None

    # -- the Engine protocol ----------------------------------------------------
    def search(
        self,
        state: State,
        budget: Budget | None = None,
        *,
        progress: Progress | None = None,
        stop: StopEvent | None = None,
    ) -> SearchResult:
        """Search from ``state`` (left untouched) and return the best move with its statistics."""
        budget = search_budget(budget, progress, stop, "FastMCTS.search")
        check_searchable(state)
        share = split_budget(budget, self.workers)[0]
        assert share is not None  # the first worker always gets iterations
        tree_capacity(share, self._node_bytes(state), self._root_moves(state), trees=self.workers)
        if self.workers > 1:
            check_importable(state)
            return self._workers().search(state, budget, progress=progress, stop=stop)
        warm_up()
        start = perf_counter()
        report: Report | None = None
        if progress is not None:

            def report(tree: Tree, simulations: int) -> None:
                stats = RootStats.of_tree(
                    tree, simulations, "running", self.config.final_move, lines=1
                )
                progress(self._result(state, stats, perf_counter() - start))

        stats = self._search_own_tree(
            state, budget, lambda: stop is not None and stop.is_set(), report, lines=1
        )
        return self._result(state, stats, perf_counter() - start)

    def tree_view(
        self,
        state: State,
        *,
        max_depth: int = 3,
        top_k: int = 5,
        max_nodes: int = MAX_VIEW_NODES,
    ) -> TreeView:
        """A snapshot of the kept tree searched from ``state``, for drawing (see
        :func:`build_tree_view`): each position once, however many move orders reach it.
        """
        tree, root_state = self._tree, self._root_state
        if self.workers > 1:
            raise ValueError("The tree lives in the worker processes; draw it with workers=1.")
        if tree is None or root_state is None or state != root_state:
            raise no_tree(self.config)

        def stats(slot: int) -> tuple[int, int, float]:
            node = tree.node_of(slot)
            return int(tree.move[slot]), int(tree.visits[node]), tree.mean(node)

        def children(slot: int) -> range:
            return tree.children(tree.node_of(slot))

        return build_tree_view(
            self._root,
            root_state,
            children,
            stats,
            max_depth=max_depth,
            top_k=top_k,
            max_nodes=max_nodes,
            position=tree.node_of,
        )

    def advance(self, move: int) -> None:
        """Re-root the kept tree at ``move`` (keeping its subtree); no-op without a kept tree."""
        pool = self._live_pool()
        if pool is not None:
            pool.advance(move)
            return
        tree, root_state = self._tree, self._root_state
        if tree is None or root_state is None:
            return
        child = tree.child(self._root, move)
        if child is None:
            if move not in root_state.legal_moves():
                raise not_legal_at_root(move, root_state)
            self._tree = self._amaf = None
        else:
            self._root = child
        root_state.apply(move)

    def reset(self) -> None:
        """Forget the kept tree (and each worker's); the random stream goes on."""
        self._drop_tree()
        pool = self._live_pool()
        if pool is not None:
            pool.reset()

    def _drop_tree(self) -> None:
        self._tree = self._root_state = None
        self._amaf = None
        self._root = 0

    # -- resources --------------------------------------------------------------
    def prepare(self, state: State | None = None) -> None:
        """Compile the search loop and start the worker processes now, if not done yet.

        A search does both when it needs them; a program with a clock (an
        engine protocol, a timed game) calls this first, so that its first
        move's time is all searching (starting two workers takes seconds).
        With a ``state``, its game is loaded too, in every process, by a
        search of one simulation each that is then forgotten, its random
        numbers too (a seeded search after it is the one without it): a
        worker otherwise imports the game and loads its compiled rules
        within its first move (about 0.1 to 0.2 s for Gomoku, outside that
        move's clock).
        """
        if self.workers > 1:
            if state is not None:  # refused here, as a search would, before any worker starts
                check_searchable(state)
                check_importable(state)
            self._workers().prepare(state)
            return
        warm_up()
        if state is not None:
            stream = self._rng.copy()
            self.search(state, Budget(iterations=1))
            self.reset()
            self._rng[:] = stream

    def _workers(self) -> WorkerPool:
        """The worker pool, started (after compiling, so that workers load the code) if need be."""
        pool = self._live_pool()
        if pool is None:
            warm_up()
            pool = self._pool = WorkerPool(self.config, self.workers, self.progress_interval)
        return pool

    def _live_pool(self) -> WorkerPool | None:
        """The worker pool while its processes run, else None.

        Any failure of a search with workers closes the pool, and the trees go
        with the processes: the engine then holds no tree, as without a pool,
        and its next search starts a new pool.
        """
        return self._pool if self._pool is not None and self._pool.alive else None

    def close(self) -> None:
        """Let the tree go and stop the worker processes, if any (a later search starts anew)."""
        self._drop_tree()  # the workers' trees go with them
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- one tree -----------------------------------------------------------------
    def _search_own_tree(
        self,
        state: State,
        budget: Budget,
        stopped: Callable[[], bool],
        report: Report | None,
        *,
        lines: int,
    ) -> RootStats:
        """Search this engine's own tree (a worker's, with workers) from ``state``.

        Runs until a limit of ``budget`` (effective: some limit set) is reached
        or ``stopped()`` says so; Ctrl-C (in the main thread) stops it too, at the
        end of the chunk under way.
        ``report`` is called every progress interval. The statistics carry the
        lines below the ``lines`` best root moves.
        """
        warm_up()
        start = perf_counter()
        config = self.config
        rave = self._uses_rave(state)
        node_bytes = self._node_bytes(state)
        root_moves = self._root_moves(state)
        capacity, when_full, full_reason = tree_capacity(budget, node_bytes, root_moves)
        spec = state.spec
        tables = 0
        if rave:
            size = table_bytes(spec.num_players, spec.num_actions)
            capacity, tables = split(capacity, node_bytes, size, 1 + root_moves)
        tree = self._tree_for(state, capacity, budget.seconds)
        amaf = self._amaf_for(tree, tables, spec.num_players * spec.num_actions, rave=rave)
        # The tree searched is the one kept (a kept tree it was copied from is let
        # go); it is whole between chunks, so an exception leaves it usable.
        self._tree, self._root = tree, 0
        self._root_state = state.clone() if config.reuse_tree else None
        expand_moves, rollout = search_functions(state.kernel, config)
        winning_move = state.kernel.winning_move or no_winning_move
        solver = self._solves(state)
        words = state.position_words().astype(np.int64)
        root = state.data.copy()
        node_limit = _NO_LIMIT if budget.max_nodes is None else budget.max_nodes
        iterations = _NO_LIMIT if budget.iterations is None else budget.iterations
        headroom = tree.headroom  # iterations before a count could overflow
        deadline = math.inf if budget.seconds is None else start + budget.seconds
        scale = return_scale(spec)
        fpu = math.inf if config.fpu is None else config.fpu
        first_visits = int(tree.visits[0])
        next_report = start + self.progress_interval
        chunk = FIRST_CHUNK
        stopped_by = None
        # A budget of tree size alone also ends once the tree stops growing (Budget).
        settled_after = SETTLED_AFTER if budget.sized_only else _NO_LIMIT
        idle = 0  # simulations since the tree last grew (counted by chunks)
        # Ctrl-C is heard between chunks: raised as KeyboardInterrupt it could land in
        # numba's dispatcher as it converts the loop's function arguments (a TypeError).
        interrupted = threading.Event()
        with ctrl_c_sets(interrupted):
            while stopped_by is None:
                nodes_before = tree.nodes
                simulations = int(tree.visits[0]) - first_visits
                chunk = min(chunk, iterations - simulations, headroom - simulations)
                began = perf_counter()
                search_loop(
                    expand_moves,
                    state.kernel.apply,
                    state.kernel.is_terminal,
                    state.kernel.returns,
                    state.kernel.current_player,
                    rollout,
                    winning_move,
                    *tree.arrays,
                    tree.table,
                    tree.counters,
                    root,
                    words,
                    self._rng,
                    chunk,
                    node_limit,
                    when_full,
                    _POLICIES[config.tree_policy],
                    config.c,
                    fpu,
                    spec.min_return,
                    scale,
                    tree.units,
                    tree.exact,
                    spec.num_players,
                    spec.num_actions,
                    spec.max_game_length,
                    solver,
                    tree.draws_apart,
                    self._tuned,
                    config.transpositions,
                    rave,
                    config.rave_ref,
                    config.rave_bias,
                    *amaf.arrays,
                )
                now = perf_counter()
                if tree.counters[REASON] == OFF_GRID:
                    self.reset()  # the iteration stopped half done
                    raise ValueError(
                        f"The returns of {spec.name!r} must lie in [min_return, max_return] = "
                        f"[{spec.min_return!r}, {spec.max_return!r}] in whole steps of 1/"
                        f"{spec.return_steps} of that range (its spec's return_steps); the "
                        "search met one that does not."
                    )
                if tree.counters[REASON] == TURNS:
                    self.reset()  # the iteration stopped half done
                    options = [
                        name
                        for name, on in (
                            ("solver", solver),
                            ("transpositions", config.transpositions),
                            ("rave", rave),
                        )
                        if on
                    ]
                    raise ValueError(
                        f"In {spec.name!r} the turn did not pass to the next player (a player "
                        "moved twice in a row, or a player was skipped) in a position the "
                        "search reached, but "
                        f"{', '.join(options)} need the players to take turns in order: give "
                        "the player skipped a forced pass (a move that changes only the "
                        "player to move, counted in max_game_length), or search with "
                        f"{', '.join(f'{name}=False' for name in options)}."
                    )
                done = int(tree.visits[0]) - first_visits - simulations
                simulations += done
                grow = tree.counters[REASON] == GROW
                if grow:
                    tree.grow_table()
                idle = 0 if tree.nodes > nodes_before else idle + done
                stopped_by = _stop_reason(
                    tree, simulations, iterations, headroom, now, deadline, full_reason
                )
                if stopped_by is None and idle >= settled_after:
                    stopped_by = "settled"
                if stopped_by is None and (stopped() or interrupted.is_set()):
                    stopped_by = "stopped"
                if stopped_by is None and report is not None and now >= next_report:
                    report(tree, simulations)
                    next_report = perf_counter() + self.progress_interval
                if not grow:
                    # The next chunk: about CHUNK_SECONDS at this speed, ending by the deadline.
                    speed = done / max(now - began, 1e-9)
                    chunk = max(1, int(speed * min(CHUNK_SECONDS, deadline - perf_counter())))
        if not config.reuse_tree:
            self.reset()
        simulations = int(tree.visits[0]) - first_visits
        return RootStats.of_tree(tree, simulations, stopped_by, config.final_move, lines)

    def _tree_for(self, state: State, capacity: int, seconds: float | None) -> Tree:
        """The kept subtree when ``state`` equals its root and it fits, else a fresh tree.

        A kept tree whose counts are near their limit (less than half of
        :attr:`Tree.max_visits` left) is let go too: it would leave the
        search too few iterations (see :attr:`Tree.headroom`). So is a
        subtree to copy that a search of ``seconds`` cannot afford: one whose
        copy could take more than :data:`COPY_SHARE` of them (see
        :func:`_copy_seconds`). Without ``seconds`` (an iteration or a size
        budget) a subtree is copied whatever its size.
        """
        if self._tree is None or self._root_state is None or state != self._root_state:
            self._tree = self._amaf = None  # freed before a new tree is allocated
            return self._new_tree(state, capacity)
        if self._root == 0 and self._tree.capacity == capacity:
            if self._tree.worth_keeping:
                return self._tree
            self._tree = self._amaf = None
            return self._new_tree(state, capacity)
        # The copy needs the kept tree, but not its AMAF pool (never copied), and
        # a new tree, if the copy does not fit, needs neither. A root with half the
        # visits a node may take leaves a copy not worth keeping: no copy then.
        kept = self._tree
        self._tree = self._amaf = None
        fresh = kept.visits[self._root] > kept.max_visits // 2
        if seconds is not None and _copy_seconds(kept, self._root) > COPY_SHARE * seconds:
            fresh = True
        copy = None if fresh else kept.subtree(self._root, capacity)
        del kept
        if copy is not None and copy.worth_keeping:
            return copy
        del copy
        return self._new_tree(state, capacity)

    def _uses_rave(self, state: State) -> bool:
        """Whether GRAVE is on for ``state``'s game: as configured, else as the game prefers."""
        if self.config.rave is None:
            return bool(state.kernel.prefers_rave)
        return self.config.rave

    def _root_moves(self, state: State) -> int:
        """How many moves the root's children block holds: all it will expand.

        Raises ValueError for a kernel that lists more moves than the spec has
        ids, or an id out of range, before the search writes past its arrays,
        and for one that lists none (the position searched is not over).
        """
        expand_moves, _ = search_functions(state.kernel, self.config)
        field = "legal_moves" if expand_moves is state.kernel.legal_moves else "candidate_moves"
        count = len(list_moves(expand_moves, state.data.copy(), state.spec, field))
        if count == 0:
            raise no_moves(state, field)
        return count

    def _solves(self, state: State) -> bool:
        """Whether the solver is on for ``state``'s game: as configured, if two-player zero-sum
        with returns of a win, a draw and a loss alone (``return_steps`` 2, or 1: no draws).

        The solver values an end of the game reached in the tree as a win (1) or a loss (0),
        and a proven position so: a score margin's returns, which playouts back up as they
        are, would be mixed with those.
        """
        spec = state.spec
        return (
            self.config.solver
            and spec.num_players == 2
            and spec.zero_sum
            and spec.return_steps <= 2
        )

    def _node_bytes(self, state: State) -> int:
        """Bytes a tree slot costs with this engine's options on ``state``'s game."""
        return bytes_per_node(
            tuned=self._tuned,
            hashed=self.config.transpositions,
            solver=self._solves(state),
            rave=self._uses_rave(state),
        )

    def _amaf_for(self, tree: Tree, tables: int, width: int, *, rave: bool) -> AmafTables:
        """The AMAF pool of ``tree``: the one kept with it, else a new one (empty without RAVE)."""
        if not rave:
            self._amaf = None
            return AmafTables(0, 0, 0)
        if self._amaf is None or self._amaf[0] is not tree:
            self._amaf = (tree, AmafTables(tree.capacity, tables, width))
        return self._amaf[1]

    def _new_tree(self, state: State, capacity: int) -> Tree:
        return Tree(
            capacity,
            return_steps=state.spec.return_steps,
            tuned=self._tuned,
            hashed=self.config.transpositions,
            solver=self._solves(state),
            draws_apart=self.config.prove_draws,
        )

    def _result(self, state: State, stats: RootStats, seconds: float) -> SearchResult:
        return build_result(state, stats, self.config.final_move, seconds, self.name)


def _copy_seconds(tree: Tree, root: int) -> float:
    """The most seconds copying the subtree under ``root`` could take (O(1), no walk).

    Without transpositions the subtree has at most one node per visit of its
    root and the root itself (an iteration adds at most one node, below the
    nodes it passed through). With them it is a sub-DAG whose nodes may have
    been reached through paths that pass its root by (measured on Connect
    Four: twice as many nodes as its root's visits), so the whole tree bounds
    it.
    """
    nodes = tree.nodes if tree.hashed else min(tree.nodes, int(tree.visits[root]) + 1)
    return nodes * COPY_SECONDS_PER_NODE


def check_searchable(state: State) -> None:
    """Raise ValueError for a position the compiled engine cannot search (as the generic one).

    A game played to its end from ``state`` checks the kernel's rules there, at every
    search: a kernel may break them only in some positions (a millisecond on Gomoku 19x19).
    """
    check_instance(state, "state", "FastMCTS.search", State, "a State with a compiled kernel")
    check_kernel(state.kernel)
    if state.is_terminal():
        raise ValueError(f"Cannot search a finished game (is_terminal() is true).\n{state}")
    spec = state.spec
    return_scale(spec)
    if spec.num_actions > MAX_ACTIONS:
        raise ValueError(
            f"The compiled engine stores moves as int16; {spec.name!r} has "
            f"{spec.num_actions} move ids (at most {MAX_ACTIONS})."
        )
    # One game of random legal moves played to its end. The player to move is checked in
    # each position, where the loop indexes its arrays of one entry per player with it
    # unchecked (a 1-based count shows at the first move). The returns at the end are
    # checked as the generic engine checks each (the loop checks only that they are on
    # the spec's steps): a game declared zero-sum whose returns are each player's win
    # rate is found here, not in wrong proofs. A game that outlasts max_game_length is
    # refused too: the loop's path has room for that many moves below the root, and a
    # deeper tree wrote past it (the process aborted), or a game that never ends hung here.
    end = state.clone()
    choose = random.Random(0).choice
    length = 0
    while not end.is_terminal():
        checked_current_player(end)
        moves = end.legal_moves()
        if not moves:
            raise no_moves(end, "legal_moves")
        if length == spec.max_game_length:
            raise ValueError(
                f"{spec.name}: a random game from the position searched goes on past "
                f"spec.max_game_length ({length} moves): it must bound the moves of every "
                f"game, or the game does not end.\n{end}"
            )
        end.apply(choose(moves))
        length += 1
    check_returns(end.returns(), end)


def no_moves(state: State, field: str) -> ValueError:
    """The error of a position that is not over, where the kernel's ``field``
    (``legal_moves`` or ``candidate_moves``) lists no move."""
    return ValueError(
        f"{state.spec.name}: Kernel.{field} lists no move, but the game goes on "
        f"(is_terminal() is false).\n{state}"
    )


def check_importable(state: State) -> None:
    """Raise ValueError when worker processes could not import ``state``'s class: one defined
    in a ``__main__`` that is no file (``python -c``, standard input, a REPL, a notebook)."""
    kind = type(state)
    script = getattr(sys.modules.get("__main__"), "__file__", None)  # "<stdin>" from a pipe
    if kind.__module__ == "__main__" and not (script and os.path.isfile(script)):
        raise ValueError(
            f"Worker processes start afresh and import the game's class, but {kind.__name__} "
            "was defined in an interactive session (or python -c): define it in a file, or "
            "search with workers=1."
        )


def search_functions(kernel: Kernel, config: SearchConfig) -> tuple[Any, Any]:
    """The kernel functions that expand nodes and play out, by the config's options.

    Candidate moves where ``candidates`` is on and the game has them; the
    playout asked for (the game's preferred one when the config leaves it
    open) where the game has it, else the next one down in :data:`PLAYOUTS`.
    """
    use_candidates = config.candidates and kernel.candidate_moves is not None
    expand_moves = kernel.candidate_moves if use_candidates else kernel.legal_moves
    playouts = {"random": kernel.rollout, **(kernel.playouts or {})}
    wanted = PLAYOUTS.index(config.playout or kernel.preferred_playout)
    name = next(name for name in reversed(PLAYOUTS[: wanted + 1]) if name in playouts)
    return expand_moves, playouts[name]


def tree_capacity(
    budget: Budget, node_bytes: int, root_moves: int, *, trees: int = 1
) -> tuple[int, int, str | None]:
    """Slots of ``node_bytes`` each, what to do when they run out, and the stop reason then.

    ``budget`` is one tree's share of a budget split among ``trees`` (workers'
    trees: see :func:`~mctslab.fast._pool.split_budget`); errors name the
    whole. The stop reason is None when a full tree goes on searching.
    Raises ValueError when the whole memory budget is more than the machine's
    memory, or a tree's share cannot hold the root and a child for each of
    its ``root_moves`` moves (the root's block holds them all).
    """
    if budget.memory_mb is None:
        capacity = int(DEFAULT_TREE_MB * _MIB) // node_bytes
        if budget.sized_only:  # max_nodes alone, more than fit: a full tree ends it too
            return capacity, STOP_WHEN_FULL, "memory"
        return capacity, SIMULATE_WHEN_FULL, None
    whole = budget.memory_mb * trees
    asked = f"The 'memory_mb' budget of {whole:g} MiB"
    if trees > 1:
        asked += f" ({budget.memory_mb:g} MiB for each of the {trees} workers' trees)"
    if whole > physical_mib():
        raise ValueError(
            f"{asked} is more than this machine's memory ({physical_mib():,.0f} MiB): the "
            "compiled engine reserves its whole tree before it searches."
        )
    capacity = int(budget.memory_mb * _MIB) // node_bytes
    if capacity < 1 + root_moves:
        raise ValueError(
            f"{asked} cannot hold the root and its children: they need "
            f"{(1 + root_moves) * node_bytes} bytes{' a tree' if trees > 1 else ''}."
        )
    return capacity, STOP_WHEN_FULL, "memory"


def _stop_reason(
    tree: Tree,
    simulations: int,
    iterations: int,
    headroom: int,
    now: float,
    deadline: float,
    full_reason: str | None,
) -> str | None:
    """The budget limit a chunk ended on, by its SearchResult.stopped_by name, or None.

    "visits": the search took the tree's :attr:`Tree.headroom`, the most
    iterations it can take before a count could overflow.
    """
    reason = int(tree.counters[REASON])
    if reason == NODE_LIMIT:
        return "nodes"
    if reason == FULL:
        return full_reason
    if reason == PROVEN:
        return "proven"
    if simulations >= iterations:
        return "iterations"
    if simulations >= headroom:
        return "visits"
    if now >= deadline:
        return "seconds"
    return None
