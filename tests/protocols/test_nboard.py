"""The NBoard engine through a scripted transport, GGF, and the client against scripted engines."""

from __future__ import annotations

import re

import pytest

from mctslab.games import make
from mctslab.games.othello import PASS, OthelloState
from mctslab.protocols import EngineError, NBoardEngine, NBoardEnginePlayer, Thinker
from mctslab.protocols._serve import DEFAULT_MOVE_SECONDS
from mctslab.protocols.nboard import (
    depth_iterations,
    format_ggf,
    parse_ggf,
    square_name,
    to_disc_scale,
)
from mctslab.records import load_record
from tests.conftest import load_data
from tests.protocols.helpers import RecordingEngine, scripted, thinker

SPEC = load_data("protocols.json")["nboard"]
PASSES = load_data("othello.json")["many_passes_game"]
GO_REPLY = re.compile(r"^=== ([A-H][1-8]|PA)/(-?\d+\.\d\d)/(\d+\.\d\d)$")
SEARCH_LINE = re.compile(r"^search ([A-H][1-8]|PA)(-([A-H][1-8]|PA))* -?\d+\.\d\d 0 \d+$")


def talk(engine: NBoardEngine, *lines: str) -> list[str]:
    return [reply for line in lines for reply in engine.handle(line)]


def test_the_specs_example_session() -> None:
    engine = NBoardEngine(thinker())
    replies = talk(engine, *SPEC["session"])
    assert replies[:3] == ["set myname mctslab", "pong 1", "status mctslab is thinking"]
    assert replies[3].startswith("nodestats ")
    match = GO_REPLY.match(replies[4])
    assert match is not None, replies[4]
    position = engine._state
    # The position of the example: 8 moves, 12 discs, Black to move; Edax's d6 is legal in it.
    assert sum(position.disc_counts()) == 12 and position.current_player == 0
    assert position.parse_move(SPEC["edax_reply"]) in position.legal_moves()
    assert position.parse_move(match.group(1).lower()) in position.legal_moves()
    # go does not play the move: the GUI sends it with "move".
    assert sum(engine._state.disc_counts()) == 12


def test_move_hint_learn_and_ping() -> None:
    engine = NBoardEngine(thinker())
    talk(engine, "nboard 2", "set depth 2", "set game (;GM[Othello]TY[8];)")
    assert talk(engine, "move F5/0.50/1.2", "move d6", "C3") == []  # C3: protocol version 1
    assert [square_name(move) for move in engine._moves] == ["F5", "D6", "C3"]
    replies = talk(engine, "hint 3")
    assert replies[0] == "status mctslab is analysing" and replies[-1] == "status"
    assert 1 <= len(replies) - 2 <= 3
    assert all(SEARCH_LINE.match(line) for line in replies[1:-1]), replies
    assert talk(engine, "ping 7", "learn") == ["pong 7", "learned"]


def test_a_command_a_ping_cancels_goes_unanswered() -> None:
    # "ping n - Stop thinking and respond with pong n" (NBoard protocol), and NBoard drops
    # what an engine sends before the pong of its latest ping. Before, the stopped search
    # answered anyway, after as little as one simulation: that one game's result passed
    # for the engine's evaluation ("=== D3/64.00/0.00", "analysis 1 -64.00").
    engine = NBoardEngine(thinker(iterations=200))
    talk(engine, "nboard 2", "set game (;GM[Othello]TY[8]B[F5]W[F6];)")
    for command, doing in [
        ("go", "thinking"),
        ("hint 3", "analysing"),
        ("analyze", "analysing the game"),
    ]:
        engine.hear("ping 1")  # the ping arrives while the command searches
        replies = talk(engine, command, "ping 1")
        assert replies == [f"status mctslab is {doing}", "status", "pong 1"]
    # With no ping, the next command is answered in full.
    assert GO_REPLY.match(talk(engine, "go")[-1])


def test_every_command_sent_before_the_last_ping_goes_unanswered() -> None:
    # go, ping 1, go, ping 2 all arrive while the first go searches. Before, answering
    # ping 1 let the second go search its whole budget and answer before pong 2.
    engine = NBoardEngine(thinker(iterations=200))
    talk(engine, "nboard 2", "set game (;GM[Othello]TY[8]B[F5]W[F6];)")
    for line in ("ping 1", "go", "ping 2"):
        engine.hear(line)
    replies = talk(engine, "go", "ping 1", "go", "ping 2")
    thinking = "status mctslab is thinking"
    assert replies == [thinking, "status", "pong 1", thinking, "status", "pong 2"]
    assert GO_REPLY.match(talk(engine, "go")[-1])  # all answered: the next go is searched


