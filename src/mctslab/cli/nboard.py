"""`mctslab nboard`: an Othello engine for the NBoard GUI on stdin/stdout."""

from __future__ import annotations

from mctslab.cli import _options as opt
from mctslab.cli import _protocol
from mctslab.games import make
from mctslab.protocols import NBoardEngine


def nboard(
    iterations: _protocol.NBoardIterations = None,
    seconds: _protocol.MoveSeconds = None,
    engine: opt.Engine = "compiled",
    workers: opt.Workers = 1,
    seed: opt.Seed = None,
    c: opt.Exploration = None,
) -> None:
    """Play Othello as an NBoard engine, speaking the NBoard protocol on stdin/stdout.

    NBoard's "set depth d" searches 1000*d^2 simulations a move, capped by --seconds.
    """
    _protocol.serve(NBoardEngine, engine, seed, c, iterations, seconds, workers, make("othello"))
