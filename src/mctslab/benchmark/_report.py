"""The goals the benchmark reports against, and the report as tables (rich or Markdown).

The goals come from the issue that asked for the compiled engine; a goal is
met or not met as measured, never adjusted to the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

#: Compiled engine over OpenSpiel's C++ MCTSBot, simulations per second, per game.
OPENSPIEL_SPEEDUP = {"tictactoe": 3.0, "connect4": 5.0, "gomoku15": 10.0, "othello": 20.0}
#: Compiled engine over the naive Gomoku baseline.
NAIVE_SPEEDUP = {"gomoku8": 200.0}
#: Compiled simulations per second over raw playouts per second.
TREE_EFFICIENCY = 0.70
#: Tree bytes per node, at most.
MAX_BYTES_PER_NODE = 32.0
#: How far peak RSS growth may pass the memory budget, as a fraction of it.
MEMORY_TOLERANCE = 0.10
#: Simulations of 2 workers over 1 worker.
WORKERS_SPEEDUP = 1.8
#: The heading of a results file's hand-written part, which a rerun keeps (see
#: :func:`with_hand_written`).
HAND_WRITTEN = "## The goals not met, and what limits them"


@dataclass(frozen=True)
class Goal:
    """One goal on one game (and position): the target and what was measured."""

    goal: str
    where: str
    target: str
    measured: str
    met: bool | None  # None: not measured (a peer not installed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "where": self.where,
            "target": self.target,
            "measured": self.measured,
            "met": self.met,
        }


@dataclass(frozen=True)
class TableData:
    """A table independent of its rendering: a title, column names, rows of text."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    note: str = ""


def goals(report: dict[str, Any]) -> list[Goal]:
    """Every goal the report has the measurements for."""
    found = list(_speed_goals(report.get("speed", [])))
    for row in report.get("workers", []):
        found.append(
            _at_least("2 workers vs 1 worker", row["title"], row["ratio"], WORKERS_SPEEDUP, "x")
        )
    for row in report.get("memory", []):
        # Honoured: the growth may pass the budget by the tolerance, never more.
        # How much of it a full tree uses is in the memory table.
        ratio = row["ratio"]
        found.append(
            Goal(
                "peak RSS growth vs memory budget",
                f"{row['title']}, {row['settings']} settings",
                f"<= {row['budget_mb']:g} MiB + {MEMORY_TOLERANCE:.0%}",
                row["method"]
                if ratio is None
                else f"{row['peak_rss_growth_mb']:.2f} MiB ({ratio:.1%})",
                None if ratio is None else ratio <= 1.0 + MEMORY_TOLERANCE,
            )
        )
    return found


def _speed_goals(rows: list[dict[str, Any]]) -> Iterator[Goal]:
    for row in rows:
        where = f"{row['title']}, {row['position']}"
        ratios = row["ratios"]
        if row["game"] in OPENSPIEL_SPEEDUP:
            yield _at_least(
                "compiled vs OpenSpiel C++ MCTSBot",
                where,
                ratios["compiled_vs_openspiel_cpp"],
                OPENSPIEL_SPEEDUP[row["game"]],
                "x",
            )
        if row["game"] in NAIVE_SPEEDUP:
            yield _at_least(
                "compiled vs naive Gomoku baseline",
                where,
                ratios["compiled_vs_naive"],
                NAIVE_SPEEDUP[row["game"]],
                "x",
            )
        python = ratios["python_vs_openspiel_python"]
        yield Goal(
            "generic engine vs OpenSpiel Python MCTSBot",
            where,
            "faster (> 1x)",
            _times(python),
            None if python is None else python > 1.0,
        )
        yield _at_least(
            "tree overhead: compiled sims/s vs raw playouts/s",
            where,
            ratios["compiled_vs_raw"],
            TREE_EFFICIENCY,
            "%",
        )
        per_node = row["tree"]["bytes_per_node"]
        yield Goal(
            "tree memory per node",
            where,
            f"<= {MAX_BYTES_PER_NODE:g} bytes",
            f"{per_node:.1f} bytes",
            per_node <= MAX_BYTES_PER_NODE,
        )


