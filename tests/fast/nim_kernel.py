"""Nim, a game of one's own on the compiled engine (the README's example, word for word).

Heaps of stones; a move takes stones from one heap; whoever takes the last
stone wins. Bouton (1901): the player to move wins exactly when the XOR of
the heaps is not 0.
"""

import numpy as np
from numba import njit

from mctslab.kernel import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    GameSpec,
    Kernel,
    State,
    randint,
    record,
)

MOST = 15  # stones a heap may hold; move id = heap * MOST + stones taken - 1
TO_MOVE, HEAPS = 0, 1  # the state array: the player to move, then the heaps


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state, out):
    count = 0
    for heap in range(state.shape[0] - HEAPS):
        for taken in range(state[HEAPS + heap]):
            out[count] = heap * MOST + taken
            count += 1
    return count


@njit(APPLY_SIG, cache=True)
def apply(state, move):
    state[HEAPS + move // MOST] -= move % MOST + 1
    state[TO_MOVE] = 1 - state[TO_MOVE]


@njit(IS_TERMINAL_SIG, cache=True)
def is_terminal(state):
    return state[HEAPS:].sum() == 0


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    out[:] = 0.0
    if is_terminal(state):  # the player who took the last stone wins
        out[1 - state[TO_MOVE]] = 1.0
        out[state[TO_MOVE]] = -1.0


@njit(CURRENT_PLAYER_SIG, cache=True)
def current_player(state):
    return state[TO_MOVE]


@njit(ROLLOUT_SIG, cache=True)
def rollout(state, rng, played):
    moves = np.empty((state.shape[0] - HEAPS) * MOST, dtype=np.int64)
    recorded = 0
    while not is_terminal(state):
        move = moves[randint(rng, legal_moves(state, moves))]
        apply(state, move)
        recorded = record(played, recorded, move)
    return recorded


class NimState(State):
    kernel = Kernel(legal_moves, apply, is_terminal, returns, current_player, rollout)
    __slots__ = ()

    @property
    def heaps(self):
        return self.data[HEAPS:].tolist()

    def _parse_notation(self, text):  # "2:3" takes 3 stones from heap 2
        heap, _, taken = text.partition(":")
        if heap.isdigit() and taken.isdigit():
            heap, taken = int(heap), int(taken)
            if 1 <= heap <= len(self.heaps) and 1 <= taken <= MOST:
                return (heap - 1) * MOST + taken - 1
        return None

    def _format_move(self, move):
        return f"{move // MOST + 1}:{move % MOST + 1}"

    def notation_help(self):
        return "heap:stones, e.g. 2:3 takes 3 stones from heap 2"

    def _end_reason(self, winner):
        return "took the last stone"

    def __str__(self):
        return f"heaps {self.heaps}, {self.spec.player_names[self.current_player]} to move"


def make_nim(*heaps):
    if not sum(heaps) or not all(0 <= heap <= MOST for heap in heaps):
        raise ValueError(f"give heaps of 0 to {MOST} stones, not all empty; got {heaps}")
    spec = GameSpec(
        name="nim",
        num_players=2,
        num_actions=len(heaps) * MOST,
        max_game_length=sum(heaps),
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("A", "B"),
    )
    return NimState(spec, np.array([0, *heaps], dtype=np.int64))
