"""The OpenSpiel adapter: our games and OpenSpiel's agree move for move.

Random games are replayed in both implementations and, at every ply, the
legal move sets, the end of the game and the returns must be equal: that is
what makes OpenSpiel's action ids ours.
"""

from __future__ import annotations

import random

import pytest

from mctslab.games import make
from mctslab.players.openspiel import (
    OpenSpielPlayer,
    game_string,
    new_bot,
    pyspiel_game,
    pyspiel_state,
)
from mctslab.players.random_player import RandomPlayer

pyspiel = pytest.importorskip("pyspiel")

GAMES = [
    ("tictactoe", {}, 300),
    ("connect4", {}, 200),
    ("othello", {}, 100),
    ("gomoku", {"size": 7, "k": 4}, 200),  # OpenSpiel's gomoku
    ("gomoku", {"width": 8, "height": 5, "k": 4}, 200),  # a non-square board: mnk
    ("gomoku", {"size": 15}, 20),
]


@pytest.mark.parametrize(("game", "params", "count"), GAMES)
def test_random_games_agree_ply_by_ply(game: str, params: dict[str, int], count: int) -> None:
    rng = random.Random(2024)
    for _ in range(count):
        ours = make(game, **params)
        theirs = pyspiel_game(ours.spec).new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            if ours.is_terminal():
                assert list(ours.returns()) == list(theirs.returns())
                break
            assert sorted(ours.legal_moves()) == sorted(theirs.legal_actions())
            assert ours.current_player == theirs.current_player()
            move = rng.choice(ours.legal_moves())
            ours.apply(move)
            theirs.apply_action(move)


def test_game_strings() -> None:
    assert game_string(make("gomoku", size=9, k=5).spec) == "gomoku(size=9,connect=5)"
    assert game_string(make("gomoku", width=9, height=6, k=4).spec) == "mnk(m=9,n=6,k=4)"
    with pytest.raises(ValueError, match="no game that plays like 'countdown'"):
        game_string(make("countdown").spec)


def test_state_is_built_by_replaying_moves_from_the_start() -> None:
    start = make("tictactoe")
    state = pyspiel_state(start, [4, 0])
    assert sorted(state.legal_actions()) == [1, 2, 3, 5, 6, 7, 8]
    moved = make("tictactoe")
    moved.play("b2")
    with pytest.raises(ValueError, match="replaying moves from the start"):
        pyspiel_state(moved, [])
    with pytest.raises(ValueError, match="Move 4 \\(ply 2\\) is not legal"):
        pyspiel_state(start, [4, 4])


def test_bot_finds_the_winning_move() -> None:
    # X: a1 b2, O: a2 b3 -> c3 wins at once (cell 2, top right).
    start = make("tictactoe")
    moves: list[int] = []
    state = start.clone()
    for text in ("a1", "a2", "b2", "b3"):
        move = state.parse_move(text)
        moves.append(move)
        state.apply(move)
    bot = new_bot(pyspiel_game(start.spec), iterations=2000, seed=3)
    assert state.move_to_str(bot.step(pyspiel_state(start, moves))) == "c3"


def test_openspiel_player_plays_whole_games() -> None:
    for seed in range(2):
        state = make("connect4")
        players = [OpenSpielPlayer(iterations=200, seed=seed), RandomPlayer(seed)]
        for player in players:
            player.start(state.clone())
        while not state.is_terminal():
            move = players[state.current_player].choose(state.clone())
            assert move in state.legal_moves()
            state.apply(move)
            for player in players:
                player.observe(move)
        for player in players:
            player.close()
