"""Small games written in plain Python against the protocol, with no numba and no State base.

They show what a user's own game needs, and their solutions are computed by
brute force in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Self

from mctslab import GameSpec

NIM_SPEC = GameSpec(
    name="nim",
    num_players=2,
    num_actions=64,
    max_game_length=64,
    min_return=-1.0,
    max_return=1.0,
    zero_sum=True,
    player_names=("first", "second"),
)


@dataclass
class Nim:
    """Normal-play Nim: take 1..n stones from one heap; whoever takes the last stone wins.

    A move is ``heap * 16 + taken``. Dataclass equality compares positions, so
    the engine can reuse its tree.
    """

    heaps: list[int]
    current_player: int = 0
    spec: GameSpec = field(default=NIM_SPEC, compare=False)

    def legal_moves(self) -> list[int]:
        return [h * 16 + t for h, size in enumerate(self.heaps) for t in range(1, size + 1)]

    def apply(self, move: int) -> None:
        heap, taken = divmod(move, 16)
        self.heaps[heap] -= taken
        self.current_player = 1 - self.current_player

    def is_terminal(self) -> bool:
        return not any(self.heaps)

    def returns(self) -> tuple[float, float]:
        # The player who just moved took the last stone; the player "to move" lost.
        winner = 1 - self.current_player
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def clone(self) -> Nim:
        return Nim(list(self.heaps), self.current_player)

    def move_to_str(self, move: int) -> str:
        heap, taken = divmod(move, 16)
        return f"{taken}@{heap}"


class BitsSpec(NamedTuple):
    """The four spec fields the engine reads, and nothing else."""

    name: str = "bits"
    num_players: int = 1
    min_return: float = 0.0
    max_return: float = 7.0


class Bits:
    """A one-player puzzle: choose three bits, most significant first; the reward is the number.

    Defines no ``__eq__`` (so no tree reuse) and no ``random_playout`` (so the
    engine plays out through the protocol).
    """

    spec = BitsSpec()
    current_player = 0

    def __init__(self, bits: tuple[int, ...] = ()) -> None:
        self.bits = bits

    def legal_moves(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def apply(self, move: int) -> None:
        self.bits = (*self.bits, move)

    def is_terminal(self) -> bool:
        return len(self.bits) == 3

    def returns(self) -> tuple[float]:
        return (float(int("".join(map(str, self.bits)), 2)),)

    def clone(self) -> Self:
        return type(self)(self.bits)

    def move_to_str(self, move: int) -> str:
        return str(move)
