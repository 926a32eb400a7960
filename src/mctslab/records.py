"""Game records: one small text format for every bundled game, to save, load and share games.

A record names the game and its parameters, may carry tags, and lists the
moves from the game's start position (``docs/records.md`` describes it in full)::

    # Comments run from '#' to the end of the line; blank lines are ignored.
    gomoku width=15 height=15 k=5
    [Black "you"]
    [White "mcts-compiled"]
    [Result "1-0"]
    h8 i9 h9 i10 h10 i11 h11 i12 h12

The first line that is not blank or a comment is the header: the game's name,
then its parameters as ``key=value`` (values without spaces; a list is
comma-separated, e.g. ``moves=2,-2,3,-3``, a list of one ending in a comma,
``moves=5,``). Any later line that starts with ``[`` is a tag ``[Name "value"]``
(free metadata, kept in order; ``\\"`` and ``\\\\`` escape a quote and a
backslash). Every other line holds moves, in the game's own notation:

- Othello is a transcript without spaces, ``f5d6c3d3c4``; a pass is ``PA``
  (``pass`` and any case are read too), and a pass that is forced may be left
  out, as published transcripts do;
- Connect Four is its columns without spaces, ``4453``;
- every other game separates moves by spaces: ``h8 i9`` (Gomoku), ``b2 a1``
  (tic-tac-toe), ``3 1`` (countdown), ``+20 -18`` (numbers).

Moves may be split over lines anywhere between moves, and spaces are allowed
in the compact forms too. A record that cannot be read raises
:class:`RecordError` (a ValueError) naming the line, the move and the reason.

The API, used by ``mctslab play``/``analyze``, the web board and the arena:

- :func:`dump_record` ``(start, moves, *, tags=None) -> str``
- :func:`load_record` ``(text) -> GameRecord`` with ``start``, ``moves``
  (ids), ``final`` and ``tags``
- :func:`parse_moves` ``(state, text) -> list[int]``: a move list in record
  notation, checked move by move from ``state``
- :func:`result_tag` ``(state) -> str``: ``"1-0"``, ``"0-1"``, ``"1/2-1/2"``
  or ``"*"``, the customary Result tag
- :func:`recorded_ending` ``(state, tags) -> str | None``: the Result of a
  record whose game ended before its position did (a resignation, say)
- :func:`winner_tag` ``(winner) -> str``: the Result tag of a game won by
  player ``winner`` (None: a draw)
- :func:`player_tags` ``(state, players) -> dict``: who played each side,
  keyed by the game's player names (``[Black "you"]``)
- :func:`continued_tags` ``(start, moves, players, result, *, loaded, since,
  resigned=None) -> dict``: the tags of a game continued from a record
- :func:`whole_number` ``(text) -> int``: a whole number as records (game
  parameters) and the engine protocols write it
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mctslab.games import State, available_games, make

__all__ = [
    "RESULT_WINNERS",
    "GameRecord",
    "RecordError",
    "continued_tags",
    "dump_record",
    "load_record",
    "parse_moves",
    "player_tags",
    "recorded_ending",
    "result_tag",
    "whole_number",
    "winner_tag",
]

#: Games written without spaces between moves, with the pattern of one move.
_COMPACT: dict[str, re.Pattern[str]] = {
    "othello": re.compile(r"pass|pa|[a-z][0-9]+", re.IGNORECASE),
    "connect4": re.compile(r"[0-9]"),
}
#: A tag: ``[Name "value"]``, the value's quote and backslash escaped.
_TAG_TEXT = r'\[\s*([A-Za-z]\w*)\s+"((?:[^"\\]|\\.)*)"\s*\]'
_TAG = re.compile(f"^{_TAG_TEXT}$")
_TAG_NAME = re.compile(r"[A-Za-z]\w*")
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
#: Move lines are wrapped to stay about this wide.
_LINE_WIDTH = 72


class RecordError(ValueError):
    """A record that cannot be read; the message names the line (and move) and why."""


@dataclass(frozen=True)
class GameRecord:
    """A loaded record: the start position, the move ids played from it, and where they lead."""

    start: State
    moves: tuple[int, ...]
    final: State
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def game(self) -> str:
        return self.start.spec.name

    def notation(self) -> list[str]:
        """The moves in the game's notation, in order."""
        return _notation(self.start, self.moves)


