"""The countdown game: two players count down from ``start``; whoever says 1 wins.

On each turn the player to move says one, two or three consecutive numbers,
continuing the count down from the next number; nobody may count below 1.
Move id ``k`` says ``k + 1`` numbers and is written as that count ("1", "2",
"3"). It is the subtraction game with subtraction set {1, 2, 3}: the player
to move wins exactly when the next number is not a multiple of 4 (leave the
opponent a multiple of 4). :func:`solve` computes that by dynamic programming,
without assuming it, so tests can check the rule against the game tree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    randint,
    record,
)
from mctslab._validation import check_int
from mctslab.games._base import GameSpec, Kernel, State

# State layout: TO_MOVE, the starting number (a parameter), the next number to
# say (0 once somebody has said 1), and how many numbers the last move said.
TO_MOVE, START, NEXT, LAST = 0, 1, 2, 3
STATE_SIZE = 4
MAX_SAY = 3
MAX_START = 1_000_000
NO_MOVE = -1


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    count = min(MAX_SAY, state[NEXT])
    for move in range(count):
        out[move] = move
    return count


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    state[NEXT] -= move + 1
    state[LAST] = move + 1
    state[TO_MOVE] = 1 - state[TO_MOVE]


@njit(IS_TERMINAL_SIG, cache=True)
def is_terminal(state: np.ndarray) -> bool:
    return state[NEXT] <= 0


@njit(RETURNS_SIG, cache=True)
def returns(state: np.ndarray, out: np.ndarray) -> None:
    out[0] = 0.0
    out[1] = 0.0
    if state[NEXT] <= 0:
        # The player who said 1 made the last move; the other one is to move.
        out[1 - state[TO_MOVE]] = 1.0
        out[state[TO_MOVE]] = -1.0


@njit(CURRENT_PLAYER_SIG, cache=True)
def current_player(state: np.ndarray) -> int:
    return state[TO_MOVE]


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    recorded = 0
    while state[NEXT] > 0:
        move = randint(rng, min(MAX_SAY, state[NEXT]))
        apply(state, move)
        recorded = record(played, recorded, move)
    return recorded


@njit(WINNING_MOVE_SIG, cache=True)
def winning_move(state: np.ndarray) -> int:
    # Saying every number left down to 1 wins.
    return state[NEXT] - 1 if 0 < state[NEXT] <= MAX_SAY else -1


@njit(ROLLOUT_SIG, cache=True)
def decisive_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Random moves, but 1 is said when it can be and never left within the opponent's reach.

    Teytaud & Teytaud's (2010) decisive move, and their anti-decisive one in
    the form this game allows: a move after which the opponent cannot win at
    once (next number above 3), when there is one.
    """
    recorded = 0
    while state[NEXT] > 0:
        left = state[NEXT]
        if left <= MAX_SAY:
            move = left - 1
        elif left > MAX_SAY + 1:
            move = randint(rng, min(MAX_SAY, left - MAX_SAY - 1))
        else:
            move = randint(rng, MAX_SAY)
        apply(state, move)
        recorded = record(played, recorded, move)
    return recorded


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


class CountdownState(State):
    kernel = KERNEL
    history_fields = (LAST,)
    __slots__ = ()

    @property
    def next_number(self) -> int:
        """The next number to be said; 0 once somebody has said 1."""
        return int(self._data[NEXT])

    def _parse_notation(self, text: str) -> int | None:
        if text in ("1", "2", "3"):
            return int(text) - 1
        return None

    def _format_move(self, move: int) -> str:
        return str(move + 1)

    def notation_help(self) -> str:
        # Shown in brackets (play's help, a bad move's error), so none of its own; the goal is here
        # because the move prompt is all a person new to the game reads.
        return "how many numbers to say, 1, 2 or 3, never counting below 1; whoever says 1 wins"

    def _end_reason(self, winner: int | None) -> str:
        return "said 1" if winner is None else f"{self.spec.player_names[winner]} said 1"

    def __str__(self) -> str:
        start = int(self._data[START])
        last = int(self._data[LAST])
        said = ""
        if last != NO_MOVE:
            top = self.next_number + last
            numbers = ", ".join(str(n) for n in range(top, self.next_number, -1))
            said = f"{self.spec.player_names[1 - self.current_player]} said {numbers}. "
        if self.is_terminal():
            winner = self.spec.player_names[1 - self.current_player]
            return f"Countdown from {start}: {said}{winner} wins."
        return (
            f"Countdown from {start}: {said}Next number: {self.next_number}; "
            f"{self.spec.player_names[self.current_player]} to move."
        )


def make(*, start: int = 20) -> CountdownState:
    """A new countdown from ``start`` (1..1_000_000); player 1 (index 0) moves first."""
    start = check_int(start, "start", "countdown", low=1, high=MAX_START)
    spec = GameSpec(
        name="countdown",
        num_players=2,
        num_actions=MAX_SAY,
        max_game_length=start,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("Player 1", "Player 2"),
        params={"start": start},
    )
    data = np.zeros(STATE_SIZE, dtype=np.int64)
    data[START] = start
    data[NEXT] = start
    data[LAST] = NO_MOVE
    return CountdownState(spec, data)


class Solution(NamedTuple):
    """The game-theoretic value of a countdown position (the next number to say)."""

    #: Whether the player to move wins with best play.
    wins: bool
    #: Every move id that keeps a win (empty for a lost position).
    winning_moves: frozenset[int]


def solve(n_max: int) -> list[Solution]:
    """Exact values for every next number ``0..n_max``, by dynamic programming.

    Entry ``n`` is the position where ``n`` is the next number to say; entry 0
    is the finished game, lost for the player to move (the opponent said 1).
    Built bottom-up, so it needs neither recursion nor the mod-4 rule.
    """
    n_max = check_int(n_max, "n_max", "countdown.solve", low=0, high=MAX_START)
    table = [Solution(False, frozenset())]
    for n in range(1, n_max + 1):
        winning = frozenset(move for move in range(min(MAX_SAY, n)) if not table[n - move - 1].wins)
        table.append(Solution(bool(winning), winning))
    return table
