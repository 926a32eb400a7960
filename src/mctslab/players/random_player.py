"""A player that moves uniformly at random."""

from __future__ import annotations

import random

from mctslab.games._base import GameOverError, State


class RandomPlayer:
    """Plays a uniformly random legal move; seeded for reproducible games."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def start(self, state: State) -> None:
        """Random play needs no preparation."""

    def choose(self, state: State) -> int:
        if state.is_terminal():
            raise GameOverError(f"The game is over; there is no move to choose.\n{state}")
        return self._rng.choice(state.legal_moves())

    def observe(self, move: int) -> None:
        """Random play needs no memory of the game."""

    def close(self) -> None:
        """Nothing to release."""
