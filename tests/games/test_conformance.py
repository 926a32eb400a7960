"""Every registered game passes the protocol conformance check."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mctslab.games import InvalidMoveError, available_games, check_game, make


@pytest.mark.parametrize("name", available_games())
def test_check_game(name: str) -> None:
    check_game(lambda: make(name), games=10)


def test_unknown_game_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Unknown game 'chess'; available games: "):
        make("chess")


def test_unknown_parameter_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="Unknown parameter"):
        make("tictactoe", size=4)


@pytest.mark.parametrize("name", available_games())
def test_a_move_id_out_of_range_is_refused_even_by_apply(name: str) -> None:
    # The compiled rules index the board by the id: before, apply(10**9) crashed
    # the interpreter on Gomoku and apply(-5) played c1 in tic-tac-toe.
    state = make(name)
    before = state.clone()
    for move in (-1, -5, state.spec.num_actions, 10**9):
        with pytest.raises(InvalidMoveError, match=f"is not a move id of {name}: ids are 0 to"):
            state.apply(move)
        with pytest.raises(InvalidMoveError, match="is not a move id"):
            state.move_to_str(move)
        # Not "Move 65 is not legal for Black" while apply(65) said what ids there are.
        with pytest.raises(InvalidMoveError, match=f"{move} is not a move id of {name}: ids are"):
            state.play(move)
    assert state == before


#: Digits of other scripts (Arabic-Indic, fullwidth), which a regular expression's \d
#: matches and int() reads as 0-9.
OTHER_DIGITS = [
    "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
    "０１２３４５６７８９",
]


@pytest.mark.parametrize("name", available_games())
def test_notation_takes_ascii_digits_only(name: str) -> None:
    # make("gomoku").parse_move("h\u0668") was h8.
    state = make(name)
    for digits in OTHER_DIGITS:
        other_script = str.maketrans("0123456789", digits)
        for move in state.legal_moves():
            text = state.move_to_str(move).translate(other_script)
            with pytest.raises(InvalidMoveError, match=re.escape(f"{text!r} is not a move in")):
                state.parse_move(text)


def test_notation_takes_ascii_letters_only() -> None:
    # The Kelvin sign lowers to "k": it was read as column k.
    state = make("gomoku", size=15)
    with pytest.raises(InvalidMoveError, match="is not a move in"):
        state.parse_move("\u212a8")


@pytest.mark.parametrize("move", [1.0, True, None, b"1", np.float64(2.0)])
def test_a_move_that_is_not_an_int_is_refused_not_truncated(move: object) -> None:
    state = make("tictactoe")
    with pytest.raises(InvalidMoveError, match="A move must be an int id or text in tictactoe"):
        state.play(move)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match=r"A move must be an int id; got"):
        state.move_to_str(move)  # type: ignore[arg-type]
    assert state == make("tictactoe")
    assert state.move_to_str(np.int64(4)) == state.move_to_str(4)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"games": 0}, r"The 'games' parameter of check_game must be an int >= 1. Got 0 instead."),
        ({"games": -1}, r"The 'games' parameter of check_game must be an int >= 1. Got -1"),
        ({"games": 2.5}, r"The 'games' parameter of check_game must be an int >= 1. Got 2.5"),
        ({"seed": "x"}, r"The 'seed' parameter of check_game must be an int. Got 'x' instead."),
        ({"seed": None}, r"The 'seed' parameter of check_game must be an int. Got None instead."),
    ],
)
def test_check_game_refuses_counts_and_seeds_that_are_no_ints(
    arguments: dict[str, object], message: str
) -> None:
    # Before, games=0 or -1 passed having checked nothing, and seed='x' raised a bare TypeError.
    with pytest.raises(ValueError, match=message):
        check_game(lambda: make("tictactoe"), **arguments)  # type: ignore[arg-type]


def test_check_game_asks_for_a_function_that_makes_positions_not_a_position() -> None:
    # Before: "'TicTacToeState' object is not callable", with no hint of what to pass.
    with pytest.raises(
        ValueError,
        match=r"The 'new_state' parameter of check_game must be a function that returns a new "
        r"start position, such as lambda: make\('tictactoe'\). Got <TicTacToeState",
    ):
        check_game(make("tictactoe"))  # type: ignore[arg-type]
