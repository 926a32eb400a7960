"""The original Gomoku program's design, kept as a baseline to measure against.

It follows what the user who asked for mctslab described running: an object
tree, a NumPy board copied for every move, a win check around the last stone,
uniform random playouts, UCT with c = 1.98 and 15,000 simulations a move. It is
deliberately plain Python; `mctslab bench` and the arena compare the engines
with it.
"""

from __future__ import annotations

import math
import random

import numpy as np

from mctslab.games._base import State

ORIGINAL_C = 1.98
ORIGINAL_SIMULATIONS = 15_000
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class _Board:
    """An immutable position: every move copies the NumPy board, as the original did."""

    def __init__(self, board: np.ndarray, to_move: int, k: int, winner: int | None) -> None:
        self.board = board
        self.to_move = to_move
        self.k = k
        self.winner = winner

    def legal_moves(self) -> list[tuple[int, int]]:
        if self.winner is not None:
            return []
        return [(int(r), int(c)) for r, c in np.argwhere(self.board == 0)]

    def play(self, move: tuple[int, int]) -> _Board:
        board = self.board.copy()
        board[move] = self.to_move + 1
        winner = self.to_move if self._wins(board, move) else None
        return _Board(board, 1 - self.to_move, self.k, winner)

    def _wins(self, board: np.ndarray, move: tuple[int, int]) -> bool:
        """Whether the stone just placed completes k or more in a row."""
        row, column = move
        stone = board[row, column]
        height, width = board.shape
        for dr, dc in _DIRECTIONS:
            run = 1
            for sign in (1, -1):
                r, c = row + sign * dr, column + sign * dc
                while 0 <= r < height and 0 <= c < width and board[r, c] == stone:
                    run += 1
                    r += sign * dr
                    c += sign * dc
            if run >= self.k:
                return True
        return False


class _Node:
    def __init__(self, position: _Board, move: tuple[int, int] | None, parent: _Node | None):
        self.position = position
        self.move = move
        self.parent = parent
        self.children: list[_Node] = []
        self.untried = position.legal_moves()
        self.visits = 0
        self.wins = 0.0  # for the player who moved into this node


class NaiveGomokuMCTS:
    """UCT over an object tree, as in the original program."""

    def __init__(self, *, c: float = ORIGINAL_C, seed: int | None = None) -> None:
        self.c = c
        self._rng = random.Random(seed)

    def search(self, board: np.ndarray, to_move: int, k: int, simulations: int) -> int:
        """The most visited move (as a cell index) after ``simulations`` playouts."""
        root = _Node(_Board(board.copy(), to_move, k, None), None, None)
        for _ in range(simulations):
            node = root
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                node = max(
                    node.children,
                    key=lambda child: (
                        child.wins / child.visits + self.c * math.sqrt(log_n / child.visits)
                    ),
                )
            if node.untried:
                move = node.untried.pop(self._rng.randrange(len(node.untried)))
                child = _Node(node.position.play(move), move, node)
                node.children.append(child)
                node = child
            position = node.position
            moves = position.legal_moves()
            while moves:
                position = position.play(self._rng.choice(moves))
                moves = position.legal_moves()
            winner = position.winner
            walk: _Node | None = node
            while walk is not None:
                walk.visits += 1
                mover = 1 - walk.position.to_move
                if winner == mover:
                    walk.wins += 1.0
                elif winner is None:
                    walk.wins += 0.5
                walk = walk.parent
        best = max(root.children, key=lambda child: child.visits)
        assert best.move is not None
        return best.move[0] * board.shape[1] + best.move[1]


class NaiveGomokuPlayer:
    """The baseline as a player of mctslab's Gomoku."""

    name = "naive-gomoku"

    def __init__(
        self,
        *,
        simulations: int = ORIGINAL_SIMULATIONS,
        c: float = ORIGINAL_C,
        seed: int | None = None,
    ) -> None:
        self.simulations = simulations
        self._search = NaiveGomokuMCTS(c=c, seed=seed)

    def start(self, state: State) -> None:
        """The baseline keeps nothing between moves."""

    def choose(self, state: State) -> int:
        board = getattr(state, "board", None)
        if state.spec.name != "gomoku" or board is None:
            raise ValueError(f"The naive baseline plays gomoku only; got {state.spec.name}.")
        return self._search.search(
            board(), state.current_player, int(state.spec.params["k"]), self.simulations
        )

    def observe(self, move: int) -> None:
        """The baseline builds a fresh tree every move, as the original did."""

    def close(self) -> None:
        """Nothing to release."""
