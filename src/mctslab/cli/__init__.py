"""The ``mctslab`` command."""

from __future__ import annotations

import sys

import typer

from mctslab.cli import analyze, arena, bench, brain, countdown, gtp, nboard, numbers, play, serve
from mctslab.cli._options import error as print_error
from mctslab.protocols import EngineError

app = typer.Typer(
    name="mctslab",
    help="Monte Carlo Tree Search: play against the AI, analyse positions, study the search.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(play.play)
app.command()(analyze.analyze)
app.command()(numbers.numbers)
app.command()(countdown.countdown)
app.command()(brain.brain)
app.command()(nboard.nboard)
app.command()(gtp.gtp)
app.command()(arena.arena)
app.command()(serve.serve)
app.command()(bench.bench)


def main() -> None:
    """Entry point of the ``mctslab`` console script."""
    try:
        app()
    except EngineError as error:  # an external engine would not start, died or broke its protocol
        print_error(str(error))
        sys.exit(1)
