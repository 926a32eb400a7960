"""The Player interface."""

from __future__ import annotations

from typing import Protocol

from mctslab.games._base import State


class Player(Protocol):
    """Chooses moves in a game.

    ``start`` is called with the start position of every new game, ``observe``
    with every move played (by anyone) in order, and ``close`` once at the end.
    """

    name: str

    def start(self, state: State) -> None: ...

    def choose(self, state: State) -> int: ...

    def observe(self, move: int) -> None: ...

    def close(self) -> None: ...
