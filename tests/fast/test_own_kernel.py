"""A game of one's own on the compiled engine, through the public mctslab.kernel.

Nim (tests/fast/nim_kernel.py, the README's example) is checked against
Bouton's theorem (1901): the player to move wins exactly when the XOR of the
heaps is not 0. A variant with extra turns is checked against brute force.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit

import mctslab.kernel
from mctslab import Budget, SearchConfig, make
from mctslab.arena import play_games
from mctslab.core import MCTS
from mctslab.fast import FastMCTS
from mctslab.games import ConformanceError, InvalidMoveError, check_game
from mctslab.games._base import State, list_moves
from mctslab.games._header import STATUS
from mctslab.games.tictactoe import TicTacToeState
from mctslab.kernel import (
    APPLY_SIG,
    CURRENT_PLAYER_SIG,
    LEGAL_MOVES_SIG,
    RETURNS_SIG,
    ROLLOUT_SIG,
    WINNING_MOVE_SIG,
    Kernel,
    check_kernel,
    randint,
    record,
)
from mctslab.players import MCTSPlayer
from tests.fast import nim_kernel
from tests.fast.nim_kernel import HEAPS, MOST, TO_MOVE, NimState, is_terminal, legal_moves, make_nim

README = Path(__file__).resolve().parents[2] / "README.md"


def nim_sum(heaps: list[int]) -> int:
    return functools.reduce(lambda a, b: a ^ b, heaps, 0)


def after(state: NimState, move: int) -> NimState:
    child = state.clone()
    child.apply(move)
    return child


def test_the_readme_shows_the_example_word_for_word() -> None:
    code = Path(nim_kernel.__file__).read_text().split('"""', 2)[2].lstrip()
    assert f"```python\n{code}```" in README.read_text()


def test_the_notation_hook_sees_ascii_text_alone_as_documented() -> None:
    # Nim's hook reads digits with str.isdigit, which takes "\uff12" (a full-width 2) for
    # one: parse_move refuses the text before the hook sees it. Before, the hook's
    # documentation said only that text comes lower-cased and stripped.
    for documented in (State._parse_notation.__doc__, mctslab.kernel.__doc__):
        assert (
            documented is not None and "notation is ascii" in " ".join(documented.split()).lower()
        )
    state = make_nim(3, 5)
    with pytest.raises(InvalidMoveError, match="is not a move in nim"):
        state.parse_move("\uff12:3")
    assert state.move_to_str(state.parse_move(" 2:3 ")) == "2:3"


@pytest.mark.parametrize("heaps", [(3, 5, 7), (1, 1), (15,), (4, 0, 9, 2)])
def test_nim_keeps_the_protocol(heaps: tuple[int, ...]) -> None:
    check_game(lambda: make_nim(*heaps))


def test_the_search_plays_and_proves_bouton_in_every_small_position() -> None:
    proven = 0
    for heaps in itertools.product(range(5), repeat=3):
        if sum(heaps) == 0:
            continue
        state = make_nim(*heaps)
        result = FastMCTS(SearchConfig(seed=sum(heaps))).search(state, Budget(iterations=5000))
        wins = nim_sum(list(heaps)) != 0
        if wins:
            assert nim_sum(after(state, result.best_move).heaps) == 0, heaps
        assert result.stopped_by == "proven" and result.value == (1.0 if wins else 0.0), heaps
        for stats in result.moves:
            if stats.proven is not None:
                proven += 1
                # The mover wins exactly when it leaves a nim-sum of 0.
                leaves_zero = nim_sum(after(state, stats.move).heaps) == 0
                assert stats.proven == ("win" if leaves_zero else "loss"), (heaps, stats)
    assert proven > 400  # 463 of the root moves, the others cut off by a proof


def test_worker_processes_search_a_game_of_ones_own() -> None:
    state = make_nim(3, 5, 7)
    with FastMCTS(SearchConfig(seed=1), workers=2) as engine:
        result = engine.search(state, Budget(iterations=20_000))
    assert result.value == 1.0 and nim_sum(after(state, result.best_move).heaps) == 0


def python_current_player(state: np.ndarray) -> int:
    return int(state[TO_MOVE])


@njit
def lazy_current_player(state):  # type: ignore[no-untyped-def]
    return state[TO_MOVE]


