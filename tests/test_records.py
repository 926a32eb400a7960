"""Game records: every game round-trips, published transcripts load, corrupt records are named."""

from __future__ import annotations

import random

import pytest

from mctslab.games import State, available_games, make
from mctslab.games.othello import PASS, OthelloState
from mctslab.records import (
    RecordError,
    dump_record,
    load_record,
    parse_moves,
    player_tags,
    result_tag,
)
from tests.conftest import load_data

OTHELLO = load_data("othello.json")

#: Every game, some with parameters other than the defaults.
STARTS = [
    *((name, {}) for name in available_games()),
    ("gomoku", {"width": 9, "height": 7, "k": 4}),
    ("numbers", {"turns": 5, "moves": (1, -4, 7), "goal": 3}),
    ("numbers", {"moves": (5,)}),  # written "moves=5", it read back as an int
    ("countdown", {"start": 9}),
]


def random_game(state: State, seed: int, stop_after: int | None = None) -> list[int]:
    """Random moves played on ``state`` (in place) to the end, or ``stop_after`` moves."""
    rng = random.Random(seed)
    moves: list[int] = []
    while not state.is_terminal() and (stop_after is None or len(moves) < stop_after):
        move = rng.choice(state.legal_moves())
        state.apply(move)
        moves.append(move)
    return moves


