"""The web board: a FastAPI app with a JSON API, a live stream per game, and one static page.

Commands go through plain HTTP so that every refusal is a JSON error with a
status and a message (``{"error": "..."}``): 4xx for a bad request, 503 for
what the server cannot do (every kept game searching, Graphviz missing). What
changes, and the AI's thinking while it searches, comes to the page over a
WebSocket per game.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException

from mctslab._validation import check_float, check_int, physical_mib
from mctslab.core.config import Budget
from mctslab.core.tree_view import TreeView
from mctslab.games import InvalidMoveError, State, available_games, make
from mctslab.games._base import first_line
from mctslab.players.mcts import ENGINES
from mctslab.records import load_record
from mctslab.web._boards import catalog, two_player_games
from mctslab.web._sessions import (
    MAX_GAMES,
    MEMORY_MB,
    SEARCHES,
    ApiError,
    GameSession,
    Message,
    SessionStore,
)

STATIC = Path(__file__).parent / "static"
#: The longest think and the most simulations one request may ask for (a guard for the server).
#: Every search stops within MAX_SECONDS, even one asked only for simulations.
MAX_SECONDS = 300.0
MAX_SIMULATIONS = 50_000_000
#: The AI's budget when a new game names none.
DEFAULT_SECONDS = 1.0
MAX_RECORD_CHARS = 1_000_000


class NewGame(BaseModel):
    """A new game, or a saved record to load (``record`` then names the game and its moves).

    ``moves`` are played from the start, one move an item in the game's notation
    (as a game's ``moves`` lists them); they may take as many characters as a
    record, written as a record writes them. A record names its own game,
    parameters and moves: giving ``game``, ``params`` or ``moves`` with it is refused.
    """

    model_config = ConfigDict(extra="forbid")

    game: str = "tictactoe"
    params: dict[str, StrictInt] = Field(default_factory=dict)
    # strict: JSON's true is not a side, nor a second
    human: StrictInt = Field(default=0, ge=0, le=1)
    # NaN compares false with every bound: said to be finite rather than "more than 300"
    seconds: StrictFloat | None = Field(default=None, gt=0, le=MAX_SECONDS, allow_inf_nan=False)
    simulations: StrictInt | None = Field(default=None, ge=1, le=MAX_SIMULATIONS)
    moves: list[StrictStr] = Field(default_factory=list)
    record: str | None = Field(default=None, max_length=MAX_RECORD_CHARS)
    #: The game this one replaces (the page's old game), deleted first: see SessionStore.new_game.
    replace: StrictStr | None = None

    @field_validator("moves")
    @classmethod
    def _moves_fit_in_a_record(cls, moves: list[str]) -> list[str]:
        length = sum(map(len, moves)) + len(moves) - 1  # with a space between moves
        if length > MAX_RECORD_CHARS:
            raise PydanticCustomError(
                "too_long",
                "Should take at most {limit} characters as a record writes them (a space "
                "between moves), not {length}",
                {"limit": f"{MAX_RECORD_CHARS:,}", "length": f"{length:,}"},
            )
        return moves

    @model_validator(mode="after")
    def _record_alone_names_the_game(self) -> NewGame:
        given = sorted({"game", "params", "moves"} & self.model_fields_set)
        if self.record is not None and given:
            raise PydanticCustomError(
                "record_and_game",
                "A record names its game, parameters and moves: drop {given}, or the record",
                {"given": ", ".join(given)},
            )
        return self

    def position(self) -> tuple[State, list[int], dict[str, str]]:
        """The start position, the move ids and the tags to keep (from ``record``, else from
        ``game`` and ``moves``, with no tags)."""
        if self.record is None and self.game not in available_games():
            # the registry's own message would list games the board does not play
            raise ApiError(
                400,
                f"Unknown game {self.game!r}; the board plays {', '.join(two_player_games())}.",
            )
        try:
            if self.record is not None:
                loaded = load_record(self.record)
                return loaded.start, list(loaded.moves), dict(loaded.tags)
            start = make(self.game, **self.params)
            return start, _played(start, self.moves), {}
        except ValueError as error:
            raise ApiError(400, first_line(error)) from error

    def budget(self) -> Budget:
        if self.seconds is None and self.simulations is None:
            return Budget(seconds=DEFAULT_SECONDS)
        # A search worker is a shared resource: without a time limit, the most simulations on a
        # big board (or with the generic engine) would hold one for hours.
        seconds = MAX_SECONDS if self.seconds is None else self.seconds
        return Budget(iterations=self.simulations, seconds=seconds)


def _played(start: State, moves: list[str]) -> list[int]:
    """The ids of ``moves``, each item one move, played from ``start`` (left untouched).

    Raises ValueError naming the item, as ``moves[3]``, before the game's own message.
    """
    position, ids = start.clone(), []
    for index, text in enumerate(moves):
        try:
            move = position.parse_move(text)
            position.play(move)
        except InvalidMoveError as error:
            raise ValueError(f"moves[{index}] is not one move: {error}") from None
        except ValueError as error:  # not legal there, or the game is over
            raise ValueError(f"moves[{index}]: {error}") from None
        ids.append(move)
    return ids


class Move(BaseModel):
    """A move as its id (what the board sends) or in the game's notation."""

    model_config = ConfigDict(extra="forbid")

    move: StrictInt | StrictStr


class Undo(BaseModel):
    """The version of the game the person saw (optional): a game changed since is not taken
    back, so that an undo sent twice takes back one move."""

    model_config = ConfigDict(extra="forbid")

    version: StrictInt | None = None


def create_app(
    engine: str = "compiled",
    *,
    max_games: int = MAX_GAMES,
    searches: int = SEARCHES,
    memory_mb: float = MEMORY_MB,
) -> FastAPI:
    """The app; ``engine`` searches every game ("compiled" or "python").

    At most ``max_games`` games are kept (while every one searches, a new game is
    refused), ``searches`` searches run at once (the others wait for a free
    worker thread), and each game's search tree, kept between its moves, takes at
    most ``memory_mb`` MiB (a search stops when it is full).
    """
    if engine not in ENGINES:
        raise ValueError(
            f"The 'engine' parameter of create_app must be one of {', '.join(ENGINES)}. "
            f"Got {engine!r} instead."
        )
    check_int(max_games, "max_games", "create_app", low=1)
    check_int(searches, "searches", "create_app", low=1)
    # 1 MiB holds any board's root and its children (19x19: 362 nodes).
    memory_mb = check_float(
        memory_mb, "memory_mb", "create_app", low=1.0, high=physical_mib(), low_inclusive=True
    )
    store = SessionStore(engine, max_games=max_games, search_threads=searches, memory_mb=memory_mb)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    # No interactive docs: their pages load scripts from a CDN, and the board serves everything.
    app = FastAPI(
        title="mctslab",
        lifespan=lifespan,
        openapi_url="/api/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    _add_error_handlers(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/catalog")
    def games() -> Message:
        """The playable games with their parameters, the limits, and what the server can draw."""
        return {
            "games": catalog(),
            "engine": engine,
            "dot": shutil.which("dot") is not None,
            "limits": {
                "seconds": MAX_SECONDS,
                "simulations": MAX_SIMULATIONS,
                "searches": store.workers.threads,
            },
        }

    @app.post("/api/games", status_code=201)
    def new_game(request: NewGame) -> Message:
        start, moves, tags = request.position()
        game = store.new_game(start, moves, request.human, request.budget(), tags, request.replace)
        return game.snapshot()

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> Message:
        return store.get(game_id).snapshot()

    @app.delete("/api/games/{game_id}", status_code=204)
    def delete_game(game_id: str) -> Response:
        store.delete(game_id)
        return Response(status_code=204)

    @app.post("/api/games/{game_id}/moves")
    def play(game_id: str, request: Move) -> Message:
        return store.get(game_id).play(request.move)

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str, request: Undo | None = None) -> Message:
        return store.get(game_id).undo(None if request is None else request.version)

    @app.post("/api/games/{game_id}/ai", status_code=202)
    def ai_move(game_id: str) -> Message:
        return store.get(game_id).start_search("ai", store.workers)

    @app.post("/api/games/{game_id}/hint", status_code=202)
    def hint(game_id: str) -> Message:
        return store.get(game_id).start_search("hint", store.workers)

    @app.post("/api/games/{game_id}/stop")
    def stop(game_id: str) -> Message:
        return {"stopping": store.get(game_id).stop_search()}

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> Response:
        text = store.get(game_id).record()
        return Response(text, media_type="text/plain; charset=utf-8")

    @app.get("/api/games/{game_id}/tree.dot")
    def tree_dot(game_id: str) -> Response:
        view, title = store.get(game_id).tree()
        return Response(_tree_dot(view, title), media_type="text/vnd.graphviz; charset=utf-8")

    @app.get("/api/games/{game_id}/tree.svg")
    def tree_svg(game_id: str) -> Response:
        from mctslab.viz.tree import draw_dot

        view, title = store.get(game_id).tree()
        try:
            svg = draw_dot(_tree_dot(view, title), "svg")
        except RuntimeError as error:  # dot failed
            raise ApiError(503, str(error)) from error
        if svg is None:
            raise ApiError(
                503,
                "Graphviz's `dot` program is not installed on the server, so the tree cannot "
                "be drawn (install graphviz); the DOT source is still available.",
            )
        return Response(svg, media_type="image/svg+xml")

    @app.websocket("/api/games/{game_id}/live")
    async def live(websocket: WebSocket, game_id: str) -> None:
        await websocket.accept()
        # A page gone while a message is sent to it (its connection dropped) ends the stream
        # as its disconnecting does: no error of the server's.
        with suppress(WebSocketDisconnect):
            try:
                session = store.get(game_id)
            except ApiError as error:
                await websocket.send_json({"type": "error", "error": error.message})
                await websocket.close(code=4404)
                return
            await _stream(websocket, session)

    return app


