"""The compiled engine agrees with the generic one (the readable reference)."""

from __future__ import annotations

import numpy as np
import pytest

from mctslab import make
from mctslab.core import MCTS, Budget, SearchConfig
from mctslab.fast import FastMCTS
from tests.core.test_search import FORCED
from tests.core.tictactoe_minimax import best_moves, position


@pytest.mark.parametrize(("line", "why"), FORCED)
def test_same_forced_moves(line: str, why: str) -> None:
    budget = Budget(iterations=3000)
    generic = MCTS(SearchConfig.plain(seed=5)).search(position(line), budget)
    compiled = FastMCTS(SearchConfig.plain(seed=5)).search(position(line), budget)
    assert {generic.best_notation, compiled.best_notation} <= best_moves(position(line)), why


SEEDS = range(5)


@pytest.mark.parametrize(
    ("name", "line"), [("tictactoe", ""), ("tictactoe", "a1"), ("connect4", ""), ("numbers", "")]
)
def test_similar_root_statistics(name: str, line: str) -> None:
    # Same algorithm, different random streams: averaged over a few seeds, the
    # share of visits and the mean value of each root move must be close. One
    # seed's spread is about 0.03 for either engine at this budget (measured
    # over 20 seeds on tic-tac-toe), so 0.08 is over four standard deviations
    # of the difference of two five-seed means.
    def root_stats(engine: type[MCTS] | type[FastMCTS]) -> dict[int, np.ndarray]:
        stats: dict[int, list[tuple[float, float]]] = {}
        for seed in SEEDS:
            state = make(name)
            for move in line.split():
                state.play(move)
            result = engine(SearchConfig.plain(seed=seed)).search(state, Budget(iterations=4000))
            for m in result.moves:
                stats.setdefault(m.move, []).append((m.visits / result.simulations, m.value))
        return {move: np.mean(rows, axis=0) for move, rows in stats.items()}

    generic = root_stats(MCTS)
    compiled = root_stats(FastMCTS)
    assert generic.keys() == compiled.keys()
    for move, (share, value) in generic.items():
        assert compiled[move] == pytest.approx([share, value], abs=0.08), move
