"""Move-path enumeration over a kernel, for perft-style counts checked against published truths."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from mctslab._jit import APPLY_SIG, IS_TERMINAL_SIG, LEGAL_MOVES_SIG, STATE
from mctslab.games._base import State

_WALK_SIG = types.UniTuple(types.int64, 2)(
    types.FunctionType(LEGAL_MOVES_SIG),
    types.FunctionType(APPLY_SIG),
    types.FunctionType(IS_TERMINAL_SIG),
    STATE,
    types.int64,
    types.int64,
)


@njit(_WALK_SIG, cache=True)
def _walk(legal_moves, apply, is_terminal, root, depth, num_actions):  # type: ignore[no-untyped-def]
    """Iterative depth-first walk: (paths of exactly ``depth`` moves, games ended within it)."""
    states = np.empty((depth + 1, root.shape[0]), dtype=np.int64)
    moves = np.empty((depth + 1, num_actions), dtype=np.int64)
    counts = np.zeros(depth + 1, dtype=np.int64)
    cursor = np.zeros(depth + 1, dtype=np.int64)
    states[0] = root
    leaves = 0
    finished = 0
    level = 0
    if is_terminal(states[0]):
        return (1 if depth == 0 else 0), 1
    if depth == 0:
        return 1, 0
    counts[0] = legal_moves(states[0], moves[0])
    while level >= 0:
        if cursor[level] == counts[level]:
            level -= 1
            continue
        move = moves[level, cursor[level]]
        cursor[level] += 1
        child = level + 1
        states[child] = states[level]
        apply(states[child], move)
        if is_terminal(states[child]):
            finished += 1
            if child == depth:
                leaves += 1
        elif child == depth:
            leaves += 1
        else:
            counts[child] = legal_moves(states[child], moves[child])
            cursor[child] = 0
            level = child
    return leaves, finished


def perft(state: State, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` moves (games ending sooner don't count)."""
    kernel = state.kernel
    leaves, _ = _walk(
        kernel.legal_moves,
        kernel.apply,
        kernel.is_terminal,
        state.data.copy(),
        depth,
        state.spec.num_actions,
    )
    return int(leaves)


def count_games(state: State, max_depth: int | None = None) -> int:
    """Number of distinct move sequences from ``state`` that end the game."""
    kernel = state.kernel
    depth = state.spec.max_game_length if max_depth is None else max_depth
    _, finished = _walk(
        kernel.legal_moves,
        kernel.apply,
        kernel.is_terminal,
        state.data.copy(),
        depth,
        state.spec.num_actions,
    )
    return int(finished)


def count_positions(state: State, plies: int) -> list[int]:
    """Distinct positions reachable after each number of moves ``0..plies`` (breadth first)."""
    frontier = {state.position_key(): state}
    counts = [1]
    for _ in range(plies):
        following: dict[bytes, State] = {}
        for position in frontier.values():
            for move in position.legal_moves():
                child = position.clone()
                child.apply(move)
                following.setdefault(child.position_key(), child)
        counts.append(len(following))
        frontier = following
    return counts
