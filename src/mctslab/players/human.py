"""A person at the terminal as a player (the arena's ``human`` player)."""

from __future__ import annotations

from collections.abc import Callable

from mctslab.games._base import State

QUIT_WORDS = frozenset({"quit", "exit", "q"})


class HumanPlayer:
    """Shows the board and asks for a move until a legal one is typed.

    ``read`` and ``write`` default to the terminal and are parameters so that
    a test (or another front end) can drive the player. Typing ``quit``, or
    closing the input, raises KeyboardInterrupt: the arena treats it as an
    interruption, so the finished games are kept and the run can be resumed.
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
        self._write(str(state))
        who = state.spec.player_names[state.current_player]
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
                self._write(str(error).splitlines()[0])

    def observe(self, move: int) -> None:
        """The board shown before each of the person's moves carries the news."""

    def close(self) -> None:
        """Nothing to release."""
