r"""Forced wins by threat sequences in the Gomoku games of an arena record.

    python benchmarks/threat_search.py benchmarks/strength/goal_gomoku8_original.jsonl \
        --results draw

For every position of a recorded game where the chosen player was to move,
it asks whether that player had a forced win by threats (Allis, van den
Herik & Huntjens 1996) and prints the plies, counted from the end of the
opening, where one existed:

- a **VCF** (victory by continuous fours) of at most ``--fours`` fours: each
  four leaves the opponent one cell to block, and the sequence ends with two
  win cells at once, or five;
- a **VCT** with at most ``--threes`` threats before it (fours included): a
  threat is a move after which the player would have a VCF if it moved
  again, and it wins when every reply of the opponent (every empty cell)
  still leaves a forced win with one threat fewer.

With ``--open-threes`` it counts how the opponent answered the player's open
threes (a move away from two win cells at once, with no four on the board):
blocked, with a four of its own, missed, or unstoppable (no reply would
have blocked them), by the result of the game:

    python benchmarks/threat_search.py benchmarks/strength/goal_gomoku8_original_567c5e6.jsonl \
        --open-threes

With ``--defence`` it looks the other way: at each of the player's moves, how
many moves left the opponent no such forced win, and whether the move played
was one of them, up to the first position where none did (the game was lost
there, or earlier, beyond the search's bounds):

    python benchmarks/threat_search.py benchmarks/strength/goal_gomoku8_original_bbb3ebe.jsonl \
        --results loss --defence

Each of the player's moves reads "ply move count": the safe moves are named
where there were at most three, and "missed" follows a move that was not one.

It is written apart from the engine's own rules on purpose (freestyle: k or
more in a row), as an independent check of what the search may have missed.
The search is exact for VCFs within the bound. For VCTs it is a lower bound:
no threat is tried while the opponent has a four (only a VCF, whose first
move blocks it), so a threat answered by a four of the opponent's own
counts only if a VCF follows.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from mctslab import make
from mctslab.games import State

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class Board:
    """A Gomoku board as a flat list of cells: 0 empty, 1 Black, 2 White."""

    def __init__(self, width: int, height: int, k: int) -> None:
        self.cells = bytearray(width * height)
        self.windows = [
            tuple((row + i * dr) * width + column + i * dc for i in range(k))
            for row in range(height)
            for column in range(width)
            for dr, dc in _DIRECTIONS
            if 0 <= row + (k - 1) * dr < height and 0 <= column + (k - 1) * dc < width
        ]
        self.k = k
        self._memo: dict[tuple[bytes, int, int, int], bool] = {}

    def _open_windows(self, stone: int, own: int) -> Iterator[list[int]]:
        """The empty cells of each window holding ``own`` of ``stone`` and no other stone."""
        for window in self.windows:
            mine, empty = 0, []
            for cell in window:
                value = self.cells[cell]
                if value == stone:
                    mine += 1
                elif value == 0:
                    empty.append(cell)
                else:
                    break
            else:
                if mine == own:
                    yield empty

    def win_cells(self, stone: int) -> set[int]:
        """The empty cells where ``stone`` would complete a line."""
        return {empty[0] for empty in self._open_windows(stone, self.k - 1)}

    def four_makers(self, stone: int) -> set[int]:
        """The empty cells where ``stone`` would make a four (a win cell)."""
        return {cell for empty in self._open_windows(stone, self.k - 2) for cell in empty}

    def open_three_cells(self, stone: int) -> set[int]:
        """The empty cells where ``stone`` would make two win cells at once (an open four)."""
        cells = set()
        for move in self.four_makers(stone):
            self.cells[move] = stone
            if len(self.win_cells(stone)) >= 2:
                cells.add(move)
            self.cells[move] = 0
        return cells

    def answer_to_open_three(self, stone: int, reply: int) -> str | None:
        """How the opponent's ``reply`` met ``stone``'s open three, or None where it had none
        to meet (no open three, or a four on the board).

        "blocked": no open three of ``stone`` is left; "four": the reply made a
        four of the opponent's own, which ``stone`` must block first; "missed":
        neither, and ``stone`` makes an open four next; "unstoppable": no reply
        would have blocked or made a four (two open threes, say).
        """
        other = 3 - stone
        if self.win_cells(stone) or self.win_cells(other) or not self.open_three_cells(stone):
            return None
        answer = self._answer(stone, reply)
        empty = [cell for cell, value in enumerate(self.cells) if value == 0]
        if answer == "missed" and all(self._answer(stone, cell) == "missed" for cell in empty):
            return "unstoppable"
        return answer

    def _answer(self, stone: int, reply: int) -> str:
        self.cells[reply] = 3 - stone
        answer = (
            "four"
            if self.win_cells(3 - stone)
            else ("missed" if self.open_three_cells(stone) else "blocked")
        )
        self.cells[reply] = 0
        return answer

    def vcf(self, stone: int, fours: int) -> bool:
        """Whether ``stone``, to move, wins by at most ``fours`` consecutive fours."""
        key = (bytes(self.cells), stone, fours, -1)  # -1: a VCF, no threes
        if key in self._memo:
            return self._memo[key]
        won = bool(self.win_cells(stone))
        threats = self.win_cells(3 - stone)
        if not won and fours > 0 and len(threats) < 2:
            moves = self.four_makers(stone)
            if threats:
                moves &= threats  # the opponent's four must be blocked
            for move in moves:
                self.cells[move] = stone
                cells = self.win_cells(stone)
                if len(cells) >= 2:
                    won = True
                elif cells:
                    (block,) = cells
                    # The block cannot make five: the opponent has no win cell left.
                    self.cells[block] = 3 - stone
                    won = self.vcf(stone, fours - 1)
                    self.cells[block] = 0
                self.cells[move] = 0
                if won:
                    break
        self._memo[key] = won
        return won

    def vct(self, stone: int, fours: int, threes: int) -> bool:
        """Whether ``stone``, to move, wins by a VCF or up to ``threes`` threats before one."""
        key = (bytes(self.cells), stone, fours, threes)
        if key in self._memo:
            return self._memo[key]
        won = self.vcf(stone, fours)
        if not won and threes > 0 and not self.win_cells(3 - stone):
            empty = [cell for cell, value in enumerate(self.cells) if value == 0]
            for move in empty:
                self.cells[move] = stone
                if self.vcf(stone, fours):  # a threat: it wins if the opponent lets it move again
                    won = all(
                        self._still_wins_after(reply, stone, fours, threes) for reply in empty
                    )
                self.cells[move] = 0
                if won:
                    break
        self._memo[key] = won
        return won

    def _still_wins_after(self, reply: int, stone: int, fours: int, threes: int) -> bool:
        """Whether ``stone`` still wins after the opponent's ``reply`` to its threat.

        The reply cannot make five: the opponent had no win cell (see :meth:`vct`).
        """
        if self.cells[reply]:
            return True  # the threat's own stone
        self.cells[reply] = 3 - stone
        won = self.vct(stone, fours, threes - 1)
        self.cells[reply] = 0
        return won

    def safe_moves(self, stone: int, fours: int, threes: int) -> list[int]:
        """The empty cells where ``stone``, to move, makes five or leaves the opponent
        no forced win within the bounds."""
        safe = []
        for move in [cell for cell, value in enumerate(self.cells) if value == 0]:
            self.cells[move] = stone
            if next(self._open_windows(stone, self.k), None) is not None:
                safe.append(move)  # five: the game is over
            elif not self.vct(3 - stone, fours, threes):
                safe.append(move)
            self.cells[move] = 0
        return safe


def _safe_note(state: State, move: int, safe: list[int]) -> str:
    """How many moves were safe, named where there were few or the move played was not one."""
    if not safe:
        return "0"
    named = f" ({' '.join(sorted(state.move_to_str(cell) for cell in safe))})"
    missed = "" if move in safe else " missed"
    return f"{len(safe)}{named if len(safe) <= 3 or missed else ''}{missed}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", type=Path, help="an mctslab arena record (JSONL) of Gomoku")
    parser.add_argument("--player", default="A", help="whose positions to search (default A)")
    parser.add_argument("--fours", type=int, default=12, help="the longest VCF (default 12)")
    parser.add_argument(
        "--threes", type=int, default=2, help="threats before it, fours included (default 2)"
    )
    parser.add_argument(
        "--results",
        choices=("all", "win", "draw", "loss"),
        default="all",
        help="only the games the player won, drew or lost",
    )
    parser.add_argument(
        "--defence",
        action="store_true",
        help="at each of the player's moves, the moves that left the opponent no forced win",
    )
    parser.add_argument(
        "--open-threes",
        action="store_true",
        help="how the opponent answered the player's open threes, by the game's result",
    )
    args = parser.parse_args()
    answers: Counter[tuple[str, str]] = Counter()
    games = [
        game
        for game in map(json.loads, args.record.read_text().splitlines())
        if game.get("type") == "game" and game["game"] == "gomoku"
    ]
    searched = with_win = 0
    for game in games:
        side = [player["id"] for player in game["players"]].index(args.player)
        winner = game["winner"]
        result = "draw" if winner is None else ("win" if winner == side else "loss")
        if args.results not in ("all", result):
            continue
        params = game["params"]
        state = make("gomoku", **params)
        board = Board(params["width"], params["height"], params["k"])
        found: list[int] = []
        defended: list[str] = []
        opening = len(game["opening"])
        for ply, text in enumerate(game["opening"] + game["moves"]):
            move = state.parse_move(text)
            if args.open_threes:
                answer = None
                if ply >= opening and state.current_player != side:
                    answer = board.answer_to_open_three(side + 1, move)
                if answer is not None:
                    answers[result, answer] += 1
                    found.append(ply - opening)
            elif ply >= opening and state.current_player == side:
                searched += 1
                if args.defence:
                    safe = board.safe_moves(side + 1, args.fours, args.threes)
                    defended.append(f"{ply - opening} {text} {_safe_note(state, move, safe)}")
                    if not safe:
                        found.append(ply - opening)
                        break
                elif board.vct(side + 1, args.fours, args.threes):
                    found.append(ply - opening)
            board.cells[move] = state.current_player + 1
            state.play(move)
        with_win += bool(found)
        heading = f"game {game['index']}: {args.player} {result}, moving " + (
            "first" if side == 0 else "second"
        )
        if args.defence:
            print(f"{heading}; ply, move, safe moves: {', '.join(defended)}", flush=True)
        elif args.open_threes:
            print(f"{heading}; open threes answered at plies {found}", flush=True)
        else:
            print(f"{heading}; forced wins at plies {found}", flush=True)
    if args.defence:
        print(f"{searched} positions searched; no safe move at one in {with_win} games")
    elif args.open_threes:
        kinds = ("blocked", "four", "missed", "unstoppable")
        for result, verb in (("win", "won"), ("draw", "drew"), ("loss", "lost")):
            counts = ", ".join(f"{answers[result, kind]} {kind}" for kind in kinds)
            print(f"in the games the player {verb}, the opponent's answers: {counts}")
    else:
        print(f"{searched} positions searched; a forced win in {with_win} games")


if __name__ == "__main__":
    main()
