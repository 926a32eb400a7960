"""`mctslab analyze`: the top moves of a position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mctslab.cli import _options as opt
from mctslab.cli import _records
from mctslab.cli._thinking import Thinking
from mctslab.core.result import SearchResult


def analyze(
    game: _records.GameArgument = None,
    moves: Annotated[
        str | None,
        typer.Option(help='Moves played so far, as in a record (docs/records.md): "h8 i9 h9".'),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            help="Start from the end of this game record (then --moves); see docs/records.md.",
            dir_okay=False,
        ),
    ] = None,
    size: opt.Size = None,
    width: opt.Width = None,
    height: opt.Height = None,
    k: opt.K = None,
    start: opt.Start = None,
    turns: opt.Turns = None,
    goal: opt.Goal = None,
    iterations: opt.Iterations = None,
    seconds: opt.Seconds = None,
    memory_mb: opt.MemoryMB = None,
    top: Annotated[
        int, typer.Option(help="How many moves the table lists (--json lists them all).", min=1)
    ] = 10,
    engine: opt.Engine = "compiled",
    workers: opt.Workers = 1,
    seed: opt.Seed = None,
    c: opt.Exploration = None,
    prove_draws: Annotated[
        bool,
        typer.Option(
            help="Prove drawn positions: a move proven a draw is not searched again, so that "
            "the others get proven too (compiled engine). Off in play, where it measured "
            "weaker.",
        ),
    ] = True,
    as_json: opt.Json = False,
) -> None:
    """Search a position and list the top moves with visits, value and principal variation."""
    initial, prefix, _ = _records.begin(
        game,
        record,
        size=size,
        width=width,
        height=height,
        k=k,
        start=start,
        turns=turns,
        goal=goal,
    )
    state = opt.play_moves(_records.replay(initial, prefix), moves)
    if state.is_terminal():
        outcome = state.outcome()
        assert outcome is not None  # a terminal state has one
        if state.spec.num_players == 1:
            ended = outcome.reason
        elif outcome.winner is None:
            ended = f"a draw: {outcome.reason}"
        else:
            ended = f"won by {state.spec.player_names[outcome.winner]}: {outcome.reason}"
        opt.fail(f"the game is already over ({ended}); nothing to analyse.")
    player = opt.mcts_player(
        engine,
        opt.search_config(seed, c, prove_draws=prove_draws),
        opt.budget(iterations, seconds, memory_mb=memory_mb),
        workers,
    )
    try:
        if as_json:
            result = player.analyse(state)
        else:
            opt.console.print(state.render(width=opt.console.width))
            with Thinking(opt.error_console, "mctslab") as thinking:
                result = player.analyse(state, progress=thinking)
    finally:
        player.close()
    if as_json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        _print_report(result, state.spec.player_names[state.current_player], top)


#: Moves of the principal variation the table shows (--json gives it whole); deep down a long
#: game's line (countdown from 1,000) the visits are few and the moves close to random.
PV_SHOWN = 20


def _print_report(result: SearchResult, to_move: str, top: int) -> None:
    value = f"value {result.value:.1%}" if result.proven is None else opt.PROOFS[result.proven]
    opt.console.print(
        f"{to_move} to move: best {result.best_notation}, {value} "
        f"({opt.counted(result.simulations, 'simulation')} in {result.seconds:.2f} s, "
        f"{result.sims_per_second:,.0f}/s, {result.engine} engine"
        + ("; the tree filled --memory-mb)" if result.stopped_by == "memory" else ")")
    )
    pv = result.pv_notation
    shown = " ".join(pv[:PV_SHOWN]) + (
        f" … ({len(pv) - PV_SHOWN} more)" if len(pv) > PV_SHOWN else ""
    )
    opt.console.print("principal variation: " + shown)
    table = Table()
    table.add_column("move")
    table.add_column("visits", justify="right")
    table.add_column("share", justify="right")
    table.add_column("value", justify="right")
    shown_moves = result.moves[:top]
    proofs = any(stats.proven for stats in shown_moves)  # the solver's: a column when it has any
    if proofs:
        table.add_column("proven")
    for stats, share in zip(shown_moves, opt.visit_shares(result), strict=False):
        row = [stats.notation, f"{stats.visits:,}", f"{share:.1%}", f"{stats.value:.1%}"]
        if proofs:
            row.append(stats.proven or "")
        table.add_row(*row)
    opt.console.print(table)
