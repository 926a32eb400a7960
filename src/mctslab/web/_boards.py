"""What the page needs to draw a position: the grid of stones, axis labels, how clicks map to moves.

The games keep their positions in different layouts (padded grids, bitboards),
so each game gets a small reader here; the rules themselves stay in the game
modules. Move ids map to cells in one of two ways the page understands:
``"cells"`` (id = row * columns + column, row 0 at the top: gomoku, othello,
tic-tac-toe) and ``"columns"`` (id = column: Connect Four).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mctslab.games import (
    State,
    available_games,
    connect4,
    countdown,
    gomoku,
    make,
    othello,
    tictactoe,
)

_U64 = (1 << 64) - 1


def _tictactoe_grid(state: State) -> np.ndarray:
    return state.data[tictactoe.CELLS : tictactoe.CELLS + 9].reshape(3, 3)


def _othello_grid(state: State) -> np.ndarray:
    grid = np.zeros(othello.SIZE * othello.SIZE, dtype=np.int64)
    for player in range(2):
        discs = int(state.data[othello.DISCS + player]) & _U64
        for square in range(othello.SIZE * othello.SIZE):
            if discs >> square & 1:
                grid[square] = player + 1
    return grid.reshape(othello.SIZE, othello.SIZE)


def _gomoku_grid(state: State) -> np.ndarray:
    assert isinstance(state, gomoku.GomokuState)
    return state.board()


def _connect4_grid(state: State) -> np.ndarray:
    assert isinstance(state, connect4.Connect4State)
    return state.board()


_GRIDS: dict[str, tuple[Callable[[State], np.ndarray], str]] = {
    "tictactoe": (_tictactoe_grid, "cells"),
    "othello": (_othello_grid, "cells"),
    "gomoku": (_gomoku_grid, "cells"),
    "connect4": (_connect4_grid, "columns"),
}


def two_player_games() -> list[str]:
    """The registered games the page can play (a person against the AI)."""
    return [name for name in available_games() if make(name).spec.num_players == 2]


def catalog() -> list[dict[str, Any]]:
    """Every playable game with its parameters (range and default), for the new-game form."""
    parameters: dict[str, list[dict[str, Any]]] = {
        "gomoku": [
            {
                "name": "size",
                "min": gomoku.MIN_SIDE,
                "max": gomoku.MAX_SIDE,
                "default": gomoku.DEFAULT_SIDE,
            },
            {"name": "k", "min": gomoku.MIN_K, "max": gomoku.MAX_SIDE, "default": gomoku.DEFAULT_K},
        ],
        "countdown": [{"name": "start", "min": 1, "max": countdown.MAX_START, "default": 20}],
    }
    games = []
    for name in two_player_games():
        spec = make(name).spec
        games.append(
            {"name": name, "players": list(spec.player_names), "params": parameters.get(name, [])}
        )
    return games


def board_view(state: State, last: int | None) -> dict[str, Any]:
    """The position as the page draws it; ``last`` is the move that led to it, if any.

    Grid games: ``cells`` (rows top to bottom, 0 empty, 1 first player, 2
    second), axis labels taken from the game's own notation, the cell of the
    last move, and ``moves`` telling how ids map to cells. Countdown: the next
    number to say (the page draws the numbers said from the move list).
    """
    if isinstance(state, countdown.CountdownState):
        return {"kind": "count", "next": state.next_number}
    read, mapping = _GRIDS[state.spec.name]
    grid = read(state)
    rows, columns = grid.shape
    if last is None:
        last = -1
    if mapping == "cells":
        column_labels = [state.move_to_str(c)[0] for c in range(columns)]
        row_labels = [state.move_to_str(r * columns)[1:] for r in range(rows)]
        last_cell = list(divmod(last, columns)) if 0 <= last < rows * columns else None
    else:
        column_labels = [state.move_to_str(c) for c in range(columns)]
        row_labels = []
        # a disc drops onto the column: the last one played is the column's topmost
        filled = np.flatnonzero(grid[:, last]) if last >= 0 else np.empty(0, dtype=np.int64)
        last_cell = [int(filled[0]), last] if filled.size else None
    k: int | None = getattr(state, "k", None)  # the games won by k in a row
    line = []
    if state.is_terminal() and k is not None and last_cell is not None:
        line = _winning_line(grid, last_cell, k)
    return {
        "kind": "grid",
        "rows": int(rows),
        "columns": int(columns),
        "cells": grid.tolist(),
        "moves": mapping,
        "column_labels": column_labels,
        "row_labels": row_labels,
        "last": last_cell,
        "line": line,
    }


def _winning_line(grid: np.ndarray, last: list[int], k: int) -> list[list[int]]:
    """The cells of every run of ``k`` or more through the last move: the line that won.

    Only the page needs to know which cells they are; whether the game is won is
    the game's own verdict (an empty list when the last move made no such run).
    """
    rows, columns = grid.shape
    row, column = last
    stone = grid[row, column]
    cells: list[list[int]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = [[row, column]]
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < rows and 0 <= c < columns and grid[r, c] == stone:
                run.append([r, c])
                r, c = r + sign * dr, c + sign * dc
        if len(run) >= k:
            cells.extend(cell for cell in run if cell not in cells)
    return cells
