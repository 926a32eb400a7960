"""The game protocol: a spec of static facts, a compiled kernel, and the State wrapper.

A game's rules are written once, as numba functions over an ``int64`` state
array (see :mod:`mctslab.kernel`, the public face of :mod:`mctslab._jit`).
:class:`State` wraps such an array with the checked, user-facing protocol;
search engines use the unchecked ``apply``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, ClassVar, Literal, NamedTuple, Self, get_args

import numpy as np
from numba.core.dispatcher import Dispatcher

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    first_outside,
    new_rng,
)
from mctslab._validation import check_choice, check_instance, check_int, invalid


class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position."""


class InvalidMoveError(ValueError):
    """Text, or a move id, that does not name a move of the game."""


class GameOverError(ValueError):
    """A move was asked of a finished game."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` is a player index, or None for a draw.

    A one-player game has no winner and is no draw: its ``returns`` say how well
    it went.
    """

    winner: int | None
    reason: str
    returns: tuple[float, ...]

    @property
    def is_draw(self) -> bool:
        return self.winner is None and len(self.returns) > 1


#: How far a return may be from a whole step of its spec's ``return_steps``
#: (in steps) and still count as on it: float noise, not a different value.
#: The compiled search loop holds it as a constant: after changing it, clear
#: numba's cache (the ``__pycache__`` folders), which does not notice.
STEP_TOLERANCE = 1e-6


@dataclass(frozen=True)
class GameSpec:
    """Static facts about a game with its parameters."""

    name: str
    num_players: int
    #: Move ids are integers in ``range(num_actions)``.
    num_actions: int
    #: An upper bound on the number of moves in any game.
    max_game_length: int
    min_return: float
    max_return: float
    zero_sum: bool
    #: Names of the players, in index order.
    player_names: tuple[str, ...]
    #: ``(rows, columns)`` for board games, None otherwise.
    board_shape: tuple[int, int] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    #: Every return is ``min_return + k * (max_return - min_return) / return_steps``
    #: for a whole k: 2 for win, draw and loss. The compiled engine counts value
    #: sums in these steps, exactly (see :mod:`mctslab.fast._tree`).
    return_steps: int = 2

    def __post_init__(self) -> None:
        owner = "GameSpec"
        check_instance(self.name, "name", owner, str, "a str")
        check_int(self.num_players, "num_players", owner, low=1)
        check_int(self.num_actions, "num_actions", owner, low=1)
        check_int(self.max_game_length, "max_game_length", owner, low=1)
        check_return_range(self)  # names both ends, whether one is no number or not finite
        check_instance(self.zero_sum, "zero_sum", owner, bool, "a bool")
        names = self.player_names
        if not (
            isinstance(names, tuple)
            and len(names) == self.num_players
            and all(isinstance(n, str) for n in names)
        ):
            raise ValueError(
                f"The 'player_names' parameter of GameSpec must be a tuple of {self.num_players} "
                f"str, one per player. Got {names!r} instead."
            )
        check_int(self.return_steps, "return_steps", owner, low=1)
        shape = self.board_shape
        if shape is not None and not (
            isinstance(shape, tuple)
            and len(shape) == 2
            and all(
                isinstance(side, Integral) and not isinstance(side, bool) and side > 0
                for side in shape
            )
        ):
            raise ValueError(
                "The 'board_shape' parameter of GameSpec must be None or (rows, columns), two "
                f"ints from 1. Got {shape!r} instead."
            )
        if not isinstance(self.params, Mapping):
            raise invalid("params", owner, "a mapping of names to values", self.params)


def is_player(value: object, players: int) -> bool:
    """Whether ``value`` is a player index of a game of ``players`` (an int, numpy's too, not a
    bool) - what ``current_player`` must be."""
    return not isinstance(value, bool) and isinstance(value, Integral) and 0 <= int(value) < players


