"""A person at the terminal as a player (the arena's ``human`` player)."""

from __future__ import annotations

import shutil
from collections.abc import Callable

from mctslab.games._base import State, first_line
from mctslab.records import must_pass

QUIT_WORDS = frozenset({"quit", "exit", "q"})


class HumanPlayer:
    """Shows the board and asks for a move until a legal one is typed.

    ``read`` and ``write`` default to the terminal and are parameters so that
    a test (or another front end) can drive the player. Typing ``quit``, or
    closing the input, raises KeyboardInterrupt: the arena treats it as an
    interruption, so the finished games are kept and the run can be resumed.
    A forced pass (Othello) is played for the person and said, as in
    ``mctslab play``. The board fits the terminal's width (compact if need be).
    """

    name = "human"

    def __init__(
        self,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self._read = read
        self._write = write

    def start(self, state: State) -> None:
        self._write(
            f"New game of {state.spec.name}. Type a move ({state.notation_help()}) or quit."
        )

    def choose(self, state: State) -> int:
        self._write(state.render(width=shutil.get_terminal_size().columns))
        who = state.spec.player_names[state.current_player]
        if must_pass(state):
            # Asking would make the person guess "pass": the greeting's help leaves it out.
            self._write(f"{who} (you) has no legal move and passes.")
            return state.legal_moves()[0]
        while True:
            try:
                text = self._read(f"{who} (you) to move: ")
            except EOFError:
                raise KeyboardInterrupt from None
            if text.strip().lower() in QUIT_WORDS:
                raise KeyboardInterrupt
            try:
                return state.parse_move(text)
            except ValueError as error:
                self._write(first_line(error))

    def observe(self, move: int) -> None:
        """The board shown before each of the person's moves carries the news."""

    def close(self) -> None:
        """Nothing to release."""
