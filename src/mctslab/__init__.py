"""mctslab: Monte Carlo Tree Search to play, study and build game AIs.

The names below are loaded when first asked for: importing ``mctslab`` alone
loads no game and compiles nothing, so that the ``mctslab`` command can say
what it is doing (and take Ctrl-C) while the first run after installing
compiles the games.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mctslab.core.config import Budget, SearchConfig
    from mctslab.core.result import MoveStats, SearchResult
    from mctslab.games import (
        GameOverError,
        GameSpec,
        IllegalMoveError,
        InvalidMoveError,
        Outcome,
        State,
        available_games,
        make,
    )

__version__ = "0.1.0"

#: Where each name of the package lives.
_HOMES = {
    "Budget": "mctslab.core.config",
    "SearchConfig": "mctslab.core.config",
    "MoveStats": "mctslab.core.result",
    "SearchResult": "mctslab.core.result",
    "GameOverError": "mctslab.games",
    "GameSpec": "mctslab.games",
    "IllegalMoveError": "mctslab.games",
    "InvalidMoveError": "mctslab.games",
    "Outcome": "mctslab.games",
    "State": "mctslab.games",
    "available_games": "mctslab.games",
    "make": "mctslab.games",
}

__all__ = [
    "Budget",
    "GameOverError",
    "GameSpec",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveStats",
    "Outcome",
    "SearchConfig",
    "SearchResult",
    "State",
    "__version__",
    "available_games",
    "make",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # asked for once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
