"""The NBoard protocol for Othello: ``mctslab nboard``, and NBoard engines as players.

Spec: Chris Welty, "NBoard Protocol" (protocol version 2), shipped with
NBoard and Ntest: https://github.com/weltyc/ntest/blob/master/instructions/Protocol.htm
(also http://www.orbanova.com/downloads/NBoard.zip). The points it settles:

- the GUI sends ``nboard 2`` first, then ``set depth`` and ``set game``
  before any ``hint`` or ``go``; a command the engine does not understand is
  ignored (here it is logged to stderr);
- ``set game {GGF}`` sets the position at the end of a GGF game
  (``BO[8 <64 squares> <side to move>]`` with ``-`` empty, ``*`` black, ``O``
  white, then ``B[F5]W[D6]...``, each move optionally ``/eval/time``, ``PA``
  a pass); ``move {move}[/eval/time]`` plays a move (protocol 1 sent just
  the two characters, which is read too);
- ``go`` asks for the move the engine would play, answered
  ``=== {move}/{eval}/{time}``; the engine does *not* play it, the GUI sends
  ``move`` when it is played;
- ``hint n`` asks for evaluations of about the ``n`` best moves, each
  ``search {pv} {eval} 0 {depth}`` (the PV begins with the move and holds no
  spaces); ``ping n`` is answered ``pong n``, a search under way stopped
  first ("stop thinking and respond with pong n"); ``learn`` is answered
  ``learned``; ``analyze`` is answered by ``analysis {moves made} {eval}``
  for each position of the game (its eval for Black, as NBoard reads it); ``set
  contempt`` may be ignored;
- the engine may send ``status {text}`` (the GUI's status line), ``set myname
  {name}`` and ``nodestats {nodes} {seconds}``.

Evaluations: MCTS estimates a win probability ``p`` for the side to move,
not a disc margin. It is reported on the disc scale as ``64 * (2p - 1)``:
+64 a sure win, 0 even, -64 a sure loss. Depth: MCTS has none, so
``set depth d`` sets the simulations a move to ``1000 * d**2`` (d = 1:
1,000; 10: 100,000; 20: 400,000), capped by ``--seconds`` (1 s by default);
``--iterations`` replaces the mapping; the game clock ``set game`` may
carry (GGF ``TI``/``TB``/``TW``) is not read. A command that cannot be carried out
(an illegal move, a malformed GGF) is answered with ``status Error: ...``,
the only place the protocol gives for it.

A command a ping cancels (a ``go``, ``hint`` or ``analyze`` still searching
when the ping arrives) sends nothing more but ``status``, which clears the
status line: no ``nodestats``, ``===``, ``search`` or ``analysis`` line comes
from a search the ping stopped. NBoard drops what an engine sends before the
pong of its latest ping, as being about a position it has left
(``EngineSynchronizer`` in https://github.com/weltyc/nboard), and a search
stopped at once may have played a single game, whose result (+64 or -64) is
no evaluation.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import count

from mctslab.core.result import SearchResult
from mctslab.games import State, make
from mctslab.games.othello import PASS, SIZE, OthelloState, from_discs
from mctslab.protocols._process import (
    Deadline,
    EngineError,
    EngineProcess,
    command_args,
    program_name,
)
from mctslab.protocols._serve import (
    Log,
    Thinker,
    failure_message,
    log_to_stderr,
    verdict,
)
from mctslab.records import whole_number

NAME = "mctslab"
PROTOCOL_VERSION = 2
#: ``set depth d`` searches this many simulations times d squared.
DEPTH_ITERATIONS = 1000
DEFAULT_DEPTH = 10
MAX_DEPTH = 60
#: The disc scale an evaluation is reported on.
DISC_SCALE = 64.0
_PROPERTY = re.compile(r"([A-Za-z]+)\[([^\]]*)\]")
#: A bare move of protocol version 1: a square, or PA for a pass (Ntest reads any two characters).
_BARE_MOVE = re.compile(r"^([a-hA-H][1-8]|[pP][aA])$")


def depth_iterations(depth: int) -> int:
    """Simulations a move for NBoard's ``set depth``."""
    return DEPTH_ITERATIONS * depth * depth


