"""The game protocol of the generic engine: exactly what a search needs, nothing more.

Any object with these members can be searched, so a game written in plain
Python needs neither numba nor a subclass of :class:`mctslab.games.State`
(which satisfies the protocol, as every bundled game does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, Self


class GameSpecLike(Protocol):
    """The static facts the engine reads; a :class:`mctslab.GameSpec` has them.

    Returns are normalised to ``[0, 1]`` with ``min_return`` and
    ``max_return``, so these must bound every value ``returns()`` can give.
    """

    @property
    def name(self) -> str: ...

    @property
    def num_players(self) -> int: ...

    @property
    def min_return(self) -> float: ...

    @property
    def max_return(self) -> float: ...


class GameState(Protocol):
    """A game position the engine can search.

    Moves are integers. ``legal_moves()`` returns a sequence (a list or a
    tuple; not a numpy array, a set or a generator, which the search can
    neither test for emptiness nor index), non-empty until ``is_terminal()``
    and empty from then on; ``apply`` plays a legal move in place (unchecked: the
    engine only plays moves from ``legal_moves()``); ``returns()`` gives one
    value per player at the end of the game; ``clone()`` must be independent
    of the original. Single-player games have ``current_player`` 0 throughout.

    Tree reuse compares positions with ``==``: without an ``__eq__`` of its
    own a state only equals itself, and every search starts a fresh tree.

    A state may also offer ``random_playout(seed)``: a uniformly random
    playout to the end, in place (the bundled games compile theirs). The
    default simulation uses it when present.
    """

    @property
    def spec(self) -> GameSpecLike: ...

    @property
    def current_player(self) -> int: ...

    def legal_moves(self) -> Sequence[int]: ...

    def apply(self, move: int) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> Sequence[float]: ...

    def clone(self) -> Self: ...

    def move_to_str(self, move: int) -> str: ...


def equal_only_to_itself(state: object) -> bool:
    """Whether ``state``'s class defines no ``__eq__`` of its own, so that no other object
    equals it: tree reuse can find its position only in the very object searched."""
    return type(state).__eq__ is object.__eq__
