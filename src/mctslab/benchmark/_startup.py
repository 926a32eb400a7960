"""Cold and warm start of a command: with an empty numba cache, then with the cache it filled.

Cold is what a user waits for the first time (every kernel and the search
loop compile); warm is every later run (the code loads from the cache).
Each run is a fresh interpreter timed by the wall clock from outside.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from time import perf_counter

#: The command timed: ``mctslab analyze gomoku --iterations 1000``.
ANALYZE = ("analyze", "gomoku", "--iterations", "1000")


def cold_and_warm(command: Sequence[str] | None = None) -> tuple[float, float]:
    """Seconds of one cold and one warm run of ``command`` (default: ``mctslab`` + ANALYZE)."""
    argv = list(command) if command is not None else [sys.executable, "-m", "mctslab", *ANALYZE]
    with tempfile.TemporaryDirectory(prefix="mctslab-numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        return _wall(argv, env), _wall(argv, env)


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = perf_counter()
    completed = subprocess.run(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
    )
    seconds = perf_counter() - start
    if completed.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} exited with status {completed.returncode}:\n"
            f"{completed.stderr[-2000:]}"
        )
    return seconds
