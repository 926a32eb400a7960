"""Othello (Reversi) on 8x8, on bitboards.

Notation is the Othello convention: column letter a-h then row 1-8 counted
from the *top* ("f5"); a pass is written "pass". Black (player 0, "X")
moves first from the standard start (d4, e5 white; d5, e4 black).

Move ids 0..63 are squares, ``row * 8 + column`` with row 0 at the top, and
64 is a pass. A pass is legal only when the side to move has no placement
and the opponent has one, so the game ends exactly when neither side can
place a disc; the side with more discs wins. The kernel caches the side to
move's placements, so every legal-move query and the end-of-game test are
O(1) and each move costs one mobility generation (two around passes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    LEGAL_MOVES_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    randint,
    record,
)
from mctslab.games._base import GameSpec, Kernel, State
from mctslab.games._board import COLUMN_LETTERS, parse_letter_number, render_grid
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

# State layout: header, then one 64-bit disc board per player (bit i = square i,
# the bit pattern stored as int64). MOBILITY caches the placements of the side
# to move: 0 means it must pass (or the game is over).
MOBILITY, DISCS = HEADER, HEADER + 1
STATE_SIZE = DISCS + 2
SIZE = 8
PASS = SIZE * SIZE
NO_MOVE = -1
#: Every pass is followed by a placement and there are at most 60 placements.
MAX_GAME_LENGTH = 2 * (SIZE * SIZE - 4)

_U64_MASK = (1 << 64) - 1
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
# Shifting a board one column east (west) wraps the h-file (a-file) onto the
# next row; masking the result with "not column a" ("not column h") drops it.
_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_ALL = np.uint64(_U64_MASK)
_S1, _S7, _S8, _S9 = np.uint64(1), np.uint64(7), np.uint64(8), np.uint64(9)
_S2, _S4, _S56, _S58 = np.uint64(2), np.uint64(4), np.uint64(56), np.uint64(58)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
# De Bruijn bit scan (Leiserson, Prokop & Randall, "Using de Bruijn sequences
# to index a 1 in a computer word", 1998): an isolated bit times the sequence
# puts a distinct 6-bit pattern in the top bits.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)


def _bit_index_table() -> np.ndarray:
    table = np.zeros(64, dtype=np.int64)
    for square in range(64):
        table[(((1 << square) * int(_DEBRUIJN)) & _U64_MASK) >> 58] = square
    return table


_BIT_INDEX = _bit_index_table()


@njit(cache=True, inline="always")
def _forward(board: np.uint64, shift: np.uint64, mask: np.uint64) -> np.uint64:
    """Move every disc ``shift`` squares towards higher indices (east/south), masking wraps."""
    return (board << shift) & mask


@njit(cache=True, inline="always")
def _back(board: np.uint64, shift: np.uint64, mask: np.uint64) -> np.uint64:
    """Move every disc ``shift`` squares towards lower indices (west/north), masking wraps."""
    return (board >> shift) & mask


@njit(cache=True, inline="always")
def _targets_forward(
    own: np.uint64, opp: np.uint64, empty: np.uint64, s: np.uint64, m: np.uint64
) -> np.uint64:
    """Empty squares that bracket a run of ``opp`` discs ending on ``own``, one direction."""
    run = _forward(own, s, m) & opp
    for _ in range(5):
        run |= _forward(run, s, m) & opp
    return _forward(run, s, m) & empty


@njit(cache=True, inline="always")
def _targets_back(
    own: np.uint64, opp: np.uint64, empty: np.uint64, s: np.uint64, m: np.uint64
) -> np.uint64:
    run = _back(own, s, m) & opp
    for _ in range(5):
        run |= _back(run, s, m) & opp
    return _back(run, s, m) & empty


@njit(cache=True)
def _mobility(own: np.uint64, opp: np.uint64) -> np.uint64:
    """The squares where ``own`` may place a disc (flood fill in the 8 directions)."""
    empty = ~(own | opp)
    moves = _targets_forward(own, opp, empty, _S1, _NOT_A)
    moves |= _targets_back(own, opp, empty, _S1, _NOT_H)
    moves |= _targets_forward(own, opp, empty, _S8, _ALL)
    moves |= _targets_back(own, opp, empty, _S8, _ALL)
    moves |= _targets_forward(own, opp, empty, _S9, _NOT_A)
    moves |= _targets_back(own, opp, empty, _S9, _NOT_H)
    moves |= _targets_forward(own, opp, empty, _S7, _NOT_H)
    moves |= _targets_back(own, opp, empty, _S7, _NOT_A)
    return moves


@njit(cache=True, inline="always")
def _ray_forward(
    own: np.uint64, opp: np.uint64, bit: np.uint64, s: np.uint64, m: np.uint64
) -> np.uint64:
    """The ``opp`` discs that a disc on ``bit`` turns in one direction (closed by ``own``)."""
    flips = _ZERO
    square = _forward(bit, s, m)
    while square & opp:
        flips |= square
        square = _forward(square, s, m)
    return flips if square & own else _ZERO


@njit(cache=True, inline="always")
def _ray_back(
    own: np.uint64, opp: np.uint64, bit: np.uint64, s: np.uint64, m: np.uint64
) -> np.uint64:
    flips = _ZERO
    square = _back(bit, s, m)
    while square & opp:
        flips |= square
        square = _back(square, s, m)
    return flips if square & own else _ZERO


@njit(cache=True)
def _flips(own: np.uint64, opp: np.uint64, bit: np.uint64) -> np.uint64:
    """All discs turned by placing ``own``'s disc on ``bit``."""
    flips = _ray_forward(own, opp, bit, _S1, _NOT_A)
    flips |= _ray_back(own, opp, bit, _S1, _NOT_H)
    flips |= _ray_forward(own, opp, bit, _S8, _ALL)
    flips |= _ray_back(own, opp, bit, _S8, _ALL)
    flips |= _ray_forward(own, opp, bit, _S9, _NOT_A)
    flips |= _ray_back(own, opp, bit, _S9, _NOT_H)
    flips |= _ray_forward(own, opp, bit, _S7, _NOT_H)
    flips |= _ray_back(own, opp, bit, _S7, _NOT_A)
    return flips


