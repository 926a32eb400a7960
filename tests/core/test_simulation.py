"""The default policy: a uniform random playout, compiled when the state offers one."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Self

import pytest

from mctslab import State, make
from mctslab.core import default_simulation, uniform_playout
from tests.core.toy_games import Bits


def random_outcome_probabilities(
    state: State, memo: dict[bytes, dict[float, float]]
) -> dict[float, float]:
    """Exact probability of each return for X when both sides play uniformly at random."""
    key = state.position_key()
    if key not in memo:
        if state.is_terminal():
            memo[key] = {state.returns()[0]: 1.0}
        else:
            moves = state.legal_moves()
            total: dict[float, float] = {}
            for move in moves:
                child = state.clone()
                child.apply(move)
                for value, probability in random_outcome_probabilities(child, memo).items():
                    total[value] = total.get(value, 0.0) + probability / len(moves)
            memo[key] = total
    return memo[key]


class ProtocolOnly:
    """Tic-tac-toe seen only through the protocol (its compiled playout hidden)."""

    def __init__(self, state: State) -> None:
        self._state = state
        self.spec = state.spec

    @property
    def current_player(self) -> int:
        return self._state.current_player

    def legal_moves(self) -> list[int]:
        return self._state.legal_moves()

    def apply(self, move: int) -> None:
        self._state.apply(move)

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    def returns(self) -> tuple[float, ...]:
        return self._state.returns()

    def clone(self) -> Self:
        return type(self)(self._state.clone())

    def move_to_str(self, move: int) -> str:
        return self._state.move_to_str(move)


@pytest.mark.parametrize("wrap", [lambda s: s, ProtocolOnly], ids=["compiled", "protocol"])
def test_both_playouts_follow_the_uniform_random_distribution(wrap: object) -> None:
    exact = random_outcome_probabilities(make("tictactoe"), {})
    assert math.isclose(sum(exact.values()), 1.0)
    rng = random.Random(1)
    samples = 4000
    counts = Counter(
        default_simulation(wrap(make("tictactoe")), rng)[0]  # type: ignore[operator]
        for _ in range(samples)
    )
    for value, probability in exact.items():
        sigma = math.sqrt(probability * (1 - probability) / samples)
        assert abs(counts[value] / samples - probability) < 4.5 * sigma


def test_the_compiled_playout_is_used_with_a_seed_from_the_engine_rng() -> None:
    seeds: list[int | None] = []

    class Spy(ProtocolOnly):
        def random_playout(self, seed: int | None = None) -> None:
            seeds.append(seed)
            self._state.random_playout(seed)

    first = default_simulation(Spy(make("tictactoe")), random.Random(9))
    assert len(seeds) == 1 and isinstance(seeds[0], int)
    again = make("tictactoe")
    again.random_playout(seeds[0])
    assert first == again.returns()
    default_simulation(Spy(make("tictactoe")), random.Random(9))
    assert seeds[1] == seeds[0]


def test_protocol_playout_reaches_the_end() -> None:
    state = Bits()
    returns = uniform_playout(state, random.Random(0))
    assert state.is_terminal() and len(state.bits) == 3
    assert returns == state.returns()


def test_a_terminal_state_gives_its_returns() -> None:
    state = make("tictactoe")
    for move in ["a1", "a2", "b1", "b2", "c1"]:
        state.play(move)
    assert default_simulation(state, random.Random(0)) == (1.0, -1.0)
    assert uniform_playout(ProtocolOnly(state), random.Random(0)) == (1.0, -1.0)