def dump_record(
    start: State, moves: Iterable[int], *, tags: Mapping[str, str] | None = None
) -> str:
    """The record text of ``moves`` (ids) played from ``start``, the game's initial position.

    Every move is checked as it is replayed; ``tags`` (e.g. players, result)
    are written in order. ``load_record`` reads the text back to the same game.
    """
    game = start.spec.name
    params = dict(start.spec.params)
    if start.position_key() != make(game, **params).position_key():
        raise ValueError(
            f"A record starts from the initial position of {game}; the position given is not "
            "it. Pass the initial position and every move played since."
        )
    move_list = [int(move) for move in moves]
    state = start.clone()
    for number, move in enumerate(move_list, start=1):
        try:
            state.play(move)
        except ValueError as error:
            raise ValueError(f"move {number} of the record: {error}") from None
    lines = [" ".join([game, *(f"{key}={_format_value(value)}" for key, value in params.items())])]
    for name, value in (tags or {}).items():
        if not _TAG_NAME.fullmatch(name):
            raise ValueError(
                f"A record tag name must be a letter then letters, digits or '_'. Got {name!r}."
            )
        # The reader splits lines with str.splitlines(), which breaks at more than \n and \r
        # (\x0b, \x0c, \x1c-\x1e, \x85, \u2028, \u2029): it drops exactly those characters.
        if "".join(value.splitlines()) != value:
            raise ValueError(f"A record tag value must be one line. Got {value!r} for {name}.")
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'[{name} "{escaped}"]')
    lines.extend(_wrap(_notation(start, move_list), "" if game in _COMPACT else " "))
    return "\n".join(lines) + "\n"


#: A comment runs from "#" to the end of the line. The numbers game writes its i-th choice
#: "#i", so there a "#" that begins a word of digits ("#2") is a move, not a comment.
_COMMENT = re.compile(r"#.*")
_NUMBERS_COMMENT = re.compile(r"(?:(?<!\S)#(?![0-9]+(?!\S))|(?<=\S)#).*")
#: A tag's quoted value may hold a "#": a comment starts after the tag.
_TAG_PREFIX = re.compile(rf"^\s*{_TAG_TEXT}")


def strip_comment(line: str, game: str | None = None) -> str:
    """``line`` without its comment, as ``game``'s notation reads "#" (None: before the header)."""
    tag = _TAG_PREFIX.match(line)
    kept, rest = (line[: tag.end()], line[tag.end() :]) if tag else ("", line)
    return kept + (_NUMBERS_COMMENT if game == "numbers" else _COMMENT).sub("", rest)


def read_text(path: Path) -> str:
    """The text of a file of moves (a record, an openings file), read as UTF-8.

    A leading byte order mark, which Windows editors write, is dropped (a
    browser drops it too when the web board reads a file). Raises
    :class:`RecordError` when the file is not UTF-8 text, OSError when it
    cannot be read; the caller names the file.
    """
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise RecordError(
            f"line {line} is not UTF-8 text (byte 0x{data[error.start]:02x}); "
            "save the file as UTF-8."
        ) from None


def load_record(text: str) -> GameRecord:
    """Read a record (see the module docstring); raises :class:`RecordError` if it is corrupt."""
    header: tuple[int, str] | None = None
    tags: dict[str, str] = {}
    move_lines: list[tuple[int, str]] = []
    game: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw, game).strip()
        if not line:
            continue
        if header is None:
            header = (number, line)
            game = line.split()[0]
        elif line.startswith("["):
            match = _TAG.match(line)
            if match is None:
                raise RecordError(f'record line {number}: {line!r} is not a tag [Name "value"].')
            tags[match.group(1)] = re.sub(r"\\(.)", r"\1", match.group(2))
        else:
            move_lines.append((number, line))
    if header is None:
        raise RecordError("record: empty (no header line naming the game).")
    start = _start_position(*header)
    state = start.clone()
    moves: list[int] = []
    for number, line in move_lines:
        moves.extend(_play_line(state, line, f"record line {number}, ", len(moves)))
    return GameRecord(start=start, moves=tuple(moves), final=state, tags=tags)


