"""Bad input to the generic engine fails early with a message that says what is wrong."""

from __future__ import annotations

import math
import multiprocessing
import re
from dataclasses import replace

import pytest

from mctslab.core import MCTS, Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.games import ConformanceError, check_game
from tests.core.tictactoe_minimax import position
from tests.core.toy_games import NIM_SPEC, Bits, BitsSpec, Nim


def test_a_finished_game_cannot_be_searched() -> None:
    with pytest.raises(ValueError, match="Cannot search a finished game"):
        MCTS().search(position("a1 a2 b1 b2 c1"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"config": {"c": 1.0}}, "The 'config' parameter of MCTS must be a SearchConfig"),
        ({"simulation": 3}, "The 'simulation' parameter of MCTS must be a callable"),
        (
            {"tree_policy": "puct"},
            re.escape(
                "The 'tree_policy' parameter of MCTS must be None or a callable "
                "policy(root, state, rng, c, path) -> expanded. Got 'puct' instead."
            ),
        ),
        ({"progress_interval": -1}, "The 'progress_interval' parameter of MCTS must be a float"),
    ],
)
def test_bad_construction(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MCTS(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", [MCTS, FastMCTS])
def test_budget_must_be_a_budget(engine: type[MCTS | FastMCTS]) -> None:
    # Worded as MCTSPlayer's (one check for both): None, the default budget, is taken too.
    with pytest.raises(ValueError) as raised:
        engine().search(position(""), 100)  # type: ignore[arg-type]
    assert str(raised.value) == (
        f"The 'budget' parameter of {engine.__name__}.search must be a Budget or None. "
        "Got 100 instead."
    )


@pytest.mark.parametrize("engine", [MCTS, FastMCTS])
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"stop": True}, "'stop' parameter of {}.search must be an event with is_set(), such"),
        ({"progress": 5}, "'progress' parameter of {}.search must be a function of the interim"),
    ],
)
def test_stop_and_progress_are_checked_before_searching(
    engine: type[MCTS | FastMCTS], arguments: dict[str, object], message: str
) -> None:
    # Before: an AttributeError or TypeError from deep in the loop, or (the
    # compiled engine, a search short enough) no error at all.
    with pytest.raises(ValueError, match=re.escape(message.format(engine.__name__))):
        engine().search(position(""), Budget(iterations=10), **arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", [MCTS, FastMCTS])
def test_any_event_with_is_set_stops_a_search(engine: type[MCTS | FastMCTS]) -> None:
    stop = multiprocessing.Event()
    stop.set()
    result = engine().search(position(""), Budget(iterations=100_000), stop=stop)
    assert result.stopped_by == "stopped"


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
    with pytest.raises(ConformanceError, match="bits: returns need a finite range"):
        check_game(Flat)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_players": 0}, "'num_players' parameter of GameSpec must be an int >= 1. Got 0"),
        ({"num_players": 2.5}, "'num_players' parameter of GameSpec must be an int >= 1"),
        ({"num_actions": -1}, "'num_actions' parameter of GameSpec must be an int >= 1"),
        ({"max_game_length": 0}, "'max_game_length' parameter of GameSpec must be an int >= 1"),
        ({"min_return": "a"}, "must have finite returns with max_return > min_return to scale"),
        ({"max_return": math.inf}, "max_return > min_return to scale them to [0, 1]; got min_"),
        ({"max_return": -2.0}, "must have finite returns with max_return > min_return"),
        ({"zero_sum": 1}, "'zero_sum' parameter of GameSpec must be a bool"),
        ({"player_names": ("A",)}, "'player_names' parameter of GameSpec must be a tuple of 2"),
        ({"name": None}, "'name' parameter of GameSpec must be a str"),
        ({"board_shape": "3x3"}, "'board_shape' parameter of GameSpec must be None or (rows,"),
        ({"board_shape": (3, 0)}, "must be None or (rows, columns), two ints from 1. Got (3, 0)"),
        ({"params": [1]}, "'params' parameter of GameSpec must be a mapping of names to values"),
    ],
)
def test_a_game_spec_is_checked_when_it_is_made(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        replace(NIM_SPEC, **change)  # type: ignore[arg-type]


def test_a_live_position_without_moves_is_refused() -> None:
    class Stuck(Bits):
        def legal_moves(self) -> list[int]:
            return []

    with pytest.raises(ValueError, match="not terminal but has no legal moves"):
        MCTS().search(Stuck(), Budget(iterations=10))


class _Broken(Nim):
    """Nim from three heaps, to be broken one way at a time by subclasses."""

    def __init__(self) -> None:
        super().__init__([1, 2, 3])

    def clone(self) -> _Broken:
        copy = type(self)()
        copy.heaps, copy.current_player = list(self.heaps), self.current_player
        return copy


def _search(state: object) -> None:
    MCTS(SearchConfig(seed=1)).search(state, Budget(iterations=200))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("returns", "shown"),
    [
        ((5.0, 0.0), "(5.0, 0.0)"),
        ((1.0,), "(1.0,)"),
        (None, "None"),
        ((math.nan, 0.0), "(nan, 0.0)"),
    ],
)
def test_returns_off_the_spec_are_refused_by_name(returns: object, shown: str) -> None:
    # Before: values far outside [0, 1] (5.0), an IndexError, a TypeError, a NaN value.
    class BadReturns(_Broken):
        def returns(self) -> tuple[float, float]:
            return returns  # type: ignore[return-value]

    with pytest.raises(ValueError) as caught:
        _search(BadReturns())
    message = str(caught.value)
    assert f"A simulation of 'nim' ended with returns {shown}" in message
    assert "one number per player (2), each in [min_return, max_return] = [-1.0, 1.0]" in message