@njit
def float_arrays_apply(state, move):  # type: ignore[no-untyped-def]
    state[0] = move + 0.5j  # a complex number cannot be stored in an int64 array


def nim_on(name: str, **changes: Any) -> type[NimState]:
    """Nim with ``changes`` to its kernel's functions, a class named ``name`` in this module
    (it pickles, as check_game asks, when this module's ``name`` is the class)."""

    class Other(NimState):
        __slots__ = ()

    Other.kernel = NimState.kernel._replace(**changes)
    Other.__name__ = Other.__qualname__ = name
    return Other


def with_kernel(kernel: Kernel) -> NimState:
    """Nim with heaps of 1 and 2 on another kernel (its class is not to pickle)."""
    return position(nim_on("Unpicklable", **kernel._asdict()), 1, 2)


def position(kind: type[NimState], *heaps: int) -> NimState:
    start = make_nim(*heaps)
    return kind(start.spec, start.data.copy())


def test_a_kernel_of_python_functions_is_refused_by_name() -> None:
    state = with_kernel(NimState.kernel._replace(current_player=python_current_player))
    with pytest.raises(TypeError, match=r"Kernel\.current_player must be numba-compiled"):
        FastMCTS().search(state, Budget(iterations=10))
    with pytest.raises(ConformanceError, match=r"CURRENT_PLAYER_SIG"):
        check_game(lambda: state.clone())


def test_a_kernel_function_that_does_not_compile_for_its_signature_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Kernel\.apply does not compile as @njit\(APPLY_SIG\)"):
        check_kernel(NimState.kernel._replace(apply=float_arrays_apply))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Before: "tuple.index(x): x not in tuple" from the search, and check_game passed.
        (
            {"preferred_playout": "smart", "playouts": {"decisive": nim_kernel.rollout}},
            r"The 'preferred_playout' parameter of Kernel must be one of 'random', "
            r"'decisive', 'threats'\. Got 'smart' instead\.",
        ),
        # Before, never played, without a word.
        (
            {"playouts": {"smart": nim_kernel.rollout}},
            r"The 'playouts' parameter of Kernel must be None or a mapping from 'decisive' or "
            r"'threats' to a playout \(the rollout is the 'random' one\)\. Got 'smart' instead\.",
        ),
    ],
)
def test_a_playout_name_that_a_search_does_not_know_is_refused(
    changes: dict[str, Any], message: str
) -> None:
    state = with_kernel(NimState.kernel._replace(**changes))
    with pytest.raises(ValueError, match=message):
        check_kernel(state.kernel)
    with pytest.raises(ValueError, match=message):
        FastMCTS().search(state, Budget(iterations=100))
    with pytest.raises(ConformanceError, match=message):
        check_game(lambda: state.clone())


def test_a_lazily_compiled_kernel_function_is_compiled_for_its_signature() -> None:
    state = with_kernel(NimState.kernel._replace(current_player=lazy_current_player))
    result = FastMCTS(SearchConfig(seed=0)).search(state, Budget(iterations=200))
    assert result.value == 1.0 and result.best_notation == "2:1"  # leaves 1 and 1


#: Ways a rollout can fail to record its moves (the first two corrupt memory in a search).
WRITES_PAST_PLAYED, COUNTS_EVERY_MOVE, RECORDS_NOTHING, RECORDS = 0, 1, 2, 3


def nim_rollout(apply: Any, fault: int = RECORDS) -> Any:
    """Nim's random playout over ``apply`` (a move's rules), recording as ``fault`` says."""

    @njit(ROLLOUT_SIG)
    def rollout(state, rng, played):  # type: ignore[no-untyped-def]
        moves = np.empty((state.shape[0] - HEAPS) * MOST, dtype=np.int64)
        count = 0
        while not is_terminal(state):
            move = moves[randint(rng, legal_moves(state, moves))]
            apply(state, move)
            if fault == WRITES_PAST_PLAYED:
                played[count] = move  # no room check: GRAVE off gives the rollout no room
                count += 1
            elif fault == COUNTS_EVERY_MOVE:
                record(played, count, move)
                count += 1  # not the count record() gives
            elif fault == RECORDS:
                count = record(played, count, move)
        return count

    return rollout


class WritesPlayedItself(NimState):
    kernel = NimState.kernel._replace(rollout=nim_rollout(nim_kernel.apply, WRITES_PAST_PLAYED))
    __slots__ = ()


