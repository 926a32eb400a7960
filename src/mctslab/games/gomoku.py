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

from collections.abc import Sequence

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    LEGAL_MOVES_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    randint,
)
from mctslab._validation import check_int
from mctslab.games._base import GameSpec, Kernel, State
from mctslab.games._board import COLUMN_LETTERS, parse_letter_number, parse_pair, render_grid
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

# State layout: a header, then the padded board. Row r, column c (row 0 at the
# top) lives at CELLS + (r + 1) * stride + c + 1 with stride = width + 1; cells
# hold 0 empty, 1 Black (player 0), 2 White (player 1) or BORDER. Move id =
# r * width + c.
WIDTH, HEIGHT, K, CELLS = range(HEADER, HEADER + 4)
BORDER = 3
MIN_SIDE, MAX_SIDE, DEFAULT_SIDE = 5, 19, 15
MIN_K, DEFAULT_K = 3, 5
#: Candidate moves are the empty cells within this many rows and columns of a stone.
NEAR = 2


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


@njit(cache=True)
def _move_of(cell: int, width: int) -> int:
    """The move id of padded ``cell``."""
    return ((cell - CELLS) // (width + 1) - 1) * width + (cell - CELLS) % (width + 1) - 1


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
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
    stones = 0
    status = DRAW
    cell = -1
    while remaining > 0:
        pick = randint(rng, remaining)
        cell = empty[pick]
        remaining -= 1
        empty[pick] = empty[remaining]
        state[cell] = player + 1
        if stones < played.shape[0]:  # the move id only when recorded (it costs a division)
            played[stones] = _move_of(cell, width)
        stones += 1
        if _completes_line(state, cell, player + 1, stride, k):
            status = player
            player = 1 - player
            break
        player = 1 - player
    state[LAST] = _move_of(cell, width)
    state[PLY] += stones
    state[TO_MOVE] = player
    state[STATUS] = status
    return min(stones, played.shape[0])


@njit(LEGAL_MOVES_SIG, cache=True)
def candidate_moves(state: np.ndarray, out: np.ndarray) -> int:
    """The empty cells within NEAR rows and columns of a stone; the centre on an empty board.

    Every legal move when no empty cell is that near. ``out`` first flags
    the cells by move id, then is compacted in place (no scratch array).
    """
    if state[STATUS] != ONGOING:
        return 0
    width = state[WIDTH]
    height = state[HEIGHT]
    stride = width + 1
    out[: width * height] = 0
    stones = 0
    for row in range(height):
        first = CELLS + (row + 1) * stride + 1
        for column in range(width):
            if state[first + column] == 0:
                continue
            stones += 1
            for near_row in range(max(0, row - NEAR), min(height, row + NEAR + 1)):
                near_first = CELLS + (near_row + 1) * stride + 1
                for near_column in range(max(0, column - NEAR), min(width, column + NEAR + 1)):
                    if state[near_first + near_column] == 0:
                        out[near_row * width + near_column] = 1
    if stones == 0:
        out[0] = (height // 2) * width + width // 2
        return 1
    count = 0
    for move in range(width * height):
        if out[move]:
            out[count] = move
            count += 1
    return count if count > 0 else legal_moves(state, out)


@njit(cache=True)
def _segment(state: np.ndarray, cell: int, stone: int, step: int, k: int) -> tuple[int, int, int]:
    """The run of cells holding ``stone`` or nothing around ``cell`` along ``step``, k - 1 each way.

    Returns its first cell, its length and its stones; every k-cell window
    inside it contains ``cell``, and only those windows can make ``stone`` a
    line through ``cell``.
    """
    low = cell
    behind = 0
    own = 0
    while behind < k - 1 and (state[low - step] == stone or state[low - step] == 0):
        low -= step
        behind += 1
        own += state[low] == stone
    ahead = 0
    while ahead < k - 1 and (
        state[cell + (ahead + 1) * step] == stone or state[cell + (ahead + 1) * step] == 0
    ):
        ahead += 1
        own += state[cell + ahead * step] == stone
    return low, behind + ahead + 1, own + (state[cell] == stone)


@njit(cache=True, inline="always")
def _add_threats(
    state: np.ndarray,
    cell: int,
    player: int,
    stride: int,
    k: int,
    threats: np.ndarray,
    counts: np.ndarray,
    listed: np.ndarray,
    partner: np.ndarray,
    find_fours: bool,
) -> None:
    """List what ``player``'s stone on ``cell`` creates: wins, and with ``find_fours`` four points.

    A *win* cell completes k in a row; a *four point* makes two win cells at
    once along one line (a straight four, or two fours; the cells that
    answer an open three). Both are found from the k-cell windows through
    ``cell`` that hold only the player's stones and empty cells: one empty
    cell left makes it a win; two make each a four point with the other as
    its partner, and a cell with two different partners a double one. The
    empty cell of a window is found as the sum of its empty cells' indices.
    Lists live in ``threats[kind * 2 + player]`` with their counts in
    ``counts`` (kind 0 wins, 1 four points); ``listed`` holds a bit per list
    so that a cell is listed once. A win stays one until filled (stones are
    never removed); four points are checked again when used.
    """
    stone = player + 1
    for step in (1, stride, stride + 1, stride - 1):
        # _segment, written out: this runs after every stone of a checked playout.
        low = cell
        behind = 0
        own = 1
        while behind < k - 1:
            value = state[low - step]
            if value != stone and value != 0:
                break
            own += value == stone
            low -= step
            behind += 1
        high = cell
        ahead = 0
        while ahead < k - 1:
            value = state[high + step]
            if value != stone and value != 0:
                break
            own += value == stone
            high += step
            ahead += 1
        length = behind + ahead + 1
        # A window needs k - 1 stones for a win, k - 2 for a four point.
        if length < k or own < (k - 2 if find_fours else k - 1):
            continue
        empties = 0
        empty_sum = 0
        for i in range(k):
            if state[low + i * step] == 0:
                empties += 1
                empty_sum += low + i * step
        if find_fours:
            partner[:length] = -1
        for start in range(length - k + 1):
            if start > 0:
                leaving = low + (start - 1) * step
                entering = low + (start + k - 1) * step
                if state[leaving] == 0:
                    empties -= 1
                    empty_sum -= leaving
                if state[entering] == 0:
                    empties += 1
                    empty_sum += entering
            if empties == 1:
                _list(threats, counts, listed, empty_sum, player)
            elif empties == 2 and find_fours:
                first = -1
                for i in range(start, start + k):
                    if state[low + i * step] == 0:
                        if first < 0:
                            first = i
                        else:
                            _pair(partner, first, i)
                            _pair(partner, i, first)
        if find_fours:
            for i in range(length):
                if partner[i] == _DOUBLE:
                    _list(threats, counts, listed, low + i * step, 2 + player)


_DOUBLE = -2  # a cell with two different partners


@njit(cache=True, inline="always")
def _pair(partner: np.ndarray, position: int, other: int) -> None:
    """Record that ``position`` would turn ``other`` into a win cell (_DOUBLE once two would)."""
    if partner[position] == -1:
        partner[position] = other
    elif partner[position] != other:
        partner[position] = _DOUBLE


@njit(cache=True, inline="always")
def _list(
    threats: np.ndarray, counts: np.ndarray, listed: np.ndarray, cell: int, kind: int
) -> None:
    """Append ``cell`` to list ``kind`` unless it is there."""
    if listed[cell] & (1 << kind) == 0:
        listed[cell] |= 1 << kind
        threats[kind, counts[kind]] = cell
        counts[kind] += 1


@njit(cache=True)
def _makes_two_wins(state: np.ndarray, cell: int, stone: int, stride: int, k: int) -> bool:
    """Whether ``stone`` on empty ``cell`` would leave two different win cells."""
    state[cell] = stone
    found = -1
    double = False
    for step in (1, stride, stride + 1, stride - 1):
        low, length, own = _segment(state, cell, stone, step, k)
        if own < k - 1:
            continue
        for start in range(length - k + 1):
            empties = 0
            empty = -1
            for i in range(start, start + k):
                if state[low + i * step] == 0:
                    empties += 1
                    empty = low + i * step
            if empties == 1:
                if found < 0:
                    found = empty
                elif empty != found:
                    double = True
        if double:
            break
    state[cell] = 0
    return double


@njit(WINNING_MOVE_SIG, cache=True)
def winning_move(state: np.ndarray) -> int:
    """A move that wins by force: k in a row at once, or two win cells the opponent cannot meet.

    Two win cells (an open or double four) win when the opponent has no win
    cell of their own: they can fill one, and the other completes the line
    (the threat logic of Allis, van den Herik & Huntjens 1996). One sweep of
    k-cell windows along every line finds them all: a window with k - 1 of
    the mover's stones and one empty cell holds a win cell; one with k - 2
    and two empty cells makes each empty cell the other's *partner*, and a
    cell with two different partners makes two win cells at once.
    """
    if state[STATUS] != ONGOING:
        return -1
    width = state[WIDTH]
    stride = width + 1
    k = state[K]
    stone = state[TO_MOVE] + 1
    partner = np.full(state.shape[0], -1, dtype=np.int64)
    # A window's contents as one sum: own stones count 1, the opponent's
    # 1 << 8, and each empty cell 1 << 16 plus its index << 24 (to find it).
    weight = np.zeros(3, dtype=np.int64)
    weight[stone] = 1
    weight[3 - stone] = 1 << 8
    threatened = False
    for step in (1, stride, stride + 1, stride - 1):
        for row in range(state[HEIGHT]):
            first = CELLS + (row + 1) * stride + 1
            for column in range(width):
                start = first + column
                if state[start - step] != BORDER:
                    continue  # not the first cell of a line along ``step``
                window = 0
                length = 0
                cell = start
                while state[cell] != BORDER:
                    window += (
                        ((1 << 16) + (cell << 24)) if state[cell] == 0 else weight[state[cell]]
                    )
                    if length >= k:
                        leaving = cell - k * step
                        window -= (
                            ((1 << 16) + (leaving << 24))
                            if state[leaving] == 0
                            else weight[state[leaving]]
                        )
                    length += 1
                    own = window & 255
                    other = (window >> 8) & 255
                    if length >= k and other == 0:
                        if own == k - 1:
                            return _move_of(window >> 24, width)
                        if own == k - 2:
                            pair_first = -1
                            for i in range(k):
                                if state[cell - i * step] == 0:
                                    if pair_first < 0:
                                        pair_first = cell - i * step
                                    else:
                                        _pair(partner, pair_first, cell - i * step)
                                        _pair(partner, cell - i * step, pair_first)
                    threatened |= length >= k and own == 0 and other == k - 1
                    cell += step
    if threatened:
        return -1
    for cell in range(partner.shape[0]):
        if partner[cell] == _DOUBLE:
            return _move_of(cell, width)
    return -1


@njit(cache=True, inline="always")
def _live_threat(
    state: np.ndarray,
    threats: np.ndarray,
    counts: np.ndarray,
    listed: np.ndarray,
    kind: int,
    stride: int,
    k: int,
) -> int:
    """A cell of list ``kind`` that is still a threat, or -1; the others are dropped on the way.

    Win cells only need to be empty; four points are checked again, as the
    opponent may have blocked their line since.
    """
    count = counts[kind]
    stone = kind % 2 + 1
    while count > 0:
        cell = threats[kind, count - 1]
        if state[cell] == 0 and (kind < 2 or _makes_two_wins(state, cell, stone, stride, k)):
            break
        count -= 1
        listed[cell] &= ~(1 << kind)
    counts[kind] = count
    return threats[kind, count - 1] if count > 0 else -1


#: Playout levels: random moves; decisive and anti-decisive moves; those and four points.
RANDOM, DECISIVE, THREATS = 0, 1, 2


@njit(cache=True)
def _playout(state: np.ndarray, rng: np.ndarray, level: int, played: np.ndarray) -> int:
    """Play to the end with random moves, checked by ``level``.

    DECISIVE plays a win when there is one, else blocks the opponent's
    (Teytaud & Teytaud 2010). THREATS then makes a four point (an open or
    double four, which wins) and else takes the opponent's (answering an
    open three), the first threats of Gomoku tactics (Allis, van den Herik
    & Huntjens 1996). Threat lists are updated around each new stone, so a
    checked move costs a few dozen reads rather than a scan of the board.
    The moves go into ``played`` as :data:`mctslab._jit.ROLLOUT_SIG` says.
    """
    if state[STATUS] != ONGOING:
        return 0
    width = state[WIDTH]
    height = state[HEIGHT]
    k = state[K]
    stride = width + 1
    cells = width * height
    size = state.shape[0]
    empty = np.empty(cells, dtype=np.int64)
    where = np.empty(size, dtype=np.int64)  # a cell's index in ``empty``
    threats = np.empty((4, cells if level > RANDOM else 0), dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    listed = np.zeros(size if level > RANDOM else 0, dtype=np.int8)
    partner = np.empty(2 * k, dtype=np.int64)
    remaining = 0
    for row in range(height):
        first = CELLS + (row + 1) * stride + 1
        for column in range(width):
            cell = first + column
            if state[cell] == 0:
                empty[remaining] = cell
                where[cell] = remaining
                remaining += 1
                continue
            if level > RANDOM:
                _add_threats(
                    state,
                    cell,
                    state[cell] - 1,
                    stride,
                    k,
                    threats,
                    counts,
                    listed,
                    partner,
                    level == THREATS,
                )
    player = state[TO_MOVE]
    stones = 0
    status = DRAW
    cell = -1
    while remaining > 0:
        won = False
        cell = -1
        if level > RANDOM:
            # Lists are mostly empty: test their counts before calling.
            if counts[player] > 0:
                cell = _live_threat(state, threats, counts, listed, player, stride, k)
                won = cell >= 0
            for kind in (1 - player, 2 + player, 3 - player):
                if cell < 0 and counts[kind] > 0 and (kind < 2 or level == THREATS):
                    cell = _live_threat(state, threats, counts, listed, kind, stride, k)
        if cell < 0:
            cell = empty[randint(rng, remaining)]
        index = where[cell]
        remaining -= 1
        empty[index] = empty[remaining]
        where[empty[index]] = index
        state[cell] = player + 1
        if stones < played.shape[0]:
            played[stones] = _move_of(cell, width)
        stones += 1
        # Checked play completes k exactly when it takes a win cell.
        if won or (level == RANDOM and _completes_line(state, cell, player + 1, stride, k)):
            status = player
            player = 1 - player
            break
        if level > RANDOM:
            _add_threats(
                state, cell, player, stride, k, threats, counts, listed, partner, level == THREATS
            )
        player = 1 - player
    state[LAST] = _move_of(cell, width)
    state[PLY] += stones
    state[TO_MOVE] = player
    state[STATUS] = status
    return min(stones, played.shape[0])


@njit(ROLLOUT_SIG, cache=True)
def decisive_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Random moves, but a win is taken and the opponent's is blocked (Teytaud & Teytaud 2010)."""
    return _playout(state, rng, DECISIVE, played)


@njit(ROLLOUT_SIG, cache=True)
def threat_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Decisive playout that also makes and answers open fours (see :func:`_playout`)."""
    return _playout(state, rng, THREATS, played)


KERNEL = Kernel(
    legal_moves,
    apply,
    is_terminal,
    returns,
    current_player,
    rollout,
    winning_move=winning_move,
    playouts={"decisive": decisive_rollout, "threats": threat_rollout},
    candidate_moves=candidate_moves,
    prefers_rave=True,
    preferred_playout="threats",
)
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
        return self.render()

    def render(self, columns: str = COLUMN_LETTERS, *, width: int | None = None) -> str:
        """The board as text, its columns named by ``columns`` (GTP's letters skip ``i``),
        compact where it would be wider than ``width``."""
        rows = [[_SYMBOLS[cell] for cell in row] for row in self.board()]
        last = int(self._data[LAST])
        return render_grid(
            rows,
            row_labels=[str(self.height - r) for r in range(self.height)],
            last=divmod(last, self.width) if last >= 0 else None,
            columns=columns,
            width=width,
        )


def moves_in_turn(black: Sequence[int], white: Sequence[int]) -> list[int]:
    """Moves that put ``black``'s and ``white``'s stones on an empty board in turn, Black's
    first (the order of a colour's stones does not change the position they make).

    Raises ValueError unless Black has as many stones as White or one more, as moves made
    in turn leave them: another count would have a stone played in the other colour.
    """
    if not 0 <= len(black) - len(white) <= 1:
        raise ValueError(
            f"{len(black)} black and {len(white)} white stones cannot come from moves made in "
            "turn: Black, who moves first, has as many stones as White or one more"
        )
    moves = [move for pair in zip(black, white, strict=False) for move in pair]
    moves.extend(black[len(white) :])
    return moves


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
