from __future__ import annotations

import pytest

from mctslab.games import GameOverError, IllegalMoveError, InvalidMoveError, make
from mctslab.games._perft import count_games, perft
from mctslab.games.othello import PASS, OthelloState
from tests.conftest import load_data

TRUTH = load_data("othello.json")
PERFT = TRUTH["perft"]


def new_game() -> OthelloState:
    state = make("othello")
    assert isinstance(state, OthelloState)
    return state


def play_transcript(moves: str) -> tuple[OthelloState, int]:
    """Replay a transcript where upper case is Black and lower case White; returns passes made.

    Passes are not written in such transcripts: when the colour changes out of
    turn, the side to move must have had only the pass.
    """
    state = new_game()
    passes = 0
    for i in range(0, len(moves), 2):
        move = moves[i : i + 2]
        if state.current_player != (0 if move.isupper() else 1):
            assert state.legal_moves() == [PASS], f"pass not forced before move {i // 2 + 1}"
            state.play("pass")
            passes += 1
        state.play(move)
    return state, passes


@pytest.mark.parametrize(
    "depth", [pytest.param(d, marks=pytest.mark.slow) if d == 10 else d for d in range(11)]
)
def test_perft_matches_published_counts(depth: int) -> None:
    start = new_game()
    paths = perft(start, depth)
    assert paths == PERFT["oeis_a124004"][depth]
    ended_sooner = count_games(start, depth - 1) if depth else 0
    assert paths + ended_sooner == PERFT["bik"][depth]


@pytest.mark.slow
def test_games_ended_early_match_bik_higher_leaves() -> None:
    start = new_game()
    assert count_games(start, 8) == 0
    assert count_games(start, 9) == PERFT["bik_higher_leaves"]["11"]
    assert count_games(start, 10) == PERFT["bik_higher_leaves"]["12"]


def test_start_position_and_notation() -> None:
    state = new_game()
    assert state.current_player == 0
    assert state.disc_counts() == (2, 2)
    assert sorted(state.move_to_str(m) for m in state.legal_moves()) == ["c4", "d3", "e6", "f5"]
    assert state.parse_move("F5") == 4 * 8 + 5
    assert state.move_to_str(0) == "a1" and state.move_to_str(63) == "h8"
    state.play("f5")
    assert state.disc_counts() == (4, 1)
    assert sorted(state.move_to_str(m) for m in state.legal_moves()) == ["d6", "f4", "f6"]


def test_shortest_game_is_a_nine_move_wipe_out() -> None:
    game = TRUTH["shortest_game"]
    state = new_game()
    moves = [game["moves"][i : i + 2] for i in range(0, len(game["moves"]), 2)]
    for move in moves:
        assert not state.is_terminal()
        state.play(move)
    assert state.is_terminal() and state.legal_moves() == []
    assert state.disc_counts() == (game["black"], game["white"])
    assert state.returns() == (1.0, -1.0)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "a wipe-out, 13 to 0"
    with pytest.raises(GameOverError):
        state.play("pass")


def test_published_game_ends_with_both_colours_on_the_board() -> None:
    game = TRUTH["eleven_move_game"]
    state = new_game()
    for move in game["moves"].split():
        assert not state.is_terminal()
        state.play(move)
    assert state.is_terminal()
    assert state.disc_counts() == (game["black"], game["white"])
    board = str(state).splitlines()[1:9]
    rows = ["".join(line.split()[1:9]).replace("[", "").replace("]", "") for line in board]
    expected = [row.replace("B", "X").replace("W", "O") for row in game["final_rows"]]
    assert rows == expected
    assert state.outcome() is not None and state.returns() == (1.0, -1.0)


def test_forced_passes_in_a_published_game() -> None:
    game = TRUTH["many_passes_game"]
    state, passes = play_transcript(game["moves"])
    assert passes == game["black_passes"]
    assert state.is_terminal()
    assert state.disc_counts() == (game["black"], game["white"])
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason == "a wipe-out, 59 to 0"


def test_pass_is_legal_only_when_forced() -> None:
    state = new_game()
    with pytest.raises(IllegalMoveError, match="'pass' is not legal for Black"):
        state.play("pass")
    with pytest.raises(IllegalMoveError, match="Move 64 is not legal for Black"):
        state.play(PASS)
    # In the published game Black must first pass after White's a7 (move 12).
    forced, _ = play_transcript(TRUTH["many_passes_game"]["moves"][:24])
    assert forced.current_player == 0 and forced.legal_moves() == [PASS]
    with pytest.raises(IllegalMoveError, match=r"'b5' is not legal for Black.*legal moves: pass"):
        forced.play("b5")
    forced.play("pass")
    assert forced.current_player == 1 and "last move: pass by Black" in str(forced)


def test_the_move_help_names_the_pass_only_where_it_is_the_move() -> None:
    # Before, it said '"pass" when forced' everywhere: at `mctslab play`'s prompt too, where
    # the person always has a placement (a forced pass is played for them).
    assert new_game().notation_help() == "column a-h then row 1-8 counted from the top, e.g. f5"
    forced, _ = play_transcript(TRUTH["many_passes_game"]["moves"][:24])
    with pytest.raises(InvalidMoveError, match='"pass", the only legal move here'):
        forced.play("skip")


@pytest.mark.parametrize("text", ["i5", "a9", "a0", "f", "55", "passs", "", "f5f6"])
def test_malformed_moves_raise_clear_errors(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="is not a move in othello notation"):
        new_game().play(text)


def test_occupied_and_non_flipping_squares_are_illegal() -> None:
    state = new_game()
    for text in ["d4", "a1", "f4"]:
        with pytest.raises(IllegalMoveError, match=f"'{text}' is not legal for Black"):
            state.play(text)


def test_random_playout_is_seeded_and_ends_the_game() -> None:
    first, second = new_game(), new_game()
    first.random_playout(seed=7)
    second.random_playout(seed=7)
    assert first == second and first.is_terminal()
    black, white = first.disc_counts()
    assert first.returns() == (
        (1.0, -1.0) if black > white else (-1.0, 1.0) if white > black else (0.0, 0.0)
    )
    # A playout from a forced pass plays the pass itself.
    forced, _ = play_transcript(TRUTH["many_passes_game"]["moves"][:24])
    forced.random_playout(seed=1)
    assert forced.is_terminal()


def test_rendering_shows_coordinates_last_move_and_counts() -> None:
    state = new_game()
    state.play("f5")
    text = str(state)
    assert text.splitlines()[0].split() == list("abcdefgh")
    assert "[X]" in text.splitlines()[5]  # row 5 holds the last move
    assert "X Black 4  O White 1" in text and "O White to move." in text
