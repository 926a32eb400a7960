"""Games held in server memory: one per browser tab, each with its own lock and AI.

A :class:`GameSession` owns a position, its move list and an :class:`MCTSPlayer`.
Every change happens under the session's lock and is checked first, so a bad
request leaves the game as it was. A search runs in a worker thread on a copy
of the position; while it runs the game refuses moves and undos (one search
per game at a time), and its progress is published to the page's live stream.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal

from mctslab.core.config import Budget, SearchConfig
from mctslab.core.result import SearchResult
from mctslab.core.tree_view import TreeView
from mctslab.games import GameOverError, State
from mctslab.games._base import first_line
from mctslab.players.mcts import MCTSPlayer
from mctslab.records import continued_tags, dump_record, recorded_ending, result_tag
from mctslab.web._boards import board_view, two_player_games

#: The games kept at once, and the searches run at once (the others wait for a thread).
MAX_GAMES = 32
SEARCHES = 4
#: The most memory a game's search tree takes (MiB; Budget.memory_mb). A game keeps its tree
#: between moves (tree reuse) while it is kept: without a limit each could take the compiled
#: engine's DEFAULT_TREE_MB (1 GiB), every kept game together many times the machine's memory.
MEMORY_MB = 256.0

SearchKind = Literal["ai", "hint"]
#: Why a game was closed, as its live stream's last message says: deleted (or replaced by
#: a new game of its tab's), evicted to make room for a new game, or the server stopping.
CloseReason = Literal["deleted", "evicted", "shutdown"]
Message = dict[str, Any]

#: How deep and how wide the snapshot of the last AI search tree is drawn.
TREE_DEPTH, TREE_TOP_K = 3, 4


class ApiError(Exception):
    """A request the game refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a new game is made of: the game with its parameters, the person's side, the AI."""

    game: str
    params: dict[str, int]
    human: int
    budget: Budget
    engine: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "params": self.params,
            "human": self.human,
            "seconds": self.budget.seconds,
            "simulations": self.budget.iterations,
            "memory_mb": self.budget.memory_mb,
            "engine": self.engine,
        }


class _Subscriber:
    """One open live stream: messages cross from worker threads to its event loop.

    A page that reads slower than a search reports its progress gets the latest
    progress only: one waiting to be sent is replaced by the next, so what waits
    stays small. Every other message (a change of the game, its closing) is kept.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._messages: deque[Message] = deque()
        self._arrived = asyncio.Event()

    def send(self, message: Message) -> bool:
        """Queue ``message``; False once the stream's loop has closed."""
        try:
            self.loop.call_soon_threadsafe(self._put, message)
        except RuntimeError:
            return False
        return True

    async def get(self) -> Message:
        """The next message, once there is one."""
        while not self._messages:
            self._arrived.clear()
            await self._arrived.wait()
        return self._messages.popleft()

    def _put(self, message: Message) -> None:  # in the stream's loop
        waiting = self._messages
        if waiting and waiting[-1]["type"] == message["type"] == "progress":
            waiting[-1] = message  # of the same search: every search begins with a state
        else:
            waiting.append(message)
        self._arrived.set()


class SearchWorkers:
    """The threads that every game's searches share, counting the busy ones.

    A search submitted while every thread is busy waits for one; knowing so, its
    game can tell the page why nothing happens yet.
    """

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="mctslab-search")
        self._lock = threading.Lock()
        self._busy = 0  # submitted and not finished

    def submit(self, task: Callable[[], None]) -> tuple[bool, Future[None]]:
        """Run ``task`` in a worker thread: whether it has to wait for a free one first, and
        its future (for :meth:`cancel`)."""
        with self._lock:
            waits = self._busy >= self.threads
            self._busy += 1
        return waits, self._executor.submit(self._run, task)

    def cancel(self, future: Future[None]) -> bool:
        """Drop a task that still waits for a thread; False if it has begun (or ended)."""
        if not future.cancel():
            return False
        with self._lock:
            self._busy -= 1
        return True

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)

    def _run(self, task: Callable[[], None]) -> None:
        try:
            task()
        finally:
            with self._lock:
                self._busy -= 1


