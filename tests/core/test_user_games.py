"""The generic engine on games written in plain Python (tests/core/toy_games.py)."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from mctslab import make
from mctslab.core import MCTS, Budget, SearchConfig, count_nodes
from mctslab.core.protocol import equal_only_to_itself
from mctslab.games import ConformanceError, check_game
from tests.core.toy_games import Bits, Nim


@cache
def nim_wins(heaps: tuple[int, ...]) -> bool:
    """Whether the player to move wins normal-play Nim from ``heaps``, by brute force."""
    return any(
        not nim_wins(tuple(sorted((*heaps[:i], heaps[i] - t, *heaps[i + 1 :]))))
        for i in range(len(heaps))
        for t in range(1, heaps[i] + 1)
    )


def winning_moves(state: Nim) -> set[int]:
    """Moves of ``state`` that leave the opponent in a lost position."""
    result = set()
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        if not nim_wins(tuple(sorted(child.heaps))):
            result.add(move)
    return result


def test_brute_force_agrees_with_boutons_rule() -> None:
    # C. L. Bouton, "Nim, a game with a complete mathematical theory", Annals of
    # Mathematics 3 (1901): the player to move loses exactly when the heaps XOR to 0.
    for a in range(6):
        for b in range(6):
            for c in range(6):
                assert nim_wins(tuple(sorted((a, b, c)))) == bool(a ^ b ^ c)


@pytest.mark.parametrize(
    ("heaps", "player"), [([2, 5], 1), ([2, 3], 0), ([1, 2, 4], 1), ([3, 4, 1], 0), ([1, 3, 3], 1)]
)
def test_finds_the_winning_move_in_nim(heaps: list[int], player: int) -> None:
    state = Nim(heaps, player)
    wins = winning_moves(state)
    assert wins and len(wins) < len(state.legal_moves())
    result = MCTS(SearchConfig(seed=3)).search(state, Budget(iterations=3000))
    assert result.best_move in wins
    assert result.value > 0.5


def test_a_lost_nim_position_is_valued_as_lost() -> None:
    state = Nim([1, 2, 3])
    assert not winning_moves(state)
    result = MCTS(SearchConfig(seed=3)).search(state, Budget(iterations=3000))
    assert result.value < 0.5


def test_search_leaves_the_user_state_untouched() -> None:
    state = Nim([2, 3])
    MCTS(SearchConfig(seed=0)).search(state, Budget(iterations=200))
    assert state == Nim([2, 3])


def test_user_state_with_eq_reuses_the_tree() -> None:
    engine = MCTS(SearchConfig(seed=0))
    state = Nim([3, 4])
    engine.search(state, Budget(iterations=100))
    result = engine.search(Nim([3, 4]), Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 200


def test_single_player_rewards_are_for_player_zero() -> None:
    # With the first bit 0 the reward is at most 3 of 7; with 1 it is at least 4 of 7.
    # A flipped or mis-scaled perspective breaks these bounds or the choice.
    result = MCTS(SearchConfig(seed=1)).search(Bits(), Budget(iterations=500))
    stats = {m.move: m.value for m in result.moves}
    assert stats[0] <= 3 / 7 and stats[1] >= 4 / 7
    assert result.best_move == 1 and result.pv == (1, 1, 1)
    assert result.pv_notation == ("1", "1", "1")
    assert 4 / 7 <= result.value <= 1.0


def test_single_player_fully_explored_tree_has_every_position() -> None:
    engine = MCTS(SearchConfig(seed=1))
    result = engine.search(Bits(), Budget(iterations=500))
    assert engine.tree is not None
    assert result.nodes == count_nodes(engine.tree) == 15  # 1 + 2 + 4 + 8


def test_state_without_eq_gets_a_fresh_tree() -> None:
    engine = MCTS(SearchConfig(seed=0))
    state = Bits()
    engine.search(state, Budget(iterations=100))
    result = engine.search(state, Budget(iterations=100))
    assert sum(m.visits for m in result.moves) == 100


def test_a_state_without_eq_draws_the_tree_searched_from_it() -> None:
    # Before, tree_view said "search it first" just after searching that very object.
    engine = MCTS(SearchConfig(seed=0))
    state = Bits()
    engine.search(state, Budget(iterations=100))
    assert engine.tree_view(state).visits == 100
    with pytest.raises(ValueError, match="must compare equal to it, and Bits does not define"):
        engine.tree_view(Bits())
    # Once advanced, the tree is no longer that of the object searched, nor said to be.
    engine.advance(1)
    with pytest.raises(ValueError, match="Bits does not define __eq__"):
        engine.tree_view(state)


def test_a_state_equals_only_itself_where_its_class_defines_no_eq() -> None:
    # The one rule the search and the tree snapshot both ask, kept in one place.
    assert equal_only_to_itself(Bits())
    assert not equal_only_to_itself(Nim([1, 2]))
    assert not equal_only_to_itself(make("tictactoe"))  # its __eq__ inherited from State


def test_the_state_searched_and_moved_on_since_has_no_tree() -> None:
    # Before, tree_view drew the tree of the position searched for the object itself,
    # whatever had been played on it since, though the game compares positions.
    engine = MCTS(SearchConfig(seed=0))
    state = make("tictactoe")
    engine.search(state, Budget(iterations=100))
    assert engine.tree_view(state).visits == 100
    state.play(state.parse_move("b2"))
    with pytest.raises(ValueError, match="search it first"):
        engine.tree_view(state)


def test_the_conformance_check_passes_games_in_plain_python() -> None:
    # Before, it asked a plain-Python game for parse_move, play, outcome and pickling.
    check_game(lambda: Nim([1, 2, 3]))
    check_game(Bits)


class _SharedHeaps(Nim):
    def clone(self) -> Nim:
        return _SharedHeaps(self.heaps, self.current_player)  # the list is shared


class _Unbalanced(Nim):
    def returns(self) -> tuple[float, float]:
        return (1.0, 1.0)  # both win: not zero-sum, as the spec says


class _Endless(Nim):
    def is_terminal(self) -> bool:
        return False

    def legal_moves(self) -> list[int]:
        return super().legal_moves() or [0]

    def apply(self, move: int) -> None:  # move 0 passes: the players pass for ever
        if move:
            super().apply(move)
        else:
            self.current_player = 1 - self.current_player

    def clone(self) -> _Endless:
        return _Endless(list(self.heaps), self.current_player)


class _MovesAfterTheEnd(Nim):
    def legal_moves(self) -> list[int]:
        return super().legal_moves() or [1]  # a move listed once the game is over

    def clone(self) -> _MovesAfterTheEnd:
        return _MovesAfterTheEnd(list(self.heaps), self.current_player)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (
            # Before: "legal moves in a terminal position", a rule the protocol did not state.
            _MovesAfterTheEnd,
            r"nim: legal_moves\(\) lists 1@0 though is_terminal\(\) is true: a finished game",
        ),
        (_SharedHeaps, "nim: a move applied to a clone changed the original"),
        (_Unbalanced, r"nim: returns \(1.0, 1.0\) of a zero-sum game do not sum to 0"),
        (_Endless, "nim: game 0 is longer than max_game_length 64"),
    ],
)
def test_the_conformance_check_names_a_plain_python_game_s_fault(
    game: type[Nim], message: str
) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(lambda: game([2, 3]))


def test_a_numpy_player_index_is_a_player_index_to_the_check_and_the_search() -> None:
    # The two used to disagree: the search took np.int64, check_game called it out of range.
    class NumpyPlayer(Nim):
        def apply(self, move: int) -> None:
            super().apply(move)
            self.current_player = np.int64(self.current_player)  # type: ignore[assignment]

        def clone(self) -> NumpyPlayer:
            return NumpyPlayer(list(self.heaps), self.current_player)

    check_game(lambda: NumpyPlayer([1, 2, 3]))
    result = MCTS(SearchConfig(seed=1)).search(NumpyPlayer([1, 2, 4]), Budget(iterations=3000))
    assert result.best_move in winning_moves(Nim([1, 2, 4]))


class _MovesAs(Nim):
    """Nim whose legal_moves() returns its list passed through ``kind`` (numpy's array, a set)."""

    kind: Any = list

    def legal_moves(self) -> Any:
        return type(self).kind(super().legal_moves())

    def clone(self) -> _MovesAs:
        return type(self)(list(self.heaps), self.current_player)


class _ArrayMoves(_MovesAs):
    kind = np.array


class _SetMoves(_MovesAs):
    kind = set


class _GeneratedMoves(_MovesAs):
    kind = staticmethod(iter)


@pytest.mark.parametrize(
    ("game", "got"),
    [
        (_ArrayMoves, r"got ndarray \(return its \.tolist\(\)\)"),
        (_SetMoves, "got set"),
        (_GeneratedMoves, "got list_iterator"),
    ],
)
def test_legal_moves_must_be_a_sequence_to_the_check_and_the_search(
    game: type[_MovesAs], got: str
) -> None:
    # Before, check_game passed them all and the search failed inside: "The truth value of an
    # array with more than one element is ambiguous", "'set' object is not subscriptable".
    message = r"The legal_moves\(\) of 'nim' must return a sequence such as a list or a tuple"
    with pytest.raises(ConformanceError, match=f"{message} .*; {got}"):
        check_game(lambda: game([2, 3]))
    with pytest.raises(ValueError, match=f"{message} .*; {got}"):
        MCTS(SearchConfig(seed=1)).search(game([2, 3]), Budget(iterations=100))


def test_legal_moves_may_be_any_sequence() -> None:
    class TupleMoves(_MovesAs):
        kind = tuple

    check_game(lambda: TupleMoves([1, 2, 3]))
    result = MCTS(SearchConfig(seed=1)).search(TupleMoves([1, 2, 4]), Budget(iterations=3000))
    assert result.best_move in winning_moves(Nim([1, 2, 4]))
