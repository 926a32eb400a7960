"""Shared by the protocol tests: commands for real and scripted engines, a check that a
process has exited, and a game loop."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from mctslab.core.config import Budget, SearchConfig
from mctslab.core.engine import Engine, Progress
from mctslab.core.result import SearchResult
from mctslab.games import State
from mctslab.players import Player, new_engine
from mctslab.protocols import Thinker

SCRIPTED_ENGINE = Path(__file__).with_name("scripted_engine.py")


def mctslab_command(*args: str) -> list[str]:
    """mctslab itself as an engine process (``python -m mctslab ...``)."""
    return [sys.executable, "-m", "mctslab", *args]


def scripted(*rules: tuple[str, Sequence[str]], newline: str = "\n") -> list[str]:
    """A scripted engine answering each line by the first matching ``(pattern, replies)``,
    each reply ended by ``newline``."""
    rules_json = json.dumps([list(rule) for rule in rules])
    return [sys.executable, str(SCRIPTED_ENGINE), rules_json, newline]


def exited_within(seconds: float, pid: int) -> bool:
    """Whether process ``pid`` is gone, or exited and waiting to be reaped, within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with contextlib.suppress(OSError):  # gone meanwhile, or no /proc (not Linux)
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        time.sleep(0.05)
    return False


def play_game(state: State, players: Sequence[Player]) -> list[int]:
    """Play ``players`` (by seat) to the end from ``state`` (in place); every move is checked."""
    for player in players:
        player.start(state.clone())
    moves = []
    while not state.is_terminal():
        move = players[state.current_player].choose(state.clone())
        state.play(move)
        moves.append(move)
        for player in players:
            player.observe(move)
    return moves


class RecordingEngine:
    """The generic engine, remembering the budget of every search (to check time management)."""

    name = "recording"

    def __init__(self, seed: int = 1) -> None:
        self.inner: Engine = new_engine("python", SearchConfig(seed=seed))
        self.budgets: list[Budget] = []

    def search(
        self,
        state: State,
        budget: Budget | None = None,
        *,
        progress: Progress | None = None,
        stop: object = None,
    ) -> SearchResult:
        assert budget is not None
        self.budgets.append(budget)
        return self.inner.search(state, Budget(iterations=50))

    def advance(self, move: int) -> None:
        self.inner.advance(move)

    def reset(self) -> None:
        self.inner.reset()


def thinker(iterations: int | None = 100, seed: int = 1) -> Thinker:
    """A small, reproducible search for the in-memory server tests."""
    return Thinker(new_engine("python", SearchConfig(seed=seed)), iterations=iterations)
