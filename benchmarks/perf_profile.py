"""Where the compiled engine's time goes, by function: perf samples with numba's code named.

    python benchmarks/perf_profile.py tictactoe --position midgame --iterations 1000000

It compiles the engine afresh (an empty numba cache: code loaded from the
cache keeps no symbol table), writes ``/tmp/perf-PID.map`` naming every
compiled function (the file perf reads for JIT code), then records the
searches alone with ``perf record -p`` and prints the share of samples per
function. The searches use the benchmark's plain settings (see
:func:`mctslab.benchmark._measure.plain_config`). Functions numba inlined
count in their caller; the game's kernel functions are called through
function pointers and appear on their own, as do libm's ``log``, numba's
reference counting (``NRT_incref``/``NRT_decref``) and the C library's
``malloc``/``free`` (numba's array allocation).
Needs Linux ``perf`` with ``kernel.perf_event_paranoid`` <= 2.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Before numba is imported: compile into an empty cache so every function has its LLVM module
# (removed when the profile ends).
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mctslab-perf-")

from numba.core.dispatcher import Dispatcher

from mctslab.benchmark import GAMES
from mctslab.benchmark._measure import plain_config
from mctslab.core.config import Budget
from mctslab.fast import FastMCTS, warm_up
from mctslab.games import State

_COMPONENT = re.compile(r"(\d+)")


def readable(symbol: str) -> str:
    """``mctslab.fast._loop._search`` for numba's mangled ``_ZN7mctslab4fast5_loop7_searchB...``."""
    prefix = ""
    if symbol.startswith("cfunc."):
        prefix, symbol = "cfunc.", symbol[len("cfunc.") :]
    if not symbol.startswith("_ZN"):
        return prefix + symbol
    parts, rest = [], symbol[3:]
    while rest and rest[0].isdigit():
        length = int(_COMPONENT.match(rest).group(1))  # type: ignore[union-attr]
        digits = len(str(length))
        parts.append(rest[digits : digits + length])
        rest = rest[digits + length :]
    return prefix + ".".join(parts)


def write_perf_map() -> Path:
    """Name every function numba compiled in this process, for perf (sizes from address gaps)."""
    entries = set()
    for dispatcher in (obj for obj in gc.get_objects() if isinstance(obj, Dispatcher)):
        for result in dispatcher.overloads.values():
            module = getattr(result.library, "_final_module", None)
            if module is None:
                continue
            for function in module.functions:
                if not function.is_declaration:
                    address = result.library.get_pointer_to_function(function.name)
                    if address:
                        entries.add((address, readable(function.name)))
    ordered = sorted(entries)
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    with path.open("w") as out:
        for index, (address, name) in enumerate(ordered):
            following = ordered[index + 1][0] if index + 1 < len(ordered) else address + 4096
            out.write(f"{address:x} {min(following - address, 1 << 16):x} {name}\n")
    return path


def at_least_one(text: str) -> int:
    """An argparse type: an int >= 1 (0 iterations or repeats would profile nothing)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def record(data: Path, searches: list[FastMCTS], state: State, iterations: int) -> None:
    """Run ``searches`` under ``perf record`` into ``data``; exit with perf's message on failure."""
    recorder = subprocess.Popen(
        ["perf", "record", "-F", "4000", "-p", str(os.getpid()), "-o", str(data)],
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.5)  # perf attaches
    if recorder.poll() is not None:  # refused: perf_event_paranoid, no permission, no PID
        _, errors = recorder.communicate()
        sys.exit(f"perf record exited with status {recorder.returncode}:\n{errors.strip()}")
    for search in searches:
        search.search(state, Budget(iterations=iterations))
    recorder.send_signal(signal.SIGINT)
    _, errors = recorder.communicate()
    if not data.exists():
        sys.exit(f"perf record wrote no samples (status {recorder.returncode}):\n{errors.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--position", choices=("start", "midgame"), default="start")
    parser.add_argument("--iterations", type=at_least_one, default=None)
    parser.add_argument("--repeats", type=at_least_one, default=3)
    parser.add_argument("--top", type=at_least_one, default=25)
    args = parser.parse_args()
    game = GAMES[args.game]
    start, midgame = game.positions
    state, _ = (start if args.position == "start" else midgame).build(game.start())
    iterations = game.counts.compiled if args.iterations is None else args.iterations
    warm_up()
    FastMCTS(plain_config(0)).search(state, Budget(iterations=1000))
    perf_map = write_perf_map()
    try:
        with tempfile.TemporaryDirectory(prefix="mctslab-perf-data-") as folder:
            data = Path(folder) / "perf.data"
            record(
                data, [FastMCTS(plain_config(r)) for r in range(args.repeats)], state, iterations
            )
            report = subprocess.run(
                ["perf", "report", "-i", str(data), "--sort", "dso,sym", "--stdio",
                 "--percent-limit=0.3"],
                capture_output=True,
                text=True,
                check=False,
            )  # fmt: skip
        if report.returncode != 0:
            sys.exit(f"perf report exited with status {report.returncode}:\n{report.stderr}")
    finally:
        perf_map.unlink()
    rows = [
        line for line in report.stdout.splitlines() if line.strip() and not line.startswith("#")
    ]
    print(f"{game.title}, {args.position}: {args.repeats} x {iterations:,} simulations")
    print("\n".join(rows[: args.top]))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)