def _at_least(goal: str, where: str, value: float | None, target: float, unit: str) -> Goal:
    show = _percent if unit == "%" else _times
    return Goal(
        goal,
        where,
        f">= {show(target)}",
        show(value),
        None if value is None else value >= target,
    )


# -- tables -------------------------------------------------------------------------------
def tables(report: dict[str, Any]) -> list[TableData]:
    """The report's tables, in reading order."""
    found = []
    repeats = report["options"]["repeats"]
    median = _median_of(repeats)
    if "speed" in report:
        speed = report["speed"]
        found.append(
            TableData(
                f"Compiled engine vs OpenSpiel's C++ MCTSBot and the naive baseline, "
                f"simulations per second ({median})",
                ("game", "position", "compiled", "OpenSpiel C++", "ratio", "naive", "ratio"),
                [_compiled_row(row) for row in speed],
                "Ratios are medians of the ratios within each run; simulation counts per "
                "engine are in the settings.",
            )
        )
        found.append(
            TableData(
                f"Generic engine vs OpenSpiel's Python MCTSBot, simulations per second ({median})",
                (
                    "game",
                    "position",
                    "generic (Python playouts)",
                    "OpenSpiel Python",
                    "ratio",
                    "generic tree + compiled playouts",
                    "ratio",
                ),
                [_generic_row(row) for row in speed],
                "Like for like: the generic engine's tree in Python and its playouts move by "
                "move in Python through the State protocol (uniform_playout), as OpenSpiel's "
                "Python bot plays its rollouts. The last two columns: the same tree with each "
                "playout one compiled call (State.random_playout, the generic engine's "
                "default), not a like-for-like figure.",
            )
        )
        found.append(
            TableData(
                f"Tree overhead and memory ({median})",
                (
                    "game",
                    "position",
                    "raw playouts/s",
                    "compiled / raw",
                    "tree nodes",
                    "slots per node",
                    "bytes per node",
                ),
                [_tree_row(row) for row in report["speed"]],
                "Raw playouts: the kernel's rollout in a compiled loop on copies of the "
                "position, no tree. Bytes per node: slots handed out times bytes per slot, "
                "over nodes, after the compiled search of the speed table.",
            )
        )
    if "profile" in report:
        found.append(
            TableData(
                f"Compiled engine: microseconds per simulation by step (best of {repeats})",
                (
                    "game",
                    "position",
                    "simulations",
                    "total",
                    "rollout",
                    "move listing",
                    "apply (tree)",
                    "rest: selection, expansion, backup",
                ),
                [_profile_row(row) for row in report["profile"]],
                "Each step's cost is the extra time of a search whose kernel does that step "
                "twice (on a copy where it changes the state), less the copy's cost.",
            )
        )
    if "workers" in report:
        found.append(
            TableData(
                f"Root-parallel workers, simulations per second ({median})",
                (
                    "game",
                    "search seconds",
                    "1 worker",
                    "2 workers",
                    "2 / 1",
                    "machine: 2 / 1 processes",
                ),
                [
                    (
                        row["title"],
                        f"{row['seconds']:g}",
                        _rate(row["workers"]["1"]["per_second"]),
                        _rate(row["workers"]["2"]["per_second"]),
                        _times(row["ratio"]),
                        _times(row["machine_ratio"]),
                    )
                    for row in report["workers"]
                ],
                "From the start position; worker start-up excluded. The machine's ceiling: "
                "raw playouts in two independent processes at once over one process, "
                "measured in the same runs.",
            )
        )
    if "memory" in report:
        found.append(
            TableData(
                f"Memory budget honoured ({median})",
                (
                    "game",
                    "settings",
                    "budget MiB",
                    "peak RSS growth MiB",
                    "growth / budget",
                    "stopped by",
                ),
                [
                    (
                        row["title"],
                        row["settings"],
                        f"{row['budget_mb']:g}",
                        _mib(row["peak_rss_growth_mb"]),
                        _percent(row["ratio"]),
                        ", ".join(row["stopped_by"]),
                    )
                    for row in report["memory"]
                ],
                "A compiled search from the start position with Budget(memory_mb=M) (and a "
                f"{_memory_seconds(report)} s limit), in a fresh process, with the plain "
                "settings of the speed tables or the engine's defaults (solver, candidates, "
                "transpositions, UCB1-Tuned, and each game's own playout and GRAVE: "
                f"{_game_defaults(report)}; GRAVE's AMAF pool takes a quarter of the budget "
                "and is touched only as tables are handed out); growth of its peak RSS "
                f"({_memory_method(report)}). A full tree can use less than its budget: the "
                "search stops when the next child block does not fit, and the transposition "
                "table's reserve (its worst case) or the AMAF pool may not fill.",
            )
        )
    if "startup" in report:
        startup = report["startup"]
        found.append(
            TableData(
                # --quick times one cold start (some 25 s) whatever --repeats says.
                f"Start-up, wall clock ({_median_of(len(startup['cold_runs']))})",
                ("command", "cold (empty numba cache)", "warm"),
                [
                    (
                        startup["command"],
                        f"{startup['cold_seconds']:.2f} s",
                        f"{startup['warm_seconds']:.2f} s",
                    )
                ],
            )
        )
    found.append(
        TableData(
            "Goals",
            ("goal", "where", "target", "measured", "met"),
            [(g.goal, g.where, g.target, g.measured, _verdict(g.met)) for g in goals(report)],
        )
    )
    return found


