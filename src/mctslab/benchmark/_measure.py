"""One timing of each kind the benchmark takes; the caller repeats them and takes medians.

Every engine searches the same position with the same exploration constant
(OpenSpiel's ``uct_c`` is twice ours because it backs up values in [-1, 1],
see :mod:`mctslab.players.openspiel`). Only the search is timed: building a
bot, starting worker processes and freeing a tree happen outside the clock.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from multiprocessing.pool import Pool
from time import perf_counter
from typing import Any

import numpy as np

from mctslab._jit import new_rng
from mctslab.benchmark._kernels import playouts, variant
from mctslab.core.config import Budget, SearchConfig
from mctslab.core.policies import Simulation
from mctslab.core.search import MCTS
from mctslab.fast import FastMCTS
from mctslab.fast._loop import USED
from mctslab.games import State
from mctslab.players.naive_gomoku import NaiveGomokuMCTS

#: The exploration constant of every engine in the benchmark (UCB1's, for values in [0, 1]).
C = math.sqrt(2.0)


def plain_config(seed: int | None) -> SearchConfig:
    """Plain UCT with uniform random playouts: what the peers run (no strength options)."""
    return SearchConfig.plain(c=C, seed=seed)


@dataclass(frozen=True)
class Timing:
    """``simulations`` (or playouts) done in ``seconds`` of wall time."""

    simulations: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.simulations / self.seconds


@dataclass(frozen=True)
class TreeUsage:
    """What a compiled search's tree holds: nodes, slots handed out, bytes per slot."""

    nodes: int
    slots: int
    bytes_per_slot: float

    @property
    def bytes_per_node(self) -> float:
        return self.slots * self.bytes_per_slot / self.nodes


def openspiel_available() -> bool:
    """Whether OpenSpiel (the ``compare`` extra) is installed."""
    return importlib.util.find_spec("pyspiel") is not None


def compiled(state: State, count: int, seed: int) -> tuple[Timing, TreeUsage]:
    """The compiled engine on one process, and the tree it built."""
    engine = FastMCTS(plain_config(seed))
    start = perf_counter()
    result = engine.search(state, Budget(iterations=count))
    seconds = perf_counter() - start
    # The engine keeps its tree for reuse; the benchmark reads how full it is.
    tree = engine._tree
    assert tree is not None
    usage = TreeUsage(tree.nodes, int(tree.counters[USED]), tree.nbytes / tree.capacity)
    return Timing(result.simulations, seconds), usage


def generic(state: State, count: int, seed: int, simulation: Simulation) -> Timing:
    """The generic engine: its tree in Python over the State protocol, playouts by ``simulation``.

    ``uniform_playout`` plays each playout move by move in Python, as OpenSpiel's
    Python bot does; ``default_simulation`` makes it one compiled call
    (``State.random_playout``).
    """
    engine = MCTS(plain_config(seed), simulation=simulation)
    start = perf_counter()
    result = engine.search(state, Budget(iterations=count))
    return Timing(result.simulations, perf_counter() - start)


def openspiel_cpp(start_state: State, moves: list[int], count: int, seed: int) -> Timing:
    """OpenSpiel's C++ ``MCTSBot``: random rollouts (one per leaf), no solver."""
    from mctslab.players.openspiel import new_bot, pyspiel_game, pyspiel_state

    bot = new_bot(pyspiel_game(start_state.spec), c=C, iterations=count, seed=seed, solve=False)
    position = pyspiel_state(start_state, moves)
    start = perf_counter()
    root = bot.mcts_search(position)
    seconds = perf_counter() - start
    return Timing(_root_visits(root, count), seconds)


def openspiel_python(start_state: State, moves: list[int], count: int, seed: int) -> Timing:
    """OpenSpiel's Python ``MCTSBot`` with ``RandomRolloutEvaluator(n_rollouts=1)``, no solver."""
    from open_spiel.python.algorithms import mcts

    from mctslab.players.openspiel import pyspiel_game, pyspiel_state

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = mcts.MCTSBot(
        pyspiel_game(start_state.spec),
        2.0 * C,
        count,
        evaluator,
        solve=False,
        random_state=np.random.RandomState(seed),
    )
    position = pyspiel_state(start_state, moves)
    start = perf_counter()
    root = bot.mcts_search(position)
    seconds = perf_counter() - start
    return Timing(_root_visits(root, count), seconds)


def naive(state: State, count: int, seed: int) -> Timing:
    """The naive Gomoku baseline (the original program's design)."""
    search = NaiveGomokuMCTS(c=C, seed=seed)
    board = state.board()  # type: ignore[attr-defined]
    k = int(state.spec.params["k"])
    start = perf_counter()
    search.search(board, state.current_player, k, count)
    return Timing(count, perf_counter() - start)


def raw_playouts(state: State, count: int, seed: int) -> Timing:
    """Random playouts from ``state`` in a compiled loop with no tree (see :func:`playouts`)."""
    kernel = state.kernel
    root = state.data.copy()
    rng = new_rng(seed)
    start = perf_counter()
    playouts(kernel.rollout, kernel.returns, root, rng, count, state.spec.num_players)
    return Timing(count, perf_counter() - start)


def parallel_playouts(pool: Pool, processes: int, state: State, count: int, seed: int) -> Timing:
    """Raw playouts in the ``processes`` of ``pool`` at once, ``count`` each: the machine's ceiling.

    Independent processes share nothing but the machine, so their combined
    rate over one process's is the most any root-parallel search could gain.
    """
    jobs = [(state, count, seed + index) for index in range(processes)]
    start = perf_counter()
    pool.starmap(raw_playouts, jobs, chunksize=1)
    return Timing(count * processes, perf_counter() - start)


def variant_state(state: State, name: str) -> State:
    """``state`` as a position of a game whose kernel is the profiling variant ``name``."""
    cls = type(state)
    profiled = type(
        f"Profiled{cls.__name__}", (cls,), {"kernel": variant(cls.kernel, name), "__slots__": ()}
    )
    result: State = profiled(state.spec, state.data.copy())
    return result


def workers(engine: FastMCTS, state: State, seconds: float) -> Timing:
    """Simulations ``engine`` (its worker processes already started) runs in ``seconds``."""
    start = perf_counter()
    result = engine.search(state, Budget(seconds=seconds))
    return Timing(result.simulations, perf_counter() - start)


def _root_visits(root: Any, count: int) -> int:
    """Simulations an OpenSpiel search ran: its root's visit count (``count`` if not exposed)."""
    return int(getattr(root, "explore_count", count))
