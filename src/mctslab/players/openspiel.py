"""OpenSpiel's C++ MCTS as a player, and our games mapped onto OpenSpiel's.

OpenSpiel (the ``compare`` extra) is the reference peer: its
``MCTSBot`` with a ``RandomRolloutEvaluator`` of one rollout is plain UCT with
random playouts, the same algorithm as ours, in C++. The arena uses it as an
opponent and ``mctslab bench`` as a speed peer; both go through this module.

Games map one to one, with the same action ids (``tests/arena`` replays
random games in both and compares the legal moves at every ply):

- tictactoe -> ``tic_tac_toe``; connect4 -> ``connect_four``; othello ->
  ``othello`` (squares ``row * 8 + column`` from the top, 64 a pass);
- gomoku on a square board -> ``gomoku(size=, connect=k)``, on any other
  board -> ``mnk(m=width, n=height, k=k)``; both count k *or more* in a row,
  as ours does, and number cells ``row * width + column`` from the top.

OpenSpiel's MCTS backs up returns in [-1, 1] where ours uses [0, 1], so the
same exploration needs twice the constant: ``uct_c = 2 c`` (both use the UCB1
term ``c * sqrt(ln N / n)``). Positions are built by replaying the moves from
the start, since OpenSpiel's states cannot be set from a board.
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from mctslab._extras import install_hint
from mctslab._validation import check_float, check_int
from mctslab.core.config import DEFAULT_ITERATIONS
from mctslab.games import make
from mctslab.games._base import GameSpec, State

#: Tree memory OpenSpiel's bot may use, in MiB (the bot's own argument).
DEFAULT_MEMORY_MB = 1024
#: OpenSpiel takes the simulation limit as a C++ int.
_NO_SIMULATION_LIMIT = 2**31 - 1


def pyspiel() -> Any:
    """The ``pyspiel`` module, or an ImportError that says how to install it."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError as error:
        raise ImportError(f"OpenSpiel is not installed; {install_hint('compare')}") from error


def game_string(spec: GameSpec) -> str:
    """The OpenSpiel game (``pyspiel.load_game`` string) that plays like ours."""
    if spec.name == "tictactoe":
        return "tic_tac_toe"
    if spec.name == "connect4":
        return "connect_four"
    if spec.name == "othello":
        return "othello"
    if spec.name == "gomoku":
        width, height, k = (int(spec.params[key]) for key in ("width", "height", "k"))
        if width == height:
            return f"gomoku(size={width},connect={k})"
        return f"mnk(m={width},n={height},k={k})"
    raise ValueError(
        f"OpenSpiel has no game that plays like {spec.name!r}; "
        "it can play tictactoe, connect4, othello and gomoku."
    )


@functools.lru_cache(maxsize=32)
def _load(name: str) -> Any:
    return pyspiel().load_game(name)


def pyspiel_game(spec: GameSpec) -> Any:
    """The loaded ``pyspiel.Game`` for our game ``spec`` (loaded once per process)."""
    return _load(game_string(spec))


def pyspiel_state(start: State, moves: Iterable[int]) -> Any:
    """The OpenSpiel state reached by ``moves`` (our ids) from ``start``, a start position."""
    fresh = make(start.spec.name, **start.spec.params)
    if start.position_key() != fresh.position_key():
        raise ValueError(
            "OpenSpiel positions are built by replaying moves from the start of the game; "
            f"give the start position and the moves played.\n{start}"
        )
    state = pyspiel_game(start.spec).new_initial_state()
    for ply, move in enumerate(moves, start=1):
        if state.is_terminal() or move not in state.legal_actions():
            raise ValueError(f"Move {move!r} (ply {ply}) is not legal in OpenSpiel's {state}.")
        state.apply_action(int(move))
    return state


def check_bot_options(
    *,
    c: float = math.sqrt(2.0),
    iterations: int | None = None,
    seconds: float | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> None:
    """Raise ValueError if the options of :func:`new_bot` are out of range."""
    check_float(c, "c", "OpenSpiel MCTS", low=0.0, low_inclusive=True)
    if iterations is not None:
        check_int(iterations, "iterations", "OpenSpiel MCTS", low=1, high=_NO_SIMULATION_LIMIT)
    if seconds is not None:
        check_float(seconds, "seconds", "OpenSpiel MCTS", low=0.0)
    check_int(memory_mb, "memory_mb", "OpenSpiel MCTS", low=1)


def new_bot(
    game: Any,
    *,
    c: float = math.sqrt(2.0),
    iterations: int | None = None,
    seconds: float | None = None,
    solve: bool = False,
    seed: int | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> Any:
    """OpenSpiel's ``MCTSBot`` over ``game`` with random rollouts and our exploration ``c``.

    With neither ``iterations`` nor ``seconds``, it runs our default of
    :data:`~mctslab.core.config.DEFAULT_ITERATIONS` simulations a move; with
    both, the first limit reached stops it. ``solve`` turns on OpenSpiel's
    MCTS-Solver (off by default, as our engines do not prove values).
    """
    check_bot_options(c=c, iterations=iterations, seconds=seconds, memory_mb=memory_mb)
    if iterations is None:
        iterations = DEFAULT_ITERATIONS if seconds is None else _NO_SIMULATION_LIMIT
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed &= 0x7FFFFFFF  # a C++ int on OpenSpiel's side
    spiel = pyspiel()
    evaluator = spiel.RandomRolloutEvaluator(1, seed)
    return spiel.MCTSBot(
        game,
        evaluator,
        2.0 * c,
        iterations,
        memory_mb,
        solve,
        seed,
        False,
        spiel.ChildSelectionPolicy.UCT,
        -1.0 if seconds is None else seconds,
    )


class OpenSpielPlayer:
    """OpenSpiel's MCTSBot as a player of our games (see :func:`new_bot` for the options).

    It remembers the game's moves and replays them into an OpenSpiel state
    for each choice; before searching it checks that OpenSpiel's legal moves
    are ours, so a mapping error fails loudly instead of playing nonsense.
    """

    name = "openspiel-mcts"

    def __init__(
        self,
        *,
        c: float = math.sqrt(2.0),
        iterations: int | None = None,
        seconds: float | None = None,
        solve: bool = False,
        seed: int | None = None,
        memory_mb: int = DEFAULT_MEMORY_MB,
    ) -> None:
        self._options: dict[str, Any] = {
            "c": c,
            "iterations": iterations,
            "seconds": seconds,
            "solve": solve,
            "seed": seed,
            "memory_mb": memory_mb,
        }
        self._bot: Any = None
        self._start: State | None = None
        self._moves: list[int] = []

    def start(self, state: State) -> None:
        self._bot = new_bot(pyspiel_game(state.spec), **self._options)
        self._start = state.clone()
        self._moves = []

    def choose(self, state: State) -> int:
        if self._start is None or self._bot is None:
            raise RuntimeError("OpenSpielPlayer.choose was called before start.")
        position = pyspiel_state(self._start, self._moves)
        if sorted(position.legal_actions()) != sorted(state.legal_moves()):
            raise RuntimeError(
                f"OpenSpiel's legal moves {sorted(position.legal_actions())} differ from ours "
                f"{sorted(state.legal_moves())} after moves {self._moves}.\n{state}"
            )
        return int(self._bot.step(position))

    def observe(self, move: int) -> None:
        self._moves.append(int(move))

    def close(self) -> None:
        self._bot = None
