from __future__ import annotations

import re

import numpy as np
import pytest

from mctslab.games import GameOverError, InvalidMoveError, make
from mctslab.games.numbers import NumbersState
from tests.conftest import load_data

TRUTH = load_data("numbers.json")


def new_game(**params: object) -> NumbersState:
    state = make("numbers", **params)
    assert isinstance(state, NumbersState)
    return state


def all_final_values(turns: int, moves: list[int]) -> np.ndarray:
    """Final values of every choice sequence, first turn as the most significant base-k digit."""
    multipliers = np.array(moves, dtype=np.int64)
    values = np.zeros(1, dtype=np.int64)
    for turn in range(turns, 0, -1):
        values = (values[:, None] + multipliers * turn).ravel()
    return values


def digits(index: int, base: int, length: int) -> list[int]:
    out = []
    for _ in range(length):
        index, digit = divmod(index, base)
        out.append(digit)
    return out[::-1]


def test_brute_force_optimum_is_reached_through_the_state() -> None:
    turns, moves, goal = TRUTH["turns"], TRUTH["moves"], TRUTH["goal"]
    values = all_final_values(turns, moves)
    assert values.size == len(moves) ** turns
    rewards = 1.0 - np.abs(values - goal) / TRUTH["max_value"]
    assert rewards.max() == TRUTH["best_reward"]
    best = digits(int(rewards.argmax()), len(moves), turns)
    state = new_game()
    for move in best:
        state.play(move)
    assert state.is_terminal() and state.returns() == (TRUTH["best_reward"],)
    # The documented zero-sum sequence is one of the optima.
    state = new_game()
    for amount in TRUTH["example_zero_sequence"]:
        state.play(f"{amount:+d}")
    assert state.value == 0 and state.returns() == (1.0,)


def test_kernel_rewards_match_the_formula_on_sampled_sequences() -> None:
    turns, moves = TRUTH["turns"], TRUTH["moves"]
    values = all_final_values(turns, moves)
    rng = np.random.default_rng(0)
    for index in rng.integers(0, values.size, size=200):
        state = new_game()
        for move in digits(int(index), len(moves), turns):
            state.apply(move)
        expected = 1.0 - abs(int(values[index]) - TRUTH["goal"]) / TRUTH["max_value"]
        assert state.value == values[index]
        assert state.returns()[0] == pytest.approx(expected, abs=1e-12)


def test_reward_formula_extremes_and_goal() -> None:
    state = new_game()
    for _ in range(10):
        state.play("#2")  # +3t every turn: 3 * 55
    assert state.value == 165
    assert state.returns()[0] == pytest.approx(1 - 165 / 225)
    shifted = new_game(goal=165)
    for _ in range(10):
        shifted.play("#2")
    assert shifted.returns() == (1.0,)
    # One player: no winner, and no draw either (before, is_draw was true).
    outcome = shifted.outcome()
    assert outcome is not None and outcome.winner is None and not outcome.is_draw
    drawn = make("tictactoe")
    for move in ["a1", "b2", "c3", "a2", "a3", "b3", "b1", "c1", "c2"]:
        drawn.play(move)
    assert drawn.outcome() is not None and drawn.outcome().is_draw  # type: ignore[union-attr]


def test_reward_is_clamped_when_the_distance_exceeds_max_value() -> None:
    state = new_game(turns=2, moves=(100,))  # MAX_VALUE = 5; the value ends at 300
    state.play("+200")
    state.play("+100")
    assert state.returns() == (0.0,)
    assert state.spec.min_return == 0.0 and state.spec.max_return == 1.0


def test_notation_and_rendering() -> None:
    state = new_game()
    assert [state.move_to_str(m) for m in state.legal_moves()] == ["+20", "-20", "+30", "-30"]
    assert state.parse_move("+20") == state.parse_move("20") == state.parse_move("#0") == 0
    assert state.parse_move("-30") == 3
    state.play("-30")
    assert [state.move_to_str(m) for m in state.legal_moves()] == ["+18", "-18", "+27", "-27"]
    text = str(state)
    assert "Turn 9, value -30." in text and "Moves so far: -30" in text
    with pytest.raises(InvalidMoveError, match="'#4' is not a move in numbers notation"):
        state.play("#4")
    with pytest.raises(InvalidMoveError, match="'#\u0660' is not a move in numbers notation"):
        state.play("#\u0660")  # a digit of another script
    with pytest.raises(InvalidMoveError, match="'\\+20' is not a move in numbers notation"):
        state.play("+20")
    with pytest.raises(InvalidMoveError, match="4 is not a move id of numbers: ids are 0 to 3"):
        state.play(4)


@pytest.mark.parametrize("text", ["+2", "2", "#0"])
def test_a_move_past_the_last_turn_is_refused_as_the_game_being_over(text: str) -> None:
    # The game has ``turns`` moves; a move after them is in the notation, but there is no
    # turn left for it. Before, an amount read as "not a move in numbers notation".
    state = new_game(turns=2)
    state.play("+4")
    state.play("+2")
    assert state.is_terminal()
    with pytest.raises(GameOverError, match=f"The game is over; '{re.escape(text)}' cannot be"):
        state.parse_move(text)


def test_position_key_ignores_the_order_of_choices() -> None:
    first = new_game(turns=2, moves=(1, 2, 3))
    first.play("+2")  # turn 2: 2 * 1
    first.play("+3")  # turn 1: 1 * 3
    second = new_game(turns=2, moves=(1, 2, 3))
    second.play("+4")
    second.play("+1")
    assert first.value == second.value == 5
    assert first.position_key() == second.position_key() and first != second


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"turns": 1}, "The 'turns' parameter of numbers must be an int in \\[2, 1000\\]"),
        ({"turns": 2.0}, "The 'turns' parameter of numbers must be an int"),
        ({"moves": (2, 2)}, "The 'moves' parameter of numbers must be a tuple of 1 to 16 distinct"),
        ({"moves": ()}, "The 'moves' parameter of numbers must be a tuple"),
        ({"moves": (2, "3")}, "The 'moves' parameter of numbers must be a tuple"),
        ({"moves": 3}, "The 'moves' parameter of numbers must be a tuple"),
        ({"goal": True}, "The 'goal' parameter of numbers must be an int"),
    ],
)
def test_bad_parameters_are_clear_errors(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make("numbers", **params)
