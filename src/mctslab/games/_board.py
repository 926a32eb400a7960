"""Text rendering and coordinate notation shared by the grid games."""

from __future__ import annotations

import re
from collections.abc import Sequence

COLUMN_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_LETTER_NUMBER = re.compile(r"^([a-z])\s*([0-9]{1,2})$")
_PAIR = re.compile(r"^([0-9]{1,2})\s*[,\s]\s*([0-9]{1,2})$")


def render_grid(
    rows: Sequence[Sequence[str]],
    *,
    row_labels: Sequence[str],
    last: tuple[int, int] | None = None,
    columns: str = COLUMN_LETTERS,
    width: int | None = None,
) -> str:
    """A board with column letters and row labels; the last move is bracketed.

    ``rows`` are listed top to bottom; each cell is a one-character symbol.
    ``columns`` names the columns (GTP's letters skip ``i``). ``width`` is the
    terminal's: a board wider than it is drawn compact, its cells one space
    apart with the last move's brackets in the spaces beside it, so that a
    15x15 board takes 35 columns rather than 51. The row labels on the right
    are left off where even that is too wide, and where that is not enough
    (19 columns in 40) so is the space after the last column, with the
    closing bracket of a move there: the opening one still marks it.
    """
    label_width = max(len(label) for label in row_labels)
    count = len(rows[0])

    def fits(gap: int, *, right_labels: bool = True, final_gap: bool = True) -> bool:
        labels = label_width * (2 if right_labels else 1)
        return width is None or labels + count + gap * (count + final_gap) <= width

    gap = 2 if fits(2) else 1
    right_labels = fits(gap)
    final_gap = right_labels or fits(gap, right_labels=False)
    header = " " * (label_width + gap) + (" " * gap).join(columns[c] for c in range(count))
    lines = [header]
    for r, row in enumerate(rows):
        marked = last[1] if last is not None and last[0] == r else None
        cells = "".join(_space(c, marked, gap) + symbol for c, symbol in enumerate(row))
        after = _space(count, marked, gap) if final_gap else ""
        line = f"{row_labels[r]:>{label_width}}" + cells + after
        lines.append(line + row_labels[r] if right_labels else line.rstrip())
    lines.append(header)
    return "\n".join(lines)


def _space(before: int, marked: int | None, gap: int) -> str:
    """The ``gap`` characters in front of column ``before`` (past the last column: after it),
    bracketing column ``marked``: a normal board's two hold a closing and an opening
    bracket, a compact board's one holds either."""
    closing = "]" if marked == before - 1 else " "
    opening = "[" if marked == before else " "
    return closing + opening if gap == 2 else closing.strip() or opening


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