def _median_of(runs: int) -> str:
    return f"median of {runs} run{'s' if runs > 1 else ''}"


def _compiled_row(row: dict[str, Any]) -> tuple[str, ...]:
    ratios = row["ratios"]
    return (
        row["title"],
        row["position"],
        _engine_rate(row, "compiled"),
        _engine_rate(row, "openspiel_cpp"),
        _times(ratios["compiled_vs_openspiel_cpp"]),
        _engine_rate(row, "naive"),
        _times(ratios["compiled_vs_naive"]),
    )


def _generic_row(row: dict[str, Any]) -> tuple[str, ...]:
    ratios = row["ratios"]
    return (
        row["title"],
        row["position"],
        _engine_rate(row, "python"),
        _engine_rate(row, "openspiel_python"),
        _times(ratios["python_vs_openspiel_python"]),
        _engine_rate(row, "python_compiled_playouts"),
        _times(ratios["python_compiled_playouts_vs_openspiel_python"]),
    )


def _engine_rate(row: dict[str, Any], engine: str) -> str:
    """An engine's median simulations per second, "-" where it did not run."""
    found = row["engines"].get(engine)
    return "-" if found is None else _rate(found["per_second"])


def _tree_row(row: dict[str, Any]) -> tuple[str, ...]:
    tree = row["tree"]
    return (
        row["title"],
        row["position"],
        _rate(row["raw_playouts"]["per_second"]),
        _percent(row["ratios"]["compiled_vs_raw"]),
        f"{tree['nodes']:,.0f}",
        f"{tree['slots_per_node']:.2f}",
        f"{tree['bytes_per_node']:.1f}",
    )


def _profile_row(row: dict[str, Any]) -> tuple[str, ...]:
    micros = row["microseconds_per_simulation"]
    return (
        row["title"],
        row["position"],
        f"{row['simulations']:,}",
        *(f"{micros[step]:.3f}" for step in ("total", "rollout", "legal_moves", "apply", "rest")),
    )


def _memory_seconds(report: dict[str, Any]) -> str:
    return ", ".join(sorted({f"{row['seconds']:g}" for row in report["memory"]}))


def _game_defaults(report: dict[str, Any]) -> str:
    """Each game's default playout, and GRAVE where it is on: "Gomoku 8x8 threats, GRAVE"."""
    return "; ".join(
        f"{game['title']} {game['defaults']['playout']}"
        + (", GRAVE" if game["defaults"]["rave"] else "")
        for game in report["games"]
    )


