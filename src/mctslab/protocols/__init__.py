"""Engine protocols: mctslab as an engine for other programs, and their engines as players.

- Gomocup/piskvork for Gomoku (:mod:`~mctslab.protocols.gomocup`, ``mctslab brain``);
- NBoard for Othello (:mod:`~mctslab.protocols.nboard`, ``mctslab nboard``);
- GTP v2 for Gomoku, Othello, Connect Four and tic-tac-toe
  (:mod:`~mctslab.protocols.gtp`, ``mctslab gtp <game>``).

Each server is a ``handle(line) -> Iterable[str]`` core (``GomocupBrain``,
``NBoardEngine``, ``GTPEngine``) run on stdin/stdout by :func:`serve_stdio`;
each client (``GomocupEnginePlayer``, ``NBoardEnginePlayer``,
``GTPEnginePlayer``) runs an external engine as a subprocess and is a
:class:`~mctslab.players.Player`: ``start(state)``, ``choose(state)``,
``observe(move)`` for every move played, ``close()``.
"""

from mctslab.protocols._process import EngineError, EngineResignedError, EngineTimeoutError
from mctslab.protocols._serve import Thinker, serve, serve_stdio
from mctslab.protocols.gomocup import GomocupBrain, GomocupEnginePlayer
from mctslab.protocols.gtp import GTPEngine, GTPEnginePlayer
from mctslab.protocols.nboard import NBoardEngine, NBoardEnginePlayer

__all__ = [
    "EngineError",
    "EngineResignedError",
    "EngineTimeoutError",
    "GTPEngine",
    "GTPEnginePlayer",
    "GomocupBrain",
    "GomocupEnginePlayer",
    "NBoardEngine",
    "NBoardEnginePlayer",
    "Thinker",
    "serve",
    "serve_stdio",
]
