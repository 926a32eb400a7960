"""MCTS as a player, and the choice of engine."""

from __future__ import annotations

from dataclasses import replace

from mctslab._validation import check_choice, check_int, invalid
from mctslab.core.config import Budget, SearchConfig
from mctslab.core.engine import Engine, Progress, StopEvent, given_budget
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
            raise ValueError(
                "The python engine searches on one thread; use the compiled engine or one worker."
            )
        from mctslab.core.search import MCTS

        return MCTS(config)
    from mctslab.fast import FastMCTS

    return FastMCTS(config, workers=workers)


class MCTSPlayer:
    """Searches each position with ``budget`` and plays the engine's choice.

    ``engine`` is a name for :func:`new_engine` (with ``config`` and
    ``workers``), or an engine instance (:class:`~mctslab.core.MCTS` with
    one's own policies, :class:`~mctslab.fast.FastMCTS`, anything with the
    :class:`~mctslab.core.engine.Engine` protocol), which plays as it is:
    ``config`` must then be None and ``workers`` 1.

    The engine keeps its tree between moves (tree reuse) because every move
    played is passed to ``observe``. In a position the solver has proven
    lost, every move loses and the solver's choice among them is arbitrary
    (each proven after a visit or two): the player then searches again
    without the solver, with decisive playouts (an opponent who sees only a
    win in one move), and plays the move that search prefers, which makes an
    opponent that has not seen the win still find it (it blocks a four
    rather than playing anywhere). That search's tree is its own, beside
    the kept one: the two take up to twice the budget's ``memory_mb``.
    """

    def __init__(
        self,
        engine: str | Engine = "compiled",
        config: SearchConfig | None = None,
        budget: Budget | None = None,
        *,
        workers: int = 1,
    ) -> None:
        if not isinstance(engine, Engine):
            if not isinstance(engine, str) or engine not in ENGINES:
                requirement = "one of " + ", ".join(map(repr, ENGINES)) + " or an Engine instance"
                raise invalid("engine", "MCTSPlayer", requirement, engine)
            self.engine = new_engine(engine, config, workers=workers)
        else:
            # An engine of one's own (say the generic MCTS with one's own policies) plays as given.
            if config is not None:
                requirement = "None when an engine instance is given (it has its own config)"
                raise invalid("config", "MCTSPlayer", requirement, config)
            if workers != 1:
                requirement = "1 when an engine instance is given (it has its own workers)"
                raise invalid("workers", "MCTSPlayer", requirement, workers)
            self.engine = engine
        self.budget = given_budget(budget, "MCTSPlayer")
        self.name = f"mcts-{self.engine.name}"
        self.last_result: SearchResult | None = None
        #: The search without the solver for lost positions, made when first needed.
        self._resister: Engine | None = None

    def analyse(
        self,
        state: State,
        *,
        progress: Progress | None = None,
        stop: StopEvent | None = None,
    ) -> SearchResult:
        """Search ``state`` and keep the result as ``last_result``.

        In a proven loss the result keeps the proof (value 0, every move
        "loss") with the move and line of a search without the solver, which
        has what the budget leaves (both searches together keep to it).
        """
        result = self.engine.search(state, self.budget, progress=progress, stop=stop)
        stopped = stop is not None and stop.is_set()
        rest = None if stopped or result.proven != "loss" else _rest_of(self.budget, result)
        if rest is not None and self._resister is None:
            self._resister = _resister_of(self.engine)
        if rest is not None and self._resister is not None:
            proof = result
            shown = None if progress is None else lambda interim: progress(_merged(proof, interim))
            result = _merged(proof, self._resister.search(state, rest, progress=shown, stop=stop))
        self.last_result = result
        return result

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
        for engine in (self.engine, self._resister):
            close = getattr(engine, "close", None)
            if close is not None:
                close()


def _resister_of(engine: Engine) -> Engine | None:
    """A search of ``engine``'s type and config without the solver (None for a type of one's
    own: its move is played)."""
    from mctslab.core.search import MCTS
    from mctslab.fast import FastMCTS

    if not isinstance(engine, MCTS | FastMCTS):
        return None
    # One process: a second pool of workers would start (seconds) inside a move. Decisive
    # playouts stand for an opponent who sees only a win in one move: losing at once then
    # counts against a move, a win further off less; Gomoku's threats playouts find those
    # too, and value every lost move the same.
    config = replace(
        engine.config, solver=False, prove_draws=False, reuse_tree=False, playout="decisive"
    )
    return new_engine("python" if isinstance(engine, MCTS) else "compiled", config)


#: The least time worth a second search (below it, the first search's move is played).
_LEAST_SECONDS = 0.01


def _rest_of(budget: Budget, spent: SearchResult) -> Budget | None:
    """What ``budget`` leaves after the search ``spent`` (None when too little is left)."""
    budget = budget.effective()
    seconds = None if budget.seconds is None else budget.seconds - spent.seconds
    iterations = None if budget.iterations is None else budget.iterations - spent.simulations
    if (seconds is not None and seconds < _LEAST_SECONDS) or (
        iterations is not None and iterations < 1
    ):
        return None
    return replace(budget, seconds=seconds, iterations=iterations)


def _merged(proof: SearchResult, resisting: SearchResult) -> SearchResult:
    """The proof's statistics (value 0, every move lost) with the other search's move and line,
    and the work of both."""
    return replace(
        proof,
        best_move=resisting.best_move,
        best_notation=resisting.best_notation,
        pv=resisting.pv,
        pv_notation=resisting.pv_notation,
        simulations=proof.simulations + resisting.simulations,
        seconds=proof.seconds + resisting.seconds,
    )