def to_disc_scale(value: float) -> float:
    """A win probability for the side to move, on NBoard's disc scale [-64, 64]."""
    return DISC_SCALE * (2.0 * value - 1.0)


def square_name(move: int) -> str:
    """A move as NBoard writes it: ``F5``, or ``PA`` for a pass."""
    if move == PASS:
        return "PA"
    row, column = divmod(move, SIZE)
    return f"{'ABCDEFGH'[column]}{row + 1}"


def _new_othello() -> OthelloState:
    state = make("othello")
    assert isinstance(state, OthelloState)
    return state


# -- GGF ------------------------------------------------------------------------
def parse_ggf(text: str) -> tuple[OthelloState, list[int]]:
    """The start position and the moves of a GGF Othello game (the first one in ``text``).

    Format: Michael Buro's Generic Game Format, https://www.skatgame.net/mburo/ggsa/ggf.
    Without ``BO`` the game starts from the standard position. A pass may be
    written ``PA`` or left out when forced (the colours of the moves show it).
    """
    begin = text.find("(;")
    end = text.find(";)", begin + 2)
    if begin < 0 or end < 0:
        raise ValueError(f"a GGF game is written (; ... ;); got {text.strip()[:60]!r}")
    start: OthelloState | None = None
    state: OthelloState | None = None
    moves: list[int] = []
    for key, value in _PROPERTY.findall(text[begin + 2 : end]):
        key = key.upper()
        if key == "GM" and value.strip().lower() != "othello":
            raise ValueError(f"GGF game GM[{value}] is not Othello")
        if key == "TY" and re.match(r"\D*8(\D|$)", value.strip()) is None:
            raise ValueError(f"GGF board type TY[{value}] is not 8x8 Othello")
        if key == "BO":
            if state is not None:
                raise ValueError("GGF BO[...] must come before the moves")
            start = _parse_board(value)
            state = start.clone()
        if key in ("B", "W"):
            if state is None:
                start = _new_othello()
                state = start.clone()
            moves.extend(_ggf_move(state, 0 if key == "B" else 1, value, len(moves) + 1))
    if start is None:
        start = _new_othello()
    return start, moves


def format_ggf(start: OthelloState, moves: Sequence[int] = ()) -> str:
    """A GGF game from ``start`` through ``moves`` (ids), as NBoard's ``set game`` carries it."""
    black, white = start.disc_masks()
    squares = "".join(
        "*" if black >> square & 1 else "O" if white >> square & 1 else "-"
        for square in range(SIZE * SIZE)
    )
    to_move = "*" if start.current_player == 0 else "O"
    parts = [f"(;GM[Othello]PC[{NAME}]TY[8]BO[8 {squares} {to_move}]"]
    state = start.clone()
    for move in moves:
        parts.append(f"{'BW'[state.current_player]}[{square_name(move)}]")
        state.play(move)
    return "".join(parts) + ";)"


def _parse_board(value: str) -> OthelloState:
    size, _, rest = value.strip().partition(" ")
    cells = "".join(rest.split())
    if size != str(SIZE) or len(cells) != SIZE * SIZE + 1:
        raise ValueError(f"GGF BO[{value}] is not an 8x8 board and a side to move")
    black = white = 0
    for square, cell in enumerate(cells[:-1]):
        if cell == "*":
            black |= 1 << square
        elif cell in "Oo":
            white |= 1 << square
        elif cell != "-":
            raise ValueError(f"GGF BO[...] square {square + 1} is {cell!r}, not -, * or O")
    if cells[-1] not in "*Oo":
        raise ValueError(f"GGF BO[...] side to move is {cells[-1]!r}, not * or O")
    return from_discs(black, white, 0 if cells[-1] == "*" else 1)


