"""The Gomocup brain through a scripted transport, and the client against scripted brains."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from mctslab import Budget, SearchResult
from mctslab.games import State, make
from mctslab.games.gomoku import GomokuState
from mctslab.protocols import EngineError, EngineTimeoutError, GomocupBrain, GomocupEnginePlayer
from mctslab.protocols._serve import MIN_SECONDS, SAFETY_FRACTION, SAFETY_SECONDS, Thinker
from mctslab.protocols.gomocup import MIN_TREE_MB, PROCESS_MB
from tests.conftest import load_data
from tests.protocols.helpers import RecordingEngine, scripted, thinker

SPEC = load_data("protocols.json")["gomocup"]
MOVE = re.compile(r"^(\d+),(\d+)$")


def talk(brain: GomocupBrain, *lines: str) -> list[str]:
    """Every line the brain answers to ``lines``, in order."""
    return [reply for line in lines for reply in brain.handle(line)]


def move_of(reply: str, state: GomokuState) -> int:
    match = MOVE.match(reply)
    assert match is not None, reply
    x, y = int(match.group(1)), int(match.group(2))
    return y * state.width + x


def test_a_short_game_of_begin_and_turn() -> None:
    brain = GomocupBrain(thinker())
    assert talk(brain, "START 9") == ["OK"]
    referee = make("gomoku", size=9)
    assert isinstance(referee, GomokuState)
    [first] = talk(brain, "BEGIN")
    referee.play(move_of(first, referee))
    for _ in range(3):
        opponent = referee.legal_moves()[0]
        referee.play(opponent)
        [answer] = talk(brain, f"TURN {referee.move_to_gomocup(opponent)}")
        referee.play(move_of(answer, referee))
    # The brain's board is the referee's: x is the column, y the row from the top.
    assert brain._state is not None and brain._state == referee


def test_the_specs_board_example() -> None:
    brain = GomocupBrain(thinker())
    assert talk(brain, "START 15") == ["OK"]
    replies = talk(brain, *SPEC["board_example"])
    assert len(replies) == 1
    state = brain._state
    assert state is not None
    board = state.board()
    # 10,10 and 11,11 are the brain's (Black, it moved first); 10,11 and 9,10 the opponent's.
    assert board[10, 10] == board[11, 11] == 1 and board[11, 10] == board[10, 9] == 2
    assert board.sum() == 2 * 1 + 2 * 2 + 1  # the brain's answer is a new black stone
    x, y = (int(v) for v in replies[0].split(","))
    assert board[y, x] == 1


def test_board_where_the_brain_is_white() -> None:
    brain = GomocupBrain(thinker())
    talk(brain, "START 9")
    [reply] = talk(brain, "BOARD", "4,4,2", "DONE")
    state = brain._state
    assert state is not None and state.board()[4, 4] == 1  # the opponent was Black
    assert state.current_player == 0 and reply != "4,4"


def test_about_follows_the_keyword_value_format() -> None:
    [about] = talk(GomocupBrain(thinker()), "ABOUT")
    pattern = r'\w+="[^"]*"(, ?\w+="[^"]*")*'
    assert re.fullmatch(pattern, SPEC["about_example"])  # the format, checked on the spec's example
    assert re.fullmatch(pattern, about) and 'name="mctslab"' in about


def test_info_is_never_answered() -> None:
    brain = GomocupBrain(thinker())
    assert talk(brain, *SPEC["info_example"], "INFO game_type 1", "INFO folder /tmp") == []


def test_an_unsupported_rule_is_reported_before_the_next_reply() -> None:
    brain = GomocupBrain(thinker())
    assert talk(brain, "INFO rule 1", "INFO rule 4") == []
    replies = talk(brain, "START 9")
    assert replies[-1] == "OK"
    assert replies[0].startswith("MESSAGE rule 1 (exactly five in a row) is not supported")
    assert replies[1].startswith("MESSAGE rule 4 (renju) is not supported")
    assert talk(brain, "INFO rule 0", "RESTART") == ["OK"]


def test_a_rule_with_bits_the_spec_does_not_define_is_reported_too() -> None:
    # docs/protocols.md: any rule other than 0 gets a MESSAGE; 16 and 17 had been taken
    # silently (17 named only its five-in-a-row bit) as if freestyle were what was asked.
    brain = GomocupBrain(thinker())
    assert talk(brain, "INFO rule 16", "INFO rule 17") == []
    replies = talk(brain, "START 9")
    assert replies[0].startswith("MESSAGE rule 16 (unknown) is not supported")
    assert replies[1].startswith("MESSAGE rule 17 (exactly five in a row, unknown) is not")
    assert replies[-1] == "OK"


def test_malformed_and_unknown_commands_keep_the_brain_running() -> None:
    brain = GomocupBrain(thinker())
    replies = talk(
        brain,
        "BEGIN",  # before START
        "START 30",
        "START nine",
        "START 9",
        "TURN 3",
        "TURN 9,0",
        # A block with its stones and DONE, answered once (before: once a line, so the
        # manager read the extra answers as replies to its next commands).
        "SWAP2BOARD",
        "7,7",
        "8,7",
        "DONE",
        "frobnicate 1 2",
        "BOARD",
        "1,1,3",
        "DONE",
        "BOARD",
        "1,1,1",
        "1,1,2",
        "DONE",
        "BOARD",
        "1,1,1",
        "2,2,1",
        "DONE",
        "TAKEBACK 1,1",
        "INFO max_memory lots",
        "TURN 4,4",
    )
    assert replies[:-2] == [
        "ERROR no board yet: send START first",
        "ERROR unsupported board 30x30: mctslab plays boards from 5 to 19 a side",
        "ERROR START takes the board size; got 'nine'",
        "OK",
        "ERROR TURN takes x,y; got '3'",
        "ERROR 9,0 is off the 9x9 board",
        "UNKNOWN swap2 openings are not supported",
        "UNKNOWN command 'frobnicate' is not supported",
        "ERROR BOARD field 3 (continuous game) is not supported",
        "ERROR BOARD lists 1,1 twice",
        "ERROR BOARD has 2 own and 0 opponent stones; with the brain to move it has as many own "
        "stones as the opponent's, or one fewer",
        "ERROR TAKEBACK 1,1: only the last move (none) can be taken back",
    ]
    assert replies[-2] == "MESSAGE INFO max_memory 'lots' is not a whole number; ignored"
    assert MOVE.match(replies[-1])  # and it still plays
    # BEGIN opens a game; mid-game it would have the brain move for its opponent.
    assert talk(brain, "BEGIN") == [
        "ERROR BEGIN opens the game on an empty board; this board has stones (the "
        "opponent's moves come with TURN, a position with BOARD)"
    ]


def test_coordinates_take_ascii_digits_only() -> None:
    # Digits of other scripts, which a regular expression's \d takes and int() reads.
    brain = GomocupBrain(thinker())
    assert talk(brain, "START 9", "TURN \u0663,\u0663", "BOARD", "\u0663,3,2", "DONE") == [
        "OK",
        "ERROR TURN takes x,y; got '\u0663,\u0663'",
        "ERROR BOARD line '\u0663,3,2' is not x,y,field",
    ]
    # Nor do the numbers of other commands, which int() read.
    brain = GomocupBrain(thinker())
    assert talk(brain, "START \u0669", "START 9", "INFO timeout_turn \u0661000", "ABOUT")[:3] == [
        "ERROR START takes the board size; got '\u0669'",
        "OK",
        "MESSAGE INFO timeout_turn '\u0661000' is not a whole number; ignored",
    ]


def test_turn_on_a_taken_cell_or_after_the_end() -> None:
    brain = GomocupBrain(thinker())
    talk(brain, "START 5")
    # The brain (Black: as many stones as the opponent) has four in a row on the bottom row.
    board = ["BOARD", "0,4,1", "1,4,1", "2,4,1", "3,4,1", "0,0,2", "2,0,2", "0,2,2", "2,2,2"]
    assert talk(brain, *board, "DONE") == ["4,4"]  # five in a row at once
    assert talk(brain, "TURN 0,4") == ["ERROR 0,4 is already taken"]
    assert talk(brain, "TURN 4,0") == ["ERROR the game is over (Black won with 5 in a row)"]
    assert talk(brain, "BEGIN") == ["ERROR the game is over (Black won with 5 in a row)"]


def test_takeback_undoes_the_last_move() -> None:
    brain = GomocupBrain(thinker())
    talk(brain, "START 7")
    [first] = talk(brain, "BEGIN")
    assert talk(brain, f"TAKEBACK {first}") == ["OK"]
    assert brain._state is not None and not brain._state.board().any()
    [again] = talk(brain, "TURN 0,0")
    assert talk(brain, f"TAKEBACK {again}", "TAKEBACK 0,0") == ["OK", "OK"]
    assert not brain._state.board().any()


def test_end_finishes_without_a_word() -> None:
    brain = GomocupBrain(thinker())
    assert talk(brain, "START 7", "END") == ["OK"]
    assert brain.finished


class _EndArrivesMidSearch(RecordingEngine):
    """A search during which the manager sends END (as the brain's stdin reader hears it)."""

    def __init__(self) -> None:
        super().__init__()
        self.brain: GomocupBrain | None = None

    def search(self, state: State, budget: Budget | None = None, **kwargs: Any) -> SearchResult:
        assert self.brain is not None
        self.brain.hear("END\r\n")
        return super().search(state, budget, **kwargs)


def test_nothing_is_written_once_end_has_arrived() -> None:
    # "The brain should not write anything to output after the END command" (the spec).
    # Before, the move of the search END stopped was still sent, and the commands END
    # overtook were answered.
    engine = _EndArrivesMidSearch()
    brain = engine.brain = GomocupBrain(Thinker(engine))
    assert talk(brain, "START 9", "INFO rule 4") == ["OK"]
    assert talk(brain, "BEGIN") == []  # nor the MESSAGE held for its reply
    assert brain.finished and len(engine.budgets) == 1
    assert talk(brain, "ABOUT", "TURN 1,1") == []  # sent before END, handled after it


def test_time_and_memory_limits_shape_the_search_budget() -> None:
    engine = RecordingEngine()
    brain = GomocupBrain(Thinker(engine))
    talk(brain, "INFO timeout_turn 2000", "INFO max_memory 367001600", "START 9", "BEGIN")
    budget = engine.budgets[-1]
    assert budget.seconds == pytest.approx(2.0 * (1 - SAFETY_FRACTION) - SAFETY_SECONDS)
    # Half of what the process leaves: room for the copy of the tree kept from the last move.
    assert budget.memory_mb == pytest.approx((350 - PROCESS_MB) / 2)
    # 6 s left on an empty 9x9 board: 81 empty cells, so the 30-move horizon applies and
    # the share 6 / 30 s is tighter than the 2 s a turn.
    talk(brain, "RESTART", "INFO time_left 6000", "BEGIN")
    share = 6.0 / 30
    assert engine.budgets[-1].seconds == pytest.approx(
        share * (1 - SAFETY_FRACTION) - SAFETY_SECONDS
    )
    # 13 empty cells on a 5x5 board: at most 7 more moves of ours.
    talk(brain, "START 5", "BOARD", *(f"{i % 5},{i // 5},{1 + i % 2}" for i in range(12)), "DONE")
    assert engine.budgets[-1].seconds == pytest.approx(
        6.0 / 7 * (1 - SAFETY_FRACTION) - SAFETY_SECONDS
    )
    # timeout_turn 0 means as fast as possible.
    talk(brain, "INFO timeout_turn 0", "INFO time_left 2147483647", "RESTART", "BEGIN")
    assert engine.budgets[-1].seconds == MIN_SECONDS
    # Too little memory for a tree: the moves are refused, as the spec says ("the memory
    # limit is too small"); before, the brain played on in the minimum tree and went over.
    too_small = (
        f"ERROR max_memory 95 MB is too small: the brain needs about {PROCESS_MB + 2 * MIN_TREE_MB}"
        f" MB (a process of about {PROCESS_MB} MB, and room for twice a search tree of at "
        f"least {MIN_TREE_MB} MB)"
    )
    replies = talk(brain, "INFO max_memory 100000000", "RESTART", "BEGIN", "TURN 1,1")
    assert replies == ["OK", too_small, too_small]
    assert brain._state is not None and not brain._state.board().any()  # TURN left no stone
    assert MOVE.match(talk(brain, "INFO max_memory 0", "TURN 1,1")[0])


def test_max_memory_counts_the_main_process_of_workers() -> None:
    # With workers the main process holds the engine too: before, the tree was given what
    # the workers alone left, and the brain's processes went over max_memory.
    engine = RecordingEngine()
    engine.workers = 2  # type: ignore[attr-defined]
    brain = GomocupBrain(Thinker(engine))
    talk(brain, "INFO max_memory 1073741824", "START 9", "BEGIN")
    assert engine.budgets[-1].memory_mb == pytest.approx((1024 - 3 * PROCESS_MB) / 2)
    assert talk(brain, "INFO max_memory 367001600", "TURN 0,0") == [
        "ERROR max_memory 350 MB is too small: the brain needs about "
        f"{3 * PROCESS_MB + 2 * MIN_TREE_MB} MB (3 processes of about {PROCESS_MB} MB, and "
        f"room for twice a search tree of at least {MIN_TREE_MB} MB)"
    ]


def test_a_moves_time_counts_from_when_its_command_arrived() -> None:
    # The manager's clock runs from when it sent the command: before, a move searched its
    # whole time however long its command had waited (behind a brain still starting up).
    engine = RecordingEngine()
    brain = GomocupBrain(Thinker(engine))
    talk(brain, "START 9", "INFO timeout_turn 2000")
    whole = 2.0 * (1 - SAFETY_FRACTION) - SAFETY_SECONDS
    for command, waited in (("BEGIN", 1.0), ("TURN 0,0", 5.0)):
        assert MOVE.match(brain.handle(command, time.monotonic() - waited)[0])
    first, second = (budget.seconds for budget in engine.budgets)
    assert first is not None and whole - 1.5 < first <= whole - 1.0
    # The TURN came before the move it answers (piped in with the rest): its clock ran from
    # that move. Before, every move of a script searched 10 ms.
    assert second is not None and whole - 0.5 < second <= whole
    late = GomocupBrain(Thinker(engine))
    talk(late, "START 9", "INFO timeout_turn 2000")
    late.handle("BEGIN", time.monotonic() - 5.0)
    assert engine.budgets[-1].seconds == MIN_SECONDS  # its time was up: as fast as it can
    # A BOARD's time counts from its DONE.
    board = GomocupBrain(Thinker(engine))
    talk(board, "START 9", "INFO timeout_turn 2000")
    for line, waited in (("BOARD", 9.0), ("1,1,2", 9.0), ("DONE", 1.0)):
        board.handle(line, time.monotonic() - waited)
    third = engine.budgets[-1].seconds
    assert third is not None and whole - 1.5 < third <= whole - 1.0


# -- the client against scripted brains -----------------------------------------------
def test_client_skips_messages_and_follows_suggest() -> None:
    brain = scripted(
        ("START", ["MESSAGE hello", "OK"]),
        ("ABOUT", ['name="scripted", version="1"']),
        ("BEGIN", ["DEBUG thinking", "SUGGEST 2,2"]),
        ("PLAY (.*)", [r"\1"]),
    )
    player = GomocupEnginePlayer(brain, startup_seconds=10)
    try:
        state = make("gomoku", size=7)
        player.start(state)
        assert player.name == "gomocup:scripted"
        assert player.choose(state) == 2 * 7 + 2
    finally:
        player.close()


def test_client_sends_board_to_the_brain_started_afresh_for_want_of_restart() -> None:
    # A brain that answers RESTART with UNKNOWN is started again, as the spec says. Before,
    # the BOARD that followed went to the brain just ended, and the move failed.
    brain = scripted(
        ("START", ["OK"]),
        ("ABOUT", ['name="$PID"']),
        ("RESTART", ["UNKNOWN"]),
        ("INFO time_left (.*)", [r"MESSAGE time_left \1"]),
        ("BEGIN", ["3,3"]),
        ("DONE", ["4,4"]),
    )
    player = GomocupEnginePlayer(brain, timeout_match_ms=60000, startup_seconds=10)
    try:
        state = make("gomoku", size=7)
        player.start(state.clone())
        assert player.choose(state.clone()) == 3 * 7 + 3
        first = player.name
        for move in (0, 1):  # not the brain's move: the game went another way
            state.play(move)
            player.observe(move)
        assert player.choose(state.clone()) == 4 * 7 + 4
        assert player.name != first  # a new brain
        # It was told the time left too.
        assert player._process is not None
        assert any(line.startswith("< MESSAGE time_left") for line in player._process._talk)
    finally:
        player.close()


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"], ids=["CR", "CRLF", "LF"])
def test_client_hears_every_line_ending_the_spec_allows(newline: str) -> None:
    # "The brain can send lines that are ended with CR LF, or just LF, or CR" (the spec).
    # A CR alone used to be held back until more output came, which it never did.
    rules = [("START", ["OK"]), ("ABOUT", ['name="ends"']), ("BEGIN", ["3,2"])]
    player = GomocupEnginePlayer(scripted(*rules, newline=newline), startup_seconds=5)
    try:
        state = make("gomoku", size=7)
        player.start(state)
        assert player.name == "gomocup:ends"
        assert player.choose(state) == 2 * 7 + 3
    finally:
        player.close()


@pytest.mark.parametrize(
    ("rules", "error", "message"),
    [
        ([("START", ["ERROR board too small"])], EngineError, "answered START 7 with 'ERROR"),
        ([("START", ["what?"])], EngineError, "answered 'what?' where the protocol expects OK"),
        (
            [("START", ["EXIT 3"])],
            EngineError,
            "closed its output while we waited for its answer to START 7 (it exited with status 3)",
        ),
        ([], EngineTimeoutError, "did not answer START 7 within 0.5 s."),
    ],
)
def test_client_reports_broken_brains(
    rules: list[tuple[str, list[str]]], error: type[Exception], message: str
) -> None:
    player = GomocupEnginePlayer(scripted(*rules), startup_seconds=0.5)
    with pytest.raises(error, match=re.escape(message)):
        player.start(make("gomoku", size=7))
    player.close()


def test_client_names_the_time_limit_a_brain_overran() -> None:
    # Before, a timeout named what was left of the limit at the last line read (here a
    # MESSAGE 0.3 s into the 0.6 s): "within 0.3 s", or "-0.0 s" for a line just in time.
    rules = [("START", ["OK"]), ("ABOUT", ["?"]), ("BEGIN", ["SLEEP 0.3", "MESSAGE hm", "SLEEP 9"])]
    player = GomocupEnginePlayer(scripted(*rules), timeout_turn_ms=0, grace_seconds=0.6)
    try:
        state = make("gomoku", size=7)
        player.start(state)
        with pytest.raises(
            EngineTimeoutError, match=re.escape("did not answer BEGIN within 0.6 s.")
        ):
            player.choose(state)
    finally:
        player.close()


def test_client_rejects_illegal_or_garbled_moves() -> None:
    rules = [("START", ["OK"]), ("ABOUT", ["mctslab-less brain"]), ("BEGIN", ["7,7"])]
    player = GomocupEnginePlayer(scripted(*rules), startup_seconds=5)
    state = make("gomoku", size=7)
    try:
        player.start(state)
        with pytest.raises(EngineError, match="played 7,7, which is not a legal move"):
            player.choose(state)
    finally:
        player.close()
    for garbled in ("the centre", "\u0663,\u0663"):  # digits of another script are no x,y
        rules[-1] = ("BEGIN", [garbled])
        player = GomocupEnginePlayer(scripted(*rules), startup_seconds=5)
        try:
            player.start(state)
            with pytest.raises(EngineError, match="where the protocol expects a move x,y"):
                player.choose(state)
        finally:
            player.close()


def test_client_refuses_what_gomocup_cannot_play() -> None:
    player = GomocupEnginePlayer(["unused"])
    with pytest.raises(ValueError, match="plays five in a row; this game needs 4"):
        player.start(make("gomoku", size=7, k=4))
    with pytest.raises(ValueError, match="plays gomoku; got othello"):
        player.start(make("othello"))
    with pytest.raises(EngineError) as refused:
        GomocupEnginePlayer("no-such-brain --fast").start(make("gomoku", size=7))
    # The reason once (it said "...: [Errno 2] No such file or directory: 'no-such-brain'").
    assert str(refused.value).splitlines()[0] == (
        "Cannot start the Gomocup engine 'no-such-brain' (no-such-brain --fast): "
        "No such file or directory."
    )