def parse_moves(state: State, text: str) -> list[int]:
    """The move ids of ``text`` (record notation, several lines allowed), played from ``state``.

    ``state`` is left untouched; raises :class:`RecordError` naming the bad move
    (and its line, when there are several).
    """
    position = state.clone()
    moves: list[int] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        where = f"line {number}, " if len(lines) > 1 else ""
        moves.extend(_play_line(position, strip_comment(line, state.spec.name), where, len(moves)))
    return moves


def player_tags(state: State, players: Iterable[str]) -> dict[str, str]:
    """Tags naming who played each side, keyed by the game's player names (letters kept).

    ``players`` lists them by player index: "you", or an engine's name, made one line
    (a GTP engine may name itself in several): runs of whitespace, line breaks
    included, become one space.
    """
    return {
        re.sub(r"\W", "", name): " ".join(who.split())
        for name, who in zip(state.spec.player_names, players, strict=True)
    }


def continued_tags(
    start: State,
    moves: Sequence[int],
    players: Iterable[str],
    result: str,
    *,
    loaded: Mapping[str, str],
    since: int,
    resigned: int | None = None,
) -> dict[str, str]:
    """The tags of a game continued from a record of tags ``loaded`` whose first ``since``
    of ``moves`` (played from ``start``) were the record's: the loaded tags, then who
    played each side (:func:`player_tags`) and ``result``, which replace the loaded ones;
    a side that made none of the moves since (nor ``resigned``) keeps its loaded name."""
    took_part = {resigned} if resigned is not None else set()
    position = start.clone()
    for index, move in enumerate(moves):
        if index >= since:
            took_part.add(position.current_player)
        position.apply(move)
    sides = player_tags(start, players)
    for side, key in enumerate(list(sides)):
        if side not in took_part and key in loaded:
            sides[key] = loaded[key]
    return {**loaded, **sides, "Result": result}


#: The Result tags of a finished two-player game, and the winner each names (None: a draw).
RESULT_WINNERS: dict[str, int | None] = {"1-0": 0, "0-1": 1, "1/2-1/2": None}


def winner_tag(winner: int | None) -> str:
    """The Result tag of a finished two-player game won by ``winner`` (None: a draw)."""
    return next(tag for tag, named in RESULT_WINNERS.items() if named == winner)


def recorded_ending(state: State, tags: Mapping[str, str]) -> str | None:
    """The Result tag of a record whose game ended before its last position ``state`` did
    (a resignation, an agreed draw, a loss on time): one of :data:`RESULT_WINNERS` while
    ``state`` is not over; else None (the game goes on, or its rules ended it)."""
    result = tags.get("Result")
    return result if result in RESULT_WINNERS and not state.is_terminal() else None


def result_tag(state: State) -> str:
    """The customary Result tag of a two-player game: 1-0, 0-1, 1/2-1/2, or * while it goes on.

    For a one-player game it is the final reward (``*`` while it goes on).
    """
    outcome = state.outcome()
    if outcome is None:
        return "*"
    if state.spec.num_players == 1:
        return f"{outcome.returns[0]:g}"
    return winner_tag(outcome.winner)