class CountsEveryMove(NimState):
    kernel = NimState.kernel._replace(rollout=nim_rollout(nim_kernel.apply, COUNTS_EVERY_MOVE))
    __slots__ = ()


class RecordsNothing(NimState):
    kernel = NimState.kernel._replace(rollout=nim_rollout(nim_kernel.apply, RECORDS_NOTHING))
    __slots__ = ()


class DecisiveRecordsNothing(NimState):  # a named playout is checked too
    kernel = NimState.kernel._replace(
        playouts={"decisive": nim_rollout(nim_kernel.apply, RECORDS_NOTHING)}
    )
    __slots__ = ()


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (WritesPlayedItself, r"Kernel\.rollout wrote past its played array"),
        (CountsEveryMove, r"Kernel\.rollout returned \d+ with room for 0"),
        (RecordsNothing, r"Kernel\.rollout: the 0 moves it recorded do not lead"),
        (DecisiveRecordsNothing, r"Kernel\.playouts\['decisive'\]: the 0 moves it recorded"),
    ],
)
def test_check_game_finds_a_rollout_that_does_not_record_its_moves(
    kind: type[NimState], message: str
) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(lambda: position(kind, 1, 2, 3))


def test_a_state_array_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match=r"numpy array of int64 .* got a 1-dimensional .* int32"):
        NimState(make_nim(1, 2).spec, np.array([0, 1, 2], dtype=np.int32))
    start = make_nim(1, 2)
    with pytest.raises(TypeError, match=r"read-only view: copy it\); got .* read-only array"):
        NimState(start.spec, start.data)


def test_a_missing_notation_method_is_named() -> None:
    class Unwritten(NimState):
        __slots__ = ()
        _format_move = nim_kernel.State._format_move  # the base's, as if not written

    state = position(Unwritten, 1, 2)
    with pytest.raises(NotImplementedError, match=r"Unwritten must define _format_move\(self"):
        check_game(lambda: state.clone())


def test_check_game_names_a_move_id_out_of_range_and_a_class_that_cannot_pickle() -> None:
    small = make_nim(1, 2)
    spec = dataclasses.replace(small.spec, num_actions=MOST + 1)  # heap 2's ids are out of range
    with pytest.raises(ConformanceError, match=r"lists move id 16, outside the move ids 0 to 15"):
        check_game(lambda: NimState(spec, small.data.copy()))
    local = with_kernel(NimState.kernel)  # its class is defined in a function
    with pytest.raises(ConformanceError, match=r"does not pickle .* top level of a module"):
        check_game(lambda: local.clone())


@pytest.mark.parametrize(
    ("heaps", "num_actions", "message"),
    [
        (
            (3, 5, 7),
            10,
            r"nim: Kernel\.legal_moves listed 15 moves, more than spec\.num_actions \(10\)",
        ),
        (
            (1, 2),
            MOST + 1,
            r"nim: Kernel\.legal_moves lists move id 16, outside the move ids 0 to 15",
        ),
    ],
)
def test_a_spec_with_too_few_move_ids_is_refused_before_the_search_writes_past_its_arrays(
    heaps: tuple[int, ...], num_actions: int, message: str
) -> None:
    # Before, legal_moves() cut the list short (or kept the id 16) without a word, and the
    # search aborted the process ("corrupted double-linked list"): the kernel had written 15
    # moves into room for 10.
    start = make_nim(*heaps)
    state = NimState(dataclasses.replace(start.spec, num_actions=num_actions), start.data.copy())
    with pytest.raises(ValueError, match=message):
        state.legal_moves()
    with pytest.raises(ValueError, match=message):
        FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=5000))
    with pytest.raises(ConformanceError, match=message):
        check_game(lambda: state.clone())


# -- returns ---------------------------------------------------------------------------


@njit(RETURNS_SIG, cache=True)
def returns_of_wins_only(state, out):  # type: ignore[no-untyped-def]
    """Tic-tac-toe's returns, but a draw's left unwritten, as if ``out`` came zeroed."""
    if state[STATUS] == 0 or state[STATUS] == 1:
        out[state[STATUS]] = 1.0
        out[1 - state[STATUS]] = -1.0


class DrawUnwritten(TicTacToeState):
    kernel = TicTacToeState.kernel._replace(returns=returns_of_wins_only)
    __slots__ = ()


