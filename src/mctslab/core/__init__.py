"""The generic engine: MCTS over any object that follows the game protocol.

``MCTS(SearchConfig(...)).search(state, Budget(...))`` works on the bundled
games and on any plain-Python game with the members of :class:`GameState`.
"""

from mctslab.core.config import COINFLIP_C, DEFAULT_ITERATIONS, Budget, SearchConfig
from mctslab.core.engine import Engine, Progress, StopEvent
from mctslab.core.node import BYTES_PER_MOVE, BYTES_PER_NODE, Node, count_nodes
from mctslab.core.policies import (
    TREE_POLICIES,
    Backpropagation,
    Simulation,
    TreePolicy,
    backpropagate,
    best_uct_child,
    default_simulation,
    expand,
    select_coinflip,
    select_uct,
    uniform_playout,
    untried_moves,
)
from mctslab.core.protocol import GameSpecLike, GameState
from mctslab.core.result import MoveStats, SearchResult
from mctslab.core.search import MCTS
from mctslab.core.tree_view import TreeView

__all__ = [
    "BYTES_PER_MOVE",
    "BYTES_PER_NODE",
    "COINFLIP_C",
    "DEFAULT_ITERATIONS",
    "MCTS",
    "TREE_POLICIES",
    "Backpropagation",
    "Budget",
    "Engine",
    "GameSpecLike",
    "GameState",
    "MoveStats",
    "Node",
    "Progress",
    "SearchConfig",
    "SearchResult",
    "Simulation",
    "StopEvent",
    "TreePolicy",
    "TreeView",
    "backpropagate",
    "best_uct_child",
    "count_nodes",
    "default_simulation",
    "expand",
    "select_coinflip",
    "select_uct",
    "uniform_playout",
    "untried_moves",
]
