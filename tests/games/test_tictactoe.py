from __future__ import annotations

import pytest

from mctslab.games import IllegalMoveError, InvalidMoveError, State, make
from mctslab.games._perft import count_games, count_positions, perft
from mctslab.games.tictactoe import CELLS
from tests.conftest import load_data

TRUTH = load_data("tictactoe.json")


def test_complete_games_match_published_count() -> None:
    assert count_games(make("tictactoe")) == TRUTH["complete_games"]


def test_reachable_positions_match_published_count() -> None:
    assert sum(count_positions(make("tictactoe"), 9)) == TRUTH["reachable_positions"]


#: The 8 symmetries of the square as permutations of the cells (row * 3 + column).
SYMMETRIES = [
    [(r * 3 + c) for r, c in cells]
    for cells in (
        [(r, c) for r in range(3) for c in range(3)],
        [(c, 2 - r) for r in range(3) for c in range(3)],
        [(2 - r, 2 - c) for r in range(3) for c in range(3)],
        [(2 - c, r) for r in range(3) for c in range(3)],
        [(r, 2 - c) for r in range(3) for c in range(3)],
        [(2 - r, c) for r in range(3) for c in range(3)],
        [(c, r) for r in range(3) for c in range(3)],
        [(2 - c, 2 - r) for r in range(3) for c in range(3)],
    )
]


def test_positions_up_to_symmetry_match_published_counts() -> None:
    def canonical(state: State) -> tuple[int, ...]:
        marks = state.data[CELLS : CELLS + 9].tolist()
        return min(tuple(marks[i] for i in symmetry) for symmetry in SYMMETRIES)

    frontier = [make("tictactoe")]
    counts = []
    for _ in range(10):
        counts.append(len({canonical(state) for state in frontier}))
        following = {}
        for state in frontier:
            for move in state.legal_moves():
                child = state.clone()
                child.apply(move)
                following.setdefault(canonical(child), child)
        frontier = list(following.values())
    assert counts == TRUTH["positions_up_to_symmetry"]


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
