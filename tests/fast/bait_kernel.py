"""A game built so that its value is known by construction: a draw offered as bait.

A (player 0) moves first, "bait" or "steady"; the players then alternate.

- After bait, B takes the draw (the game ends drawn) or plays one of the
  other WIDTH - 1 moves, each a blunder: a race of LENGTH moves follows,
  every move of it any of WIDTH, and A wins at its end whatever is played.
  Bait is worth a draw to A: B takes the draw.
- After steady comes a race of LENGTH moves too, B first, and A wins at its
  end unless A played move 0 in it (a slip). Steady is a win for A, who
  never slips; random playouts slip now and then, so it looks worth
  (1 - 1/WIDTH) ** (LENGTH / 2) = 51% to A before the search learns to
  keep A from slipping near its top.

The state keeps the race's moves, so that no two lines of a race meet (B's
blunders after bait, which do not, end in one position): the races are too
wide and long for a search to prove, and a search values both
of A's moves by their playouts, bait by B's blunders (all A's wins) unless
it keeps to the draw.
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

WIDTH, LENGTH = 8, 10
BAIT, STEADY = 0, 1  # A's first moves; B's move 0 after bait takes the draw
TO_MOVE, PHASE, PLY, SLIPPED, RACE = 0, 1, 2, 3, 4  # the state array
START, OFFERED, DRAWN, BLUNDERED, RACING = 0, 1, 2, 3, 4  # the phases


@njit(IS_TERMINAL_SIG, cache=True)
def is_terminal(state):
    return state[PHASE] == DRAWN or state[PLY] == LENGTH


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state, out):
    if is_terminal(state):
        return 0
    count = 2 if state[PHASE] == START else WIDTH
    for move in range(count):
        out[move] = move
    return count


@njit(APPLY_SIG, cache=True)
def apply(state, move):
    phase = state[PHASE]
    if phase == START:
        state[PHASE] = OFFERED if move == BAIT else RACING
    elif phase == OFFERED:
        state[PHASE] = DRAWN if move == 0 else BLUNDERED
    else:
        if phase == RACING and state[TO_MOVE] == 0 and move == 0:
            state[SLIPPED] = 1
        state[RACE] = state[RACE] * WIDTH + move  # WIDTH ** LENGTH fits in an int64
        state[PLY] += 1
    state[TO_MOVE] = 1 - state[TO_MOVE]


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    out[:] = 0.0
    if is_terminal(state) and state[PHASE] != DRAWN:
        winner = state[SLIPPED]  # A (0) unless A slipped
        out[winner] = 1.0
        out[1 - winner] = -1.0


@njit(CURRENT_PLAYER_SIG, cache=True)
def current_player(state):
    return state[TO_MOVE]


@njit(ROLLOUT_SIG, cache=True)
def rollout(state, rng, played):
    moves = np.empty(WIDTH, dtype=np.int64)
    recorded = 0
    while not is_terminal(state):
        move = moves[randint(rng, legal_moves(state, moves))]
        apply(state, move)
        recorded = record(played, recorded, move)
    return recorded


class BaitState(State):
    kernel = Kernel(legal_moves, apply, is_terminal, returns, current_player, rollout)
    __slots__ = ()

    def _parse_notation(self, text):
        if self.data[PHASE] == START:
            return ("bait", "steady").index(text) if text in ("bait", "steady") else None
        return int(text) if text.isdigit() else None

    def _format_move(self, move):
        if self.data[PHASE] == START:
            return ("bait", "steady")[move]
        return str(move)

    def notation_help(self):
        return "bait or steady, then a move's number"

    def _end_reason(self, winner):
        return "the race is run" if winner is not None else "the draw was taken"

    def __str__(self):
        return f"phase {self.data[PHASE]}, ply {self.data[PLY]}"


def make_bait():
    spec = GameSpec(
        name="bait",
        num_players=2,
        num_actions=WIDTH,
        max_game_length=2 + LENGTH,
        min_return=-1.0,
        max_return=1.0,
        zero_sum=True,
        player_names=("A", "B"),
    )
    return BaitState(spec, np.zeros(5, dtype=np.int64))
