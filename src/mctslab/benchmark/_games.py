"""The benchmarked games, their fixed positions and the simulation counts per engine.

Each game is measured from its start and from one fixed mid-game position
(the moves below, in the game's notation, are part of the benchmark's
definition: change them and old results no longer compare). The counts make
one timing last about 0.5-2 s on the reference machine (see
``benchmarks/RESULTS.md``); slow peers run fewer simulations, and every figure
is reported per second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from mctslab.games import State, make

#: How much ``--quick`` shrinks every count (and the smallest count it leaves).
QUICK_DIVISOR = 100
QUICK_MINIMUM = 20


@dataclass(frozen=True)
class Counts:
    """Simulations per timed search for each engine (0: the engine does not play the game).

    ``raw`` counts the playouts of the no-tree loop; ``memory_mb`` is the
    tree budget of the peak-RSS check, which the compiled engine fills in a few
    seconds (tic-tac-toe's UCT tree stops growing near 90,000 nodes, 2 MiB;
    smaller arrays than its 1.5 MiB would come from memory the C library
    already holds, and their pages would not count as growth).
    """

    compiled: int
    openspiel: int
    python: int
    openspiel_python: int
    naive: int
    raw: int
    memory_mb: float

    def quick(self) -> Counts:
        """Counts for a smoke run: each a hundredth (at least a few dozen), a small budget."""
        shrunk: dict[str, Any] = {
            f.name: max(QUICK_MINIMUM, getattr(self, f.name) // QUICK_DIVISOR)
            if getattr(self, f.name)
            else 0
            for f in fields(self)
            if f.name != "memory_mb"
        }
        return Counts(**shrunk, memory_mb=1.0)


@dataclass(frozen=True)
class Position:
    """A benchmarked position: the game's start plus ``moves`` (notation, space-separated)."""

    name: str
    moves: str

    def build(self, start: State) -> tuple[State, list[int]]:
        """The position and the ids of the moves that reach it (OpenSpiel replays them)."""
        state = start.clone()
        ids = []
        for text in self.moves.split():
            move = state.parse_move(text)
            state.apply(move)
            ids.append(move)
        return state, ids


@dataclass(frozen=True)
class BenchGame:
    """A game as the benchmark runs it: registry name and parameters, positions, counts."""

    key: str
    title: str
    game: str
    params: Mapping[str, Any]
    midgame: str
    counts: Counts

    @property
    def positions(self) -> tuple[Position, Position]:
        return (Position("start", ""), Position("midgame", self.midgame))

    def start(self) -> State:
        return make(self.game, **self.params)

    def quick(self) -> BenchGame:
        return replace(self, counts=self.counts.quick())


GAMES: dict[str, BenchGame] = {
    game.key: game
    for game in (
        BenchGame(
            "tictactoe",
            "Tic-tac-toe",
            "tictactoe",
            {},
            "b2 a1 c3 a3",
            Counts(1_000_000, 1_000_000, 50_000, 20_000, 0, 3_000_000, 1.5),
        ),
        BenchGame(
            "connect4",
            "Connect Four",
            "connect4",
            {},
            "4 4 4 4 3 5 3 3 5 2",
            Counts(1_000_000, 200_000, 50_000, 8_000, 0, 5_000_000, 16.0),
        ),
        BenchGame(
            "othello",
            "Othello",
            "othello",
            {},
            # Twenty plies of a random game (seed 2024), Black to move with 9 moves.
            "e6 f4 g3 d6 e3 f6 c7 d7 g7 g4 e7 g2 g5 e8 h4 c8 d8 g6 d3 g8",
            Counts(300_000, 5_000, 50_000, 2_000, 0, 300_000, 8.0),
        ),
        BenchGame(
            "gomoku15",
            "Gomoku 15x15",
            "gomoku",
            {"size": 15},
            "h8 i9 h9 h7 g8 i8 i7 g9 j6 f9 g10 j8",
            Counts(300_000, 20_000, 30_000, 1_000, 100, 300_000, 8.0),
        ),
        BenchGame(
            "gomoku8",
            "Gomoku 8x8",
            "gomoku",
            {"size": 8},
            "d4 e5 e4 d5 c3 f6 c5 f4",
            Counts(500_000, 50_000, 50_000, 3_000, 1_000, 1_000_000, 8.0),
        ),
    )
}