def _ggf_move(state: OthelloState, player: int, value: str, number: int) -> list[int]:
    """Play one GGF move of ``player`` (in place); the ids played, a forced pass made explicit."""
    text = value.split("/", 1)[0].strip().lower()
    text = "pass" if text in ("pa", "ps") else text
    played: list[int] = []
    if player != state.current_player and text != "pass" and state.legal_moves() == [PASS]:
        state.apply(PASS)
        played.append(PASS)
    if player != state.current_player:
        raise ValueError(
            f"GGF move {number} {'BW'[player]}[{value}]: it is "
            f"{state.spec.player_names[state.current_player]}'s turn"
        )
    try:
        move = state.parse_move(text)
    except ValueError as error:
        raise ValueError(f"GGF move {number} {'BW'[player]}[{value}]: {error}") from None
    state.apply(move)
    return [*played, move]


# -- the engine -------------------------------------------------------------------
class _Cancelled(Exception):
    """A ping stopped the search of the command being handled: it sends nothing more."""


class NBoardEngine:
    """The engine side: ``handle(line)`` yields the lines to answer (often none).

    The lines are produced as they come, so that ``status ... thinking``
    reaches the GUI before a search: iterate the result, or nothing happens.
    """

    def __init__(self, thinker: Thinker, *, log: Log = log_to_stderr) -> None:
        self.thinker = thinker
        self.finished = False
        self.depth = DEFAULT_DEPTH
        self._log = log
        self._start = _new_othello()
        self._moves: list[int] = []
        self._state = self._start.clone()
        #: Set while a ping that has arrived (see :meth:`hear`) is not yet answered; pings
        #: heard and not yet answered are counted, so that the first answer does not clear
        #: it while a later ping still waits behind the commands it cancels.
        self._ping_heard = threading.Event()
        self._pings_waiting = 0
        self._pings_lock = threading.Lock()
        self._commands: dict[str, Callable[[str], Iterable[str]]] = {
            "nboard": lambda _: [f"set myname {NAME}"],
            "set": self._set,
            "move": self._move,
            "go": lambda _: self._go(),
            "hint": self._hint,
            "ping": self._ping,
            "learn": lambda _: ["learned"],
            "analyze": lambda _: self._analyze(),
            "quit": self._quit,
        }

    def hear(self, line: str) -> None:
        """See a line as it arrives, before the lines ahead of it are handled: a ``ping``
        stops the search under way ("stop thinking and respond with pong", the protocol
        says), and any search begun before the ping is answered; their commands send
        nothing more (see the module's docstring)."""
        if line.strip().lower().startswith("ping"):
            with self._pings_lock:
                self._pings_waiting += 1
                self._ping_heard.set()

    def handle(self, line: str, arrived: float | None = None) -> Iterator[str]:
        """The answer to ``line``; when it ``arrived`` does not matter, as NBoard keeps no
        clock (the depth and ``--seconds`` bound a search)."""
        text = line.strip()
        if not text:
            return
        word, _, argument = text.partition(" ")
        action = self._commands.get(word.lower())
        if action is None and _BARE_MOVE.match(word) and not argument:
            action = self._move  # protocol version 1 sent a bare move
            argument = word
        if action is None:
            self._log(f"nboard: ignoring unknown command {text!r}")
            return
        try:
            yield from action(argument.strip())
        except _Cancelled:
            yield "status"  # no answer follows to clear "... is thinking"
        except Exception as error:
            message = failure_message(error, self._log)
            self._log(f"nboard: {text!r}: {message}")
            yield f"status Error: {message}"

    # -- commands ---------------------------------------------------------------
    def _set(self, argument: str) -> list[str]:
        key, _, value = argument.partition(" ")
        key, value = key.lower(), value.strip()
        if key == "depth":
            try:
                depth = whole_number(value)
            except ValueError:
                raise ValueError(f"set depth takes a whole number; got {value!r}") from None
            if depth < 1:
                raise ValueError(f"set depth takes a depth of 1 or more; got {depth}")
            self.depth = min(depth, MAX_DEPTH)
        elif key == "game":
            self._start, self._moves = parse_ggf(value)
            self._state = self._replay(len(self._moves))
            self.thinker.reset()
        elif key != "contempt":  # MCTS scores a draw as half a win; contempt is ignored
            self._log(f"nboard: ignoring unknown setting {argument!r}")
        return []

    def _move(self, argument: str) -> list[str]:
        text = argument.split("/", 1)[0].strip().lower()
        move = self._state.parse_move("pass" if text in ("pa", "ps") else text)
        self._state.apply(move)
        self._moves.append(move)
        self.thinker.advance(move)
        return []

    def _go(self) -> Iterator[str]:
        self._check_going_on(self._state)
        yield f"status {NAME} is thinking"
        result = self._search(self._state)
        seconds = f"{result.seconds:.2f}"
        yield f"nodestats {result.simulations} {seconds}"
        # The GUI clears the status line itself when it reads the move.
        yield f"=== {square_name(result.best_move)}/{to_disc_scale(result.value):.2f}/{seconds}"

    def _hint(self, argument: str) -> Iterator[str]:
        try:
            wanted = max(1, whole_number(argument or "1"))
        except ValueError:
            raise ValueError(f"hint takes a number of moves; got {argument!r}") from None
        self._check_going_on(self._state)
        yield f"status {NAME} is analysing"
        result = self._search(self._state)
        for stats in result.moves[:wanted]:
            if stats.move == result.best_move:
                pv = "-".join(square_name(move) for move in result.pv)
            else:
                pv = square_name(stats.move)
            yield f"search {pv} {to_disc_scale(stats.value):.2f} 0 {self.depth}"
        yield "status"

    def _analyze(self) -> Iterator[str]:
        """Evaluate every position of the game, last first (a retrograde analysis), for Black:
        NBoard reads an ``analysis`` evaluation as "positive numbers mean black is ahead"
        (its engines' ``analysis`` listener), unlike ``search`` and ``===``, whose
        evaluations are for the side to move."""
        yield f"status {NAME} is analysing the game"
        try:
            for made in range(len(self._moves), -1, -1):
                state = self._replay(made)
                if state.is_terminal():
                    value = (state.returns()[0] + 1.0) / 2.0
                else:
                    self.thinker.reset()
                    value = self._search(state).value  # for the side to move
                    value = value if state.current_player == 0 else 1.0 - value
                yield f"analysis {made} {to_disc_scale(value):.2f}"
        finally:
            self.thinker.reset()  # the tree is of an earlier position than the game's
        yield "status"

    def _ping(self, argument: str) -> list[str]:
        with self._pings_lock:
            # A ping handled without having been heard (a caller of handle() alone) counts 0.
            self._pings_waiting = max(0, self._pings_waiting - 1)
            if self._pings_waiting == 0:
                self._ping_heard.clear()
        return [f"pong {argument}"]

    def _quit(self, _: str) -> list[str]:
        self.finished = True
        return []

    # -- helpers ----------------------------------------------------------------
    def _search(self, state: OthelloState) -> SearchResult:
        """Search ``state``; raises :class:`_Cancelled` when a ping has stopped the search."""
        result = self.thinker.search(
            state, iterations=depth_iterations(self.depth), stop=self._ping_heard
        )
        if self._ping_heard.is_set():
            raise _Cancelled
        return result

    def _check_going_on(self, state: OthelloState) -> None:
        if state.is_terminal():
            raise ValueError(f"the game is over ({verdict(state)})")

    def _replay(self, moves: int) -> OthelloState:
        state = self._start.clone()
        for move in self._moves[:moves]:
            state.apply(move)
        return state


