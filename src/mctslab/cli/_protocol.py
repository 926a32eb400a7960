"""What the protocol commands (brain, nboard, gtp) share: their options, the engine setup, and
serving on stdin/stdout.

A protocol owns stdout: only its lines go there. Everything else, the
first-run compile notice and whatever starting the engine prints included,
goes to stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, cast

import typer

from mctslab._stdio import protocol_stdio
from mctslab.cli import _options as opt
from mctslab.games import State
from mctslab.players.mcts import new_engine
from mctslab.protocols import Thinker, serve_stdio
from mctslab.protocols._serve import DEFAULT_MOVE_SECONDS, LineServer, log_to_stderr

MoveSeconds = Annotated[
    float | None,
    typer.Option(
        "--seconds",
        help=(
            "Most thinking time per move (more than 0); also the time per move when the "
            f"controller sets no clock (default {DEFAULT_MOVE_SECONDS:g} s)."
        ),
        callback=opt.positive,
    ),
]
_ITERATIONS_HELP = "Fixed simulations per move (reproducible with --seed)"
MoveIterations = Annotated[int | None, typer.Option(help=f"{_ITERATIONS_HELP}.", min=1)]
NBoardIterations = Annotated[
    int | None, typer.Option(help=f"{_ITERATIONS_HELP}; overrides NBoard's depth.", min=1)
]


def thinker(
    engine: str,
    seed: int | None,
    c: float | None,
    iterations: int | None,
    seconds: float | None,
    workers: int,
    game: State,
) -> Thinker:
    """The engine a protocol command searches with, compiled and with ``game``'s rules
    loaded before the first command is answered."""
    try:
        searcher = new_engine(engine, opt.search_config(seed, c), workers=workers)
        result = Thinker(searcher, iterations=iterations, seconds=seconds)
    except ValueError as error:
        opt.fail(str(error))
    if engine == "compiled":
        from mctslab import fast

        if not fast.is_warm():
            log_to_stderr("mctslab: compiling the search engine (first run only)...")
        # Before the first command: a move sent meanwhile, which the controller times from
        # when it sent it, has what is left of its time to search in.
        cast(fast.FastMCTS, searcher).prepare(game)
    return result


def serve(
    new_server: Callable[[Thinker], LineServer],
    engine: str,
    seed: int | None,
    c: float | None,
    iterations: int | None,
    seconds: float | None,
    workers: int,
    game: State,
) -> None:
    """Serve the protocol of ``new_server`` on stdin/stdout with the engine of :func:`thinker`.

    stdout is the protocol's before the engine starts: its worker processes
    inherit it, and numba may print as it loads the compiled code.
    """
    with protocol_stdio():
        searcher = thinker(engine, seed, c, iterations, seconds, workers, game)
        try:
            serve_stdio(new_server(searcher))
        finally:
            searcher.close()
