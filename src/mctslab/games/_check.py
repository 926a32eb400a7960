"""Conformance check that every game must pass (in the spirit of OpenSpiel's game tests)."""

from __future__ import annotations

import contextlib
import math
import pickle
import random
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from mctslab._jit import new_rng
from mctslab._validation import check_callable, check_int
from mctslab.games._base import (
    STEP_TOLERANCE,
    IllegalMoveError,
    State,
    breaks_zero_sum,
    check_kernel,
    check_move_sequence,
    checked_current_player,
    legal_summary,
    list_moves,
)

if TYPE_CHECKING:  # the protocol lives with the generic engine, which imports games
    from mctslab.core.protocol import GameState


#: How many moves, of either player, check_game follows a ``winning_move``'s win by
#: force for: the move, a reply, the win that follows it (Gomoku's open fours need
#: three), and two more. A claim that the game outlasts is not refuted.
WIN_CHECK_PLIES = 5


class ConformanceError(AssertionError):
    """A game broke the protocol; the message says where."""


def check_game(new_state: Callable[[], GameState], *, games: int = 20, seed: int = 0) -> None:
    """Play ``games`` random games from ``new_state()`` and check the protocol at every step.

    Any game (:class:`mctslab.core.protocol.GameState`, e.g. one written in
    plain Python for the generic engine): legal moves are a sequence (a list
    or a tuple), unique, and empty exactly at the end; the player to move is in range; clones are
    independent of the original; the game ends within the spec's
    ``max_game_length`` (when it has one); returns have one value per player
    within ``[min_return, max_return]``, a finite range, and sum to zero when
    the spec says ``zero_sum``.

    A bundled-style :class:`State` also: a kernel the compiled engine can
    take (:func:`~mctslab.games._base.check_kernel`); legal move ids in
    ``range(num_actions)``; notation round-trips; an illegal move is refused;
    pickling round-trips; returns, each written by the kernel (a draw's too),
    in whole steps of the spec's ``return_steps`` (what the compiled engine
    counts in); a consistent ``outcome()``; the compiled random playout ends
    the game too. Its game knowledge, where it has some, in every live
    position: ``candidate_moves`` lists some of the legal moves, each once,
    and not none; a move ``winning_move`` gives is legal, one of the
    candidates, and wins by force as :mod:`mctslab.kernel` says: every line
    of replies is followed to the end of the game or for
    :data:`WIN_CHECK_PLIES` moves, and one that refutes the win is named.

    ``new_state`` is a function that returns a new start position each call,
    such as ``lambda: make("tictactoe")`` or a class; ``games`` an int >= 1 and
    ``seed`` an int. Raises ConformanceError at the first broken rule.
    """
    check_callable(
        new_state,
        "new_state",
        "check_game",
        "a function that returns a new start position, such as lambda: make('tictactoe')",
    )
    check_int(games, "games", "check_game", low=1)
    check_int(seed, "seed", "check_game")
    rng = random.Random(seed)
    for game in range(games):
        state = new_state()
        spec = state.spec
        if game == 0 and isinstance(state, State):
            try:
                check_kernel(state.kernel)
            except (TypeError, ValueError) as error:
                raise ConformanceError(f"{spec.name}: {error}") from None
        limit = getattr(spec, "max_game_length", None)
        length = 0
        while not state.is_terminal():
            _check_position(state, rng)
            move = rng.choice(_legal_moves(state))
            original = state.clone()
            if isinstance(state, State):
                state.play(state.move_to_str(move))
            else:
                state.apply(move)
            length += 1
            if state == original:
                raise ConformanceError(f"{spec.name}: playing {move} changed nothing")
            if limit is not None and length > limit:
                raise ConformanceError(
                    f"{spec.name}: game {game} is longer than max_game_length {limit}"
                )
        _check_terminal(state)
        if isinstance(state, State):
            start = new_state()
            assert isinstance(start, State)
            for field, playout in start.kernel.playout_fields():
                _check_playout(start, seed + game, field, playout)


@contextlib.contextmanager
def _kernel_refused(state: GameState) -> Iterator[None]:
    """A ValueError with which a :class:`State` refuses what its kernel gave, as a
    ConformanceError (a game of one's own in Python raises its own errors as they are)."""
    try:
        yield
    except ValueError as error:
        if isinstance(state, State):
            raise ConformanceError(str(error)) from None
        raise


def _legal_moves(state: GameState) -> list[int]:
    """``state.legal_moves()`` as a list; ConformanceError unless it gave a sequence (a
    :class:`State`'s: of at most ``num_actions`` ids in range)."""
    with _kernel_refused(state):  # its kernel listed too many moves, or an id out of range
        moves = state.legal_moves()
    try:
        check_move_sequence(moves, state.spec)
    except ValueError as error:
        raise ConformanceError(str(error)) from None
    return list(moves)


