"""Search settings shared by the generic and the compiled engine."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from mctslab._validation import check_choice, check_float, check_instance, check_int, invalid
from mctslab.games._base import PLAYOUTS, Playout

TreePolicy = Literal["uct", "coinflip"]
FinalMove = Literal["visits", "value"]
Bandit = Literal["ucb1", "ucb1-tuned"]


def _keep(config: object, name: str, value: object) -> None:
    """Set a frozen dataclass's field to its checked value."""
    object.__setattr__(config, name, value)


@dataclass(frozen=True)
class Budget:
    """When to stop searching; any combination, the first limit reached wins.

    With nothing set, :data:`DEFAULT_ITERATIONS` iterations are run. A budget
    of tree size alone (``max_nodes`` or ``memory_mb``) also ends once
    :data:`SETTLED_AFTER` simulations in a row add no node
    (``stopped_by="settled"``): the search keeps to lines it has already
    followed to the game's end (a small game, a decided position), and the
    tree might take hours to fill, or never fill.

    ``memory_mb`` is the tree's memory in MiB (both engines; see each for
    how a node is charged). The compiled engine's ``workers`` split
    ``iterations``, ``max_nodes`` and ``memory_mb`` among their trees, each
    taking an equal share (iterations to within one), and each searches for
    the whole ``seconds``.
    """

    iterations: int | None = None
    seconds: float | None = None
    max_nodes: int | None = None
    memory_mb: float | None = None

    def __post_init__(self) -> None:
        # The checked values are kept, so a NumPy number is stored as the Python one it holds.
        if self.iterations is not None:
            _keep(self, "iterations", check_int(self.iterations, "iterations", "Budget", low=1))
        if self.seconds is not None:
            _keep(self, "seconds", check_float(self.seconds, "seconds", "Budget", low=0.0))
        if self.max_nodes is not None:
            _keep(self, "max_nodes", check_int(self.max_nodes, "max_nodes", "Budget", low=2))
        if self.memory_mb is not None:
            _keep(self, "memory_mb", check_float(self.memory_mb, "memory_mb", "Budget", low=0.0))

    @property
    def is_unbounded(self) -> bool:
        return all(
            limit is None
            for limit in (self.iterations, self.seconds, self.max_nodes, self.memory_mb)
        )

    @property
    def sized_only(self) -> bool:
        """Whether the tree's size is the only limit (no iterations, no seconds)."""
        return self.iterations is None and self.seconds is None and not self.is_unbounded

    def effective(self) -> Budget:
        """This budget, or the default iteration budget when nothing is set."""
        return Budget(iterations=DEFAULT_ITERATIONS) if self.is_unbounded else self


DEFAULT_ITERATIONS = 10_000
#: Simulations in a row that add no node to the tree and so end a search whose
#: budget is the tree's size alone (``stopped_by="settled"``; see :class:`Budget`).
SETTLED_AFTER = 10_000
#: The largest seed: the compiled engine's generator state is 64 bits.
MAX_SEED = 2**64 - 1


