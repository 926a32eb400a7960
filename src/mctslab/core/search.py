"""The generic engine: MCTS over any object that follows the game protocol.

It is the readable reference implementation (the compiled engine in
:mod:`mctslab.fast` must agree with it) and the engine for games written in
plain Python. The four steps live in :mod:`mctslab.core.policies`; this module
runs them under a budget and reports the result.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from numbers import Integral
from time import perf_counter

from mctslab._validation import check_callable, check_float, check_instance
from mctslab.core.config import SETTLED_AFTER, Budget, SearchConfig
from mctslab.core.engine import Progress, StopEvent, search_budget
from mctslab.core.node import (
    BYTES_PER_MOVE,
    BYTES_PER_NODE,
    Node,
    mean_then_visits,
    tree_size,
    visits_then_mean,
)
from mctslab.core.policies import (
    TREE_POLICIES,
    Backpropagation,
    Simulation,
    TreePolicy,
    backpropagate,
    default_simulation,
)
from mctslab.core.protocol import GameSpecLike, GameState, equal_only_to_itself
from mctslab.core.result import MoveStats, SearchResult
from mctslab.core.tree_view import MAX_VIEW_NODES, TreeView, build_tree_view, no_tree
from mctslab.games._base import (
    IllegalMoveError,
    breaks_zero_sum,
    check_move_sequence,
    check_return_range,
    checked_current_player,
    legal_summary,
)

_DEFAULT_CONFIG = SearchConfig()


def return_scale(spec: GameSpecLike) -> float:
    """``1 / (max_return - min_return)``: what scales a return to [0, 1] (both engines).

    Raises ValueError unless the range is finite and not empty.
    """
    check_return_range(spec)
    return 1.0 / (spec.max_return - spec.min_return)


def check_search_protocol(state: GameState) -> None:
    """Raise ValueError if ``state`` visibly breaks the game protocol (checked once a search).

    What a game written in plain Python most often gets wrong surfaces here by
    name rather than as an AttributeError or IndexError deep in the search.
    """
    spec = getattr(state, "spec", None)
    if spec is None:
        raise ValueError(
            "The 'state' parameter of MCTS.search must be a game state with a spec (see "
            f"mctslab.core.protocol.GameState), e.g. mctslab.make('tictactoe'). Got {state!r} "
            "instead."
        )
    missing = [
        key for key in ("name", "num_players", "min_return", "max_return") if not hasattr(spec, key)
    ]
    if missing:
        raise ValueError(
            f"A state's spec must have {', '.join(missing)} (see mctslab.core.protocol."
            f"GameSpecLike; a mctslab.GameSpec has them); got {spec!r}."
        )
    players = spec.num_players
    if isinstance(players, bool) or not isinstance(players, Integral) or players < 1:
        raise ValueError(
            f"The spec of {spec.name!r} must have an int num_players >= 1; got {players!r}."
        )
    check_return_range(spec)
    if state.is_terminal():
        return
    checked_current_player(state)
    if state.clone() is state:
        raise ValueError(
            f"The clone() of {spec.name!r} returned the state itself; it must return a new, "
            "independent state, which the search plays moves on."
        )
    check_move_sequence(state.legal_moves(), spec)
    # Only a search's result names moves, so a game without move_to_str failed once the
    # whole budget was spent.
    move_to_str = getattr(state, "move_to_str", None)
    if not callable(move_to_str):
        raise ValueError(
            f"The move_to_str of {spec.name!r} must be a method move_to_str(move) -> str, which "
            f"names the moves of a search's result; got {move_to_str!r}."
        )


def check_returns(values: Sequence[float], state: GameState) -> Sequence[float]:
    """``values`` if they are one return per player within the spec's range, else ValueError.

    A zero-sum game's returns must also sum to 0.
    """
    spec = state.spec
    low, high = spec.min_return, spec.max_return
    try:  # NaN fails the comparisons; None or a number has no len()
        fine = len(values) == spec.num_players and all(low <= v <= high for v in values)
    except TypeError:
        fine = False
    if not fine:
        raise ValueError(
            f"A simulation of {spec.name!r} ended with returns {values!r}: returns(), and a "
            f"simulation passed to MCTS, must give one number per player ({spec.num_players}), "
            f"each in [min_return, max_return] = [{low!r}, {high!r}].\n{state}"
        )
    if breaks_zero_sum(values, spec):
        raise ValueError(
            f"A simulation of {spec.name!r} ended with returns {values!r}, which do not sum to 0 "
            "though its spec says zero_sum: each must be the return of the player of its index, "
            f"on the game's scale [{low!r}, {high!r}].\n{state}"
        )
    return values


def not_legal_at_root(move: int, state: GameState) -> IllegalMoveError:
    """The error of an engine told to advance its tree by a move its root does not allow."""
    return IllegalMoveError(
        f"Move {move!r} is not legal in the engine's root position; legal moves: "
        f"{legal_summary(state)}.\n{state}"
    )


def _unexpanded_root(root_state: GameState) -> ValueError:
    """The error of a root the tree policy left without a child: whose fault it is."""
    if root_state.legal_moves():
        return ValueError(
            "The tree policy returned without expanding the root, which has legal moves: a "
            "tree policy must expand a node (see mctslab.core.expand) and return True, or "
            f"return False only on reaching a terminal position.\n{root_state}"
        )
    return ValueError(f"The position is not terminal but has no legal moves.\n{root_state}")


class _Limits:
    """The budget of one search, turned into thresholds checked between iterations."""

    __slots__ = ("deadline", "iterations", "memory", "nodes", "settled_after", "stop")

    def __init__(self, budget: Budget, start: float, stop: StopEvent | None) -> None:
        self.iterations = math.inf if budget.iterations is None else budget.iterations
        self.deadline = math.inf if budget.seconds is None else start + budget.seconds
        self.nodes = math.inf if budget.max_nodes is None else budget.max_nodes
        self.memory = math.inf if budget.memory_mb is None else budget.memory_mb * 2**20
        self.settled_after = SETTLED_AFTER if budget.sized_only else math.inf
        self.stop = stop

    def reached(self, simulations: int, nodes: int, moves: int, idle: int) -> str | None:
        """The first limit reached, by its SearchResult.stopped_by name, or None.

        ``moves``: the moves the tree's nodes listed as untried (see
        :func:`tree_size`); ``idle``: the simulations since the last one that
        added a node.
        """
        if simulations >= self.iterations:
            return "iterations"
        if nodes >= self.nodes:
            return "nodes"
        if nodes * BYTES_PER_NODE + moves * BYTES_PER_MOVE >= self.memory:
            return "memory"
        if idle >= self.settled_after:
            return "settled"
        if self.deadline != math.inf and perf_counter() >= self.deadline:
            return "seconds"
        if self.stop is not None and self.stop.is_set():
            return "stopped"
        return None


class MCTS:
    """Monte Carlo Tree Search in pure Python, for any :class:`GameState`.

    - ``config``: the settings shared with the compiled engine.
    - ``tree_policy``: selection and expansion,
      ``policy(root, state, rng, c, path) -> expanded`` (see :data:`TreePolicy`
      and :func:`select_uct`); by default the one ``config.tree_policy`` names.
      A callable given here replaces it.
    - ``simulation``: the default policy, ``simulate(state, rng) -> returns``;
      by default a uniform random playout (see :func:`default_simulation`).
    - ``backpropagation``: ``backpropagate(root, path, returns, low, scale)``,
      which adds a simulation's returns to the nodes it went through (see
      :data:`Backpropagation`); by default :func:`backpropagate`.
    - ``progress_interval``: seconds between calls of a search's ``progress``
      callback (0 calls it after every iteration).

    It follows ``c``, ``tree_policy``, ``final_move``, ``seed`` and
    ``reuse_tree`` of the config: the playing-strength options need game
    knowledge that only the bundled games' compiled kernels offer, so this
    engine is always plain UCT (see :meth:`SearchConfig.plain`).

    A search always runs until the root has a child, then stops at the first
    budget limit reached (``Budget(memory_mb=m)`` allows ``m`` MiB, each node
    charged :data:`BYTES_PER_NODE` and each move of its untried-move list
    :data:`BYTES_PER_MOVE`). With ``config.reuse_tree`` the tree is
    kept: :meth:`advance` re-roots it, and a search of a position equal to
    the kept root continues it (the result's ``simulations`` counts this
    search only, its ``nodes`` the whole tree; a kept tree already at a
    smaller budget's ``memory_mb`` or ``max_nodes`` gets no simulation, and
    the result is the kept tree's, stopped by that limit). :meth:`reset` forgets the
    tree; the random stream goes on (a new engine with the same seed
    restarts it).
    """

    name = "python"

    def __init__(
        self,
        config: SearchConfig = _DEFAULT_CONFIG,
        *,
        tree_policy: TreePolicy | None = None,
        simulation: Simulation = default_simulation,
        backpropagation: Backpropagation = backpropagate,
        progress_interval: float = 0.1,
    ) -> None:
        self.config = check_instance(config, "config", "MCTS", SearchConfig, "a SearchConfig")
        self.tree_policy: TreePolicy = (
            TREE_POLICIES[config.tree_policy]
            if tree_policy is None
            else check_callable(
                tree_policy,
                "tree_policy",
                "MCTS",
                "None or a callable policy(root, state, rng, c, path) -> expanded",
            )
        )
        self.simulation = check_callable(
            simulation, "simulation", "MCTS", "a callable simulate(state, rng) -> returns"
        )
        self.backpropagation = check_callable(
            backpropagation,
            "backpropagation",
            "MCTS",
            "a callable backpropagate(root, path, returns, low, scale)",
        )
        self.progress_interval = check_float(
            progress_interval, "progress_interval", "MCTS", low=0.0, low_inclusive=True
        )
        self._rng = random.Random(config.seed)
        self._root: Node | None = None
        self._root_state: GameState | None = None
        # The state object the kept tree was searched from, until the tree is advanced:
        # tree_view names the position by it when the game defines no __eq__.
        self._searched: GameState | None = None
        self._nodes = self._moves = 0

    @property
    def tree(self) -> Node | None:
        """The root of the kept tree (for inspection and drawing), or None."""
        return self._root

    def tree_view(
        self,
        state: GameState,
        *,
        max_depth: int = 3,
        top_k: int = 5,
        max_nodes: int = MAX_VIEW_NODES,
    ) -> TreeView:
        """A snapshot of the kept tree searched from ``state``, for drawing (see
        :func:`build_tree_view`).

        ``state`` is one equal to the position searched (``==``), or, for a
        game whose class defines no ``__eq__``, the state object last searched
        (until :meth:`advance`; a move played on it since goes unseen).
        """
        if self._root is None or self._root_state is None:
            raise no_tree(self.config)
        # A class with its own __eq__ is asked, so that the very object searched, moved on
        # since, is refused; one without can only be the object searched.
        if equal_only_to_itself(state):
            searched = state is self._searched
        else:
            searched = state == self._root_state
        if not searched:
            raise no_tree(self.config, state)
        return build_tree_view(
            self._root,
            self._root_state,
            lambda node: node.children,
            lambda node: (node.move, node.visits, node.mean),
            max_depth=max_depth,
            top_k=top_k,
            max_nodes=max_nodes,
        )

    def search(
        self,
        state: GameState,
        budget: Budget | None = None,
        *,
        progress: Progress | None = None,
        stop: StopEvent | None = None,
    ) -> SearchResult:
        """Search from ``state`` (left untouched) and return the best move with its statistics."""
        budget = search_budget(budget, progress, stop, "MCTS.search")
        check_search_protocol(state)
        if state.is_terminal():
            raise ValueError(f"Cannot search a finished game (is_terminal() is true).\n{state}")
        spec = state.spec
        low = spec.min_return
        scale = return_scale(spec)

        start = perf_counter()
        root, root_state, nodes, moves = self._root_for(state)
        limits = _Limits(budget, start, stop)
        select = self.tree_policy
        simulate = self.simulation
        back_up = self.backpropagation
        rng = self._rng
        c = self.config.c
        path: list[Node] = []
        next_progress = start + self.progress_interval
        simulations = idle = 0
        stopped_by: str | None = None
        interrupted = False
        try:
            while not (
                root.children and (stopped_by := limits.reached(simulations, nodes, moves, idle))
            ):
                leaf_state = root_state.clone()
                path.clear()
                grew = select(root, leaf_state, rng, c, path)
                if grew:
                    if not path:  # else backpropagation misses the new node, never visited
                        raise ValueError(
                            "The tree policy expanded a node but appended nothing to path: it "
                            "must append every node it enters, the new one included."
                        )
                    nodes += 1
                    parent = path[-2] if len(path) > 1 else root
                    if len(parent.children) == 1 and parent.untried is not None:
                        # Its moves were listed this iteration, to expand its first child.
                        moves += len(parent.untried) + 1
                elif not root.children:
                    raise _unexpanded_root(root_state)
                returns = check_returns(simulate(leaf_state, rng), leaf_state)
                back_up(root, path, returns, low, scale)
                simulations += 1
                idle = 0 if grew else idle + 1
                if progress is not None and perf_counter() >= next_progress:
                    progress(
                        self._result(
                            root, root_state, simulations, nodes, perf_counter() - start, "running"
                        )
                    )
                    next_progress = perf_counter() + self.progress_interval
        except KeyboardInterrupt:
            if not any(child.visits for child in root.children):
                raise
            stopped_by, interrupted = "stopped", True

        assert stopped_by is not None  # the loop only ends once a reason is set
        result = self._result(
            root, root_state, simulations, nodes, perf_counter() - start, stopped_by
        )
        # An interrupt may land mid-iteration and leave the tree half updated: drop it.
        if self.config.reuse_tree and not interrupted:
            self._root, self._root_state, self._nodes, self._moves = root, root_state, nodes, moves
            self._searched = state
        else:
            self.reset()
        return result

    def advance(self, move: int) -> None:
        """Re-root the kept tree at ``move`` (keeping its subtree); no-op without a kept tree."""
        root, root_state = self._root, self._root_state
        if root is None or root_state is None:
            return
        child = root.child(move)
        if child is None:
            if move not in root_state.legal_moves():
                raise not_legal_at_root(move, root_state)
            child = Node(move, root_state.current_player)
        root_state.apply(move)
        self._root = child
        self._nodes, self._moves = tree_size(child)
        self._searched = None  # whether the caller's state made the move too is unknown

    def reset(self) -> None:
        """Forget the kept tree."""
        self._root = self._root_state = self._searched = None
        self._nodes = self._moves = 0

    def _root_for(self, state: GameState) -> tuple[Node, GameState, int, int]:
        """The kept tree when ``state`` equals its root position, else a fresh one.

        With the tree: its root, its position, its nodes and the moves they listed.
        """
        if self._root is not None and self._root_state is not None and state == self._root_state:
            return self._root, self._root_state, self._nodes, self._moves
        return Node(), state.clone(), 1, 0

    def _result(
        self,
        root: Node,
        root_state: GameState,
        simulations: int,
        nodes: int,
        seconds: float,
        stopped_by: str,
    ) -> SearchResult:
        """Statistics of the root's visited children, most visited first."""
        ranked = sorted(
            (child for child in root.children if child.visits), key=visits_then_mean, reverse=True
        )
        best = (
            ranked[0] if self.config.final_move == "visits" else max(ranked, key=mean_then_visits)
        )
        line = [best]
        while line[-1].children:
            line.append(max(line[-1].children, key=visits_then_mean))
        pv_state = root_state.clone()
        pv_notation = []
        for node in line:
            pv_notation.append(pv_state.move_to_str(node.move))
            pv_state.apply(node.move)
        return SearchResult(
            best_move=best.move,
            best_notation=pv_notation[0],
            moves=tuple(
                MoveStats(c.move, root_state.move_to_str(c.move), c.visits, c.mean) for c in ranked
            ),
            pv=tuple(node.move for node in line),
            pv_notation=tuple(pv_notation),
            value=best.mean,
            simulations=simulations,
            nodes=nodes,
            seconds=seconds,
            stopped_by=stopped_by,
            engine=self.name,
        )