class GameSession:
    """One game between a person and the AI."""

    def __init__(
        self,
        game_id: str,
        settings: Settings,
        start: State,
        moves: list[int],
        tags: dict[str, str],
    ) -> None:
        self.id = game_id
        self.settings = settings
        self._start = start
        #: The tags of a loaded record (an event, say), kept when the game is saved.
        self._tags = tags
        #: How many of the moves a loaded record's (a side that has made none since keeps
        #: the record's name for it).
        self._loaded = len(moves)
        #: The loaded record's moves: saved with none made or taken back since, the game is
        #: the record's and keeps its result (a resignation's, say).
        self._record_moves = list(moves)
        self._history: list[int] = []
        self._state = start.clone()
        self._lock = threading.Lock()
        self._player = MCTSPlayer(settings.engine, SearchConfig(), settings.budget)
        self._subscribers: set[_Subscriber] = set()
        self._searching: SearchKind | None = None
        self._queued = False  # the search waits for a free worker thread
        #: The search's task and the threads it waits for, to drop it if the game closes first.
        self._task: tuple[SearchWorkers, Future[None]] | None = None
        self._stop: threading.Event | None = None
        self._last_search: Message | None = None
        self._hint: Message | None = None
        self._error: str | None = None
        self._tree: TreeView | None = None
        self._version = 0
        self.closed = False
        self.last_used = time.monotonic()
        for move in moves:
            self._push(move)

    # -- reading ------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self._searching is not None

    @property
    def watched(self) -> bool:
        """Whether a live stream (a page showing the game) is open."""
        return bool(self._subscribers)

    def snapshot(self) -> Message:
        """The whole game as the page shows it."""
        with self._lock:
            return self._snapshot()

    def record(self) -> str:
        """The game so far as a record (:mod:`mctslab.records`): a loaded record's tags, then
        who played which side (a side that has not moved since the record was loaded keeps
        its name there) and the result, which replace the loaded record's own (kept while
        the game is the record's: a game that ended before its position did stays ended)."""
        with self._lock:
            human = self.settings.human
            players = ["you" if player == human else self._player.name for player in (0, 1)]
            unchanged = self._history == self._record_moves
            ended = recorded_ending(self._state, self._tags) if unchanged else None
            result = ended or result_tag(self._state)
            tags = continued_tags(
                self._start, self._history, players, result, loaded=self._tags, since=self._loaded
            )
            return dump_record(self._start, self._history, tags=tags)

    def tree(self) -> tuple[TreeView, str]:
        """The snapshot of the last AI search tree with a title for the drawing."""
        with self._lock:
            if self._tree is None or self._last_search is None:
                raise ApiError(404, "There is no AI search tree yet: let the AI move first.")
            return self._tree, (
                f"{self.settings.game}: AI move {self._last_search['best_move']}, "
                f"{self._last_search['simulations']:,} simulations"
            )

    # -- changing -----------------------------------------------------------
    def play(self, move: int | str) -> Message:
        """The person's move (an id or the game's notation), checked before anything changes."""
        with self._lock:
            self._check_idle("play a move")
            if self._state.is_terminal():
                raise ApiError(409, "The game is over; start a new game or undo.")
            if self._state.current_player != self.settings.human:
                raise ApiError(409, "It is the AI's turn, not yours.")
            try:
                move_id = self._state.parse_move(move) if isinstance(move, str) else int(move)
                self._state.play(move_id)  # checks before it changes anything
            except GameOverError as error:
                raise ApiError(409, first_line(error)) from error
            except ValueError as error:
                raise ApiError(400, first_line(error)) from error
            self._history.append(move_id)
            self._observe(move_id)
            # advice for the position just left, and the failure of a search of it
            self._hint = self._error = None
            return self._changed()

    def undo(self, version: int | None = None) -> Message:
        """Take back moves until it is the person's turn again, one of their moves undone.

        ``version``, when given, is the game's version the person saw: a game changed since
        (by an undo sent twice, say) is refused rather than taken back further.
        """
        with self._lock:
            self._check_idle("undo")
            if version is not None and version != self._version:
                raise ApiError(
                    409,
                    f"The game has changed since version {version} (it is at {self._version}); "
                    "nothing was taken back.",
                )
            point = self._undo_point()
            if point is None:
                raise ApiError(409, "There is no move of yours to take back.")
            kept = self._history[:point]
            self._loaded = min(self._loaded, point)  # moves made again are this session's
            self._history = []
            self._state = self._start.clone()
            for move in kept:
                self._push(move)
            self._player.reset()
            self._last_search = self._tree = self._hint = self._error = None
            return self._changed()

    def start_search(self, kind: SearchKind, workers: SearchWorkers) -> Message:
        """Begin an AI move (``"ai"``) or a hint for the person (``"hint"``) in a worker thread."""
        with self._lock:
            self._check_idle("start another search")
            if self._state.is_terminal():
                raise ApiError(409, "The game is over; there is nothing to search.")
            ai_to_move = self._state.current_player != self.settings.human
            if kind == "ai" and not ai_to_move:
                raise ApiError(409, "It is your turn, not the AI's; ask for a hint instead.")
            if kind == "hint" and ai_to_move:
                raise ApiError(409, "It is the AI's turn; a hint is for your own moves.")
            self._searching, self._stop, self._error = kind, threading.Event(), None
            self._hint = None
            position, stop = self._state.clone(), self._stop
            # The task takes this lock first, so it cannot start before the snapshot is sent.
            self._queued, task = workers.submit(lambda: self._search(kind, position, stop))
            self._task = (workers, task)
            return self._changed()

    def stop_search(self) -> bool:
        """Ask the search to finish now: a running one plays its best move so far (an AI
        move) or keeps it (a hint); one still waiting for a thread never starts."""
        with self._lock:
            if self._stop is None:
                return False
            self._stop.set()
            if self._cancel_queued():
                self._changed()
            return True

    def close(self, reason: CloseReason = "deleted") -> None:
        """Stop any search (one still waiting for a thread never starts), end the live streams
        (telling them why) and release the engine."""
        with self._lock:
            self.closed = True
            self._publish({"type": "closed", "reason": reason})
            self._subscribers.clear()
            if self._stop is None:
                self._player.close()
            else:  # the search releases the engine as it ends
                self._stop.set()
                self._cancel_queued()

    # -- the live stream ------------------------------------------------------
    def subscribe(self, loop: asyncio.AbstractEventLoop) -> _Subscriber:
        """A live stream, made in ``loop``, that receives every change of this game and its
        searches' latest progress."""
        subscriber = _Subscriber(loop)
        with self._lock:
            self._subscribers.add(subscriber)
            subscriber.send({"type": "state", "game": self._snapshot()})
        return subscriber

    def unsubscribe(self, subscriber: _Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(subscriber)

    # -- internals --------------------------------------------------------------
    def _search(self, kind: SearchKind, position: State, stop: threading.Event) -> None:
        """Run in a worker thread: search, then play the move (AI) or keep the advice (hint)."""
        with self._lock:
            if stop.is_set():  # stopped before it began (too late to cancel): it never runs
                if self._end_search():
                    self._changed()
                return
            if self._queued:  # the page said the search waits; now it runs
                self._queued = False
                self._changed()
            version = self._version

        def progress(result: SearchResult) -> None:
            with self._lock:
                self._publish(
                    {"type": "progress", "search": kind, "version": version, **result.to_dict()}
                )

        try:
            result = self._player.analyse(position, progress=progress, stop=stop)
            tree = self._tree_view(position) if kind == "ai" else None
        except Exception as error:  # reported to the page; the game stays usable
            with self._lock:
                if self._end_search():
                    self._error = f"The search failed: {error}"
                    self._player.reset()
                    self._changed()
            return
        with self._lock:
            if not self._end_search():
                return
            if kind == "ai":
                self._last_search, self._tree = result.to_dict(), tree
                self._push(result.best_move)
                self._observe(result.best_move)
            else:
                self._hint = result.to_dict()
            self._changed()

    def _tree_view(self, position: State) -> TreeView | None:
        """A snapshot of the engine's tree at ``position``, if the engine can give one."""
        tree_view: Callable[..., TreeView] | None = getattr(self._player.engine, "tree_view", None)
        if tree_view is None:
            return None
        try:
            return tree_view(position, max_depth=TREE_DEPTH, top_k=TREE_TOP_K)
        except ValueError:  # the engine kept no tree (reuse_tree off)
            return None

    def _cancel_queued(self) -> bool:
        """Drop the search if it still waits for a thread (it never starts): whether it did."""
        if not (self._queued and self._task is not None and self._task[0].cancel(self._task[1])):
            return False
        self._end_search()
        return True

    def _end_search(self) -> bool:
        """Mark the search over; False if the game was closed meanwhile, whose engine (left to
        the search by :meth:`close`) is released now."""
        self._searching = self._stop = None
        self._queued = False
        if self.closed:
            self._player.close()
        return not self.closed

    def _check_idle(self, action: str) -> None:
        if self.closed:
            raise ApiError(404, f"Game {self.id!r} has been closed.")
        if self._searching is not None:
            raise ApiError(409, f"The AI is searching; stop the search or wait to {action}.")

    def _push(self, move: int) -> None:
        """Play a move already known to be legal (no engine update)."""
        self._state.apply(move)
        self._history.append(move)

    def _observe(self, move: int) -> None:
        """Tell the AI of a move played; at the game's end, let its tree go.

        A finished game is searched no more (an undo starts a new tree), but it
        stays among the kept games: its tree would hold memory until evicted.
        """
        if self._state.is_terminal():
            self._player.reset()
        else:
            self._player.observe(move)

    def _undo_point(self) -> int | None:
        """How many moves an undo keeps: up to the person's last move; None if they made none."""
        point, state = None, self._start.clone()
        for index, move in enumerate(self._history):
            if state.current_player == self.settings.human:
                point = index
            state.apply(move)
        return point

    def _changed(self) -> Message:
        """Count a change, tell the live streams, and return the new snapshot."""
        self._version += 1
        self.last_used = time.monotonic()
        snapshot = self._snapshot()
        self._publish({"type": "state", "game": snapshot})
        return snapshot

    def _publish(self, message: Message) -> None:
        self._subscribers = {s for s in self._subscribers if s.send(message)}

    def _snapshot(self) -> Message:
        state, spec = self._state, self._state.spec
        notation, walk = [], self._start.clone()
        for move in self._history:
            notation.append(walk.move_to_str(move))
            walk.apply(move)
        outcome = state.outcome()
        return {
            "id": self.id,
            "version": self._version,
            "settings": self.settings.to_dict(),
            "players": list(spec.player_names),
            "to_move": None if outcome else state.current_player,
            "board": board_view(state, self._history[-1] if self._history else None),
            "legal": [{"id": m, "move": state.move_to_str(m)} for m in state.legal_moves()],
            "moves": notation,
            "outcome": None
            if outcome is None
            else {"winner": outcome.winner, "reason": outcome.reason},
            "can_undo": self._undo_point() is not None,
            "searching": self._searching,
            "queued": self._queued,
            "last_search": self._last_search,
            "hint": self._hint,
            "error": self._error,
            "tree": self._tree is not None,
        }


class SessionStore:
    """All games of one server, with the worker threads their searches run in.

    At most ``max_games`` are kept, each searching with a tree of at most
    ``memory_mb`` MiB (its search stops when the tree is full), so memory stays
    bounded: making one more closes a game that is not searching, one that no
    page watches live first, then the one used least recently, and is refused
    (ApiError 503) while every game searches or waits to.
    """

    def __init__(
        self,
        engine: str,
        *,
        max_games: int = MAX_GAMES,
        search_threads: int = SEARCHES,
        memory_mb: float = MEMORY_MB,
    ) -> None:
        self.engine = engine
        self.max_games = max_games
        self.memory_mb = memory_mb
        self._games: dict[str, GameSession] = {}
        self._lock = threading.Lock()
        self.workers = SearchWorkers(search_threads)

    def new_game(
        self,
        start: State,
        moves: list[int],
        human: int,
        budget: Budget,
        tags: dict[str, str] | None = None,
        replace: str | None = None,
    ) -> GameSession:
        """A new game from ``start`` (an initial position) after ``moves``, already checked,
        searched with ``budget`` and the store's memory limit; ``tags`` (a loaded record's) are
        kept in the game's record.

        ``replace`` names a game to delete first (the old game of the page that asks), so
        that it makes room rather than another page's game; an id no longer kept is ignored.
        """
        if start.spec.num_players != 2:
            raise ApiError(
                400,
                f"{start.spec.name!r} is not a two-player game; the board plays "
                f"{', '.join(two_player_games())}.",
            )
        budget = dataclasses.replace(budget, memory_mb=self.memory_mb)
        settings = Settings(start.spec.name, dict(start.spec.params), human, budget, self.engine)
        with self._lock:
            replaced = self._games.pop(replace, None) if replace is not None else None
            if replaced is not None:
                replaced.close()
            self._evict()
            if len(self._games) >= self.max_games:
                raise ApiError(
                    503,
                    f"The server is busy: it keeps at most {self.max_games} games and every one "
                    "is searching; try again when a search has ended.",
                )
            game_id = secrets.token_urlsafe(9)
            session = GameSession(game_id, settings, start, moves, tags or {})
            self._games[game_id] = session
        return session

    def get(self, game_id: str) -> GameSession:
        """The game with this id (now counted as used); ApiError 404 if there is none."""
        with self._lock:
            session = self._games.get(game_id)
        if session is None:
            raise ApiError(
                404, f"Unknown game id {game_id!r}: it may have ended; start a new game."
            )
        session.last_used = time.monotonic()
        return session

    def delete(self, game_id: str) -> None:
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is None:
            raise ApiError(404, f"Unknown game id {game_id!r}.")
        session.close()

    def close(self) -> None:
        """Stop every search and wait for the worker threads (server shutdown)."""
        with self._lock:
            games, self._games = list(self._games.values()), {}
        for session in games:
            session.close("shutdown")
        self.workers.shutdown()

    def _evict(self) -> None:
        """Close idle games until there is room for one more, if they can: those no page
        watches first (on a watched one a person may be thinking over a move, with no
        request for a while), each group least recently used first."""
        idle = sorted(
            (s for s in self._games.values() if not s.searching),
            key=lambda s: (s.watched, s.last_used),
        )
        while len(self._games) >= self.max_games and idle:
            session = idle.pop(0)
            del self._games[session.id]
            session.close("evicted")