def checked_current_player(state: Any) -> int:
    """``state.current_player``; ValueError unless it is a player index of its game.

    Both engines and :func:`~mctslab.games.check_game` ask it of a position:
    the engines index arrays of one entry per player with it (the compiled
    loop unchecked, reading past their ends).
    """
    spec = state.spec
    player = state.current_player
    if not is_player(player, spec.num_players):
        method = " (a property or an attribute, not a method)" if callable(player) else ""
        raise ValueError(
            f"The current_player of {spec.name!r} must be an int in [0, {spec.num_players})"
            f"{method}; got {player!r}."  # no position: its text may look this index up
        )
    return int(player)


def breaks_zero_sum(values: Sequence[float], spec: Any) -> bool:
    """Whether ``values`` do not sum to 0 though ``spec`` says the game is zero-sum.

    In a two-player game that is how a return given from the wrong point of
    view often shows: a win rate in [0, 1] for each side, or one number twice.
    """
    # abs() rather than math.isclose: the generic engine asks this of every simulation.
    return abs(sum(values)) > 1e-9 and bool(getattr(spec, "zero_sum", False))


def first_line(error: BaseException) -> str:
    """An error's message without what follows its first line: the board that a game's
    errors draw after it, for a front end that shows the position itself."""
    return str(error).split("\n", 1)[0]


def os_reason(error: OSError) -> str:
    """Why a file, socket or program could not be used, said once: the system's words
    ("No such file or directory"), not OSError's text, which repeats the errno and path."""
    return error.strerror or str(error)


def check_move_sequence(moves: object, spec: Any) -> None:
    """Raise ValueError unless ``moves``, what a game's ``legal_moves()`` gave, is a sequence.

    The generic engine tests the moves for emptiness and picks from them by
    index: a list or a tuple will do, a numpy array, a set or a generator not.
    """
    if isinstance(moves, Sequence) and not isinstance(moves, str):
        return
    got = type(moves).__name__
    if isinstance(moves, np.ndarray):
        got += " (return its .tolist())"
    raise ValueError(
        f"The legal_moves() of {spec.name!r} must return a sequence such as a list or a tuple "
        f"(the search tests it for emptiness and picks from it by index); got {got}."
    )


def check_return_range(spec: Any) -> None:
    """Raise ValueError unless ``spec``'s returns have a finite range, max_return > min_return.

    Both engines scale returns to [0, 1] by it; ``spec`` is any object with
    ``name``, ``min_return`` and ``max_return``.
    """
    low, high = spec.min_return, spec.max_return
    try:
        fine = math.isfinite(high - low) and high > low
    except TypeError:
        fine = False
    if not fine:
        raise ValueError(
            f"The spec of {spec.name!r} must have finite returns with max_return > min_return "
            f"to scale them to [0, 1]; got min_return={low!r}, max_return={high!r}."
        )


def _array_kind(data: object) -> str:
    if not isinstance(data, np.ndarray):
        return repr(type(data).__name__)
    order = "C-contiguous" if data.flags.c_contiguous else "not contiguous"
    access = "" if data.flags.writeable else "read-only "
    return f"a {data.ndim}-dimensional {order} {access}array of {data.dtype}"


#: The playouts a search knows by name (``SearchConfig.playout``), from the simplest up: a
#: kernel's ``rollout`` is the random one and its ``playouts`` hold those of the others it
#: has; a search asked for one that a kernel lacks plays the next one down.
Playout = Literal["random", "decisive", "threats"]
PLAYOUTS: tuple[Playout, ...] = get_args(Playout)