def test_a_position_below_the_root_without_moves_is_named() -> None:
    # Before: IndexError("Cannot choose from an empty sequence") from the random module.
    class StuckLater(_Broken):
        def legal_moves(self) -> list[int]:
            return super().legal_moves() if sum(self.heaps) == 6 else []

    with pytest.raises(ValueError, match="A position of 'nim' is not terminal but has no legal"):
        _search(StuckLater())


def test_a_game_that_never_ends_is_stopped_at_its_max_game_length() -> None:
    # Before: the search ran forever, whatever its time budget.
    class Endless(_Broken):
        def apply(self, move: int) -> None:
            self.current_player = 1 - self.current_player

    with pytest.raises(ValueError, match="went on for 64 moves without ending"):
        MCTS().search(Endless(), Budget(seconds=1))


def test_breaches_of_the_protocol_seen_at_the_root_are_named() -> None:
    class SelfClone(_Broken):
        def clone(self) -> SelfClone:
            return self

    class MethodPlayer(_Broken):
        def player(self) -> int:
            return 0

    class NoNotation(_Broken):
        move_to_str = None  # type: ignore[assignment]

    method_player = MethodPlayer()
    method_player.current_player = method_player.player  # type: ignore[assignment]
    dict_spec = _Broken()
    dict_spec.spec = {"name": "nim", "num_players": 2}  # type: ignore[assignment]
    zero_players = _Broken()
    zero_players.spec = BitsSpec(name="nim", num_players=0)  # type: ignore[assignment]
    with pytest.raises(ValueError, match="The clone\\(\\) of 'nim' returned the state itself"):
        _search(SelfClone())
    with pytest.raises(ValueError, match=r"current_player of 'nim' must be an int in \[0, 2\)"):
        _search(method_player)
    with pytest.raises(ValueError, match="A state's spec must have name, num_players, min_return"):
        _search(dict_spec)
    # Before: an AttributeError once the whole budget was spent, from the result's notation.
    with pytest.raises(ValueError, match=r"The move_to_str of 'nim' must be a method move_to_str"):
        _search(NoNotation())
    with pytest.raises(ValueError, match="must have an int num_players >= 1; got 0"):
        _search(zero_players)
    with pytest.raises(ValueError, match=r"'state' parameter of MCTS\.search must be a game state"):
        _search("tictactoe")  # before: AttributeError: 'str' object has no attribute ...