def _returns(state: GameState) -> tuple[float, ...]:
    """``state.returns()`` as a tuple; ConformanceError where a :class:`State` refuses its
    kernel's (one left unwritten)."""
    with _kernel_refused(state):
        return tuple(state.returns())


def _check_position(state: GameState, rng: random.Random) -> None:
    spec = state.spec
    moves = _legal_moves(state)
    if not moves:
        raise ConformanceError(f"{spec.name}: no legal moves in a non-terminal position\n{state}")
    if len(set(moves)) != len(moves):
        raise ConformanceError(f"{spec.name}: a move is listed twice in {moves}\n{state}")
    try:
        player = checked_current_player(state)
    except ValueError as error:
        raise ConformanceError(str(error)) from None
    clone = state.clone()
    if clone is state:
        raise ConformanceError(f"{spec.name}: clone() returned the state itself")
    clone.apply(moves[0])
    if _legal_moves(state) != moves or state.current_player != player:
        raise ConformanceError(f"{spec.name}: a move applied to a clone changed the original")
    if isinstance(state, State):
        _check_state(state, moves, rng)


def _check_state(state: State, moves: list[int], rng: random.Random) -> None:
    """What a bundled-style State promises beyond the protocol, in a live position."""
    spec = state.spec
    for move in moves:
        text = state.move_to_str(move)
        if state.parse_move(text) != move:
            raise ConformanceError(f"{spec.name}: notation {text!r} does not round-trip")
    illegal = sorted(set(range(spec.num_actions)) - set(moves))
    if illegal:
        probe = state.clone()
        try:
            probe.play(rng.choice(illegal))
        except IllegalMoveError:
            pass
        else:
            raise ConformanceError(f"{spec.name}: an illegal move was accepted\n{state}")
        if probe != state:
            raise ConformanceError(f"{spec.name}: a refused move changed the position")
    clone = state.clone()
    clone.apply(moves[0])
    if clone == state:
        raise ConformanceError(f"{spec.name}: applying a move to a clone left it unchanged")
    try:
        restored = pickle.loads(pickle.dumps(state))
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise ConformanceError(
            f"{spec.name}: the position does not pickle ({error}); worker processes and the "
            "arena send positions so: define the State class at the top level of a module"
        ) from None
    if restored != state or restored.legal_moves() != moves:
        raise ConformanceError(f"{spec.name}: pickling does not round-trip")
    candidates = _check_candidates(state, moves)
    _check_winning_move(state, moves, candidates)


def _check_candidates(state: State, moves: list[int]) -> list[int] | None:
    """The kernel's ``candidate_moves`` in a live position (None when it has none): some of
    the legal moves, each once, never none; the compiled search expands them unchecked."""
    if state.kernel.candidate_moves is None:
        return None
    what = f"{state.spec.name}: Kernel.candidate_moves"
    try:
        candidates = list_moves(
            state.kernel.candidate_moves, state._data, state.spec, "candidate_moves"
        )
    except ValueError as error:
        raise ConformanceError(str(error)) from None
    if not candidates:
        raise ConformanceError(f"{what} lists no move, but the game goes on\n{state}")
    legal = set(moves)
    seen: set[int] = set()
    for move in candidates:
        if move not in legal:
            raise ConformanceError(
                f"{what} lists {state.move_to_str(move)}, not a legal move\n{state}"
            )
        if move in seen:
            raise ConformanceError(f"{what} lists {state.move_to_str(move)} twice\n{state}")
        seen.add(move)
    return candidates


def _check_winning_move(state: State, moves: list[int], candidates: list[int] | None) -> None:
    """The kernel's ``winning_move`` in a live position: a legal move (one of the candidate
    moves, which the search expands), whose win by force, which the solver takes on trust,
    :func:`_refutation` does not refute."""
    if state.kernel.winning_move is None:
        return
    claim = int(state.kernel.winning_move(state._data))
    if claim < 0:
        return
    what = f"{state.spec.name}: Kernel.winning_move gives"
    if claim not in moves:
        raise ConformanceError(f"{what} move id {claim}, not a legal move\n{state}")
    text = state.move_to_str(claim)
    if candidates is not None and claim not in candidates:
        raise ConformanceError(
            f"{what} {text}, not one of candidate_moves, which the search expands\n{state}"
        )
    refuted = _refutation(state, claim, state.current_player, WIN_CHECK_PLIES)
    if refuted is not None:
        line, reason = refuted
        raise ConformanceError(
            f"{what} {text}, which does not win by force: after {' '.join(line)}, {reason}\n{state}"
        )


