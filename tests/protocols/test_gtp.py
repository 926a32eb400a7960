"""The GTP engine through a scripted transport, vertices, and the client against scripts."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from mctslab import Budget, SearchResult
from mctslab.games import IllegalMoveError, InvalidMoveError, State, make
from mctslab.games.gomoku import CELLS, GomokuState
from mctslab.games.othello import PASS
from mctslab.protocols import EngineError, EngineResignedError, GTPEngine, GTPEnginePlayer, Thinker
from mctslab.protocols._serve import SAFETY_FRACTION, SAFETY_SECONDS, allot, moves_to_go
from mctslab.protocols.gtp import LETTERS, from_vertex, to_vertex
from mctslab.records import load_record
from tests.conftest import load_data
from tests.protocols.helpers import RecordingEngine, scripted, thinker

SPEC = load_data("protocols.json")["gtp"]
PASSES = load_data("othello.json")["many_passes_game"]


def talk(engine: GTPEngine, *lines: str) -> list[str]:
    return [reply for line in lines for reply in engine.handle(line)]


def responses(engine: GTPEngine, *lines: str) -> list[str]:
    """The first line of each response (every response ends with an empty line)."""
    replies = talk(engine, *lines)
    assert replies == [] or replies[-1] == ""
    starts = [0] + [i + 1 for i, line in enumerate(replies[:-1]) if line == ""]
    return [replies[i] for i in starts]


@pytest.mark.parametrize("example", SPEC["examples"], ids=lambda e: e["command"])
def test_the_specs_response_format(example: dict[str, object]) -> None:
    assert talk(GTPEngine(thinker(), "othello"), str(example["command"])) == example["response"]


def test_preprocessing_as_specified() -> None:
    engine = GTPEngine(thinker(), "tictactoe")
    assert talk(engine, "   ", "# a comment", "\t \x01") == []
    assert talk(engine, "3\tname # who are you") == ["=3 mctslab", ""]
    assert talk(engine, "4 na\x07me") == ["=4 mctslab", ""]


def test_list_commands_holds_the_required_ones_and_all_are_known() -> None:
    engine = GTPEngine(thinker(), "othello")
    replies = talk(engine, "list_commands")
    commands = [replies[0].removeprefix("= "), *replies[1:-1]]
    required = {"protocol_version", "name", "version", "known_command", "list_commands", "quit"}
    setup = {"boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard"}
    assert required | setup | {"time_settings", "time_left"} <= set(commands)
    for command in commands:
        assert talk(engine, f"known_command {command}") == ["= true", ""]


def test_a_malformed_vertex_is_a_syntax_error_even_out_of_turn() -> None:
    engine = GTPEngine(thinker(), "tictactoe")
    assert responses(engine, "1 play black b2", "2 play black i9", "3 play black d1") == [
        "=1",
        "?2 syntax error: 'i9' is not a GTP vertex (a letter other than I, a number)",
        "?3 syntax error: d1 is off the 3x3 board",
    ]
    # "pass" is a GTP vertex: in a game without passes it is an illegal move, not a
    # syntax error; in Othello it is illegal while the mover has a move.
    assert responses(engine, "4 play white pass") == ["?4 illegal move: tictactoe has no pass"]
    othello = GTPEngine(thinker(), "othello")
    assert responses(othello, "5 play black pass") == [
        "?5 illegal move: Black has a move, so may not pass"
    ]
    # A full column is refused on one line (before, the board followed it).
    full = GTPEngine(thinker(), "connect4")
    fill = [f"play {'bw'[i % 2]} 1" for i in range(6)]
    assert talk(full, *fill, "play b 1")[-2:] == [
        "? illegal move: '1' is not legal for X in this position; legal moves: 2 3 4 5 6 7",
        "",
    ]
    # A finished game refuses any move as illegal: the game is over.
    engine = GTPEngine(thinker(), "connect4")
    moves = [f"play {'bw'[i % 2]} {column}" for i, column in enumerate("1212121")]
    assert responses(engine, *moves, "play w 4")[-1] == (
        "? illegal move: the game is over (X won with four in a row)"
    )


def test_vertices_and_ids_take_ascii_digits_only() -> None:
    # Digits of other scripts, which str.isdigit() and a regular expression's \d take.
    with pytest.raises(InvalidMoveError, match="'J\u0668' is not a GTP vertex"):
        from_vertex(make("gomoku", size=9), "J\u0668")
    with pytest.raises(InvalidMoveError, match="'\u0664' is not a GTP vertex"):
        from_vertex(make("connect4"), "\u0664")
    # Not an id: the line is a command named so.
    assert responses(GTPEngine(thinker(), "tictactoe"), "\u0663 name") == ["? unknown command"]
    # Nor a command's number, which int() read.
    assert responses(GTPEngine(thinker(), "gomoku"), "boardsize \u0669") == [
        "? syntax error: boardsize takes a size"
    ]
    # Nor komi, which float() read (and its "nan", "inf" and underscores).
    komis = ("6.5", "-7", "+.5", "0.", "\u0666.5", "nan", "inf", "1_0", "6.5.1", "")
    assert responses(GTPEngine(thinker(), "gomoku"), *(f"komi {komi}" for komi in komis)) == [
        "=",
        "=",
        "=",
        "=",
        *["? syntax error: komi takes a number"] * 6,
    ]


def test_a_game_of_tictactoe_with_undo_and_errors() -> None:
    engine = GTPEngine(thinker(), "tictactoe")
    assert responses(
        engine,
        "1 boardsize 3",
        "2 clear_board",
        "3 komi 0.5",
        "4 play black b2",
        "5 play black a1",  # out of turn
        "6 play white b2",  # taken
        "7 play white i9",  # not a vertex
        "8 play white",
        "9 play purple a1",
        "10 boardsize 4",
        "11 undo",
        "12 undo",
        "13 play x b2",
    ) == [
        "=1",
        "=2",
        "=3",
        "=4",
        "?5 illegal move: it is O's turn, not X's",
        "?6 illegal move: b2 is not legal here",
        "?7 syntax error: 'i9' is not a GTP vertex (a letter other than I, a number)",
        "?8 syntax error: play takes a colour and a vertex",
        "?9 syntax error: 'purple' is not a colour (black, b, white, w)",
        "?10 unacceptable size",
        "=11",
        "?12 cannot undo",
        "?13 syntax error: 'x' is not a colour (black, b, white, w)",
    ]


def test_genmove_plays_and_the_game_ends() -> None:
    engine = GTPEngine(thinker(), "tictactoe")
    colour = "b"
    for _ in range(9):
        [reply] = responses(engine, f"genmove {colour}")
        if engine._state.is_terminal():
            break
        assert re.fullmatch(r"= [A-C][1-3]", reply)
        colour = "w" if colour == "b" else "b"
    assert engine._state.is_terminal()
    assert responses(engine, f"genmove {colour}")[0].startswith("? cannot move: the game is over")
    assert responses(engine, "showboard", "quit") == ["=", "="]
    assert engine.finished


@pytest.mark.parametrize(
    ("game", "params", "moves"),
    [
        ("gomoku", {"size": 9, "k": 5}, ["b J5", "w A9", "b E1"]),  # the letters skip I
        ("othello", {}, ["b F5", "w F6", "b E6"]),  # rows from the top
        # The cell the disc lands on: before, the board numbered the columns only.
        ("connect4", {}, ["b D1", "w D2", "b C1", "w G1"]),
        ("tictactoe", {}, ["b B2", "w A3", "b C1"]),
    ],
)
def test_showboard_names_each_cell_as_its_vertex(
    game: str, params: dict[str, int], moves: list[str]
) -> None:
    engine = GTPEngine(thinker(), game, params)
    for move in moves:
        assert responses(engine, f"play {move}") == ["="]
        replies = talk(engine, "showboard")
        assert replies[0] == "=" and replies[-1] == ""  # the board starts on a line of its own
        header, marked = replies[1], next(line for line in replies if "[" in line)
        # The last move is bracketed: its column's name stands above it, its row's before it.
        column = header[marked.index("[") + 1]
        assert f"{column}{marked.split()[0]}" == move.split()[1].lower()


def test_gomoku_vertices_skip_i() -> None:
    state = make("gomoku", size=15)
    # Our notation keeps every letter; GTP, as Go, skips I: our i8 is GTP J8.
    assert to_vertex(state, state.parse_move("h8")) == "H8"
    assert to_vertex(state, state.parse_move("i8")) == "J8"
    assert to_vertex(state, state.parse_move("o15")) == "P15"
    assert from_vertex(state, "j8") == state.parse_move("i8")
    with pytest.raises(InvalidMoveError, match="not a GTP vertex"):
        from_vertex(state, "I8")
    with pytest.raises(InvalidMoveError, match="off the 15x15 board"):
        from_vertex(state, "Q8")
    assert [to_vertex(state, from_vertex(state, f"{c}7")) for c in LETTERS[:15]] == [
        f"{c}7" for c in LETTERS[:15]
    ]


def test_connect4_vertices_name_the_landing_cell() -> None:
    state = make("connect4")
    assert to_vertex(state, 3) == "D1"
    state.play(3)
    assert to_vertex(state, 3) == "D2"
    assert from_vertex(state, "D2") == 3 and from_vertex(state, "4") == 3
    with pytest.raises(IllegalMoveError, match="lands on D2"):
        from_vertex(state, "D5")
    engine = GTPEngine(thinker(), "connect4")
    replies = responses(engine, "play b d1", "play w d2", "play b 4", "genmove w")
    assert replies[:3] == ["=", "=", "="] and re.fullmatch(r"= [A-G][1-6]", replies[3])


def test_othello_plays_a_forced_pass_for_the_side_to_move() -> None:
    # In the published game Black must pass after White's a7 (move 12); White's b5 follows.
    moves = load_record(f"othello\n{PASSES['moves'][:24]}\n").notation()
    engine = GTPEngine(thinker(), "othello")
    colours = ["b", "w"] * 6
    assert (
        responses(engine, *(f"play {c} {m}" for c, m in zip(colours, moves, strict=True)))
        == ["="] * 12
    )
    assert responses(engine, "play w b5") == ["="]  # Black's pass was played first
    forced_pass, b5 = engine._turns[-1]
    assert forced_pass == PASS and to_vertex(engine._state, b5) == "B5"
    assert responses(engine, "undo") == ["="]  # the whole command is taken back
    assert engine._state.legal_moves() == [PASS]
    assert responses(engine, "genmove b") == ["= pass"]
    assert responses(engine, "play b pass") == ["? illegal move: it is White's turn, not Black's"]


def test_boardsize_for_gomoku_and_the_fixed_boards() -> None:
    engine = GTPEngine(thinker(), "gomoku", {"size": 9, "k": 5})
    assert responses(engine, "boardsize 13", "boardsize 4", "boardsize 20") == [
        "=",
        "? unacceptable size",
        "? unacceptable size",
    ]
    assert engine._state.spec.params == {"width": 13, "height": 13, "k": 5}
    assert responses(GTPEngine(thinker(), "othello"), "boardsize 8", "boardsize 19") == [
        "=",
        "? unacceptable size",
    ]
    with pytest.raises(ValueError, match="GTP is offered for the board games"):
        GTPEngine(thinker(), "countdown")
    with pytest.raises(ValueError, match=r"GTP is offered for the board games .*; got 'chess'"):
        GTPEngine(thinker(), "chess")  # before: the registry's list of every game
    with pytest.raises(ValueError, match="GTP boards are square; this gomoku board is 9x7"):
        GTPEngine(thinker(), "gomoku", {"width": 9, "height": 7})


def test_time_settings_and_time_left_shape_the_search() -> None:
    engine = RecordingEngine()
    gtp = GTPEngine(Thinker(engine, seconds=30.0), "gomoku", {"size": 9})
    margin = 1 - SAFETY_FRACTION
    # No clock: --seconds is the budget.
    talk(gtp, "genmove b")
    assert engine.budgets[-1].seconds == 30.0
    # Absolute time of 60 s: a share of it over the moves to go (81 - 1 plies: 30 moves).
    talk(gtp, "time_settings 60 0 0", "genmove w")
    assert engine.budgets[-1].seconds == pytest.approx(60 / 30 * margin - SAFETY_SECONDS)
    # In byo-yomi: the time left over the stones left.
    talk(gtp, "time_left b 20 4", "genmove b")
    assert engine.budgets[-1].seconds == pytest.approx(20 / 4 * margin - SAFETY_SECONDS)
    # Byo-yomi time with no stones means no limits.
    talk(gtp, "time_settings 0 1 0", "genmove w")
    assert engine.budgets[-1].seconds == 30.0
    assert responses(gtp, "time_settings 1 2", "time_left b x 0") == [
        "? syntax error: time_settings takes main time, byo-yomi time and stones",
        "? syntax error: time_left takes a colour, a time and stones",
    ]


class _SpendsItsTime(RecordingEngine):
    """Thinks for all the time it is given, as an engine on a clock does."""

    def search(self, state: State, budget: Budget | None = None, **kwargs: Any) -> SearchResult:
        assert budget is not None and budget.seconds is not None
        time.sleep(budget.seconds)
        return super().search(state, budget, **kwargs)


def test_the_clock_is_kept_between_time_left_reports() -> None:
    # Before, each move's share came from the whole main time again when no
    # time_left came, and a game's moves together overran the clock.
    engine = _SpendsItsTime()
    gtp = GTPEngine(Thinker(engine), "tictactoe", {})
    talk(gtp, "time_settings 2 0 0", "genmove b", "genmove w", "genmove b")
    first, third = engine.budgets[0].seconds, engine.budgets[2].seconds
    assert first is not None and third is not None
    assert third < allot(remaining=2.0, moves_left=moves_to_go(9 - 2))
    # At most what the clock would leave had the first move taken no more than its budget.
    kept = allot(remaining=2.0 - first, moves_left=moves_to_go(7))
    assert kept - 0.1 <= third <= kept
    # A new game starts on the full clock again.
    talk(gtp, "clear_board", "genmove b")
    assert engine.budgets[-1].seconds == allot(remaining=2.0, moves_left=moves_to_go(9))
    # time_left alone (no time_settings) is the time for the rest of the game.
    alone = RecordingEngine()
    talk(GTPEngine(Thinker(alone), "tictactoe", {}), "time_left b 3 0", "genmove b")
    assert alone.budgets[-1].seconds == allot(remaining=3.0, moves_left=moves_to_go(9))


def test_a_moves_time_counts_from_when_genmove_arrived() -> None:
    # As the controller's clock does: before, a genmove that had waited (behind an engine
    # still starting up) searched its whole share, and the engine's clock lost the wait.
    engine = RecordingEngine()
    gtp = GTPEngine(Thinker(engine), "tictactoe", {})
    talk(gtp, "time_settings 10 0 0")
    share = allot(remaining=10.0, moves_left=moves_to_go(9))
    assert gtp.handle("genmove b", time.monotonic() - 1.0)[0].startswith("= ")
    seconds = engine.budgets[-1].seconds
    assert seconds is not None and share - 1.5 < seconds <= share - 1.0
    # The wait is spent from the clock too: what the next move of black's shares is less.
    talk(gtp, "genmove w", "genmove b")
    assert engine.budgets[-1].seconds is not None
    assert engine.budgets[-1].seconds <= allot(remaining=9.0, moves_left=moves_to_go(7))


def test_commands_piped_in_at_once_count_from_the_move_before() -> None:
    # A controller has a move no earlier than the engine made it: before, a script's later
    # genmoves had spent their time waiting behind the earlier ones and searched 10 ms.
    engine = RecordingEngine()
    gtp = GTPEngine(Thinker(engine), "tictactoe", {})
    talk(gtp, "time_settings 10 0 0")
    sent = time.monotonic() - 2.0
    for command in ("genmove b", "genmove w"):
        assert gtp.handle(command, sent)[0].startswith("= ")
    share = allot(remaining=10.0, moves_left=moves_to_go(8))
    seconds = engine.budgets[-1].seconds
    assert seconds is not None and share - 0.5 < seconds <= share


# -- the client against scripted engines ------------------------------------------------
def test_client_follows_ids_and_multiline_responses() -> None:
    engine = scripted(
        ("(\\d+) name", [r"=\1 Scripted", ""]),
        ("(\\d+) genmove b", [r"=\1 C3", ""]),
        ("(\\d+) showboard", [r"=\1", "board", ""]),
        ("(\\d+) .*", [r"=\1", ""]),
    )
    player = GTPEnginePlayer(engine, startup_seconds=10)
    try:
        state = make("tictactoe")
        player.start(state)
        assert player.name == "gtp:Scripted"
        assert player.choose(state) == state.parse_move("c3")
        player.observe(state.parse_move("c3"))
        assert player._command("showboard") == "board"
    finally:
        player.close()


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        ("= resign", EngineResignedError, "resigned as X"),
        ("= Z9", EngineError, "answered genmove b with 'Z9'"),
        ("? no idea", EngineError, "failed 'genmove b': no idea"),
        ("=99 A1", EngineError, "where the protocol expects a response"),
        (
            "EXIT 2",
            EngineError,
            "closed its output while we waited for its answer to genmove b "
            "(it exited with status 2)",
        ),
    ],
)
def test_client_reports_resignation_and_bad_answers(
    answer: str, error: type[Exception], message: str
) -> None:
    reply = re.sub(r"^([=?])(?!\d)", r"\g<1>\\1", answer)
    engine = scripted(("(\\d+) genmove", [reply, ""]), ("(\\d+) .*", [r"=\1", ""]))
    player = GTPEnginePlayer(engine, startup_seconds=10)
    try:
        state = make("tictactoe")
        player.start(state)
        with pytest.raises(error, match=re.escape(message)) as caught:
            player.choose(state)
        if isinstance(caught.value, EngineResignedError):
            assert caught.value.player == 0
    finally:
        player.close()


def test_client_replays_a_gomoku_position_and_refuses_othello_ones() -> None:
    # The scripted engine accepts exactly the stones of the position, each in its colour.
    engine = scripted(
        ("(\\d+) play (b E5|w D4|b E4)$", [r"=\1", ""]),
        ("(\\d+) play", [r"?\1 not a stone of the position", ""]),
        ("(\\d+) .*", [r"=\1", ""]),
    )
    player = GTPEnginePlayer(engine, startup_seconds=10)
    try:
        state = make("gomoku", size=9)
        for move in ("e5", "d4", "e4"):
            state.play(move)
        player.start(state)
        othello = make("othello")
        othello.play("f5")
        with pytest.raises(ValueError, match="only from its initial position"):
            player.start(othello)
        moved = make("gomoku", size=9)
        moved.play("a1")
        with pytest.raises(EngineError, match="failed 'play b A1': not a stone of the position"):
            player.start(moved)
    finally:
        player.close()


def test_client_refuses_stones_that_moves_in_turn_cannot_leave() -> None:
    # A position made from its array may hold any stones. Before, the stones were put in
    # turn whatever their counts, and a third black stone was played as White's.
    state = make("gomoku", size=9)
    for move in ("e5", "d4", "e4"):
        state.play(move)
    data = state.data.copy()
    row, column = divmod(state.parse_move("a1"), state.width)
    data[CELLS + (row + 1) * (state.width + 1) + column + 1] = 1  # one more black stone
    player = GTPEnginePlayer(scripted(("(\\d+) .*", [r"=\1", ""])), startup_seconds=10)
    try:
        with pytest.raises(ValueError, match="3 black and 1 white stones cannot come from moves"):
            player.start(GomokuState(state.spec, data))
    finally:
        player.close()
