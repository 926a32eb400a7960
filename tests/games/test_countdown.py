from __future__ import annotations

import pytest

from mctslab.games import IllegalMoveError, InvalidMoveError, State, make
from mctslab.games.countdown import CountdownState, solve
from tests.conftest import load_data

TRUTH = load_data("countdown.json")


def new_game(start: int) -> CountdownState:
    state = make("countdown", start=start)
    assert isinstance(state, CountdownState)
    return state


def minimax(state: State) -> tuple[float, frozenset[int]]:
    """Value of ``state`` for the player to move and all moves achieving it, from the game tree."""
    if state.is_terminal():
        return state.returns()[state.current_player], frozenset()
    player = state.current_player
    values = {}
    for move in state.legal_moves():
        child = state.clone()
        child.play(move)
        child_value, _ = minimax(child)
        values[move] = child_value if child.current_player == player else -child_value
    best = max(values.values())
    return best, frozenset(m for m, v in values.items() if v == best)


@pytest.mark.parametrize("start", range(1, 15))
def test_solver_matches_brute_force_minimax(start: int) -> None:
    value, best_moves = minimax(new_game(start))
    solution = solve(start)[start]
    assert solution.wins == (value == 1.0)
    if solution.wins:
        assert solution.winning_moves == best_moves
    else:
        assert solution.winning_moves == frozenset()


def test_solver_matches_the_multiple_of_four_rule() -> None:
    modulus = TRUTH["losing_modulus"]
    table = solve(TRUTH["checked_up_to"])
    assert len(table) == TRUTH["checked_up_to"] + 1
    for n, solution in enumerate(table):
        assert solution.wins == (n % modulus != 0), n
        # The only winning move says n mod 4 numbers, leaving a multiple of 4.
        expected = frozenset({n % modulus - 1}) if n % modulus else frozenset()
        assert solution.winning_moves == expected, n


def test_rules_and_outcome() -> None:
    state = new_game(7)
    assert state.legal_moves() == [0, 1, 2]
    assert "Next number: 7; Player 1 to move" in str(state)
    state.play("3")  # says 7, 6, 5
    assert state.next_number == 4 and state.current_player == 1
    assert "Player 1 said 7, 6, 5. Next number: 4; Player 2 to move" in str(state)
    state.play("2")  # says 4, 3
    assert state.legal_moves() == [0, 1]  # nobody counts below 1
    with pytest.raises(IllegalMoveError, match="'3' is not legal for Player 1"):
        state.play("3")
    state.play("2")  # says 2, 1 and wins
    assert state.is_terminal() and state.legal_moves() == []
    assert state.returns() == (1.0, -1.0)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "Player 1 said 1"
    assert "Player 1 wins" in str(state)


def test_longest_game_fits_max_game_length() -> None:
    state = new_game(5)
    for _ in range(5):
        state.play("1")
    assert state.is_terminal() and state.spec.max_game_length == 5
    assert state.returns() == (1.0, -1.0)


def test_random_playout_ends_with_a_winner() -> None:
    state = new_game(1000)
    state.random_playout(seed=3)
    assert state.is_terminal() and sorted(state.returns()) == [-1.0, 1.0]


@pytest.mark.parametrize("start", [0, -3, 1_000_001, 2.5, True, "20"])
def test_bad_start_is_a_clear_error(start: object) -> None:
    with pytest.raises(ValueError, match="The 'start' parameter of countdown must be an int in"):
        make("countdown", start=start)


def test_bad_moves_and_solver_bounds_raise_clear_errors() -> None:
    state = new_game(20)
    for text in ["0", "4", "three", ""]:
        with pytest.raises(InvalidMoveError, match="is not a move in countdown notation"):
            state.play(text)
    with pytest.raises(ValueError, match=r"The 'n_max' parameter of countdown\.solve"):
        solve(-1)