class Kernel(NamedTuple):
    """A game's compiled rules; every function has its signature in :mod:`mctslab.kernel`.

    The fields after ``rollout`` are optional game knowledge that the compiled
    engine's playing-strength options use where a game offers it (see
    :class:`mctslab.core.SearchConfig`); None means the game has none.
    """

    legal_moves: Any
    apply: Any
    is_terminal: Any
    returns: Any
    current_player: Any
    #: The uniformly random playout.
    rollout: Any
    #: ``winning_move(state) -> move``: a legal move with which the player to move wins by
    #: force, or -1: it ends the game won, or after every reply a move that wins at once or
    #: that it gives again wins so in turn (see :mod:`mctslab.kernel`; the solver trusts it).
    winning_move: Any = None
    #: Other playouts by name (``"decisive"``, ``"threats"``: see :data:`PLAYOUTS`), each
    #: with the rollout signature.
    playouts: Mapping[str, Any] | None = None
    #: ``candidate_moves(state, out) -> count``: the legal moves worth searching (some of
    #: them, each once, never none while the game goes on, winning_move's move among them),
    #: e.g. Gomoku's cells near stones.
    candidate_moves: Any = None
    #: Whether GRAVE (``SearchConfig.rave``) is on when the settings leave it to the
    #: game: where the arena measured it stronger (see benchmarks/STRENGTH.md).
    prefers_rave: bool = False
    #: The playout (``SearchConfig.playout``) when the settings leave it to the game: one of
    #: :data:`PLAYOUTS`.
    preferred_playout: str = "decisive"

    def playout_fields(self) -> list[tuple[str, Any]]:
        """Every playout with the field that holds it: ``("rollout", ...)``, then
        ``("playouts['decisive']", ...)`` and so on."""
        named = (self.playouts or {}).items()
        return [("rollout", self.rollout), *((f"playouts[{k!r}]", f) for k, f in named)]


#: Each function field of :class:`Kernel`, with its signature and that signature's name in
#: :mod:`mctslab.kernel`.
_SIGNATURES = {
    "legal_moves": (LEGAL_MOVES_SIG, "LEGAL_MOVES_SIG"),
    "apply": (APPLY_SIG, "APPLY_SIG"),
    "is_terminal": (IS_TERMINAL_SIG, "IS_TERMINAL_SIG"),
    "returns": (RETURNS_SIG, "RETURNS_SIG"),
    "current_player": (CURRENT_PLAYER_SIG, "CURRENT_PLAYER_SIG"),
    "rollout": (ROLLOUT_SIG, "ROLLOUT_SIG"),
    "winning_move": (WINNING_MOVE_SIG, "WINNING_MOVE_SIG"),
    "candidate_moves": (LEGAL_MOVES_SIG, "LEGAL_MOVES_SIG"),
}


def check_kernel(kernel: Kernel) -> None:
    """Raise TypeError unless every function of ``kernel`` is numba-compiled for its signature,
    and ValueError for a playout name a search does not know (see :data:`PLAYOUTS`).

    The compiled engine passes them to its loop as first-class functions, which
    numba accepts only with the exact signature; anything else fails deep in
    numba with a message listing the loop's forty-odd argument types. A function
    compiled lazily (``@njit`` with no signature) is compiled here for its own
    (its result cast to the signature's type, as numba casts). A playout of
    another name would never be played, and a preferred one the search could
    not place among the others.
    """
    check_instance(kernel, "kernel", "check_kernel", Kernel, "a Kernel")
    check_choice(kernel.preferred_playout, "preferred_playout", "Kernel", PLAYOUTS)
    besides_rollout = PLAYOUTS[1:]  # the rollout is the random one
    for name in kernel.playouts or {}:
        if name not in besides_rollout:
            raise invalid(
                "playouts",
                "Kernel",
                f"None or a mapping from {' or '.join(map(repr, besides_rollout))} to a "
                f"playout (the rollout is the {PLAYOUTS[0]!r} one)",
                name,
            )
    others = [name for name in _SIGNATURES if name != "rollout"]  # the playouts come below
    fields = [(f"Kernel.{name}", getattr(kernel, name), name) for name in others]
    fields += [(f"Kernel.{field}", f, "rollout") for field, f in kernel.playout_fields()]
    for what, function, kind in fields:
        if function is None and kind in ("winning_move", "candidate_moves"):
            continue
        signature, name = _SIGNATURES[kind]
        needed = f"@njit({name}) from mctslab.kernel, that is {signature}"
        if not isinstance(function, Dispatcher):
            raise TypeError(f"{what} must be numba-compiled ({needed}); got {function!r}.")
        try:
            function.get_compile_result(signature)
        except Exception as error:  # numba's typing errors have no common base
            raise TypeError(f"{what} does not compile as {needed}:\n{error}") from None


