"""Shared pieces for numba-compiled code: the kernel signatures and an explicit RNG.

Every game kernel works on one representation: the whole game state is a
C-contiguous ``int64`` array (parameters in a small header, then the position).
Kernel functions are compiled eagerly with the fixed signatures below so that
the compiled search loop can take them as first-class functions; a loop typed
on these signatures is cached on disk once and reused for every game.

Randomness is explicit: a generator is a ``uint64`` array of length 1 holding
a SplitMix64 state (Steele, Lea & Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014). Nothing here touches a global RNG.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

#: ``njit`` options for helpers that a compiled loop calls per step and that
#: allocate nothing: no reference counting (numba's ``_nrt`` flag). With it,
#: every call increfs and decrefs each array argument with an atomic
#: instruction; see :mod:`mctslab.fast._loop` for what that cost.
NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}

STATE = types.int64[::1]
MOVES = types.int64[::1]
RETURNS = types.float64[::1]
RNG = types.uint64[::1]

#: ``legal_moves(state, out) -> count``: writes the legal move ids into ``out``.
LEGAL_MOVES_SIG = types.int64(STATE, MOVES)
#: ``apply(state, move)``: plays ``move`` in place, unchecked.
APPLY_SIG = types.void(STATE, types.int64)
#: ``is_terminal(state) -> bool``.
IS_TERMINAL_SIG = types.boolean(STATE)
#: ``returns(state, out)``: writes one value per player into ``out``.
RETURNS_SIG = types.void(STATE, RETURNS)
#: ``current_player(state) -> player``.
CURRENT_PLAYER_SIG = types.int64(STATE)
#: ``rollout(state, rng, played) -> count``: plays uniformly random legal moves to the
#: end, in place. The moves it plays (passes included) go into ``played`` in order while
#: it has room (see :func:`record`); it returns how many it wrote. RAVE reads them;
#: the plain search passes an empty array, so recording costs one test per move.
ROLLOUT_SIG = types.int64(STATE, RNG, MOVES)
#: ``winning_move(state) -> move``: a legal move with which the player to move wins by
#: force (see :mod:`mctslab.kernel` for what that must mean), or -1.
WINNING_MOVE_SIG = types.int64(STATE)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U11 = np.uint64(11)


def new_rng(seed: int | None) -> np.ndarray:
    """A generator state for compiled code, from ``seed`` (fresh entropy when None)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF  # type: ignore[arg-type]
    return np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)


@njit(types.int64(MOVES, types.int64, types.int64), cache=True, **NO_REFCOUNTS)
def record(played: np.ndarray, count: int, move: int) -> int:
    """Write ``move`` as a playout's move number ``count`` if ``played`` has room; the new count."""
    if count < played.shape[0]:
        played[count] = move
        return count + 1
    return count


@njit(types.int64(MOVES, types.int64, types.int64), cache=True, **NO_REFCOUNTS)
def first_outside(moves: np.ndarray, count: int, size: int) -> int:
    """The index of the first of ``moves[:count]`` outside ``range(size)``, or -1 (compiled:
    numpy's comparisons cost several times a small game's whole move listing)."""
    for i in range(count):
        if not 0 <= moves[i] < size:
            return i
    return -1


@njit(types.uint64(RNG), cache=True, **NO_REFCOUNTS)
def next_u64(rng: np.ndarray) -> int:
    """Next 64 random bits (SplitMix64)."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(types.int64(RNG, types.int64), cache=True, **NO_REFCOUNTS)
def randint(rng: np.ndarray, n: int) -> int:
    """Uniform integer in ``[0, n)`` for ``0 < n < 2**32`` (Lemire's multiply-shift)."""
    return int(((next_u64(rng) >> _U32) * np.uint64(n)) >> _U32)


@njit(types.float64(RNG), cache=True, **NO_REFCOUNTS)
def uniform(rng: np.ndarray) -> float:
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return float(next_u64(rng) >> _U11) * (1.0 / 9007199254740992.0)


#: Bit sets :func:`nth_bit` answers for: below 2 ** SMALL_SET_BITS.
SMALL_SET_BITS = 9


def _nth_bit_table() -> np.ndarray:
    """Entry ``bits << 4 | n``: the index of set bit number ``n`` of ``bits`` (-1: none)."""
    table = np.full(1 << (SMALL_SET_BITS + 4), -1, dtype=np.int8)
    for bits in range(1 << SMALL_SET_BITS):
        ones = [i for i in range(SMALL_SET_BITS) if bits >> i & 1]
        for n, index in enumerate(ones):
            table[bits << 4 | n] = index
    return table


_NTH_BIT = _nth_bit_table()


@njit(cache=True, inline="always")
def nth_bit(bits: int, n: int) -> int:
    """The index of set bit number ``n`` of ``bits`` (from 0, lowest first), for a
    bit set below 2 ** :data:`SMALL_SET_BITS` with more than ``n`` bits set: one
    table lookup, for the rollouts that pick a random cell or column of a small board.
    """
    return int(_NTH_BIT[bits << 4 | n])
