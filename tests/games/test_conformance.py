"""Every registered game passes the protocol conformance check."""

from __future__ import annotations

import pytest

from mctslab.games import available_games, check_game, make


@pytest.mark.parametrize("name", available_games())
def test_check_game(name: str) -> None:
    check_game(lambda: make(name), games=10)


def test_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Unknown game 'chess'; available games: "):
        make("chess")


def test_unknown_parameter_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Unknown parameter"):
        make("tictactoe", size=4)
