"""What a search returns, the same for every engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ProvenOutcome = Literal["win", "loss", "draw"]
StopReason = str  # "iterations", "seconds", "nodes", "memory", "stopped", "proven", "terminal",
# "visits" (the compiled engine's counts reached their limit), "settled" (a budget of tree size
# alone, see Budget); "running" in the interim results handed to a progress callback

#: A proven root's value (the exact value of its best move) as an outcome.
_ROOT_OUTCOMES: dict[float, ProvenOutcome] = {1.0: "win", 0.5: "draw", 0.0: "loss"}


@dataclass(frozen=True)
class MoveStats:
    """Statistics of one root move; ``value`` is the mean reward in [0, 1] for the mover.

    ``proven`` is the move's game-theoretic outcome for the mover when the
    solver has proven it ("win", "loss" or "draw"), else None; ``value`` is
    then the exact one (1, 0 or 1/2).
    """

    move: int
    notation: str
    visits: int
    value: float
    proven: ProvenOutcome | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.notation,
            "id": self.move,
            "visits": self.visits,
            "value": self.value,
            "proven": self.proven,
        }


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    ``moves`` holds every expanded root move, most visited first (proven wins
    before and proven losses after the rest; with ``prove_draws``, where a
    move is a proven draw, the moves worth no more than a draw after it);
    ``value`` is the estimate, in [0, 1], for the player to move at the root
    (their win rate in two-player games, the expected reward in single-player
    ones) and ``stopped_by`` why the search ended ("proven": the solver knows
    the root's value; "visits":
    the compiled engine's counts reached what they can hold; "settled": a
    budget of tree size alone, and the tree stopped growing, see
    :class:`~mctslab.core.config.Budget`). ``simulations``
    counts this search's; ``nodes`` the slots the whole tree holds, a tree
    kept from earlier searches included (the compiled engine's transposition
    table and child blocks take slots beyond one a simulation), which is what
    ``Budget.max_nodes`` caps: a kept tree already at the cap leaves a search
    nothing to do.
    """

    best_move: int
    best_notation: str
    moves: tuple[MoveStats, ...]
    pv: tuple[int, ...]
    pv_notation: tuple[str, ...]
    value: float
    simulations: int
    nodes: int
    seconds: float
    stopped_by: StopReason
    engine: str

    @property
    def proven(self) -> ProvenOutcome | None:
        """The root's game-theoretic outcome for the player to move once the solver has
        proven it (``stopped_by == "proven"``), else None.

        Only the engine knows the root proven: ``moves`` holds the moves its
        search tried, and a budget may end before every move was tried, when
        each move tried may be a proven loss and a move not tried is not.
        """
        return _ROOT_OUTCOMES.get(self.value) if self.stopped_by == "proven" else None

    @property
    def sims_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "best_move": self.best_notation,
            "value": self.value,
            "proven": self.proven,
            "moves": [m.to_dict() for m in self.moves],
            "pv": list(self.pv_notation),
            "simulations": self.simulations,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "sims_per_second": self.sims_per_second,
            "stopped_by": self.stopped_by,
            "engine": self.engine,
        }
