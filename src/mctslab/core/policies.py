"""The four steps of MCTS, one function each: selection, expansion, simulation, backpropagation.

The steps as Chaslot et al. named them ("Progressive strategies for
Monte-Carlo tree search", 2008) and Browne et al. surveyed them ("A survey of
Monte Carlo tree search methods", IEEE TCIAIG 4(1), 2012), with UCT's
selection (Kocsis & Szepesvári, "Bandit based Monte-Carlo planning", 2006).
An iteration clones the root state, walks it down the tree with a tree
policy (selection, ending in one expansion or at a terminal node), plays the
rest of the game with a simulation policy, and adds the result to every node
on the path. ``MCTS(tree_policy=..., simulation=..., backpropagation=...)``
takes a user's own (:data:`TreePolicy`, :data:`Simulation`,
:data:`Backpropagation`). All loops are iterative; nothing
here allocates per node walked beyond the path list the caller reuses.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from math import inf, log, sqrt

from mctslab.core.node import Node
from mctslab.core.protocol import GameState

#: ``policy(root, state, rng, c, path) -> expanded``: walks ``state`` (a clone of
#: the root's position) down from ``root``, appending every node entered to
#: ``path``; returns whether it created a node.
TreePolicy = Callable[[Node, GameState, random.Random, float, list[Node]], bool]

#: ``simulate(state, rng) -> returns``: plays ``state`` (the engine's own copy,
#: possibly already terminal) to an end and gives one return per player, on the
#: game's own scale.
Simulation = Callable[[GameState, random.Random], Sequence[float]]

#: ``backpropagate(root, path, returns, low, scale) -> None``: adds one simulation's
#: ``returns`` (one per player, on the game's scale; ``(r - low) * scale`` puts one in
#: [0, 1]) to every node of ``path``, each node's ``visits`` counted up by one (the
#: selection divides by them) and its ``value_sum`` for its ``mover``; the root, reached
#: by no move, counts the visit alone.
Backpropagation = Callable[[Node, list[Node], Sequence[float], float, float], None]


def untried_moves(node: Node, state: GameState) -> list[int]:
    """The moves of ``node`` without a child yet, listed from ``state`` on the first walk through.

    A copy is kept because expansion consumes the list and a user's game may
    hand out its own.
    """
    untried = node.untried
    if untried is None:
        untried = node.untried = [] if state.is_terminal() else list(state.legal_moves())
    return untried


def expand(node: Node, untried: list[int], state: GameState, rng: random.Random) -> Node:
    """Expansion: add a child for a random move of ``untried`` (the node's, non-empty); play it."""
    # Swap-remove a uniformly drawn entry: O(1), and the draw costs one rng.random().
    index = int(rng.random() * len(untried))
    move = untried[index]
    untried[index] = untried[-1]
    untried.pop()
    child = Node(move, state.current_player)
    node.children.append(child)
    state.apply(move)
    return child


def best_uct_child(node: Node, c: float) -> Node:
    """The child maximising UCT: mean + c * sqrt(ln N / n) (Kocsis & Szepesvári 2006).

    Every child has been visited at least once (it is backed up the iteration
    it is created), so n > 0; ties go to the earliest child.
    """
    explore = c * sqrt(log(node.visits))
    best = node.children[0]
    best_score = -inf
    for child in node.children:
        visits = child.visits
        score = child.value_sum / visits + explore / sqrt(visits)
        if score > best_score:
            best = child
            best_score = score
    return best


def select_uct(
    root: Node, state: GameState, rng: random.Random, c: float, path: list[Node]
) -> bool:
    """Selection by UCT: descend through fully expanded nodes, expand the first that is not."""
    node = root
    while True:
        untried = untried_moves(node, state)
        if untried:
            path.append(expand(node, untried, state, rng))
            return True
        if not node.children:  # no moves at all: a terminal position
            return False
        node = best_uct_child(node, c)
        state.apply(node.move)
        path.append(node)


def select_coinflip(
    root: Node, state: GameState, rng: random.Random, c: float, path: list[Node]
) -> bool:
    """Selection as in the classic numbers-game example (TREEPOLICY in Harold Sultan's mcts.py).

    A node without children is expanded; otherwise a fair coin chooses between
    following the best UCT child and expanding (when no move is left untried,
    the best child is followed either way). The coin is tossed at every node
    with children, as in the original.
    """
    node = root
    while True:
        untried = untried_moves(node, state)
        if not node.children:
            if not untried:  # a terminal position
                return False
            path.append(expand(node, untried, state, rng))
            return True
        if rng.random() >= 0.5 and untried:
            path.append(expand(node, untried, state, rng))
            return True
        node = best_uct_child(node, c)
        state.apply(node.move)
        path.append(node)


TREE_POLICIES: dict[str, TreePolicy] = {"uct": select_uct, "coinflip": select_coinflip}


#: The most moves a playout through the protocol plays when the spec gives no
#: ``max_game_length``: past it, the game is taken not to end.
PLAYOUT_LIMIT = 100_000


def uniform_playout(state: GameState, rng: random.Random) -> Sequence[float]:
    """Simulation through the protocol: uniformly random legal moves to the end.

    Raises ValueError when a position that is not terminal has no legal move,
    or when the game goes on past the spec's ``max_game_length`` (if it has
    one, else :data:`PLAYOUT_LIMIT` moves): the protocol's promises, which a
    game in the making may break, and which would otherwise surface as an
    IndexError or as a search that never returns.
    """
    choice = rng.choice
    limit = getattr(state.spec, "max_game_length", None) or PLAYOUT_LIMIT
    for _ in range(limit):
        if state.is_terminal():
            return state.returns()
        moves = state.legal_moves()
        if not moves:
            raise ValueError(
                f"A position of {state.spec.name!r} is not terminal but has no legal moves; "
                f"is_terminal() must be true when legal_moves() is empty.\n{state}"
            )
        state.apply(choice(moves))
    if state.is_terminal():
        return state.returns()
    raise ValueError(
        f"A random playout of {state.spec.name!r} went on for {limit:,} moves without ending; "
        "every game must end (is_terminal()), within the spec's max_game_length when it has "
        f"one.\n{state}"
    )


def default_simulation(state: GameState, rng: random.Random) -> Sequence[float]:
    """Uniform random playout, through the state's own ``random_playout(seed)`` when it has one.

    The bundled games compile that playout (same distribution, far faster); its
    seed is drawn from ``rng`` so a seeded search stays reproducible.
    """
    playout = getattr(state, "random_playout", None)
    if playout is None:
        return uniform_playout(state, rng)
    playout(rng.getrandbits(64))
    return state.returns()


def backpropagate(
    root: Node, path: list[Node], returns: Sequence[float], low: float, scale: float
) -> None:
    """Backpropagation: each node on the path gains its mover's return, scaled to [0, 1].

    ``(r - low) * scale`` with ``scale = 1 / (max_return - min_return)``. The
    root is reached by no move, so only its visit count changes.
    """
    root.visits += 1
    for node in path:
        node.visits += 1
        node.value_sum += (returns[node.mover] - low) * scale
