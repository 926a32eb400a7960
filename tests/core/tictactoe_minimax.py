"""Brute-force minimax for tic-tac-toe: the truth the search tests are checked against."""

from __future__ import annotations

from mctslab import State, make


def position(line: str) -> State:
    """Tic-tac-toe after the moves of ``line`` (e.g. "a1 b2"), checked as they are played."""
    state = make("tictactoe")
    for move in line.split():
        state.play(move)
    return state


def move_values(state: State) -> dict[str, float]:
    """The minimax value of each legal move for the player making it: 1 win, 0 draw, -1 loss."""
    memo: dict[bytes, float] = {}

    def value_after(child: State, mover: int) -> float:
        """Minimax value of ``child`` for ``mover``, who just moved into it."""
        key = child.position_key()
        if key not in memo:
            if child.is_terminal():
                memo[key] = child.returns()[mover]
            else:
                replies = []
                for reply in child.legal_moves():
                    grandchild = child.clone()
                    grandchild.apply(reply)
                    replies.append(value_after(grandchild, 1 - mover))
                memo[key] = -max(replies)
        return memo[key]

    values = {}
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        values[state.move_to_str(move)] = value_after(child, state.current_player)
    return values


def best_moves(state: State) -> set[str]:
    """The moves with the highest minimax value."""
    values = move_values(state)
    top = max(values.values())
    return {move for move, value in values.items() if value == top}


def immediate_wins(state: State) -> set[str]:
    """Moves that end the game with a win for the player making them."""
    wins = set()
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        if child.is_terminal() and child.returns()[state.current_player] > 0:
            wins.add(state.move_to_str(move))
    return wins
