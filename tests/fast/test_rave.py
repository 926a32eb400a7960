"""GRAVE in the compiled engine: the playouts' move records, the AMAF tables, the options.

The tables are checked against a replay in Python of the very simulations
the engine ran (a playout that always plays the lowest legal move makes
every simulation follow from the tree's path alone); playing strength with
RAVE on is checked in tests/fast/test_strength.py against the same exact
truths as without it.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from numba import njit

from mctslab import State, available_games, make
from mctslab._jit import ROLLOUT_SIG, new_rng, record
from mctslab.arena.spec import parse_player
from mctslab.core import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.fast._rave import AmafTables, blend, table_bytes
from mctslab.games import tictactoe
from mctslab.games.tictactoe import TicTacToeState
from mctslab.players.mcts import MCTSPlayer


def start(name: str) -> State:
    return make(name, size=9) if name == "gomoku" else make(name)


# -- what the playouts report ------------------------------------------------------


@pytest.mark.parametrize("name", available_games())
def test_every_playout_records_the_moves_it_plays(name: str) -> None:
    # Replaying the record with the checked play() from the start position
    # must reach the very position the playout ended in (Othello's passes included).
    kernel = start(name).kernel
    for playout in {"random": kernel.rollout, **(kernel.playouts or {})}.values():
        for seed in range(10):
            state = start(name)
            played = np.empty(state.spec.max_game_length + 1, dtype=np.int64)
            data = state.data.copy()
            count = playout(data, new_rng(seed), played)
            for move in played[:count]:
                state.play(int(move))
            assert state.is_terminal() and np.array_equal(state.data, data)
            # Recording changes nothing in the game; a short record keeps the first moves.
            unrecorded = start(name).data.copy()
            assert playout(unrecorded, new_rng(seed), np.empty(0, dtype=np.int64)) == 0
            assert np.array_equal(unrecorded, data)
            prefix = np.empty(3, dtype=np.int64)
            assert playout(start(name).data.copy(), new_rng(seed), prefix) == min(3, count)
            assert np.array_equal(prefix[: min(3, count)], played[: min(3, count)])


# -- the AMAF tables against a replay ------------------------------------------------


@njit(ROLLOUT_SIG)
def lowest_rollout(state: np.ndarray, rng: np.ndarray, played: np.ndarray) -> int:
    """Tic-tac-toe played out with the lowest legal move each turn: no randomness."""
    moves = np.empty(9, dtype=np.int64)
    recorded = 0
    while not tictactoe.is_terminal(state):
        tictactoe.legal_moves(state, moves)
        tictactoe.apply(state, moves[0])
        recorded = record(played, recorded, moves[0])
    return recorded


class LowestTicTacToe(TicTacToeState):
    kernel = tictactoe.KERNEL._replace(rollout=lowest_rollout, playouts=None)
    __slots__ = ()


Key = tuple[int, ...]


def visit_counts(engine: FastMCTS) -> dict[Key, int]:
    """Each node's visits, by the moves that reach it from the root."""
    tree = engine._tree
    assert tree is not None
    counts = {}
    stack: list[tuple[Key, int]] = [((), 0)]
    while stack:
        key, node = stack.pop()
        counts[key] = int(tree.visits[node])
        for slot in tree.children(node):
            stack.append(((*key, int(tree.move[slot])), tree.node_of(slot)))
    return counts


def node_of(engine: FastMCTS, key: Key) -> int:
    tree = engine._tree
    assert tree is not None
    node = 0
    for move in key:
        child = tree.child(node, move)
        assert child is not None
        node = child
    return node


@pytest.mark.parametrize("ref", [0, 6])
def test_amaf_tables_equal_a_replay_of_the_simulations(ref: int) -> None:
    base = make("tictactoe")
    state = LowestTicTacToe(base.spec, base.data.copy())
    config = SearchConfig(
        seed=ref, rave=True, rave_ref=ref, solver=False, transpositions=False, playout="random"
    )
    engine = FastMCTS(config)
    # truth[node][(player, move)] = [simulations, reward sum]; counts: simulations per table.
    truth: dict[Key, dict[tuple[int, int], list[float]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0.0])
    )
    counts: dict[Key, int] = defaultdict(int)
    before: dict[Key, int] = {}
    for _ in range(400):
        engine.search(state, Budget(iterations=1))
        after = visit_counts(engine)
        # The path: from the root, the child whose visits went up (one per level).
        path: Key = ()
        while True:
            grown = [
                key
                for key in after
                if len(key) == len(path) + 1
                and key[:-1] == path
                and after[key] > before.get(key, 0)
            ]
            if not grown:
                break
            (path,) = grown
        # The simulation: the path's moves, then the lowest-move playout.
        game = state.clone()
        moves = []
        for move in path:
            moves.append((game.current_player, move))
            game.apply(move)
        while not game.is_terminal():
            move = game.legal_moves()[0]
            moves.append((game.current_player, move))
            game.apply(move)
        gains = [(value + 1.0) / 2.0 for value in game.returns()]
        for level in range(len(path) + 1):
            key = path[:level]
            if key not in counts and after[key] < ref:
                continue  # no table yet
            counts[key] += 1
            first: dict[tuple[int, int], None] = dict.fromkeys(moves[level:])
            for player, move in first:
                entry = truth[key][(player, move)]
                entry[0] += 1
                entry[1] += gains[player]
        before = after
    amaf = engine._amaf
    assert amaf is not None and amaf[0] is engine._tree
    tables: AmafTables = amaf[1]
    assert sorted(counts) == sorted(
        key for key in before if tables.table_of(node_of(engine, key)) is not None
    )
    assert len(counts) > 20
    for key, count in counts.items():
        node = node_of(engine, key)
        table = tables.table_of(node)
        assert table is not None and int(tables.counts[table]) == count, key
        for player in (0, 1):
            for move in range(9):
                expected = truth[key].get((player, move), [0, 0.0])
                got = tables.entry(node, player, move, 9)
                assert got[0] == expected[0] and got[1] == pytest.approx(expected[1]), key