def test_protocol_version_1_sends_a_bare_pass_too() -> None:
    # The spec: "NBoard 1.1 sends just "F5" instead of "move F5"", and a move is two
    # characters, "F5" or "PA" (Ntest's sample code reads any two-character command as a
    # move): a bare PA was ignored, and the next move was refused as out of turn.
    engine = NBoardEngine(thinker())
    board = "O*" + "-" * 62  # White on a1, Black on b1, Black to move: only White can
    talk(engine, "nboard 1", "set depth 1", f"set game (;GM[Othello]TY[8]BO[8 {board} *];)")
    assert talk(engine, "PA", "C1") == []
    assert [square_name(move) for move in engine._moves] == ["PA", "C1"]


def test_unknown_commands_are_ignored_and_errors_go_to_the_status_line() -> None:
    logged: list[str] = []
    engine = NBoardEngine(thinker(), log=logged.append)
    replies = talk(
        engine,
        "nboard 2",
        "frobnicate",
        "set colour blue",
        "set contempt 100",
        "set depth deep",
        "set depth \u0662",  # another script's digit, which int() read
        "move a1",
        "set game (;GM[Chess];)",
        "set game BO[8 *]",
        "go",
    )
    assert replies[0] == "set myname mctslab"
    assert replies[1:5] == [
        "status Error: set depth takes a whole number; got 'deep'",
        "status Error: set depth takes a whole number; got '\u0662'",
        "status Error: 'a1' is not legal for Black in this position; legal moves: d3 c4 f5 e6",
        "status Error: GGF game GM[Chess] is not Othello",
    ]
    assert replies[5].startswith("status Error: a GGF game is written (; ... ;)")
    assert GO_REPLY.match(replies[-1])  # still running, from the unchanged start position
    assert any("frobnicate" in line for line in logged)
    assert any("colour" in line for line in logged)


def test_depth_maps_to_simulations() -> None:
    engine = RecordingEngine()
    nboard = NBoardEngine(Thinker(engine, seconds=5.0))
    talk(nboard, "nboard 2", "set depth 3", "set game (;GM[Othello]TY[8];)", "go", "hint 1")
    assert [b.iterations for b in engine.budgets] == [depth_iterations(3)] * 2 == [9000, 9000]
    assert all(b.seconds == 5.0 for b in engine.budgets)  # --seconds caps every search
    fixed = RecordingEngine()
    talk(NBoardEngine(Thinker(fixed, iterations=77)), "set depth 20", "go")
    assert fixed.budgets[-1].iterations == 77  # --iterations replaces the mapping
    assert fixed.budgets[-1].seconds is None  # and is reproducible: no time limit
    # Without --seconds the default time a move caps the depth's simulations; before,
    # depth 60 (3,600,000 simulations) took 22 s a move in a 30 s game.
    default = RecordingEngine()
    talk(NBoardEngine(Thinker(default)), "set depth 60", "go")
    assert default.budgets[-1].iterations == depth_iterations(60)
    assert default.budgets[-1].seconds == DEFAULT_MOVE_SECONDS


def test_eval_scale() -> None:
    assert [to_disc_scale(v) for v in (0.0, 0.5, 1.0)] == [-64.0, 0.0, 64.0]


def test_ggf_round_trip_with_passes_and_a_set_up_position() -> None:
    record = load_record(f"othello\n{PASSES['moves']}\n")
    start, moves = record.start, list(record.moves)
    assert isinstance(start, OthelloState)
    text = format_ggf(start, moves)
    assert text.count("B[PA]") == PASSES["black_passes"]
    parsed_start, parsed_moves = parse_ggf(text)
    assert parsed_start == start and parsed_moves == moves
    # Without the PA moves (forced passes left out) the game reads the same.
    assert parse_ggf(text.replace("B[PA]", ""))[1] == moves
    # A set-up position halfway through: the board alone carries it.
    middle = start.clone()
    for move in moves[:40]:
        middle.apply(move)
    set_up, none = parse_ggf(format_ggf(middle))
    assert none == [] and set_up.position_key() == middle.position_key()


def test_replies_come_as_they_are_made() -> None:
    # The status line is out before the search starts: the GUI shows it while thinking.
    engine = RecordingEngine()
    replies = NBoardEngine(Thinker(engine)).handle("go")
    assert next(iter(replies)) == "status mctslab is thinking" and engine.budgets == []
    assert [line.split()[0] for line in replies] == ["nodestats", "==="]
    assert len(engine.budgets) == 1


