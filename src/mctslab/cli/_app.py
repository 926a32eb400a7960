"""The `mctslab` command's application, every subcommand in it (run by mctslab.cli.main)."""

from __future__ import annotations

import gc
import sys
from typing import Annotated

import typer

from mctslab import __version__
from mctslab.cli import analyze, arena, bench, brain, countdown, gtp, nboard, numbers, play, serve
from mctslab.cli._options import error as print_error
from mctslab.cli._usage import Command, Group
from mctslab.protocols import EngineError

app = typer.Typer(
    name="mctslab",
    cls=Group,
    help="Monte Carlo Tree Search: play against the AI, analyse positions, study the search.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(shown: bool) -> None:
    if shown:
        typer.echo(f"mctslab {__version__}")
        raise typer.Exit


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Show the version and exit.",
            callback=_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Monte Carlo Tree Search: play against the AI, analyse positions, study the search."""


# Each with the Command class, whose parse errors name the command (mctslab.cli._usage).
for command in (
    play.play,
    analyze.analyze,
    numbers.numbers,
    countdown.countdown,
    brain.brain,
    nboard.nboard,
    gtp.gtp,
    arena.arena,
    serve.serve,
    bench.bench,
):
    app.command(cls=Command)(command)


def run() -> None:
    """Run the command line; see :func:`mctslab.cli.main`."""
    try:
        app()
    except EngineError as error:  # an external engine would not start, died or broke its protocol
        print_error(str(error))
        sys.exit(1)
    finally:
        # Only the exit is left. The collector's passes at interpreter shutdown
        # walk every object numba made: 0.3 s and more on a busy machine, which an
        # engine's controller counts (Gomocup's manager kills a brain still there
        # about 1 s after END). Frozen objects are still freed with their modules;
        # finalisers of objects alive at exit were never promised to run.
        gc.freeze()
