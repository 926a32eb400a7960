"""A match between two players: pairs of games, a running tally, SPRT, sweeps.

Games come in pairs from one opening with colours swapped: game ``2p`` has
player A moving first, game ``2p + 1`` player B, both from pair ``p``'s
opening. Scores are player A's. With a sweep, one option of player A takes
each listed value in turn and every value plays a full match against B
(the same openings and seeds at every point, so the points differ only by
the option).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from mctslab.arena.backends import Backend
from mctslab.arena.game import GameFailed, GameTask, game_seeds
from mctslab.arena.openings import Openings
from mctslab.arena.record import RunRecord
from mctslab.arena.spec import PlayerSpec
from mctslab.arena.stats import SPRT, EloEstimate, elo_estimate, pentanomial

#: Fewer pairs than this and no interval or LOS is shown: the normal approximation
#: behind them wants dozens of pairs (two pairs of a win and a loss each gave +0 +/- 17).
FEW_PAIRS = 20


@dataclass
class Tally:
    """Player A's results so far: games by outcome, pairs by total, in finishing order."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: ``(pair, score)`` of every game in the order it finished.
    results: list[tuple[int, float]] = field(default_factory=list)
    #: The first game's score of each pair still waiting for its partner.
    _open_pairs: dict[int, float] = field(default_factory=dict)
    _pair_counts: list[int] = field(default_factory=lambda: [0] * 5)

    def add(self, pair: int, score: float) -> None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        elif score == 0.0:
            self.losses += 1
        else:
            raise ValueError(f"A game's score must be 0, 0.5 or 1. Got {score!r} instead.")
        self.results.append((pair, score))
        first = self._open_pairs.pop(pair, None)
        if first is None:
            self._open_pairs[pair] = score
        else:
            counts = pentanomial([first + score])
            self._pair_counts = [a + b for a, b in zip(self._pair_counts, counts, strict=True)]

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Player A's mean score per game (1/2 before any game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def trinomial(self) -> list[int]:
        """``(L, D, W)`` counts."""
        return [self.losses, self.draws, self.wins]

    def pentanomial(self) -> list[int]:
        """``(LL, LD, LW+DD, DW, WW)`` counts over the pairs with both games played."""
        return list(self._pair_counts)

    @property
    def interval_holds(self) -> bool:
        """Whether there are pairs enough (:data:`FEW_PAIRS`) to show the interval and LOS."""
        return sum(self._pair_counts) >= FEW_PAIRS

    def estimate(self) -> EloEstimate | None:
        """Elo with its 95% interval: from the pairs once one is complete, else from the games."""
        pairs = self.pentanomial()
        if sum(pairs):
            return elo_estimate(pairs)
        return elo_estimate(self.trinomial()) if self.games else None


@dataclass(frozen=True)
class Sweep:
    """Player A's option ``key`` taking each of ``values`` in turn."""

    key: str
    values: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Sweep:
        """``"iterations=1000,4000,16000"``."""
        key, equals, rest = text.partition("=")
        values = tuple(v.strip() for v in rest.split(",") if v.strip())
        if not equals or not key.strip() or not values:
            raise ValueError(
                f"--sweep takes KEY=V1,V2,... (an option of the first player), e.g. "
                f"iterations=1000,4000,16000. Got {text!r} instead."
            )
        return cls(key.strip().replace("-", "_"), values)

    def label(self, value: str | None) -> str:
        """How the point where the option is ``value`` is named: ``"iterations=4000"``."""
        return f"{self.key}={value}"


