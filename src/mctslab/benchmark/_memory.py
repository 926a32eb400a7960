"""Peak memory of a compiled search under ``Budget(memory_mb=M)``, measured in a fresh process.

A fresh process, so that nothing else the benchmark did lingers in its
resident set. It loads the engine and runs a tiny search first (code, small
buffers), then resets the kernel's peak-RSS mark (``5`` into
``/proc/self/clear_refs``, Linux >= 4.0) and reads ``VmHWM`` before and after
the measured search: the growth is what that search added at its peak.
Where the mark cannot be reset (not Linux, or the file not writable), the
growth is not measured (None): the peak would still be the start-up's
(imports, compiling), which hides the tree.

The search runs with the benchmark's plain settings (those of its peers) or
with the engine's default ones, whose transposition table also grows with
the tree. A search that has not filled its budget after ``seconds`` stops
(some trees stop growing: tic-tac-toe's has few positions). Run as
``python -m mctslab.benchmark._memory GAME MEMORY_MB SECONDS SEED SETTINGS``
(``plain`` or ``default``); prints JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")
_KIB = 1024.0
#: The settings a memory measurement can search with.
SETTINGS = ("plain", "default")
#: The method of a measurement whose peak RSS could not be reset: none.
NOT_RESET = f"not measured: {_CLEAR_REFS} could not be written to reset the peak RSS"


def measure(
    game: str, memory_mb: float, seconds: float, seed: int, settings: str
) -> dict[str, Any]:
    """Run the measurement in a fresh interpreter and return what it found."""
    completed = subprocess.run(
        [sys.executable, "-m", __name__, game, repr(memory_mb), repr(seconds), str(seed), settings],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"The memory measurement failed:\n{completed.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(completed.stdout)
    return result


def _peak_growth(
    game: str, memory_mb: float, seconds: float, seed: int, settings: str
) -> dict[str, Any]:
    from mctslab.benchmark._games import GAMES
    from mctslab.benchmark._measure import plain_config
    from mctslab.core.config import Budget, SearchConfig
    from mctslab.fast import FastMCTS, warm_up

    config = plain_config(seed) if settings == "plain" else SearchConfig(seed=seed)
    warm_up()
    state = GAMES[game].start()
    FastMCTS(replace(config, reuse_tree=False)).search(state, Budget(iterations=100))
    before = _peak_kib() if _reset_peak() else None
    result = FastMCTS(config).search(state, Budget(memory_mb=memory_mb, seconds=seconds))
    growth_mb = None if before is None else (_peak_kib() - before) / _KIB
    return {
        "settings": settings,
        "budget_mb": memory_mb,
        "peak_rss_growth_mb": growth_mb,
        "ratio": None if growth_mb is None else growth_mb / memory_mb,
        "stopped_by": result.stopped_by,
        "nodes": result.nodes,
        "simulations": result.simulations,
        "method": NOT_RESET if before is None else "VmHWM after clear_refs",
    }


def _reset_peak() -> bool:
    """Reset the process's peak RSS to its current RSS; False where the system cannot."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return _STATUS.exists()


def _peak_kib() -> float:
    """The process's peak resident set size in KiB (``VmHWM``)."""
    for line in _STATUS.read_text().splitlines():
        if line.startswith("VmHWM:"):
            return float(line.split()[1])
    raise RuntimeError(f"{_STATUS} has no VmHWM line")


if __name__ == "__main__":
    game, memory_mb, seconds, seed, settings = sys.argv[1:]
    print(json.dumps(_peak_growth(game, float(memory_mb), float(seconds), int(seed), settings)))