def draw_unwritten(*moves: str) -> DrawUnwritten:
    """Tic-tac-toe after ``moves`` on the kernel that leaves a draw's returns unwritten."""
    start = make("tictactoe")
    for move in moves:
        start.play(move)
    return DrawUnwritten(start.spec, start.data.copy())


def test_returns_left_unwritten_are_named_by_check_game_and_before_a_search() -> None:
    # Before, State.returns handed the kernel zeros: check_game and the search's check of
    # a game played to its end read a draw, and passed the kernel.
    unwritten = r"tictactoe: Kernel\.returns left out\[0\] \(X\), out\[1\] \(O\) unwritten"
    with pytest.raises(ConformanceError, match=unwritten):
        check_game(draw_unwritten)
    drawn = draw_unwritten("a3", "b3", "c3", "b2", "a2", "c2", "b1", "a1")  # c1 draws
    with pytest.raises(ValueError, match=unwritten):
        FastMCTS().search(drawn, Budget(iterations=100))


@pytest.mark.parametrize("config", [SearchConfig(seed=3), SearchConfig.plain(seed=3)])
def test_the_search_reads_no_earlier_games_returns_where_a_draw_is_left_unwritten(
    config: SearchConfig,
) -> None:
    # Before, the loop handed the kernel the array its last game's returns were in, so a
    # draw counted as that game's result: by default the search proved the empty board
    # won (value 1.0), and plain UCT rated it 0.86 for 0.71. (Its check of one game
    # before the search meets a win here.)
    budget = Budget(iterations=30_000)
    fair = FastMCTS(config).search(make("tictactoe"), budget)
    assert FastMCTS(config).search(draw_unwritten(), budget).moves == fair.moves


# -- game knowledge: winning_move and candidate_moves ---------------------------------


@njit(WINNING_MOVE_SIG, cache=True)
def bouton_move(state):  # type: ignore[no-untyped-def]
    """Bouton's winning move: the one that leaves heaps whose XOR is 0; -1 when none does."""
    total = 0
    for heap in range(HEAPS, state.shape[0]):
        total ^= state[heap]
    if total == 0:
        return -1
    for heap in range(state.shape[0] - HEAPS):
        stones = state[HEAPS + heap]
        if stones ^ total < stones:
            return heap * MOST + stones - (stones ^ total) - 1
    return -1


@njit(WINNING_MOVE_SIG, cache=True)
def first_move(state):  # type: ignore[no-untyped-def]
    """A lie: the first legal move (one stone from the first heap that has one) wins."""
    for heap in range(state.shape[0] - HEAPS):
        if state[HEAPS + heap] > 0:
            return heap * MOST
    return -1


@njit(WINNING_MOVE_SIG, cache=True)
def fifteen_from_the_first_heap(state):  # type: ignore[no-untyped-def]
    """A lie: taking 15 stones from heap 1, legal only where it holds 15, wins."""
    return -1 if is_terminal(state) else MOST - 1


@njit(LEGAL_MOVES_SIG, cache=True)
def no_candidates(state, out):  # type: ignore[no-untyped-def]
    return 0


@njit(LEGAL_MOVES_SIG, cache=True)
def every_id_a_candidate(state, out):  # type: ignore[no-untyped-def]
    """Every move id of the game, taking more stones than a heap holds included."""
    if is_terminal(state):
        return 0
    count = (state.shape[0] - HEAPS) * MOST
    for move in range(count):
        out[move] = move
    return count


@njit(LEGAL_MOVES_SIG, cache=True)
def first_candidate_twice(state, out):  # type: ignore[no-untyped-def]
    count = legal_moves(state, out)
    if count > 0:
        out[count] = out[0]
        count += 1
    return count


@njit(LEGAL_MOVES_SIG, cache=True)
def single_stones(state, out):  # type: ignore[no-untyped-def]
    """The moves that take one stone: a subset of the legal moves, never empty until the end."""
    count = 0
    for heap in range(state.shape[0] - HEAPS):
        if state[HEAPS + heap] > 0:
            out[count] = heap * MOST
            count += 1
    return count