#: Room past ``num_actions`` in the array a kernel lists moves into from Python: a kernel
#: that lists more moves than its spec has ids (the spec's ``num_actions`` too small) then
#: writes into it, and is caught by the count it returns, rather than past the array.
SPARE_MOVES = 1024


def list_moves(function: Any, data: np.ndarray, spec: GameSpec, field: str) -> list[int]:
    """The moves the kernel's ``field`` function (``legal_moves`` or ``candidate_moves``)
    lists in position ``data``.

    Raises ValueError when it lists more moves than ``spec.num_actions`` or a
    move id outside ``range(num_actions)``: the compiled engine's arrays have
    room for those alone, and its loop does not check.
    """
    size = spec.num_actions
    out = np.empty(size + SPARE_MOVES, dtype=np.int64)
    count = int(function(data, out))
    what = f"{spec.name}: Kernel.{field}"
    if count < 0:
        raise ValueError(f"{what} listed {count} moves: a count of moves is 0 or more.")
    if count > size:
        raise ValueError(
            f"{what} listed {count} moves, more than spec.num_actions ({size}): the spec "
            "must count every move id of the game."
        )
    bad = first_outside(out, count, size)
    if bad >= 0:
        raise ValueError(
            f"{what} lists move id {out[bad]}, outside the move ids 0 to {size - 1} "
            "(spec.num_actions)."
        )
    return out[:count].tolist()


