"""The Player interface."""

from __future__ import annotations

from typing import Protocol

from mctslab.games._base import State


class Player(Protocol):
    """Chooses moves. ``observe`` is told every move played (by anyone), in order."""

    name: str

    def choose(self, state: State) -> int: ...

    def observe(self, move: int) -> None: ...

    def close(self) -> None: ...
