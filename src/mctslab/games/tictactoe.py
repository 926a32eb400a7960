"""Tic-tac-toe on 3x3. Notation: column letter and row number from the bottom ("b2")."""

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
from mctslab.games._board import parse_letter_number, render_grid
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

# State layout: header then 9 cells (0 empty, 1 X = player 0, 2 O = player 1),
# cell index = row * 3 + column with row 0 at the top.
CELLS = HEADER
STATE_SIZE = CELLS + 9

_LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    count = 0
    for cell in range(9):
        if state[CELLS + cell] == 0:
            out[count] = cell
            count += 1
    return count


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    player = state[TO_MOVE]
    state[CELLS + move] = player + 1
    state[PLY] += 1
    state[LAST] = move
    state[TO_MOVE] = 1 - player
    for line in range(8):
        if (
            state[CELLS + _LINES[line, 0]] == player + 1
            and state[CELLS + _LINES[line, 1]] == player + 1
            and state[CELLS + _LINES[line, 2]] == player + 1
        ):
            state[STATUS] = player
            return
    if state[PLY] == 9:
        state[STATUS] = DRAW


@njit(cache=True)
def _empty_cells(state: np.ndarray) -> tuple[int, int]:
    """The empty cells as a bit set (bit i: cell i), and how many there are.

    The rollouts pick among them with :func:`nth_bit`, in the order of
    :func:`legal_moves`, so they need no move list (and allocate nothing).
    """
    cells = 0
    count = 0
    for cell in range(9):
        if state[CELLS + cell] == 0:
            cells |= 1 << cell
            count += 1
    return cells, count


@njit(cache=True)
def _completing_cell(state: np.ndarray, stone: int) -> int:
    """An empty cell that gives ``stone`` three in a row, or -1."""
    for line in range(8):
        own = 0
        empty = -1
        for i in range(3):
            cell = _LINES[line, i]
            if state[CELLS + cell] == stone:
                own += 1
            elif state[CELLS + cell] == 0:
                empty = cell
        if own == 2 and empty >= 0:
            return empty
    return -1


@njit(WINNING_MOVE_SIG, cache=True)
def winning_move(state: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return -1
    return _completing_cell(state, state[TO_MOVE] + 1)


@njit(cache=True, inline="always")
def _playout(state: np.ndarray, rng: np.ndarray, played: np.ndarray, decisive: bool) -> int:
    """Random moves to the end; ``decisive``: a win is taken, else the opponent's blocked."""
    empty, count = _empty_cells(state)
    recorded = 0
    while state[STATUS] == ONGOING:
        move = -1
        if decisive:
            player = state[TO_MOVE]
            move = _completing_cell(state, player + 1)
            if move < 0:
                move = _completing_cell(state, 2 - player)
        if move < 0:
            move = nth_bit(empty, randint(rng, count))
        apply(state, move)
        recorded = record(played, recorded, move)
        empty ^= 1 << move
        count -= 1
    return recorded


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    return _playout(state, rng, played, False)


@njit(ROLLOUT_SIG, cache=True)
def decisive_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Random moves, but a win is taken and the opponent's is blocked (Teytaud & Teytaud 2010)."""
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


class TicTacToeState(State):
    kernel = KERNEL
    history_fields = (LAST,)
    __slots__ = ()
    #: Marks in a row needed to win.
    k = 3

    def _parse_notation(self, text: str) -> int | None:
        parsed = parse_letter_number(text)
        if parsed is None:
            return None
        column, number = parsed
        if not (0 <= column < 3 and 1 <= number <= 3):
            return None
        return (3 - number) * 3 + column

    def _format_move(self, move: int) -> str:
        row, column = divmod(move, 3)
        return f"{'abc'[column]}{3 - row}"

    def notation_help(self) -> str:
        return "column a-c then row 1-3 counted from the bottom, e.g. b2"

    def _end_reason(self, winner: int | None) -> str:
        return "three in a row" if winner is not None else "board full"

    def __str__(self) -> str:
        return self.render()

    def render(self, *, width: int | None = None) -> str:
        cells = self._data[CELLS:]
        rows = [[_SYMBOLS[cells[r * 3 + c]] for c in range(3)] for r in range(3)]
        last = int(self._data[LAST])
        return render_grid(
            rows,
            row_labels=[str(3 - r) for r in range(3)],
            last=divmod(last, 3) if last >= 0 else None,
            width=width,
        )


def make() -> TicTacToeState:
    """A new game of tic-tac-toe; X (player 0) moves first."""
    spec = GameSpec(
        name="tictactoe",
        num_players=2,
        num_actions=9,
        max_game_length=9,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("X", "O"),
        board_shape=(3, 3),
    )
    data = np.zeros(STATE_SIZE, dtype=np.int64)
    data[STATUS] = ONGOING
    data[LAST] = -1
    return TicTacToeState(spec, data)
