"""Options shared by several commands, and the helpers that turn them into objects."""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from mctslab._interrupt import noticing_ctrl_c
from mctslab._validation import physical_mib
from mctslab.core.config import MAX_SEED, Budget, SearchConfig
from mctslab.core.result import SearchResult
from mctslab.games import State, available_games, make
from mctslab.games._base import first_line, os_reason
from mctslab.games._registry import parameters
from mctslab.players.mcts import ENGINES, MCTSPlayer
from mctslab.protocols.gtp import GAMES as GTP_GAMES
from mctslab.records import parse_moves

# What is printed is shown as written: brackets in a move, a path or an engine's
# name are not Rich markup, nor ":-1:" in a port an emoji. Styles are given as
# Text styles where wanted.
console = Console(highlight=False, markup=False, emoji=False)
error_console = Console(stderr=True, highlight=False, markup=False, emoji=False)
#: The widest a table printed to a pipe or a file may be (its natural width, up to this).
_UNBOUNDED = 10_000


def print_whole(table: Table) -> None:
    """Print ``table`` to stdout whole: at its own width to a pipe or a file, which have
    none (at rich's 80 columns figures were cut to '2,941,1…' and verdicts to 'inconcl…');
    a terminal narrower than the table folds the cells that allow it."""
    if console.is_terminal:
        console.print(table)
        return
    unbounded = console.options.update_width(_UNBOUNDED)
    width = Measurement.get(console, unbounded, table).maximum
    Console(file=console.file, width=width, highlight=False, markup=False, emoji=False).print(table)


def game_argument(games: list[str], *, or_record: bool = False) -> Any:
    """A command's game argument, its help naming ``games``; ``or_record``: it may be left
    out for a record's (``--load``, ``--record``)."""
    told = " (optional with a record)" if or_record else ""
    return typer.Argument(help=f"The game: {', '.join(games)}{told}.", show_default=False)


TWO_PLAYER_GAMES = [g for g in available_games() if make(g).spec.num_players == 2]
TwoPlayerGame = Annotated[str, game_argument(TWO_PLAYER_GAMES)]
GTPGame = Annotated[str, game_argument(list(GTP_GAMES))]
Size = Annotated[int | None, typer.Option(help="Board size, both sides (gomoku: 5-19).")]
Width = Annotated[int | None, typer.Option(help="Board width (gomoku).")]
Height = Annotated[int | None, typer.Option(help="Board height (gomoku).")]
K = Annotated[int | None, typer.Option("--k", help="Stones in a row to win (gomoku).")]
Start = Annotated[int | None, typer.Option(help="Starting number (countdown).")]
Turns = Annotated[int | None, typer.Option(help="Turns in the game (numbers).")]
Goal = Annotated[int | None, typer.Option(help="The value to end near (numbers).")]


def _in_range(
    value: float | None, low: float, *, above: bool = False, high: float = math.inf
) -> float | None:
    """``value`` if it is None or a finite number from ``low`` (or above it) up to ``high``."""
    if value is None:
        return None
    if not (math.isfinite(value) and (value > low if above else value >= low) and value <= high):
        bound = f"more than {low:g}" if above else f"at least {low:g}"
        if high < math.inf:
            bound += f" and at most {math.floor(high):,}"
        raise typer.BadParameter(f"must be a finite number {bound}; got {value:g}.")
    return value


def positive(value: float | None) -> float | None:
    """An option callback for a limit that must be more than zero (a time)."""
    return _in_range(value, 0.0, above=True)


def non_negative(value: float | None) -> float | None:
    """An option callback for a number that must be 0 or more (an exploration constant)."""
    return _in_range(value, 0.0)


def tree_memory_mb(value: float | None) -> float | None:
    """An option callback for a search tree's memory in MiB, up to this machine's."""
    # 1 MiB a tree holds the root and its children on any board (19x19: 362 nodes).
    return _in_range(value, 1.0, high=physical_mib())


Iterations = Annotated[
    int | None,
    typer.Option(help="Simulations per search (default when no --seconds: 10000).", min=1),
]
Seconds = Annotated[
    float | None,
    typer.Option(help="Thinking time per search, in seconds (more than 0).", callback=positive),
]
MemoryMB = Annotated[
    float | None,
    typer.Option(
        "--memory-mb",
        help="Most memory a search tree takes, in MiB (at least 1 for each worker): the "
        "search stops when it is full (a cap on top of the time or simulations). On the "
        "compiled engine a search that keeps the last move's tree holds both while it copies "
        "it: up to twice that.",
        callback=tree_memory_mb,
    ),
]


