"""MCTS as a player, and the choice of engine."""

from __future__ import annotations

import threading

from mctslab._validation import check_choice, check_int
from mctslab.core.config import Budget, SearchConfig
from mctslab.core.engine import Engine, Progress
from mctslab.core.result import SearchResult
from mctslab.games._base import State

#: Engine names accepted everywhere (``--engine``): the compiled one is the default.
ENGINES = ("compiled", "python")


def new_engine(
    engine: str = "compiled", config: SearchConfig | None = None, *, workers: int = 1
) -> Engine:
    """A search engine by name: ``"compiled"`` (numba) or ``"python"`` (the generic reference)."""
    check_choice(engine, "engine", "new_engine", ENGINES)
    check_int(workers, "workers", "new_engine", low=1)
    config = config or SearchConfig()
    if engine == "python":
        if workers != 1:
            raise ValueError("The python engine searches on one thread; use --engine compiled.")
        from mctslab.core.search import MCTS

        return MCTS(config)
    from mctslab.fast import FastMCTS

    return FastMCTS(config, workers=workers)


class MCTSPlayer:
    """Searches each position with ``budget`` and plays the engine's choice.

    The engine keeps its tree between moves (tree reuse) because every move
    played is passed to ``observe``.
    """

    def __init__(
        self,
        engine: str = "compiled",
        config: SearchConfig | None = None,
        budget: Budget | None = None,
        *,
        workers: int = 1,
    ) -> None:
        self.engine = new_engine(engine, config, workers=workers)
        self.budget = budget or Budget()
        self.name = f"mcts-{self.engine.name}"
        self.last_result: SearchResult | None = None

    def analyse(
        self,
        state: State,
        *,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Search ``state`` and keep the result as ``last_result``."""
        self.last_result = self.engine.search(state, self.budget, progress=progress, stop=stop)
        return self.last_result

    def start(self, state: State) -> None:
        """A new game: forget the old tree."""
        self.engine.reset()

    def choose(self, state: State) -> int:
        return self.analyse(state).best_move

    def observe(self, move: int) -> None:
        self.engine.advance(move)

    def reset(self) -> None:
        """Forget the tree (after an undo or a new game)."""
        self.engine.reset()

    def close(self) -> None:
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()
