"""`mctslab play`: a person against the AI in the terminal (or the AI against itself)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from mctslab._interrupt import noticing_ctrl_c
from mctslab.cli import _options as opt
from mctslab.cli import _records
from mctslab.cli._thinking import Thinking
from mctslab.core.config import Budget
from mctslab.core.result import SearchResult
from mctslab.games import State
from mctslab.games._base import first_line
from mctslab.players.base import Player
from mctslab.players.human import QUIT_WORDS
from mctslab.players.mcts import MCTSPlayer
from mctslab.protocols import EngineResignedError
from mctslab.records import (
    RESULT_WINNERS,
    continued_tags,
    must_pass,
    recorded_ending,
    result_tag,
    winner_tag,
)

#: One second a move: the budget of the strength goals, and quick enough to play against.
DEFAULT_BUDGET = Budget(seconds=1.0)

HELP = (
    "Type a move ({notation}), or a command: "
    "undo (take back your last move), hint (ask the AI), moves (list legal moves), "
    "save [FILE] (the game so far), resign, quit."
)


def play(
    game: _records.TwoPlayerGameArgument = None,
    size: opt.Size = None,
    width: opt.Width = None,
    height: opt.Height = None,
    k: opt.K = None,
    start: opt.Start = None,
    ai_first: Annotated[bool, typer.Option(help="The AI moves first.")] = False,
    ai_vs_ai: Annotated[bool, typer.Option(help="The AI plays both sides.")] = False,
    moves: Annotated[
        str | None,
        typer.Option(help='Start after these moves, as in a record (docs/records.md): "h8 i9".'),
    ] = None,
    load: Annotated[
        Path | None,
        typer.Option(
            help="Continue the game in this record (see docs/records.md).", dir_okay=False
        ),
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            help="Write the game's record here when it ends or is stopped (checked, and its "
            "folder made, before the game).",
            dir_okay=False,
        ),
    ] = None,
    iterations: Annotated[int | None, typer.Option(help="Simulations per AI move.", min=1)] = None,
    seconds: Annotated[
        float | None,
        typer.Option(
            help="Thinking time per AI move, more than 0 (default 1 s).", callback=opt.positive
        ),
    ] = None,
    memory_mb: opt.MemoryMB = None,
    opponent: Annotated[
        str | None,
        typer.Option(
            help="Let another player that moves by itself take the AI's side, in the arena's "
            "player syntax: "
            'e.g. "engine:gomocup=./pbrain", "engine:gtp=CMD", "openspiel:seconds=1", '
            '"random" (with --ai-vs-ai it plays second, against the MCTS AI).'
        ),
    ] = None,
    engine: opt.Engine = "compiled",
    workers: opt.Workers = 1,
    seed: opt.Seed = None,
    c: opt.Exploration = None,
) -> None:
    """Play a two-player game against the AI in the terminal.

    Without a terminal to read moves from (input piped in is not read), or with --ai-vs-ai,
    the AI plays both sides, or one side against the --opponent.
    """
    initial, prefix, loaded_tags = _records.begin(
        game, load, opt.TWO_PLAYER_GAMES, size=size, width=width, height=height, k=k, start=start
    )
    loaded = len(prefix)  # the record's moves; those of --moves are this session's
    position = _records.replay(initial, prefix)
    # A game that ended before its position did (a resignation, an agreed draw, a loss on
    # time) is shown as the record ends it, not played on and its result overwritten.
    ended = recorded_ending(position, loaded_tags)
    if ended is not None and moves:
        opt.fail(
            f"{load} records a game that ended {ended} before its position did; to play on "
            'from there, set its Result tag to "*".'
        )
    state = opt.play_moves(position, moves, prefix)
    if state.spec.num_players != 2:
        name = state.spec.name
        opt.fail(f"{name} is a one-player game: 'mctslab {name}' plays it.")
    if save is not None:
        _records.check_writable(save)
    no_terminal = not ai_vs_ai and not opt.stdin_is_terminal()
    human = None if ai_vs_ai or no_terminal else (1 if ai_first else 0)
    with contextlib.ExitStack() as players:
        # The opponent first: a mistyped spec is refused before the AI's first compile.
        other = _opponent(opponent, seed, state) if ended is None else None
        if other is not None:
            players.callback(other.close)
        if no_terminal and ended is None:
            sides = "both sides" if other is None else "against the --opponent"
            opt.error_console.print(f"No terminal to read moves from: the AI plays {sides}.")
        ai = opt.mcts_player(
            engine,
            opt.search_config(seed, c),
            opt.budget(iterations, seconds, memory_mb=memory_mb, default=DEFAULT_BUDGET),
            workers,
        )
        players.callback(ai.close)
        session = _Game(
            state, ai, human, other, initial, prefix, save, loaded_tags, loaded, ended=ended
        )
        try:
            with noticing_ctrl_c() as interrupted:
                session.run(interrupted)
        finally:
            refused = None if save is None else _records.save(save, *session.record())
            if refused is not None:  # checked before the game, so no mistake of the command's
                opt.fail(refused, mistake=False)


def _opponent(spec: str | None, seed: int | None, state: State) -> Player | None:
    """The player given by ``--opponent`` for the game of ``state``, or None for our own AI."""
    if spec is None:
        return None
    from mctslab.arena.spec import parse_player

    try:
        player = parse_player(spec)
        if player.interactive:
            raise ValueError(
                "human is no opponent here: play is a person against a player that moves "
                "by itself (mcts, random, openspiel or engine); two people can share a board."
            )
        player.check_game(state)
        return player.build(seed)
    except (ValueError, OSError) as error:
        opt.fail(f"--opponent: {error}")


#: Words with which a board names the last move itself: Othello's pass, having no square
#: to bracket, and the numbers said in countdown.
_LAST_MOVE_SHOWN = ("(last move: ", " said ")


def _how_found(result: SearchResult) -> str:
    """How the AI came to its move: the estimate and the search's speed, or the proof.

    A position the solver had proven (a tree kept from the last move often
    holds the proof) takes no search or one simulation, whose speed means nothing.
    """
    simulations = opt.counted(result.simulations, "simulation")
    if result.proven is not None:
        searched = "no search needed" if result.simulations <= 1 else f"after {simulations}"
        return f"{opt.PROOFS[result.proven]}, {searched}"
    return f"win-rate estimate {result.value:.0%}, {simulations}, {result.sims_per_second:,.0f}/s"


def _suggestions(result: SearchResult) -> str:
    """The AI's three best moves, as it ranks them: a proven win first, then by their share of
    the search (ranked so, their win rates alone looked upside down)."""
    moves = ", ".join(
        f"{m.notation} ({share:.0%} of the search, win rate {m.value:.0%})"
        for m, share in zip(result.moves[:3], opt.visit_shares(result), strict=False)
    )
    return f"The AI suggests, best first: {moves}."


class _Game:
    """One game in the terminal: the position, the moves so far, and whose side is whose."""

    def __init__(
        self,
        state: State,
        ai: MCTSPlayer,
        human: int | None,
        opponent: Player | None,
        initial: State,
        moves: list[int],
        save_path: Path | None = None,
        loaded_tags: dict[str, str] | None = None,
        loaded: int = 0,
        *,
        ended: str | None = None,
    ) -> None:
        #: The game's first position, and every move since (those loaded or given too):
        #: ``state`` is where they lead.
        self.initial, self.moves = initial, list(moves)
        #: Where --save writes the game at its end (and the in-game save by default).
        self.save_path = save_path
        #: The tags of a loaded record (an event, say), kept when the game is saved.
        self.loaded_tags = loaded_tags or {}
        self.state = state
        self.ai = ai
        self.human = human
        self.opponent = opponent
        #: The side the opponent plays: the AI's, or second in AI-against-AI games.
        self.opponent_side = 1 if human is None else 1 - human
        self.ai_seconds = 0.0
        self.ai_moves = 0
        #: The side whose external engine resigned, which ends the game.
        self.resigned: int | None = None
        #: The Result tag of a loaded record whose game ended before its position did.
        self.ended = ended
        #: How many of ``moves`` a loaded record's: a side that has made none of the others
        #: (nor resigned) keeps the record's name for it.
        self.loaded = loaded
        #: Whether Ctrl-C was pressed: run() is given the flag.
        self.interrupted: Callable[[], bool] = lambda: False

    def run(self, interrupted: Callable[[], bool]) -> None:
        """Play to the end, a quit or Ctrl-C; ``interrupted`` says whether Ctrl-C was pressed
        (a search stopped by it returns its best move rather than raising)."""
        self.interrupted = interrupted
        if self.ended is not None:
            opt.console.print(
                f"The record's game ended {self.ended} before its position did (a "
                'resignation, say); set its Result tag to "*" to play on from there.'
            )
            self._summary()
            return
        names = self.state.spec.player_names
        if self.human is not None:
            opt.console.print(
                f"You play {names[self.human]}, {self._side(1 - self.human)} plays "
                f"{names[1 - self.human]}. " + HELP.format(notation=self.state.notation_help())
            )
        self._restart_opponent()
        try:
            self._play()
        except KeyboardInterrupt:
            # Ctrl-C, at the prompt or while a player thinks, stops the game as quit does.
            opt.console.print()
            opt.console.print("Game stopped.")
        self._summary()

    def _play(self) -> None:
        while not self.state.is_terminal():
            self._show()
            if self._asks_person(self.state):
                move = self._ask()
                if move is None:
                    if self.resigned is None:
                        opt.console.print("Game stopped.")
                    break
            elif must_pass(self.state) and not self._opponent_to_move():
                # A forced pass: asking would make the person guess "pass", and searching it
                # would spend the AI's whole budget on one possible move.
                move = self.state.legal_moves()[0]
                opt.console.print(
                    f"{self.state.spec.player_names[self.state.current_player]} has no legal "
                    "move and passes."
                )
            else:
                move = self._think()
                if move is None:
                    break
            self.state.apply(move)
            self.moves.append(move)
            self.ai.observe(move)
            if self.opponent is not None:
                self.opponent.observe(move)

    def _opponent_to_move(self) -> bool:
        """Whether the --opponent is to move (an external engine is asked even to pass)."""
        return self.opponent is not None and self.state.current_player == self.opponent_side

    def _side(self, player: int) -> str:
        """Who plays ``player``'s side, for the person: "you", "the AI" or the opponent's name."""
        if player == self.human:
            return "you"
        if self.opponent is not None and player == self.opponent_side:
            return self.opponent.name
        return "the AI"

    def _ai_name(self, player: int) -> str:
        if self.opponent is not None and player == self.opponent_side:
            return self.opponent.name
        return self.ai.name

    def _restart_opponent(self) -> None:
        """Tell the opponent (an external engine keeps its own board) the game so far."""
        if self.opponent is not None:
            self.opponent.start(self.initial)
            for move in self.moves:
                self.opponent.observe(move)

    def record(self) -> tuple[State, list[int], dict[str, str]]:
        """What a record of the game holds: its first position, every move since, and the
        tags: a loaded record's, then who played each side (by the game's player names) and
        the result, which replace the loaded record's own; a side that took no part in this
        session keeps the loaded record's name for it. A record whose game had ended before
        its position did is its own record, tags unchanged."""
        if self.ended is not None:
            return self.initial, self.moves, dict(self.loaded_tags)
        players = ["you" if player == self.human else self._ai_name(player) for player in (0, 1)]
        result = result_tag(self.state) if self.resigned is None else winner_tag(1 - self.resigned)
        tags = continued_tags(
            self.initial,
            self.moves,
            players,
            result,
            loaded=self.loaded_tags,
            since=self.loaded,
            resigned=self.resigned,
        )
        return self.initial, self.moves, tags

    def _show(self) -> None:
        # Read at each move, so a terminal made narrower mid-game gets a board that fits.
        board = self.state.render(width=opt.console.width)
        opt.console.print()
        opt.console.print(board)
        if self.moves and not any(words in board for words in _LAST_MOVE_SHOWN):
            before = _records.replay(self.initial, self.moves[:-1])
            mover = self.state.spec.player_names[before.current_player]
            opt.console.print(f"Last move: {mover} {before.move_to_str(self.moves[-1])}")
        # Othello's and countdown's boards say whose turn it is themselves.
        if self._ending() is None and "to move" not in board:
            opt.console.print(f"{self.state.spec.player_names[self.state.current_player]} to move.")

    def _think(self) -> int | None:
        """The AI's (or the opponent's) move; None when the opponent resigns."""
        name = f"AI ({self.state.spec.player_names[self.state.current_player]})"
        began = time.perf_counter()
        if self.opponent is not None and self._opponent_to_move():
            try:
                move = self.opponent.choose(self.state)
            except EngineResignedError:
                opt.console.print(f"{self.opponent.name} resigns.")
                self.resigned = self.state.current_player
                return None
            self.ai_seconds += time.perf_counter() - began
            self.ai_moves += 1
            opt.console.print(f"{self.opponent.name} plays {self.state.move_to_str(move)}")
            return move
        result = self._search(name)
        self.ai_seconds += time.perf_counter() - began
        self.ai_moves += 1
        opt.console.print(f"{name} plays {result.best_notation} ({_how_found(result)})")
        return result.best_move

    def _search(self, who: str) -> SearchResult:
        """The AI's search of the position, shown as ``who`` thinking.

        Raises KeyboardInterrupt after a Ctrl-C, which the engine answers by
        returning its best move so far.
        """
        with Thinking(opt.console, who) as thinking:
            result = self.ai.analyse(self.state, progress=thinking)
        if self.interrupted():
            raise KeyboardInterrupt
        return result

    def _ask(self) -> int | None:
        """The person's next move; None when they quit. Bad input never ends the game."""
        while True:
            try:
                text = opt.console.input(Text("Your move: ", style="bold")).strip()
            except EOFError:
                opt.console.print()
                return None
            command, _, argument = text.partition(" ")
            command = command.lower()
            if command in QUIT_WORDS:
                return None
            if command == "resign":
                opt.console.print("You resign.")
                self.resigned = self.state.current_player
                return None
            if command in {"help", "?", ""}:
                opt.console.print(HELP.format(notation=self.state.notation_help()))
            elif command == "moves":
                moves = " ".join(self.state.move_to_str(m) for m in self.state.legal_moves())
                opt.console.print(f"Legal moves: {moves}")
            elif command == "hint":
                opt.console.print(_suggestions(self._search("The AI")))
            elif command == "undo":
                self._undo()
            elif command == "save":
                self._save(Path(argument.strip()) if argument.strip() else None)
            else:
                try:
                    return self.state.parse_move(text)
                except ValueError as error:
                    message = first_line(error).rstrip(".")
                    opt.console.print(Text(f"{message}.", style="red"), "Type help for help.")

    def _undo(self) -> None:
        """Take back moves until it is the person's turn again, one of their moves undone
        (moves loaded from a record or given with --moves too)."""
        kept = list(self.moves)
        state = None
        while kept and (state is None or not self._asks_person(state)):
            kept.pop()
            state = _records.replay(self.initial, kept)
        if state is None or not self._asks_person(state):
            opt.console.print("There is no move of yours to take back.")
            return
        self.moves = kept
        self.loaded = min(self.loaded, len(kept))  # moves made again are this session's
        self.state = state
        self.ai.reset()
        self._restart_opponent()
        self._show()

    def _save(self, path: Path | None) -> None:
        """The game so far to ``path``: by default --save's, else mctslab-GAME.txt here."""
        path = path or self.save_path or Path(f"mctslab-{self.state.spec.name}.txt")
        refused = _records.save(path, *self.record())
        if refused is not None:  # the game goes on; the person may name another file
            opt.console.print(Text(refused, style="red"), soft_wrap=True)

    def _asks_person(self, state: State) -> bool:
        """Whether the person is asked for a move in ``state`` (a forced pass is played)."""
        return state.current_player == self.human and not must_pass(state)

    def _ending(self) -> tuple[int | None, str] | None:
        """``(winner, reason)`` once the game ended, by its rules, a resignation or as the
        loaded record says; the winner is None for a draw."""
        if self.ended is not None:
            return RESULT_WINNERS[self.ended], "as the record ends it"
        if self.resigned is not None:
            names = self.state.spec.player_names
            return 1 - self.resigned, f"{names[self.resigned]} resigned"
        outcome = self.state.outcome()
        return None if outcome is None else (outcome.winner, outcome.reason)

    def _summary(self) -> None:
        self._show()
        ending = self._ending()
        winner, reason = ending if ending is not None else (None, "")
        if ending is None:
            verdict = "unfinished"
        elif winner is None:
            verdict = f"draw ({reason})"
        else:
            who = self.state.spec.player_names[winner]
            if self.human is not None:
                who += f" ({self._side(winner)})"
            verdict = f"{who} wins ({reason})"
        record = self.initial.clone()
        notation = []
        for move in self.moves:
            notation.append(record.move_to_str(move))
            record.apply(move)
        opt.console.print(f"Result: {verdict} after {opt.counted(len(notation), 'move')}.")
        opt.console.print(f"Moves: {' '.join(notation)}")
        if self.ai_moves:
            average = self.ai_seconds / self.ai_moves
            opt.console.print(f"The AI thought {average:.2f} s a move on average.")