BoutonNim = nim_on("BoutonNim", winning_move=bouton_move)
FirstMoveWins = nim_on("FirstMoveWins", winning_move=first_move)
FifteenWins = nim_on("FifteenWins", winning_move=fifteen_from_the_first_heap)
NoCandidates = nim_on("NoCandidates", candidate_moves=no_candidates)
EveryIdACandidate = nim_on("EveryIdACandidate", candidate_moves=every_id_a_candidate)
CandidateTwice = nim_on("CandidateTwice", candidate_moves=first_candidate_twice)
SingleStones = nim_on("SingleStones", candidate_moves=single_stones)
BoutonOutsideCandidates = nim_on(
    "BoutonOutsideCandidates", winning_move=bouton_move, candidate_moves=single_stones
)


def test_a_winning_move_that_wins_by_force_later_passes_and_the_solver_proves_with_it() -> None:
    # Bouton's move wins by force, not at once (as Gomoku's open fours): every reply leaves a
    # nim-sum that is not 0, where it gives a move again, to the last stone.
    for heaps in [(1, 2, 3), (3, 5, 7), (4, 0, 9, 2)]:
        check_game(lambda heaps=heaps: position(BoutonNim, *heaps))  # type: ignore[misc]
    state = position(BoutonNim, 3, 5, 7)
    result = FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=20_000))
    assert result.stopped_by == "proven" and result.value == 1.0
    assert nim_sum(after(state, result.best_move).heaps) == 0


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        # Before, each passed check_game; with the first, the search called heaps 1 and 3
        # lost, which Bouton's theorem says are won.
        (
            FirstMoveWins,
            r"nim: Kernel\.winning_move gives 1:1, which does not win by force: after 1:1 "
            r"(\d+:\d+ )*\d+:\d+, the game ends without a win for A",
        ),
        (FifteenWins, r"nim: Kernel\.winning_move gives move id 14, not a legal move"),
        # Before, these passed too, and the search crashed: an IndexError with none, a
        # segfault with candidates on occupied cells in a game of placing stones.
        (NoCandidates, r"nim: Kernel\.candidate_moves lists no move, but the game goes on"),
        (EveryIdACandidate, r"nim: Kernel\.candidate_moves lists 1:2, not a legal move"),
        (CandidateTwice, r"nim: Kernel\.candidate_moves lists 1:1 twice"),
        (
            BoutonOutsideCandidates,
            r"nim: Kernel\.winning_move gives 2:2, not one of candidate_moves",
        ),
    ],
)
def test_check_game_finds_game_knowledge_that_the_search_would_trust_wrongly(
    kind: type[NimState], message: str
) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(lambda: position(kind, 1, 3))


def test_candidate_moves_that_are_some_of_the_legal_moves_pass() -> None:
    check_game(lambda: position(SingleStones, 1, 2, 3))
    result = FastMCTS(SearchConfig(seed=1)).search(
        position(SingleStones, 1, 3), Budget(iterations=500)
    )
    assert {stats.notation for stats in result.moves} == {"1:1", "2:1"}


def test_the_search_refuses_a_first_position_without_candidate_moves() -> None:
    # Before: an IndexError in the search's statistics.
    with pytest.raises(ValueError, match=r"nim: Kernel\.candidate_moves lists no move, but the"):
        FastMCTS().search(position(NoCandidates, 1, 3), Budget(iterations=100))


# -- the player to move ------------------------------------------------------------------


@njit(CURRENT_PLAYER_SIG, cache=True)
def one_based_player(state):  # type: ignore[no-untyped-def]
    return state[TO_MOVE] + 1


OneBasedPlayers = nim_on("OneBasedPlayers", current_player=one_based_player)


@pytest.mark.parametrize("config", [SearchConfig(seed=1), SearchConfig.plain(seed=1)])
def test_a_player_to_move_out_of_range_is_refused_before_the_search(config: SearchConfig) -> None:
    # Players 1 and 2 of two: the first position's 1 is in range, the next one's 2 is not.
    # Before, the default options stopped saying that the turn did not pass to the next
    # player, and plain UCT read past its arrays and chose by what it found there.
    state = position(OneBasedPlayers, 3, 4, 5)
    message = r"The current_player of 'nim' must be an int in \[0, 2\); got 2\.$"
    with pytest.raises(ValueError, match=message):
        FastMCTS(config).search(state, Budget(iterations=20_000))
    with pytest.raises(ConformanceError, match=message):  # in the generic engine's words too
        check_game(lambda: state.clone())


