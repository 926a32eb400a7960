"""The arena: matches between players, with Elo, SPRT and a resumable record.

``mctslab arena tictactoe --player mcts:iterations=2000 --player random --games 20``
plays pairs of games from one opening with colours swapped, reports player
A's score and Elo difference with its 95% interval (and an SPRT when asked),
and appends every finished game to a JSONL record from which an interrupted
run resumes. The same :func:`run_match` runs in this process, on a local
process pool or on a Ray cluster. From Python, :func:`play_games` plays
games between two players of one's own (an :class:`~mctslab.players.MCTSPlayer`
with one's own engine, say) with colours alternated, of a bundled game or
from a position of a compiled game of one's own (a ``State``: see
:mod:`mctslab.kernel`).
"""

from mctslab.arena.backends import Backend, InProcess, ProcessPool, RayCluster
from mctslab.arena.game import GameFailed, GameTask, play_game, play_games
from mctslab.arena.match import Match, PointResult, Sweep, Tally, run_match
from mctslab.arena.openings import FileOpenings, Openings, RandomOpenings, StartPosition
from mctslab.arena.record import RecordMismatchError, RunRecord, default_path
from mctslab.arena.spec import KINDS, PlayerSpec, parse_player
from mctslab.arena.stats import SPRT, EloEstimate, elo_estimate, expected_score, logistic_elo

__all__ = [
    "KINDS",
    "SPRT",
    "Backend",
    "EloEstimate",
    "FileOpenings",
    "GameFailed",
    "GameTask",
    "InProcess",
    "Match",
    "Openings",
    "PlayerSpec",
    "PointResult",
    "ProcessPool",
    "RandomOpenings",
    "RayCluster",
    "RecordMismatchError",
    "RunRecord",
    "StartPosition",
    "Sweep",
    "Tally",
    "default_path",
    "elo_estimate",
    "expected_score",
    "logistic_elo",
    "parse_player",
    "play_game",
    "play_games",
    "run_match",
]
