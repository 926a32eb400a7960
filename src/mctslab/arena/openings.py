"""Openings: the position each pair of games starts from (both games, colours swapped).

- no ``--openings``: every pair starts from the start position;
- ``random:N``: N uniformly random moves, drawn for each pair from the run's
  seed and the pair's index. An opening is *balanced* or drawn again: a
  quick search (:data:`BALANCE_ITERATIONS` simulations of the compiled
  engine) must not find either side clearly winning,
  ``|value - 0.5| <= BALANCE_MARGIN``, and the game must not be over. With
  colours swapped a lopsided opening costs nothing in bias, but its two
  games are decided by the opening, not the players, and only add noise;
- ``FILE``: one opening per line in the game's notation, read as a game
  record's moves are (docs/records.md: compact runs such as ``f5d6c3``,
  forced passes left out), separated by spaces or commas (Gomoku's "x,y"
  coordinates by spaces); blank lines and ``#`` comments skipped; used in
  file order, pair ``p`` taking line ``p mod count``.

Each opening is a tuple of moves in the game's notation, which is what the
record stores.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mctslab._validation import check_int
from mctslab.core.config import Budget, SearchConfig
from mctslab.games._base import State, first_line, os_reason
from mctslab.records import RecordError, parse_moves, read_text, strip_comment

#: Simulations of the quick search that judges a random opening.
BALANCE_ITERATIONS = 2000
#: A random opening is redrawn when the quick search's value is further than this from 1/2.
BALANCE_MARGIN = 0.25
#: Draws tried for one pair before giving up.
MAX_ATTEMPTS = 200
#: Distinguishes the openings' seed stream from the games' (see :func:`opening_seed`).
_OPENING_STREAM = 1


class Openings(Protocol):
    """Where each pair of games starts."""

    def identity(self) -> dict[str, Any]:
        """What makes two runs' openings the same (recorded, and compared on resume)."""
        ...

    def opening(self, pair: int, seed: int) -> tuple[str, ...]:
        """The moves (in notation) that pair ``pair`` of a run seeded ``seed`` starts with."""
        ...


def opening_seed(run_seed: int, pair: int, attempt: int) -> int:
    """The seed of draw ``attempt`` of pair ``pair``'s random opening."""
    sequence = np.random.SeedSequence([run_seed, _OPENING_STREAM, pair, attempt])
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def notation(start: State, moves: Sequence[int]) -> tuple[str, ...]:
    """``moves`` (ids) played from ``start``, in the game's notation."""
    state = start.clone()
    written = []
    for move in moves:
        written.append(state.move_to_str(move))
        state.apply(move)
    return tuple(written)


class StartPosition:
    """Every pair starts from the start position."""

    def identity(self) -> dict[str, Any]:
        return {"kind": "start"}

    def opening(self, pair: int, seed: int) -> tuple[str, ...]:
        return ()


class RandomOpenings:
    """``moves`` random moves per pair, redrawn until the quick search finds them balanced."""

    def __init__(self, start: State, moves: int) -> None:
        check_int(moves, "moves", "RandomOpenings", low=1)
        longest = start.spec.max_game_length
        if moves >= longest:
            raise ValueError(
                f"random:{moves} leaves no game to play: a {start.spec.name} game lasts at most "
                f"{longest} moves."
            )
        self.start = start.clone()
        self.moves = moves
        self._cache: dict[tuple[int, int], tuple[str, ...]] = {}

    def identity(self) -> dict[str, Any]:
        return {
            "kind": "random",
            "moves": self.moves,
            "balance_iterations": BALANCE_ITERATIONS,
            "balance_margin": BALANCE_MARGIN,
        }

    def opening(self, pair: int, seed: int) -> tuple[str, ...]:
        if (pair, seed) not in self._cache:
            self._cache[pair, seed] = self._draw(pair, seed)
        return self._cache[pair, seed]

    def _draw(self, pair: int, run_seed: int) -> tuple[str, ...]:
        from mctslab.players.mcts import new_engine

        for attempt in range(MAX_ATTEMPTS):
            seed = opening_seed(run_seed, pair, attempt)
            rng = random.Random(seed)
            state = self.start.clone()
            played: list[int] = []
            while len(played) < self.moves and not state.is_terminal():
                move = rng.choice(state.legal_moves())
                state.apply(move)
                played.append(move)
            if state.is_terminal():
                continue
            engine = new_engine("compiled", SearchConfig(seed=seed, reuse_tree=False))
            value = engine.search(state, Budget(iterations=BALANCE_ITERATIONS)).value
            if abs(value - 0.5) <= BALANCE_MARGIN:
                return notation(self.start, played)
        raise ValueError(
            f"No balanced opening of {self.moves} random moves found for pair {pair} in "
            f"{MAX_ATTEMPTS} draws; try fewer moves."
        )


class FileOpenings:
    """Openings read from a file, one per line, checked move by move when read."""

    def __init__(self, path: Path, start: State) -> None:
        self.path = Path(path)
        try:
            text = read_text(self.path)
        except (OSError, RecordError) as error:
            # An OSError's text repeats the path ("[Errno 2] No such file or directory: 'x'").
            why = f"{os_reason(error)}." if isinstance(error, OSError) else str(error)
            raise ValueError(f"Cannot read the openings file {str(path)!r}: {why}") from None
        self.lines: list[tuple[str, ...]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            words = _move_words(strip_comment(line, start.spec.name), start.spec.name)
            if not words:
                continue
            try:
                # As a game record reads them: compact runs ("f5d6c3"), left-out forced passes.
                moves = parse_moves(start, " ".join(words))
            except ValueError as error:
                first = first_line(error)
                raise ValueError(f"{path}:{number}: {first}") from None
            state = start.clone()
            for move in moves:
                state.apply(move)
            if state.is_terminal():
                raise ValueError(f"{path}:{number}: the game is over after this opening.")
            # Stored in canonical notation, so that equivalent files are the same openings.
            self.lines.append(notation(start, moves))
        if not self.lines:
            raise ValueError(f"The openings file {str(path)!r} has no openings.")

    def identity(self) -> dict[str, Any]:
        digest = hashlib.sha256(json.dumps(self.lines).encode()).hexdigest()
        return {"kind": "file", "name": self.path.name, "count": len(self.lines), "sha256": digest}

    def opening(self, pair: int, seed: int) -> tuple[str, ...]:
        return self.lines[pair % len(self.lines)]


def _move_words(line: str, game: str) -> list[str]:
    """The moves written on ``line``: separated by spaces, or by commas except in Gomoku.

    Gomoku's Gomocup coordinates contain a comma ("7,7"), so there a comma
    separates moves only when a space follows it ("h8, h9").
    """
    if game == "gomoku":
        return [word.rstrip(",") for word in line.split() if word.rstrip(",")]
    return line.replace(",", " ").split()


def parse_openings(text: str | None, start: State) -> Openings:
    """The openings named by ``--openings`` (None, ``random:N`` or a file)."""
    if text is None or not text.strip():
        return StartPosition()
    if text.startswith("random:"):
        count = text.removeprefix("random:").strip()
        # isdecimal, not isdigit: "\u00b2" is a digit that int() does not read.
        if not (count.isdecimal() and int(count) >= 1):
            raise ValueError(
                f"--openings random:N needs a whole number N >= 1. Got {text!r} instead."
            )
        return RandomOpenings(start, int(count))
    return FileOpenings(Path(text), start)
