"""The web board's JSON API, driven through FastAPI's TestClient on the generic engine."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest
from fastapi import WebSocketDisconnect
from fastapi.routing import APIWebSocketRoute
from fastapi.testclient import TestClient

import mctslab.web.app as web_app
from mctslab.core import MCTS, Budget
from mctslab.fast import FastMCTS
from mctslab.games import available_games, make
from mctslab.players.mcts import MCTSPlayer
from mctslab.web import create_app
from mctslab.web._boards import board_view
from mctslab.web._sessions import MEMORY_MB, SearchKind, SessionStore
from tests.conftest import garbage_collector_off, load_data
from tests.web.conftest import ai_move, finish_search, new_game, wait_idle

JSON = {"content-type": "application/json"}
STATIC = Path(__file__).resolve().parents[2] / "src" / "mctslab" / "web" / "static"


def cell(game: dict[str, Any], row: int, column: int) -> int:
    value: int = game["board"]["cells"][row][column]
    return value


# -- new games and the board ----------------------------------------------------------------------
def test_catalog_lists_every_two_player_game(client: TestClient) -> None:
    catalog = client.get("/api/catalog").json()
    two_player = {name for name in available_games() if make(name).spec.num_players == 2}
    assert {game["name"] for game in catalog["games"]} == two_player
    assert two_player == {"gomoku", "othello", "connect4", "tictactoe", "countdown"}
    gomoku = next(game for game in catalog["games"] if game["name"] == "gomoku")
    size = next(param for param in gomoku["params"] if param["name"] == "size")
    assert (size["min"], size["max"]) == (5, 19)
    assert catalog["engine"] == "python" and catalog["dot"] == (shutil.which("dot") is not None)


def test_new_tictactoe_game(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", simulations=100)
    assert game["board"]["cells"] == [[0, 0, 0]] * 3
    assert game["to_move"] == 0 and game["moves"] == [] and game["outcome"] is None
    assert [move["move"] for move in game["legal"]] == [
        "a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1",
    ]  # fmt: skip
    # A budget of simulations still carries the time limit every search has.
    assert game["settings"]["simulations"] == 100
    assert game["settings"]["seconds"] == web_app.MAX_SECONDS


def test_boards_put_stones_where_the_notation_says(client: TestClient) -> None:
    # Othello's standard start: d4 and e5 white, d5 and e4 black, rows counted from the top.
    othello = new_game(client, game="othello")
    assert (cell(othello, 3, 3), cell(othello, 4, 4)) == (2, 2)
    assert (cell(othello, 3, 4), cell(othello, 4, 3)) == (1, 1)
    assert othello["board"]["row_labels"] == [str(n) for n in range(1, 9)]

    gomoku = new_game(client, game="gomoku", params={"size": 9}, moves=["e5", "a1"])
    assert cell(gomoku, 4, 4) == 1 and cell(gomoku, 8, 0) == 2
    assert gomoku["board"]["column_labels"] == list("abcdefghi")
    assert gomoku["board"]["row_labels"] == [str(n) for n in range(9, 0, -1)]
    assert gomoku["board"]["last"] == [8, 0]
    assert gomoku["settings"]["params"] == {"width": 9, "height": 9, "k": 5}

    # A Connect Four disc drops to the bottom row (row 5 from the top).
    connect4 = new_game(client, game="connect4", moves=["4", "4"])
    assert (cell(connect4, 5, 3), cell(connect4, 4, 3)) == (1, 2)
    assert connect4["board"]["moves"] == "columns" and connect4["board"]["last"] == [4, 3]

    countdown = new_game(client, game="countdown", params={"start": 10}, moves=["3"])
    assert countdown["board"] == {"kind": "count", "next": 7}


# -- moves ----------------------------------------------------------------------------------------
def test_moves_by_notation_or_id(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=0)
    response = client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    assert response.status_code == 200
    assert cell(response.json(), 1, 1) == 1 and response.json()["to_move"] == 1

    other = new_game(client, game="tictactoe", human=0)
    by_id = client.post(f"/api/games/{other['id']}/moves", json={"move": 4}).json()
    assert by_id["board"] == response.json()["board"] and by_id["moves"] == ["b2"]


def test_ai_answers_with_a_legal_move(client: TestClient) -> None:
    game = new_game(client, game="connect4", simulations=200)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "4"})
    after = ai_move(client, game["id"])
    assert len(after["moves"]) == 2 and after["to_move"] == 0
    assert after["last_search"]["best_move"] == after["moves"][1]
    assert after["last_search"]["simulations"] >= 200
    assert after["last_search"]["stopped_by"] == "iterations"


def test_each_game_s_search_tree_has_a_memory_limit(client: TestClient) -> None:
    # Before, a game's tree (kept between its moves) could take the compiled engine's
    # default of 1 GiB: 32 kept games, 32 GiB.
    assert new_game(client, game="tictactoe")["settings"]["memory_mb"] == MEMORY_MB == 256
    with TestClient(create_app("python", memory_mb=1)) as small:
        game = new_game(small, game="connect4", human=1, simulations=50_000_000)
        assert game["settings"]["memory_mb"] == 1
        after = ai_move(small, game["id"])
        assert after["last_search"]["stopped_by"] == "memory" and len(after["moves"]) == 1


def test_a_budget_of_simulations_alone_still_stops_in_time(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real limit is 300 s; a short one shows that the most simulations do not lift it.
    monkeypatch.setattr(web_app, "MAX_SECONDS", 0.3)
    game = new_game(client, game="gomoku", params={"size": 9}, human=1, simulations=50_000_000)
    assert game["settings"]["seconds"] == 0.3
    after = ai_move(client, game["id"])
    assert after["last_search"]["stopped_by"] == "seconds"


def test_ai_takes_the_win(client: TestClient) -> None:
    # X holds a1 and b2, O holds a2 and b3: c3 completes X's diagonal at once.
    game = new_game(
        client, game="tictactoe", human=1, simulations=2000, moves=["a1", "a2", "b2", "b3"]
    )
    after = ai_move(client, game["id"])
    assert after["moves"][-1] == "c3"
    assert after["outcome"] == {"winner": 0, "reason": "three in a row"}
    assert game["board"]["line"] == []  # no line before the game is won
    assert sorted(after["board"]["line"]) == [[0, 2], [1, 1], [2, 0]]  # c3 b2 a1


@pytest.mark.parametrize(
    ("game", "params", "moves", "line"),
    [
        # Connect Four, the last disc of four in column 1 (rows counted from the top).
        ("connect4", {}, "1 2 1 2 1 2 1", [[2, 0], [3, 0], [4, 0], [5, 0]]),
        # Gomoku: e5 joins d5 f5 g5 h5 (row) and e4 e6 e7 e3 (column) for black: two fives.
        (
            "gomoku",
            {"size": 9},
            "d5 a1 f5 a2 g5 a3 h5 a4 e4 b1 e6 b2 e7 b3 e3 b4 e5",
            [[4, c] for c in range(3, 8)] + [[r, 4] for r in range(2, 7) if r != 4],
        ),
    ],
)
def test_a_won_game_shows_the_line_that_won(
    client: TestClient, game: str, params: dict[str, int], moves: str, line: list[list[int]]
) -> None:
    finished = new_game(client, game=game, params=params, moves=moves.split())
    assert finished["outcome"]["winner"] == 0
    assert sorted(finished["board"]["line"]) == sorted(line)


def test_a_games_moves_rebuild_it_passes_included(client: TestClient) -> None:
    # Random Othello from seed 2 has a forced pass; each item of `moves` is one move, the pass too.
    state, rng, moves = make("othello"), random.Random(2), []
    while not state.is_terminal():
        move = rng.choice(state.legal_moves())
        moves.append(state.move_to_str(move))
        state.play(move)
    outcome = state.outcome()
    assert "pass" in moves and outcome is not None
    game = new_game(client, game="othello", moves=moves)
    assert game["moves"] == moves and game["outcome"]["reason"] == outcome.reason


def test_othello_is_won_by_discs_not_by_a_line() -> None:
    state, rng = make("othello"), random.Random(3)
    while not state.is_terminal():
        last = rng.choice(state.legal_moves())
        state.play(last)
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is not None  # a won game, not a draw
    assert board_view(state, last)["line"] == []


def test_a_finished_game_lets_the_ai_tree_go() -> None:
    # A finished game stays among the kept games; its AI's tree must not stay with it.
    store = SessionStore("python")
    try:
        start = make("tictactoe")
        moves = [start.parse_move(m) for m in ("a1", "a2", "b2", "b3")]
        session = store.new_game(start, moves, 0, Budget(iterations=200))
        session.start_search("hint", store.workers)
        finish_search(session)
        engine = session._player.engine
        assert isinstance(engine, MCTS) and engine.tree is not None
        assert session.play("c3")["outcome"]["winner"] == 0
        assert engine.tree is None
    finally:
        store.close()


def test_a_deleted_game_s_search_that_waits_for_a_thread_never_starts() -> None:
    # Before, it stayed queued and started once a thread was free, only to stop at once:
    # a client that made, searched and deleted games in a loop could grow the queue.
    store = SessionStore("python", search_threads=1)
    release = threading.Event()
    try:
        _, blocker = store.workers.submit(release.wait)  # the only thread is busy
        session = store.new_game(make("tictactoe"), [], 1, Budget(iterations=100))
        assert session.start_search("ai", store.workers)["queued"] is True
        assert session._task is not None
        task = session._task[1]
        store.delete(session.id)
        assert task.cancelled() and not session.searching
        release.set()
        blocker.result(timeout=10)
        assert store.workers._busy == 0
    finally:
        release.set()
        store.close()


@pytest.mark.parametrize("kind", ["ai", "hint"])
@pytest.mark.parametrize("cancelled", [True, False], ids=["waiting", "just-begun"])
def test_a_search_stopped_before_it_begins_never_runs(
    kind: SearchKind, cancelled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, it waited for the thread and then ran one simulation, whose move the AI played
    # (or the page showed as a hint). "just-begun": its thread took it before the stop came.
    store = SessionStore("python", search_threads=1)
    release = threading.Event()
    try:
        _, blocker = store.workers.submit(release.wait)  # the only thread is busy
        if not cancelled:
            monkeypatch.setattr(store.workers, "cancel", lambda future: False)
        human = 0 if kind == "hint" else 1
        session = store.new_game(make("gomoku", size=9), [], human, Budget(iterations=100))
        assert session.start_search(kind, store.workers)["queued"] is True
        assert session.stop_search() is True
        assert session.searching is not cancelled
        release.set()
        blocker.result(timeout=10)
        finish_search(session)
        game = session.snapshot()
        assert game["moves"] == [] and game["last_search"] is None and game["hint"] is None
        assert game["queued"] is False and game["error"] is None
        assert session.start_search(kind, store.workers)["searching"] == kind  # usable again
        finish_search(session)
    finally:
        release.set()
        store.close()


def test_a_deleted_game_frees_its_ai_tree_at_once() -> None:
    # Measured through the API (benchmarks/web_memory.py), each game made, searched and deleted
    # left its compiled tree to the garbage collector's next full pass (a reference cycle in
    # the tree's snapshot): 40 games took the server from 0.2 to 1.3 GiB resident.
    store = SessionStore("compiled")
    try:
        with garbage_collector_off():
            session = store.new_game(make("tictactoe"), [], 1, Budget(iterations=500))
            session.start_search("ai", store.workers)
            finish_search(session)
            engine = session._player.engine
            assert isinstance(engine, FastMCTS) and engine._tree is not None
            assert session.tree()[0].visits == 500
            visits = weakref.ref(engine._tree.visits)
            del engine
            store.delete(session.id)
            assert visits() is None
    finally:
        store.close()


def test_ai_leaves_a_multiple_of_four_in_countdown(client: TestClient) -> None:
    modulus = load_data("countdown.json")["losing_modulus"]
    game = new_game(client, game="countdown", params={"start": 12}, simulations=3000)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "1"})
    after = ai_move(client, game["id"])
    assert after["board"]["next"] % modulus == 0


def test_ai_moves_first_when_the_person_plays_second(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=1, simulations=100)
    assert game["to_move"] == 0
    refused = client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    assert refused.status_code == 409 and "AI's turn" in refused.json()["error"]
    after = ai_move(client, game["id"])
    assert len(after["moves"]) == 1 and after["to_move"] == 1


def test_hint_advises_without_moving(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", simulations=300)
    assert client.post(f"/api/games/{game['id']}/hint").status_code == 202
    after = wait_idle(client, game["id"])
    assert after["moves"] == [] and after["board"] == game["board"]
    assert after["hint"]["best_move"] in {move["move"] for move in game["legal"]}
    client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    assert client.get(f"/api/games/{game['id']}").json()["hint"] is None


def test_a_failed_search_is_forgotten_once_the_position_changes(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the error stayed until another search began, and the page asks the AI to move
    # only while the game shows none: after one failure the AI never moved again.
    analyse = MCTSPlayer.analyse
    calls: list[None] = []

    def fails_twice(player: MCTSPlayer, *args: Any, **kwargs: Any) -> Any:
        calls.append(None)
        if len(calls) <= 2:
            raise MemoryError("injected")
        return analyse(player, *args, **kwargs)

    monkeypatch.setattr(MCTSPlayer, "analyse", fails_twice)
    game = new_game(client, game="tictactoe", simulations=50)
    client.post(f"/api/games/{game['id']}/hint")
    assert wait_idle(client, game["id"])["error"] == "The search failed: injected"
    played = client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"}).json()
    assert played["error"] is None and played["to_move"] == 1
    failed = ai_move(client, game["id"])
    assert failed["error"] == "The search failed: injected" and failed["to_move"] == 1
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["error"] is None and undone["moves"] == []
    client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    assert ai_move(client, game["id"])["moves"][1:]


# -- undo -----------------------------------------------------------------------------------------
def test_undo_takes_back_the_persons_move_and_the_ai_reply(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", simulations=100)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    ai_move(client, game["id"])
    undone = client.post(f"/api/games/{game['id']}/undo")
    assert undone.status_code == 200
    assert undone.json()["moves"] == [] and undone.json()["board"] == game["board"]
    again = client.post(f"/api/games/{game['id']}/undo")
    assert again.status_code == 409 and "no move of yours" in again.json()["error"]


def test_an_undo_of_a_version_since_changed_is_refused(client: TestClient) -> None:
    # A double click on Undo sent two undos of what the person saw: both were played, taking
    # back two moves. The version the page saw is checked (without one, an undo is as before).
    game = new_game(client, game="tictactoe", moves=["a1", "b1", "a2", "b2"])
    undo = f"/api/games/{game['id']}/undo"
    first = client.post(undo, json={"version": game["version"]})
    assert first.status_code == 200 and first.json()["moves"] == ["a1", "b1"]
    second = client.post(undo, json={"version": game["version"]})
    assert second.status_code == 409
    assert second.json()["error"] == (
        f"The game has changed since version {game['version']} (it is at "
        f"{first.json()['version']}); nothing was taken back."
    )
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == ["a1", "b1"]
    assert client.post(undo).json()["moves"] == []
    assert client.post(undo, json={"version": "1"}).status_code == 422


def test_undo_is_offered_only_with_a_move_of_the_persons_to_take_back(
    client: TestClient,
) -> None:
    game = new_game(client, game="tictactoe", human=1, simulations=100)
    assert game["can_undo"] is False
    after = ai_move(client, game["id"])
    assert after["can_undo"] is False  # only the AI has moved
    assert client.post(f"/api/games/{game['id']}/undo").status_code == 409
    move = after["legal"][0]["id"]
    assert client.post(f"/api/games/{game['id']}/moves", json={"move": move}).json()["can_undo"]
    # A loaded game's moves of the person's side are theirs to take back.
    assert new_game(client, game="tictactoe", human=0, moves=["a1", "b2"])["can_undo"] is True
    assert new_game(client, game="tictactoe", human=1, moves=["a1"])["can_undo"] is False


def test_undo_after_the_game_is_over(client: TestClient) -> None:
    # X (the AI) won along the first row; the person (O) takes back b2, and so the AI's c1.
    game = new_game(client, game="tictactoe", human=1, moves=["a1", "a2", "b1", "b2", "c1"])
    assert game["outcome"]["winner"] == 0
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["moves"] == ["a1", "a2", "b1"] and undone["outcome"] is None
    assert undone["to_move"] == 1


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"move": "z9"}, 400, "not a move in tictactoe notation"),
        ({"move": "b2"}, 400, "'b2' is not legal for X"),
        ({"move": 42}, 400, "42 is not a move id of tictactoe: ids are 0 to 8."),
        ({"move": -1}, 400, "-1 is not a move id of tictactoe: ids are 0 to 8."),
        ({"move": 4}, 400, "Move 4 is not legal for X"),  # b2, taken
        ({"move": 1.5}, 422, "move"),
        ({"move": True}, 422, "move"),
        ({}, 422, "move: Field required"),
        ({"move": "a1", "colour": "red"}, 422, "Extra inputs are not permitted"),
        ([1, 2], 422, "Invalid request"),
        ("nonsense", 422, "not valid JSON"),
    ],
)
def test_bad_moves_are_refused_and_change_nothing(
    client: TestClient, body: Any, status: int, message: str
) -> None:
    game = new_game(client, game="tictactoe", moves=["b2", "a1"])
    url = f"/api/games/{game['id']}/moves"
    if isinstance(body, str):
        response = client.post(url, content=body, headers={"content-type": "application/json"})
    else:
        response = client.post(url, json=body)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_a_finished_game_refuses_moves_and_searches(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=0, moves=["a1", "a2", "b1", "b2", "c1"])
    for path, body in (("moves", {"move": "c3"}), ("ai", None), ("hint", None)):
        response = client.post(f"/api/games/{game['id']}/{path}", json=body)
        assert response.status_code == 409, path
        assert "over" in response.json()["error"]
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_searches_only_on_the_right_turn(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=0)
    response = client.post(f"/api/games/{game['id']}/ai")
    assert response.status_code == 409 and "your turn" in response.json()["error"]
    client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
    response = client.post(f"/api/games/{game['id']}/hint")
    assert response.status_code == 409 and "AI's turn" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"game": "chess"}, 400, "Unknown game 'chess'; the board plays countdown, gomoku,"),
        ({"game": "gomoku", "params": {"size": 40}}, 400, "The 'size' parameter of gomoku"),
        ({"game": "gomoku", "params": {"colour": 1}}, 400, "Unknown parameter(s) 'colour'"),
        ({"game": "gomoku", "params": {"size": "9"}}, 422, "params.size"),
        ({"game": "numbers"}, 400, "not a two-player game; the board plays countdown,"),
        ({"game": "tictactoe", "moves": ["a1", "a1"]}, 400, "moves[1]: 'a1' is not legal"),
        # Each item is one move: not two (they were once joined with spaces and read as two).
        ({"game": "tictactoe", "moves": ["a1 b1"]}, 400, "moves[0] is not one move: 'a1 b1'"),
        ({"game": "tictactoe", "moves": ["b2", ""]}, 400, "moves[1] is not one move: ''"),
        # No more moves than a record holds: 500,001 of them take 1,000,001 characters there.
        (
            {"game": "countdown", "params": {"start": 1_000_000}, "moves": ["1"] * 500_001},
            422,
            "moves: Should take at most 1,000,000 characters as a record writes them",
        ),
        ({"game": "tictactoe", "seconds": 0}, 422, "seconds"),
        ({"game": "tictactoe", "seconds": 1e9}, 422, "seconds"),
        ({"game": "tictactoe", "simulations": 0}, 422, "simulations"),
        ({"game": "tictactoe", "human": 2}, 422, "human"),
        ({"game": "tictactoe", "human": True}, 422, "human: Input should be a valid integer"),
        ({"game": "tictactoe", "seconds": float("nan")}, 422, "seconds: Input should be a finite"),
        # JSON's true is not 1 second, as it is not 1 simulation.
        ({"game": "tictactoe", "seconds": True}, 422, "seconds: Input should be a valid number"),
        # A record names its game, parameters and moves: others given with it were ignored.
        (
            {"record": "tictactoe\nb2\n", "game": "gomoku", "moves": ["zz"]},
            422,
            "Invalid request: A record names its game, parameters and moves: drop game, moves, "
            "or the record.",
        ),
        ({"record": "gomoku size=9\n", "params": {"size": 15}}, 422, "drop params, or"),
        ({"record": "chess\n"}, 400, "unknown game 'chess'"),
        ({"record": "tictactoe\nb2 b2\n"}, 400, "move 2 ('b2')"),
    ],
)
def test_bad_new_games_are_refused(
    client: TestClient, body: dict[str, Any], status: int, message: str
) -> None:
    # Python's json writes NaN as JavaScript does, where httpx's json= refuses it.
    response = client.post("/api/games", content=json.dumps(body), headers=JSON)
    assert response.status_code == status
    assert message in response.json()["error"]
    if "the board plays" in message:  # only the games it plays
        assert "numbers" not in response.json()["error"].partition("plays")[2]


def test_moves_take_at_most_as_many_characters_as_a_record(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_app, "MAX_RECORD_CHARS", 9)
    assert new_game(client, game="gomoku", moves=["e5", "a1", "e10"])["moves"][2] == "e10"
    refused = client.post("/api/games", json={"game": "gomoku", "moves": ["e5", "a10", "e10"]})
    assert refused.status_code == 422
    assert refused.json()["error"] == (
        "Invalid request: moves: Should take at most 9 characters as a record writes them "
        "(a space between moves), not 10."
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", ""),
        ("DELETE", ""),
        ("POST", "/undo"),
        ("POST", "/ai"),
        ("POST", "/hint"),
        ("POST", "/stop"),
        ("GET", "/record"),
        ("GET", "/tree.svg"),
    ],
)
def test_unknown_game_ids(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, f"/api/games/no-such-game{path}")
    assert response.status_code == 404
    assert "Unknown game id 'no-such-game'" in response.json()["error"]


def test_unknown_game_id_on_the_live_stream(client: TestClient) -> None:
    with client.websocket_connect("/api/games/no-such-game/live") as socket:
        assert "Unknown game id" in socket.receive_json()["error"]


# -- several games --------------------------------------------------------------------------------
def test_games_are_independent(client: TestClient) -> None:
    first = new_game(client, game="tictactoe", human=1, seconds=0.3)
    second = new_game(client, game="tictactoe", human=1, seconds=0.3)
    assert first["id"] != second["id"]
    # Both AIs search at the same time, each on its own game.
    for game in (first, second):
        assert client.post(f"/api/games/{game['id']}/ai").status_code == 202
    first_after, second_after = wait_idle(client, first["id"]), wait_idle(client, second["id"])
    assert len(first_after["moves"]) == len(second_after["moves"]) == 1
    move = next(m["move"] for m in first_after["legal"])
    client.post(f"/api/games/{first['id']}/moves", json={"move": move})
    assert client.get(f"/api/games/{second['id']}").json() == second_after
    client.delete(f"/api/games/{first['id']}")
    assert client.get(f"/api/games/{first['id']}").status_code == 404
    assert client.get(f"/api/games/{second['id']}").status_code == 200


def test_simultaneous_moves_on_one_game_are_played_once(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=0)
    statuses: list[int] = []

    def play() -> None:
        response = client.post(f"/api/games/{game['id']}/moves", json={"move": "b2"})
        statuses.append(response.status_code)

    threads = [threading.Thread(target=play) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 7
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == ["b2"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"engine": "gpu"}, "The 'engine' parameter of create_app must be one of"),
        ({"searches": 0}, "The 'searches' parameter of create_app must be an int >= 1. Got 0"),
        ({"max_games": 0}, "The 'max_games' parameter of create_app must be an int >= 1"),
        ({"memory_mb": 0.5}, "The 'memory_mb' parameter of create_app must be a float in [1, "),
    ],
)
def test_the_app_checks_its_settings(kwargs: dict[str, Any], message: str) -> None:
    # searches=0 used to fail in ThreadPoolExecutor: "max_workers must be greater than 0".
    with pytest.raises(ValueError, match=re.escape(message)):
        create_app(**kwargs)


def test_least_recently_used_games_are_closed_beyond_the_limit() -> None:
    with TestClient(create_app("python", max_games=2)) as client:
        games = [new_game(client, game="tictactoe") for _ in range(3)]
        assert client.get(f"/api/games/{games[0]['id']}").status_code == 404
        assert all(client.get(f"/api/games/{g['id']}").status_code == 200 for g in games[1:])


def test_a_new_game_replaces_its_pages_old_game_rather_than_another() -> None:
    # Before, the page made its new game first and deleted its old one after: on a full
    # server the new game closed another tab's game (the one used least recently).
    with TestClient(create_app("python", max_games=2)) as client:
        other = new_game(client, game="tictactoe")
        mine = new_game(client, game="tictactoe", moves=["b2"])
        replacing = new_game(client, game="gomoku", replace=mine["id"])
        assert client.get(f"/api/games/{mine['id']}").status_code == 404
        assert client.get(f"/api/games/{other['id']}").status_code == 200
        assert client.get(f"/api/games/{replacing['id']}").status_code == 200
        # A game no longer kept (closed already) is no matter: the new one is made as usual.
        loaded = new_game(client, record="tictactoe\nb2\n", replace=mine["id"])
        assert loaded["moves"] == ["b2"]


def test_games_watched_live_are_closed_last_and_told_why() -> None:
    # Before, a game whose page watched it live was closed as soon as any other, though its
    # person may be thinking over a move (their last request long ago); now it goes last.
    with TestClient(create_app("python", max_games=2)) as client:
        watched, unwatched = new_game(client, game="tictactoe"), new_game(client, game="tictactoe")
        with client.websocket_connect(f"/api/games/{watched['id']}/live") as stream:
            assert stream.receive_json()["type"] == "state"
            newer = new_game(client, game="tictactoe")
            assert client.get(f"/api/games/{unwatched['id']}").status_code == 404
            assert client.get(f"/api/games/{watched['id']}").status_code == 200
            # With every game watched, the one used least recently goes after all.
            with client.websocket_connect(f"/api/games/{newer['id']}/live") as newer_stream:
                assert newer_stream.receive_json()["type"] == "state"
                client.get(f"/api/games/{watched['id']}")
                new_game(client, game="tictactoe")
                assert newer_stream.receive_json() == {"type": "closed", "reason": "evicted"}
            assert client.get(f"/api/games/{watched['id']}").status_code == 200


def test_no_game_is_kept_beyond_the_limit_while_every_game_searches() -> None:
    # Searching games cannot be closed to make room: once they fill the server, a new game
    # is refused (the audit kept 35 games of 40 against a limit of 32, searching or queued).
    with TestClient(create_app("python", max_games=2, searches=1)) as client:
        first, second = (new_game(client, game="connect4", human=1, seconds=120) for _ in range(2))
        assert client.post(f"/api/games/{first['id']}/ai").json()["queued"] is False
        assert client.post(f"/api/games/{second['id']}/ai").json()["queued"] is True
        refused = client.post("/api/games", json={"game": "tictactoe"})
        assert refused.status_code == 503
        assert refused.json()["error"] == (
            "The server is busy: it keeps at most 2 games and every one is searching; "
            "try again when a search has ended."
        )
        for game in (first, second):
            assert client.get(f"/api/games/{game['id']}").json()["searching"] == "ai"
        # A game whose search has ended is idle again, and makes room for a new one.
        client.post(f"/api/games/{first['id']}/stop")
        wait_idle(client, first["id"], timeout=20)
        new_game(client, game="tictactoe")
        assert client.get(f"/api/games/{first['id']}").status_code == 404
        assert client.get(f"/api/games/{second['id']}").json()["searching"] == "ai"
        client.post(f"/api/games/{second['id']}/stop")


# -- searching: one at a time, stoppable, streamed live -------------------------------------------
def test_a_long_search_can_be_stopped_and_plays_its_best_move(client: TestClient) -> None:
    game = new_game(client, game="gomoku", params={"size": 9}, human=1, seconds=120)
    with client.websocket_connect(f"/api/games/{game['id']}/live") as socket:
        assert socket.receive_json()["type"] == "state"
        assert client.post(f"/api/games/{game['id']}/ai").status_code == 202
        while socket.receive_json()["type"] != "progress":
            pass
        # While it searches, the game refuses everything that would change it.
        for path, body in (("ai", None), ("hint", None), ("undo", None), ("moves", {"move": 0})):
            refused = client.post(f"/api/games/{game['id']}/{path}", json=body)
            assert refused.status_code == 409 and "searching" in refused.json()["error"]
        assert client.post(f"/api/games/{game['id']}/stop").json() == {"stopping": True}
        after = wait_idle(client, game["id"], timeout=20)
    assert after["last_search"]["stopped_by"] == "stopped"
    assert after["last_search"]["seconds"] < 60
    assert after["moves"] == [after["last_search"]["best_move"]] and after["to_move"] == 1
    assert client.post(f"/api/games/{game['id']}/stop").json() == {"stopping": False}


def test_a_search_waiting_for_a_free_worker_says_so(client: TestClient) -> None:
    assert client.get("/api/catalog").json()["limits"]["searches"] == 4
    with TestClient(create_app("python", searches=1)) as one_search:
        first, second = (
            new_game(one_search, game="gomoku", params={"size": 9}, human=1, seconds=120)
            for _ in range(2)
        )
        with one_search.websocket_connect(f"/api/games/{second['id']}/live") as socket:
            assert socket.receive_json()["type"] == "state"
            assert one_search.post(f"/api/games/{first['id']}/ai").json()["queued"] is False
            # The only worker is busy: the second search waits, and its game says so.
            assert one_search.post(f"/api/games/{second['id']}/ai").json()["queued"] is True
            assert socket.receive_json()["game"]["queued"] is True
            one_search.post(f"/api/games/{first['id']}/stop")
            # Once the worker is free the second search starts, and the page is told.
            running = socket.receive_json()["game"]
            assert running["searching"] == "ai" and running["queued"] is False
            one_search.post(f"/api/games/{second['id']}/stop")


def test_the_stream_carries_live_progress_of_legal_moves(client: TestClient) -> None:
    game = new_game(
        client, game="gomoku", params={"size": 7}, moves=["d4", "c3", "e5"], seconds=0.6
    )
    legal = {move["id"] for move in game["legal"]}
    assert len(legal) == 49 - 3
    progress: list[dict[str, Any]] = []
    with client.websocket_connect(f"/api/games/{game['id']}/live") as socket:
        assert socket.receive_json()["game"]["id"] == game["id"]
        client.post(f"/api/games/{game['id']}/ai")
        while True:
            message = socket.receive_json()
            if message["type"] == "progress":
                progress.append(message)
            elif not message["game"]["searching"] and message["game"]["moves"][3:]:
                final = message["game"]
                break
    assert progress, "no interim update arrived during a 0.6 s search"
    for update in progress:
        assert update["search"] == "ai" and update["stopped_by"] == "running"
        assert update["moves"] and {move["id"] for move in update["moves"]} <= legal
        assert all(move["visits"] > 0 for move in update["moves"])
        assert 0.0 <= update["value"] <= 1.0 and update["sims_per_second"] > 0
        assert update["pv"] and update["pv"][0] == update["best_move"]
    counts = [update["simulations"] for update in progress]
    assert counts == sorted(counts) and counts[-1] <= final["last_search"]["simulations"]


def test_a_page_that_reads_slowly_gets_the_latest_progress_only() -> None:
    # Before, every progress waited for the page in an unbounded queue: a page that read
    # nothing (a stalled connection) held more and more of them, each the size of a board.
    store = SessionStore("python")
    session = store.new_game(make("gomoku", size=9), [], 0, Budget(seconds=0.6))

    async def read_after_the_search() -> list[dict[str, Any]]:
        stream = session.subscribe(asyncio.get_running_loop())
        session.start_search("hint", store.workers)
        while session.searching:
            await asyncio.sleep(0.02)  # the server goes on, the page reads nothing
        messages = []
        with contextlib.suppress(TimeoutError):
            while True:
                messages.append(await asyncio.wait_for(stream.get(), 0.2))
        return messages

    try:
        messages = asyncio.run(read_after_the_search())
    finally:
        store.close()
    # The game, the search begun, its latest progress, the hint: none of the changes lost.
    assert [message["type"] for message in messages] == ["state", "state", "progress", "state"]
    progress, done = messages[2], messages[3]["game"]
    assert 0 < progress["simulations"] <= done["hint"]["simulations"]


def test_a_page_gone_while_its_stream_sends_ends_the_stream_quietly() -> None:
    # Before, a connection dropped under a message raised WebSocketDisconnect out of the
    # app, which the server logged as "Exception in ASGI application".
    class Dropped:
        async def accept(self) -> None:
            pass

        async def receive(self) -> dict[str, Any]:
            await asyncio.Event().wait()  # the page's going is noticed only on sending
            raise AssertionError("unreachable")

        async def send_json(self, data: Any) -> None:
            raise WebSocketDisconnect(code=1006)

    app = create_app("python")
    with TestClient(app) as client:
        game = new_game(client, game="tictactoe")
        live = next(route for route in app.routes if isinstance(route, APIWebSocketRoute))
        asyncio.run(live.endpoint(Dropped(), game["id"]))
        asyncio.run(live.endpoint(Dropped(), "no-such-game"))


# -- records and the search tree ------------------------------------------------------------------
def test_save_and_load_a_record(client: TestClient) -> None:
    game = new_game(client, game="connect4", human=1, moves=["4", "4", "3"])
    text = client.get(f"/api/games/{game['id']}/record").text
    assert text.splitlines()[0] == "connect4"
    # Tagged as the terminal's records are: each side by the game's player names.
    assert '[O "you"]' in text and '[X "mcts-python"]' in text  # the tests' engine
    assert '[Result "*"]' in text and "443" in text
    loaded = new_game(client, record=text, human=1)
    assert loaded["id"] != game["id"]
    assert loaded["moves"] == game["moves"] and loaded["board"] == game["board"]


def test_a_loaded_record_keeps_its_tags_when_saved(client: TestClient) -> None:
    # As `mctslab play --load FILE --save FILE` does: the result is replaced once the game
    # goes on, and the player of each side that has moved since (before, both sides were
    # renamed at once). Saved as loaded, the game keeps its result, a resignation's here
    # (before, "*": the record's own result was lost).
    loaded = '[Event "club night"]\n[X "alice"]\n[O "bob"]\n[Result "1-0"]\n'
    game = new_game(client, record=f"tictactoe\n{loaded}b2 a1\n", human=1, simulations=50)

    def tags() -> list[str]:
        return client.get(f"/api/games/{game['id']}/record").text.splitlines()[1:5]

    assert tags() == ['[Event "club night"]', '[X "alice"]', '[O "bob"]', '[Result "1-0"]']
    # A game its rules ended is saved with its true result, whatever the tag said.
    won = new_game(client, record='tictactoe\n[Result "*"]\na1 b1 a2 b2 a3\n', human=1)
    text = client.get(f"/api/games/{won['id']}/record").text
    assert '[Result "1-0"]' in text and '[Result "*"]' not in text
    ai_move(client, game["id"])
    assert tags()[1:] == ['[X "mcts-python"]', '[O "bob"]', '[Result "*"]']
    # Taken back to before the loaded a1: the move made again is the person's own.
    assert client.post(f"/api/games/{game['id']}/undo").json()["moves"] == ["b2"]
    assert tags()[1:3] == ['[X "alice"]', '[O "bob"]']
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c3"}).raise_for_status()
    assert tags()[1:3] == ['[X "alice"]', '[O "you"]']


def test_the_tree_of_the_last_ai_move(client: TestClient) -> None:
    game = new_game(client, game="tictactoe", human=1, simulations=300)
    missing = client.get(f"/api/games/{game['id']}/tree.dot")
    assert missing.status_code == 404 and "no AI search tree" in missing.json()["error"]
    after = ai_move(client, game["id"])
    assert after["tree"] is True
    dot = client.get(f"/api/games/{game['id']}/tree.dot")
    assert dot.status_code == 200 and "digraph search_tree" in dot.text
    assert f"AI move {after['moves'][0]}" in dot.text
    svg = client.get(f"/api/games/{game['id']}/tree.svg")
    if shutil.which("dot") is None:
        assert svg.status_code == 503 and "not installed" in svg.json()["error"]
    else:
        assert svg.status_code == 200 and "<svg" in svg.text
        assert svg.headers["content-type"] == "image/svg+xml"


def test_a_failing_dot_is_told_as_the_server_s_trouble(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, graphviz's CalledProcessError escaped as a bare 500 (viz.tree's render_tree
    # already told it as RuntimeError; both draw through viz.tree.draw_dot now).
    pytest.importorskip("graphviz")
    dot = tmp_path / "dot"
    dot.write_text("#!/bin/sh\necho 'Error: out of memory' >&2\nexit 1\n")
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    game = new_game(client, game="tictactoe", human=1, simulations=50)
    ai_move(client, game["id"])
    svg = client.get(f"/api/games/{game['id']}/tree.svg")
    assert svg.status_code == 503
    assert svg.json()["error"] == "graphviz's dot failed: Error: out of memory"


# -- the page -------------------------------------------------------------------------------------
def test_the_page_and_its_assets_are_served_locally(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert {"/static/app.js", "/static/style.css"} <= set(assets)
    for asset in assets:
        assert client.get(asset).status_code == 200, asset
    # No CDN: nothing on the page is fetched from another host.
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.findall(r"https?://(?!www\.w3\.org/2000/svg)", text), path.name


def test_every_page_string_is_in_both_languages() -> None:
    script = (STATIC / "app.js").read_text()
    english = script[script.index("  en: {") : script.index("  zh: {")]
    chinese = script[script.index("  zh: {") : script.index("\n};")]
    key = re.compile(r'^ {4}"?([\w ]+)"?:', re.MULTILINE)  # the entries of one language
    assert set(key.findall(english)) == set(key.findall(chinese))
    used = set(re.findall(r'\bt\("(\w+)"', script))
    used |= set(re.findall(r'data-i18n(?:-title)?="(\w+)"', (STATIC / "index.html").read_text()))
    assert used <= set(key.findall(english))


def test_the_compiled_engine_plays_on_the_board() -> None:
    from mctslab.fast import FastMCTS

    with TestClient(create_app()) as client:
        assert client.get("/api/catalog").json()["engine"] == "compiled"
        # X holds a1 and b2, O holds a2 and b3: c3 completes X's diagonal at once.
        game = new_game(
            client, game="tictactoe", human=1, simulations=2000, moves=["a1", "a2", "b2", "b3"]
        )
        after = ai_move(client, game["id"])
        assert after["moves"][-1] == "c3" and after["last_search"]["engine"] == "compiled"
        assert after["tree"] == hasattr(FastMCTS, "tree_view")


def test_the_stream_ends_when_the_game_is_deleted(client: TestClient) -> None:
    game = new_game(client, game="tictactoe")
    with client.websocket_connect(f"/api/games/{game['id']}/live") as socket:
        assert socket.receive_json()["type"] == "state"
        assert client.delete(f"/api/games/{game['id']}").status_code == 204
        assert socket.receive_json() == {"type": "closed", "reason": "deleted"}
