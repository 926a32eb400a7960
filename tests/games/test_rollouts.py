"""The games' rollouts pick uniformly among the legal moves (where no win or block decides)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mctslab._jit import SMALL_SET_BITS, new_rng, nth_bit
from mctslab.games import make

ROLLOUTS = 6000


@pytest.mark.parametrize(
    ("game", "moves"),
    [
        ("tictactoe", []),
        ("tictactoe", ["b2"]),
        ("connect4", []),
        ("connect4", ["1", "1", "1", "1", "1", "1"]),  # column 1 full, no threats
        ("gomoku", ["h8", "h9"]),
    ],
)
@pytest.mark.parametrize("playout", ["random", "decisive"])
def test_the_first_playout_move_is_uniform_over_the_legal_moves(
    game: str, moves: list[str], playout: str
) -> None:
    state = make(game, size=9) if game == "gomoku" else make(game)
    for move in moves:
        state.play(move)
    kernel = state.kernel
    rollout = kernel.rollout if playout == "random" else (kernel.playouts or {})[playout]
    rng = new_rng(7)
    played = np.empty(1, dtype=np.int64)
    counts: dict[int, int] = {}
    for _ in range(ROLLOUTS):
        assert rollout(state.data.copy(), rng, played) == 1
        counts[int(played[0])] = counts.get(int(played[0]), 0) + 1
    legal = state.legal_moves()
    assert set(counts) == set(legal)
    expected = ROLLOUTS / len(legal)
    sigma = math.sqrt(expected * (1 - 1 / len(legal)))
    assert all(abs(count - expected) < 5 * sigma for count in counts.values())


def test_nth_bit_counts_set_bits_from_the_lowest() -> None:
    for bits in range(1, 2**SMALL_SET_BITS):
        ones = [i for i in range(SMALL_SET_BITS) if bits >> i & 1]
        assert [nth_bit(bits, n) for n in range(len(ones))] == ones