def test_blend_is_gelly_silver_with_cazenaves_beta() -> None:
    # Scores with no exploration are the means; the blend makes them
    # (1 - beta) * mean + beta * amaf, beta = m / (m + n + bias * m * n).
    visits = np.array([4, 10, 2], dtype=np.int32)
    values = np.array([2, 14, 2], dtype=np.uint32)  # value sums in half points: 1, 7, 1
    half = 0.5
    moves = np.array([5, 3, 8], dtype=np.int16)
    amaf_visits = np.zeros(9, dtype=np.int32)
    amaf_values = np.zeros(9)
    amaf_visits[[5, 3]] = [20, 6]
    amaf_values[[5, 3]] = [18.0, 1.0]
    scores = (values * half / visits).astype(np.float32)
    bias = 0.01
    best = blend(scores, visits, values, 0, moves, 0, 3, 0, amaf_visits, amaf_values, bias, half)
    expected = []
    for n, total, move in zip(visits, values * half, moves, strict=True):
        m = amaf_visits[move]
        beta = m / (m + n + bias * m * n) if m else 0.0
        expected.append((1 - beta) * total / n + (beta * amaf_values[move] / m if m else 0.0))
    assert scores == pytest.approx(expected, rel=1e-6)
    assert best == int(np.argmax(expected)) == 0


# -- memory, options, specs ----------------------------------------------------------


def test_the_tables_stay_within_the_memory_budget() -> None:
    engine = FastMCTS(SearchConfig(seed=0, rave=True, rave_ref=0))
    state = make("gomoku", size=9)
    budget_bytes = 0.2 * 2**20
    result = engine.search(state, Budget(memory_mb=0.2))
    assert result.stopped_by == "memory"
    assert engine._tree is not None and engine._amaf is not None
    tables = engine._amaf[1]
    slot = engine._node_bytes(state)
    used = engine._tree.capacity * slot + tables.counts.shape[0] * table_bytes(2, 81)
    assert budget_bytes - table_bytes(2, 81) - slot < used <= budget_bytes
    assert 0 < int(tables.used[0]) <= tables.counts.shape[0]


def test_a_kept_tree_keeps_its_tables_and_a_new_root_starts_without() -> None:
    engine = FastMCTS(SearchConfig(seed=0, rave=True, rave_ref=10))
    state = make("connect4")
    engine.search(state, Budget(iterations=500))
    assert engine._amaf is not None
    pool = engine._amaf[1]
    engine.search(state, Budget(iterations=500))
    root_table = pool.table_of(0)
    # The root's table counts from its 10th visit on.
    assert engine._amaf[1] is pool and root_table is not None
    assert int(pool.counts[root_table]) == 1000 - 10 + 1
    engine.advance(3)
    state.play(3)
    engine.search(state, Budget(iterations=10))
    assert engine._amaf[1] is not pool


def test_an_arena_spec_and_the_plain_config_set_rave() -> None:
    player = parse_player("mcts:rave=true,rave_ref=0,rave_bias=0.001,iterations=10").build(seed=1)
    assert isinstance(player, MCTSPlayer) and isinstance(player.engine, FastMCTS)
    config = player.engine.config
    assert (config.rave, config.rave_ref, config.rave_bias) == (True, 0, 0.001)
    assert SearchConfig().rave is None and SearchConfig.plain().rave is False


@pytest.mark.parametrize(
    ("game", "params", "tables"), [("gomoku", {"size": 9}, True), ("connect4", {}, False)]
)
def test_by_default_the_game_decides_whether_grave_is_on(
    game: str, params: dict[str, int], tables: bool
) -> None:
    engine = FastMCTS(SearchConfig(seed=0))
    engine.search(make(game, **params), Budget(iterations=2_000))
    assert (engine._amaf is not None) == tables
    forced = FastMCTS(SearchConfig(seed=0, rave=not tables))
    forced.search(make(game, **params), Budget(iterations=2_000))
    assert (forced._amaf is not None) == (not tables)
