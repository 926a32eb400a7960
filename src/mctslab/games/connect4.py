"""Connect Four on the standard 7 columns x 6 rows. Moves are columns "1".."7" (ids 0..6).

Bitboards as in John Tromp's Fhourstones: bit ``7 * column + row`` (row 0 at the
bottom), one empty guard bit on top of every column so that shifted copies never
carry a line from one column into the next. Dropping a disc is one addition
(``mask + bottom`` carries up to the first free cell) and the win test is four
shift-and pairs, so the rollout costs a few instructions per move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    LEGAL_MOVES_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    nth_bit,
    randint,
    record,
)
from mctslab.games._base import GameSpec, Kernel, State
from mctslab.games._board import render_grid
from mctslab.games._header import (
    DRAW,
    HEADER,
    LAST,
    ONGOING,
    PLY,
    STATUS,
    TO_MOVE,
    current_player,
    is_terminal,
    returns,
)

COLUMNS, ROWS = 7, 6
_COLUMN_BITS = ROWS + 1
# State layout: header, then one bitboard per player and their union.
STONES, MASK = HEADER, HEADER + 2
STATE_SIZE = MASK + 1
_CELLS = COLUMNS * ROWS
# Shifts between neighbours: vertical, horizontal and the two diagonals.
_DIRECTIONS = (1, _COLUMN_BITS, _COLUMN_BITS - 1, _COLUMN_BITS + 1)
# The bottom cell of every column, and every playable cell (no guard bits).
_BOTTOM_ROW = sum(1 << (_COLUMN_BITS * column) for column in range(COLUMNS))
_BOARD = _BOTTOM_ROW * ((1 << ROWS) - 1)


@njit(cache=True)
def _bottom(column: int) -> int:
    return 1 << (_COLUMN_BITS * column)


@njit(cache=True)
def _top(column: int) -> int:
    return 1 << (_COLUMN_BITS * column + ROWS - 1)


@njit(cache=True)
def _has_four(stones: int) -> bool:
    for shift in _DIRECTIONS:
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    count = 0
    for column in range(COLUMNS):
        if state[MASK] & _top(column) == 0:
            out[count] = column
            count += 1
    return count


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    player = state[TO_MOVE]
    mask = state[MASK]
    filled = mask | (mask + _bottom(move))
    stones = state[STONES + player] | (filled ^ mask)
    state[STONES + player] = stones
    state[MASK] = filled
    state[PLY] += 1
    state[LAST] = move
    state[TO_MOVE] = 1 - player
    if _has_four(stones):
        state[STATUS] = player
    elif state[PLY] == _CELLS:
        state[STATUS] = DRAW


@njit(cache=True)
def _open_columns(state: np.ndarray) -> tuple[int, int]:
    """The columns with room as a bit set (bit c: column c), and how many there are.

    The rollouts pick among them with :func:`nth_bit`, in the order of
    :func:`legal_moves`, so they need no move list (and allocate nothing).
    """
    columns = 0
    count = 0
    for column in range(COLUMNS):
        if state[MASK] & _top(column) == 0:
            columns |= 1 << column
            count += 1
    return columns, count


@njit(cache=True)
def _winning_cells(stones: int, mask: int) -> int:
    """Empty cells (playable now or not) that would complete four for ``stones``.

    For each direction, a cell completes four when the three cells on one
    side, or two on one side and one on the other, hold ``stones`` (the
    shift-and form of Pascal Pons's Connect Four solver).
    """
    cells = (stones << 1) & (stones << 2) & (stones << 3)  # three below
    for shift in _DIRECTIONS[1:]:
        pairs = (stones << shift) & (stones << (2 * shift))
        cells |= pairs & (stones << (3 * shift))
        cells |= pairs & (stones >> shift)
        pairs = (stones >> shift) & (stones >> (2 * shift))
        cells |= pairs & (stones << shift)
        cells |= pairs & (stones >> (3 * shift))
    return cells & (_BOARD ^ mask)


@njit(cache=True)
def _column_of(cells: int) -> int:
    """The column of the lowest set bit of a non-empty board."""
    column = 0
    while cells & ((1 << _COLUMN_BITS) - 1) == 0:
        cells >>= _COLUMN_BITS
        column += 1
    return column


@njit(cache=True)
def _winning_column(state: np.ndarray, player: int) -> int:
    """A column where ``player`` would complete four now, or -1."""
    mask = state[MASK]
    wins = _winning_cells(state[STONES + player], mask) & (mask + _BOTTOM_ROW)
    return _column_of(wins) if wins else -1


@njit(WINNING_MOVE_SIG, cache=True)
def winning_move(state: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return -1
    return _winning_column(state, state[TO_MOVE])


@njit(cache=True, inline="always")
def _playout(state: np.ndarray, rng: np.ndarray, played: np.ndarray, decisive: bool) -> int:
    """Random columns to the end; ``decisive``: a win is taken, else the opponent's blocked."""
    open_columns, count = _open_columns(state)
    recorded = 0
    while state[STATUS] == ONGOING:
        column = -1
        if decisive:
            player = state[TO_MOVE]
            column = _winning_column(state, player)
            if column < 0:
                column = _winning_column(state, 1 - player)
        if column < 0:
            column = nth_bit(open_columns, randint(rng, count))
        apply(state, column)
        recorded = record(played, recorded, column)
        if state[MASK] & _top(column):
            open_columns ^= 1 << column
            count -= 1
    return recorded


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    return _playout(state, rng, played, False)


@njit(ROLLOUT_SIG, cache=True)
def decisive_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Random columns, but a win is taken and the opponent's is blocked (Teytaud & Teytaud 2010)."""
    return _playout(state, rng, played, True)


KERNEL = Kernel(
    legal_moves,
    apply,
    is_terminal,
    returns,
    current_player,
    rollout,
    winning_move=winning_move,
    playouts={"decisive": decisive_rollout},
)
_SYMBOLS = ".XO"


class Connect4State(State):
    """A Connect Four position; X (player 0) moves first."""

    kernel = KERNEL
    history_fields = (LAST,)
    __slots__ = ()
    #: Discs in a row needed to win.
    k = 4

    def board(self) -> np.ndarray:
        """A ``(6, 7)`` array, row 0 at the top: 0 empty, 1 X, 2 O."""
        grid = np.zeros((ROWS, COLUMNS), dtype=np.int64)
        for player in range(2):
            stones = int(self._data[STONES + player])
            for column in range(COLUMNS):
                for row in range(ROWS):
                    if stones >> (_COLUMN_BITS * column + row) & 1:
                        grid[ROWS - 1 - row, column] = player + 1
        return grid

    def _parse_notation(self, text: str) -> int | None:
        if len(text) == 1 and "1" <= text <= str(COLUMNS):
            return int(text) - 1
        return None

    def _format_move(self, move: int) -> str:
        return str(move + 1)

    def notation_help(self) -> str:
        return f"a column number 1-{COLUMNS} counted from the left, e.g. 4"

    def _end_reason(self, winner: int | None) -> str:
        return "four in a row" if winner is not None else "board full"

    def __str__(self) -> str:
        """The board over the column numbers that moves are written with."""
        grid = self.board()
        last = self._last_cell(grid)
        lines = []
        for row in range(ROWS):
            cells = []
            for column in range(COLUMNS):
                symbol = _SYMBOLS[grid[row, column]]
                cells.append(f"[{symbol}]" if (row, column) == last else f" {symbol} ")
            lines.append("".join(cells))
        lines.append("".join(f" {column + 1} " for column in range(COLUMNS)))
        return "\n".join(lines)

    def render_cells(self) -> str:
        """The board with every cell named: columns ``a``-``g``, rows 1-6 from the bottom.

        Where a move only names a column, a protocol that names the cell the
        disc lands on (GTP's ``D1``) shows the board this way.
        """
        grid = self.board()
        return render_grid(
            [[_SYMBOLS[cell] for cell in row] for row in grid],
            row_labels=[str(ROWS - row) for row in range(ROWS)],
            last=self._last_cell(grid),
        )

    def _last_cell(self, grid: np.ndarray) -> tuple[int, int] | None:
        """(row from the top, column) in ``grid`` of the last disc dropped, if any."""
        column = int(self._data[LAST])
        if column < 0:
            return None
        # The last disc is the topmost one in the last column played.
        return int(np.argmax(grid[:, column] != 0)), column


def make() -> Connect4State:
    """A new game of Connect Four on 7x6; X (player 0) moves first."""
    spec = GameSpec(
        name="connect4",
        num_players=2,
        num_actions=COLUMNS,
        max_game_length=_CELLS,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("X", "O"),
        board_shape=(ROWS, COLUMNS),
    )
    data = np.zeros(STATE_SIZE, dtype=np.int64)
    data[STATUS] = ONGOING
    data[LAST] = -1
    return Connect4State(spec, data)