# -- the client -------------------------------------------------------------------
class NBoardEnginePlayer:
    """An NBoard engine run as a subprocess, as a :class:`~mctslab.players.Player` of Othello.

    - ``command``: the program and its arguments (a list, or a string split
      as a POSIX shell would).
    - ``depth``: sent as ``set depth`` (how hard the engine thinks).
    - ``move_seconds``: how long a ``go`` may take before the engine is given
      up as hung; ``startup_seconds`` bounds the first answer.

    Every move played, its own included, is sent as ``move`` (``go`` does
    not play its move, as the protocol says). Engines that die, time out or
    answer anything but a legal move raise :class:`EngineError`.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        depth: int = DEFAULT_DEPTH,
        move_seconds: float = 60.0,
        startup_seconds: float = 30.0,
    ) -> None:
        self.args = command_args(command, "NBoardEnginePlayer")
        self.depth = depth
        self.move_seconds = move_seconds
        self.startup_seconds = startup_seconds
        self.name = f"nboard:{program_name(self.args)}"
        self._process: EngineProcess | None = None
        self._state: OthelloState | None = None
        self._pings = count(1)

    def start(self, state: State) -> None:
        if not isinstance(state, OthelloState):
            raise ValueError(f"An NBoard engine plays othello; got {state.spec.name}.")
        if self._process is None or not self._process.alive:
            self.close()  # one that died or was given up on
            self._process = EngineProcess(self.args, "NBoard")
            self._process.send(f"nboard {PROTOCOL_VERSION}")
            self._process.send(f"set depth {self.depth}")
        self._state = state.clone()
        self._process.send(f"set game {format_ggf(self._state)}")
        self._sync(self.startup_seconds)

    def choose(self, state: State) -> int:
        process, mirror = self._require()
        if not isinstance(state, OthelloState):
            raise ValueError(f"An NBoard engine plays othello; got {state.spec.name}.")
        if mirror.position_key() != state.position_key():
            # Not the position the engine followed: set it up (GGF holds any position).
            mirror = self._state = state.clone()
            process.send(f"set game {format_ggf(mirror)}")
        self._sync(self.startup_seconds)
        process.send("go")
        deadline = Deadline.after(self.move_seconds)
        while True:
            line = self._next_line(process, deadline, "go")
            if line.startswith("==="):
                break
        answer = line[3:].strip()
        text = answer.replace("/", " ").split(" ", 1)[0].lower()
        try:
            move = mirror.parse_move("pass" if text in ("pa", "ps") else text)
        except ValueError:
            raise EngineError(
                f"The {process.label} answered go with {line!r}, not a legal move here.\n{mirror}"
            ) from None
        return move

    def observe(self, move: int) -> None:
        process, mirror = self._require()
        process.send(f"move {square_name(int(move))}")
        mirror.play(int(move))

    def close(self) -> None:
        if self._process is not None:
            self._process.close(["quit"])
            self._process = None

    def _sync(self, timeout: float) -> None:
        """Ping and wait for the pong: the engine has read everything sent so far."""
        process, _ = self._require()
        ping = next(self._pings)
        process.send(f"ping {ping}")
        deadline = Deadline.after(timeout)
        while self._next_line(process, deadline, f"ping {ping}") != f"pong {ping}":
            pass

    def _next_line(self, process: EngineProcess, deadline: Deadline, command: str) -> str:
        """The engine's next line that is not empty; picks up its name. The callers pass
        over the lines they do not wait for, whatever their kind: NBoard ignores the kinds
        it does not know ("Unknown commands are ignored", ``ParsedEngine`` in
        https://github.com/weltyc/nboard), and an error quotes them among the last lines."""
        while True:
            line = process.receive(deadline, command).strip()
            if line.startswith("set myname "):
                self.name = f"nboard:{line[len('set myname ') :].strip()}"
            if line:
                return line

    def _require(self) -> tuple[EngineProcess, OthelloState]:
        if self._process is None or self._state is None:
            raise ValueError("The NBoard engine has not been started: call start(state) first.")
        return self._process, self._state
