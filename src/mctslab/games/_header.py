"""The state header of the two-player board games, and the kernels that only read it.

Tic-tac-toe, Connect Four, Gomoku and Othello begin their state arrays with
the same four words: the player to move, the ply, the status (ONGOING, a
winner's index or DRAW) and the last move. ``apply`` keeps the status up to
date, so whether the game is over, who won and who moves are header reads,
written once here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mctslab._jit import CURRENT_PLAYER_SIG, IS_TERMINAL_SIG, RETURNS_SIG

#: Header words; a game's own parameters and position follow from HEADER on.
TO_MOVE, PLY, STATUS, LAST = 0, 1, 2, 3
HEADER = 4
#: STATUS values besides a winner's index (0 or 1).
ONGOING, DRAW = -1, 2


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
