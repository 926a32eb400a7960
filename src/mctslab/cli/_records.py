"""Game records on the command line: ``play --load/--save`` and ``analyze --record``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from mctslab.cli import _options as opt
from mctslab.games import State, available_games
from mctslab.games._base import os_reason
from mctslab.records import GameRecord, RecordError, dump_record, load_record, read_text

GameArgument = Annotated[str | None, opt.game_argument(available_games(), or_record=True)]
TwoPlayerGameArgument = Annotated[
    str | None, opt.game_argument(opt.TWO_PLAYER_GAMES, or_record=True)
]


def begin(
    game: str | None, path: Path | None, offered: Sequence[str] | None = None, **board: Any
) -> tuple[State, list[int], dict[str, str]]:
    """The initial position, the moves to start from and the tags: a record's, or a new
    ``game``'s (no moves, no tags).

    ``board`` holds the command's game options (size, k, ...): a record sets
    them itself, so giving both is refused.
    """
    if path is None:
        if game is None:
            opt.fail("name the game (e.g. gomoku), or give a game record.")
        return opt.new_state(game, offered=offered, **board), [], {}
    record = read(path)
    if game is not None and game != record.game:
        opt.fail(f"{path} records a game of {record.game}, not {game}.")
    given = [f"--{name}" for name, value in board.items() if value is not None]
    if given:
        opt.fail(f"{path} sets the game's parameters; drop {', '.join(given)}.")
    return record.start, list(record.moves), dict(record.tags)


def replay(start: State, moves: Sequence[int]) -> State:
    """``start`` (left untouched) after ``moves``, already checked."""
    state = start.clone()
    for move in moves:
        state.apply(move)
    return state


def read(path: Path) -> GameRecord:
    try:
        return load_record(read_text(path))
    except OSError as error:
        opt.fail(f"cannot read the game record {path}: {os_reason(error)}.")
    except RecordError as error:
        opt.fail(f"{path}: {error}")


def check_writable(path: Path) -> None:
    """Refuse a record path that :func:`save` could not write, before the game is played.

    Its folder is made, as ``write`` would (see :func:`~mctslab.cli._options.check_creatable`).
    """
    kept = not_a_record(path)
    if kept is not None:
        opt.fail(kept)
    opt.check_creatable(path, "the game record")


def not_a_record(path: Path) -> str | None:
    """Why a game is not saved over ``path``: a file there that is not a game record (a
    record is saved over: a game continued from it goes back to it); else None."""
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        load_record(read_text(path))
    except (RecordError, OSError):
        return f"{path} is there and is not a game record; it is not written over."
    return None


def save(path: Path, start: State, moves: Sequence[int], tags: Mapping[str, str]) -> str | None:
    """Write the game to ``path``, making its folder if need be (as the arena does), and say
    so; None once saved, else why it was not: a file there that is not a game record, a path
    that cannot be written, or tags that a record cannot hold (nothing is written then)."""
    refused = not_a_record(path)
    if refused is not None:
        return refused
    try:
        text = dump_record(start, moves, tags=tags)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        return opt.cannot_write("the game record", path, error)
    except ValueError as error:
        return f"cannot write the game record {path}: {error}"
    opt.console.print(f"Game record saved to {path}.", soft_wrap=True)
    return None
