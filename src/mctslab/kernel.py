"""Your own game on the compiled engine: its rules as numba functions, a :class:`State` around them.

The compiled engine (:class:`mctslab.fast.FastMCTS`) searches any game whose
rules are written this way, the bundled ones included (``mctslab.games.countdown``
is the shortest to read). The README's "Your own game, compiled" is a whole
example, Nim.

**The state** is one C-contiguous ``int64`` array holding everything the
rules need: the position, the player to move and any parameters (a board
size, say). The engine copies it and hashes it (transpositions): give
``State.history_fields`` the indices of entries that record history rather
than the position, such as the last move.

**The rules** are functions compiled with ``@njit(SIGNATURE)``, each
signature below (``cache=True`` keeps them between runs):

- ``legal_moves(state, out) -> count`` (:data:`LEGAL_MOVES_SIG`): writes the
  legal move ids, each in ``range(spec.num_actions)`` and each once, into
  ``out`` (room for ``num_actions``) and returns how many; 0 exactly when
  the game is over. A player with nothing to do plays a pass move.
  ``State.legal_moves()`` and a search's first position refuse more moves,
  or an id out of range, with a ValueError; deeper in a search they would
  write outside the engine's arrays.
- ``apply(state, move)`` (:data:`APPLY_SIG`): plays a legal move in place,
  unchecked.
- ``is_terminal(state) -> bool`` (:data:`IS_TERMINAL_SIG`).
- ``returns(state, out)`` (:data:`RETURNS_SIG`): writes one return per player
  into ``out`` (once the game is over), every one, a draw's too: ``out`` may
  hold anything before (``State.returns()`` refuses a kernel that leaves one
  unwritten). Each within the spec's
  ``[min_return, max_return]`` and on its grid of ``return_steps`` (2, the
  default, allows a win, a draw and a loss; 1 a win and a loss alone; a
  score margin needs more, and
  is searched without the solver, which knows only those three).
- ``current_player(state) -> player`` (:data:`CURRENT_PLAYER_SIG`): the
  player to move, from 0 to ``spec.num_players - 1``. A search checks it
  in every position of one random game before it starts, and refuses
  another number (the loop would read past its arrays with it).
- ``rollout(state, rng, played) -> count`` (:data:`ROLLOUT_SIG`): plays
  uniformly random legal moves to the end, in place, drawing from ``rng``
  with :func:`randint` or :func:`uniform`, and writes each move it plays
  into ``played`` with :func:`record` (GRAVE reads them), returning the
  count :func:`record` gives. ``played`` may have room for fewer moves, or
  none (GRAVE off): :func:`record` keeps to it, and compiled code does not
  check an index, so a write of one's own past its end corrupts memory.

Optional game knowledge, used by the search options of
:class:`~mctslab.core.SearchConfig` where a game offers it:

- ``winning_move(state) -> move`` (:data:`WINNING_MOVE_SIG`): a legal move
  with which the player to move wins by force, else -1. It may miss wins,
  but the solver proves positions on its word, so a move it gives must win:
  it ends the game won, or after every reply the player has a move that
  wins at once or one that ``winning_move`` gives again, which wins so in
  turn (a move that wins at once, say, or Gomoku's open four). With
  ``candidate_moves``, it must be one of them: a search expands it first.
- ``candidate_moves(state, out) -> count`` (:data:`LEGAL_MOVES_SIG`): the
  legal moves worth searching, as ``legal_moves`` lists them: some of the
  legal moves, each once, never none while the game goes on.
- ``playouts``: more playouts, each with the rollout's signature, under
  the names a search knows (``SearchConfig.playout``): ``"decisive"`` (a
  move that wins at once, else one that stops the opponent's) and
  ``"threats"`` (Gomoku's: decisive play that also makes and answers
  threats); the rollout is ``"random"``. ``preferred_playout``: the one a
  search plays unless told, ``"random"``, ``"decisive"`` (the default) or
  ``"threats"``; a search asked for one the kernel lacks plays the next
  one down, the rollout at the last. :func:`check_kernel` refuses other
  names. ``prefers_rave``: GRAVE on unless told (off by default).

Put the functions in a :class:`Kernel` and the kernel on a
:class:`State` subclass, which adds no attributes (``__slots__ = ()``: the
position lives in the array alone, which is all a clone or a pickle copies)
and gives the notation and the text of a position: ``_parse_notation(text) -> move id``
(None when malformed; ``text`` comes lower-cased and stripped; notation is ASCII,
and text with other characters is refused before it gets here),
``_format_move(move) -> str``, ``notation_help() -> str``,
``_end_reason(winner) -> str`` (``winner`` None for a draw) and
``__str__()``. Build positions as ``YourState(GameSpec(...), array)``.

**Check it**: :func:`mctslab.games.check_game` plays random games through
the State and the compiled playout and names the first broken rule, the
kernel's signatures included (:func:`check_kernel`). In every position it
plays it checks the candidate moves as above, and that a move
``winning_move`` gives is legal, a candidate, and wins: it follows every
reply to the end of the game or for five moves of either player, whichever
comes first, and names a line that refutes the win. Run it before a search:
the compiled engine trusts the rules (a move id out of range, or a game
longer than ``spec.max_game_length``, writes outside its arrays; a false
winning move is a false proof; a candidate move that is not legal corrupts
the search), checking only the one random game it plays from its position
first (a player out of range, a game past ``max_game_length``). The
solver and transpositions (on by default) and GRAVE need the turn to pass
to the next player at every move; the engine stops with a ValueError that
says so when the search meets a player moving twice in a row or, with more
than two players, one skipped (GRAVE also
credits a playout's moves to the players in turn, unchecked). A game with
extra turns (Dots and Boxes, Kalah) keeps them by giving the other player a
forced pass in between: a move that changes only the player to move, the
only legal one there, and counted in ``max_game_length``; else search it
with ``solver=False, transpositions=False, rave=False``. Worker processes
(``FastMCTS(workers=N)``) are started afresh and import the State's module:
define the game in a file, and start the search under
``if __name__ == "__main__":`` when that file is the script run.
"""

from mctslab._jit import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    IS_TERMINAL_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    randint,
    record,
    uniform,
)
from mctslab.games._base import GameSpec, Kernel, State, check_kernel

__all__ = [
    "APPLY_SIG",
    "CURRENT_PLAYER_SIG",
    "IS_TERMINAL_SIG",
    "LEGAL_MOVES_SIG",
    "RETURNS_SIG",
    "ROLLOUT_SIG",
    "WINNING_MOVE_SIG",
    "GameSpec",
    "Kernel",
    "State",
    "check_kernel",
    "randint",
    "record",
    "uniform",
]
