"""Root statistics of one or several trees, and the SearchResult built from them.

Root parallel search (Chaslot, Winands & van den Herik, "Parallel Monte-Carlo
Tree Search", 2008) sums visits and value sums per root move over the
workers' independent trees; a single tree is the one-worker case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mctslab.core.config import FinalMove
from mctslab.core.result import MoveStats, ProvenOutcome, SearchResult
from mctslab.fast._loop import DRAW, LOSS, WIN
from mctslab.fast._tree import Tree, ranked
from mctslab.games._base import State

#: Root moves whose lines below a worker sends with each report: the merged
#: best move is almost always among a worker's first few (when it is not, the
#: principal variation is that move alone).
LINES_PER_WORKER = 8
_OUTCOMES: dict[int, ProvenOutcome] = {WIN: "win", LOSS: "loss", DRAW: "draw"}


@dataclass(frozen=True)
class RootStats:
    """What a search knows at the root: per move (in tried order) visits, value sums, proofs.

    ``proven`` holds the solver's codes (:data:`WIN`, :data:`LOSS`,
    :data:`DRAW`, 0 unproven) for each move's mover; ``lines`` maps some root
    moves to the principal variation below them. ``root_moves``: how many
    moves the root has (as the tree expands them; 0 when not known), so that
    trees that each proved some of them prove the root together.
    ``draws_apart``: the search's ``prove_draws`` (see :meth:`ranking`).
    """

    moves: np.ndarray
    visits: np.ndarray
    value_sums: np.ndarray
    proven: np.ndarray
    lines: dict[int, tuple[int, ...]]
    nodes: int
    simulations: int
    stopped_by: str
    root_moves: int = 0
    draws_apart: bool = False

    @classmethod
    def of_tree(
        cls,
        tree: Tree,
        simulations: int,
        stopped_by: str,
        final_move: FinalMove,
        lines: int,
    ) -> RootStats:
        """The root statistics of ``tree`` with the lines below its ``lines`` best moves
        (ranked as :meth:`ranking` says, along the lines too, by the tree's ``draws_apart``)."""
        slots = tree.children(0)
        nodes = tree.child_nodes(0)
        stats = cls(
            moves=tree.move[slots.start : slots.stop].astype(np.int64),
            visits=tree.visits[nodes].astype(np.int64),
            value_sums=tree.value_sums(nodes),
            proven=tree.proven[nodes] if tree.solver else np.zeros(len(nodes), np.int8),
            lines={},
            nodes=tree.nodes,
            simulations=simulations,
            stopped_by=stopped_by,
            root_moves=int(tree.num_moves[0]),
            draws_apart=tree.draws_apart,
        )
        for index in stats.ranking(final_move)[:lines]:
            stats.lines[int(stats.moves[index])] = tree.line(nodes[index])
        return stats

    def ranking(self, final_move: FinalMove) -> np.ndarray:
        """Indices of the moves, best first by ``final_move`` (:func:`~mctslab.fast._tree.ranked`,
        with this search's :attr:`draws_apart`)."""
        means = self.value_sums / self.visits
        return ranked(self.visits, means, self.proven, final_move, self.draws_apart)


def merge(parts: Sequence[RootStats], num_actions: int, stopped_by: str | None) -> RootStats:
    """Sum the root statistics of independent trees (moves in id order); worker order is kept.

    A move proven in any tree is proven (every tree searches the same game),
    and so is the root: the search stopped by "proven" when a tree proved it
    (its proofs give the root's exact value), or when the merged moves do (a
    proven win, or every root move proven, each maybe in another tree),
    whether ``stopped_by`` (the main process's reason) is None or "stopped"
    (the others stopped, maybe for that proof: on one thread too a proof
    outranks a stop); "running" (a progress report) is kept. Else
    ``stopped_by`` None is the reason most trees gave. The line below a move
    comes from the tree that visited the move most and sent a line for it.
    """
    visits = np.zeros(num_actions, dtype=np.int64)
    value_sums = np.zeros(num_actions, dtype=np.float64)
    proven = np.zeros(num_actions, dtype=np.int8)
    lines: dict[int, tuple[int, ...]] = {}
    line_visits: dict[int, int] = {}
    for part in parts:
        np.add.at(visits, part.moves, part.visits)
        np.add.at(value_sums, part.moves, part.value_sums)
        known = part.proven != 0
        proven[part.moves[known]] = part.proven[known]
        for move, line in part.lines.items():
            count = int(part.visits[part.moves == move][0])
            if count > line_visits.get(move, 0):
                lines[move], line_visits[move] = line, count
    moves = np.flatnonzero(visits)
    root_moves = max(part.root_moves for part in parts)
    proofs = proven[moves]
    proved_together = bool((proofs == WIN).any()) or (
        0 < root_moves == len(moves) and bool((proofs != 0).all())
    )
    reasons = Counter(part.stopped_by for part in parts)
    if stopped_by != "running" and ("proven" in reasons or proved_together):
        stopped_by = "proven"
    elif stopped_by is None:
        stopped_by = reasons.most_common(1)[0][0]
    return RootStats(
        moves=moves,
        visits=visits[moves],
        value_sums=value_sums[moves],
        proven=proven[moves],
        lines=lines,
        nodes=sum(part.nodes for part in parts),
        simulations=sum(part.simulations for part in parts),
        stopped_by=stopped_by,
        root_moves=root_moves,
        draws_apart=any(part.draws_apart for part in parts),
    )


def build_result(
    state: State,
    stats: RootStats,
    final_move: FinalMove,
    seconds: float,
    engine: str,
) -> SearchResult:
    """The SearchResult of ``stats`` for the root position ``state`` (as the generic engine's).

    A proven move's value is its exact one (win 1, draw 1/2, loss 0); the moves are
    ranked as :meth:`RootStats.ranking` says.
    """
    means = stats.value_sums / stats.visits
    means[stats.proven == WIN] = 1.0
    means[stats.proven == DRAW] = 0.5
    means[stats.proven == LOSS] = 0.0
    ranked = stats.ranking("visits")
    best = int(stats.ranking(final_move)[0])
    best_move = int(stats.moves[best])
    pv = (best_move, *stats.lines.get(best_move, ()))
    pv_state = state.clone()
    pv_notation = []
    for move in pv:
        pv_notation.append(pv_state.move_to_str(move))
        pv_state.apply(move)
    return SearchResult(
        best_move=best_move,
        best_notation=pv_notation[0],
        moves=tuple(
            MoveStats(
                int(stats.moves[i]),
                state.move_to_str(int(stats.moves[i])),
                int(stats.visits[i]),
                float(means[i]),
                _OUTCOMES.get(int(stats.proven[i])),
            )
            for i in ranked
        ),
        pv=pv,
        pv_notation=tuple(pv_notation),
        value=float(means[best]),
        simulations=stats.simulations,
        nodes=stats.nodes,
        seconds=seconds,
        stopped_by=stats.stopped_by,
        engine=engine,
    )
