"""The 10-turn numeric optimisation game of Harold Sultan's classic MCTS example.

A single player steers a value, starting from 0, towards ``goal``. Turn ``t``
counts down from ``turns`` to 1; at turn ``t`` the choices are ``m * t`` for
each ``m`` in ``moves``, added to the value. Early choices are large, so early
mistakes cost more and the moves do not commute in what they allow later.

The reward is the example's ``1 - |value - goal| / MAX_VALUE`` with
``MAX_VALUE = 5 * (turns - 1) * turns / 2`` (github.com/haroldsultan/MCTS,
``mcts.py``). That scale is 0 for one turn, so ``turns >= 2`` is required;
and since a large ``moves`` or ``goal`` can end farther than ``MAX_VALUE`` from
the goal, the reward is clamped at 0 so that it always lies in [0, 1], as the
engines assume for single-player games.

Move id ``i`` picks ``moves[i]``; it is written as the signed amount it adds
at the current turn ("+20", "-30" at turn 10; "20" is accepted), or as "#i".
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    randint,
    record,
)
from mctslab._validation import check_int
from mctslab.games._base import GameSpec, Kernel, State

# State layout: the parameters TURNS, GOAL and NUM_MOVES, the position (TURN
# counts down to 0, VALUE accumulates), the NUM_MOVES move multipliers, then the
# history: the move id chosen at each turn so far (-1 for turns not yet played).
TURNS, GOAL, NUM_MOVES, TURN, VALUE, CHOICES = 0, 1, 2, 3, 4, 5
NO_MOVE = -1
MAX_TURNS = 1000
MAX_MOVES = 16
MAX_MULTIPLIER = 1_000_000
MAX_GOAL = 10**12
_INDEX_FORM = re.compile(r"^#([0-9]{1,2})$")
_AMOUNT_FORM = re.compile(r"^[+-]?[0-9]{1,15}$")


@njit(cache=True)
def _max_value(turns: int) -> float:
    """The classic example's reward scale, ``5 * (turns - 1) * turns / 2``."""
    return 5.0 * (turns - 1) * turns / 2.0


@njit(LEGAL_MOVES_SIG, cache=True)
def legal_moves(state: np.ndarray, out: np.ndarray) -> int:
    if state[TURN] == 0:
        return 0
    for move in range(state[NUM_MOVES]):
        out[move] = move
    return state[NUM_MOVES]


@njit(APPLY_SIG, cache=True)
def apply(state: np.ndarray, move: int) -> None:
    turn = state[TURN]
    state[VALUE] += state[CHOICES + move] * turn
    state[CHOICES + state[NUM_MOVES] + state[TURNS] - turn] = move
    state[TURN] = turn - 1


@njit(IS_TERMINAL_SIG, cache=True)
def is_terminal(state: np.ndarray) -> bool:
    return state[TURN] == 0


@njit(RETURNS_SIG, cache=True)
def returns(state: np.ndarray, out: np.ndarray) -> None:
    distance = abs(state[VALUE] - state[GOAL])
    out[0] = max(0.0, 1.0 - distance / _max_value(state[TURNS]))


@njit(CURRENT_PLAYER_SIG, cache=True)
def current_player(state: np.ndarray) -> int:
    return 0


@njit(ROLLOUT_SIG, cache=True)
def rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    recorded = 0
    while state[TURN] > 0:
        move = randint(rng, state[NUM_MOVES])
        apply(state, move)
        recorded = record(played, recorded, move)
    return recorded


KERNEL = Kernel(legal_moves, apply, is_terminal, returns, current_player, rollout)


