"""Search settings shared by the generic and the compiled engine."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from mctslab._validation import check_choice, check_float, check_int

TreePolicy = Literal["uct", "coinflip"]
FinalMove = Literal["visits", "value"]


@dataclass(frozen=True)
class Budget:
    """When to stop searching; any combination, the first limit reached wins.

    With nothing set, :data:`DEFAULT_ITERATIONS` iterations are run.
    """

    iterations: int | None = None
    seconds: float | None = None
    max_nodes: int | None = None
    memory_mb: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None:
            check_int(self.iterations, "iterations", "Budget", low=1)
        if self.seconds is not None:
            check_float(self.seconds, "seconds", "Budget", low=0.0)
        if self.max_nodes is not None:
            check_int(self.max_nodes, "max_nodes", "Budget", low=2)
        if self.memory_mb is not None:
            check_float(self.memory_mb, "memory_mb", "Budget", low=0.0)

    @property
    def is_unbounded(self) -> bool:
        return all(
            limit is None
            for limit in (self.iterations, self.seconds, self.max_nodes, self.memory_mb)
        )

    def effective(self) -> Budget:
        """This budget, or the default iteration budget when nothing is set."""
        return Budget(iterations=DEFAULT_ITERATIONS) if self.is_unbounded else self


DEFAULT_ITERATIONS = 10_000


@dataclass(frozen=True, kw_only=True)
class SearchConfig:
    """How the tree is searched.

    - ``c``: the UCT exploration constant. UCB1's sqrt(2) for rewards in [0, 1]
      (Auer, Cesa-Bianchi & Fischer 2002; Kocsis & Szepesvári 2006).
    - ``tree_policy``: ``"uct"`` selects by UCT below fully expanded nodes and
      expands one untried move otherwise. ``"coinflip"`` is the policy of the
      classic numbers-game example: a node with no children is expanded; else a
      fair coin decides between following the best UCT child and expanding
      (when moves are left untried). Its customary ``c`` is 1/(2*sqrt 2).
    - ``final_move``: ``"visits"`` plays the most visited move (robust child,
      Chaslot et al. 2008); ``"value"`` the highest mean value.
    - ``seed``: None draws fresh entropy; an int makes a search on one thread
      with an iteration budget fully reproducible.
    - ``reuse_tree``: keep the subtree of the move played for the next search.
    """

    c: float = math.sqrt(2.0)
    tree_policy: TreePolicy = "uct"
    final_move: FinalMove = "visits"
    seed: int | None = None
    reuse_tree: bool = True

    def __post_init__(self) -> None:
        check_float(self.c, "c", "SearchConfig", low=0.0, low_inclusive=True)
        check_choice(self.tree_policy, "tree_policy", "SearchConfig", ("uct", "coinflip"))
        check_choice(self.final_move, "final_move", "SearchConfig", ("visits", "value"))
        if self.seed is not None:
            check_int(self.seed, "seed", "SearchConfig", low=0)


#: The exploration constant of the classic numbers-game example.
COINFLIP_C = 1.0 / (2.0 * math.sqrt(2.0))
