"""The compiled engine on solved positions: minimax truths, value perspective, determinism."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from mctslab import SearchResult, State, available_games, make
from mctslab.core import COINFLIP_C, MCTS, Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.games.countdown import solve
from tests.core.test_search import FORCED
from tests.core.tictactoe_minimax import best_moves, immediate_wins, move_values, position


def search(state: State, iterations: int = 3000, **config: object) -> SearchResult:
    engine = FastMCTS(SearchConfig(seed=11, **config))  # type: ignore[arg-type]
    return engine.search(state, Budget(iterations=iterations))


@pytest.mark.parametrize("tree_policy", ["uct", "coinflip"])
@pytest.mark.parametrize(("line", "why"), FORCED)
def test_plays_a_minimax_move(line: str, why: str, tree_policy: str) -> None:
    # The coin-flip policy spreads its visits thin; 20k iterations (a few ms
    # here) make it reliable on the seven-ply win too.
    c = COINFLIP_C if tree_policy == "coinflip" else SearchConfig().c
    result = search(position(line), 20_000, tree_policy=tree_policy, c=c)
    assert result.best_notation in best_moves(position(line)), why


@pytest.mark.parametrize("start", [5, 6, 7, 9, 10, 11, 13])
def test_countdown_leaves_a_multiple_of_four(start: int) -> None:
    # solve() is the exact game value by dynamic programming (tests/data/countdown.json).
    winning = solve(start)[start].winning_moves
    assert winning
    assert search(make("countdown", start=start)).best_move in winning


@pytest.mark.parametrize("line", ["a1 a3 b1 b3", "a1 b2 c3 a3 b1"])
def test_an_immediate_win_is_worth_one_to_its_mover(line: str) -> None:
    # Every backup through a winning terminal child adds exactly 1 for the
    # player who moved into it; a flipped perspective would give 0.
    result = search(position(line))
    win = immediate_wins(position(line)).pop()
    stats = {m.notation: m for m in result.moves}
    assert stats[win].value == 1.0
    assert result.best_notation == win and result.value == 1.0


def test_a_lost_position_is_valued_as_lost() -> None:
    assert set(move_values(position("b2 a2 c1")).values()) == {-1}
    assert search(position("b2 a2 c1")).value < 0.2


def test_single_player_rewards_follow_the_only_player() -> None:
    # Three turns of the numbers game: 64 move sequences, brute-forced here.
    def reward(moves: tuple[int, ...]) -> float:
        state = make("numbers", turns=3)
        for move in moves:
            state.apply(move)
        return state.returns()[0]

    best = max(reward(moves) for moves in itertools.product(range(4), repeat=3))
    result = search(make("numbers", turns=3), 2000)
    assert len(result.pv) == 3 and reward(result.pv) == best
    assert all(0.0 <= m.value <= 1.0 for m in result.moves)


def test_result_fields() -> None:
    result = search(position("a1 b2"), 500)
    assert result.engine == "compiled" == FastMCTS.name
    assert result.stopped_by == "iterations" and result.simulations == 500
    visits = [m.visits for m in result.moves]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) == 500  # a fresh root: every iteration passes through one child
    assert {m.notation for m in result.moves} <= set(move_values(position("a1 b2")))
    assert result.best_move == result.moves[0].move == result.pv[0]
    assert result.value == result.moves[0].value
    replay = position("a1 b2")
    for move, text in zip(result.pv, result.pv_notation, strict=True):
        assert replay.move_to_str(move) == text
        replay.play(move)
    assert result.seconds > 0
    assert len(result.moves) < result.nodes <= 501  # at most one new node per iteration


def test_final_move_by_value() -> None:
    def plain(**options: object) -> SearchResult:
        config = SearchConfig.plain(seed=11, c=0.3, **options)
        return FastMCTS(config).search(position("a1"), Budget(iterations=100))

    by_visits = plain()
    by_value = plain(final_move="value")
    top = max(by_value.moves, key=lambda m: (m.value, m.visits))
    assert by_value.best_move == top.move == by_value.pv[0]
    assert by_value.value == top.value
    assert by_value.moves == by_visits.moves  # same seed, same tree
    assert by_value.best_move != by_visits.best_move


@pytest.mark.parametrize("tree_policy", ["uct", "coinflip"])
def test_same_seed_same_result(tree_policy: str) -> None:
    def run(seed: int) -> SearchResult:
        config = SearchConfig(seed=seed, tree_policy=tree_policy)  # type: ignore[arg-type]
        result = FastMCTS(config).search(position("a1"), Budget(iterations=5000))
        return dataclasses.replace(result, seconds=0.0)

    assert run(4) == run(4)
    assert run(4) != run(5)


@pytest.mark.parametrize("engine", [MCTS, FastMCTS])
@pytest.mark.parametrize("number", [np.int32, np.int64, np.uint64])
def test_numpy_integers_are_the_ints_they_hold(
    engine: type[MCTS] | type[FastMCTS], number: type[np.integer]
) -> None:
    # Seeds from np.arange or a Generator's integers(): the generic engine's random.Random
    # refused them and the compiled engine overflowed converting a signed one.
    def run(seed: object, iterations: object) -> SearchResult:
        config = SearchConfig(seed=seed, rave_ref=number(100))  # type: ignore[arg-type]
        budget = Budget(iterations=iterations, max_nodes=number(500))  # type: ignore[arg-type]
        return dataclasses.replace(engine(config).search(position("a1"), budget), seconds=0.0)

    assert run(number(5), number(300)) == run(5, 300)
    config = SearchConfig(seed=number(5), rave_ref=number(100), c=np.float32(0.5))
    budget = Budget(iterations=number(300), max_nodes=number(500), seconds=np.float32(2))
    assert (config.seed, config.rave_ref, config.c) == (5, 100, 0.5)
    assert (budget.iterations, budget.max_nodes, budget.seconds) == (300, 500, 2.0)
    kept = (config.seed, config.rave_ref, config.c, budget.iterations, budget.max_nodes)
    assert [type(value) for value in (*kept, budget.seconds)] == [int, int, float, int, int, float]


@pytest.mark.parametrize("name", available_games())
def test_every_game(name: str) -> None:
    state = make(name)
    result = FastMCTS(SearchConfig.plain(seed=11)).search(state, Budget(iterations=400))
    assert result.best_move in state.legal_moves()
    assert sum(m.visits for m in result.moves) == 400
    assert all(0.0 <= m.value <= 1.0 for m in result.moves)
    assert state == make(name)  # the search works on its own copy


def test_unsearchable_positions_are_refused() -> None:
    finished = position("a1 a2 b1 b2 c1")
    with pytest.raises(ValueError, match="Cannot search a finished game"):
        FastMCTS().search(finished)
    state = position("")
    wide = type(state)(dataclasses.replace(state.spec, num_actions=40_000), state.data.copy())
    with pytest.raises(ValueError, match="stores moves as int16"):
        FastMCTS().search(wide)
    with pytest.raises(ValueError, match="'workers' parameter of FastMCTS must be an int >= 1"):
        FastMCTS(workers=0)
    with pytest.raises(ValueError, match="'config' parameter of FastMCTS"):
        FastMCTS(config=None)  # type: ignore[arg-type]
