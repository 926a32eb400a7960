"""The Gomocup (piskvork) brain protocol: ``mctslab brain``, and Gomocup brains as players.

Spec: Petr Laštovička and Martin Petříček, "Gomoku AI protocol",
https://plastovicka.github.io/protocl2en.htm (the Piskvork manager's
``source/doc/protocl2en.htm``, version of 2023-03-20). The points it settles:

- one command a line; the brain must answer START, BEGIN, INFO, BOARD, TURN,
  END (and here also RECTSTART, RESTART, TAKEBACK, ABOUT); any other command
  gets ``UNKNOWN``, a known one that cannot be carried out ``ERROR message``,
  and the brain keeps running;
- coordinates are ``x,y`` from 0: x the column, y the row from the top;
- ``BOARD`` is followed by ``x,y,field`` lines (1 own stone, 2 the
  opponent's, 3 a winning line of a continuous game) and ``DONE``; in Gomoku
  the lines may come in any order;
- ``INFO`` is never answered (the manager does not read then): a problem with
  one, such as an unsupported ``rule``, is reported as a ``MESSAGE`` line just
  before the reply to the next other command, as the spec asks; a limit the
  brain cannot keep to (too small a ``max_memory``, the spec's example) makes
  it answer the commands that ask for a move with ``ERROR``, which is for a
  known command the brain "is not able to cope with. For example the memory
  limit is too small" (the spec);
- time: ``timeout_turn`` (ms, 0 = as fast as possible), ``timeout_match``
  (ms, 0 = none), ``time_left`` (ms before each move, 2147483647 = unlimited),
  ``max_memory`` (bytes, 0 = none).

The brain plays freestyle Gomoku (five or more in a row wins) on boards from
5x5 to 19x19; each move searches
``min(timeout_turn, time_left / moves-to-go)`` less a safety margin (see
:func:`mctslab.protocols._serve.allot`), counted from when its command
arrived (the manager's clock runs from then), and half of ``max_memory`` less
what the processes themselves need bounds the tree (the other half leaves
room for the copy a search makes of the tree it keeps from the last move);
a ``max_memory`` that leaves less than :data:`MIN_TREE_MB` is refused.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

from mctslab import __version__
from mctslab.games import State, make
from mctslab.games.gomoku import GomokuState, moves_in_turn
from mctslab.protocols._process import (
    MOVE_GRACE,
    Deadline,
    EngineError,
    EngineProcess,
    command_args,
    program_name,
)
from mctslab.protocols._serve import (
    Log,
    Thinker,
    allot,
    failure_message,
    log_to_stderr,
    moves_to_go,
    verdict,
)
from mctslab.records import whole_number

NAME = "mctslab"
AUTHOR = "mctslab contributors"
#: ``INFO time_left`` of an unlimited match.
UNLIMITED_MS = 2147483647
#: Memory a brain process needs besides its tree (Python, NumPy, numba and the
#: compiled code: about 160 MiB resident measured with the compiled engine, 186 MiB
#: for the main process of a search in workers, whose resource tracker takes 12 MiB).
PROCESS_MB = 192
#: The least tree the brain plays with: a ``max_memory`` that leaves less is refused.
MIN_TREE_MB = 16
#: Gomocup is five in a row.
FIVE = 5
_RULES = {1: "exactly five in a row", 2: "continuous game", 4: "renju", 8: "caro"}
_COORDINATES = re.compile(r"^\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*$")
_FIELD = re.compile(r"^\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*$")
_ABOUT_NAME = re.compile(r'name\s*=\s*"([^"]*)"')


class GomocupBrain:
    """The brain side: ``handle(line)`` returns the lines to answer (often none).

    ``thinker`` searches the moves; ``log`` receives diagnostics (stderr by
    default, never the protocol's stdout).
    """

    def __init__(self, thinker: Thinker, *, log: Log = log_to_stderr) -> None:
        self.thinker = thinker
        self.finished = False
        self._log = log
        self._state: GomokuState | None = None
        #: The moves since the empty board, in order, for TAKEBACK.
        self._moves: list[int] = []
        #: The block being received (BOARD or SWAP2BOARD, until DONE) and its lines.
        self._block: tuple[str, list[str]] | None = None
        #: MESSAGE lines held back until the reply to the next non-INFO command.
        self._held: list[str] = []
        self._turn_seconds: float | None = None
        self._time_left: float | None = None
        #: Why the brain cannot move within ``INFO max_memory``; None when it can.
        self._memory_error: str | None = None
        #: Set when END arrives: a search under way stops there.
        self._end_heard = threading.Event()
        #: When the line being handled arrived (None: as it is handled); a move's time
        #: counts from then, as the manager's does.
        self._arrived: float | None = None
        self._commands: dict[str, Callable[[str], list[str]]] = {
            "START": self._start,
            "RECTSTART": self._rectstart,
            "RESTART": self._restart,
            "BEGIN": self._begin,
            "TURN": self._turn,
            "TAKEBACK": self._takeback,
            "ABOUT": lambda _: [f'name="{NAME}", version="{__version__}", author="{AUTHOR}"'],
            "END": self._end,
        }

    def hear(self, line: str) -> None:
        """See a line as it arrives, before the lines ahead of it are handled: ``END``
        stops the search under way, as the brain "must terminate as soon as possible" (the
        spec), and the commands still unanswered go without an answer (see :meth:`handle`)."""
        if line.strip().upper() == "END":
            self._end_heard.set()

    def handle(self, line: str, arrived: float | None = None) -> list[str]:
        replies = [] if self._end_heard.is_set() else self._answer(line, arrived)
        if self._end_heard.is_set():
            # "The brain should not write anything to output after the END command" (the
            # spec): nor the reply of a command END interrupted or overtook.
            self.finished = True
            return []
        return replies

    def _answer(self, line: str, arrived: float | None) -> list[str]:
        text = line.strip()
        if not text:
            return []
        self._arrived = arrived
        if self._block is not None:
            block, lines = self._block
            if text.upper() != "DONE":
                lines.append(text)
                return []
            self._block = None
            if block == "SWAP2BOARD":  # one answer for the block, so the manager stays in step
                return self._reply(lambda: ["UNKNOWN swap2 openings are not supported"])
            return self._reply(lambda: self._board(lines))
        word, _, argument = text.partition(" ")
        command = word.upper()
        if command == "INFO":
            self._info(argument.strip())
            return []
        if command in ("BOARD", "SWAP2BOARD"):
            self._block = (command, [])
            return []
        action = self._commands.get(command)
        if action is None:
            return self._reply(lambda: [f"UNKNOWN command {word!r} is not supported"])
        return self._reply(lambda: action(argument.strip()))

    # -- commands ---------------------------------------------------------------
    def _start(self, argument: str) -> list[str]:
        size = _integer(argument, "START takes the board size")
        return self._new_board(size, size)

    def _rectstart(self, argument: str) -> list[str]:
        width, height = _pair(argument, "RECTSTART takes width,height")
        return self._new_board(width, height)

    def _new_board(self, width: int, height: int) -> list[str]:
        try:
            self._state = _empty_board(width, height)
        except ValueError:
            raise ValueError(
                f"unsupported board {width}x{height}: mctslab plays boards from 5 to 19 a side"
            ) from None
        self._moves = []
        self.thinker.reset()
        return ["OK"]

    def _restart(self, _: str) -> list[str]:
        state = self._require_board()
        return self._new_board(state.width, state.height)

    def _begin(self, _: str) -> list[str]:
        state = self._board_to_move_on()
        if not state.is_terminal() and state.board().any():  # a finished game says so instead
            raise ValueError(
                "BEGIN opens the game on an empty board; this board has stones "
                "(the opponent's moves come with TURN, a position with BOARD)"
            )
        return self._think()

    def _turn(self, argument: str) -> list[str]:
        state = self._board_to_move_on()
        self._play(self._move_at(state, *_pair(argument, "TURN takes x,y")))
        return self._think()

    def _board(self, lines: list[str]) -> list[str]:
        state = self._board_to_move_on()
        own: list[int] = []
        opponent: list[int] = []
        for line in lines:
            match = _FIELD.match(line)
            if match is None:
                raise ValueError(f"BOARD line {line!r} is not x,y,field")
            x, y, field = (int(group) for group in match.groups())
            if field == 3:
                raise ValueError("BOARD field 3 (continuous game) is not supported")
            if field not in (1, 2):
                raise ValueError(f"BOARD line {line!r}: field must be 1 (own) or 2 (opponent)")
            move = self._move_at(state, x, y, empty_board=True)
            if move in own or move in opponent:
                raise ValueError(f"BOARD lists {x},{y} twice")
            (own if field == 1 else opponent).append(move)
        # The brain is to move: Black if it has as many stones as the opponent.
        black, white = (own, opponent) if len(own) == len(opponent) else (opponent, own)
        try:
            order = moves_in_turn(black, white)
        except ValueError:
            raise ValueError(
                f"BOARD has {len(own)} own and {len(opponent)} opponent stones; with the brain to "
                "move it has as many own stones as the opponent's, or one fewer"
            ) from None
        self._state = _empty_board(state.width, state.height)
        self._moves = []
        self.thinker.reset()
        for move in order:
            self._play(move)
        return self._think()

    def _takeback(self, argument: str) -> list[str]:
        state = self._require_board()
        x, y = _pair(argument, "TAKEBACK takes x,y")
        move = self._move_at(state, x, y, empty_board=True)
        if not self._moves or self._moves[-1] != move:
            last = state.move_to_gomocup(self._moves[-1]) if self._moves else "none"
            raise ValueError(f"TAKEBACK {x},{y}: only the last move ({last}) can be taken back")
        kept = self._moves[:-1]
        self._state = _empty_board(state.width, state.height)
        self._moves = []
        self.thinker.reset()
        for earlier in kept:
            self._play(earlier)
        return ["OK"]

    def _end(self, _: str) -> list[str]:
        self._end_heard.set()  # as hear() does, for a caller of handle() alone
        return []

    def _info(self, argument: str) -> None:
        key, _, value = argument.partition(" ")
        key, value = key.lower(), value.strip()
        if key not in ("timeout_turn", "timeout_match", "time_left", "max_memory", "rule"):
            return  # game_type, evaluate, folder and unknown keys: nothing to do
        try:
            number = whole_number(value)
        except ValueError:
            self._held.append(f"MESSAGE INFO {key} {value!r} is not a whole number; ignored")
            return
        if key == "timeout_turn":
            self._turn_seconds = max(0, number) / 1000.0
        elif key == "time_left":
            self._time_left = None if number >= UNLIMITED_MS else max(0, number) / 1000.0
        elif key == "max_memory":
            self._set_memory(number)
        elif key == "rule":
            self._set_rule(number)
        # timeout_match: the spec lets a brain rely on time_left alone.

    def _set_memory(self, limit: int) -> None:
        self._memory_error = None
        if limit <= 0:
            self.thinker.memory_mb = None
            return
        # Half of what the processes leave: the brain keeps its tree from move to move, and
        # the compiled engine's next search copies the subtree it keeps while the old tree
        # still exists, so two trees of the budget can be held at once; max_memory is a
        # limit the tournament enforces, on all the brain's processes together.
        workers = self.thinker.workers
        processes = workers + 1 if workers > 1 else 1  # with workers, the main one as well
        tree_mb = (limit / 2**20 - PROCESS_MB * processes) / 2
        if tree_mb < MIN_TREE_MB:
            held = f"{processes} processes of" if processes > 1 else "a process of"
            self._memory_error = (
                f"max_memory {limit / 2**20:.0f} MB is too small: the brain needs about "
                f"{PROCESS_MB * processes + 2 * MIN_TREE_MB} MB ({held} about {PROCESS_MB} MB, "
                f"and room for twice a search tree of at least {MIN_TREE_MB} MB)"
            )
            return
        self.thinker.memory_mb = tree_mb

    def _set_rule(self, rule: int) -> None:
        unsupported = [name for bit, name in _RULES.items() if rule & bit] if rule >= 0 else []
        if rule < 0 or rule & ~sum(_RULES):  # bits the spec does not define
            unsupported.append("unknown")
        if unsupported:
            self._held.append(
                f"MESSAGE rule {rule} ({', '.join(unsupported)}) is not supported: "
                "mctslab plays freestyle, where five or more in a row wins"
            )

    # -- helpers ----------------------------------------------------------------
    def _reply(self, action: Callable[[], list[str]]) -> list[str]:
        replies, self._held = self._held, []
        try:
            replies.extend(action())
        except Exception as error:
            replies.append("ERROR " + failure_message(error, self._log))
        return replies

    def _require_board(self) -> GomokuState:
        if self._state is None:
            raise ValueError("no board yet: send START first")
        return self._state

    def _board_to_move_on(self) -> GomokuState:
        """The board of a command that asks for a move (BEGIN, TURN, BOARD), which is refused
        while ``INFO max_memory`` is too small, before the board changes: the manager may
        raise the limit and send the command again."""
        if self._memory_error is not None:
            raise ValueError(self._memory_error)
        return self._require_board()

    def _move_at(self, state: GomokuState, x: int, y: int, *, empty_board: bool = False) -> int:
        """The move id of ``x,y``, which must be on the board (and free unless ``empty_board``)."""
        if not (0 <= x < state.width and 0 <= y < state.height):
            raise ValueError(f"{x},{y} is off the {state.width}x{state.height} board")
        move = y * state.width + x
        if not empty_board and state.board()[y, x] != 0:
            raise ValueError(f"{x},{y} is already taken")
        return move

    def _play(self, move: int) -> None:
        state = self._require_board()
        if state.is_terminal():
            raise ValueError(f"the game is over ({verdict(state)})")
        state.apply(move)
        self._moves.append(move)
        self.thinker.advance(move)

    def _think(self) -> list[str]:
        state = self._require_board()
        if state.is_terminal():
            raise ValueError(f"the game is over ({verdict(state)})")
        allotted = allot(
            per_move=self._turn_seconds,
            remaining=self._time_left,
            moves_left=moves_to_go(len(state.legal_moves())),
        )
        result = self.thinker.search(state, allotted, arrived=self._arrived, stop=self._end_heard)
        self._play(result.best_move)
        return [state.move_to_gomocup(result.best_move)]


class GomocupEnginePlayer:
    """A Gomocup brain run as a subprocess, as a :class:`~mctslab.players.Player` of Gomoku.

    - ``command``: the program and its arguments (a list, or a string split
      as a POSIX shell would).
    - ``timeout_turn_ms`` / ``timeout_match_ms`` / ``max_memory_bytes``: the
      limits announced with ``INFO`` (0 = as fast as possible / no limit /
      no limit); with a match limit ``INFO time_left`` precedes every move.
    - ``grace_seconds``: how much longer than its limit a move may take
      before the brain is given up as hung; ``startup_seconds`` bounds the
      answer to ``START``.

    Only freestyle five-in-a-row is asked of the brain (``INFO rule 0``): a
    game with another ``k`` raises ValueError. Brains that die, time out or
    answer anything but a legal ``x,y`` raise :class:`EngineError`.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout_turn_ms: int = 5000,
        timeout_match_ms: int = 0,
        max_memory_bytes: int = 0,
        grace_seconds: float = MOVE_GRACE,
        startup_seconds: float = 30.0,
    ) -> None:
        self.args = command_args(command, "GomocupEnginePlayer")
        self.timeout_turn_ms = timeout_turn_ms
        self.timeout_match_ms = timeout_match_ms
        self.max_memory_bytes = max_memory_bytes
        self.grace_seconds = grace_seconds
        self.startup_seconds = startup_seconds
        self.name = f"gomocup:{program_name(self.args)}"
        self._process: EngineProcess | None = None
        self._size: tuple[int, int] | None = None
        self._moves: list[int] = []
        #: How many of ``_moves`` the brain's board holds; None when unknown.
        self._synced: int | None = None
        #: The brain's own last move, until it is observed.
        self._expected: int | None = None
        #: Whether the brain's board has stones since START or RESTART.
        self._open = False
        self._used_seconds = 0.0

    # -- the Player protocol ------------------------------------------------------
    def start(self, state: State) -> None:
        if not isinstance(state, GomokuState):
            raise ValueError(f"A Gomocup brain plays gomoku; got {state.spec.name}.")
        if state.k != FIVE:
            raise ValueError(f"A Gomocup brain plays five in a row; this game needs {state.k}.")
        size = (state.width, state.height)
        if self._process is None or not self._process.alive or self._size != size:
            self._launch(size)
        else:
            self._restart()
        self._moves = []
        self._expected = None
        self._used_seconds = 0.0
        self._synced = 0 if not state.board().any() else None

    def choose(self, state: State) -> int:
        self._require_process()
        if not isinstance(state, GomokuState):
            raise ValueError(f"A Gomocup brain plays gomoku; got {state.spec.name}.")
        new = None if self._synced is None else len(self._moves) - self._synced
        if new == 0 and not self._moves and not state.board().any():
            waiting_for = "BEGIN"
        elif new == 1:
            waiting_for = f"TURN {state.move_to_gomocup(self._moves[-1])}"
        else:
            waiting_for = "BOARD"
            if self._open:
                self._restart()  # which starts a brain without RESTART afresh
        process = self._require_process()
        if self.timeout_match_ms > 0:
            left = self.timeout_match_ms - int(self._used_seconds * 1000)
            process.send(f"INFO time_left {left}", "\r\n")
        began = time.perf_counter()
        if waiting_for == "BOARD":
            self._send_board(process, state)
        else:
            process.send(waiting_for, "\r\n")
        self._open = True
        move = self._read_move(process, state, waiting_for)
        self._used_seconds += time.perf_counter() - began
        self._synced = len(self._moves) + 1
        self._expected = move
        return move

    def observe(self, move: int) -> None:
        self._moves.append(int(move))
        if self._expected is not None and move != self._expected:
            self._synced = None
        self._expected = None

    def close(self) -> None:
        if self._process is not None:
            self._process.close(["END"], "\r\n")
            self._process = None

    # -- talking to the brain -------------------------------------------------------
    def _launch(self, size: tuple[int, int]) -> None:
        self.close()
        process = EngineProcess(self.args, "Gomocup")
        self._process = process
        for key, value in (
            ("timeout_turn", self.timeout_turn_ms),
            ("timeout_match", self.timeout_match_ms),
            ("max_memory", self.max_memory_bytes),
            ("game_type", 1),
            ("rule", 0),
        ):
            process.send(f"INFO {key} {value}", "\r\n")
        width, height = size
        command = f"START {width}" if width == height else f"RECTSTART {width},{height}"
        process.send(command, "\r\n")
        self._expect_ok(process, command, self.startup_seconds)
        self._size = size
        self._open = False
        process.send("ABOUT", "\r\n")
        about = self._answer(process, "ABOUT", self.startup_seconds)
        named = _ABOUT_NAME.search(about)
        if named is not None and named.group(1).strip():
            self.name = f"gomocup:{named.group(1).strip()}"

    def _restart(self) -> None:
        """A new game on the same board; a brain without RESTART is started afresh, as specified."""
        process = self._require_process()
        process.send("RESTART", "\r\n")
        answer = self._answer(process, "RESTART", self.startup_seconds)
        if answer.upper().startswith("UNKNOWN"):
            assert self._size is not None
            self._launch(self._size)
        elif answer.upper() != "OK":
            raise process.protocol_error(answer, "OK after RESTART")
        self._open = False

    def _send_board(self, process: EngineProcess, state: GomokuState) -> None:
        """BOARD with every stone, 1 for the side to move (the brain) and 2 for the other."""
        own = state.current_player + 1
        process.send("BOARD", "\r\n")
        for y, row in enumerate(state.board()):
            for x, cell in enumerate(row):
                if cell:
                    process.send(f"{x},{y},{1 if cell == own else 2}", "\r\n")
        process.send("DONE", "\r\n")

    def _expect_ok(self, process: EngineProcess, command: str, timeout: float) -> None:
        answer = self._answer(process, command, timeout)
        if answer.upper() != "OK":
            raise process.protocol_error(answer, f"OK after {command}")

    def _answer(self, process: EngineProcess, command: str, timeout: float) -> str:
        """The next line that is not a MESSAGE or DEBUG; ERROR ends the game with an error."""
        deadline = Deadline.after(timeout)
        while True:
            line = process.receive(deadline, command).strip()
            keyword = line.split(" ", 1)[0].upper()
            if not line or keyword in ("MESSAGE", "DEBUG"):
                continue
            if keyword == "ERROR":
                raise EngineError(f"The {process.label} answered {command} with {line!r}.")
            return line

    def _read_move(self, process: EngineProcess, state: GomokuState, command: str) -> int:
        limit = self.timeout_turn_ms / 1000.0
        if self.timeout_match_ms > 0:
            limit = min(limit, max(0.0, self.timeout_match_ms / 1000.0 - self._used_seconds))
        answer = self._answer(process, command, limit + self.grace_seconds)
        suggested = re.match(r"(?i)^SUGGEST\s+(.*)$", answer)
        if suggested is not None:
            # The manager may accept the suggestion: PLAY it and read the echo.
            process.send(f"PLAY {suggested.group(1).strip()}", "\r\n")
            answer = self._answer(process, "PLAY", self.grace_seconds + limit)
        match = _COORDINATES.match(answer)
        if match is None:
            raise process.protocol_error(answer, f"a move x,y after {command}")
        x, y = int(match.group(1)), int(match.group(2))
        move = y * state.width + x
        if not (0 <= x < state.width and 0 <= y < state.height) or move not in state.legal_moves():
            raise EngineError(
                f"The {process.label} played {x},{y}, which is not a legal move here.\n{state}"
            )
        return move

    def _require_process(self) -> EngineProcess:
        if self._process is None:
            raise ValueError("The Gomocup brain has not been started: call start(state) first.")
        return self._process


# -- helpers --------------------------------------------------------------------
def _empty_board(width: int, height: int) -> GomokuState:
    state = make("gomoku", width=width, height=height, k=FIVE)
    assert isinstance(state, GomokuState)
    return state


def _integer(text: str, usage: str) -> int:
    try:
        return whole_number(text)
    except ValueError:
        raise ValueError(f"{usage}; got {text!r}") from None


def _pair(text: str, usage: str) -> tuple[int, int]:
    match = _COORDINATES.match(text)
    if match is None:
        raise ValueError(f"{usage}; got {text!r}")
    return int(match.group(1)), int(match.group(2))