@dataclass(frozen=True)
class Match:
    """What is played: the game, the players, the openings, how many games, and when to stop."""

    game: str
    params: dict[str, Any]
    players: tuple[PlayerSpec, PlayerSpec]
    openings: Openings
    games: int
    sprt: SPRT | None = None
    sweep: Sweep | None = None

    def points(self) -> list[tuple[str | None, PlayerSpec]]:
        """``(swept value, player A)`` at each sweep point (one point, None, without a sweep)."""
        if self.sweep is None:
            return [(None, self.players[0])]
        points: list[tuple[str | None, PlayerSpec]] = [
            (v, self.players[0].with_option(self.sweep.key, v)) for v in self.sweep.values
        ]
        first: dict[str, str | None] = {}
        for value, spec in points:
            if spec.text in first:
                raise ValueError(
                    f"--sweep values must differ: {first[spec.text]} and {value} are the same "
                    f"player ({spec.text})."
                )
            first[spec.text] = value
        return points

    def title(self) -> str:
        """``"game: A = spec vs B = spec"``; a swept option is named, not given its base value."""
        a, b = self.players
        if self.sweep is None:
            return f"{self.game}: A = {a.text} vs B = {b.text}"
        key = self.sweep.key
        base = replace(a, options=tuple((k, v) for k, v in a.options if k != key))
        return f"{self.game}: A = {base.text} with {key} swept vs B = {b.text}"

    def identity(self) -> dict[str, Any]:
        """What a record must match to be resumed by this match (as JSON would return it)."""
        identity = {
            "game": self.game,
            "params": self.params,
            "players": [spec.text for spec in self.players],
            "openings": self.openings.identity(),
            "sweep": None
            if self.sweep is None
            else {"key": self.sweep.key, "values": list(self.sweep.values)},
        }
        loaded: dict[str, Any] = json.loads(json.dumps(identity))
        return loaded


@dataclass
class PointResult:
    """The outcome of one sweep point (or of the whole match without a sweep)."""

    sweep_value: str | None
    player: PlayerSpec
    tally: Tally
    llr: float | None = None
    verdict: str | None = None


#: Called after each game with its entry and the point's result so far.
OnGame = Callable[[dict[str, Any], PointResult], None]


def run_match(
    match: Match,
    record: RunRecord,
    backend: Backend,
    *,
    on_game: OnGame | None = None,
    on_point: Callable[[PointResult], None] | None = None,
) -> list[PointResult]:
    """Play what the record lacks of ``match`` and return every point's result.

    Games already in the record count and are not played again; an SPRT that
    has decided stops its point (at once when the record already decides it).
    ``on_point`` is called as each point starts, with the games it already has.
    """
    results = []
    for point, (value, player) in enumerate(match.points()):
        result = _resume(match, record, point, value, player)
        if on_point is not None:
            on_point(result)
        if result.verdict is None:
            tasks = _tasks(match, record, point, value, player)
            try:
                for entry in backend.play(tasks):
                    record.append(entry)
                    result.tally.add(int(entry["pair"]), float(entry["score"]))
                    _update_sprt(match, result)
                    if on_game is not None:
                        on_game(entry, result)
                    if result.verdict is not None:
                        break
            except GameFailed as error:
                if match.sweep is None:
                    raise
                # Every point numbers its games from 1: say which point, as its progress does.
                raise GameFailed(f"{match.sweep.label(value)}, {error}") from None
        results.append(result)
    return results


def _resume(
    match: Match, record: RunRecord, point: int, value: str | None, player: PlayerSpec
) -> PointResult:
    """The point's result from the games the record already has."""
    result = PointResult(value, player, Tally())
    for entry in record.games(point).values():
        if int(entry["index"]) < match.games:
            result.tally.add(int(entry["pair"]), float(entry["score"]))
    _update_sprt(match, result)
    return result


def _update_sprt(match: Match, result: PointResult) -> None:
    if match.sprt is not None:
        result.llr = match.sprt.llr(result.tally.pentanomial())
        result.verdict = match.sprt.verdict(result.llr)


def _tasks(
    match: Match, record: RunRecord, point: int, value: str | None, player: PlayerSpec
) -> Iterator[GameTask]:
    """The point's games that the record lacks, made as the backend asks for them."""
    done = record.games(point)
    specs = (player, match.players[1])
    for index in range(match.games):
        if index in done:
            continue
        partner = done.get(index ^ 1)
        opening = (
            tuple(partner["opening"])
            if partner is not None
            else match.openings.opening(index // 2, record.seed)
        )
        yield GameTask(
            game=match.game,
            params=match.params,
            players=(specs[0].text, specs[1].text),
            seeds=game_seeds(record.seed, index, specs),
            index=index,
            a_seat=index % 2,
            opening=opening,
            sweep=point,
            sweep_value=value,
            run_seed=record.seed,
        )
