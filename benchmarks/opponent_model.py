r"""What knowing the opponent is worth: a replica of it consulted at the root.

    python benchmarks/opponent_model.py \
        benchmarks/strength/gomoku8_original_quarter_second.jsonl \
        --out benchmarks/strength/gomoku8_original_replica_model.jsonl

Replays the games of an arena record between our engine (player A) and
another player (B): the same openings, colours and seeds for B. Player A
searches as its spec says, then looks for a trap among its root moves that
are not proven lost, are worth at least the best move's value less
``--margin`` and have at least 5% of its visits (the ``--candidates`` most
visited): a move after which a replica of player B (its own spec, other
seeds) answers with a move that the defaults' solver then proves lost for
B within ``--check`` simulations. It plays the move where the replica fell
into the trap in the most of ``--replicas`` tries, and its search's own
choice where it never did. The new record is an arena record (its header
the old one's, with these settings added as ``replica_model``), with the
number of traps played and of moves in each game (``traps``).

The replica is player B's algorithm itself, so this is a ceiling for any
model of the opponent that looks one reply ahead, not a feature: no model
of a player can predict it better than a copy of it.
"""

from __future__ import annotations

import argparse
import json
import random
from multiprocessing import Pool
from pathlib import Path
from time import perf_counter
from typing import Any

from mctslab import make
from mctslab.arena.match import Tally
from mctslab.arena.spec import parse_player
from mctslab.core.config import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.games import State
from mctslab.players.base import Player
from mctslab.players.mcts import MCTSPlayer


class ReplicaModel:
    """Player A: its own search, then a replica of player B asked for each candidate's reply."""

    def __init__(self, spec: str, opponent: str, seed: int, args: argparse.Namespace) -> None:
        player = parse_player(spec).build(seed)
        if not isinstance(player, MCTSPlayer):
            raise ValueError(f"Player A must be an mcts player. Got {spec!r} instead.")
        self.player = player
        self.opponent = parse_player(opponent)
        self.checker = FastMCTS(SearchConfig(seed=seed))
        self.rng = random.Random(seed)
        self.args = args
        self.moves = self.traps = 0

    def start(self, state: State) -> None:
        self.player.start(state)

    def observe(self, move: int) -> None:
        self.player.observe(move)

    def close(self) -> None:
        self.player.close()

    def choose(self, state: State) -> int:
        result = self.player.analyse(state)
        best = result.moves[0]
        self.moves += 1
        if best.proven == "win":
            return best.move
        candidates = [
            stats
            for stats in result.moves
            if stats.proven != "loss"
            and stats.value >= best.value - self.args.margin
            and stats.visits >= 0.05 * best.visits
        ][: self.args.candidates]
        choice, most = best.move, 0
        for stats in candidates:
            after = state.clone()
            after.apply(stats.move)
            if not after.is_terminal():
                caught = sum(self._falls_into_trap(after) for _ in range(self.args.replicas))
                if caught > most:
                    choice, most = stats.move, caught
        self.traps += choice != best.move
        return choice

    def _falls_into_trap(self, state: State) -> bool:
        """Whether a fresh replica of the opponent answers ``state`` with a move proven lost."""
        replica = self.opponent.build(self.rng.getrandbits(62))
        replica.start(state.clone())
        reply = replica.choose(state.clone())
        replica.close()
        state = state.clone()
        state.apply(reply)
        if state.is_terminal():
            return False
        self.checker.reset()
        proof = self.checker.search(state, Budget(iterations=self.args.check))
        return proof.moves[0].proven == "win"


def replay(job: tuple[dict[str, Any], argparse.Namespace]) -> dict[str, Any]:
    """Play a recorded game again with player A as a :class:`ReplicaModel`."""
    game, args = job
    specs = {player["id"]: player["spec"] for player in game["players"]}
    players: list[Player | ReplicaModel] = [
        ReplicaModel(specs["A"], specs["B"], entry["seed"], args)
        if entry["id"] == "A"
        else parse_player(entry["spec"]).build(entry["seed"])
        for entry in game["players"]
    ]
    state = make(game["game"], **game["params"])
    for player in players:
        player.start(state.clone())
    moves: list[str] = []
    seconds: list[float] = []

    def play(move: int) -> None:
        state.play(move)
        for player in players:
            player.observe(move)

    for text in game["opening"]:
        play(state.parse_move(text))
    while not state.is_terminal():
        began = perf_counter()
        move = players[state.current_player].choose(state.clone())
        seconds.append(round(perf_counter() - began, 6))
        moves.append(state.move_to_str(move))
        play(move)
    outcome = state.outcome()
    assert outcome is not None
    a_seat = [entry["id"] for entry in game["players"]].index("A")
    model = players[a_seat]
    assert isinstance(model, ReplicaModel)
    for player in players:
        player.close()
    return {
        **game,
        "moves": moves,
        "seconds": seconds,
        "result": "1/2-1/2" if outcome.winner is None else ("1-0", "0-1")[outcome.winner],
        "winner": outcome.winner,
        "reason": outcome.reason,
        "score": 0.5 if outcome.winner is None else float(outcome.winner == a_seat),
        "traps": [model.traps, model.moves],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", type=Path, help="an arena record: A our engine, B its opponent")
    parser.add_argument("--out", type=Path, required=True, help="the new record (JSONL)")
    parser.add_argument("--margin", type=float, default=0.2, help="value below the best (0.2)")
    parser.add_argument("--candidates", type=int, default=8, help="moves tried at most (8)")
    parser.add_argument("--replicas", type=int, default=2, help="replies asked per move (2)")
    parser.add_argument("--check", type=int, default=20_000, help="simulations of a proof")
    parser.add_argument("--workers", type=int, default=2, help="games at once (2)")
    args = parser.parse_args()
    lines = [json.loads(line) for line in args.record.read_text().splitlines()]
    games = sorted((g for g in lines if g.get("type") == "game"), key=lambda g: g["index"])
    tally = Tally()
    with args.out.open("w") as out, Pool(args.workers) as pool:
        model = {key: vars(args)[key] for key in ("margin", "candidates", "replicas", "check")}
        out.write(json.dumps({**lines[0], "replica_model": model}) + "\n")
        for game in pool.imap_unordered(replay, [(game, args) for game in games]):
            out.write(json.dumps(game, separators=(",", ":")) + "\n")
            out.flush()
            tally.add(game["pair"], game["score"])
            print(f"game {game['index']}: {game['score']} ({tally.score:.1%} of {tally.games})")
    elo = tally.estimate()
    assert elo is not None
    print(
        f"{tally.wins}-{tally.draws}-{tally.losses}, {tally.score:.1%}, "
        f"Elo {elo.elo:+.0f} [{elo.lower:+.0f}, {elo.upper:+.0f}], pairs {tally.pentanomial()}"
    )


if __name__ == "__main__":
    main()
