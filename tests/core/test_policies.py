"""Policies passed in: a tree policy or a simulation of the user's own replaces the library's."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from mctslab.core import MCTS, Budget, Node, SearchConfig, backpropagate, select_uct
from mctslab.core.protocol import GameState
from tests.core.test_user_games import winning_moves
from tests.core.toy_games import Nim


def test_a_tree_policy_passed_in_replaces_the_one_the_config_names() -> None:
    calls = []

    def counted_uct(
        root: Node, state: GameState, rng: random.Random, c: float, path: list[Node]
    ) -> bool:
        calls.append(c)
        return select_uct(root, state, rng, c, path)

    state = Nim([2, 5], 1)
    mine = MCTS(SearchConfig(seed=3, tree_policy="coinflip", c=0.5), tree_policy=counted_uct)
    result = mine.search(state, Budget(iterations=3000))
    assert calls == [0.5] * 3000  # once an iteration, with the config's c
    library = MCTS(SearchConfig(seed=3, c=0.5)).search(state, Budget(iterations=3000))
    assert (result.moves, result.pv) == (library.moves, library.pv)
    assert result.best_move in winning_moves(state)  # Bouton's rule, by brute force


def test_a_tree_policy_that_leaves_the_root_unexpanded_is_named() -> None:
    # Before: "The position is not terminal but has no legal moves", blaming the game.
    def idle(root: Node, state: GameState, rng: random.Random, c: float, path: list[Node]) -> bool:
        return False

    with pytest.raises(ValueError, match="tree policy returned without expanding the root"):
        MCTS(tree_policy=idle).search(Nim([3]), Budget(iterations=10))


def test_a_tree_policy_that_keeps_no_path_is_named() -> None:
    # Before: ZeroDivisionError in UCT, from a child that backpropagation never reached.
    def pathless(
        root: Node, state: GameState, rng: random.Random, c: float, path: list[Node]
    ) -> bool:
        return select_uct(root, state, rng, c, [])

    with pytest.raises(ValueError, match="expanded a node but appended nothing to path"):
        MCTS(tree_policy=pathless).search(Nim([3, 4]), Budget(iterations=50))


@pytest.mark.parametrize(
    ("returns", "shown"), [((0.7, 0.3), "(0.7, 0.3)"), ((1.0, 1.0), "(1.0, 1.0)")]
)
def test_a_simulation_whose_returns_break_zero_sum_is_named(
    returns: tuple[float, float], shown: str
) -> None:
    # A win rate for each side on a game scored -1..1, or one side's value given to both:
    # both inside the range, so before this the search went on and valued every move alike.
    def playout(state: GameState, rng: random.Random) -> tuple[float, float]:
        return returns

    with pytest.raises(ValueError) as caught:
        MCTS(simulation=playout).search(Nim([3, 4]), Budget(iterations=10))
    message = str(caught.value)
    assert f"A simulation of 'nim' ended with returns {shown}, which do not sum to 0" in message
    assert "the return of the player of its index, on the game's scale [-1.0, 1.0]" in message


def test_a_backpropagation_passed_in_replaces_the_librarys() -> None:
    # Before, MCTS took no backpropagation, though the README lists it among the steps that
    # one's own replace: a decaying reward (Browne et al. 2012) meant copying the search loop.
    calls = []

    def counted(
        root: Node, path: list[Node], returns: Sequence[float], low: float, scale: float
    ) -> None:
        calls.append(len(path))
        backpropagate(root, path, returns, low, scale)

    state = Nim([2, 5], 1)
    result = MCTS(SearchConfig(seed=3), backpropagation=counted).search(
        state, Budget(iterations=500)
    )
    assert len(calls) == 500 and min(calls) >= 1
    library = MCTS(SearchConfig(seed=3)).search(state, Budget(iterations=500))
    assert (result.moves, result.pv) == (library.moves, library.pv)

    def halved(
        root: Node, path: list[Node], returns: Sequence[float], low: float, scale: float
    ) -> None:
        backpropagate(root, path, [(r - low) / 2 + low for r in returns], low, scale)

    engine = MCTS(SearchConfig(seed=3), backpropagation=halved)
    engine.search(state, Budget(iterations=500))
    assert engine.tree is not None
    assert all(child.value_sum <= child.visits / 2 for child in engine.tree.children)
    with pytest.raises(ValueError, match="'backpropagation' parameter of MCTS must be a callable"):
        MCTS(backpropagation=None)  # type: ignore[arg-type]