# -- reading ------------------------------------------------------------------
def _start_position(line_number: int, line: str) -> State:
    """The initial position named by the header line."""
    if line.startswith("["):
        raise RecordError(
            f"record line {line_number}: the first line names the game (e.g. 'gomoku size=15'); "
            "tags come after it."
        )
    game, *assignments = line.split()
    if game not in available_games():
        raise RecordError(
            f"record line {line_number}: unknown game {game!r}; "
            f"available games: {', '.join(available_games())}."
        )
    params: dict[str, Any] = {}
    for assignment in assignments:
        key, equals, value = assignment.partition("=")
        if not equals or not key or not value:
            raise RecordError(
                f"record line {line_number}: game parameter {assignment!r} is not key=value."
            )
        params[key] = _parse_value(value)
    try:
        return make(game, **params)
    except ValueError as error:
        raise RecordError(f"record line {line_number}: {error}") from None


def whole_number(text: str) -> int:
    """``text`` as an int, in ASCII digits with an optional sign: int() also reads other
    scripts' digits and underscores, which no record or protocol sends. ValueError otherwise."""
    if not _WHOLE_NUMBER.fullmatch(text.strip()):
        raise ValueError(f"{text!r} is not a whole number")
    return int(text)


def _parse_value(text: str) -> Any:
    """An int, a tuple of ints (comma-separated; a trailing comma is allowed, so that one
    int with one, ``5,``, is a tuple of one), or the text itself."""
    try:
        if "," not in text:
            return whole_number(text)
        return tuple(whole_number(part) for part in text.removesuffix(",").split(","))
    except ValueError:
        return text


def _tokens(game: str, line: str) -> list[str]:
    """The move tokens of one line; compact games split runs like ``f5d6`` into moves."""
    pattern = _COMPACT.get(game)
    if pattern is None:
        return line.split()
    tokens: list[str] = []
    for chunk in line.split():
        position = 0
        while position < len(chunk):
            match = pattern.match(chunk, position)
            if match is None:
                # The rest of the run is reported as the bad move.
                tokens.append(chunk[position:])
                break
            tokens.append(match.group())
            position = match.end()
    return tokens


def _play_line(state: State, line: str, where: str, played: int) -> list[int]:
    """Play the moves of one line on ``state`` (in place); their ids, passes made explicit.

    An error names the move after ``where`` (e.g. "record line 3, ").
    """
    moves: list[int] = []
    for token in _tokens(state.spec.name, line):
        number = played + len(moves) + 1
        text = "pass" if token.lower() == "pa" else token
        try:
            if not _names_pass(text) and must_pass(state):
                # Transcripts customarily leave out a forced pass.
                forced = state.legal_moves()[0]
                state.apply(forced)
                moves.append(forced)
                number += 1
            move = state.parse_move(text)
        except ValueError as error:
            raise RecordError(f"{where}move {number} ({token!r}): {error}") from None
        state.apply(move)
        moves.append(move)
    return moves


def _names_pass(text: str) -> bool:
    return text.lower() == "pass"


def must_pass(state: State) -> bool:
    """Whether the only legal move is a pass, in any game whose notation names one "pass"
    (so a transcript may leave it out, and ``mctslab play`` plays it for the person)."""
    legal = state.legal_moves()
    return len(legal) == 1 and _names_pass(state.move_to_str(legal[0]))


# -- writing ------------------------------------------------------------------
def _notation(start: State, moves: Iterable[int]) -> list[str]:
    state = start.clone()
    written = []
    for move in moves:
        written.append(state.move_to_str(move))
        state.apply(move)
    return written


def _wrap(notation: list[str], separator: str) -> list[str]:
    """Move lines of about :data:`_LINE_WIDTH` characters, broken between moves."""
    compact = separator == ""
    lines: list[str] = []
    current: list[str] = []
    width = 0
    for text in notation:
        token = "PA" if compact and _names_pass(text) else text
        if current and width + len(separator) + len(token) > _LINE_WIDTH:
            lines.append(separator.join(current))
            current, width = [], 0
        width += (len(separator) if current else 0) + len(token)
        current.append(token)
    if current:
        lines.append(separator.join(current))
    return lines


def _format_value(value: Any) -> str:
    if isinstance(value, tuple | list):
        # One item is written "5,": "5" would read back as an int.
        return ",".join(str(item) for item in value) + ("," if len(value) == 1 else "")
    return str(value)
