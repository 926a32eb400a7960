"""Knowing ahead whether the first search will compile (for the CLI's spinner)."""

from __future__ import annotations

import subprocess
import sys

from numba import njit, types

from mctslab import fast
from mctslab.fast._loop import _in_disk_cache


def test_a_new_process_finds_the_cache_without_loading_or_compiling() -> None:
    fast.warm_up()
    assert fast.is_warm()
    code = (
        "import mctslab.fast._loop as loop; "
        "print(loop.is_warm(), len(loop.search_loop.signatures), len(loop.compact.signatures))"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert answer == ["True", "0", "0"]


def test_a_function_without_a_disk_cache_is_not_warm() -> None:
    uncached = njit(lambda x: x)
    assert not _in_disk_cache(uncached, types.int64(types.int64))
