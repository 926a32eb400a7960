"""One arena game: a picklable task in, a JSON-ready record entry out.

Every backend (this process, a local process pool, a Ray cluster) runs the
same :func:`play_game`, so the record is the same whichever ran it. Players
are built from their spec text inside the worker, with per-game seeds
derived from the run's seed and the game's index (:func:`game_seeds`), so
a game is reproducible wherever it runs (exactly so with iteration budgets).
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import numpy as np

from mctslab._validation import check_int, invalid
from mctslab.arena.spec import PlayerSpec, parse_player
from mctslab.games import make
from mctslab.games._base import State, first_line
from mctslab.players.base import Player
from mctslab.protocols import EngineError, EngineResignedError, EngineTimeoutError
from mctslab.records import winner_tag

#: The two players of a match: ``A`` is the first ``--player`` (the one whose
#: score and Elo are reported), ``B`` the second.
PLAYER_IDS = ("A", "B")
#: Distinguishes the games' seed stream from the openings'.
_GAME_STREAM = 0


def game_seeds(
    run_seed: int, index: int, specs: tuple[PlayerSpec, PlayerSpec]
) -> tuple[int | None, int | None]:
    """The seeds of players A and B in game ``index`` (None for a player that takes none).

    From the run's seed, or from a spec's own ``seed`` option when it has one.
    """
    seeds: list[int | None] = []
    for slot, spec in enumerate(specs):
        if not spec.seeded:
            seeds.append(None)
            continue
        base = run_seed if spec.base_seed is None else spec.base_seed
        sequence = np.random.SeedSequence([base, _GAME_STREAM, index, slot])
        seeds.append(int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)))
    return seeds[0], seeds[1]


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game of a match."""

    game: str
    params: Mapping[str, Any]
    #: Spec texts of players A and B.
    players: tuple[str, str]
    #: Seeds of players A and B.
    seeds: tuple[int | None, int | None]
    index: int
    #: Which seat (0 moves first) player A takes; its partner game has the other.
    a_seat: int
    opening: tuple[str, ...]
    #: The sweep point (0 without a sweep) and the swept option's value.
    sweep: int = 0
    sweep_value: str | None = None
    run_seed: int = 0

    @property
    def pair(self) -> int:
        return self.index // 2


class GameFailed(RuntimeError):
    """A game stopped on an error (a player crashed): the run stops and says which game."""


#: Builds a player from its id ("A" or "B"), spec and seed.
PlayerBuilder = Callable[[str, PlayerSpec, int | None], Player]


def _build(player_id: str, spec: PlayerSpec, seed: int | None) -> Player:
    return spec.build(seed)


def play_game(
    task: GameTask,
    interrupted: Callable[[], bool] | None = None,
    *,
    build: PlayerBuilder = _build,
    start: State | None = None,
) -> dict[str, Any]:
    """Play ``task``'s game to the end and return its record entry.

    A player that answers an illegal move loses the game (the reason says
    so), and so does an external engine that resigns, runs out of time,
    dies or breaks its protocol during the game, as in engine tournaments;
    any other error of a player (one that will not start included)
    propagates. ``interrupted``, asked after every move, stops the game
    with KeyboardInterrupt when it says so: a search stopped by Ctrl-C
    returns its best move rather than raising.
    ``build`` makes the players (by default from their specs), so that a
    player written in Python can take a recorded game's seat (two players
    built on one engine are refused: both are told every move). ``start``, a
    position of a game of one's own, replaces ``make(task.game, **task.params)``.
    """
    state = make(task.game, **task.params) if start is None else start.clone()
    specs = [parse_player(text) for text in task.players]
    # Slot 0 is player A, slot 1 player B; seat 0 moves first.
    slot_of_seat = (0, 1) if task.a_seat == 0 else (1, 0)
    entries = [
        {"id": PLAYER_IDS[slot], "spec": specs[slot].text, "seed": task.seeds[slot]}
        for slot in slot_of_seat
    ]
    with contextlib.ExitStack() as stack:
        players: list[Player] = []
        for slot in slot_of_seat:
            players.append(build(PLAYER_IDS[slot], specs[slot], task.seeds[slot]))
            stack.callback(players[-1].close)
        _check_own_engines(players[0], players[1], "A and B", "play_game")
        for player in players:
            player.start(state.clone())
        moves: list[str] = []
        seconds: list[float] = []
        forfeit: tuple[int, str] | None = None

        def forfeit_of(seat: int, error: EngineError) -> tuple[int, str]:
            return seat, _forfeit_reason(error, PLAYER_IDS[slot_of_seat[seat]])

        def tell(move: int) -> tuple[int, str] | None:
            """Tell every player ``move``: the forfeit of an engine that broke on it, if any."""
            for seat, player in enumerate(players):
                try:
                    player.observe(move)
                except EngineError as error:
                    if not state.is_terminal():  # a decided game's result stands
                        return forfeit_of(seat, error)
            return None

        for text in task.opening:
            move = state.parse_move(text)
            state.apply(move)
            forfeit = tell(move)
            if forfeit is not None:
                break
        while forfeit is None and not state.is_terminal():
            seat = state.current_player
            began = perf_counter()
            try:
                move = players[seat].choose(state.clone())
            except EngineError as error:
                forfeit = forfeit_of(seat, error)
                break
            elapsed = round(perf_counter() - began, 6)
            if interrupted is not None and interrupted():
                raise KeyboardInterrupt
            if move not in state.legal_moves():
                forfeit = (seat, f"illegal move {move!r} by {entries[seat]['id']}")
                break
            seconds.append(elapsed)
            moves.append(state.move_to_str(move))
            state.apply(move)
            forfeit = tell(move)
    if forfeit is not None:
        winner: int | None = 1 - forfeit[0]
        reason = forfeit[1]
    else:
        outcome = state.outcome()
        assert outcome is not None  # the loop ends at the end of the game
        winner, reason = outcome.winner, outcome.reason
    score = 0.5 if winner is None else float(winner == task.a_seat)
    return {
        "type": "game",
        "sweep": task.sweep,
        "sweep_value": task.sweep_value,
        "index": task.index,
        "pair": task.pair,
        "game": task.game,
        "params": dict(task.params),
        "run_seed": task.run_seed,
        "players": entries,
        "opening": list(task.opening),
        "moves": moves,
        "seconds": seconds,
        "result": winner_tag(winner),
        "winner": winner,
        "reason": reason,
        "score": score,
    }


