"""GTP, the Go Text Protocol (version 2), for the board games: ``mctslab gtp <game>`` and clients.

Spec: Gunnar Farnebäck, "Specification of the Go Text Protocol, version 2,
draft 2" (2002), http://www.lysator.liu.se/~gunnar/gtp/gtp2-spec-draft2/gtp2-spec.html.
The points it settles:

- a command is ``[id] name [arguments]``; control characters other than tab
  and newline are dropped, tabs become spaces, ``#`` starts a comment and an
  empty line is ignored;
- a success is ``=[id] result``, a failure ``?[id] message``, each followed by
  an empty line (so a response never holds an empty line itself);
- colours are ``black``/``b`` and ``white``/``w``; a vertex is a column
  letter, ``A`` to ``Z`` *without* ``I``, and a row number from 1, or ``pass``;
- ``time_settings main byo_yomi_time byo_yomi_stones`` (seconds; byo-yomi
  time > 0 with 0 stones means no limits) and ``time_left colour time
  stones`` (stones 0 while in main time).

How the games map onto it (GTP was made for Go, where either colour may play
at any time; our games alternate):

- black is player 0 (Black in Gomoku and Othello, X in Connect Four and
  tic-tac-toe), white player 1; a move out of turn fails with "illegal move",
  except in Othello when the side to move can only pass: the pass is then
  played for it first;
- Gomoku: column letters skip ``I`` as in Go, so our ``i8`` is GTP ``J8`` (rows
  from the bottom in both); ``boardsize`` sets an N x N board with the same k;
- Othello: Othello's own coordinates, ``F5`` (rows counted from the top, as
  every Othello program writes them); ``pass`` when forced; ``boardsize 8`` only;
- Connect Four: the cell the disc lands on, ``D1`` for a first disc in column
  4 (rows from the bottom); a bare column number (``4``) is accepted too;
  ``boardsize 7`` only;
- tic-tac-toe: ``A1`` to ``C3`` (rows from the bottom); ``boardsize 3`` only;
- ``showboard`` names the columns and rows as the game's vertices do;
- ``komi`` is accepted and ignored; ``genmove`` in a finished game fails
  ("game is over") rather than inventing a pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import count
from typing import Any

from mctslab import __version__
from mctslab.games import IllegalMoveError, InvalidMoveError, State, make
from mctslab.games._base import first_line
from mctslab.games.connect4 import Connect4State
from mctslab.games.gomoku import GomokuState, moves_in_turn
from mctslab.games.othello import PASS
from mctslab.protocols._process import (
    MOVE_GRACE,
    Deadline,
    EngineError,
    EngineProcess,
    EngineResignedError,
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
PROTOCOL_VERSION = "2"
#: The games GTP is offered for: two-player games on a grid.
GAMES = ("gomoku", "othello", "connect4", "tictactoe")
#: GTP's column letters: the alphabet without I.
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_VERTEX = re.compile(r"^([a-z])([0-9]{1,2})$")
#: A command's id, or Connect Four's bare column (str.isdigit() takes other scripts' digits).
_NUMBER = re.compile(r"^[0-9]+$")
#: GTP's float: ASCII digits, an optional sign and decimal point (float() also
#: reads other scripts' digits, underscores, "nan" and "inf").
_FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_COLORS = {"black": 0, "b": 0, "white": 1, "w": 1}


class _Failure(Exception):
    """A GTP failure response; the message follows the ``?``."""


# -- vertices ---------------------------------------------------------------------
def to_vertex(state: State, move: int) -> str:
    """The GTP vertex of ``move`` in ``state`` (see the module docstring for each game)."""
    game = state.spec.name
    if game == "othello":
        if move == PASS:
            return "pass"
        row, column = divmod(move, 8)
        return f"{LETTERS[column]}{row + 1}"
    if game == "connect4":
        return f"{LETTERS[move]}{_discs_in_column(state, move) + 1}"
    height, width = _shape(state)
    row, column = divmod(move, width)
    return f"{LETTERS[column]}{height - row}"


def from_vertex(state: State, text: str) -> int:
    """The legal move of the GTP vertex ``text`` in ``state``.

    Raises :class:`InvalidMoveError` for text that is no vertex of the board
    and :class:`IllegalMoveError` for a vertex that cannot be played now.
    """
    game = state.spec.name
    cleaned = text.strip().lower()
    if cleaned == "pass":  # a vertex in GTP: where a game has no pass, an illegal move
        if game != "othello":
            raise IllegalMoveError(f"{game} has no pass")
        move = PASS
    elif game == "connect4" and _NUMBER.match(cleaned):
        try:
            return state.parse_move(cleaned)
        except IllegalMoveError as error:  # its message shows the board: one line is GTP's
            raise IllegalMoveError(first_line(error)) from None
    else:
        move = _grid_move(state, text, cleaned)
    if move not in state.legal_moves():
        if state.is_terminal():
            raise IllegalMoveError(f"{text} cannot be played: the game is over")
        if cleaned == "pass":
            mover = state.spec.player_names[state.current_player]
            raise IllegalMoveError(f"{mover} has a move, so may not pass")
        raise IllegalMoveError(f"{text} is not legal here")
    return move


def _grid_move(state: State, text: str, cleaned: str) -> int:
    match = _VERTEX.match(cleaned)
    letter = match.group(1).upper() if match else ""
    if match is None or letter not in LETTERS:
        raise InvalidMoveError(f"{text!r} is not a GTP vertex (a letter other than I, a number)")
    height, width = _shape(state)
    column, number = LETTERS.index(letter), int(match.group(2))
    if not (column < width and 1 <= number <= height):
        raise InvalidMoveError(f"{text} is off the {width}x{height} board")
    game = state.spec.name
    if game == "othello":
        return (number - 1) * width + column
    if game == "connect4":
        lands = _discs_in_column(state, column) + 1
        if number != lands:
            raise IllegalMoveError(f"a disc dropped in column {letter} lands on {letter}{lands}")
        return column
    return (height - number) * width + column


def check_offered(game: str) -> None:
    """Raise ValueError unless GTP is offered for ``game`` (a name)."""
    if game not in GAMES:
        raise ValueError(f"GTP is offered for the board games {', '.join(GAMES)}; got {game!r}.")


def check_playable(state: State) -> None:
    """Raise ValueError unless a GTP engine can play the game of ``state``."""
    check_offered(state.spec.name)
    height, width = _shape(state)
    if state.spec.name == "gomoku" and width != height:
        raise ValueError(f"GTP boards are square; this gomoku board is {width}x{height}.")


def _shape(state: State) -> tuple[int, int]:
    shape = state.spec.board_shape
    assert shape is not None, "GTP games are played on a grid"
    return shape


def _discs_in_column(state: State, column: int) -> int:
    assert isinstance(state, Connect4State)
    return int((state.board()[:, column] != 0).sum())


def _board_size(state: State) -> int:
    """The size ``boardsize`` takes for this game (the width)."""
    return _shape(state)[1]


# -- the engine -------------------------------------------------------------------
class GTPEngine:
    """The engine side for one of :data:`GAMES`: ``handle(line)`` returns the response lines.

    ``params`` are the game's parameters (e.g. ``{"size": 9, "k": 5}``).
    """

    def __init__(
        self,
        thinker: Thinker,
        game: str,
        params: Mapping[str, Any] | None = None,
        *,
        log: Log = log_to_stderr,
    ) -> None:
        self.thinker = thinker
        self.finished = False
        self._log = log
        self._game = game
        self._params = dict(params or {})
        check_offered(game)
        self._start = make(game, **self._params)
        check_playable(self._start)
        self._state = self._start.clone()
        #: The moves of each play or genmove (an Othello pass made for the
        #: side to move comes first), so that undo takes back a whole command.
        self._turns: list[list[int]] = []
        #: (main time, byo-yomi time, byo-yomi stones) in seconds; None: no limits.
        self._clock: tuple[float, float, int] | None = None
        self._left: dict[int, tuple[float, int]] = {}
        #: When the line being handled arrived (None: as it is handled); a move's time
        #: counts from then, as the controller's does.
        self._arrived: float | None = None
        self._commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda _: PROTOCOL_VERSION,
            "name": lambda _: NAME,
            "version": lambda _: __version__,
            "known_command": self._known_command,
            "list_commands": lambda _: "\n".join(self._commands),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "time_settings": self._time_settings,
            "time_left": self._time_left,
        }

    def _showboard(self, _: list[str]) -> str:
        # The columns and rows are named as the vertices are: Othello's and
        # tic-tac-toe's own labels already are.
        board = self._state
        if isinstance(board, GomokuState):
            text = board.render(LETTERS.lower())  # the letters skip I
        elif isinstance(board, Connect4State):
            text = board.render_cells()  # the game's own text numbers the columns only
        else:
            text = str(board)
        return "\n" + text

    def handle(self, line: str, arrived: float | None = None) -> list[str]:
        text = _CONTROL.sub("", line).replace("\t", " ").split("#", 1)[0].strip()
        if not text:
            return []
        self._arrived = arrived
        words = text.split()
        ident = words.pop(0) if _NUMBER.match(words[0]) else ""
        if not words:
            return [f"?{ident} syntax error: no command after the id", ""]
        action = self._commands.get(words[0])
        if action is None:
            return [f"?{ident} unknown command", ""]
        try:
            result = action(words[1:])
        except _Failure as failure:
            return [f"?{ident} {failure}", ""]
        except Exception as error:
            return [f"?{ident} {failure_message(error, self._log)}", ""]
        first, *rest = result.split("\n")
        return [f"={ident} {first}".rstrip(), *(line for line in rest if line.strip()), ""]

    # -- commands ---------------------------------------------------------------
    def _known_command(self, args: list[str]) -> str:
        return "true" if args and args[0] in self._commands else "false"

    def _quit(self, _: list[str]) -> str:
        self.finished = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        size = _int_arg(args, 0, "boardsize takes a size")
        if self._game == "gomoku":
            params = {"width": size, "height": size, "k": self._start.spec.params["k"]}
            try:
                self._start = make("gomoku", **params)
            except ValueError:
                raise _Failure("unacceptable size") from None
            self._params = params
        elif size != _board_size(self._start):
            raise _Failure("unacceptable size")
        return self._clear_board([])

    def _clear_board(self, _: list[str]) -> str:
        self._state = self._start.clone()
        self._turns = []
        self._left = {}  # a new game starts on the time_settings' full clock
        self.thinker.reset()
        return ""

    def _komi(self, args: list[str]) -> str:
        if len(args) < 1 or not _FLOAT.fullmatch(args[0]):
            raise _Failure("syntax error: komi takes a number")
        return ""  # no game here scores territory: komi means nothing

    def _play(self, args: list[str]) -> str:
        if len(args) < 2:
            raise _Failure("syntax error: play takes a colour and a vertex")
        player = _color(args[0])
        if not self._state.is_terminal():
            try:  # a malformed vertex is a syntax error, whoever's turn it is
                from_vertex(self._state, args[1])
            except InvalidMoveError as error:
                raise _Failure(f"syntax error: {error}") from None
            except IllegalMoveError:
                pass  # judged below, once the player is to move
        state, turn = self._ready_for(player, "illegal move")
        try:
            move = from_vertex(state, args[1])
        except InvalidMoveError as error:
            raise _Failure(f"syntax error: {error}") from None
        except IllegalMoveError as error:
            raise _Failure(f"illegal move: {error}") from None
        self._commit([*turn, move])
        return ""

    def _genmove(self, args: list[str]) -> str:
        if not args:
            raise _Failure("syntax error: genmove takes a colour")
        player = _color(args[0])
        state, turn = self._ready_for(player, "cannot move")
        began = self.thinker.clock_start(self._arrived)
        result = self.thinker.search(state, self._allotted(player), arrived=self._arrived)
        self._spend(player, time.monotonic() - began)
        vertex = to_vertex(state, result.best_move)  # before the move: Connect Four's row
        self._commit([*turn, result.best_move])
        return vertex

    def _undo(self, _: list[str]) -> str:
        if not self._turns:
            raise _Failure("cannot undo")
        self._turns.pop()
        self._state = self._start.clone()
        for turn in self._turns:
            for move in turn:
                self._state.apply(move)
        self.thinker.reset()
        return ""

    def _time_settings(self, args: list[str]) -> str:
        main, byo_time, byo_stones = (
            _int_arg(args, index, "time_settings takes main time, byo-yomi time and stones")
            for index in range(3)
        )
        self._clock = None if byo_time > 0 and byo_stones == 0 else (main, byo_time, byo_stones)
        self._left = {}
        return ""

    def _time_left(self, args: list[str]) -> str:
        if not args:
            raise _Failure("syntax error: time_left takes a colour, a time and stones")
        player = _color(args[0])
        left = _int_arg(args, 1, "time_left takes a colour, a time and stones")
        stones = _int_arg(args, 2, "time_left takes a colour, a time and stones")
        self._left[player] = (float(left), stones)
        return ""

    # -- helpers ----------------------------------------------------------------
    def _ready_for(self, player: int, failure: str) -> tuple[State, list[int]]:
        """The position where ``player`` moves, and the forced pass played to reach it."""
        state = self._state
        if state.is_terminal():
            raise _Failure(f"{failure}: the game is over ({verdict(state)})")
        turn: list[int] = []
        if player != state.current_player and state.legal_moves() == [PASS]:
            state = state.clone()
            state.apply(PASS)
            turn.append(PASS)
        if player != state.current_player:
            names = state.spec.player_names
            raise _Failure(
                f"{failure}: it is {names[state.current_player]}'s turn, not {names[player]}'s"
            )
        return state, turn

    def _commit(self, turn: list[int]) -> None:
        for move in turn:
            self._state.apply(move)
            self.thinker.advance(move)
        self._turns.append(turn)

    def _allotted(self, player: int) -> float | None:
        """The seconds for ``player``'s move by the clock: time_settings, and time_left when
        the controller reports it (alone, it is taken as the time for the rest of the game)."""
        clock = self._clock_of(player)
        if clock is None:
            return None
        left, stones, byo_time, byo_stones = clock
        if stones > 0:
            return allot(remaining=left, moves_left=stones)
        played = sum(len(turn) for turn in self._turns)
        share = allot(
            remaining=left,
            moves_left=moves_to_go(self._state.spec.max_game_length - played),
        )
        if byo_time > 0 and byo_stones > 0:
            # Main time spent on this move is followed by a byo-yomi period for it.
            share = max(share or 0.0, allot(per_move=byo_time / byo_stones) or 0.0)
        return share

    def _clock_of(self, player: int) -> tuple[float, int, float, int] | None:
        """``player``'s time left and stones left in the period (0 in main time), with the
        byo-yomi settings; None when no clock was set or reported for them."""
        if self._clock is None and player not in self._left:
            return None
        main, byo_time, byo_stones = self._clock or (0.0, 0.0, 0)
        left, stones = self._left.get(player, (main, 0))
        return left, stones, byo_time, byo_stones

    def _spend(self, player: int, seconds: float) -> None:
        """Keep ``player``'s clock between the controller's time_left reports, which reset it.

        A controller need not send time_left; without it each share would be
        taken from the whole main time again, and the game's moves together
        would overrun it.
        """
        clock = self._clock_of(player)
        if clock is None:
            return
        left, stones, byo_time, byo_stones = clock
        left -= seconds
        if self._clock is None:  # time_left alone: no periods known, only the time left
            self._left[player] = (max(0.0, left), stones)
            return
        if stones > 0:  # a byo-yomi period: one stone fewer, a new period once it is played
            stones -= 1
            if stones == 0:
                left, stones = float(byo_time), byo_stones
        elif left <= 0 and byo_stones > 0:  # main time is spent: byo-yomi begins
            left, stones = float(byo_time), byo_stones
        self._left[player] = (max(0.0, left), stones)


def _color(text: str) -> int:
    try:
        return _COLORS[text.lower()]
    except KeyError:
        raise _Failure(f"syntax error: {text!r} is not a colour (black, b, white, w)") from None


def _int_arg(args: list[str], index: int, usage: str) -> int:
    try:
        value = whole_number(args[index])
    except (IndexError, ValueError):
        raise _Failure(f"syntax error: {usage}") from None
    if value < 0:
        raise _Failure(f"syntax error: {usage} (not negative)")
    return value


# -- the client -------------------------------------------------------------------
class GTPEnginePlayer:
    """A GTP engine run as a subprocess, as a :class:`~mctslab.players.Player` of a board game.

    - ``command``: the program and its arguments (a list, or a string split
      as a POSIX shell would); it must play the same game with the same rules
      (GTP has no command for a game's parameters, e.g. Gomoku's k).
    - ``seconds_per_move``: when given, sent as ``time_settings 0 S 1``
      (Canadian byo-yomi of S seconds a move, S rounded to whole seconds and
      at least 1), GTP's usual way of saying so.
    - ``move_seconds``: how long a ``genmove`` may take before the engine is
      lost on time (given up as hung); by default S and a grace of
      ``MOVE_GRACE`` seconds with ``seconds_per_move``, else 60 s.
      ``startup_seconds`` bounds the other answers.

    The game comes from :meth:`start`: ``boardsize`` and ``clear_board`` are
    sent, then, for a Gomoku position reached by unknown moves, its stones
    in turn (ValueError for counts that moves in turn cannot leave; games of
    the other kinds must start from their initial position; the arena starts
    there and passes every opening move to observe).
    An engine that resigns raises :class:`EngineResignedError`; one that
    dies, times out, fails a command or answers an illegal move raises
    :class:`EngineError`.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        seconds_per_move: float | None = None,
        move_seconds: float | None = None,
        startup_seconds: float = 30.0,
    ) -> None:
        self.args = command_args(command, "GTPEnginePlayer")
        self.seconds_per_move = seconds_per_move
        if move_seconds is None:
            told = self._byo_yomi_seconds()
            move_seconds = 60.0 if told is None else told + MOVE_GRACE
        self.move_seconds = move_seconds
        self.startup_seconds = startup_seconds
        self.name = f"gtp:{program_name(self.args)}"
        self._process: EngineProcess | None = None
        self._ids = count(1)
        self._state: State | None = None
        self._expected: int | None = None

    def start(self, state: State) -> None:
        check_playable(state)
        _, width = _shape(state)
        initial = make(state.spec.name, **state.spec.params)
        setup = _setup_moves(state) if state.position_key() != initial.position_key() else []
        if self._process is None or not self._process.alive:
            self.close()  # one that died or was given up on
            self._process = EngineProcess(self.args, "GTP")
            name = self._command("name")
            if name:
                self.name = f"gtp:{name}"
        self._command(f"boardsize {width}")
        self._command("clear_board")
        told = self._byo_yomi_seconds()
        if told is not None:
            self._command(f"time_settings 0 {told} 1")
        self._state = initial
        self._expected = None
        for move in setup:
            self.observe(move)

    def choose(self, state: State) -> int:
        mirror = self._require()
        if mirror.position_key() != state.position_key():
            raise ValueError(
                "GTPEnginePlayer.choose: the position is not the one the engine was told of; "
                "every move must be passed to observe()."
            )
        color = "bw"[state.current_player]
        answer = self._command(f"genmove {color}", self.move_seconds)
        if answer.lower() == "resign":
            raise EngineResignedError(
                f"The {self._label()} resigned as {state.spec.player_names[state.current_player]}.",
                state.current_player,
            )
        try:
            move = from_vertex(state, answer)
        except ValueError as error:
            raise EngineError(
                f"The {self._label()} answered genmove {color} with {answer!r}: {error}.\n{state}"
            ) from None
        self._expected = move
        return move

    def observe(self, move: int) -> None:
        mirror = self._require()
        move = int(move)
        if self._expected is not None and move != self._expected:
            self._command("undo")  # the engine played its own choice on its board
        if move != self._expected:
            self._command(f"play {'bw'[mirror.current_player]} {to_vertex(mirror, move)}")
        self._expected = None
        mirror.play(move)

    def close(self) -> None:
        if self._process is not None:
            self._process.close(["quit"])
            self._process = None

    def _command(self, command: str, timeout: float | None = None) -> str:
        """Send ``command`` with an id and return its success response (a failure raises)."""
        process = self._process
        assert process is not None
        ident = next(self._ids)
        process.send(f"{ident} {command}")
        deadline = Deadline.after(self.startup_seconds if timeout is None else timeout)
        line = ""
        while not line:
            line = process.receive(deadline, command).strip()
        match = re.match(r"^([=?])([0-9]*)\s*(.*)$", line)
        if match is None or match.group(2) != str(ident):
            raise process.protocol_error(line, f"a response ={ident} or ?{ident} to {command!r}")
        lines = [match.group(3)]
        while True:
            more = process.receive(deadline, command)
            if not more.strip():
                break
            lines.append(more)
        if match.group(1) == "?":
            raise EngineError(f"The {process.label} failed {command!r}: {' '.join(lines)}")
        return "\n".join(lines).strip()

    def _byo_yomi_seconds(self) -> int | None:
        """The whole seconds a move that ``time_settings`` tells the engine, if any."""
        if self.seconds_per_move is None:
            return None
        return max(1, round(self.seconds_per_move))

    def _label(self) -> str:
        return self._process.label if self._process is not None else self.name

    def _require(self) -> State:
        if self._process is None or self._state is None:
            raise ValueError("The GTP engine has not been started: call start(state) first.")
        return self._state


def _setup_moves(state: State) -> list[int]:
    """Moves that rebuild a Gomoku position, its stones in turn (see
    :func:`~mctslab.games.gomoku.moves_in_turn`, which refuses counts that moves in turn
    cannot leave)."""
    if not isinstance(state, GomokuState):
        raise ValueError(
            f"A GTP engine can be given a {state.spec.name} game only from its initial position "
            "(GTP cannot set up a position reached by unknown moves)."
        )
    grid = state.board()
    width = state.width
    black = [int(row * width + column) for row, column in zip(*(grid == 1).nonzero(), strict=True)]
    white = [int(row * width + column) for row, column in zip(*(grid == 2).nonzero(), strict=True)]
    return moves_in_turn(black, white)
