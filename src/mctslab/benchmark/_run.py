"""The benchmark run: every measurement repeated, medians, and ratios paired within a repeat.

Within one repeat the engines run one after the other on the same position,
so a ratio compares timings taken seconds apart (this machine's load drifts
over minutes); the reported ratio is the median of the per-repeat ratios.
"""

from __future__ import annotations

import multiprocessing
import os
import platform
import statistics
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from mctslab._validation import check_choice, check_int, invalid
from mctslab.benchmark import _measure as measure
from mctslab.benchmark._games import GAMES, BenchGame, Position
from mctslab.benchmark._kernels import VARIANTS
from mctslab.benchmark._memory import SETTINGS
from mctslab.benchmark._memory import measure as measure_memory
from mctslab.benchmark._startup import ANALYZE, cold_and_warm
from mctslab.core.policies import default_simulation, uniform_playout
from mctslab.fast import FastMCTS, warm_up

#: What a run can measure (all by default).
PARTS = ("speed", "profile", "workers", "memory", "startup")
#: Seed of the first repeat; repeat i uses BASE_SEED + i.
BASE_SEED = 1
#: Search time of each worker timing, in seconds (``--quick``: a tenth).
WORKER_SECONDS = 1.0
#: Time limit of a memory-budget search that does not fill its budget (``--quick``: a tenth).
MEMORY_SECONDS = 20.0
#: The profile times its variants at this fraction of the compiled engine's count.
PROFILE_FRACTION = 4
#: Simulations of the untimed first search of each engine (compiles, loads, starts).
_WARM_UP = 50

#: ``log(message)``: told what the run is measuring now.
Log = Callable[[str], None]


@dataclass(frozen=True)
class Options:
    """What to measure: game keys (see :data:`GAMES`), repeats per figure, parts, quick counts."""

    games: tuple[str, ...] = tuple(GAMES)
    repeats: int = 5
    quick: bool = False
    parts: tuple[str, ...] = PARTS

    def __post_init__(self) -> None:
        for name, chosen, choices in (
            ("games", self.games, tuple(GAMES)),
            ("parts", self.parts, PARTS),
        ):
            # None chosen would measure nothing: empty tables, holes in their notes.
            if not chosen:
                names = ", ".join(map(repr, choices))
                raise invalid(name, "the benchmark", f"one or more of {names}", chosen)
            for value in chosen:
                check_choice(value, name, "the benchmark", choices)
            # A name twice would measure twice and report it twice.
            if len(set(chosen)) < len(chosen):
                raise invalid(name, "the benchmark", "names each given once", chosen)
        check_int(self.repeats, "repeats", "the benchmark", low=1)

    def arguments(self) -> list[str]:
        """The options of ``mctslab bench`` that ask for this run."""
        words = []
        if self.games != tuple(GAMES):
            words += ["--games", ",".join(self.games)]
        if self.parts != PARTS:
            words += ["--parts", ",".join(self.parts)]
        words += ["--repeats", str(self.repeats)]
        return [*words, "--quick"] if self.quick else words

    def bench_games(self) -> list[BenchGame]:
        return [GAMES[key].quick() if self.quick else GAMES[key] for key in self.games]