def play_games(
    game: str | State,
    a: Player,
    b: Player,
    *,
    games: int = 2,
    params: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Play ``games`` games of ``game`` between two players of one's own, colours alternated.

    ``game`` is a bundled game's name, with its ``params`` (``{"size": 8}``
    for Gomoku), or a position to start every game from: a ``State``, of a
    bundled game or of a compiled game of one's own (see :mod:`mctslab.kernel`;
    ``params`` then stays None). A game written for the generic engine only
    (:class:`~mctslab.core.protocol.GameState`, like the README's
    plain-Python Nim) is not a State, which the players take and whose
    ``outcome()`` gives each game's result, and is refused: play it with a
    loop of one's own over the engines' ``search`` and ``advance``.
    ``a`` moves first in the even games (the first included), ``b`` in the
    others. Returns each game's entry as :func:`play_game` gives it:
    ``score`` is ``a``'s (1
    a win, 0.5 a draw, 0 a loss), ``winner`` the seat that won (None for a
    draw), with ``result``, ``reason`` and ``moves``; ``players`` holds each
    seat's ``id`` ("A" is ``a``) and ``name``. The players are started for
    every game and told every move, and left open: closing them is the
    caller's. Being told every move, ``a`` and ``b`` must be two objects that
    do not share an engine (each keeps its tree in its engine).
    """
    check_int(games, "games", "play_games", low=1)
    start: State | None = None
    if isinstance(game, State):
        if params is not None:
            raise invalid("params", "play_games", "None when game is a position", params)
        if game.is_terminal():
            raise ValueError(f"play_games needs a position with moves to play; got:\n{game}")
        start = game
        game, params = start.spec.name, start.spec.params
    elif not isinstance(game, str):
        requirement = (
            "a bundled game's name or a State (a compiled game's position, see "
            "mctslab.kernel; a game for the generic engine only is not one)"
        )
        raise invalid("game", "play_games", requirement, game)
    else:
        if params is None:
            params = {}
        elif not isinstance(params, Mapping):
            raise invalid("params", "play_games", "None or a mapping", params)
        make(game, **params)  # the game and its parameters checked before any game is played
    for name, player in (("a", a), ("b", b)):
        steps = ("start", "choose", "observe")
        if not hasattr(player, "name") or not all(
            callable(getattr(player, step, None)) for step in steps
        ):
            raise invalid(name, "play_games", "a Player (name, start, choose, observe)", player)
    if a is b:
        raise invalid("b", "play_games", "a Player other than a (each seat is told every move)", b)
    _check_own_engines(a, b, "a and b", "play_games")
    seats = {"A": _Lent(a), "B": _Lent(b)}
    names = {"A": a.name, "B": b.name}
    entries = []
    for index in range(games):
        # The specs only fill the task: the players are the ones given.
        task = GameTask(game, params, ("random", "random"), (None, None), index, index % 2, ())
        entry = play_game(task, build=lambda player_id, spec, seed: seats[player_id], start=start)
        entry["players"] = [
            {"id": seat["id"], "name": names[seat["id"]]} for seat in entry["players"]
        ]
        entries.append(entry)
    return entries


def _check_own_engines(first: Player, second: Player, names: str, owner: str) -> None:
    """Raise ValueError if the two players search with one engine (an MCTSPlayer's ``engine``)
    that keeps its tree between searches.

    Each seat is told every move, and such an engine keeps one tree: shared, it
    is advanced twice a move, and its next search fails on a move it does not
    have. An engine with ``reuse_tree=False`` keeps none and may be shared.
    """
    engine = getattr(first, "engine", None)
    keeps_tree = getattr(getattr(engine, "config", None), "reuse_tree", True)
    if engine is not None and engine is getattr(second, "engine", None) and keeps_tree:
        raise ValueError(
            f"Players {names} of {owner} share one engine: each player keeps its own tree in "
            "its engine and is told every move, so give each player an engine of its own "
            "(or share one with reuse_tree=False, which keeps no tree)."
        )


class _Lent:
    """A caller's player lent to one game: :func:`play_game` closes its players after it."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name

    def start(self, state: State) -> None:
        self.player.start(state)

    def choose(self, state: State) -> int:
        return self.player.choose(state)

    def observe(self, move: int) -> None:
        self.player.observe(move)

    def close(self) -> None:
        """Left to the caller, who plays more games with the player."""


def _forfeit_reason(error: EngineError, player_id: str) -> str:
    """Why an external engine lost the game: its error's first line, the full text being long."""
    if isinstance(error, EngineResignedError):
        return f"{player_id} resigned"
    what = first_line(error) or type(error).__name__
    if isinstance(error, EngineTimeoutError):
        return f"{player_id} lost on time: {what}"
    return f"{player_id} forfeits: {what}"


def run_task(task: GameTask) -> dict[str, Any]:
    """:func:`play_game` for a worker: an error becomes an ``error`` entry with its traceback."""
    try:
        return play_game(task)
    except Exception as error:
        return {
            "type": "error",
            "index": task.index,
            "sweep": task.sweep,
            "error": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc(),
        }
