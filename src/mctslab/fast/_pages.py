"""Zeroed arrays for the compiled engine's trees, mapped straight from the operating system.

A tree reserves its whole capacity up front and counts on zeroed memory
costing address space, not memory, until the tree writes it (see
:mod:`mctslab.fast._tree`). That holds for pages the operating system maps
fresh, not for memory that ``malloc`` recycles: ``calloc`` (under
``np.zeros``) must clear a recycled block itself, which writes every page of
it. glibc maps a block fresh only above its mmap threshold, and raises that
threshold to the size of each mapped block freed, up to 32 MiB. Once a first
tree was freed, the arrays of the next ones up to that size came from its
heaps: recycled, so each was resident in full however little of it the tree
used, and the heaps kept what freed trees left. Measured on the web board
(``benchmarks/web_memory.py``): 32 kept games of a few MiB of tree each held
2.4 GiB resident after 100 games, and with every game deleted the server
kept 230 MiB more than at its start.

Mapped here, an array is the operating system's from the start: zero pages
until written, unmapped when the array goes. Small arrays still come from
numpy's allocator, where a page each would waste more than it saves. As numpy
does for its own arrays of 4 MiB and more, big ones ask for huge pages where
the system gives them on request (Linux's transparent huge pages in "madvise"
mode): fewer TLB misses in a tree read all over. An array that cannot be
mapped raises MemoryError, as ``np.zeros`` does.
"""

from __future__ import annotations

import errno
import mmap

import numpy as np
import numpy.typing as npt

#: Arrays of this many bytes and more are mapped; smaller ones come from ``np.zeros``.
MAPPED_BYTES = 2**20
#: Arrays of this many bytes and more ask for huge pages (numpy's own threshold).
HUGE_PAGE_BYTES = 4 * 2**20


def zeros(count: int, dtype: npt.DTypeLike) -> np.ndarray:
    """``np.zeros(count, dtype)``, mapped from the operating system from MAPPED_BYTES up."""
    size = count * np.dtype(dtype).itemsize
    if size < MAPPED_BYTES:
        return np.zeros(count, dtype=dtype)
    try:
        if hasattr(mmap, "MAP_PRIVATE"):
            # Private: a process forked while a tree lives gets a copy, as with malloc's
            # memory (mmap's default for anonymous memory is shared).
            pages = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
        else:  # Windows: anonymous memory is the process's own
            pages = mmap.mmap(-1, size)
    except OSError as error:
        if error.errno != errno.ENOMEM:
            raise
        raise MemoryError(f"Unable to map {size:,} bytes for a tree array.") from error
    if size >= HUGE_PAGE_BYTES and hasattr(mmap, "MADV_HUGEPAGE"):
        pages.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(pages, dtype=dtype)
