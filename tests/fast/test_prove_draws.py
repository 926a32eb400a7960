"""SearchConfig.prove_draws: drawn positions proven, against minimax and brute force.

With it a proven draw is not visited again, so that its siblings get
searched and the position proven; the draw bounds the rewards backed up
through its parent instead. Without it (the default, for play) the search
is the one it was before the option came (the seeded results below were
recorded from the code before it, 0801eb7).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mctslab import SearchResult, State, make
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._loop import DRAW, LOSS
from mctslab.fast._stats import RootStats
from tests.core.tictactoe_minimax import best_moves, move_values, position
from tests.fast.bait_kernel import make_bait
from tests.fast.test_strength import LABELS, connect4_values, tictactoe_positions


def search(state: State, iterations: int, **options: Any) -> SearchResult:
    return FastMCTS(SearchConfig(**options)).search(state, Budget(iterations=iterations))


@pytest.mark.parametrize(
    ("line", "within"), [("", 7_000), ("b2", 1_500), ("a1", 1_000), ("a1 b2 c3", 200)]
)
@pytest.mark.parametrize("seed", range(3))
def test_a_drawn_tictactoe_root_is_proven_and_every_move_marked(
    line: str, within: int, seed: int
) -> None:
    # Tic-tac-toe is a draw (move_values is a brute-force minimax). Measured:
    # the start proven in 6,146 to 6,166 simulations (seeds 0-2), after b2 in
    # 1,144 to 1,164. Without prove_draws neither is proven in 200,000: the
    # drawn moves take nearly every visit.
    state = position(line)
    result = search(state, within, seed=seed, prove_draws=True)
    assert result.stopped_by == "proven" and result.value == 0.5
    truth = {move: LABELS[value] for move, value in move_values(state).items()}
    assert {m.notation: m.proven for m in result.moves} == truth
    assert result.best_notation in best_moves(state)
    assert result.pv_notation[0] == result.best_notation


def test_without_prove_draws_the_start_stays_unproven() -> None:
    # The default, for play: the known draw is visited again and again.
    result = search(position(""), 30_000, seed=0)
    assert result.stopped_by == "iterations"


def check_proven(result: SearchResult, truth: dict[Any, str], state: State) -> float:
    """Check ``result`` against ``truth`` (each move's minimax outcome): the root proven at
    its value, and each move's proof right; a won root is proven by one winning move (the
    search then ends), a drawn or lost one only once every move is. Returns the value."""
    keys = {m.notation if isinstance(next(iter(truth)), str) else m.move: m for m in result.moves}
    top = max(truth.values(), key=["loss", "draw", "win"].index)
    value = {"win": 1.0, "draw": 0.5, "loss": 0.0}[top]
    assert result.stopped_by == "proven" and result.value == value, str(state)
    assert truth[next(k for k, m in keys.items() if m is result.moves[0])] == top, str(state)
    proofs = {key: m.proven for key, m in keys.items()}
    if value == 1.0:
        assert all(proofs[key] in (None, truth[key]) for key in proofs), str(state)
    else:
        assert proofs == truth, str(state)
    return value


def test_tictactoe_positions_are_proven_as_minimax_values_them() -> None:
    # Every position of random games is proven, as minimax values it.
    values = []
    for index, state in enumerate(tictactoe_positions(150)):
        result = search(state, 10_000, seed=index, prove_draws=True)
        truth = {move: LABELS[value] for move, value in move_values(state).items()}
        values.append(check_proven(result, truth, state))
        assert result.best_notation in best_moves(state), str(state)
    assert values.count(0.5) > 30 and values.count(0.0) > 5


def connect4_endgames(empty: int) -> Iterator[State]:
    """Connect Four positions with ``empty`` cells left, from random games (seeded)."""
    rng = random.Random(4)
    while True:
        state = make("connect4")
        while not state.is_terminal() and int((state.board() == 0).sum()) > empty:
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            yield state


def test_connect4_endgames_are_proven_move_by_move_as_brute_force_values_them() -> None:
    # Random games' positions 12 cells from the end until 8 drawn ones (the
    # test's point; the 8th is the 433rd position) were met, each checked; at
    # most 1,000, so that a change to the games' stream cannot make it run on.
    values: list[float] = []
    for index, state in zip(range(1000), connect4_endgames(12), strict=False):
        truth = {move: LABELS[value] for move, value in connect4_values(state).items()}
        result = search(state, 100_000, seed=index, prove_draws=True)
        values.append(check_proven(result, truth, state))
        if values.count(0.5) == 8:
            break
    assert values.count(0.5) == 8 and values.count(0.0) > 5


@pytest.mark.parametrize("seed", range(3))
def test_a_draw_bounds_the_line_it_ends_rather_than_baiting_the_search(seed: int) -> None:
    # A's bait is worth a draw (B takes it) and steady a win (A never slips),
    # by construction (tests/fast/bait_kernel.py); neither can be proven. The
    # search stops visiting B's proven draw and searches B's blunders, all A's
    # wins: unless the draw bounds the value backed up through bait, bait
    # looks won and is played (measured with the bound taken out: bait played
    # with nearly every visit, valued 1.0).
    result = search(make_bait(), 20_000, seed=seed, prove_draws=True)
    values = {m.notation: m.value for m in result.moves}
    assert result.best_notation == "steady"
    assert values["bait"] <= 0.55 < values["steady"]
    # B, to move after bait, takes the draw.
    after = make_bait()
    after.play("bait")
    assert search(after, 2_000, seed=seed, prove_draws=True).best_notation == "0"


def test_a_proven_draw_ranks_above_the_moves_that_do_no_better() -> None:
    # With prove_draws the search stops visiting a proven draw, so moves worth
    # no more than a draw cannot outrank it by their visits; moves worth more
    # still can. Without it the order is the robust child's, as before.
    stats = RootStats(
        moves=np.arange(5),
        visits=np.array([900, 50, 40, 60, 10]),
        value_sums=np.array([360.0, 35.0, 24.0, 39.0, 0.0]),  # means 0.4, 0.7, 0.6, 0.65, 0
        proven=np.array([0, DRAW, 0, 0, LOSS], dtype=np.int8),
        lines={},
        nodes=1,
        simulations=1060,
        stopped_by="iterations",
    )
    apart = dataclasses.replace(stats, draws_apart=True)
    assert apart.ranking("visits").tolist() == [3, 1, 2, 0, 4]
    assert apart.ranking("value").tolist() == [3, 2, 1, 0, 4]
    assert stats.ranking("visits").tolist() == [0, 3, 1, 2, 4]  # the robust child
    assert stats.ranking("value").tolist() == [1, 3, 2, 0, 4]


#: Seeded searches of the code before prove_draws (0801eb7), default options, one
#: worker: (game, parameters, moves, iterations, best move, value, nodes, the
#: first moves' visits, principal variation). prove_draws=False must give them again.
BEFORE = [
    ("tictactoe", {}, "", 20_000, "a2", 0.5263543191800878, 5574,
     [("a2", 2732), ("c2", 2683), ("b2", 2629)], ["a2", "b2", "b1", "a3"]),
    ("tictactoe", {}, "b2", 20_000, "a3", 0.4983827765704756, 530,
     [("a3", 19787), ("c1", 44), ("c3", 43)], ["a3", "c1", "a1", "a2"]),
    ("connect4", {}, "", 5_000, "4", 0.6152494729444835, 5767,
     [("4", 2846), ("5", 1163), ("3", 325)], ["4", "4", "4", "4"]),
    ("gomoku", {"size": 8}, "d4 e5 d5", 3_000, "d3", 0.5384615384615384, 3080,
     [("d3", 117), ("d7", 115), ("c6", 113)], ["d3", "d2", "f5"]),
    ("othello", {}, "", 2_000, "d3", 0.5, 2034,
     [("d3", 1016), ("e6", 593), ("c4", 231)], ["d3", "c3", "c4", "c5"]),
]  # fmt: skip


@pytest.mark.parametrize("case", BEFORE, ids=lambda case: f"{case[0]} {case[2]!r}")
def test_without_prove_draws_a_seeded_search_is_the_one_before_the_option(
    case: tuple[Any, ...],
) -> None:
    name, params, line, iterations, best, value, nodes, visits, pv = case
    state = make(name, **params)
    for move in line.split():
        state.play(move)
    result = search(state, iterations, seed=0)  # prove_draws off, the default
    assert (result.best_notation, result.value, result.nodes) == (best, value, nodes)
    assert [(m.notation, m.visits) for m in result.moves[:3]] == visits
    assert list(result.pv_notation[:4]) == pv


def test_prove_draws_needs_the_solver() -> None:
    with pytest.raises(ValueError) as error:
        SearchConfig(solver=False, prove_draws=True)
    assert str(error.value) == (
        "The 'prove_draws' parameter of SearchConfig must be False when solver is False. "
        "Got True instead."
    )
    with pytest.raises(ValueError, match="The 'prove_draws' parameter of SearchConfig must be a "):
        SearchConfig(prove_draws="yes")  # type: ignore[arg-type]
    assert not SearchConfig().prove_draws and not SearchConfig.plain().prove_draws


def test_one_player_games_search_as_without_it() -> None:
    # The solver is skipped for one player, and prove_draws with it.
    state = make("numbers", turns=3)
    plain, drawing = (search(state, 3000, seed=1, prove_draws=p) for p in (False, True))
    assert plain == dataclasses.replace(drawing, seconds=plain.seconds)
