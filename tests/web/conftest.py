"""Helpers for the web board's tests: an app on the generic engine and ways to wait for searches."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mctslab.web import create_app
from mctslab.web._sessions import GameSession


@pytest.fixture
def client() -> Iterator[TestClient]:
    """The app on the generic engine (no compilation), shut down after the test."""
    with TestClient(create_app("python")) as test_client:
        yield test_client


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    game: dict[str, Any] = response.json()
    return game


def wait_idle(client: TestClient, game_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """The game once no search runs on it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if not game["searching"]:
            return game
        time.sleep(0.02)
    raise AssertionError(f"the search of game {game_id} did not finish in {timeout} s")


def ai_move(client: TestClient, game_id: str) -> dict[str, Any]:
    """Ask the AI to move and wait for its move."""
    response = client.post(f"/api/games/{game_id}/ai")
    assert response.status_code == 202, response.text
    return wait_idle(client, game_id)


def finish_search(session: GameSession, timeout: float = 60.0) -> None:
    """Wait for the search of a game held without the app (a SessionStore's) to end."""
    deadline = time.monotonic() + timeout
    while session.searching:
        if time.monotonic() > deadline:
            raise AssertionError(f"the search of game {session.id} did not finish in {timeout} s")
        time.sleep(0.01)
