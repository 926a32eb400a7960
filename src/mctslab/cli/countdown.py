"""`mctslab countdown`: the AI's move from every start, checked against the exact solution."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from mctslab.cli import _options as opt


def countdown(
    max_start: Annotated[int, typer.Option("--max", help="Check every start from 1 to this.")] = 50,
    iterations: Annotated[int, typer.Option(help="Simulations per start.", min=1)] = 10_000,
    engine: opt.Engine = "compiled",
    seed: opt.Seed = None,
    c: opt.Exploration = None,
    as_json: opt.Json = False,
) -> None:
    """For each start, how many numbers the AI says, its win rate, and whether it is right.

    Whoever says 1 wins, so the winning move leaves the opponent a multiple
    of 4; from a multiple of 4 every move loses, and any move is counted right.
    """
    from mctslab.games.countdown import MAX_START, make, solve

    if not 1 <= max_start <= MAX_START:
        opt.fail(f"--max must be from 1 to {MAX_START}. Got {max_start} instead.")

    search_budget = opt.budget(iterations, None)
    truth = solve(max_start)
    player = opt.mcts_player(engine, opt.search_config(seed, c), search_budget, 1)
    rows: list[dict[str, Any]] = []
    # Ctrl-C stops the command with the starts already checked (before, it went on to the
    # next start). Progress goes to stderr, which stays the terminal when the table is
    # redirected.
    shown = opt.error_console.is_terminal and not as_json
    progress = Progress(console=opt.error_console, disable=not shown, transient=True)
    with opt.searches_until_ctrl_c(player) as interrupted, progress:
        for start in progress.track(range(1, max_start + 1), description="searching"):
            player.reset()
            result = player.analyse(make(start=start))
            if interrupted():
                break
            solution = truth[start]
            correct = result.best_move in solution.winning_moves or not solution.wins
            rows.append(
                {
                    "start": start,
                    "numbers_to_say": int(result.best_notation),
                    "win_rate": result.value,
                    "correct": correct,
                    "winning_moves": sorted(m + 1 for m in solution.winning_moves),
                }
            )
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        _print_table(rows, iterations)
    if interrupted():
        opt.interrupted(f"Interrupted: {len(rows)} of {max_start} starts checked.")


def _print_table(rows: list[dict[str, Any]], iterations: int) -> None:
    # A line of its own rather than the table's title, which rich centres with spaces.
    simulations = opt.counted(iterations, "simulation")
    opt.console.print(f"countdown: the AI's move from each start ({simulations})", soft_wrap=True)
    table = Table()
    for column in ("start", "numbers to say", "win rate", "winning moves", "correct"):
        table.add_column(column, justify="right")
    for row in rows:
        winning = " ".join(map(str, row["winning_moves"])) or "none (lost)"
        mark = Text("yes", style="green") if row["correct"] else Text("NO", style="red")
        table.add_row(
            str(row["start"]), str(row["numbers_to_say"]), f"{row['win_rate']:.1%}", winning, mark
        )
    opt.console.print(table)
    right = sum(row["correct"] for row in rows)
    opt.console.print(f"{right} of {len(rows)} starts right.")
