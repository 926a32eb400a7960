"""Gomoku (freestyle) against an independent brute-force line checker written here."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from mctslab.games import GameOverError, IllegalMoveError, InvalidMoveError, make
from mctslab.games._board import COLUMN_LETTERS
from mctslab.games._header import LAST, PLY
from mctslab.games.gomoku import GomokuState

Cell = tuple[int, int]  # (row from the top, column from the left)
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


# -- the independent referee ----------------------------------------------------
def has_line(stones: set[Cell], k: int) -> bool:
    """Whether ``stones`` hold ``k`` in a row in any direction (naive scan of every start)."""
    return any(
        all((row + i * dr, column + i * dc) in stones for i in range(k))
        for row, column in stones
        for dr, dc in DIRECTIONS
    )


def stones_of(board: list[list[int]], player: int) -> set[Cell]:
    return {
        (row, column)
        for row, cells in enumerate(board)
        for column, cell in enumerate(cells)
        if cell == player + 1
    }


def line_owners(board: list[list[int]], k: int) -> set[int]:
    """The players with k or more in a row on ``board`` (0 empty, 1 Black, 2 White)."""
    return {player for player in (0, 1) if has_line(stones_of(board, player), k)}


def all_lines(width: int, height: int, k: int) -> Iterator[list[Cell]]:
    """Every placement of k in a row on the board, in every direction."""
    for dr, dc in DIRECTIONS:
        for row in range(height):
            for column in range(width):
                cells = [(row + i * dr, column + i * dc) for i in range(k)]
                if all(0 <= r < height and 0 <= c < width for r, c in cells):
                    yield cells


def new_game(width: int, height: int, k: int) -> GomokuState:
    state = make("gomoku", width=width, height=height, k=k)
    assert isinstance(state, GomokuState)
    return state


def play_cells(state: GomokuState, cells: list[Cell]) -> None:
    for row, column in cells:
        state.apply(row * state.width + column)


def winner_of(state: GomokuState) -> int | None:
    outcome = state.outcome()
    assert outcome is not None, "the game is not over"
    return outcome.winner


def scattered_stones(rng: random.Random, free: list[Cell], count: int, k: int) -> list[Cell]:
    """``count`` random cells from ``free`` that hold no k in a row."""
    while has_line(set(stones := rng.sample(free, count)), k):
        pass
    return stones


def interleave(black: list[Cell], white: list[Cell]) -> list[Cell]:
    """Black's and White's stones in move order; Black moves first."""
    assert len(black) - len(white) in (0, 1)
    order = [cell for pair in zip(black, white, strict=False) for cell in pair]
    return order + black[len(white) :]


# -- wins ---------------------------------------------------------------------------
NON_SQUARE = [(5, 9, 5), (12, 7, 5), (19, 5, 5), (9, 5, 3), (7, 12, 12), (6, 5, 4)]


@pytest.mark.parametrize(("width", "height", "k"), NON_SQUARE)
def test_every_line_wins_for_either_player_with_any_stone_last(
    width: int, height: int, k: int
) -> None:
    """Each k-line (all edges, corners, directions), completed by any of its stones, wins."""
    lines = list(all_lines(width, height, k))
    fit_h, fit_v = max(0, width - k + 1), max(0, height - k + 1)
    assert len(lines) == height * fit_h + width * fit_v + 2 * fit_h * fit_v
    rng = random.Random(f"{width}x{height}k{k}")
    board_cells = [(r, c) for r in range(height) for c in range(width)]
    for line in lines:
        off_line = [cell for cell in board_cells if cell not in line]
        for last in range(k):
            winning = line[:last] + line[last + 1 :] + [line[last]]
            for winner in (0, 1):
                losing = scattered_stones(rng, off_line, k - 1 + winner, k)
                moves = interleave(*((winning, losing) if winner == 0 else (losing, winning)))
                state = new_game(width, height, k)
                play_cells(state, moves[:-1])
                assert not state.is_terminal(), f"{k - 1} stones of {line} won"
                play_cells(state, moves[-1:])
                outcome = state.outcome()
                assert outcome is not None and outcome.winner == winner, (line, last, winner)
                assert outcome.reason == f"{k} in a row"
                assert state.legal_moves() == []


@pytest.mark.parametrize(("before", "after"), [(2, 3), (1, 4), (3, 3), (4, 4)])
def test_overlines_win(before: int, after: int) -> None:
    """Freestyle: filling the gap between two short runs wins with 6 or more."""
    state = new_game(15, 15, 5)
    black = [(14, c) for c in range(before)] + [(14, before + 1 + c) for c in range(after)]
    white = [(0, 2 * c) for c in range(len(black))]
    play_cells(state, interleave(black, white))
    assert not state.is_terminal()
    play_cells(state, [(14, before)])
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0
    assert state.returns() == (1.0, -1.0)


def test_k_minus_one_in_every_corner_is_no_win() -> None:
    width, height, k = 12, 7, 5
    black = (
        [(0, c) for c in range(4)]
        + [(6, 11 - c) for c in range(4)]
        + [(r, 11) for r in range(4)]
        + [(6 - r, r) for r in range(4)]
    )
    assert not has_line(set(black), k)
    free = [(r, c) for r in range(height) for c in range(width) if (r, c) not in black]
    white = scattered_stones(random.Random(5), free, len(black), k)
    state = new_game(width, height, k)
    play_cells(state, interleave(black, white))
    assert not state.is_terminal() and state.current_player == 0


# -- draws ----------------------------------------------------------------------------
def stripes(width: int, height: int) -> list[list[int]]:
    """Diagonal stripes two wide: no three in a row in any direction, so any k >= 3 draws."""
    return [
        [1 if (column + 2 * row) % 4 < 2 else 2 for column in range(width)] for row in range(height)
    ]


@pytest.mark.parametrize(
    ("width", "height", "k"), [(15, 15, 5), (19, 19, 5), (5, 5, 3), (12, 7, 3), (19, 5, 4)]
)
def test_full_board_without_a_line_is_a_draw(width: int, height: int, k: int) -> None:
    board = stripes(width, height)
    assert line_owners(board, 3) == set()  # the checker proves it; k >= 3 follows
    black, white = sorted(stones_of(board, 0)), sorted(stones_of(board, 1))
    assert len(black) == (width * height + 1) // 2 and len(white) == width * height // 2
    moves = interleave(black, white)
    state = new_game(width, height, k)
    play_cells(state, moves[:-1])
    assert not state.is_terminal() and len(state.legal_moves()) == 1
    play_cells(state, moves[-1:])
    outcome = state.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason == "board full"
    assert state.returns() == (0.0, 0.0)
    assert state.board().tolist() == board


# -- the kernel against the referee on random games ------------------------------------
def test_random_games_agree_with_brute_force_checker() -> None:
    """At the end, and one move before (stones only get added), verdicts agree."""
    rng = random.Random(2024)
    endings: Counter[int | None] = Counter()
    for _ in range(300):
        width, height = rng.randint(5, 9), rng.randint(5, 9)
        k = rng.randint(3, min(6, max(width, height)))
        state = new_game(width, height, k)
        board = [[0] * width for _ in range(height)]
        previous = board
        while not state.is_terminal():
            move = rng.choice(state.legal_moves())
            row, column = divmod(move, width)
            previous = [cells[:] for cells in board]
            board[row][column] = state.current_player + 1
            state.apply(move)
        outcome = state.outcome()
        assert outcome is not None
        endings[outcome.winner] += 1
        assert state.board().tolist() == board
        assert line_owners(previous, k) == set()
        if outcome.winner is None:
            assert line_owners(board, k) == set() and all(all(row) for row in board)
        else:
            assert line_owners(board, k) == {outcome.winner}
    assert set(endings) == {0, 1, None}  # the sample covers both winners and draws


def test_rollout_ends_in_a_consistent_terminal_state() -> None:
    """The compiled playout stops at the first line, from the start or from mid-game."""
    rng = random.Random(7)
    for seed in range(600):
        width, height = rng.choice([(15, 15), (8, 8), (19, 5), (6, 9)])
        k = rng.randint(3, 5)
        state = new_game(width, height, k)
        opening = rng.sample(range(width * height), rng.randint(0, 2 * k - 2))
        for move in opening:
            state.apply(move)
        state.random_playout(seed)
        outcome = state.outcome()
        assert outcome is not None and state.legal_moves() == []
        board = state.board().tolist()
        stones = sum(cell != 0 for row in board for cell in row)
        assert state.data[PLY] == stones and state.current_player == stones % 2
        if outcome.winner is None:
            assert stones == width * height and line_owners(board, k) == set()
            continue
        last_row, last_column = divmod(int(state.data[LAST]), width)
        assert board[last_row][last_column] == outcome.winner + 1
        assert line_owners(board, k) == {outcome.winner}
        board[last_row][last_column] = 0
        assert line_owners(board, k) == set()


@pytest.mark.parametrize(("width", "height", "k"), [(5, 5, 4), (7, 6, 5)])
def test_rollout_matches_python_random_playouts(width: int, height: int, k: int) -> None:
    """Winner frequencies of the compiled rollout and of a Python-level random game agree."""
    games = 1500
    compiled: Counter[int | None] = Counter()
    python: Counter[int | None] = Counter()
    rng = random.Random(11)
    for seed in range(games):
        state = new_game(width, height, k)
        state.random_playout(seed)
        compiled[winner_of(state)] += 1
        state = new_game(width, height, k)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        python[winner_of(state)] += 1
    for winner in (0, 1, None):
        p = (compiled[winner] + python[winner]) / (2 * games)
        tolerance = 5 * math.sqrt(p * (1 - p) * 2 / games) + 0.01
        assert abs(compiled[winner] - python[winner]) / games < tolerance, (compiled, python)


# -- parameters ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"size": 3}, "The 'size' parameter of gomoku must be an int in [5, 19]. Got 3 instead."),
        ({"size": 40}, "The 'size' parameter of gomoku must be an int in [5, 19]. Got 40 instead."),
        (
            {"size": 9.0},
            "The 'size' parameter of gomoku must be an int in [5, 19]. Got 9.0 instead.",
        ),
        ({"width": 4}, "The 'width' parameter of gomoku must be an int in [5, 19]. Got 4 instead."),
        (
            {"height": 20},
            "The 'height' parameter of gomoku must be an int in [5, 19]. Got 20 instead.",
        ),
        (
            {"size": 9, "k": 10},
            "The 'k' parameter of gomoku must be an int in [3, 9]. Got 10 instead.",
        ),
        ({"k": 16}, "The 'k' parameter of gomoku must be an int in [3, 15]. Got 16 instead."),
        (
            {"width": 5, "height": 9, "k": 10},
            "The 'k' parameter of gomoku must be an int in [3, 9].",
        ),
        ({"k": 2}, "The 'k' parameter of gomoku must be an int in [3, 15]. Got 2 instead."),
        ({"size": 9, "width": 9}, "Give gomoku either 'size' or 'width'/'height', not both."),
        ({"colour": "black"}, "Unknown parameter(s) 'colour' for game 'gomoku'; accepted: size,"),
    ],
)
def test_bad_parameters_raise_clear_errors(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as error:
        make("gomoku", **params)
    assert str(error.value).startswith(message)


def test_parameters_and_spec() -> None:
    state = new_game(5, 9, 9)
    assert state.spec.board_shape == (9, 5) and state.spec.num_actions == 45
    assert state.spec.params == {"width": 5, "height": 9, "k": 9}
    assert make("gomoku").spec.params == {"width": 15, "height": 15, "k": 5}
    assert make("gomoku", size=8).spec.params == {"width": 8, "height": 8, "k": 5}
    assert make("gomoku", width=9).spec.board_shape == (15, 9)


# -- notation and messages -------------------------------------------------------------
def test_notation_round_trips_on_every_cell_of_19x19() -> None:
    state = new_game(19, 19, 5)
    seen = set()
    for row in range(19):
        for column in range(19):
            move = row * 19 + column
            letter = state.move_to_str(move)
            assert state.parse_move(letter) == move
            assert state.parse_move(letter.upper()) == move
            assert state.move_to_gomocup(move) == f"{column},{row}"
            assert state.parse_move(f"{column},{row}") == move
            assert state.parse_move(f" {column} {row} ") == move
            seen.add(letter)
    assert len(seen) == 361
    corners = {"a19": (0, "0,0"), "s19": (18, "18,0"), "a1": (342, "0,18"), "s1": (360, "18,18")}
    for letter, (move, pair) in corners.items():
        assert state.move_to_str(move) == letter and state.move_to_gomocup(move) == pair


def test_notation_on_a_non_square_board() -> None:
    state = new_game(12, 7, 5)
    assert state.parse_move("a1") == 72 and state.parse_move("0,6") == 72
    assert state.parse_move("l7") == 11 and state.parse_move("11,0") == 11
    assert make("gomoku").move_to_str(7 * 15 + 7) == "h8"
    assert "e.g. h8" in make("gomoku").notation_help()
    assert "e.g. 7,7" in make("gomoku").notation_help()


def test_occupied_cell_is_illegal_and_names_the_move() -> None:
    state = make("gomoku")
    state.play("h8")
    with pytest.raises(IllegalMoveError, match="'h8' is not legal for White"):
        state.play("h8")
    with pytest.raises(IllegalMoveError, match="'7,7' is not legal for White"):
        state.play("7,7")
    with pytest.raises(IllegalMoveError, match="Move 112 is not legal for White"):
        state.play(112)


@pytest.mark.parametrize(
    ("size", "text"),
    [(15, t) for t in ["z9", "a0", "p1", "a16", "15,0", "0,15", "h8x", "", "7,,7", "-1,3"]]
    + [(15, t) for t in ["h\u0668", "\u0667,\u0668", "7 ８"]]  # digits of other scripts
    + [(19, t) for t in ["t1", "a20", "19,0", "0,19"]],
)
def test_malformed_moves_name_the_input(size: int, text: str) -> None:
    with pytest.raises(InvalidMoveError, match=f"{text!r} is not a move in gomoku notation"):
        make("gomoku", size=size).play(text)


def test_no_move_after_the_end() -> None:
    state = new_game(5, 5, 3)
    play_cells(state, interleave([(0, 0), (0, 1), (0, 2)], [(4, 0), (4, 2)]))
    with pytest.raises(GameOverError):
        state.play("e3")


def test_rendering_counts_rows_from_the_bottom_and_brackets_the_last_move() -> None:
    state = new_game(6, 5, 4)
    state.play("a1")
    state.play("f5")
    assert str(state) == "\n".join(
        [
            "   a  b  c  d  e  f",
            "5  .  .  .  .  . [O] 5",
            "4  .  .  .  .  .  .  4",
            "3  .  .  .  .  .  .  3",
            "2  .  .  .  .  .  .  2",
            "1  X  .  .  .  .  .  1",
            "   a  b  c  d  e  f",
        ]
    )


def test_a_board_too_wide_for_the_terminal_is_drawn_compact() -> None:
    state = new_game(6, 5, 4)
    state.play("a1")
    state.play("f5")
    assert state.render(width=22) == str(state)  # the normal board, 22 wide, fits
    compact = [
        "  a b c d e f",
        "5 . . . . .[O]5",
        "4 . . . . . . 4",
        "3 . . . . . . 3",
        "2 . . . . . . 2",
        "1 X . . . . . 1",
        "  a b c d e f",
    ]
    assert state.render(width=21) == "\n".join(compact)
    # Narrower still, the row labels on the right go, then the space after the last column.
    assert state.render(width=14).splitlines()[1:3] == ["5 . . . . .[O]", "4 . . . . . ."]
    assert state.render(width=13).splitlines()[1:3] == ["5 . . . . .[O", "4 . . . . . ."]


@pytest.mark.parametrize(("size", "widest"), [(15, 35), (19, 40)])
def test_the_biggest_boards_fit_a_terminal_40_columns_wide(size: int, widest: int) -> None:
    state = make("gomoku", size=size)
    for move in ("a1", "h8", "a2"):
        state.play(move)
    lines = state.render(width=40).splitlines()
    assert max(len(line) for line in lines) == widest
    assert lines[0].split() == list(COLUMN_LETTERS[:size])
    assert lines[size - 1] == " 2[X]." + " ." * (size - 2) + (" 2" if size == 15 else "")
    assert lines[size].startswith(" 1 X .")
