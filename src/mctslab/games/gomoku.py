"""Gomoku, freestyle: k or more stones in a row wins; a full board is a draw.

Any board from 5x5 to 19x19 (width and height apart) and any k that fits.
Notation: column letter and row number counted from the bottom ("h8" is the
centre of 15x15), or Gomocup coordinates "x,y" counted from 0 at the top left.

The board is stored with a one-cell border (a sentinel column shared by both
sides, a sentinel row above and below) so that the win check can walk from the
last stone in each direction without any bounds test; the rollout, which
dominates the compiled engine's time, keeps a list of empty cells and removes
the one it plays by swapping in the last.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    randint,
)
from mctslab._validation import check_int
from mctslab.games._base import GameSpec, Kernel, State
from mctslab.games._board import COLUMN_LETTERS, parse_letter_number, parse_pair, render_grid

# State layout: a header, then the padded board. Row r, column c (row 0 at the
# top) lives at CELLS + (r + 1) * stride + c + 1 with stride = width + 1; cells
# hold 0 empty, 1 Black (player 0), 2 White (player 1) or BORDER. Move id =
# r * width + c.
TO_MOVE, PLY, STATUS, LAST, WIDTH, HEIGHT, K, CELLS = range(8)
ONGOING, DRAW = -1, 2  # STATUS otherwise holds the winner's index
BORDER = 3
MIN_SIDE, MAX_SIDE, DEFAULT_SIDE = 5, 19, 15
MIN_K, DEFAULT_K = 3, 5


@njit(cache=True)
def _completes_line(state: np.ndarray, cell: int, stone: int, stride: int, k: int) -> bool:
    """Whether the stone on padded ``cell`` lies in a run of at least ``k`` (overlines count)."""
    for step in (1, stride, stride + 1, stride - 1):
        run = 1
        ahead = cell + step
        while state[ahead] == stone:
            run += 1
            ahead += step
        behind = cell - step
        while state[behind] == stone:
            run += 1
            behind -= step
        if run >= k:
            return True
    return False


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    width = state[WIDTH]
    stride = width + 1
    count = 0
    for row in range(state[HEIGHT]):
        first = CELLS + (row + 1) * stride + 1
        for column in range(width):
            if state[first + column] == 0:
                out[count] = row * width + column
                count += 1
    return count


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    width = state[WIDTH]
    stride = width + 1
    player = state[TO_MOVE]
    cell = CELLS + (move // width + 1) * stride + move % width + 1
    state[cell] = player + 1
    state[PLY] += 1
    state[LAST] = move
    state[TO_MOVE] = 1 - player
    if _completes_line(state, cell, player + 1, stride, state[K]):
        state[STATUS] = player
    elif state[PLY] == width * state[HEIGHT]:
        state[STATUS] = DRAW


@njit(IS_TERMINAL_SIG, cache=True)
def is_terminal(state: np.ndarray) -> bool:
    return state[STATUS] != ONGOING


@njit(RETURNS_SIG, cache=True)
def returns(state: np.ndarray, out: np.ndarray) -> None:
    out[0] = 0.0
    out[1] = 0.0
    if state[STATUS] == 0 or state[STATUS] == 1:
        out[state[STATUS]] = 1.0
        out[1 - state[STATUS]] = -1.0


@njit(CURRENT_PLAYER_SIG, cache=True)
def current_player(state: np.ndarray) -> int:
    return state[TO_MOVE]


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray) -> None:
    if state[STATUS] != ONGOING:
        return
    width = state[WIDTH]
    height = state[HEIGHT]
    k = state[K]
    stride = width + 1
    # Padded cell indices, so the loop needs no division; the header is
    # written once at the end rather than after every stone.
    empty = np.empty(width * height, dtype=np.int64)
    remaining = 0
    for row in range(height):
        first = CELLS + (row + 1) * stride + 1
        for column in range(width):
            if state[first + column] == 0:
                empty[remaining] = first + column
                remaining += 1
    player = state[TO_MOVE]
    played = 0
    status = DRAW
    cell = -1
    while remaining > 0:
        pick = randint(rng, remaining)
        cell = empty[pick]
        remaining -= 1
        empty[pick] = empty[remaining]
        state[cell] = player + 1
        played += 1
        if _completes_line(state, cell, player + 1, stride, k):
            status = player
            player = 1 - player
            break
        player = 1 - player
    offset = cell - CELLS
    state[LAST] = (offset // stride - 1) * width + offset % stride - 1
    state[PLY] += played
    state[TO_MOVE] = player
    state[STATUS] = status


KERNEL = Kernel(legal_moves, apply, is_terminal, returns, current_player, rollout)
_SYMBOLS = ".XO"


class GomokuState(State):
    """A Gomoku position; Black (player 0, "X") moves first."""

    kernel = KERNEL
    history_fields = (LAST,)
    __slots__ = ()

    @property
    def width(self) -> int:
        return int(self._data[WIDTH])

    @property
    def height(self) -> int:
        return int(self._data[HEIGHT])

    @property
    def k(self) -> int:
        """Stones in a row needed to win."""
        return int(self._data[K])

    def board(self) -> np.ndarray:
        """A ``(height, width)`` copy of the board, row 0 at the top: 0 empty, 1 Black, 2 White."""
        stride = self.width + 1
        padded = self._data[CELLS : CELLS + (self.height + 2) * stride]
        return padded.reshape(self.height + 2, stride)[1:-1, 1:].copy()

    def move_to_gomocup(self, move: int) -> str:
        """``"x,y"`` for ``move``: column from the left and row from the top, from 0."""
        row, column = divmod(int(move), self.width)
        return f"{column},{row}"

    def _parse_notation(self, text: str) -> int | None:
        letter_number = parse_letter_number(text)
        if letter_number is not None:
            column, number = letter_number
            row = self.height - number
        else:
            pair = parse_pair(text)
            if pair is None:
                return None
            column, row = pair
        if not (0 <= column < self.width and 0 <= row < self.height):
            return None
        return row * self.width + column

    def _format_move(self, move: int) -> str:
        row, column = divmod(move, self.width)
        return f"{COLUMN_LETTERS[column]}{self.height - row}"

    def notation_help(self) -> str:
        centre = (self.height // 2) * self.width + self.width // 2
        return (
            f"column a-{COLUMN_LETTERS[self.width - 1]} then row 1-{self.height} counted from "
            f"the bottom, e.g. {self._format_move(centre)}; or Gomocup x,y counted from 0 at "
            f"the top left, e.g. {self.move_to_gomocup(centre)}"
        )

    def _end_reason(self, winner: int | None) -> str:
        return f"{self.k} in a row" if winner is not None else "board full"

    def __str__(self) -> str:
        rows = [[_SYMBOLS[cell] for cell in row] for row in self.board()]
        last = int(self._data[LAST])
        return render_grid(
            rows,
            row_labels=[str(self.height - r) for r in range(self.height)],
            last=divmod(last, self.width) if last >= 0 else None,
        )


def make(
    *,
    size: int | None = None,
    width: int | None = None,
    height: int | None = None,
    k: int = DEFAULT_K,
) -> GomokuState:
    """A new game of Gomoku; ``size`` sets both sides, which default to 15.

    ``k`` stones in a row win (more count too); it must fit the longer side.
    """
    if size is not None:
        if width is not None or height is not None:
            raise ValueError(
                "Give gomoku either 'size' or 'width'/'height', not both. "
                f"Got size={size!r}, width={width!r}, height={height!r} instead."
            )
        width = height = check_int(size, "size", "gomoku", low=MIN_SIDE, high=MAX_SIDE)
    width = check_int(
        DEFAULT_SIDE if width is None else width, "width", "gomoku", low=MIN_SIDE, high=MAX_SIDE
    )
    height = check_int(
        DEFAULT_SIDE if height is None else height, "height", "gomoku", low=MIN_SIDE, high=MAX_SIDE
    )
    k = check_int(k, "k", "gomoku", low=MIN_K, high=max(width, height))
    cells = width * height
    spec = GameSpec(
        name="gomoku",
        num_players=2,
        num_actions=cells,
        max_game_length=cells,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("Black", "White"),
        board_shape=(height, width),
        params={"width": width, "height": height, "k": k},
    )
    stride = width + 1
    data = np.full(CELLS + (height + 2) * stride + 1, BORDER, dtype=np.int64)
    for row in range(height):
        first = CELLS + (row + 1) * stride + 1
        data[first : first + width] = 0
    data[TO_MOVE] = 0
    data[PLY] = 0
    data[STATUS] = ONGOING
    data[LAST] = -1
    data[WIDTH] = width
    data[HEIGHT] = height
    data[K] = k
    return GomokuState(spec, data)
