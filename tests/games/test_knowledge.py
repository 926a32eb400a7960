"""The game knowledge the compiled search uses: winning moves, checked playouts, candidates.

Each is checked against brute force over the game's own rules, in positions
from random games.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mctslab import State, make
from mctslab._jit import new_rng
from mctslab.games import tictactoe
from mctslab.games.connect4 import Connect4State
from mctslab.games.gomoku import GomokuState

GAMES = [
    ("tictactoe", {}),
    ("connect4", {}),
    ("countdown", {"start": 30}),
    ("othello", {}),
    ("gomoku", {"size": 7, "k": 4}),
    ("gomoku", {"size": 9}),
]
#: Games whose moves place one stone each, with TO_MOVE as header field 0.
PLACEMENT = ("tictactoe", "connect4", "gomoku")


def games(*names: str) -> list[Any]:
    """GAMES (those of ``names`` when given) as pytest parameters."""
    return [
        pytest.param(name, params, id=f"{name}{params.get('size', '')}")
        for name, params in GAMES
        if not names or name in names
    ]


def positions(name: str, params: dict[str, int], games: int) -> Iterator[State]:
    """Every non-terminal position of ``games`` random games."""
    rng = random.Random(1)
    for _ in range(games):
        state = make(name, **params)
        while not state.is_terminal():
            yield state.clone()
            state.apply(rng.choice(state.legal_moves()))


def immediate_wins(state: State) -> set[int]:
    mover = state.current_player
    wins = set()
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        if child.is_terminal() and child.returns()[mover] > 0:
            wins.add(move)
    return wins


def wins_within_three_plies(state: State, move: int) -> bool:
    """Whether ``move`` wins at once, or leaves the opponent only replies that lose at once."""
    mover = state.current_player
    child = state.clone()
    child.apply(move)
    if child.is_terminal():
        return child.returns()[mover] > 0
    if immediate_wins(child):
        return False
    for reply in child.legal_moves():
        grandchild = child.clone()
        grandchild.apply(reply)
        if grandchild.is_terminal() or not immediate_wins(grandchild):
            return False
    return True


@pytest.mark.parametrize(("name", "params"), games())
def test_winning_move_wins_by_force_and_takes_an_immediate_win(
    name: str, params: dict[str, int]
) -> None:
    found = 0
    for state in positions(name, params, 40):
        move = state.kernel.winning_move(state.data.copy())
        wins = immediate_wins(state)
        if wins:
            assert move in wins, str(state)
        elif move >= 0:
            # Gomoku also finds two-way threats (an open or double four).
            assert name == "gomoku" and wins_within_three_plies(state, move), str(state)
        found += move >= 0
    assert found > 0


def checked_playouts(state: State) -> list[Any]:
    """The game's playouts other than the uniform random one."""
    return list((state.kernel.playouts or {}).values())


@pytest.mark.parametrize(("name", "params"), games(*PLACEMENT, "countdown"))
def test_checked_playouts_take_a_win(name: str, params: dict[str, int]) -> None:
    # Decisive moves (Teytaud & Teytaud 2010): with a win in one, the playout plays it.
    taken = 0
    for index, state in enumerate(positions(name, params, 30)):
        if not immediate_wins(state):
            continue
        for playout in checked_playouts(state):
            ended = state.clone()
            playout(ended._data, new_rng(index), np.empty(0, dtype=np.int64))
            outcome = ended.outcome()
            assert outcome is not None and outcome.winner == state.current_player, str(state)
            if name != "countdown":  # placement games: the very next stone won
                assert len(ended.legal_moves()) == 0
                assert _stones(ended) == _stones(state) + 1, str(state)
            taken += 1
    assert taken > 0


@pytest.mark.parametrize(("name", "params"), games(*PLACEMENT))
def test_checked_playouts_block_the_opponents_win(name: str, params: dict[str, int]) -> None:
    # Anti-decisive moves: with no win of its own and one cell where the
    # opponent would win, the playout's first stone goes there, so that cell
    # ends the game holding the mover's stone.
    blocked = 0
    for index, state in enumerate(positions(name, params, 30)):
        if immediate_wins(state):
            continue
        threats = _opponent_wins(state)
        if len(threats) != 1:
            continue
        row, column = _cell(state, threats.pop())
        for playout in checked_playouts(state):
            ended = state.clone()
            playout(ended._data, new_rng(index), np.empty(0, dtype=np.int64))
            assert _board(ended)[row, column] == state.current_player + 1, str(state)
            blocked += 1
    assert blocked > 0


def _opponent_wins(state: State) -> set[int]:
    """The moves that would win at once for the opponent, were it their turn."""
    swapped = state.clone()
    swapped._data[0] = 1 - swapped._data[0]
    return immediate_wins(swapped)


def _board(state: State) -> np.ndarray:
    """The grid of a placement game: 0 empty, 1 and 2 the players' stones."""
    if isinstance(state, Connect4State | GomokuState):
        return state.board()
    return state.data[tictactoe.CELLS :].reshape(3, 3)


def _cell(state: State, move: int) -> tuple[int, int]:
    """The (row, column) of the grid where ``move`` puts its stone."""
    board = _board(state)
    if state.spec.name == "connect4":
        return int(np.flatnonzero(board[:, move] == 0).max()), move
    return divmod(move, board.shape[1])


def _stones(state: State) -> int:
    return int((_board(state) != 0).sum())


@pytest.mark.parametrize("size", [7, 9, 15])
def test_gomoku_candidates_are_the_cells_near_stones(size: int) -> None:
    out = np.empty(size * size, dtype=np.int64)
    for state in positions("gomoku", {"size": size}, 5):
        assert isinstance(state, GomokuState)
        board = state.board()
        stones = np.argwhere(board != 0)
        expected = {
            row * size + column
            for row, column in np.argwhere(board == 0)
            if len(stones) and np.abs(stones - (row, column)).max(axis=1).min() <= 2
        }
        if not stones.size:
            expected = {(size // 2) * size + size // 2}
        count = state.kernel.candidate_moves(state.data.copy(), out)
        assert set(out[:count].tolist()) == (expected or set(state.legal_moves()))
        assert immediate_wins(state) <= expected | {(size // 2) * size + size // 2}