async def _stream(websocket: WebSocket, session: GameSession) -> None:
    """Forward the game's messages until the page goes away or the game is closed."""
    subscriber = session.subscribe(asyncio.get_running_loop())
    closed = asyncio.create_task(_until_disconnect(websocket))
    try:
        while True:
            message = asyncio.create_task(subscriber.get())
            await asyncio.wait({message, closed}, return_when=asyncio.FIRST_COMPLETED)
            if closed.done():
                message.cancel()
                return
            await websocket.send_json(message.result())
            if message.result()["type"] == "closed":
                await websocket.close()
                return
    finally:
        closed.cancel()
        session.unsubscribe(subscriber)


async def _until_disconnect(websocket: WebSocket) -> None:
    """Read (and ignore) what the page sends, until it disconnects."""
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass


def _tree_dot(view: TreeView, title: str) -> str:
    from mctslab.viz.tree import tree_to_dot

    try:
        return tree_to_dot(view, title=title)
    except RuntimeError as error:  # the graphviz package is missing
        raise ApiError(503, str(error)) from error


def _add_error_handlers(app: FastAPI) -> None:
    """Every error as ``{"error": message}``, so the page can show it as it is."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _validation_message(error.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail)}, status_code=error.status_code)


def _validation_message(errors: Sequence[Any]) -> str:
    """One sentence for FastAPI's list of validation errors."""
    parts = []
    for item in errors:
        if item.get("type") == "json_invalid":
            return "The request body is not valid JSON."
        where = ".".join(str(part) for part in item.get("loc", ())[1:])
        parts.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
    return "Invalid request: " + "; ".join(parts) + "."
