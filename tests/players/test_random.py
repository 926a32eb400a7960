"""The random player: every legal move, and none after the end."""

from __future__ import annotations

import pytest

from mctslab import make
from mctslab.games import GameOverError
from mctslab.players import RandomPlayer


def test_it_plays_each_legal_move_and_only_those() -> None:
    state = make("tictactoe")
    for text in ("a1", "b2"):
        state.play(state.parse_move(text))
    player = RandomPlayer(seed=1)
    chosen = {player.choose(state) for _ in range(500)}
    assert chosen == set(state.legal_moves())


def test_a_finished_game_has_no_move_to_choose() -> None:
    # Before: IndexError "Cannot choose from an empty sequence".
    state = make("tictactoe")
    for text in ("a1", "a2", "b1", "b2", "c1"):
        state.play(state.parse_move(text))
    with pytest.raises(GameOverError, match="The game is over; there is no move to choose"):
        RandomPlayer(seed=1).choose(state)
