"""Compiled pieces of the benchmark: the no-tree playout loop, and kernel variants for profiling.

The playout loop takes the game's kernel functions as first-class functions
typed with the signatures of :mod:`mctslab._jit`, as the compiled search loop
does, so it measures the very calls the search makes per simulation (copy
the position, play it out, read the returns) with no tree around them: the
speed the search approaches as its tree overhead goes to zero.

The variants repeat one kernel function inside the search (a second rollout
on a copy of the leaf, a second move listing, a second ``apply`` on a copy):
the extra time per simulation is what that step costs where the search
actually calls it, so the search loop is profiled without being changed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

from mctslab._jit import (
    APPLY_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    RNG,
    ROLLOUT_SIG,
    STATE,
)
from mctslab.games import Kernel

PLAYOUTS_SIG = types.float64(
    types.FunctionType(ROLLOUT_SIG),
    types.FunctionType(RETURNS_SIG),
    STATE,
    RNG,
    types.int64,  # playouts
    types.int64,  # num_players
)


@njit(PLAYOUTS_SIG, cache=True)
def playouts(
    rollout: Any, returns: Any, root: np.ndarray, rng: np.ndarray, count: int, num_players: int
) -> float:
    """Play ``count`` random games from ``root``, each on a fresh copy; sum player 0's returns.

    The sum is returned so that no work can be optimised away.
    """
    state = np.empty_like(root)
    rewards = np.empty(num_players, dtype=np.float64)
    unrecorded = np.empty(0, dtype=np.int64)  # as the plain search calls it
    total = 0.0
    for _ in range(count):
        state[:] = root
        rollout(state, rng, unrecorded)
        returns(state, rewards)
        total += rewards[0]
    return total


#: The kernel variants of the profile, by name; see :func:`variant`.
VARIANTS = ("rollout_twice", "rollout_copy", "legal_moves_twice", "apply_twice", "apply_copy")


def variant(kernel: Kernel, name: str) -> Kernel:
    """``kernel`` with one function doing extra work (compiled for this kernel, not cached).

    - ``rollout_twice``: copy the leaf, play the copy out, then the leaf;
      ``rollout_copy``: copy the leaf and play the leaf out (the copy's cost,
      to subtract).
    - ``legal_moves_twice``: list the moves twice.
    - ``apply_twice``: play the move on a copy, then on the state;
      ``apply_copy``: copy the state and play the move.
    """
    rollout, legal_moves, apply = kernel.rollout, kernel.legal_moves, kernel.apply
    if name == "rollout_twice":

        def rollout_twice(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
            scratch = state.copy()
            rollout(scratch, rng, played)
            return rollout(state, rng, played)

        return kernel._replace(rollout=njit(ROLLOUT_SIG)(rollout_twice))
    if name == "rollout_copy":

        def rollout_copy(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
            scratch = state.copy()
            recorded = rollout(state, rng, played)
            if scratch.size == 0:  # never true; it keeps the copy from being optimised away
                rollout(scratch, rng, played)
            return recorded

        return kernel._replace(rollout=njit(ROLLOUT_SIG)(rollout_copy))
    if name == "legal_moves_twice":

        def legal_moves_twice(state: np.ndarray, out: np.ndarray) -> int:
            first = legal_moves(state, out)
            second = legal_moves(state, out)
            return second if first == second else -1

        return kernel._replace(legal_moves=njit(LEGAL_MOVES_SIG)(legal_moves_twice))
    if name == "apply_twice":

        def apply_twice(state: np.ndarray, move: int) -> None:
            scratch = state.copy()
            apply(scratch, move)
            apply(state, move)

        return kernel._replace(apply=njit(APPLY_SIG)(apply_twice))
    if name == "apply_copy":

        def apply_copy(state: np.ndarray, move: int) -> None:
            scratch = state.copy()
            apply(state, move)
            if scratch.size == 0:  # never true; it keeps the copy from being optimised away
                apply(scratch, move)

        return kernel._replace(apply=njit(APPLY_SIG)(apply_copy))
    raise ValueError(f"Unknown kernel variant {name!r}; variants: {', '.join(VARIANTS)}.")