def test_analyze_evaluates_every_position_last_first() -> None:
    engine = NBoardEngine(thinker(iterations=20))
    talk(engine, "set game (;GM[Othello]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]"
         "B[F5]W[F6];)")  # fmt: skip
    replies = talk(engine, "analyze")
    assert replies[0] == "status mctslab is analysing the game"
    assert [line.split()[:2] for line in replies[1:-1]] == [
        ["analysis", "2"],
        ["analysis", "1"],
        ["analysis", "0"],
    ]
    assert replies[-1] == "status"


def test_analysis_evaluations_are_for_black() -> None:
    # NBoard reads an analysis line's eval as "positive numbers mean black is ahead" (the
    # analysis listener of weltyc's engines, which NBoard runs), where hint's and go's are
    # for the side to move: a finished game Black won, White to move, was reported -64.
    engine = NBoardEngine(thinker(iterations=20))
    talk(engine, "set game (;GM[Othello]TY[8]BO[8 " + "*" * 64 + " O];)")
    assert talk(engine, "analyze")[1:-1] == ["analysis 0 64.00"]


def test_go_in_a_finished_game_says_so() -> None:
    record = load_record(f"othello\n{PASSES['moves']}\n")
    engine = NBoardEngine(thinker())
    talk(engine, f"set game {format_ggf(record.start, list(record.moves))}")  # type: ignore[arg-type]
    assert talk(engine, "go") == [
        "status Error: the game is over (White won with a wipe-out, 59 to 0)"
    ]


# -- the client against scripted engines ------------------------------------------------
def test_client_reads_the_reply_among_thinking_output() -> None:
    # Lines of kinds the protocol does not know are passed over, as NBoard does ("Unknown
    # commands are ignored"): before, they were protocol errors.
    engine = scripted(
        ("ping (\\d+)", [r"pong \1"]),
        ("nboard", ["Scripted engine 7 ready", "set myname Scripted7"]),
        ("go", ["status thinking", "nodestats 100 0.1", "info depth 1", "=== F5/0.5/0.1"]),
    )
    player = NBoardEnginePlayer(engine, startup_seconds=10)
    try:
        state = make("othello")
        player.start(state)
        assert player.choose(state) == state.parse_move("f5")
        assert player.name == "nboard:Scripted7"
    finally:
        player.close()


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("=== A1", "answered go with '=== A1', not a legal move here"),
        (
            "EXIT 4",
            "closed its output while we waited for its answer to go (it exited with status 4)",
        ),
    ],
)
def test_client_rejects_bad_replies(reply: str, message: str) -> None:
    engine = scripted(("ping (\\d+)", [r"pong \1"]), ("go", [reply]))
    player = NBoardEnginePlayer(engine, startup_seconds=10)
    try:
        state = make("othello")
        player.start(state)
        with pytest.raises(EngineError, match=re.escape(message)):
            player.choose(state)
    finally:
        player.close()


def test_client_sets_up_a_position_it_did_not_follow() -> None:
    # The engine answers "pass" only for the set-up position where Black must pass.
    record = load_record(f"othello\n{PASSES['moves'][:24]}\n")
    forced = record.final
    assert forced.legal_moves() == [PASS]
    engine = scripted(
        ("ping (\\d+)", [r"pong \1"]),
        ("set game .*BO\\[8 [-*O]{64} \\*\\]", ["status set up"]),
        ("go", ["=== PA"]),
    )
    player = NBoardEnginePlayer(engine, startup_seconds=10)
    try:
        player.start(make("othello"))
        assert player.choose(forced) == PASS
    finally:
        player.close()


def test_set_up_positions_where_a_side_must_pass_or_the_game_is_over() -> None:
    record = load_record(f"othello\n{PASSES['moves'][:24]}\n")  # Black must pass here
    forced = record.final
    assert isinstance(forced, OthelloState)
    engine = NBoardEngine(thinker())
    talk(engine, f"set game {format_ggf(forced)}")
    assert engine._state.position_key() == forced.position_key()
    assert GO_REPLY.match(talk(engine, "go")[-1]).group(1) == "PA"  # type: ignore[union-attr]
    # No disc to place for either side: over, scored by discs (a black wipe-out here).
    replies = talk(engine, "set game (;GM[Othello]TY[8]BO[8 ***" + "-" * 61 + " O];)", "go")
    assert replies == ["status Error: the game is over (Black won with a wipe-out, 3 to 0)"]
    bad_boards = {
        "BO[8 ---- *]": "is not an 8x8 board and a side to move",
        "BO[8 " + "x" * 64 + " *]": "square 1 is 'x', not -, * or O",
        "BO[8 " + "-" * 64 + " X]": "side to move is 'X', not * or O",
    }
    for board, message in bad_boards.items():
        [reply] = talk(engine, f"set game (;GM[Othello]TY[8]{board};)")
        assert message in reply
