"""Connect Four against published position counts and a plain-Python referee written here."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from mctslab.games import IllegalMoveError, InvalidMoveError, make
from mctslab.games._header import LAST, PLY
from mctslab.games._perft import count_games, count_positions, perft
from mctslab.games.connect4 import Connect4State
from tests.conftest import load_data

TRUTH = load_data("connect4.json")
COLUMNS, ROWS = 7, 6
Cell = tuple[int, int]  # (column from the left, row from the bottom)


# -- the independent referee ------------------------------------------------------
def four_lines() -> list[list[Cell]]:
    """Every placement of four in a row on the board, found by trying every start and direction."""
    lines = []
    for column in range(COLUMNS):
        for row in range(ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(column + i * dc, row + i * dr) for i in range(4)]
                if all(0 <= c < COLUMNS and 0 <= r < ROWS for c, r in cells):
                    lines.append(cells)
    return lines


LINES = four_lines()
LINES_THROUGH = {
    (c, r): [line for line in LINES if (c, r) in line] for c in range(COLUMNS) for r in range(ROWS)
}


class Referee:
    """Connect Four in plain Python: each column is a list of player indices from the bottom."""

    def __init__(self, moves: Sequence[int] = ()) -> None:
        self.columns: list[list[int]] = [[] for _ in range(COLUMNS)]
        self.history: list[int] = []
        self.winner: int | None = None
        for move in moves:
            self.play(move)

    @property
    def over(self) -> bool:
        return self.winner is not None or len(self.history) == COLUMNS * ROWS

    def legal(self) -> list[int]:
        return [] if self.over else [c for c in range(COLUMNS) if len(self.columns[c]) < ROWS]

    def at(self, cell: Cell) -> int | None:
        column, row = cell
        return self.columns[column][row] if row < len(self.columns[column]) else None

    def next_cell(self, column: int) -> Cell:
        return column, len(self.columns[column])

    def play(self, column: int) -> None:
        player = len(self.history) % 2
        cell = self.next_cell(column)
        self.columns[column].append(player)
        self.history.append(column)
        if any(all(self.at(c) == player for c in line) for line in LINES_THROUGH[cell]):
            self.winner = player

    def undo(self) -> None:
        self.columns[self.history.pop()].pop()
        self.winner = None

    def owners(self) -> set[int]:
        """Players with four in a row anywhere (a full scan, not just around the last disc)."""
        return {
            player
            for player in (0, 1)
            for line in LINES
            if all(self.at(cell) == player for cell in line)
        }


def referee_walk(referee: Referee, depth: int) -> tuple[int, int]:
    """(move sequences of exactly ``depth`` moves, games that end within ``depth`` moves)."""
    leaves = finished = 0
    for column in referee.legal():
        referee.play(column)
        if referee.over:
            finished += 1
            leaves += depth == 1
        elif depth == 1:
            leaves += 1
        else:
            more_leaves, more_finished = referee_walk(referee, depth - 1)
            leaves += more_leaves
            finished += more_finished
        referee.undo()
    return leaves, finished


def new_game(moves: Sequence[int] = ()) -> Connect4State:
    state = make("connect4")
    assert isinstance(state, Connect4State)
    for move in moves:
        state.play(move)
    return state


def random_opening(rng: random.Random, length: int) -> list[int]:
    """A random move sequence of ``length`` moves that does not end the game."""
    while True:
        referee = Referee()
        for _ in range(length):
            if referee.over:
                break
            referee.play(rng.choice(referee.legal()))
        if not referee.over:
            return referee.history


# -- published counts --------------------------------------------------------------------
def test_distinct_positions_per_ply_match_oeis_a212693() -> None:
    plies = 8
    assert count_positions(new_game(), plies) == TRUTH["positions_after_plies"][: plies + 1]


def test_referee_finds_every_published_four_in_a_row_placement() -> None:
    assert len(LINES) == TRUTH["four_in_a_row_placements"]


@pytest.mark.parametrize("plies", [0, 14, 20, 26, 30, 37, 39])
def test_path_counts_match_the_referee(plies: int) -> None:
    """perft and count_games from the start and from random games up to near the full board."""
    opening = random_opening(random.Random(plies), plies)
    depth = 5
    kernel_counts = (perft(new_game(opening), depth), count_games(new_game(opening), depth))
    assert kernel_counts == referee_walk(Referee(opening), depth)


# -- wins and draws ---------------------------------------------------------------------
def game_completing(line: list[Cell], winner: int, rng: random.Random) -> list[int] | None:
    """A random game whose last move completes ``line`` for ``winner``, or None if this try fails.

    The winner takes a cell of the line whenever one is playable; otherwise both
    players drop discs outside the line that win nothing, until the line is complete.
    """
    referee = Referee()
    targets = set(line)
    while not referee.over:
        player = len(referee.history) % 2
        legal = referee.legal()
        wanted = [c for c in legal if referee.next_cell(c) in targets]
        if player == winner and wanted:
            referee.play(rng.choice(wanted))
            continue
        fillers = []
        for column in legal:
            if referee.next_cell(column) in targets:
                continue
            referee.play(column)
            if not referee.over:
                fillers.append(column)
            referee.undo()
        if not fillers:
            return None
        referee.play(rng.choice(fillers))
    done = referee.winner == winner and all(referee.at(cell) == winner for cell in line)
    return referee.history if done else None


@pytest.mark.parametrize("winner", [0, 1])
def test_every_four_in_a_row_wins(winner: int) -> None:
    """All 69 placements (both diagonals, every row and column), for either player."""
    rng = random.Random(winner)
    directions = set()
    for line in LINES:
        for _ in range(200):
            moves = game_completing(line, winner, rng)
            if moves is not None:
                break
        assert moves is not None, f"no game found completing {line}"
        state = new_game(moves[:-1])
        assert not state.is_terminal()
        state.play(str(moves[-1] + 1))
        outcome = state.outcome()
        assert outcome is not None and outcome.winner == winner
        assert outcome.reason == "four in a row" and state.legal_moves() == []
        directions.add((line[1][0] - line[0][0], line[1][1] - line[0][1]))
    assert directions == {(1, 0), (0, 1), (1, 1), (1, -1)}


def stripes() -> dict[Cell, int]:
    """Diagonal stripes two wide: no three in a row anywhere, 21 discs each."""
    return {(c, r): 0 if (c + 2 * r) % 4 < 2 else 1 for c in range(COLUMNS) for r in range(ROWS)}


def fill_order(colours: dict[Cell, int]) -> list[int]:
    """A legal alternating drop order producing ``colours`` (depth-first search)."""
    referee = Referee()
    choices = [list(range(COLUMNS))]
    while len(referee.history) < COLUMNS * ROWS:
        player = len(referee.history) % 2
        options = choices[-1]
        fitting = [c for c in options if len(referee.columns[c]) < ROWS]
        fitting = [c for c in fitting if colours[referee.next_cell(c)] == player]
        if not fitting:
            choices.pop()
            assert choices, "no order exists"
            referee.undo()
            continue
        column = fitting[0]
        options.remove(column)
        referee.play(column)
        choices.append(list(range(COLUMNS)))
    return referee.history


def test_full_board_without_four_is_a_draw() -> None:
    colours = stripes()
    moves = fill_order(colours)
    referee = Referee(moves)
    assert referee.owners() == set() and referee.winner is None
    assert all(referee.at(cell) == colour for cell, colour in colours.items())
    state = new_game(moves[:-1])
    assert not state.is_terminal() and state.legal_moves() == [moves[-1]]
    state.apply(moves[-1])
    outcome = state.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason == "board full"
    assert state.returns() == (0.0, 0.0)


def test_random_games_agree_with_the_referee() -> None:
    rng = random.Random(42)
    endings = set()
    for _ in range(400):
        state = new_game()
        referee = Referee()
        while not state.is_terminal():
            assert state.legal_moves() == referee.legal()
            move = rng.choice(state.legal_moves())
            state.apply(move)
            referee.play(move)
        outcome = state.outcome()
        assert outcome is not None and referee.over
        assert outcome.winner == referee.winner
        assert referee.owners() == ({referee.winner} if referee.winner is not None else set())
        endings.add(outcome.winner)
    assert endings == {0, 1}


def test_rollout_ends_in_a_consistent_terminal_state() -> None:
    rng = random.Random(3)
    for seed in range(400):
        state = new_game(random_opening(rng, rng.randint(0, 20)))
        state.random_playout(seed)
        outcome = state.outcome()
        assert outcome is not None and state.legal_moves() == []
        grid = state.board()
        discs = int((grid != 0).sum())
        assert state.data[PLY] == discs and state.current_player == discs % 2
        referee = Referee()
        referee.columns = [
            [int(grid[ROWS - 1 - r, c]) - 1 for r in range(ROWS) if grid[ROWS - 1 - r, c]]
            for c in range(COLUMNS)
        ]
        if outcome.winner is None:
            assert discs == COLUMNS * ROWS and referee.owners() == set()
            continue
        assert referee.owners() == {outcome.winner}
        last = referee.columns[int(state.data[LAST])]
        assert last.pop() == outcome.winner
        assert referee.owners() == set()


# -- notation, errors, rendering --------------------------------------------------------
@pytest.mark.parametrize("text", ["0", "8", "10", "a", "", "4 4", "-1"])
def test_malformed_columns_name_the_input(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=f"{text!r} is not a move in connect4 notation"):
        new_game().play(text)


def test_full_column_is_illegal() -> None:
    state = new_game([0] * ROWS)
    assert state.legal_moves() == [1, 2, 3, 4, 5, 6]
    with pytest.raises(IllegalMoveError, match="'1' is not legal for X"):
        state.play("1")
    with pytest.raises(IllegalMoveError, match="Move 0 is not legal for X"):
        state.play(0)
    with pytest.raises(InvalidMoveError, match="7 is not a move id of connect4: ids are 0 to 6"):
        state.play(7)


def test_notation_round_trips() -> None:
    state = new_game()
    assert [state.move_to_str(m) for m in range(COLUMNS)] == list("1234567")
    assert [state.parse_move(f" {c} ") for c in "1234567"] == list(range(COLUMNS))


def test_rendering_numbers_columns_and_brackets_the_last_disc() -> None:
    state = new_game([3, 3, 2])
    assert str(state) == "\n".join(
        [" .  .  .  .  .  .  . "] * 4
        + [" .  .  .  O  .  .  . ", " .  . [X] X  .  .  . ", " 1  2  3  4  5  6  7 "]
    )


def test_rendering_by_cells_names_columns_and_rows_from_the_bottom() -> None:
    # GTP's vertices name the cell a disc lands on, c1 here; showboard draws it so.
    assert new_game([3, 3, 2]).render_cells() == "\n".join(
        [
            "   a  b  c  d  e  f  g",
            *(f"{row}  .  .  .  .  .  .  .  {row}" for row in (6, 5, 4, 3)),
            "2  .  .  .  O  .  .  .  2",
            "1  .  . [X] X  .  .  .  1",
            "   a  b  c  d  e  f  g",
        ]
    )
    assert new_game().render_cells().splitlines()[-2] == "1  .  .  .  .  .  .  .  1"
