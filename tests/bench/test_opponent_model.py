"""benchmarks/opponent_model.py: the traps it finds, on tic-tac-toe where they are known."""

from __future__ import annotations

from itertools import count
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


def test_the_winning_move_test_catches_an_unblocked_open_three(opponent_model: ModuleType) -> None:
    # Black's c4 d4 e4 on an open row of 8x8 Gomoku is an open three: unless
    # White blocks at b4 or f4 (at a4 or g4 Black still makes b4-e4 or
    # c4-f4 with both ends empty), Black makes an open four and wins. A
    # random reply blocks it with 2 chances in 58; a quiet move (a1 instead
    # of e4) makes no threat.
    player = model(opponent_model, "random", 16, check=0)
    state = make("gomoku", width=8, height=8, k=5)
    for text in ("c4", "h8", "d4", "a8"):
        state.play(state.parse_move(text))
    quiet, three = state.clone(), state.clone()
    quiet.play(quiet.parse_move("a1"))
    three.play(three.parse_move("e4"))
    assert not opponent_model._some_reply_loses(quiet)
    assert opponent_model._some_reply_loses(three)
    for reply, loses in (("b4", False), ("f4", False), ("g4", True), ("a1", True)):
        after = three.clone()
        after.play(after.parse_move(reply))
        assert opponent_model._has_winning_move(after) == loses
    assert sum(player._falls_into_trap(three) for _ in range(16)) >= 13


@pytest.mark.parametrize(
    ("choose", "every", "traps"),
    [("catches", 8, True), ("expected", 8, False), ("expected", 1, True)],
)
def test_expected_worth_weighs_the_catches_against_the_value(
    opponent_model: ModuleType, choose: str, every: int, traps: bool
) -> None:
    # After c4 h8 d4 a8 the search values f8, far from Black's stones, well
    # below its best move. Replicas stubbed to fall only after f8, in one
    # of ``every`` tries: "catches" plays f8 for any catch, "expected" only
    # when the catches make up for its value.
    player = model(opponent_model, "random", 8, share=0.0, candidates=64, choose=choose)
    state = make("gomoku", width=8, height=8, k=5)
    for text in ("c4", "h8", "d4", "a8"):
        state.play(state.parse_move(text))
    trap = state.clone()
    trap.play(trap.parse_move("f8"))
    tries = count()
    player._falls_into_trap = lambda after: (
        after.position_key() == trap.position_key() and next(tries) % every == 0
    )
    player.start(state.clone())
    choice = state.move_to_str(player.choose(state.clone()))
    f8, best = (
        next(stats for stats in player.player.last_result.moves if stats.notation == text)
        for text in ("f8", player.player.last_result.best_notation)
    )
    assert 1 / 8 + 7 / 8 * f8.value < best.value
    assert (choice == "f8") == traps