@njit(cache=True)
def _popcount(board: np.uint64) -> int:
    """Number of set bits (the SWAR sum; numba exposes no popcount intrinsic)."""
    x = board - ((board >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return int((x * _H01) >> _S56)


@njit(cache=True)
def _lowest_square(board: np.uint64) -> int:
    """Index of the lowest set bit of a non-empty board."""
    lowest = board & (~board + _ONE)
    return _BIT_INDEX[(lowest * _DEBRUIJN) >> _S58]


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    moves = np.uint64(state[MOBILITY])
    if moves == _ZERO:
        out[0] = PASS
        return 1
    count = 0
    while moves != _ZERO:
        out[count] = _lowest_square(moves)
        moves &= moves - _ONE
        count += 1
    return count


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    player = state[TO_MOVE]
    own = np.uint64(state[DISCS + player])
    opp = np.uint64(state[DISCS + 1 - player])
    if move != PASS:
        bit = _ONE << np.uint64(move)
        flipped = _flips(own, opp, bit)
        own |= bit | flipped
        opp &= ~flipped
        state[DISCS + player] = np.int64(own)
        state[DISCS + 1 - player] = np.int64(opp)
    state[TO_MOVE] = 1 - player
    state[PLY] += 1
    state[LAST] = move
    following = _mobility(opp, own)
    state[MOBILITY] = np.int64(following)
    if following == _ZERO and _mobility(own, opp) == _ZERO:
        mover_discs = _popcount(own)
        other_discs = _popcount(opp)
        if mover_discs == other_discs:
            state[STATUS] = DRAW
        else:
            state[STATUS] = player if mover_discs > other_discs else 1 - player


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    recorded = 0
    while state[STATUS] == ONGOING:
        moves = np.uint64(state[MOBILITY])
        if moves == _ZERO:
            apply(state, PASS)
            recorded = record(played, recorded, PASS)
            continue
        for _ in range(randint(rng, _popcount(moves))):
            moves &= moves - _ONE
        square = _lowest_square(moves)
        apply(state, square)
        recorded = record(played, recorded, square)
    return recorded


@njit(WINNING_MOVE_SIG, cache=True)
def winning_move(state: np.ndarray) -> int:
    """A placement after which neither side can place a disc and the mover has more discs.

    A pass never ends the game (it is only legal when the opponent can
    place). Othello offers no decisive playout: such moves are rare before
    the last empties, and testing every move of a playout for one would
    cost several times the playout itself.
    """
    if state[STATUS] != ONGOING:
        return -1
    player = state[TO_MOVE]
    own = np.uint64(state[DISCS + player])
    opp = np.uint64(state[DISCS + 1 - player])
    moves = np.uint64(state[MOBILITY])
    while moves != _ZERO:
        bit = moves & (~moves + _ONE)
        moves ^= bit
        flipped = _flips(own, opp, bit)
        after_own = own | bit | flipped
        after_opp = opp & ~flipped
        if (
            _popcount(after_own) > _popcount(after_opp)
            and _mobility(after_opp, after_own) == _ZERO
            and _mobility(after_own, after_opp) == _ZERO
        ):
            return _lowest_square(bit)
    return -1


KERNEL = Kernel(
    legal_moves, apply, is_terminal, returns, current_player, rollout, winning_move=winning_move
)
_SYMBOLS = "XO"


class OthelloState(State):
    kernel = KERNEL
    # The ply count and the last move differ between move orders (and pass
    # counts) that reach the same position.
    history_fields = (PLY, LAST)
    __slots__ = ()

    def disc_counts(self) -> tuple[int, int]:
        """Discs of Black (player 0) and White (player 1)."""
        return (self._board(0).bit_count(), self._board(1).bit_count())

    def disc_masks(self) -> tuple[int, int]:
        """Black's and White's discs as 64-bit masks, the form :func:`from_discs` takes."""
        return (self._board(0), self._board(1))

    def _board(self, player: int) -> int:
        return int(self._data[DISCS + player]) & _U64_MASK

    def _parse_notation(self, text: str) -> int | None:
        if text == "pass":
            return PASS
        parsed = parse_letter_number(text)
        if parsed is None:
            return None
        column, number = parsed
        if not (0 <= column < SIZE and 1 <= number <= SIZE):
            return None
        return (number - 1) * SIZE + column

    def _format_move(self, move: int) -> str:
        if move == PASS:
            return "pass"
        row, column = divmod(move, SIZE)
        return f"{COLUMN_LETTERS[column]}{row + 1}"

    def notation_help(self) -> str:
        placement = "column a-h then row 1-8 counted from the top, e.g. f5"
        # A pass is legal only when forced, so it is named only where it is the move: a
        # person is asked only for placements (`mctslab play` and the arena's human player
        # play a forced pass themselves), so never types it.
        if PASS in self.legal_moves():
            return f'{placement}; "pass", the only legal move here'
        return placement

    def _end_reason(self, winner: int | None) -> str:
        # Read after "wins with" or "won with": the winner's count first, no parentheses
        # (the reason is often put in some).
        black, white = self.disc_counts()
        score = f"{max(black, white)} to {min(black, white)}"
        if winner is None:
            return f"equal discs, {score}"
        if min(black, white) == 0:
            return f"a wipe-out, {score}"
        return f"more discs, {score}"

    def __str__(self) -> str:
        return self.render()

    def render(self, *, width: int | None = None) -> str:
        black, white = self._board(0), self._board(1)
        symbols = [
            _SYMBOLS[0] if black >> square & 1 else _SYMBOLS[1] if white >> square & 1 else "."
            for square in range(SIZE * SIZE)
        ]
        rows = [symbols[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
        last = int(self._data[LAST])
        board = render_grid(
            rows,
            row_labels=[str(r + 1) for r in range(SIZE)],
            last=divmod(last, SIZE) if 0 <= last < PASS else None,
            width=width,
        )
        counts = f"X Black {black.bit_count()}  O White {white.bit_count()}"
        if last == PASS:
            counts += f"  (last move: pass by {self.spec.player_names[1 - self.current_player]})"
        outcome = self.outcome()
        if outcome is not None:
            verdict = (
                "a draw"
                if outcome.winner is None
                else f"{self.spec.player_names[outcome.winner]} wins"
            )
            status = f"Game over: {verdict} with {outcome.reason}."
        else:
            player = self.current_player
            status = f"{_SYMBOLS[player]} {self.spec.player_names[player]} to move."
        return f"{board}\n{counts}\n{status}"


def make() -> OthelloState:
    """A new game of Othello from the standard start; Black (player 0, X) moves first."""
    spec = GameSpec(
        name="othello",
        num_players=2,
        num_actions=PASS + 1,
        max_game_length=MAX_GAME_LENGTH,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("Black", "White"),
        board_shape=(SIZE, SIZE),
    )
    d4, e4, d5, e5 = 3 * SIZE + 3, 3 * SIZE + 4, 4 * SIZE + 3, 4 * SIZE + 4
    black = (1 << d5) | (1 << e4)
    white = (1 << d4) | (1 << e5)
    data = np.zeros(STATE_SIZE, dtype=np.int64)
    data[STATUS] = ONGOING
    data[LAST] = NO_MOVE
    data[DISCS] = black
    data[DISCS + 1] = white
    data[MOBILITY] = np.int64(_mobility(np.uint64(black), np.uint64(white)))
    return OthelloState(spec, data)


def from_discs(black: int, white: int, to_move: int = 0) -> OthelloState:
    """A set-up position: the discs as 64-bit masks (bit ``row * 8 + column``) and who moves.

    Engine protocols send positions this way (GGF's ``BO[...]`` in NBoard's
    ``set game``). The history is unknown: the ply count is the number of
    discs placed since the start and there is no last move. A side to move
    without a placement must pass; with no placement for either side the game
    is over, scored by discs as usual.
    """
    for name, mask in (("black", black), ("white", white)):
        if not isinstance(mask, int) or not 0 <= mask <= _U64_MASK:
            raise ValueError(
                f"The {name!r} parameter of from_discs must be an int in [0, 2**64). "
                f"Got {mask!r} instead."
            )
    if black & white:
        raise ValueError(
            "The 'black' and 'white' discs of from_discs must not overlap. "
            f"Got both on bits {black & white:#x} instead."
        )
    if to_move not in (0, 1):
        raise ValueError(
            f"The 'to_move' parameter of from_discs must be 0 or 1. Got {to_move!r} instead."
        )
    state = make()
    data = state._data
    data[DISCS] = _signed(black)
    data[DISCS + 1] = _signed(white)
    data[TO_MOVE] = to_move
    data[PLY] = max(0, (black | white).bit_count() - 4)
    own, opp = (black, white) if to_move == 0 else (white, black)
    mobility = int(_mobility(np.uint64(own), np.uint64(opp)))
    data[MOBILITY] = _signed(mobility)
    if mobility == 0 and int(_mobility(np.uint64(opp), np.uint64(own))) == 0:
        black_discs, white_discs = black.bit_count(), white.bit_count()
        data[STATUS] = (
            DRAW if black_discs == white_discs else (0 if black_discs > white_discs else 1)
        )
    return state


def _signed(mask: int) -> int:
    """A 64-bit mask as the int64 with the same bits (the state array is int64)."""
    return mask - (1 << 64) if mask >> 63 else mask
