"""The interface every search engine offers (generic and compiled alike)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from mctslab._validation import check_callable, check_instance, invalid
from mctslab.core.config import Budget
from mctslab.core.result import SearchResult
from mctslab.games._base import State

#: Called now and then during a search with the statistics so far.
Progress = Callable[[SearchResult], None]


class StopEvent(Protocol):
    """What stops a search from outside: a ``threading.Event``, one of multiprocessing's,
    or anything else that says whether it is set."""

    def is_set(self) -> bool: ...


@runtime_checkable
class Engine(Protocol):
    """A search engine.

    ``search`` is anytime: it stops at the first budget limit reached, when
    ``stop`` is set, or on Ctrl-C, and returns the best move so far. With
    ``reuse_tree`` the engine keeps its tree: ``advance(move)`` re-roots it at
    the child for ``move``, and a later ``search`` from that same position
    starts from the kept subtree (any other position starts a fresh tree).
    """

    name: str

    def search(
        self,
        state: State,
        budget: Budget | None = None,
        *,
        progress: Progress | None = None,
        stop: StopEvent | None = None,
    ) -> SearchResult: ...

    def advance(self, move: int) -> None: ...

    def reset(self) -> None: ...


def search_budget(
    budget: Budget | None, progress: Progress | None, stop: StopEvent | None, owner: str
) -> Budget:
    """The budget a search of ``owner`` runs to, its other arguments checked (ValueError)."""
    if progress is not None:
        check_callable(progress, "progress", owner, "a function of the interim SearchResult")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        # A threading.Event, or one of multiprocessing's: whatever has is_set().
        raise invalid("stop", owner, "an event with is_set(), such as a threading.Event", stop)
    return given_budget(budget, owner).effective()


def given_budget(budget: Budget | None, owner: str) -> Budget:
    """``budget`` as given to ``owner``, None the default one; anything else is refused
    (ValueError)."""
    if budget is None:
        return Budget()
    return check_instance(budget, "budget", owner, Budget, "a Budget or None")