def _refutation(position: State, move: int, mover: int, plies: int) -> tuple[list[str], str] | None:
    """A line from ``position`` through ``move`` after which ``mover`` has not won as
    ``winning_move`` promised, with the reason, or None if there is none in ``plies`` moves.

    The promise: the game ends won for ``mover``, or every move of another player
    keeps it, and ``mover`` to move has a move that wins at once or one that
    ``winning_move`` gives, which keeps it in turn.
    """
    after = position.clone()
    after.apply(move)
    found = _unforced(after, mover, plies - 1)
    if found is None:
        return None
    line, reason = found
    return [position.move_to_str(move), *line], reason


def _unforced(position: State, mover: int, plies: int) -> tuple[list[str], str] | None:
    """:func:`_refutation` from ``position``, reached by the line so far."""
    name = position.spec.player_names[mover]
    if position.is_terminal():
        return None if _won(position, mover) else ([], f"the game ends without a win for {name}")
    if plies == 0:
        return None
    moves = position.legal_moves()
    if position.current_player != mover:
        for reply in moves:
            found = _refutation(position, reply, mover, plies)
            if found is not None:
                return found
        return None
    claim = int(position.kernel.winning_move(position._data))
    if claim >= 0:
        if claim not in moves:
            return [], f"winning_move gives move id {claim}, not a legal move"
        return _refutation(position, claim, mover, plies)
    for move in moves:
        after = position.clone()
        after.apply(move)
        if after.is_terminal() and _won(after, mover):
            return None
    return [], f"{name} has no move that wins at once, and winning_move gives none"


def _won(finished: State, player: int) -> bool:
    """Whether ``player`` won the finished game: a return above every other player's."""
    values = _returns(finished)
    return all(values[player] > value for i, value in enumerate(values) if i != player)


def _check_playout(start: State, seed: int, field: str, playout: Any) -> None:
    """The kernel's compiled ``playout`` (its ``field``) from ``start``: it ends the game,
    and it records its moves with ``record()`` (in order, as many as ``played`` holds, none
    when it holds none, and returns that count), which GRAVE reads; a write past ``played``
    would corrupt memory in a search, so ``played`` is a view of a larger array whose tail
    must stay untouched."""
    what = f"{start.spec.name}: Kernel.{field}"
    limit = start.spec.max_game_length
    for room in (0, 1, limit + 1):
        buffer = np.full(room + limit + 1, -1, dtype=np.int64)
        finish = start.clone()
        count = playout(finish._data, new_rng(seed), buffer[:room])
        if np.any(buffer[room:] != -1):
            raise ConformanceError(
                f"{what} wrote past its played array (room for {room} moves; none while "
                "GRAVE is off): write each move with record()"
            )
        if not 0 <= count <= room:
            raise ConformanceError(
                f"{what} returned {count} with room for {room} moves played: return the "
                "count record() gives"
            )
        _check_terminal(finish)
    replay = start.clone()
    for move in buffer[:count].tolist():
        if move not in _legal_moves(replay):
            raise ConformanceError(
                f"{what} recorded {move}, not a legal move where it was played: record each "
                "move it plays, in order"
            )
        replay.apply(move)
    if replay != finish:
        raise ConformanceError(
            f"{what}: the {count} moves it recorded do not lead to the position it reached: "
            "record each move it plays, in order, with record()"
        )


def _check_terminal(state: GameState) -> None:
    spec = state.spec
    moves = _legal_moves(state)
    if moves:
        raise ConformanceError(
            f"{spec.name}: legal_moves() lists {legal_summary(state)} though is_terminal() is "
            f"true: a finished game has no legal moves\n{state}"
        )
    values = _returns(state)
    if len(values) != spec.num_players:
        raise ConformanceError(f"{spec.name}: returns {values} are not one per player")
    span = spec.max_return - spec.min_return
    if not (math.isfinite(span) and span > 0):
        raise ConformanceError(f"{spec.name}: returns need a finite range, max_return > min_return")
    if not all(spec.min_return <= v <= spec.max_return for v in values):
        raise ConformanceError(f"{spec.name}: returns {values} out of bounds")
    if breaks_zero_sum(values, spec):
        raise ConformanceError(f"{spec.name}: returns {values} of a zero-sum game do not sum to 0")
    str(state)
    if not isinstance(state, State):
        return
    steps = [(v - spec.min_return) / span * state.spec.return_steps for v in values]
    if not all(abs(k - round(k)) <= STEP_TOLERANCE for k in steps):
        raise ConformanceError(
            f"{spec.name}: returns {values} are not whole steps of "
            f"1/{state.spec.return_steps} of the range (spec.return_steps)"
        )
    outcome = state.outcome()
    if outcome is None or outcome.returns != values or not outcome.reason:
        raise ConformanceError(f"{spec.name}: missing or inconsistent outcome {outcome}")
