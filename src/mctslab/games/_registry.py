"""The string registry of games: ``make("gomoku", size=15)`` and ``available_games()``."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from mctslab.games._base import State

_GAMES: dict[str, str] = {
    "numbers": "mctslab.games.numbers",
    "countdown": "mctslab.games.countdown",
    "gomoku": "mctslab.games.gomoku",
    "othello": "mctslab.games.othello",
    "connect4": "mctslab.games.connect4",
    "tictactoe": "mctslab.games.tictactoe",
}


def available_games() -> list[str]:
    """Names accepted by :func:`make`, in a stable order."""
    return list(_GAMES)


def parameters(name: str) -> list[str]:
    """The parameters :func:`make` takes for the game ``name`` (a name it knows)."""
    return list(inspect.signature(_module(name).make).parameters)


def _module(name: str) -> Any:
    if name not in _GAMES:
        raise ValueError(f"Unknown game {name!r}; available games: {', '.join(available_games())}.")
    return importlib.import_module(_GAMES[name])


def make(name: str, **params: Any) -> State:
    """A new game in its start position, e.g. ``make("gomoku", size=8, k=5)``.

    The games and their parameters (keyword only; see each game's module):

    - ``numbers``: ``turns=10``, ``moves=(2, -2, 3, -3)`` (each turn t offers
      these times t), ``goal=0``;
    - ``countdown``: ``start=20``;
    - ``gomoku``: ``size`` (square, default 15) or ``width`` and ``height``
      (5 to 19), ``k=5`` stones in a row;
    - ``othello``, ``connect4``, ``tictactoe``: none.
    """
    factory = _module(name).make
    accepted = parameters(name)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(
            f"Unknown parameter(s) {', '.join(map(repr, unknown))} for game {name!r}; "
            f"accepted: {', '.join(accepted) if accepted else 'none'}."
        )
    state: State = factory(**params)
    return state
