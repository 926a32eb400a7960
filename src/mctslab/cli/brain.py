"""`mctslab brain`: a Gomocup (piskvork) brain on stdin/stdout."""

from __future__ import annotations

from mctslab.cli import _options as opt
from mctslab.cli import _protocol
from mctslab.games import make
from mctslab.protocols import GomocupBrain


def brain(
    iterations: _protocol.MoveIterations = None,
    seconds: _protocol.MoveSeconds = None,
    engine: opt.Engine = "compiled",
    workers: opt.Workers = 1,
    seed: opt.Seed = None,
    c: opt.Exploration = None,
) -> None:
    """Play Gomoku as a Gomocup/piskvork brain, speaking the protocol on stdin/stdout.

    Freestyle five in a row on boards 5-19; time and memory follow the manager's INFO.
    """
    _protocol.serve(GomocupBrain, engine, seed, c, iterations, seconds, workers, make("gomoku"))
