"""benchmarks/opponent_model.py: the traps it finds, on tic-tac-toe where they are known."""

from __future__ import annotations

import argparse
from types import ModuleType

import pytest

from mctslab import make
from tests.conftest import load_benchmark

CORNERS = {"a1", "c1", "a3", "c3"}


@pytest.fixture(scope="module")
def opponent_model() -> ModuleType:
    return load_benchmark("opponent_model")


def settings(replicas: int) -> argparse.Namespace:
    return argparse.Namespace(margin=1.0, candidates=9, replicas=replicas, check=20_000)


def test_the_corner_is_the_trap_for_a_random_player(opponent_model: ModuleType) -> None:
    # Every first move of tic-tac-toe draws. After a corner only the centre
    # holds the draw (7 of 8 replies lose), after the centre the four corners
    # do and after an edge four replies: a random replier falls most often
    # after a corner.
    model = opponent_model.ReplicaModel("mcts:iterations=5000", "random", 1, settings(16))
    state = make("tictactoe")
    model.start(state.clone())
    choice = model.choose(state.clone())
    # The search alone takes the centre, which wins the most random playouts.
    assert model.player.last_result.best_notation == "b2"
    assert state.move_to_str(choice) in CORNERS
    assert (model.traps, model.moves) == (1, 1)


def test_a_replica_that_never_errs_leaves_the_search_its_choice(
    opponent_model: ModuleType,
) -> None:
    model = opponent_model.ReplicaModel(
        "mcts:iterations=5000", "mcts:iterations=20000", 1, settings(2)
    )
    state = make("tictactoe")
    for text in ("b2", "a1", "c3"):
        state.play(state.parse_move(text))
    model.start(state.clone())
    choice = model.choose(state.clone())
    assert choice == model.player.last_result.best_move
    assert model.traps == 0


def test_a_replayed_game_keeps_the_opening_and_scores_for_a(opponent_model: ModuleType) -> None:
    recorded = {
        "type": "game",
        "index": 0,
        "pair": 0,
        "game": "tictactoe",
        "params": {},
        "players": [
            {"id": "B", "spec": "random", "seed": 7},
            {"id": "A", "spec": "mcts:iterations=2000", "seed": 3},
        ],
        "opening": ["a2"],
        "moves": [],
    }
    game = opponent_model.replay((recorded, settings(2)))
    state = make("tictactoe")
    for text in game["opening"] + game["moves"]:
        state.play(state.parse_move(text))
    assert game["opening"] == ["a2"]
    assert state.is_terminal()
    # Against a random player the second player never loses tic-tac-toe with a search this deep.
    assert state.outcome().winner == game["winner"] != 0
    assert game["score"] == (0.5 if game["winner"] is None else 1.0)
    assert len(game["seconds"]) == len(game["moves"])
