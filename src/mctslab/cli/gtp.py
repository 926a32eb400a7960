"""`mctslab gtp <game>`: a GTP (Go Text Protocol v2) engine for a board game on stdin/stdout."""

from __future__ import annotations

from mctslab.cli import _options as opt
from mctslab.cli import _protocol
from mctslab.protocols import GTPEngine
from mctslab.protocols.gtp import check_offered, check_playable


def gtp(
    game: opt.GTPGame,
    size: opt.Size = None,
    width: opt.Width = None,
    height: opt.Height = None,
    k: opt.K = None,
    iterations: _protocol.MoveIterations = None,
    seconds: _protocol.MoveSeconds = None,
    engine: opt.Engine = "compiled",
    workers: opt.Workers = 1,
    seed: opt.Seed = None,
    c: opt.Exploration = None,
) -> None:
    """Play gomoku, othello, connect4 or tictactoe as a GTP engine on stdin/stdout.

    Colours: black is the first player. Vertices: gomoku letters skip I as in Go;
    othello uses its own coordinates (F5); connect4 names the cell the disc lands on (D1).
    """
    try:
        check_offered(game)  # before the game's options, which may not be a GTP game's
        start = opt.new_state(game, size=size, width=width, height=height, k=k)
        check_playable(start)
    except ValueError as error:
        opt.fail(str(error))
    params = dict(start.spec.params)
    _protocol.serve(
        lambda thinker: GTPEngine(thinker, game, params),
        engine,
        seed,
        c,
        iterations,
        seconds,
        workers,
        start,
    )
