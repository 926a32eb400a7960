from __future__ import annotations

import pytest

from mctslab.games import IllegalMoveError, InvalidMoveError, make
from mctslab.games._perft import count_games, count_positions, perft
from tests.conftest import load_data

TRUTH = load_data("tictactoe.json")


def test_complete_games_match_published_count() -> None:
    assert count_games(make("tictactoe")) == TRUTH["complete_games"]


def test_reachable_positions_match_published_count() -> None:
    assert sum(count_positions(make("tictactoe"), 9)) == TRUTH["reachable_positions"]


@pytest.mark.parametrize("depth", range(10))
def test_perft(depth: int) -> None:
    assert perft(make("tictactoe"), depth) == TRUTH["perft"][depth]


def test_outcomes_by_winner_match_published_counts() -> None:
    wins = {0: 0, 1: 0, None: 0}
    stack = [make("tictactoe")]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            outcome = state.outcome()
            assert outcome is not None
            wins[outcome.winner] += 1
            continue
        for move in state.legal_moves():
            child = state.clone()
            child.apply(move)
            stack.append(child)
    assert wins == {
        0: TRUTH["games_won_by_x"],
        1: TRUTH["games_won_by_o"],
        None: TRUTH["drawn_games"],
    }


def test_win_and_notation() -> None:
    state = make("tictactoe")
    for move in ["a1", "a2", "b2", "b3", "c3"]:
        state.play(move)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "three in a row"
    assert state.returns() == (1.0, -1.0)


def test_bad_moves_raise_clear_errors() -> None:
    state = make("tictactoe")
    state.play("b2")
    with pytest.raises(IllegalMoveError, match="'b2' is not legal for O"):
        state.play("b2")
    with pytest.raises(InvalidMoveError, match="'z9' is not a move in tictactoe notation"):
        state.play("z9")
