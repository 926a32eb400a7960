"""The ``mctslab`` command."""

from __future__ import annotations

import typer

from mctslab.cli.analyze import analyze
from mctslab.cli.countdown import countdown
from mctslab.cli.numbers import numbers
from mctslab.cli.play import play

app = typer.Typer(
    name="mctslab",
    help="Monte Carlo Tree Search: play against the AI, analyse positions, study the search.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(play)
app.command()(analyze)
app.command()(numbers)
app.command()(countdown)


def main() -> None:
    """Entry point of the ``mctslab`` console script."""
    app()
