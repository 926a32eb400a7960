"""Live progress while the AI searches: a spinner with simulations and the win-rate estimate."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType

from rich.console import Console

from mctslab.core.result import SearchResult


class Thinking(AbstractContextManager["Thinking"]):
    """A status line updated from the engine's ``progress`` callback.

    ``estimate`` words the best move's value: a win rate by default, the mean
    reward for a single-player game.
    """

    def __init__(
        self,
        console: Console,
        who: str,
        *,
        estimate: Callable[[float], str] = lambda value: f"{value:.0%}",
    ) -> None:
        self._who = who
        self._estimate = estimate
        self._status = console.status(f"{who} is thinking...", spinner="dots")

    def __enter__(self) -> Thinking:
        self._status.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._status.__exit__(kind, error, trace)

    def __call__(self, result: SearchResult) -> None:
        self._status.update(
            f"{self._who} is thinking... {result.simulations:,} simulations, "
            f"best so far {result.best_notation} ({self._estimate(result.value)}), "
            f"{result.sims_per_second:,.0f}/s"
        )
