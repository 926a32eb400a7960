"""The compiled engine: the whole MCTS loop in numba, over a game's compiled kernel.

``FastMCTS(SearchConfig(...), workers=1).search(state, Budget(...))`` searches
any bundled game (any :class:`~mctslab.games.State` with a compiled
:class:`~mctslab.games.Kernel`) and returns the same :class:`SearchResult`
as the generic engine.

numba compiles the loop on first use and caches it on disk, so only the first
run on an installation waits (several seconds). A front end can say so::

    from mctslab import fast

    if not fast.is_warm():
        with spinner("compiling the search engine (first run only)..."):
            fast.warm_up()

With ``workers > 1`` the searches run in processes started with "spawn",
which imports the main module again: a script must start its searches
under ``if __name__ == "__main__":``.
"""

from mctslab.fast._engine import DEFAULT_TREE_MB, FastMCTS
from mctslab.fast._loop import is_warm, warm_up
from mctslab.fast._pool import WorkerError
from mctslab.fast._tree import BYTES_PER_NODE, bytes_per_node

__all__ = [
    "BYTES_PER_NODE",
    "DEFAULT_TREE_MB",
    "FastMCTS",
    "WorkerError",
    "bytes_per_node",
    "is_warm",
    "warm_up",
]
