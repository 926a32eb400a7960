"""Bad input to the generic engine fails early with a message that says what is wrong."""

from __future__ import annotations

import math

import pytest

from mctslab.core import MCTS, Budget, SearchConfig
from tests.core.tictactoe_minimax import position
from tests.core.toy_games import Bits, BitsSpec


def test_a_finished_game_cannot_be_searched() -> None:
    with pytest.raises(ValueError, match="Cannot search a finished game"):
        MCTS().search(position("a1 a2 b1 b2 c1"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"config": {"c": 1.0}}, "The 'config' parameter of MCTS must be a SearchConfig"),
        ({"simulation": 3}, "The 'simulation' parameter of MCTS must be a callable"),
        ({"progress_interval": -1}, "The 'progress_interval' parameter of MCTS must be a float"),
    ],
)
def test_bad_construction(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MCTS(**kwargs)  # type: ignore[arg-type]


def test_budget_must_be_a_budget() -> None:
    with pytest.raises(ValueError, match=r"'budget' parameter of MCTS\.search must be a Budget"):
        MCTS().search(position(""), 100)  # type: ignore[arg-type]


def test_config_values_are_checked() -> None:
    with pytest.raises(ValueError, match="The 'tree_policy' parameter of SearchConfig"):
        SearchConfig(tree_policy="ucb")  # type: ignore[arg-type]
    # The compiled engine's generator state is 64 bits: a larger seed would repeat a smaller one.
    with pytest.raises(ValueError, match=r"'seed' parameter of SearchConfig must be an int in"):
        SearchConfig(seed=2**64)
    assert SearchConfig(seed=2**64 - 1).seed == 2**64 - 1


@pytest.mark.parametrize("high", [0.0, math.inf, math.nan])
def test_returns_need_a_finite_range(high: float) -> None:
    class Flat(Bits):
        spec = BitsSpec(max_return=high)

    with pytest.raises(ValueError, match="must have finite returns with max_return > min_return"):
        MCTS().search(Flat())


def test_a_live_position_without_moves_is_refused() -> None:
    class Stuck(Bits):
        def legal_moves(self) -> list[int]:
            return []

    with pytest.raises(ValueError, match="not terminal but has no legal moves"):
        MCTS().search(Stuck(), Budget(iterations=10))