@pytest.mark.parametrize(("game", "params"), STARTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_game_round_trips(game: str, params: dict[str, object], seed: int) -> None:
    start = make(game, **params)
    for stop_after in (None, 3):
        final = start.clone()
        moves = random_game(final, seed, stop_after)
        tags = {"Black": 'Ann "the hammer" O\\Neil', "Result": result_tag(final)}
        text = dump_record(start, moves, tags=tags)
        record = load_record(text)
        assert record.game == game
        assert record.start == start
        assert list(record.moves) == moves
        assert record.final == final
        assert dict(record.tags) == tags
        # Writing the loaded record again gives the same text.
        assert dump_record(record.start, record.moves, tags=record.tags) == text


def test_a_list_of_one_is_written_with_a_trailing_comma() -> None:
    assert dump_record(make("numbers", moves=(5,)), []).split()[2] == "moves=5,"
    # Hand-written lists may end in a comma too; lists without one read as before.
    for header, moves in [
        ("numbers moves=2,-2,", (2, -2)),
        ("numbers moves=2,-2,3,-3", (2, -2, 3, -3)),
        ("numbers moves=7,", (7,)),
    ]:
        assert load_record(header).start.spec.params["moves"] == moves
    with pytest.raises(RecordError, match="'moves' parameter"):
        load_record("numbers moves=,")


def test_formats_per_game() -> None:
    gomoku = make("gomoku", size=15)
    moves = [gomoku.parse_move(m) for m in ("h8", "i9")]
    assert dump_record(gomoku, moves) == "gomoku width=15 height=15 k=5\nh8 i9\n"
    connect4 = make("connect4")
    assert dump_record(connect4, [3, 3, 4, 2]) == "connect4\n4453\n"
    othello = make("othello")
    ids = parse_moves(othello, "f5d6c3")
    assert dump_record(othello, ids) == "othello\nf5d6c3\n"
    numbers = make("numbers")
    assert dump_record(numbers, [0]).splitlines() == [
        "numbers turns=10 moves=2,-2,3,-3 goal=0",
        "+20",
    ]


def test_published_othello_game_with_passes() -> None:
    # Warren D. Smith's game (tests/data/othello.json): Black passes 23 times and the
    # transcript leaves every pass out, as published transcripts do.
    game = OTHELLO["many_passes_game"]
    record = load_record(f"othello\n{game['moves']}\n")
    final = record.final
    assert isinstance(final, OthelloState)
    assert final.is_terminal()
    assert final.disc_counts() == (game["black"], game["white"])
    assert list(record.moves).count(PASS) == game["black_passes"]
    # Written back, every pass is explicit ("PA"); read again it is the same game.
    text = dump_record(record.start, record.moves)
    assert text.count("PA") == game["black_passes"]
    again = load_record(text)
    assert again.moves == record.moves and again.final == final
    # "pass" in any case, spaces and line breaks between moves read the same.
    spelled = text.replace("PA", " Pass ").replace("d", "\nD")
    assert load_record(spelled).moves == record.moves


def test_comments_blank_lines_and_spacing_are_tolerated() -> None:
    text = """
    # a game of tic-tac-toe
    tictactoe          # the header

    [Event "club night"]   # a tag
    b2 a1   # first moves
       c3
    """
    record = load_record(text)
    assert record.notation() == ["b2", "a1", "c3"]
    assert record.tags == {"Event": "club night"}


def test_a_hash_before_a_digit_is_a_numbers_move_not_a_comment() -> None:
    # The numbers game writes its i-th choice "#i" (its error messages suggest it).
    start = make("numbers")
    chosen = parse_moves(start, "#0 #3 # then a comment")
    assert chosen == parse_moves(start, "+20 -27")
    record = load_record("numbers  # the game\n#0 #3  #1  # a comment\n+14#2 a comment too\n")
    # Choices +2 -2 +3 -3, times the turn; a "#" inside a word starts a comment.
    assert record.notation() == ["+20", "-27", "-16", "+14"]


def test_in_other_games_any_hash_starts_a_comment_and_tags_keep_theirs() -> None:
    record = load_record('tictactoe #3 in a row\n[Event "club #2"] # night\nb2 a1 #1 best\n')
    assert record.notation() == ["b2", "a1"] and record.tags == {"Event": "club #2"}
    start = make("tictactoe")
    text = dump_record(start, parse_moves(start, "b2"), tags={"Event": "club #a night"})
    assert load_record(text).tags == {"Event": "club #a night"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "record: empty (no header line naming the game)"),
        ("# only a comment\n", "record: empty"),
        ("chess\ne4 e5\n", "record line 1: unknown game 'chess'; available games: numbers"),
        ("\ngomoku size=40\n", "record line 2: The 'size' parameter of gomoku must be an int"),
        ("gomoku size=7 k=9\n", "record line 1: The 'k' parameter of gomoku must be an int in"),
        ("othello size=8\n", "record line 1: Unknown parameter(s) 'size' for game 'othello'"),
        ("gomoku size\n", "record line 1: game parameter 'size' is not key=value"),
        ("tictactoe\nb2 a1\nb2\n", "record line 3, move 3 ('b2'): 'b2' is not legal for X"),
        ("tictactoe\nb2 zz\n", "record line 2, move 2 ('zz'): 'zz' is not a move in tictactoe"),
        ("othello\nf5d6c3x9\n", "record line 2, move 4 ('x9'): 'x9' is not a move in othello"),
        ("othello\nf5d6c3d3c*\n", "record line 2, move 5 ('c*'): 'c*' is not a move in othello"),
        ("othello\nf5d\u0666\n", "line 2, move 2 ('d\u0666'): 'd\u0666' is not a move in othello"),
        ("gomoku size=\u0667\n", "record line 1: The 'size' parameter of gomoku must be an int"),
        ("connect4\n44448\n", "record line 2, move 5 ('8'): '8' is not a move in connect4"),
        ("connect4\n4444444\n", "record line 2, move 7 ('4'): '4' is not legal for X"),
        ("tictactoe\na1 a2 b1 b2 c1 c2\n", "move 6 ('c2'): The game is over; 'c2' cannot be"),
        ("tictactoe\n[Bad tag]\n", "record line 2: '[Bad tag]' is not a tag"),
        ('[Game "gomoku"]\ngomoku\n', "record line 1: the first line names the game"),
    ],
)
def test_corrupt_records_name_the_line_and_the_reason(text: str, message: str) -> None:
    with pytest.raises(RecordError) as caught:
        load_record(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_an_illegal_move_deep_in_a_long_game_is_found() -> None:
    start = make("gomoku", size=9)
    final = start.clone()
    moves = random_game(final, seed=5, stop_after=30)
    lines = dump_record(start, moves).splitlines()
    # Replace move 30 by move 1, whose cell is taken by then.
    tokens = " ".join(lines[1:]).split()
    tokens[29] = tokens[0]
    with pytest.raises(RecordError, match=rf"move 30 \('{tokens[0]}'\): .* is not legal"):
        load_record(lines[0] + "\n" + " ".join(tokens))


def test_dump_checks_its_input() -> None:
    state = make("tictactoe")
    with pytest.raises(ValueError, match="move 2 of the record"):
        dump_record(state, [4, 4])
    later = make("tictactoe")
    later.play("b2")
    with pytest.raises(ValueError, match="starts from the initial position"):
        dump_record(later, [])
    with pytest.raises(ValueError, match="tag name"):
        dump_record(state, [], tags={"two words": "x"})
    with pytest.raises(ValueError, match="one line"):
        dump_record(state, [], tags={"Note": "a\nb"})
    # "$" matched before a trailing newline, so this name was written and broke the record.
    with pytest.raises(ValueError, match="tag name"):
        dump_record(state, [], tags={"Black\n": "x"})


#: Every character at which str.splitlines(), and so load_record, breaks a line.
LINE_BREAKS = [
    "\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x85",
    "\u2028",
    "\u2029",
]


@pytest.mark.parametrize("brk", LINE_BREAKS, ids=repr)
def test_a_tag_value_with_any_line_break_is_refused(brk: str) -> None:
    # Before, only \n and \r were refused: a record was written that load_record refused.
    assert f"a{brk}b".splitlines() == ["a", "b"]
    with pytest.raises(ValueError, match="must be one line"):
        dump_record(make("tictactoe"), [], tags={"Event": f"a{brk}b"})


def test_tag_values_without_line_breaks_round_trip() -> None:
    tags = {"Event": 'tab\there, "quoted" \\ and \x1f', "Empty": ""}
    assert load_record(dump_record(make("tictactoe"), [], tags=tags)).tags == tags


def test_parse_moves_leaves_the_state_alone() -> None:
    state = make("othello")
    moves = parse_moves(state, "f5 d6\nc3  # three moves")
    assert [state.move_to_str(m) for m in moves] == ["f5", "d6", "c3"]
    assert state == make("othello")
    with pytest.raises(RecordError, match="move 2"):
        parse_moves(state, "f5 f5")


def test_result_tags() -> None:
    draw = load_record("tictactoe\nb2 a1 c1 a3 a2 c2 b1 b3 c3\n").final
    x_wins = load_record("tictactoe\na1 a2 b1 b2 c1\n").final
    o_wins = load_record("tictactoe\nb2 a1 c3 b1 a3 c1\n").final
    assert [result_tag(s) for s in (draw, x_wins, o_wins)] == ["1/2-1/2", "1-0", "0-1"]
    assert result_tag(make("connect4")) == "*"


def test_player_tags_are_one_line() -> None:
    # A GTP engine may name itself in several lines: before, such a tag broke dump_record.
    names = ["you", "gtp:My  Engine\n2.0\u2028beta "]
    tags = player_tags(make("tictactoe"), names)
    assert tags == {"X": "you", "O": "gtp:My Engine 2.0 beta"}
    assert load_record(dump_record(make("tictactoe"), [], tags=tags)).tags == tags
