"""mctslab: Monte Carlo Tree Search to play, study and build game AIs."""

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