def one_of(choices: Sequence[str]) -> Callable[[str], str]:
    """An option callback that accepts only ``choices``."""

    def check(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"choose {' or '.join(choices)}; got {value!r}.")
        return value

    return check


Engine = Annotated[
    str,
    typer.Option(
        help=f"Search engine: {' or '.join(ENGINES)} (the generic reference).",
        callback=one_of(ENGINES),
    ),
]
#: The most --workers: four processes a CPU already gain nothing and start slowly.
MAX_WORKERS = 4 * (os.cpu_count() or 1)
Workers = Annotated[
    int,
    typer.Option(
        help=f"Processes searching in parallel (compiled engine); at most 4 a CPU ({MAX_WORKERS}).",
        min=1,
        max=MAX_WORKERS,
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(help="Random seed, for reproducible searches.", min=0, max=MAX_SEED),
]
Exploration = Annotated[
    float | None,
    typer.Option(
        "--c", help="UCT exploration constant, 0 or more (default sqrt(2)).", callback=non_negative
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


#: What a proven root means for the player to move (SearchResult.proven).
PROOFS = {"win": "a proven win", "draw": "a proven draw", "loss": "proven: every move loses"}


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, in the plural unless it is one: "1 simulation", "2 children"."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def visit_shares(result: SearchResult) -> list[float]:
    """The part of ``result``'s root visits that went to each of its moves, in its order:
    what the AI's ranking of the moves goes by."""
    total = sum(move.visits for move in result.moves) or 1
    return [move.visits / total for move in result.moves]


def error(message: str) -> None:
    """Print ``message`` as an error, on one line: the terminal wraps it, and a path in it
    stays whole in a log or a pipe. Lines the message carries after its first (a failed
    game's traceback, what a program said) follow it whole."""
    error_console.print(Text("Error:", style="bold red"), message, soft_wrap=True)


def interrupted(message: str = "Interrupted.") -> NoReturn:
    """End the command after Ctrl-C: ``message`` on stderr and exit status 130, as a shell
    gives a program that SIGINT ended."""
    error_console.print(message, soft_wrap=True)
    raise typer.Exit(130) from None


@contextlib.contextmanager
def searches_until_ctrl_c(player: MCTSPlayer) -> Iterator[Callable[[], bool]]:
    """A run of ``player``'s searches that Ctrl-C ends, the player closed after it.

    The engines answer Ctrl-C by returning their best move so far, so the block
    asks the function it is given after each search whether Ctrl-C was pressed,
    and stops; one pressed between two searches ends the block. After it, the
    function says whether the run was cut short.
    """
    with noticing_ctrl_c() as pressed:
        try:
            yield pressed
        except KeyboardInterrupt:
            pass  # between two searches
        finally:
            player.close()


#: Where the running command's help is ("Try 'mctslab play --help'."), set while a
#: command runs (mctslab.cli._usage.Command): said after its own errors too.
help_hint: ContextVar[str | None] = ContextVar("help_hint", default=None)


def fail(message: str, *, mistake: bool = True) -> NoReturn:
    """Print ``message`` as an error and exit: a ``mistake`` in the command line with status
    2, followed by where the command's help is; a failure of the work (a game that broke,
    a plot that could not be drawn) with status 1."""
    error(message)
    hint = help_hint.get()
    if mistake and hint is not None:
        error_console.print(hint, soft_wrap=True)
    raise typer.Exit(2 if mistake else 1)


def stdin_is_terminal() -> bool:
    """Whether a person at a terminal can type moves in (stdin is no pipe, file or nothing)."""
    return sys.stdin is not None and sys.stdin.isatty()


def check_writable(path: Path, what: str) -> None:
    """Refuse ``path`` if ``what`` could not be written there, before the work that makes it.

    The file is opened for appending; a file that this made is removed again,
    so a command stopped before it writes (an interrupted first compile)
    leaves no empty file behind.
    """
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        fail(cannot_write(what, path, error))


def check_creatable(path: Path, what: str) -> None:
    """:func:`check_writable` for a file whose writer makes its folder first: the folder is
    made now, so that a file where a folder should be is said before the work."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        fail(cannot_write(what, path, error))
    check_writable(path, what)


def cannot_write(what: str, path: Path, error: OSError) -> str:
    """The message for ``what`` that could not be written to ``path``: a file where a folder
    should be is named, since making the folders says only "File exists" (or "Not a
    directory")."""
    why = os_reason(error)
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                why = f"{folder} is a file, not a folder"
            break
    return f"cannot write {what} {path}: {why}."


def new_state(
    game: str,
    *,
    size: int | None = None,
    width: int | None = None,
    height: int | None = None,
    k: int | None = None,
    start: int | None = None,
    turns: int | None = None,
    goal: int | None = None,
    offered: Sequence[str] | None = None,
) -> State:
    """The start position of ``game`` with the options given on the command line;
    ``offered``: the games the command plays, named when ``game`` is no game at all."""
    if game not in available_games():
        fail(f"Unknown game {game!r}; choose {', '.join(offered or available_games())}.")
    given = {
        "size": size,
        "width": width,
        "height": height,
        "k": k,
        "start": start,
        "turns": turns,
        "goal": goal,
    }
    params: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    # In the command line's terms: numbers' parameter "moves" has no option here.
    options = [f"--{name}" for name in parameters(game) if name in given]
    unknown = [f"--{name}" for name in params if f"--{name}" not in options]
    if unknown:
        fail(
            f"{', '.join(unknown)}: not an option of {game}; its options: "
            f"{', '.join(options) or 'none'}."
        )
    try:
        return make(game, **params)
    except ValueError as error:
        fail(str(error))


_TOKEN = r"[^\s,]+"
_GOMOCUP_OR_TOKEN = r"[0-9]+,[0-9]+|" + _TOKEN


def play_moves(state: State, moves: str | None, played: list[int] | None = None) -> State:
    """``state`` after ``moves`` in record notation (docs/records.md), each checked.

    Moves are separated by spaces (or commas, but for Gomoku's Gomocup
    ``x,y``); the compact forms (``f5d6c3``, ``4435``) and left-out forced
    passes are read as in a record. The ids of the moves are appended to
    ``played`` when it is given (to save the game).
    """
    pattern = _GOMOCUP_OR_TOKEN if state.spec.name == "gomoku" else _TOKEN
    try:
        ids = parse_moves(state, " ".join(re.findall(pattern, moves or "")))
    except ValueError as error:
        # The library draws the board below its message; the command line names the moves.
        fail(f"--moves: {first_line(error)}")
    for move in ids:
        state.apply(move)
    if played is not None:
        played.extend(ids)
    return state


def budget(
    iterations: int | None,
    seconds: float | None,
    *,
    memory_mb: float | None = None,
    default: Budget | None = None,
) -> Budget:
    """The search budget asked for: ``default`` (else 10,000 iterations) when neither
    iterations nor seconds is given; ``memory_mb`` caps the tree either way."""
    try:
        asked = Budget(iterations=iterations, seconds=seconds)
        chosen = default if asked.is_unbounded and default is not None else asked.effective()
        return chosen if memory_mb is None else replace(chosen, memory_mb=memory_mb)
    except ValueError as error:
        fail(str(error))


def search_config(seed: int | None, c: float | None, **options: Any) -> SearchConfig:
    try:
        if c is not None:
            options["c"] = c
        return SearchConfig(seed=seed, **options)
    except ValueError as error:
        fail(str(error))


def mcts_player(
    engine: str, config: SearchConfig, search_budget: Budget, workers: int
) -> MCTSPlayer:
    if engine == "python" and workers > 1:
        # MCTSPlayer refuses it too, but can name only one of the two ways out.
        fail("the python engine searches on one thread; use --engine compiled or --workers 1.")
    memory_mb = search_budget.memory_mb
    if memory_mb is not None and memory_mb < workers:
        fail(
            f"--memory-mb {memory_mb:g} leaves less than 1 MiB for each of the "
            f"{workers} workers' trees."
        )
    try:
        player = MCTSPlayer(engine, config, search_budget, workers=workers)
    except ValueError as error:
        fail(str(error))
    cpus = os.cpu_count() or 1
    if workers > cpus:
        error_console.print(
            f"Note: {workers} workers on {counted(cpus, 'CPU')}: they share the CPUs, so a "
            "search gains nothing from the extra ones, and each takes a moment to start."
        )
    if engine == "compiled":
        compile_engine()
    return player


def compile_engine() -> None:
    """Load the compiled engine; the first time, say that it compiles (cached on disk after)."""
    from mctslab import fast

    if fast.is_warm():
        return
    message = "Compiling the search engine (first run only, cached after)..."
    if not error_console.is_terminal:
        error_console.print(message)
    with noticing_ctrl_c() as pressed:
        try:
            with error_console.status(message):
                fast.warm_up()
        except (KeyboardInterrupt, RuntimeError):
            # numba may turn the interruption into a RuntimeError of its own ("no compiled
            # object yet"), deep in a traceback that says nothing to the user.
            if not pressed():
                raise
            interrupted()
