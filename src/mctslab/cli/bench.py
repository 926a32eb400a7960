"""`mctslab bench`: the speed benchmark (see :mod:`mctslab.benchmark`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from mctslab._extras import install_hint
from mctslab.cli import _options as opt

_GAME_KEYS = "tictactoe, connect4, othello, gomoku15, gomoku8"
_PART_NAMES = "speed, profile, workers, memory, startup"
#: The heading of a results file's hand-written part (mctslab.benchmark.HAND_WRITTEN,
#: which this command does not import before it runs; a test checks they agree).
_HAND_WRITTEN = "## The goals not met, and what limits them"


def bench(
    games: Annotated[
        list[str] | None,
        typer.Option(help=f"Games to measure, comma-separated or repeated: {_GAME_KEYS} (all)."),
    ] = None,
    repeats: Annotated[
        int,
        typer.Option(
            help="Runs per figure: the median of them, the best of them in the profile "
            "(--quick makes one start-up run whatever this says)."
        ),
    ] = 5,
    quick: Annotated[
        bool, typer.Option("--quick", help="Small counts: a smoke test, not a measurement.")
    ] = False,
    parts: Annotated[
        list[str] | None,
        typer.Option(help=f"What to measure, comma-separated or repeated: {_PART_NAMES} (all)."),
    ] = None,
    as_json: opt.Json = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Also write the results as Markdown to this file. If it exists, its "
            f"hand-written part, from the line '{_HAND_WRITTEN}' on, is kept after the "
            "new results."
        ),
    ] = None,
) -> None:
    """Measure the engines' speed against OpenSpiel and the naive baseline, and check the goals."""
    # Imported here: the benchmark loads OpenSpiel and compiles its own code, which
    # no other command should pay for.
    from mctslab.benchmark import Options, markdown, rich_tables, run, with_hand_written

    try:
        options = Options(
            **({"games": _split(games)} if games else {}),
            **({"parts": _split(parts)} if parts else {}),
            repeats=repeats,
            quick=quick,
        )
    except ValueError as error:
        opt.fail(str(error))
    if out is not None:
        # Checked before the run, which takes minutes: after it, a traceback lost the results.
        opt.check_writable(out, "the results")
    command = " ".join(
        ["mctslab", "bench", *options.arguments()]
        + (["--out", str(out)] if out is not None else [])
        + (["--json"] if as_json else [])
    )
    if opt.error_console.is_terminal:
        with opt.error_console.status("benchmark starting...") as status:
            report = run(options, lambda message: status.update(message))
    else:  # a log file or a pipe: a line per step instead of a status line
        report = run(options, opt.error_console.print)
    report["command"] = command
    if out is not None:
        previous = out.read_text() if out.exists() else ""
        out.write_text(with_hand_written(markdown(report, command), previous))
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        for table in rich_tables(report):
            opt.print_whole(table)
    if not report["options"]["openspiel"]:
        opt.error_console.print(
            "OpenSpiel is not installed, so the peer's columns and the goals measured "
            f"against it are empty; {install_hint('compare')}"
        )
    for part, message in report["errors"].items():
        opt.error(f"the {part} measurement failed: {message}")
    if report["errors"]:
        raise typer.Exit(1)


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())