class NumbersState(State):
    kernel = KERNEL
    __slots__ = ()

    @property
    def turn(self) -> int:
        """The current turn, counting down to 1; 0 once the game is over."""
        return int(self._data[TURN])

    @property
    def value(self) -> int:
        return int(self._data[VALUE])

    def position_words(self) -> np.ndarray:
        """The parameters, turn and value; the history of choices is left out."""
        return np.arange(CHOICES + len(self._multipliers()))

    def _multipliers(self) -> tuple[int, ...]:
        count = int(self._data[NUM_MOVES])
        return tuple(int(m) for m in self._data[CHOICES : CHOICES + count])

    def _history(self) -> list[int]:
        start = CHOICES + int(self._data[NUM_MOVES])
        played = int(self._data[TURNS]) - self.turn
        return [int(m) for m in self._data[start : start + played]]

    def played(self) -> list[int]:
        """The signed amounts added so far, in order."""
        turns = int(self._data[TURNS])
        multipliers = self._multipliers()
        return [multipliers[move] * (turns - i) for i, move in enumerate(self._history())]

    def _parse_notation(self, text: str) -> int | None:
        index = _INDEX_FORM.match(text)
        if index is not None:
            move = int(index.group(1))
            return move if move < len(self._multipliers()) else None
        if _AMOUNT_FORM.match(text) is None:
            return None
        amounts = [m * self.turn for m in self._multipliers()]
        amount = int(text)
        return amounts.index(amount) if amount in amounts else None

    def _format_move(self, move: int) -> str:
        return f"{self._multipliers()[move] * self.turn:+d}"

    def notation_help(self) -> str:
        choices = " ".join(self._format_move(m) for m in range(len(self._multipliers())))
        now = f"; now {choices}" if self.turn else ""
        return f"the signed amount to add at this turn, e.g. +20 (or #i for choice i){now}"

    def _end_reason(self, winner: int | None) -> str:
        goal = int(self._data[GOAL])
        return f"all turns played; value {self.value}, goal {goal}, reward {self.returns()[0]:.4f}"

    def __str__(self) -> str:
        turns = int(self._data[TURNS])
        multipliers = self._multipliers()
        played = [f"{amount:+d}" for amount in self.played()]
        lines = [
            f"Numbers game, {turns} turns, goal {int(self._data[GOAL])}, "
            f"moves {' '.join(f'{m:+d}' for m in multipliers)} times the turn",
            f"Moves so far: {' '.join(played) if played else '(none)'}",
        ]
        if self.is_terminal():
            lines.append(f"Game over: {self._end_reason(None)}.")
        else:
            lines.append(f"Turn {self.turn}, value {self.value}.")
        return "\n".join(lines)


def make(
    *, turns: int = 10, moves: tuple[int, ...] = (2, -2, 3, -3), goal: int = 0
) -> NumbersState:
    """A new numbers game; the defaults are the classic example's."""
    turns = check_int(turns, "turns", "numbers", low=2, high=MAX_TURNS)
    multipliers = _check_moves(moves)
    goal = check_int(goal, "goal", "numbers", low=-MAX_GOAL, high=MAX_GOAL)
    spec = GameSpec(
        name="numbers",
        num_players=1,
        num_actions=len(multipliers),
        max_game_length=turns,
        min_return=0.0,
        max_return=1.0,
        zero_sum=False,
        player_names=("Player",),
        params={"turns": turns, "moves": multipliers, "goal": goal},
        # The reward is a whole number of 1 / MAX_VALUE steps (distances are whole).
        return_steps=int(_max_value(turns)),
    )
    data = np.full(CHOICES + len(multipliers) + turns, NO_MOVE, dtype=np.int64)
    data[TURNS] = turns
    data[GOAL] = goal
    data[NUM_MOVES] = len(multipliers)
    data[TURN] = turns
    data[VALUE] = 0
    data[CHOICES : CHOICES + len(multipliers)] = multipliers
    return NumbersState(spec, data)


def _check_moves(moves: Any) -> tuple[int, ...]:
    """``moves`` as a tuple of distinct ints (distinct so that notation is unambiguous)."""
    requirement = (
        f"a tuple of 1 to {MAX_MOVES} distinct ints in [{-MAX_MULTIPLIER}, {MAX_MULTIPLIER}]"
    )
    error = ValueError(
        f"The 'moves' parameter of numbers must be {requirement}. Got {moves!r} instead."
    )
    if not isinstance(moves, tuple | list) or not 1 <= len(moves) <= MAX_MOVES:
        raise error
    try:
        checked = tuple(
            check_int(m, "moves", "numbers", low=-MAX_MULTIPLIER, high=MAX_MULTIPLIER)
            for m in moves
        )
    except ValueError:
        raise error from None
    if len(set(checked)) != len(checked):
        raise error
    return checked