@dataclass(frozen=True, kw_only=True)
class SearchConfig:
    """How the tree is searched.

    - ``c``: the UCT exploration constant. UCB1's sqrt(2) for rewards in [0, 1]
      (Auer, Cesa-Bianchi & Fischer 2002; Kocsis & Szepesvári 2006).
    - ``tree_policy``: ``"uct"`` selects by UCT below fully expanded nodes and
      expands one untried move otherwise. ``"coinflip"`` is the policy of the
      classic numbers-game example: a node with no children is expanded; else a
      fair coin decides between following the best UCT child and expanding
      (when moves are left untried). The example's constant is
      :data:`COINFLIP_C`, and it plays the highest mean (``final_move="value"``).
    - ``final_move``: ``"visits"`` plays the most visited move (robust child,
      Chaslot et al. 2008); ``"value"`` the highest mean value.
    - ``seed``: None draws fresh entropy; an int (0 to ``MAX_SEED``, the
      compiled engine's 64-bit generator state) makes a search on one thread
      with an iteration budget fully reproducible.
    - ``reuse_tree``: keep the subtree of the move played for the next search.

    Playing strength (each can be switched off to measure it; the defaults
    were chosen by arena matches recorded in ``benchmarks/STRENGTH.md``;
    :meth:`plain` turns them all off). The compiled engine offers them; the
    generic engine, which knows only the game protocol, ignores them.

    - ``solver``: MCTS-Solver (Winands, Björnsson & Saito 2008), with draws:
      wins, losses and draws proven in the tree are passed up it, a proven
      win is always played and a proven loss only when every move loses; the
      search ends early (``stopped_by="proven"``) once the root's value is
      known. Two-player zero-sum games of a win, a draw and a loss only
      (``GameSpec.return_steps`` 2, or 1 without draws): skipped for one player, and for a
      score margin, whose returns a proof would replace with 1 or 0.
    - ``prove_draws``: with the solver, a proven draw is not visited again,
      so that its siblings get searched and a drawn position proven (as a
      proven loss is skipped); the draw instead bounds every reward backed
      up through its parent at a draw for the player who can take it, so
      that the siblings' worse playouts do not lower the parent below it
      (a pessimistic bound in the sense of Cazenave & Saffidine's
      score-bounded MCTS, 2010). At the root, and along the principal
      variation, a proven draw ranks ahead of the unproven moves worth no
      more than a draw, whatever their visits. Off by default for play: it
      measured about 4 points weaker on 8x8 Gomoku at 1 s a move (the search
      spends iterations proving draws a player does not need proven;
      benchmarks/STRENGTH.md, "Skipping proven draws"); ``mctslab analyze``
      turns it on, since analysis wants positions' values proven (tic-tac-toe's
      start: proven a draw in about 6,200 simulations, not in 200,000 without it).
      Needs ``solver=True`` (refused without); skipped where the solver is
      (one-player games, score margins). Compiled engine only.
    - ``playout``: ``"random"``, uniform random moves; ``"decisive"``, a move
      that wins at once is played and otherwise one that stops the opponent
      from winning at once (decisive and anti-decisive moves, Teytaud &
      Teytaud 2010); ``"threats"`` (Gomoku), decisive play that also makes
      an open four when it can and else stops the opponent's (answers an
      open three; threats as defined by Allis, van den Herik & Huntjens
      1996). A game without the playout asked for plays the next one down
      (Othello and the numbers game have only random playouts). None (the
      default) leaves it to the game: threats for Gomoku, decisive for the
      others. In Gomoku self-play at equal time threats measured +61 Elo
      over random on 15x15 (160 games) and +28 on 8x8, and the two score
      the same against the original design on 8x8 (88.0% and 88.8%); in
      Connect Four decisive playouts measured +173 Elo
      (benchmarks/STRENGTH.md).
    - ``candidates``: search only the moves a game marks as candidates
      (Gomoku: empty cells within two rows and columns of a stone, the
      common restriction of Gomoku programs); no effect on other games.
      Playouts still play any move (restricting them too gained nothing per
      simulation and made them 1.6 times slower). Solver proofs that every
      move loses then cover candidate moves.
    - ``transpositions``: share one node, statistics and proof among all the
      move orders that reach a position (the search tree as a graph: Childs,
      Brodeur & Kocsis 2008), found by a 64-bit hash of the position.
    - ``fpu``: first-play urgency (Gelly & Wang 2006): the value of an untried
      move, so that a tried move whose UCT score reaches it is followed
      before the other moves are all tried; None tries every move first
      (plain UCT). UCT policy only. A value a draw or a fair position
      reaches (0.5 or less) can hold the search on the first moves tried
      for good, its exploration term keeping them above it (on random
      tic-tac-toe positions searched with 20,000 simulations, 0.5 chose moves
      that perfect play would not, where 0.9, 1.0 and None did not).
    - ``bandit``: ``"ucb1"``, or ``"ucb1-tuned"`` whose exploration term
      follows each move's reward variance (Auer, Cesa-Bianchi & Fischer 2002;
      ``c`` scales it, sqrt(2) giving their formula).
    - ``rave``: GRAVE, generalised rapid action value estimation (Cazenave
      2015), over RAVE's all-moves-as-first (AMAF) statistics (Gelly &
      Silver 2007, 2011): a node with at least ``rave_ref`` visits also
      counts, from then on, for each move of each player, the simulations
      through it in which that player played the move later (in the tree or
      the playout, first time only). A child's mean is blended with its
      move's AMAF mean at the closest node on the path (itself or above)
      whose AMAF statistics hold ``rave_ref`` simulations, weight
      beta = m / (m + n + ``rave_bias`` * m * n) for n visits and m AMAF
      samples; the bandit's exploration term is kept. Untried moves are
      expanded best AMAF mean first. ``rave_ref=0`` is plain RAVE (each
      node its own statistics). Defaults ref 100 and bias 1e-6, Ludii's
      GRAVE defaults, "loosely based" on Cazenave's tuning (his best values
      differed per game). The statistics take a quarter of the tree's
      memory budget (see :mod:`mctslab.fast._rave`). Players must take
      turns, as for the solver and transpositions: the compiled engine
      stops with a ValueError where the turn does not pass to the next
      player. None
      (the default) leaves it to the game: on for Gomoku, where it
      measured +168 to +230 Elo at equal time, off for Connect Four and
      Othello, where it lost 65 to 123 Elo at equal iterations
      (benchmarks/STRENGTH.md). Compiled engine only.
    """

    c: float = math.sqrt(2.0)
    tree_policy: TreePolicy = "uct"
    final_move: FinalMove = "visits"
    seed: int | None = None
    reuse_tree: bool = True
    solver: bool = True
    prove_draws: bool = False
    playout: Playout | None = None
    candidates: bool = True
    transpositions: bool = True
    fpu: float | None = None
    bandit: Bandit = "ucb1-tuned"
    rave: bool | None = None
    rave_ref: int = 100
    rave_bias: float = 1e-6

    def __post_init__(self) -> None:
        owner = "SearchConfig"
        # The checked values are kept, so a NumPy number is stored as the Python one it holds
        # (a NumPy seed broke both engines' generators).
        _keep(self, "c", check_float(self.c, "c", owner, low=0.0, low_inclusive=True))
        check_choice(self.tree_policy, "tree_policy", owner, ("uct", "coinflip"))
        check_choice(self.final_move, "final_move", owner, ("visits", "value"))
        if self.seed is not None:
            _keep(self, "seed", check_int(self.seed, "seed", owner, low=0, high=MAX_SEED))
        for name in ("reuse_tree", "solver", "prove_draws", "candidates", "transpositions"):
            check_instance(getattr(self, name), name, owner, bool, "a bool")
        if self.prove_draws and not self.solver:
            # The solver proves the draws: without it there is nothing to skip or bound.
            raise invalid("prove_draws", owner, "False when solver is False", True)
        if self.rave is not None:
            check_instance(self.rave, "rave", owner, bool, "a bool or None")
        if self.playout is not None:
            check_choice(self.playout, "playout", owner, PLAYOUTS)
        if self.fpu is not None:
            _keep(self, "fpu", check_float(self.fpu, "fpu", owner, low=0.0, low_inclusive=True))
        check_choice(self.bandit, "bandit", owner, ("ucb1", "ucb1-tuned"))
        _keep(self, "rave_ref", check_int(self.rave_ref, "rave_ref", owner, low=0))
        bias = check_float(self.rave_bias, "rave_bias", owner, low=0.0, low_inclusive=True)
        _keep(self, "rave_bias", bias)

    @classmethod
    def plain(cls, **options: Any) -> SearchConfig:
        """Plain UCT (Kocsis & Szepesvári 2006): every playing-strength option off.

        The classic algorithm, to compare against; ``options`` set the rest.
        """
        plain: dict[str, Any] = {
            "solver": False,
            "prove_draws": False,
            "playout": "random",
            "candidates": False,
            "transpositions": False,
            "fpu": None,
            "bandit": "ucb1",
            "rave": False,
        }
        return cls(**{**plain, **options})


#: The playing-strength options, and the solver's ``prove_draws``: the compiled engine offers
#: them, the generic one ignores them.
STRENGTH_OPTIONS = (
    "solver",
    "prove_draws",
    "playout",
    "candidates",
    "transpositions",
    "fpu",
    "bandit",
    "rave",
    "rave_ref",
    "rave_bias",
)

#: The exploration constant of the classic numbers-game example, Harold Sultan's
#: (https://github.com/haroldsultan/MCTS, mcts.py at 5310c15, where the coin flip
#: came in): BESTCHILD scores a child mean + SCALAR * sqrt(2 ln N / n) with
#: SCALAR = 1/sqrt(2), which is c * sqrt(ln N / n) with c = SCALAR * sqrt(2) = 1.
#: (Copies of the example with SCALAR = 1/(2 sqrt 2) circulate; that is c = 1/2.)
COINFLIP_C = 1.0