@njit(CURRENT_PLAYER_SIG, cache=True)
def one_based_on_four_heaps(state):  # type: ignore[no-untyped-def]
    return state[TO_MOVE] + (state.shape[0] > 4)


OneBasedOnFourHeaps = nim_on("OneBasedOnFourHeaps", current_player=one_based_on_four_heaps)


def test_each_search_checks_the_player_to_move_in_its_own_position() -> None:
    # Before, an engine checked a kernel once, at its first search: a later search where the
    # kernel numbered its players from 1 (here on four heaps) ran, reading past its arrays.
    engine = FastMCTS(SearchConfig.plain(seed=1))
    engine.search(position(OneBasedOnFourHeaps, 3, 5, 7), Budget(iterations=200))
    message = r"The current_player of 'nim' must be an int in \[0, 2\); got 2\.$"
    with pytest.raises(ValueError, match=message):
        engine.search(position(OneBasedOnFourHeaps, 1, 2, 3, 4), Budget(iterations=200))


# -- a game where a player may move twice in a row --------------------------------


@njit(APPLY_SIG, cache=True)
def apply_with_extra_turns(state, move):  # type: ignore[no-untyped-def]
    """Nim, but emptying a heap while stones are left elsewhere earns another move."""
    heap = HEAPS + move // MOST
    state[heap] -= move % MOST + 1
    if state[heap] != 0 or is_terminal(state):
        state[TO_MOVE] = 1 - state[TO_MOVE]


class ExtraTurnsNim(NimState):
    kernel = NimState.kernel._replace(
        apply=apply_with_extra_turns, rollout=nim_rollout(apply_with_extra_turns)
    )
    __slots__ = ()


@functools.cache
def mover_wins(heaps: tuple[int, ...]) -> bool:
    """Whether the player to move wins the extra-turn variant, by brute force."""
    for heap, stones in enumerate(heaps):
        for taken in range(1, stones + 1):
            child = (*heaps[:heap], stones - taken, *heaps[heap + 1 :])
            if sum(child) == 0:
                return True
            again = child[heap] == 0  # the same player moves next
            if mover_wins(child) == again:
                return True
    return False


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({}, "solver, transpositions need"),  # Nim's defaults: GRAVE is off
        ({"solver": False, "transpositions": False, "rave": True}, "rave need"),
    ],
)
def test_a_game_with_extra_turns_is_refused_by_the_options_that_need_turns_taken(
    options: dict[str, bool], named: str
) -> None:
    state = position(ExtraTurnsNim, 1, 2)
    check_game(lambda: state.clone())  # a valid game for the protocol
    with pytest.raises(ValueError, match=f"moved twice in a row.*{named}"):
        FastMCTS(SearchConfig(seed=0, **options)).search(state, Budget(iterations=2000))


@pytest.mark.parametrize("heaps", [(1, 2), (2, 2), (1, 3), (2, 3), (1, 1, 2)])
def test_a_game_with_extra_turns_is_searched_without_them(heaps: tuple[int, ...]) -> None:
    state = position(ExtraTurnsNim, *heaps)
    plain = SearchConfig(seed=0, solver=False, transpositions=False, rave=False)
    for engine in (FastMCTS(plain), MCTS(SearchConfig(seed=0))):
        result = engine.search(state, Budget(iterations=20_000))
        assert (result.value > 0.5) == mover_wins(heaps), (heaps, engine.name)
        if mover_wins(heaps):
            child = after(state, result.best_move)
            again = child.current_player == state.current_player
            assert sum(child.heaps) == 0 or mover_wins(tuple(child.heaps)) == again, heaps


# -- three players --------------------------------------------------------------------