def run(options: Options, log: Log | None = None) -> dict[str, Any]:
    """Measure everything ``options`` asks for; the report as JSON-ready data.

    A part that raises is left out, its error kept under ``"errors"``; the
    load averages at the start of each part are kept under ``"load"``.
    """
    say = log or (lambda message: None)
    games = options.bench_games()
    report: dict[str, Any] = {
        "machine": machine(),
        "options": {
            "games": list(options.games),
            "repeats": options.repeats,
            "quick": options.quick,
            "parts": list(options.parts),
            "c": measure.C,
            "openspiel": measure.openspiel_available(),
        },
        "games": [_game_info(game) for game in games],
    }
    warm_up()
    repeats = options.repeats
    scale = 0.1 if options.quick else 1.0
    measurements: dict[str, Callable[[], Any]] = {
        "speed": lambda: [
            _speed(game, position, repeats, say) for game in games for position in game.positions
        ],
        "profile": lambda: [
            _profile(game, position, repeats, say) for game in games for position in game.positions
        ],
        "workers": lambda: [_workers(game, WORKER_SECONDS * scale, repeats, say) for game in games],
        "memory": lambda: [
            _memory(game, settings, MEMORY_SECONDS * scale, repeats, say)
            for game in games
            for settings in SETTINGS
        ],
        # A cold start compiles everything (some 25 s): a smoke test makes one.
        "startup": lambda: _startup(1 if options.quick else repeats, say),
    }
    report["load"] = {}
    report["errors"] = {}
    for part in PARTS:
        if part in options.parts:
            report["load"][part] = _loadavg()
            # A part that fails (a peer missing, a broken command) must not lose the others.
            try:
                report[part] = measurements[part]()
            except Exception as error:
                report["errors"][part] = f"{type(error).__name__}: {error}"
                say(f"{part} failed: {error}")
    report["machine"]["loadavg_after"] = _loadavg()
    return report


# -- the parts ----------------------------------------------------------------------
def _speed(game: BenchGame, position: Position, repeats: int, say: Log) -> dict[str, Any]:
    start = game.start()
    state, moves = position.build(start)
    counts = game.counts
    usages: list[measure.TreeUsage] = []

    def compiled(count: int, seed: int) -> measure.Timing:
        timing, usage = measure.compiled(state, count, seed)
        usages.append(usage)
        return timing

    runs: dict[str, tuple[int, Callable[[int, int], measure.Timing]]] = {
        "compiled": (counts.compiled, compiled),
        # Like OpenSpiel's Python bot, and as many simulations: each playout move by move
        # in Python, some times slower than one compiled call.
        "python": (
            counts.openspiel_python,
            lambda n, seed: measure.generic(state, n, seed, uniform_playout),
        ),
        # The same tree with each playout one compiled call (State.random_playout).
        "python_compiled_playouts": (
            counts.python,
            lambda n, seed: measure.generic(state, n, seed, default_simulation),
        ),
    }
    if measure.openspiel_available():
        runs["openspiel_cpp"] = (
            counts.openspiel,
            lambda n, seed: measure.openspiel_cpp(start, moves, n, seed),
        )
        runs["openspiel_python"] = (
            counts.openspiel_python,
            lambda n, seed: measure.openspiel_python(start, moves, n, seed),
        )
    if counts.naive:
        runs["naive"] = (counts.naive, lambda n, seed: measure.naive(state, n, seed))
    runs["raw"] = (counts.raw, lambda n, seed: measure.raw_playouts(state, n, seed))

    say(f"{game.title}, {position.name}: warming up")
    for count, timed in runs.values():
        timed(min(count, _WARM_UP), BASE_SEED)
    usages.clear()
    timings: dict[str, list[measure.Timing]] = {name: [] for name in runs}
    for repeat in range(repeats):
        say(f"{game.title}, {position.name}: search speed, run {repeat + 1} of {repeats}")
        for name, (count, timed) in runs.items():
            timings[name].append(timed(count, BASE_SEED + repeat))
    raw = timings.pop("raw")
    return {
        **_where(game, position),
        "engines": {name: _summary(found) for name, found in timings.items()},
        "raw_playouts": _summary(raw),
        "ratios": {
            "compiled_vs_openspiel_cpp": _ratio(timings, "compiled", "openspiel_cpp"),
            "compiled_vs_naive": _ratio(timings, "compiled", "naive"),
            "python_vs_openspiel_python": _ratio(timings, "python", "openspiel_python"),
            "python_compiled_playouts_vs_openspiel_python": _ratio(
                timings, "python_compiled_playouts", "openspiel_python"
            ),
            "compiled_vs_raw": _ratio({**timings, "raw": raw}, "compiled", "raw"),
        },
        "tree": {
            "nodes": statistics.median(u.nodes for u in usages),
            "slots_per_node": statistics.median(u.slots / u.nodes for u in usages),
            "bytes_per_slot": usages[0].bytes_per_slot,
            "bytes_per_node": statistics.median(u.bytes_per_node for u in usages),
        },
    }


