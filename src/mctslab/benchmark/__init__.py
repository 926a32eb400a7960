"""The speed benchmark behind ``mctslab bench`` and ``benchmarks/RESULTS.md``.

``run(Options(games=("gomoku15",), repeats=5))`` measures, per game and from a
start and a fixed mid-game position: simulations per second of the compiled
engine, the generic engine, OpenSpiel's C++ and Python MCTS bots (when the
``compare`` extra is installed) and the naive Gomoku baseline; raw playouts
per second with no tree; tree bytes per node; a per-step profile of the
compiled loop; 1 vs 2 workers; peak memory under a memory budget; and the
cold and warm start of ``mctslab analyze``. :func:`goals` checks the result
against the targets of the issue that asked for the compiled engine.
"""

from mctslab.benchmark._games import GAMES, BenchGame, Counts, Position
from mctslab.benchmark._report import (
    HAND_WRITTEN,
    Goal,
    goals,
    markdown,
    rich_tables,
    with_hand_written,
)
from mctslab.benchmark._run import PARTS, Options, run

__all__ = [
    "GAMES",
    "HAND_WRITTEN",
    "PARTS",
    "BenchGame",
    "Counts",
    "Goal",
    "Options",
    "Position",
    "goals",
    "markdown",
    "rich_tables",
    "run",
    "with_hand_written",
]
