"""play_games: games between players of one's own, against tic-tac-toe's minimax."""

from __future__ import annotations

import random

import pytest

from mctslab import Budget, SearchConfig, State
from mctslab.arena import play_games
from mctslab.core import MCTS
from mctslab.fast import FastMCTS
from mctslab.players import MCTSPlayer, RandomPlayer
from tests.core.tictactoe_minimax import best_moves
from tests.core.toy_games import Nim


class Perfect:
    """Plays one of tic-tac-toe's minimax-best moves, chosen at random."""

    def __init__(self, seed: int, name: str = "perfect") -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.started = self.observed = self.closed = 0

    def start(self, state: State) -> None:
        self.started += 1

    def choose(self, state: State) -> int:
        return state.parse_move(self.rng.choice(sorted(best_moves(state))))

    def observe(self, move: int) -> None:
        self.observed += 1

    def close(self) -> None:
        self.closed += 1


def test_two_perfect_players_always_draw() -> None:
    a, b = Perfect(1, "a"), Perfect(2, "b")
    games = play_games("tictactoe", a, b, games=6)
    assert [game["score"] for game in games] == [0.5] * 6
    assert [game["winner"] for game in games] == [None] * 6
    # Colours alternate, a first; each player is started every game, told every move, not closed.
    assert [game["players"][0] for game in games] == [
        {"id": "A", "name": "a"} if index % 2 == 0 else {"id": "B", "name": "b"}
        for index in range(6)
    ]
    assert a.started == b.started == 6 and a.closed == b.closed == 0
    assert a.observed == b.observed == sum(len(game["moves"]) for game in games)


def test_a_perfect_player_never_loses() -> None:
    games = play_games("tictactoe", Perfect(3), RandomPlayer(seed=4), games=20)
    assert all(game["score"] in (0.5, 1.0) for game in games)
    assert sum(game["score"] == 1.0 for game in games) > 10  # random play loses most games
    # The seat that won is the perfect player's, first in the even games.
    assert all(game["winner"] in (None, game["index"] % 2) for game in games)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"games": 0}, "The 'games' parameter of play_games must be an int >= 1. Got 0 instead."),
        ({"params": 3}, "The 'params' parameter of play_games must be None or a mapping."),
        ({"params": {"size": 3}}, "Unknown parameter(s) 'size' for game 'tictactoe'"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        play_games("tictactoe", Perfect(1), Perfect(2), **options)  # type: ignore[arg-type]
    assert str(raised.value).startswith(message)


def test_a_bad_game_or_player_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^Unknown game 'chess'"):
        play_games("chess", Perfect(1), Perfect(2))
    with pytest.raises(ValueError, match=r"^The 'a' parameter of play_games must be a Player"):
        play_games("tictactoe", "random", Perfect(2))  # type: ignore[arg-type]
    same = Perfect(1)
    with pytest.raises(
        ValueError, match=r"^The 'b' parameter of play_games must be a Player other"
    ):
        play_games("tictactoe", same, same)


@pytest.mark.parametrize("engine", [MCTS, FastMCTS])
def test_players_sharing_one_engine_are_refused(engine: type[MCTS] | type[FastMCTS]) -> None:
    # Each seat is told every move: one engine's tree was advanced twice a move, and the next
    # search failed with an IllegalMoveError about the engine's root position.
    shared = engine(SearchConfig(seed=1))
    a, b = (MCTSPlayer(shared, budget=Budget(iterations=300)) for _ in range(2))
    with pytest.raises(ValueError, match=r"^Players a and b of play_games share one engine"):
        play_games("tictactoe", a, b)
    own = MCTSPlayer(engine(SearchConfig(seed=2)), budget=Budget(iterations=300))
    assert len(play_games("tictactoe", a, own)) == 2
    # An engine that keeps no tree between searches has none to advance twice.
    treeless = engine(SearchConfig(seed=1, reuse_tree=False))
    c, d = (MCTSPlayer(treeless, budget=Budget(iterations=300)) for _ in range(2))
    assert len(play_games("tictactoe", c, d)) == 2


def test_a_game_for_the_generic_engine_only_is_refused_saying_what_is_played() -> None:
    # play_game's players and records take a State (its notation, outcome and parameters); a
    # plain-Python game searched by the generic engine was refused as if it were no game.
    with pytest.raises(ValueError) as raised:
        play_games(Nim([1, 2]), Perfect(1), Perfect(2))  # type: ignore[arg-type]
    assert str(raised.value).startswith(
        "The 'game' parameter of play_games must be a bundled game's name or a State (a "
        "compiled game's position, see mctslab.kernel; a game for the generic engine only is "
        "not one). Got Nim("
    )