class State:
    """A game position. Subclasses give the kernel, the notation and the rendering.

    ``apply`` is unchecked (for search); ``play`` and ``parse_move`` check their
    input and raise :class:`IllegalMoveError` / :class:`InvalidMoveError`, and
    :class:`GameOverError` once the game is over.
    """

    kernel: ClassVar[Kernel]
    #: Header fields that record history (the last move) rather than the position.
    history_fields: ClassVar[tuple[int, ...]] = ()
    __slots__ = ("_data", "spec")

    def __init__(self, spec: GameSpec, data: np.ndarray) -> None:
        check_instance(spec, "spec", type(self).__name__, GameSpec, "a GameSpec")
        if not (
            isinstance(data, np.ndarray)
            and data.dtype == np.int64
            and data.ndim == 1
            and data.flags.c_contiguous
            and data.flags.writeable
        ):
            raise TypeError(
                f"The state of {type(self).__name__} must be a one-dimensional C-contiguous "
                f"writeable numpy array of int64 (the kernel's signatures; another state's "
                f".data is a read-only view: copy it); got {_array_kind(data)}."
            )
        self.spec = spec
        self._data = data

    # -- the protocol -------------------------------------------------------
    @property
    def current_player(self) -> int:
        """Index of the player to move (meaningless once the game is over)."""
        return int(self.kernel.current_player(self._data))

    def legal_moves(self) -> list[int]:
        """The legal move ids; empty when the game is over.

        Raises ValueError when the kernel lists more than ``spec.num_actions``
        moves or an id outside ``range(num_actions)``.
        """
        return list_moves(self.kernel.legal_moves, self._data, self.spec, "legal_moves")

    def apply(self, move: int) -> None:
        """Play ``move`` in place without checking its legality (the fast path for search).

        Only its range is checked: an id outside ``range(spec.num_actions)``
        raises InvalidMoveError, since the compiled rules would write outside
        the board. A legal move is the caller's promise.
        """
        self._check_id(move)
        self.kernel.apply(self._data, move)

    def play(self, move: int | str) -> None:
        """Play ``move`` (an id or the game's notation) in place, checking it first: an id
        outside ``range(spec.num_actions)`` raises InvalidMoveError, as ``apply`` does."""
        if self.is_terminal():
            raise GameOverError(f"The game is over; no move can be played.\n{self}")
        if isinstance(move, str):
            move_id = self.parse_move(move)
        else:
            move_id = self._move_id(move, f" or text in {self.spec.name} notation")
            if move_id not in self.legal_moves():
                raise IllegalMoveError(
                    f"Move {move!r} is not legal for {self._player_name()} in this position; "
                    f"legal moves: {legal_summary(self)}\n{self}"
                )
        self.apply(move_id)

    def is_terminal(self) -> bool:
        return bool(self.kernel.is_terminal(self._data))

    def returns(self) -> tuple[float, ...]:
        """One value per player; in ``[spec.min_return, spec.max_return]``.

        Raises ValueError when the kernel leaves a player's return unwritten
        (a draw's, say): the array it writes into starts as NaN, so that such a
        kernel is named here, by :func:`~mctslab.games.check_game` and before a
        compiled search, rather than read as zeros.
        """
        out = np.full(self.spec.num_players, np.nan)
        self.kernel.returns(self._data, out)
        values = tuple(out.tolist())
        # tolist() and map(): no slower than the unchecked conversion (the generic engine
        # calls this once a simulation).
        if any(map(math.isnan, values)):
            unwritten = [player for player, value in enumerate(values) if math.isnan(value)]
            names = ", ".join(f"out[{p}] ({self.spec.player_names[p]})" for p in unwritten)
            raise ValueError(
                f"{self.spec.name}: Kernel.returns left {names} unwritten: it must write every "
                f"player's return, a draw's too (the array it is given may hold anything).\n{self}"
            )
        return values

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if not self.is_terminal():
            return None
        values = self.returns()
        winner: int | None = None
        if self.spec.num_players > 1:
            best = max(values)
            if values.count(best) == 1:
                winner = values.index(best)
        return Outcome(winner=winner, reason=self._end_reason(winner), returns=values)

    def clone(self) -> Self:
        # Past __init__: the search clones often, and this array has been checked already.
        clone = object.__new__(type(self))
        clone.spec, clone._data = self.spec, self._data.copy()
        return clone

    def parse_move(self, text: str) -> int:
        """The move id for ``text``; raises InvalidMoveError, IllegalMoveError, or
        GameOverError in a finished game, whatever the text (as ``play`` does)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"A move must be given as text; got {text!r}.")
        # Before the notation: a move's notation can depend on the position (the numbers
        # game's amounts on the turn), so past the end the text would read as no move at all.
        if self.is_terminal():
            raise GameOverError(f"The game is over; {text!r} cannot be played.\n{self}")
        cleaned = text.strip()
        # Notation is ASCII, and lower() makes "k" of the Kelvin sign, say.
        move = self._parse_notation(cleaned.lower()) if cleaned.isascii() else None
        if move is None:
            raise InvalidMoveError(
                f"{text!r} is not a move in {self.spec.name} notation ({self.notation_help()})."
            )
        if move not in self.legal_moves():
            raise IllegalMoveError(
                f"{text!r} is not legal for {self._player_name()} in this position; "
                f"legal moves: {legal_summary(self)}\n{self}"
            )
        return move

    def move_to_str(self, move: int) -> str:
        """The game's notation for ``move``; InvalidMoveError if it is not a move id."""
        return self._format_move(self._move_id(move))

    def random_playout(self, seed: int | None = None) -> None:
        """Play uniformly random moves to the end of the game, in place (compiled)."""
        self.kernel.rollout(self._data, new_rng(seed), np.empty(0, dtype=np.int64))

    # -- values, hashing, pickling --------------------------------------------
    @property
    def data(self) -> np.ndarray:
        """A read-only view of the kernel's state array."""
        view = self._data.view()
        view.flags.writeable = False
        return view

    def position_key(self) -> bytes:
        """Bytes that identify the position (history fields such as the last move left out)."""
        return self._data[self.position_words()].tobytes()

    def position_words(self) -> np.ndarray:
        """Indices of the state array that identify the position: all but the history fields.

        Two states hold equal values there exactly when they are the same
        position; the compiled engine hashes these words to find transpositions.
        """
        keep = np.ones(self._data.shape[0], dtype=bool)
        keep[list(self.history_fields)] = False
        return np.flatnonzero(keep)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, State)
            and np.array_equal(self._data, other._data)
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._data.tobytes()))

    def __getstate__(self) -> tuple[GameSpec, np.ndarray]:
        return (self.spec, self._data)

    def __setstate__(self, state: tuple[GameSpec, np.ndarray]) -> None:
        self.spec, self._data = state

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec.name} to move: {self._player_name()}>"

    # -- what each game supplies ---------------------------------------------
    def _parse_notation(self, text: str) -> int | None:
        """The move id for lower-cased, stripped ``text``, or None if malformed.

        Notation is ASCII: :meth:`parse_move` refuses text with other characters
        before it gets here, so ``str.isdigit`` and the like see ASCII alone.
        """
        raise self._missing("_parse_notation(self, text: str) -> int | None")

    def _format_move(self, move: int) -> str:
        """The notation of move id ``move`` (what ``_parse_notation`` reads back)."""
        raise self._missing("_format_move(self, move: int) -> str")

    def notation_help(self) -> str:
        """One line telling a person how to write a move in this position."""
        raise self._missing("notation_help(self) -> str")

    def _end_reason(self, winner: int | None) -> str:
        """How the game ended, for ``outcome()``: ``winner`` is a player index, None for a draw
        (and in a one-player game)."""
        raise self._missing("_end_reason(self, winner: int | None) -> str")

    def __str__(self) -> str:
        """The position as text."""
        raise self._missing("__str__(self) -> str")

    def _missing(self, method: str) -> NotImplementedError:
        return NotImplementedError(
            f"{type(self).__name__} must define {method} (a State subclass gives each game's "
            "notation and text; see mctslab.kernel)."
        )

    def render(self, *, width: int | None = None) -> str:
        """The position as text for a terminal ``width`` characters wide: the grid games
        draw a compact board where theirs would not fit; ``str()`` is ``render()``."""
        return str(self)

    # -- helpers ----------------------------------------------------------------
    def _move_id(self, move: object, or_text: str = "") -> int:
        """``move`` as a move id of this game; InvalidMoveError for anything else (its message
        adds ``or_text`` to what a move must be, for a caller that takes text too)."""
        move_id = _int_move(move, or_text)
        self._check_id(move_id)
        return move_id

    def _check_id(self, move: int) -> None:
        """InvalidMoveError unless ``move`` is in ``range(spec.num_actions)``."""
        if not 0 <= move < self.spec.num_actions:
            raise InvalidMoveError(
                f"{move!r} is not a move id of {self.spec.name}: ids are 0 to "
                f"{self.spec.num_actions - 1}."
            )

    def _player_name(self) -> str:
        if self.is_terminal():
            return "nobody (game over)"
        return self.spec.player_names[self.current_player]


def legal_summary(state: Any, limit: int = 12) -> str:
    """The legal moves of ``state`` (any game with ``legal_moves`` and ``move_to_str``) in its
    notation, the first ``limit`` of them, for error messages."""
    moves = [state.move_to_str(m) for m in state.legal_moves()]
    if not moves:
        return "none"
    shown = " ".join(moves[:limit])
    return shown + (f" ... ({len(moves)} in all)" if len(moves) > limit else "")


def _int_move(move: object, or_text: str = "") -> int:
    """``move`` as an int (a bool or a float is refused, not truncated); InvalidMoveError if not."""
    if isinstance(move, bool) or not isinstance(move, int | np.integer):
        raise InvalidMoveError(f"A move must be an int id{or_text}; got {move!r}.")
    return int(move)
