"""Bundled games and the game protocol."""

from mctslab.games._base import (
    GameOverError,
    GameSpec,
    IllegalMoveError,
    InvalidMoveError,
    Kernel,
    Outcome,
    State,
)
from mctslab.games._check import ConformanceError, check_game
from mctslab.games._registry import available_games, make

__all__ = [
    "ConformanceError",
    "GameOverError",
    "GameSpec",
    "IllegalMoveError",
    "InvalidMoveError",
    "Kernel",
    "Outcome",
    "State",
    "available_games",
    "check_game",
    "make",
]
