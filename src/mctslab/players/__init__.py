"""Players: who chooses the moves (an MCTS engine, a random mover, a person)."""

from mctslab.players.base import Player
from mctslab.players.mcts import ENGINES, MCTSPlayer, new_engine
from mctslab.players.random_player import RandomPlayer

__all__ = ["ENGINES", "MCTSPlayer", "Player", "RandomPlayer", "new_engine"]