def three_player_apply(step: int) -> Any:
    """Nim's move for three players, the turn passing ``step`` players on (1: in order)."""

    @njit(APPLY_SIG, cache=True)
    def apply(state, move):  # type: ignore[no-untyped-def]
        state[HEAPS + move // MOST] -= move % MOST + 1
        state[TO_MOVE] = (state[TO_MOVE] + step) % 3

    return apply


@njit(RETURNS_SIG, cache=True)
def last_taker_wins(state, out):  # type: ignore[no-untyped-def]
    """Whoever took the last stone gets 1, the other two 0."""
    out[:] = 0.0
    if is_terminal(state):
        out[(state[TO_MOVE] + 2) % 3] = 1.0  # in turn order, the player before the one to move


def three_player_nim(step: int, *heaps: int) -> NimState:
    """Nim for three players on a kernel whose turns pass ``step`` players on."""
    apply = three_player_apply(step)

    class ThreePlayers(NimState):
        __slots__ = ()

    ThreePlayers.kernel = NimState.kernel._replace(
        apply=apply, returns=last_taker_wins, rollout=nim_rollout(apply)
    )
    spec = dataclasses.replace(
        make_nim(*heaps).spec,
        num_players=3,
        min_return=0.0,
        zero_sum=False,
        player_names=("A", "B", "C"),
    )
    return ThreePlayers(spec, np.array([0, *heaps], dtype=np.int64))


def test_three_players_in_turn_are_searched_with_the_options_that_need_turns_taken() -> None:
    # The solver is for two players; transpositions and GRAVE read who moved into a
    # node from the player to move there, the next player in turn order.
    state = three_player_nim(1, 4)
    result = FastMCTS(SearchConfig(seed=0, rave=True)).search(state, Budget(iterations=5000))
    assert result.best_notation == "1:4" and result.value == 1.0  # the last stone at once
    assert all(m.proven is None for m in result.moves)


def test_three_players_out_of_turn_order_are_refused_by_those_options() -> None:
    # Each move skips a player (A, C, B, A, ...): no one moves twice in a row. Before, the
    # message said someone had.
    state = three_player_nim(2, 3, 3)
    with pytest.raises(ValueError, match=r"did not pass to the next player .*a player was skipped"):
        FastMCTS(SearchConfig(seed=0)).search(state, Budget(iterations=2000))
    plain = SearchConfig(seed=0, transpositions=False, rave=False)
    assert FastMCTS(plain).search(state, Budget(iterations=2000)).simulations == 2000


def test_workers_refuse_a_game_class_that_they_could_not_import() -> None:
    # A class defined in python -c (or a REPL, a notebook, a pipe) cannot be imported by a
    # worker process; before, the workers died and the search said only that.
    script = (
        "from mctslab import Budget\n"
        "from mctslab.fast import FastMCTS\n"
        "from tests.fast.nim_kernel import NimState, make_nim\n"
        "class Mine(NimState):\n"
        "    __slots__ = ()\n"
        "start = make_nim(1, 2)\n"
        "FastMCTS(workers=2).search(Mine(start.spec, start.data.copy()), Budget(iterations=100))\n"
    )
    root = Path(__file__).resolve().parents[2]
    paths = [str(root / "src"), str(root), os.environ.get("PYTHONPATH", "")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=300
    )
    assert done.returncode == 1
    assert "ValueError: Worker processes start afresh" in done.stderr
    assert "Mine was defined in an interactive session" in done.stderr


def test_play_games_plays_a_game_of_ones_own_from_its_position() -> None:
    # Heaps 1, 2, 3: a nim-sum of 0, so whoever moves second wins with best play (Bouton), and
    # a search that proves every position this small plays best.
    a, b = (
        MCTSPlayer(config=SearchConfig(seed=seed), budget=Budget(iterations=5000))
        for seed in (1, 2)
    )
    games = play_games(make_nim(1, 2, 3), a, b, games=4)
    assert [game["winner"] for game in games] == [1, 1, 1, 1]  # the seat moving second
    assert [game["score"] for game in games] == [0.0, 1.0, 0.0, 1.0]  # a moves first in even games
    assert {game["game"] for game in games} == {"nim"}
    with pytest.raises(ValueError, match="'params' parameter of play_games must be None when"):
        play_games(make_nim(1, 2, 3), a, b, params={})
    finished = make_nim(1)
    finished.play("1:1")
    with pytest.raises(ValueError, match="needs a position with moves to play"):
        play_games(finished, a, b)


@njit(RETURNS_SIG, cache=True)
def win_rates(state, out):  # type: ignore[no-untyped-def]
    """1 for whoever took the last stone, 0 for the other: each player's win rate."""
    out[:] = 0.0
    if is_terminal(state):
        out[1 - state[TO_MOVE]] = 1.0


WinRates = nim_on("WinRates", returns=win_rates)


def test_returns_that_break_the_specs_zero_sum_are_refused_before_the_search() -> None:
    # Win rates in [0, 1] declared zero-sum: the generic engine and check_game refused
    # them, the compiled engine searched on (its loop checks only the return steps).
    start = make_nim(3, 4)
    spec = dataclasses.replace(start.spec, min_return=0.0)
    state = WinRates(spec, start.data.copy())
    with pytest.raises(ValueError, match="which do not sum to 0 though its spec says zero_sum"):
        FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=100))
    fine = WinRates(dataclasses.replace(spec, zero_sum=False), start.data.copy())
    assert FastMCTS(SearchConfig(seed=1)).search(fine, Budget(iterations=100)).simulations == 100


