r"""What a perfect model of the opponent's replies is worth, consulted at the root.

    python benchmarks/opponent_model.py \
        benchmarks/strength/gomoku8_original_quarter_second.jsonl \
        --out benchmarks/strength/gomoku8_original_replica_model.jsonl

Replays the games of an arena record between our engine (player A) and
another player (B): the same openings, colours and seeds for B. Player A
searches as its spec says, then looks for a trap among its root moves that
are not proven lost, are worth at least the best move's value less
``--margin`` and have at least ``--share`` of its visits (the
``--candidates`` most visited): a move after which a replica of player B
(its own spec, other seeds) answers with a move that the defaults' solver
then proves lost for B within ``--check`` simulations. With ``--check 0``
the test is instead whether the game's ``winning_move`` (for Gomoku five,
or an open or double four the opponent cannot meet) is there for A after
the reply, and a candidate after which no reply at all leaves one is not
tried. ``--choose catches`` plays the move where the replica fell into the
trap in the most of ``--replicas`` tries, and the search's own choice where
it never did; ``--choose expected`` plays the move worth the most against
the replica: the share ``p`` of tries caught, counted as wins, plus ``1 -
p`` times the move's value in the search (the best move tried too). The
new record is an arena record (its header the old one's, with its own time
and these settings as ``replica_model``); each game counts the moves where
the model changed the search's choice, and all of A's moves (``changed``).

The replica is player B's algorithm itself: the distribution of its
replies is B's exactly (only B's seed, which fixes its every move, is not
known to it). This measures one way of using such a model, not a feature.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from mctslab.arena.game import GameTask, play_game
from mctslab.arena.match import Tally
from mctslab.arena.spec import PlayerSpec, parse_player
from mctslab.core.config import Budget, SearchConfig
from mctslab.fast import FastMCTS
from mctslab.games import State
from mctslab.players.base import Player
from mctslab.players.mcts import MCTSPlayer


@dataclass(frozen=True)
class Settings:
    """Which root moves are tried, how often the replica is asked, how hard a proof is sought."""

    margin: float = 0.2
    candidates: int = 8
    replicas: int = 2
    check: int = 20_000
    share: float = 0.05
    choose: str = "catches"


class ReplicaModel:
    """Player A: its own search, then a replica of player B asked for each candidate's reply."""

    name = "replica-model"

    def __init__(self, spec: str, opponent: str, seed: int, settings: Settings) -> None:
        player = parse_player(spec).build(seed)
        if not isinstance(player, MCTSPlayer):
            raise ValueError(f"Player A must be an mcts player. Got {spec!r} instead.")
        self.player = player
        self.opponent = parse_player(opponent)
        self.rng = random.Random(seed)
        self.checker = FastMCTS(SearchConfig(seed=self.rng.getrandbits(62)))
        self.settings = settings
        self.moves = self.changed = 0

    def start(self, state: State) -> None:
        self.player.start(state)

    def observe(self, move: int) -> None:
        self.player.observe(move)

    def close(self) -> None:
        self.player.close()

    def choose(self, state: State) -> int:
        result = self.player.analyse(state)
        best = next(stats for stats in result.moves if stats.move == result.best_move)
        self.moves += 1
        if best.proven == "win":
            return best.move
        candidates = [
            stats
            for stats in result.moves
            if stats.proven != "loss"
            and stats.value >= best.value - self.settings.margin
            and stats.visits >= self.settings.share * best.visits
        ][: self.settings.candidates]
        choice, most = best.move, 0.0
        if self.settings.choose == "expected":
            most = best.value
        for stats in candidates:
            after = state.clone()
            after.apply(stats.move)
            if after.is_terminal() or (self.settings.check == 0 and not _some_reply_loses(after)):
                continue
            tries = self.settings.replicas
            caught = sum(self._falls_into_trap(after) for _ in range(tries)) / tries
            worth = caught
            if self.settings.choose == "expected":
                worth = caught + (1 - caught) * stats.value
            if worth > most:
                choice, most = stats.move, worth
        self.changed += choice != best.move
        return choice

    def _falls_into_trap(self, state: State) -> bool:
        """Whether a fresh replica of the opponent answers ``state`` with a losing move."""
        replica = self.opponent.build(self.rng.getrandbits(62))
        replica.start(state.clone())
        reply = replica.choose(state.clone())
        replica.close()
        state = state.clone()
        state.apply(reply)
        if state.is_terminal():
            return False
        if self.settings.check == 0:
            return _has_winning_move(state)
        self.checker.reset()
        proof = self.checker.search(state, Budget(iterations=self.settings.check))
        return proof.moves[0].proven == "win"


def _has_winning_move(state: State) -> bool:
    """Whether the game's ``winning_move`` finds one for the player to move."""
    return bool(state.kernel.winning_move(state.data.copy()) >= 0)


def _some_reply_loses(state: State) -> bool:
    """Whether some reply to ``state`` leaves the other player a ``winning_move``."""
    for reply in state.legal_moves():
        after = state.clone()
        after.apply(reply)
        if not after.is_terminal() and _has_winning_move(after):
            return True
    return False


def replay(job: tuple[dict[str, Any], Settings]) -> dict[str, Any]:
    """Play a recorded game again with player A as a :class:`ReplicaModel`."""
    game, settings = job
    specs = {player["id"]: player for player in game["players"]}
    models: list[ReplicaModel] = []

    def build(player_id: str, spec: PlayerSpec, seed: int | None) -> Player:
        if player_id == "B":
            return spec.build(seed)
        assert seed is not None
        models.append(ReplicaModel(spec.text, specs["B"]["spec"], seed, settings))
        return models[-1]

    task = GameTask(
        game=game["game"],
        params=game["params"],
        players=(specs["A"]["spec"], specs["B"]["spec"]),
        seeds=(specs["A"]["seed"], specs["B"]["seed"]),
        index=game["index"],
        a_seat=[player["id"] for player in game["players"]].index("A"),
        opening=tuple(game["opening"]),
        sweep=game["sweep"],
        sweep_value=game["sweep_value"],
        run_seed=game["run_seed"],
    )
    entry = play_game(task, build=build)
    (model,) = models
    return {**entry, "changed": [model.changed, model.moves]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", type=Path, help="an arena record: A our engine, B its opponent")
    parser.add_argument("--out", type=Path, required=True, help="the new record (JSONL)")
    parser.add_argument("--margin", type=float, default=0.2, help="value below the best (0.2)")
    parser.add_argument("--candidates", type=int, default=8, help="moves tried at most (8)")
    parser.add_argument("--replicas", type=int, default=2, help="replies asked per move (2)")
    parser.add_argument(
        "--check", type=int, default=20_000, help="simulations of a proof; 0: winning_move (20000)"
    )
    parser.add_argument("--share", type=float, default=0.05, help="visits of the best's (0.05)")
    parser.add_argument(
        "--choose", choices=("catches", "expected"), default="catches", help="rule (catches)"
    )
    parser.add_argument("--workers", type=int, default=2, help="games at once (2)")
    args = parser.parse_args()
    settings = Settings(
        args.margin, args.candidates, args.replicas, args.check, args.share, args.choose
    )
    lines = [json.loads(line) for line in args.record.read_text().splitlines()]
    games = sorted((g for g in lines if g.get("type") == "game"), key=lambda g: g["index"])
    header = {
        **lines[0],
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "replica_model": asdict(settings),
    }
    tally = Tally()
    with args.out.open("w") as out, Pool(args.workers) as pool:
        out.write(json.dumps(header) + "\n")
        for game in pool.imap_unordered(replay, [(game, settings) for game in games]):
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
