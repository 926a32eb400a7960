"""benchmarks/opponent_model.py: the traps it finds, on tic-tac-toe where they are known."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from mctslab import make
from tests.conftest import load_benchmark

CORNERS = {"a1", "c1", "a3", "c3"}


@pytest.fixture(scope="module")
def opponent_model() -> ModuleType:
    return load_benchmark("opponent_model")


def settings(opponent_model: ModuleType, **changes: Any) -> Any:
    """Every move a candidate, unless ``changes`` say otherwise."""
    return opponent_model.Settings(**{"margin": 1.0, "candidates": 9, **changes})


def model(opponent_model: ModuleType, opponent: str, replicas: int, **changes: Any) -> Any:
    return opponent_model.ReplicaModel(
        "mcts:iterations=5000", opponent, 1, settings(opponent_model, replicas=replicas, **changes)
    )


def test_the_corner_is_the_trap_for_a_random_player(opponent_model: ModuleType) -> None:
    # Every first move of tic-tac-toe draws. After a corner only the centre
    # holds the draw (7 of 8 replies lose), after the centre the four corners
    # do and after an edge four replies: a random replier falls most often
    # after a corner.
    player = model(opponent_model, "random", 16)
    state = make("tictactoe")
    player.start(state.clone())
    choice = player.choose(state.clone())
    # The search alone takes the centre, which wins the most random playouts.
    assert player.player.last_result.best_notation == "b2"
    assert state.move_to_str(choice) in CORNERS
    assert (player.changed, player.moves) == (1, 1)


@pytest.mark.parametrize("narrower", [{"margin": 0.0}, {"candidates": 1}])
def test_only_the_candidates_are_tried(opponent_model: ModuleType, narrower: Any) -> None:
    # No other move is worth as much as the centre, nor visited as often.
    player = model(opponent_model, "random", 16, **narrower)
    state = make("tictactoe")
    player.start(state.clone())
    assert state.move_to_str(player.choose(state.clone())) == "b2"
    assert player.changed == 0


def test_a_win_in_one_is_played(opponent_model: ModuleType) -> None:
    player = model(opponent_model, "random", 4)
    state = make("tictactoe")
    for text in ("a1", "b2", "b1", "c3"):
        state.play(state.parse_move(text))
    player.start(state.clone())
    assert state.move_to_str(player.choose(state.clone())) == "c1"


def test_a_replica_that_never_errs_leaves_the_search_its_choice(
    opponent_model: ModuleType,
) -> None:
    player = model(opponent_model, "mcts:iterations=20000", 2)
    state = make("tictactoe")
    for text in ("b2", "a1", "c3"):
        state.play(state.parse_move(text))
    player.start(state.clone())
    choice = player.choose(state.clone())
    assert choice == player.player.last_result.best_move
    assert player.changed == 0


def test_a_replayed_game_keeps_the_opening_and_scores_for_a(opponent_model: ModuleType) -> None:
    recorded = {
        "type": "game",
        "sweep": 0,
        "sweep_value": None,
        "index": 0,
        "pair": 0,
        "game": "tictactoe",
        "params": {},
        "run_seed": 1,
        "players": [
            {"id": "B", "spec": "random", "seed": 4},
            {"id": "A", "spec": "mcts:iterations=2000", "seed": 3},
        ],
        "opening": ["a2"],
        "moves": [],
    }
    game = opponent_model.replay((recorded, settings(opponent_model, replicas=2)))
    assert game["opening"] == ["a2"] and game["players"] == recorded["players"]
    state = make("tictactoe")
    for text in game["opening"] + game["moves"]:
        state.play(state.parse_move(text))
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == game["winner"]
    # A, moving second, wins this one: its score is 1 whatever the seat's number.
    assert (game["winner"], game["score"]) == (1, 1.0)
    assert game["changed"][1] == len(game["moves"][::2])
