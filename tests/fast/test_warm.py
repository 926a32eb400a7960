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


def test_threads_that_warm_up_at_once_all_get_the_engine() -> None:
    # The web board's first searches start together. Before, one thread loaded
    # the loop and disabled compiling while the others were about to load it:
    # they failed with "compilation disabled" (3 of 4 here).
    fast.warm_up()  # the disk cache is there; the new process loads it
    code = (
        "import threading\n"
        "from mctslab import fast\n"
        "errors = []\n"
        "def go():\n"
        "    try:\n"
        "        fast.warm_up()\n"
        "    except Exception as error:\n"
        "        errors.append(repr(error))\n"
        "threads = [threading.Thread(target=go) for _ in range(4)]\n"
        "for thread in threads: thread.start()\n"
        "for thread in threads: thread.join()\n"
        "print(errors)\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert answer.stdout.strip() == "[]"
