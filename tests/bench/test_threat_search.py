"""benchmarks/threat_search.py: its threat search on textbook Gomoku positions."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from mctslab import make
from tests.conftest import load_benchmark

BLACK, WHITE = 1, 2


@pytest.fixture(scope="module")
def threat_search() -> ModuleType:
    return load_benchmark("threat_search")


def board(threat_search: ModuleType, stones: dict[tuple[int, int], int]) -> Any:
    """An 8x8 five-in-a-row board with ``stones`` at (row, column)."""
    result = threat_search.Board(8, 8, 5)
    for (row, column), stone in stones.items():
        result.cells[row * 8 + column] = stone
    return result


def test_an_open_three_wins_for_the_side_to_move(threat_search: ModuleType) -> None:
    # _XXX_ in the middle of a row: one move makes an open four, two win cells.
    position = board(threat_search, {(3, 2): BLACK, (3, 3): BLACK, (3, 4): BLACK})
    assert not position.vcf(BLACK, fours=0)  # no five at once
    assert position.vcf(BLACK, fours=1)
    assert not position.vcf(WHITE, fours=12)


def test_an_open_three_loses_to_an_open_four(threat_search: ModuleType) -> None:
    stones = {(3, 2): BLACK, (3, 3): BLACK, (3, 4): BLACK}
    stones |= {(6, c): WHITE for c in (2, 3, 4, 5)}  # two win cells: Black cannot block both
    position = board(threat_search, stones)
    assert not position.vct(BLACK, fours=12, threes=2)
    assert position.vcf(WHITE, fours=0)


def test_a_four_three_wins_through_the_forced_block(threat_search: ModuleType) -> None:
    # (row, column): Black's (4..6, 1) and (3, 2..3) cross at (3, 1). There Black makes a
    # four, closed at (7, 1), whose one win cell White must take; then (3, 4) turns the
    # three (3, 1..3) into an open four. No single four wins sooner.
    stones = {(r, 1): BLACK for r in (4, 5, 6)} | {(3, 2): BLACK, (3, 3): BLACK, (7, 1): WHITE}
    position = board(threat_search, stones)
    assert not position.vcf(BLACK, fours=1)
    assert position.vcf(BLACK, fours=2)


def test_a_lone_stone_has_no_forced_win(threat_search: ModuleType) -> None:
    position = board(threat_search, {(3, 3): BLACK, (4, 4): WHITE})
    assert not position.vct(BLACK, fours=12, threes=1)


def test_a_double_three_wins_by_threats_alone(threat_search: ModuleType) -> None:
    # (3, 4) makes two open threes at once, (3, 2..4) and (1..3, 4): no four wins yet,
    # and every reply leaves one of them to become an open four.
    position = board(threat_search, {(3, 2): BLACK, (3, 3): BLACK, (1, 4): BLACK, (2, 4): BLACK})
    assert not position.vcf(BLACK, fours=12)
    assert position.vct(BLACK, fours=12, threes=1)


def test_a_single_open_two_is_refuted(threat_search: ModuleType) -> None:
    # Its threat (an open three) is met by a block.
    position = board(threat_search, {(3, 2): BLACK, (3, 3): BLACK})
    assert not position.vct(BLACK, fours=12, threes=1)


def test_the_opponents_four_must_be_blocked_first(threat_search: ModuleType) -> None:
    # Black's open three would win, but White's four (6, 0..3) must be blocked at (6, 4),
    # which makes no four for Black.
    stones = {(3, c): BLACK for c in (2, 3, 4)} | {(6, c): WHITE for c in (0, 1, 2, 3)}
    assert not board(threat_search, stones).vcf(BLACK, fours=12)


def test_blocking_one_end_of_an_open_four_is_not_enough(threat_search: ModuleType) -> None:
    # (6, 1) blocks White's open four and makes Black's four, but White wins at (6, 6).
    stones = {(6, c): WHITE for c in (2, 3, 4, 5)} | {(r, 1): BLACK for r in (3, 4, 5)}
    assert not board(threat_search, stones).vcf(BLACK, fours=12)


def test_the_safe_moves_against_an_open_three_are_its_blocks(threat_search: ModuleType) -> None:
    # White's open three (3, 2..4) with two empty cells beyond each end: Black must take
    # a cell beside it, (3, 1) or (3, 5). A far block, (3, 0) or (3, 6), still lets White
    # make an open four on the other side ((3, 1..4) or (3, 2..5)), and so does any move
    # off the row.
    position = board(threat_search, {(3, 2): WHITE, (3, 3): WHITE, (3, 4): WHITE})
    safe = position.safe_moves(BLACK, fours=12, threes=2)
    assert sorted(divmod(cell, 8) for cell in safe) == [(3, 1), (3, 5)]


def test_a_move_that_makes_five_is_safe(threat_search: ModuleType) -> None:
    stones = {(0, c): BLACK for c in range(4)} | {(6, c): WHITE for c in (2, 3, 4, 5)}
    position = board(threat_search, stones)
    assert position.safe_moves(BLACK, fours=12, threes=2) == [4]  # five at (0, 4)


def test_the_defence_report_names_few_safe_moves_and_a_miss(threat_search: ModuleType) -> None:
    state = make("gomoku", size=8)  # move id = row from the top * 8 + column: 0 a8, 9 b7
    note = threat_search._safe_note
    assert note(state, 0, [9, 0]) == "2 (a8 b7)"
    assert note(state, 5, [0, 9]) == "2 (a8 b7) missed"
    assert note(state, 0, [0, 1, 2, 3]) == "4"
    assert note(state, 5, []) == "0"


def test_the_answers_to_an_open_three(threat_search: ModuleType) -> None:
    # Black's open three (3, 2..4), two empty cells beyond each end; White has
    # three stones in a row at (6, 2..4), closed at (6, 1) by Black. White's
    # blocks are the cells beside it (see the safe moves above); (6, 5) makes
    # a four of White's own; a far block (3, 6) or a move off the row misses.
    stones = {(3, c): BLACK for c in (2, 3, 4)} | {(6, c): WHITE for c in (2, 3, 4)}
    position = board(threat_search, stones | {(6, 1): BLACK})
    answer = position.answer_to_open_three
    assert sorted(divmod(cell, 8) for cell in position.open_three_cells(BLACK)) == [
        (3, 1),
        (3, 5),
    ]
    assert [answer(BLACK, r * 8 + c) for r, c in ((3, 1), (3, 5))] == ["blocked"] * 2
    assert answer(BLACK, 6 * 8 + 5) == "four"
    assert [answer(BLACK, r * 8 + c) for r, c in ((3, 6), (0, 0))] == ["missed"] * 2
    assert answer(WHITE, 0) is None  # White's three is closed: no open three to meet


def test_two_open_threes_cannot_both_be_blocked(threat_search: ModuleType) -> None:
    # Black's open threes along row 3 and column 6 share no cell that blocks both.
    stones = {(3, c): BLACK for c in (1, 2, 3)} | {(r, 6): BLACK for r in (4, 5, 6)}
    position = board(threat_search, stones | {(7, 7): WHITE})
    assert position.answer_to_open_three(BLACK, 0) == "unstoppable"
    assert position.answer_to_open_three(BLACK, 3 * 8 + 4) == "unstoppable"