def _profile(game: BenchGame, position: Position, repeats: int, say: Log) -> dict[str, Any]:
    """Microseconds per simulation spent in each step, from the kernel variants' extra time.

    Variants whose extra work does not change the search (all but
    ``rollout_twice``, which draws more random numbers) build the very same tree.
    """
    state, _ = position.build(game.start())
    count = max(1, game.counts.compiled // PROFILE_FRACTION)
    states = {"base": state} | {name: measure.variant_state(state, name) for name in VARIANTS}
    say(f"{game.title}, {position.name}: compiling the profiling variants")
    for variant in states.values():
        measure.compiled(variant, _WARM_UP, BASE_SEED)
    seconds: dict[str, list[float]] = {name: [] for name in states}
    for repeat in range(repeats):
        say(f"{game.title}, {position.name}: profile, run {repeat + 1} of {repeats}")
        for name, variant in states.items():
            timing, _ = measure.compiled(variant, count, BASE_SEED + repeat)
            seconds[name].append(timing.seconds)
    # The best run of each: a step's cost is a difference of timings, and the
    # machine's noise only ever adds time, so the least disturbed runs compare best.
    micros = {name: min(found) / count * 1e6 for name, found in seconds.items()}
    rollout = micros["rollout_twice"] - micros["rollout_copy"]
    legal_moves = micros["legal_moves_twice"] - micros["base"]
    apply = micros["apply_twice"] - micros["apply_copy"]
    return {
        **_where(game, position),
        "simulations": count,
        "microseconds_per_simulation": {
            "total": micros["base"],
            "rollout": rollout,
            "legal_moves": legal_moves,
            "apply": apply,
            "rest": micros["base"] - rollout - legal_moves - apply,
        },
        "variants_microseconds": micros,
    }


def _workers(game: BenchGame, seconds: float, repeats: int, say: Log) -> dict[str, Any]:
    """1 vs 2 workers, and the machine's own ceiling: raw playouts in 1 vs 2 processes."""
    state = game.start()
    config = replace(measure.plain_config(BASE_SEED), reuse_tree=False)
    count = game.counts.raw
    say(f"{game.title}: starting the worker processes")
    timings: dict[str, list[measure.Timing]] = {"1": [], "2": [], "raw_1": [], "raw_2": []}
    with (
        FastMCTS(config) as one,
        FastMCTS(config, workers=2) as two,
        multiprocessing.get_context("spawn").Pool(2) as pool,
    ):
        engines = {"1": one, "2": two}
        for engine in engines.values():
            measure.workers(engine, state, seconds / 10)  # starts the pool
        measure.parallel_playouts(pool, 2, state, _WARM_UP, BASE_SEED)
        for repeat in range(repeats):
            say(f"{game.title}: 1 and 2 workers, run {repeat + 1} of {repeats}")
            for name, engine in engines.items():
                timings[name].append(measure.workers(engine, state, seconds))
            seed = BASE_SEED + repeat
            timings["raw_1"].append(measure.raw_playouts(state, count, seed))
            timings["raw_2"].append(measure.parallel_playouts(pool, 2, state, count, seed))
    return {
        "game": game.key,
        "title": game.title,
        "seconds": seconds,
        "workers": {name: _summary(timings[name]) for name in ("1", "2")},
        "ratio": _ratio(timings, "2", "1"),
        "raw_processes": {"1": _summary(timings["raw_1"]), "2": _summary(timings["raw_2"])},
        "machine_ratio": _ratio(timings, "raw_2", "raw_1"),
    }


def _memory(
    game: BenchGame, settings: str, seconds: float, repeats: int, say: Log
) -> dict[str, Any]:
    budget = game.counts.memory_mb
    runs = []
    for repeat in range(repeats):
        say(
            f"{game.title}: peak RSS under a {budget:g} MiB budget, {settings} settings, "
            f"run {repeat + 1} of {repeats}"
        )
        runs.append(measure_memory(game.key, budget, seconds, BASE_SEED + repeat, settings))
    return {
        "game": game.key,
        "title": game.title,
        "settings": settings,
        "seconds": seconds,
        "budget_mb": budget,
        "peak_rss_growth_mb": _median_measured(runs, "peak_rss_growth_mb"),
        "ratio": _median_measured(runs, "ratio"),
        "stopped_by": sorted({r["stopped_by"] for r in runs}),
        "nodes": statistics.median(r["nodes"] for r in runs),
        "method": ", ".join(sorted({r["method"] for r in runs})),
        "runs": runs,
    }


def _startup(repeats: int, say: Log) -> dict[str, Any]:
    cold, warm = [], []
    for repeat in range(repeats):
        say(f"start-up of mctslab {' '.join(ANALYZE)}, run {repeat + 1} of {repeats}")
        first, second = cold_and_warm()
        cold.append(first)
        warm.append(second)
    return {
        "command": "mctslab " + " ".join(ANALYZE),
        "cold_seconds": statistics.median(cold),
        "warm_seconds": statistics.median(warm),
        "cold_runs": cold,
        "warm_runs": warm,
    }


# -- helpers --------------------------------------------------------------------------
def _where(game: BenchGame, position: Position) -> dict[str, Any]:
    return {
        "game": game.key,
        "title": game.title,
        "position": position.name,
        "moves": position.moves,
    }


def _summary(timings: Sequence[measure.Timing]) -> dict[str, Any]:
    rates = [t.rate for t in timings]
    return {
        "simulations": timings[0].simulations,
        "per_second": statistics.median(rates),
        "runs": rates,
    }


def _median_measured(runs: list[dict[str, Any]], key: str) -> float | None:
    """The median of ``key`` over ``runs``; None if a run could not measure it."""
    values = [run[key] for run in runs]
    return None if None in values else statistics.median(values)


def _ratio(timings: dict[str, list[measure.Timing]], top: str, bottom: str) -> float | None:
    """Median over repeats of ``top``'s rate over ``bottom``'s; None if either is missing."""
    if top not in timings or bottom not in timings:
        return None
    return statistics.median(
        a.rate / b.rate for a, b in zip(timings[top], timings[bottom], strict=True)
    )


def _game_info(game: BenchGame) -> dict[str, Any]:
    kernel = game.start().kernel
    return {
        "game": game.key,
        "title": game.title,
        "registry": {"name": game.game, **game.params},
        "midgame": game.midgame,
        # What the engine's default settings leave to the game (the memory part uses them).
        "defaults": {"playout": kernel.preferred_playout, "rave": kernel.prefers_rave},
        "counts": {
            "compiled": game.counts.compiled,
            "openspiel_cpp": game.counts.openspiel,
            "python": game.counts.python,
            "openspiel_python": game.counts.openspiel_python,
            "naive": game.counts.naive,
            "raw": game.counts.raw,
            "memory_mb": game.counts.memory_mb,
        },
    }


def machine() -> dict[str, Any]:
    """The machine and the versions a result was measured with."""
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numba": _version("numba"),
        "numpy": _version("numpy"),
        "open_spiel": _version("open_spiel"),
        "mctslab": _version("mctslab"),
        "commit": _commit(),
        "loadavg_before": _loadavg(),
    }


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _loadavg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the system does not tell)."""
    try:
        return [float(x) for x in os.getloadavg()]
    except OSError:
        return None


def _commit() -> str | None:
    """The git commit of the source tree, "+dirty" when it has changes; None outside git."""
    here = Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(here), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")