def test_a_negative_count_of_moves_is_named_as_such() -> None:
    # Before: "listed -1 moves, more than spec.num_actions".
    state = make_nim(1, 2)
    with pytest.raises(ValueError, match=r"^nim: Kernel\.legal_moves listed -1 moves: a count"):
        list_moves(lambda data, out: -1, state.data, state.spec, "legal_moves")


@njit(APPLY_SIG, cache=True)
def pass_only(state, move):  # type: ignore[no-untyped-def]
    """A move that forgets to take its stones: the game never ends."""
    state[TO_MOVE] = 1 - state[TO_MOVE]


EndlessNim = nim_on("EndlessNim", apply=pass_only, rollout=nim_rollout(pass_only))


@pytest.mark.parametrize(
    ("kind", "longest"), [(NimState, 3), (EndlessNim, 1000)], ids=["short", "endless"]
)
def test_a_game_longer_than_its_max_game_length_is_refused_before_the_search(
    kind: type[NimState], longest: int
) -> None:
    # Before, a max_game_length too small let the tree grow deeper than the loop's path,
    # which it wrote past (heaps (200,) with max_game_length 2 aborted the process: "free():
    # invalid pointer"), and a game that never ends hung the check before the search.
    start = make_nim(5, 5)
    state = kind(dataclasses.replace(start.spec, max_game_length=longest), start.data.copy())
    with pytest.raises(ValueError, match=rf"goes on past spec\.max_game_length \({longest} moves"):
        FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=100))


@njit(RETURNS_SIG, cache=True)
def margin_returns(state, out):  # type: ignore[no-untyped-def]
    """A win worth 3/4 of the range's top: 0.75 to whoever took the last stone, -0.75 to the
    other, as a score margin might give."""
    out[:] = 0.0
    if is_terminal(state):
        out[1 - state[TO_MOVE]] = 0.75
        out[state[TO_MOVE]] = -0.75


MarginNim = nim_on("MarginNim", returns=margin_returns)


def test_the_solver_leaves_a_game_with_returns_finer_than_win_draw_loss_to_the_search() -> None:
    # Before, the solver valued each end of the game reached in the tree as a win (1) or a
    # loss (0), the playouts as the game's returns (a win 0.875): a proven win was worth 1
    # where every line of the game gives 0.875, and the engines disagreed.
    start = make_nim(1, 2, 4)  # a nim-sum of 7: the player to move wins
    state = MarginNim(dataclasses.replace(start.spec, return_steps=8), start.data.copy())
    check_game(lambda: state.clone())
    budget = Budget(iterations=20_000)
    compiled = FastMCTS(SearchConfig(seed=1)).search(state, budget)
    generic = MCTS(SearchConfig(seed=1)).search(state, budget)
    assert compiled.proven is None and all(move.proven is None for move in compiled.moves)
    assert compiled.value <= 0.875 and generic.value <= 0.875
    assert compiled.value == pytest.approx(generic.value, abs=0.05)
    assert nim_sum(after(state, compiled.best_move).heaps) == 0


def test_the_solver_proves_a_game_of_wins_and_losses_alone() -> None:
    # return_steps 1: every return is the range's bottom or top, no draw; the solver's
    # values are those exactly, so it stays on (it was off with any steps but 2).
    start = make_nim(1, 2, 4)  # a nim-sum of 7: the player to move wins
    state = NimState(dataclasses.replace(start.spec, return_steps=1), start.data.copy())
    check_game(lambda: state.clone())
    result = FastMCTS(SearchConfig(seed=1)).search(state, Budget(iterations=20_000))
    assert result.proven == "win" and result.stopped_by == "proven"
    assert nim_sum(after(state, result.best_move).heaps) == 0
