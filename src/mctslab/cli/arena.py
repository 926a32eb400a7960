"""`mctslab arena`: a match between two players, with Elo, SPRT and a resumable record."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column, Table
from rich.text import Text

from mctslab.arena.backends import Backend, InProcess, ProcessPool, RayCluster
from mctslab.arena.game import GameFailed
from mctslab.arena.match import FEW_PAIRS, Match, PointResult, Sweep, run_match
from mctslab.arena.openings import parse_openings
from mctslab.arena.record import RunRecord, default_path
from mctslab.arena.spec import KINDS, PlayerSpec, parse_player
from mctslab.arena.stats import SPRT
from mctslab.cli import _options as opt
from mctslab.core.config import MAX_SEED
from mctslab.games import State
from mctslab.games._base import os_reason

PLAYER_HELP = (
    "A player, twice (A then B; scores are A's): KIND[:key=value,...]. Kinds: "
    + "; ".join(f"{kind}: {escape(text)}" for kind, text in KINDS.items())
    + '. E.g. "mcts:seconds=0.5", "mcts:iterations=15000,c=1.98" or '
    + '"engine:seconds=2,gomocup=./pbrain".'
)


def arena(
    game: opt.TwoPlayerGame,
    player: Annotated[list[str] | None, typer.Option("--player", "-p", help=PLAYER_HELP)] = None,
    games: Annotated[
        int, typer.Option(help="Games per match, in pairs from one opening, colours swapped.")
    ] = 100,
    openings: Annotated[
        str | None,
        typer.Option(
            help="random:N (N random moves per pair, redrawn until a quick search finds them "
            "balanced) or FILE (one opening per line in the game's notation)."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Games played at once: local processes (default 1; with --ray, all CPUs)."
        ),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray", help="Play on Ray: auto (a running cluster), local (start one) or ADDRESS."
        ),
    ] = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            help="Stop when a pentanomial GSPRT decides: elo0=E0,elo1=E1[,alpha=A,beta=B] "
            "(logistic Elo; alpha and beta default to 0.05)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="The JSONL record; run the same command again to resume it "
            "(default: arena-GAME-DIGEST.jsonl, one per distinct match; a sweep keeps its "
            "record as it gains values)."
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="Draw score, Elo (and with --sprt the LLR) over the games, or Elo per sweep "
            "value, to FILE.png, .svg, .pdf or another format matplotlib writes (.png when FILE "
            "has no suffix)."
        ),
    ] = None,
    sweep: Annotated[
        str | None,
        typer.Option(help="Play a match per value of an option of player A: KEY=V1,V2,..."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="The run's seed, from which the players' and the openings' seeds derive "
            "(default: drawn at random for a new record; a resumed run keeps its record's).",
            min=0,
            max=MAX_SEED,
        ),
    ] = None,
    size: opt.Size = None,
    width: opt.Width = None,
    height: opt.Height = None,
    k: opt.K = None,
    start: opt.Start = None,
) -> None:
    """Play two players against each other and measure the Elo difference.

    Games come in pairs from the same opening with colours swapped. Every
    finished game is appended to the record at once; an interrupted run
    resumes where it stopped when the same command is run again.
    """
    if game not in opt.TWO_PLAYER_GAMES:
        opt.fail(
            f"the arena plays two-player games ({', '.join(opt.TWO_PLAYER_GAMES)}); got {game!r}."
        )
    state = opt.new_state(game, size=size, width=width, height=height, k=k, start=start)
    if len(player or []) != 2:
        opt.fail(f"give exactly two --player options (A, then B). Got {len(player or [])}.")
    if games < 1:
        opt.fail(f"--games must be at least 1. Got {games} instead.")
    if workers is not None and workers < 1:
        opt.fail(f"--workers must be at least 1. Got {workers} instead.")
    match = _match(state, game, player or [], games, openings, sprt, sweep)
    interactive = (
        any(spec.interactive for _, spec in match.points()) or match.players[1].interactive
    )
    if interactive and ((workers or 1) > 1 or ray is not None):
        opt.fail("a human player needs this terminal: use --workers 1 and no --ray.")
    if interactive and not opt.stdin_is_terminal():
        opt.fail("--player human reads moves from a terminal, and stdin is not one.")
    path = out or default_path(game, match.identity(), seed)
    if plot is not None:
        try:
            from mctslab.arena.plot import plot_path

            plot = plot_path(plot)
        except (ImportError, ValueError) as error:
            opt.fail(str(error))
        if plot.resolve() == path.resolve():
            opt.fail(f"--plot and --out name one file, {plot}: the plot would replace the record.")
        opt.check_creatable(plot, "the plot")
    # The backend before the record, so that a Ray cluster out of reach leaves no record.
    backend = _backend(workers, ray)
    with contextlib.ExitStack() as stack:
        if isinstance(backend, RayCluster):
            stack.callback(backend.close)
        try:
            record = stack.enter_context(RunRecord.open(path, match.identity(), seed))
        except ValueError as error:
            opt.fail(str(error))
        except OSError as error:
            opt.fail(f"cannot write the record {path}: {os_reason(error)}.")
        resumed = _finished(match, record)
        if resumed:
            played = opt.counted(resumed, "game")
            counted = _finished(match, record, below=match.games)
            beyond = "" if counted == resumed else f"; --games {match.games} counts {counted}"
            opt.error_console.print(
                f"Resuming {path}: {played} played before{beyond}.", soft_wrap=True
            )
        _warm_up(match)
        try:
            results = _run(match, record, backend, quiet=interactive)
        except KeyboardInterrupt:
            finished = _finished(match, record, below=match.games)
            opt.error_console.print(
                f"\nInterrupted. Finished games: {finished}, in {path}; "
                "run the same command to resume."
            )
            raise typer.Exit(130) from None
        except (GameFailed, ValueError) as error:  # a crashed game, no balanced opening found
            opt.fail(str(error), mistake=False)
    _report(match, results, path)
    if plot is not None:
        _plot(match, results, plot)


def _match(
    state: State,
    game: str,
    players: list[str],
    games: int,
    openings: str | None,
    sprt: str | None,
    sweep: str | None,
) -> Match:
    try:
        specs = (parse_player(players[0]), parse_player(players[1]))
        for spec in specs:
            spec.check_game(state)
        match = Match(
            game=game,
            params=dict(state.spec.params),
            players=specs,
            openings=parse_openings(openings, state),
            games=games,
            sprt=SPRT.parse(sprt) if sprt else None,
            sweep=Sweep.parse(sweep) if sweep else None,
        )
        match.points()  # every swept value checked now, not halfway through the run
    except ValueError as error:
        opt.fail(str(error))
    return match


def _finished(match: Match, record: RunRecord, *, below: int | None = None) -> int:
    """The games of ``match`` in ``record``, every sweep point counted (those indexed below
    ``below`` when given: a run asked for fewer games counts only its first ones)."""
    return sum(
        sum(1 for index in record.games(point) if below is None or index < below)
        for point in range(len(match.points()))
    )


def _uses_compiled(spec: PlayerSpec) -> bool:
    return spec.kind == "mcts" and dict(spec.options).get("engine", "compiled") == "compiled"


def _warm_up(match: Match) -> None:
    """Compile (or load) the compiled engine once here, with a spinner, before any worker does."""
    specs = [spec for _, spec in match.points()] + [match.players[1]]
    if not (any(map(_uses_compiled, specs)) or match.openings.identity()["kind"] == "random"):
        return
    opt.compile_engine()


def _backend(workers: int | None, ray: str | None) -> Backend:
    if ray is not None:
        try:
            return RayCluster(ray, workers)
        except ImportError as error:
            opt.fail(str(error))
        except Exception as error:  # Ray's own errors: no cluster at the address, and so on
            opt.fail(f"cannot start or reach Ray at {ray!r}: {error}", mistake=False)
    if (workers or 1) == 1:
        return InProcess()
    return ProcessPool(workers or 1)


def _elo(value: float, digits: int = 1) -> str:
    """A signed Elo figure ("+inf" for an unbounded end; never "-0")."""
    text = f"{value:+.{digits}f}"
    return f"{0.0:+.{digits}f}" if float(text) == 0.0 else text


def _label(match: Match, value: str | None) -> str:
    """What a point is called in the progress display: "A vs B", or "KEY=VALUE" in a sweep."""
    return "A vs B" if match.sweep is None else match.sweep.label(value)


def _status(match: Match, result: PointResult) -> str:
    """The running score; with an SPRT its LLR next, the figure the test stops on."""
    tally = result.tally
    text = f"+{tally.wins} ={tally.draws} -{tally.losses}  score {tally.score:.1%}"
    if match.sprt is not None and result.llr is not None:
        text += (
            f"  LLR {result.llr:.2f} ({match.sprt.lower_bound:.2f}, {match.sprt.upper_bound:.2f})"
        )
    estimate = tally.estimate()
    if estimate is not None:
        text += f"  Elo {_elo(estimate.elo, 0)}"
        if result.tally.interval_holds:
            text += f" [{_elo(estimate.lower, 0)}, {_elo(estimate.upper, 0)}]"
    return text


class _StatusColumn(ProgressColumn):
    """A task's status on one line: where the terminal is too narrow, the line ends at its
    edge (Rich lays the row out a little wider than the terminal and crops it there)."""

    def render(self, task: Task) -> Text:
        return Text(task.fields["status"], no_wrap=True)


def _run(match: Match, record: RunRecord, backend: Backend, *, quiet: bool) -> list[PointResult]:
    """Run the match with a live progress bar; a line a game instead when a person is playing
    (on the screen the person reads) or when stderr is no terminal (a log)."""
    plain = quiet or not opt.error_console.is_terminal
    # In a narrow terminal the bar gives way first and the status is cut at the edge;
    # the game count and the time stay whole. The line fills the terminal (expand), so
    # the bar takes the room the other columns leave, down to its minimum, and the
    # status is the column that shrinks past that (when only the bar could shrink, Rich
    # cut every column alike: the count was the first to vanish).
    kept = len(f"{match.games}/{match.games}")
    labels = [_label(match, value) for value, _ in match.points()]
    progress = Progress(
        TextColumn(
            "{task.description}",
            table_column=Column(no_wrap=True, min_width=max(map(len, labels))),
        ),
        BarColumn(bar_width=None, table_column=Column(no_wrap=True, ratio=1, min_width=4)),
        MofNCompleteColumn(table_column=Column(no_wrap=True, min_width=kept)),
        TimeElapsedColumn(table_column=Column(no_wrap=True, min_width=7)),
        _StatusColumn(),
        console=opt.error_console,
        disable=plain,
        expand=True,
    )
    tasks: dict[str | None, Any] = {}

    def on_point(result: PointResult) -> None:
        tasks[result.sweep_value] = progress.add_task(
            _label(match, result.sweep_value),
            total=match.games,
            completed=result.tally.games,
            status=_status(match, result),
        )

    def on_game(entry: dict[str, Any], result: PointResult) -> None:
        progress.update(
            tasks[result.sweep_value],
            completed=result.tally.games,
            status=_status(match, result),
        )
        if plain:
            # One line a game, however long: a log is read by lines (grep "Game 12:").
            point = "" if result.sweep_value is None else f"{_label(match, result.sweep_value)}, "
            score = float(entry["score"])
            who = "a draw" if score == 0.5 else ("A wins" if score == 1.0 else "B wins")
            (opt.console if quiet else opt.error_console).print(
                f"{point}Game {entry['index'] + 1}: {entry['result']} ({entry['reason']}), {who}. "
                + _status(match, result),
                soft_wrap=True,
            )

    with progress:
        return run_match(match, record, backend, on_game=on_game, on_point=on_point)


def _verdict(match: Match, result: PointResult) -> str:
    if match.sprt is None:
        return ""
    if result.verdict == "H1":
        return f"pass: H1 (elo {match.sprt.elo1:g}) accepted"
    if result.verdict == "H0":
        return f"fail: H0 (elo {match.sprt.elo0:g}) accepted"
    return "inconclusive" if result.tally.games >= match.games else "unfinished"


def _cells(match: Match, result: PointResult, *, intervals: bool) -> list[tuple[str, str]]:
    """One point's figures as ``(label, text)``; with ``intervals`` (some point of the table
    has pairs enough) the Elo and LOS columns are those of an interval, left empty here
    when this point has too few pairs."""
    tally = result.tally
    estimate = tally.estimate()
    cells = [("games", str(tally.games)), ("W-D-L", f"{tally.wins}-{tally.draws}-{tally.losses}")]
    if estimate is not None:
        cells.append(("score", f"{tally.score:.1%}"))
        if not intervals:
            cells.append(("Elo", _elo(estimate.elo)))
        elif not tally.interval_holds:
            cells += [("Elo [95%]", _elo(estimate.elo)), ("LOS", "")]
        else:
            cells += [
                (
                    "Elo [95%]",
                    f"{_elo(estimate.elo)} [{_elo(estimate.lower)}, {_elo(estimate.upper)}]",
                ),
                ("LOS", f"{estimate.los:.1%}"),
            ]
    cells.append(("pairs", " ".join(map(str, tally.pentanomial()))))
    if match.sprt is not None:
        bounds = f"({match.sprt.lower_bound:.2f}, {match.sprt.upper_bound:.2f})"
        cells += [("LLR", f"{result.llr or 0.0:.2f} {bounds}"), ("SPRT", _verdict(match, result))]
    return cells


def _report(match: Match, results: list[PointResult], path: Path) -> None:
    """Print the result table, then what its figures mean and where the record is."""
    opt.console.print(Text(match.title(), style="bold"))
    opt.print_whole(_table(match, results))
    notes = ["A's score and Elo; pairs: LL LD LW+DD DW WW."]
    if match.sprt is not None:
        notes.append(f"SPRT {match.sprt.describe()}.")
    if not all(result.tally.interval_holds for result in results):
        notes.append(
            f"With fewer than {FEW_PAIRS} pairs no 95% interval or LOS is given: their normal "
            "approximation wants dozens of pairs."
        )
    unpaired = sum(
        result.tally.games - 2 * pairs
        for result in results
        if (pairs := sum(result.tally.pentanomial()))
    )
    if unpaired:
        notes.append(
            f"{opt.counted(unpaired, 'game')} without a colour-swapped partner (an odd --games, "
            "or an SPRT that stopped mid-pair) "
            f"{'counts' if unpaired == 1 else 'count'} in W-D-L and score, not in pairs or Elo."
        )
    opt.console.print(" ".join(notes))
    opt.console.print(f"Record: {path}", soft_wrap=True)


def _table(match: Match, results: list[PointResult]) -> Table:
    """A match as label/value rows; a sweep as one row per value. In a terminal too narrow
    for it a cell's text is folded onto more lines, never cut: a figure cut to "+3…" reads
    as another."""
    table = Table()
    if match.sweep is None:
        table.add_column("", overflow="fold")
        table.add_column("", justify="right", overflow="fold")
        table.show_header = False
        for label, text in _cells(match, results[0], intervals=results[0].tally.interval_holds):
            table.add_row(label, text)
        return table
    intervals = any(result.tally.interval_holds for result in results)
    rows = [_cells(match, result, intervals=intervals) for result in results]
    labels = list(dict.fromkeys(label for row in rows for label, _ in row))
    table.add_column(match.sweep.key, justify="right", overflow="fold")
    for label in labels:
        table.add_column(label, justify="right", overflow="fold")
    for result, row in zip(results, rows, strict=True):
        texts = dict(row)
        table.add_row(str(result.sweep_value), *(texts.get(label, "") for label in labels))
    return table


def _plot(match: Match, results: list[PointResult], path: Path) -> None:
    """Draw the run to ``path``, which :func:`~mctslab.arena.plot.plot_path` and
    :func:`~mctslab.cli._options.check_creatable` have checked."""
    from mctslab.arena.plot import plot_run

    try:
        plot_run(
            results,
            path,
            title=match.title(),
            sweep_key=None if match.sweep is None else match.sweep.key,
            sprt=match.sprt,
        )
    except (OSError, RuntimeError) as error:  # an unwritable place; pgf without LaTeX
        opt.fail(f"cannot draw the plot to {path} (the record is kept): {error}", mistake=False)
    opt.error_console.print(f"Plot written to {path}", soft_wrap=True)