def _memory_method(report: dict[str, Any]) -> str:
    methods = {row["method"] for row in report["memory"]}
    return ", ".join(sorted(methods))


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _times(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value < 10 else f"{value:,.0f}x"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _verdict(met: bool | None) -> str:
    return "not measured" if met is None else "met" if met else "NOT met"


# -- rendering ----------------------------------------------------------------------------
def rich_tables(report: dict[str, Any]) -> list[Table]:
    """The tables for a terminal; in one too narrow for a table, its cells are folded
    onto more lines rather than cut short, so that no digit is lost."""
    rendered = []
    for data in tables(report):
        table = Table(title=data.title, caption=data.note or None)
        for index, column in enumerate(data.columns):
            table.add_column(column, justify="left" if index < 2 else "right", overflow="fold")
        for row in data.rows:
            table.add_row(*row)
        rendered.append(table)
    return rendered


def markdown(report: dict[str, Any], command: str) -> str:
    """The whole report as a Markdown document: machine, settings, tables, goals."""
    lines = ["# mctslab benchmark results", ""]
    lines += _machine_lines(report, command)
    lines += _settings_lines(report)
    for part, error in report.get("errors", {}).items():
        lines += [f"**The {part} measurement failed:** `{error}`", ""]
    for data in tables(report):
        lines += [f"## {data.title}", ""]
        if data.note:
            lines += [data.note, ""]
        lines += _markdown_table(data.columns, data.rows)
    return "\n".join(lines)


def with_hand_written(generated: str, previous: str) -> str:
    """``generated``, then ``previous`` from its line :data:`HAND_WRITTEN` on (if it has one)."""
    lines = previous.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.rstrip() == HAND_WRITTEN:
            return generated.rstrip("\n") + "\n\n" + "".join(lines[index:])
    return generated


def _machine_lines(report: dict[str, Any], command: str) -> list[str]:
    machine = report["machine"]
    return [
        "## Machine and versions",
        "",
        f"- Command: `{command}`",
        f"- CPU: {machine['cpu']}, {machine['cores']} cores ({machine['platform']})",
        f"- Load average (1 / 5 / 15 min) before: {_load(machine.get('loadavg_before'))}; "
        + "".join(
            f"at the start of {part}: {_load(values)}; "
            for part, values in report.get("load", {}).items()
        )
        + f"after: {_load(machine.get('loadavg_after'))}",
        f"- Python {machine['python']}, numba {machine['numba']}, numpy {machine['numpy']}, "
        f"open-spiel {machine['open_spiel'] or 'not installed'}, "
        f"mctslab {machine['mctslab']} (commit {machine['commit'] or 'unknown'})",
        "",
    ]


def _load(values: list[float] | None) -> str:
    return " / ".join(f"{v:.2f}" for v in values) if values else "unknown"


def _settings_lines(report: dict[str, Any]) -> list[str]:
    options = report["options"]
    lines = [
        "## Settings",
        "",
        f"Every engine uses UCT with c = {options['c']:.4f} on values in [0, 1] "
        f"(OpenSpiel: uct_c = {2 * options['c']:.4f} on its [-1, 1] values), uniform random "
        "playouts, no solver. The compiled engine runs its whole search, playouts "
        "included, in numba; OpenSpiel's C++ MCTSBot, its search and rollouts in C++. "
        "The generic engine keeps its tree in Python and plays its playouts move by move "
        "in Python through the State protocol (uniform_playout), as OpenSpiel's Python "
        "MCTSBot plays its rollouts move by move in Python on OpenSpiel's C++ games; "
        '"generic tree + compiled playouts" is the generic engine with each playout one '
        "compiled call (State.random_playout). Each engine's simulations a search (below) "
        "are chosen so that its searches take about as long as its peer's "
        "(a rate grows with the count, as a search's fixed costs spread); the generic "
        "engine with Python playouts runs OpenSpiel Python's count. Each figure is the median of "
        f"{options['repeats']} runs{' (quick counts)' if options['quick'] else ''}. "
        "Mid-game positions are reached from the start by these moves:",
        "",
    ]
    counts = [
        (
            game["title"],
            game["midgame"],
            *(
                f"{game['counts'][key]:,}" if game["counts"][key] else "-"
                for key in ("compiled", "openspiel_cpp", "python", "openspiel_python", "naive")
            ),
            f"{game['counts']['raw']:,}",
            f"{game['counts']['memory_mb']:g}",
        )
        for game in report["games"]
    ]
    lines += _markdown_table(
        (
            "game",
            "mid-game moves",
            "compiled",
            "OpenSpiel C++",
            "generic tree + compiled playouts",
            "OpenSpiel Python",
            "naive",
            "raw playouts",
            "memory budget MiB",
        ),
        counts,
    )
    return lines


def _markdown_table(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(columns))) + "|",
    ]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return [*lines, ""]
