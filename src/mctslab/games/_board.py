"""Text rendering and coordinate notation shared by the grid games."""

from __future__ import annotations

import re
from collections.abc import Sequence

COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_LETTER_NUMBER = re.compile(r"^([a-z])\s*(\d{1,2})$")
_PAIR = re.compile(r"^(\d{1,2})\s*[,\s]\s*(\d{1,2})$")


def render_grid(
    rows: Sequence[Sequence[str]],
    *,
    row_labels: Sequence[str],
    last: tuple[int, int] | None = None,
    columns: str = COLUMN_LETTERS,
) -> str:
    """A board with column letters and row labels; the last move is bracketed.

    ``rows`` are listed top to bottom; each cell is a one-character symbol.
    ``columns`` names the columns (GTP's letters skip ``i``).
    """
    width = max(len(label) for label in row_labels)
    header = " " * (width + 1) + " ".join(f" {columns[c]}" for c in range(len(rows[0])))
    lines = [header]
    for r, row in enumerate(rows):
        cells = []
        for c, symbol in enumerate(row):
            cells.append(f"[{symbol}]" if last == (r, c) else f" {symbol} ")
        lines.append(f"{row_labels[r]:>{width}} " + "".join(cells) + f" {row_labels[r]}")
    lines.append(header)
    return "\n".join(lines)


def parse_letter_number(text: str) -> tuple[int, int] | None:
    """``"h8"`` -> ``(column, number)`` zero-based column and 1-based number, or None."""
    match = _LETTER_NUMBER.match(text)
    if match is None:
        return None
    return COLUMN_LETTERS.index(match.group(1)), int(match.group(2))


def parse_pair(text: str) -> tuple[int, int] | None:
    """``"7,8"`` or ``"7 8"`` -> ``(x, y)`` as written, or None."""
    match = _PAIR.match(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))
