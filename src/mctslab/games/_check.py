"""Conformance check that every game must pass (in the spirit of OpenSpiel's game tests)."""

from __future__ import annotations

import math
import pickle
import random
from collections.abc import Callable

from mctslab.games._base import STEP_TOLERANCE, IllegalMoveError, State


class ConformanceError(AssertionError):
    """A game broke the protocol; the message says where."""


def check_game(new_state: Callable[[], State], *, games: int = 20, seed: int = 0) -> None:
    """Play ``games`` random games from ``new_state()`` and check the protocol at every step.

    Checks: legal moves are unique ids in range and empty exactly at the end;
    notation round-trips; an illegal move is refused; clones are independent;
    pickling round-trips; the game ends within ``max_game_length``; returns
    have one value per player within bounds, in whole steps of the spec's
    ``return_steps``, and sum to zero for zero-sum games; the compiled
    random playout ends the game too.
    """
    rng = random.Random(seed)
    for game in range(games):
        state = new_state()
        spec = state.spec
        length = 0
        while not state.is_terminal():
            _check_position(state, rng)
            move = rng.choice(state.legal_moves())
            original = state.clone()
            state.play(state.move_to_str(move))
            length += 1
            if state == original:
                raise ConformanceError(f"{spec.name}: playing {move} changed nothing")
            if length > spec.max_game_length:
                raise ConformanceError(
                    f"{spec.name}: game {game} is longer than max_game_length "
                    f"{spec.max_game_length}"
                )
        _check_terminal(state)
        playout = new_state()
        playout.random_playout(seed + game)
        _check_terminal(playout)


def _check_position(state: State, rng: random.Random) -> None:
    spec = state.spec
    moves = state.legal_moves()
    if not moves:
        raise ConformanceError(f"{spec.name}: no legal moves in a non-terminal position\n{state}")
    if len(set(moves)) != len(moves) or not all(0 <= m < spec.num_actions for m in moves):
        raise ConformanceError(f"{spec.name}: bad legal move list {moves}\n{state}")
    if not 0 <= state.current_player < spec.num_players:
        raise ConformanceError(f"{spec.name}: current player {state.current_player} out of range")
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
    restored = pickle.loads(pickle.dumps(state))
    if restored != state or restored.legal_moves() != moves:
        raise ConformanceError(f"{spec.name}: pickling does not round-trip")


def _check_terminal(state: State) -> None:
    spec = state.spec
    if state.legal_moves():
        raise ConformanceError(f"{spec.name}: legal moves in a terminal position\n{state}")
    values = state.returns()
    if len(values) != spec.num_players:
        raise ConformanceError(f"{spec.name}: returns {values} are not one per player")
    if not all(spec.min_return <= v <= spec.max_return for v in values):
        raise ConformanceError(f"{spec.name}: returns {values} out of bounds")
    span = spec.max_return - spec.min_return
    if not (math.isfinite(span) and span > 0):
        raise ConformanceError(f"{spec.name}: returns need a finite range, max_return > min_return")
    steps = [(v - spec.min_return) / span * spec.return_steps for v in values]
    if not all(abs(k - round(k)) <= STEP_TOLERANCE for k in steps):
        raise ConformanceError(
            f"{spec.name}: returns {values} are not whole steps of "
            f"1/{spec.return_steps} of the range (spec.return_steps)"
        )
    if spec.zero_sum and not math.isclose(sum(values), 0.0, abs_tol=1e-9):
        raise ConformanceError(f"{spec.name}: returns {values} of a zero-sum game do not sum to 0")
    outcome = state.outcome()
    if outcome is None or outcome.returns != values or not outcome.reason:
        raise ConformanceError(f"{spec.name}: missing or inconsistent outcome {outcome}")
    str(state)
