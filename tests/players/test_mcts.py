"""MCTSPlayer with an engine given by name or as an instance of one's own."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from mctslab import Budget, SearchConfig, make
from mctslab.core import MCTS, GameState, Simulation, default_simulation, select_uct
from mctslab.players import MCTSPlayer


def _counting_simulation(calls: list[int]) -> Simulation:
    def simulate(state: GameState, rng: random.Random) -> Sequence[float]:
        calls.append(1)
        return default_simulation(state, rng)

    return simulate


def test_an_engine_instance_plays_its_own_search() -> None:
    # The player's move is the one the same engine, seeded alike, finds on its own, and the
    # engine's own policies did the work.
    state = make("tictactoe")
    state.play("a1")
    calls: list[int] = []
    engine = MCTS(
        SearchConfig(seed=3), tree_policy=select_uct, simulation=_counting_simulation(calls)
    )
    player = MCTSPlayer(engine, budget=Budget(iterations=300))
    assert player.engine is engine and player.name == "mcts-python"
    move = player.choose(state.clone())
    assert len(calls) == 300
    alone = MCTS(SearchConfig(seed=3)).search(state.clone(), Budget(iterations=300))
    assert move == alone.best_move
    assert player.last_result is not None
    assert [m.visits for m in player.last_result.moves] == [m.visits for m in alone.moves]


def test_an_engine_instance_follows_the_game() -> None:
    # observe advances the instance's kept tree, as for an engine made by name.
    state = make("countdown", start=10)
    engine = MCTS(SearchConfig(seed=1))
    player = MCTSPlayer(engine, budget=Budget(iterations=200))
    player.start(state.clone())
    move = player.choose(state.clone())
    assert engine.tree is not None
    chosen = engine.tree.child(move)
    assert chosen is not None and chosen.visits > 1
    player.observe(move)
    # The kept tree is now the chosen move's subtree, and the next search goes on from it:
    # every visit of the old subtree but its own first one passes through one of its children.
    assert engine.tree is chosen
    state.play(move)
    kept = chosen.visits
    player.choose(state.clone())
    assert player.last_result is not None
    assert sum(m.visits for m in player.last_result.moves) == kept - 1 + 200


def test_an_engine_instance_refuses_a_config() -> None:
    config = SearchConfig(seed=2)
    with pytest.raises(ValueError) as raised:
        MCTSPlayer(MCTS(), config)
    assert str(raised.value) == (
        "The 'config' parameter of MCTSPlayer must be None when an engine instance is given "
        f"(it has its own config). Got {config!r} instead."
    )


def test_an_engine_instance_refuses_more_workers() -> None:
    with pytest.raises(ValueError, match=r"^The 'workers' parameter of MCTSPlayer must be 1 "):
        MCTSPlayer(MCTS(), workers=2)


@pytest.mark.parametrize("engine", [3, "gpu", None, select_uct])
def test_a_bad_engine_is_refused(engine: object) -> None:
    with pytest.raises(ValueError) as raised:
        MCTSPlayer(engine)  # type: ignore[arg-type]
    assert str(raised.value) == (
        "The 'engine' parameter of MCTSPlayer must be one of 'compiled', 'python' or an Engine "
        f"instance. Got {engine!r} instead."
    )


def test_an_engine_by_name_still_takes_config_and_budget() -> None:
    player = MCTSPlayer("python", SearchConfig(seed=5), Budget(iterations=100))
    assert isinstance(player.engine, MCTS) and player.engine.config.seed == 5
    assert player.name == "mcts-python"


@pytest.mark.parametrize("budget", [0, 5000, "1s"])
def test_a_budget_that_is_no_budget_is_refused_at_once(budget: object) -> None:
    # It was taken as it came: a falsy one (0) became the default budget, and any other
    # failed the first move, named as MCTS.search's parameter.
    with pytest.raises(ValueError) as raised:
        MCTSPlayer("python", budget=budget)  # type: ignore[arg-type]
    assert str(raised.value) == (
        f"The 'budget' parameter of MCTSPlayer must be a Budget or None. Got {budget!r} instead."
    )
