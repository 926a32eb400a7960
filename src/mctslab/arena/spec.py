"""Player specifications: ``kind[:key=value,...]`` strings that say who plays and how.

``mcts:seconds=0.5``, ``mcts:iterations=15000,engine=python,c=1.2``,
``random``, ``naive:simulations=2000``, ``human``, ``openspiel:iterations=5000``,
``engine:gomocup=./pbrain-foo``, ``engine:seconds=2,gtp=gnugo --mode gtp``. A spec
is checked when it is parsed, so a typo fails before any game is played, and it
has one canonical text (keys sorted) that the arena records and compares when a
run is resumed.

The ``mcts`` options are read off :class:`~mctslab.core.config.SearchConfig`
and :class:`~mctslab.core.config.Budget` by introspection: an option added
to either works here with no change to this module, its value converted by
its type annotation (int, float, bool, a Literal choice, or None).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union

from mctslab._validation import check_choice, check_float, check_int
from mctslab.core.config import STRENGTH_OPTIONS, Budget, SearchConfig
from mctslab.games._base import State
from mctslab.players.base import Player
from mctslab.players.mcts import ENGINES

#: Every kind of player with a line of help (shown by ``mctslab arena --help``).
KINDS: dict[str, str] = {
    "mcts": (
        "mctslab's MCTS: search options of SearchConfig (c, tree_policy, final_move, seed, "
        "reuse_tree, solver, prove_draws, playout, ...), plain=true for classic UCT (every "
        "strength option off), budget iterations, seconds, max_nodes, memory_mb, "
        "engine=compiled|python, workers=N"
    ),
    "random": "uniformly random legal moves",
    "naive": "the original Gomoku program's design (gomoku only): simulations=N, c=X",
    "human": "a person typing moves at the terminal (needs --workers 1, no --ray)",
    "openspiel": (
        "OpenSpiel's C++ MCTSBot with random rollouts: iterations=N, seconds=X, c=X, solve=BOOL, "
        "memory_mb=N (needs the compare extra)"
    ),
    "engine": (
        "an external engine: engine:gomocup=CMD, engine:gtp=CMD or engine:nboard=CMD, with what "
        "it is told before the protocol: gomocup seconds=X (a turn), match_seconds=X, "
        "memory_mb=N; gtp seconds=N (a move, whole seconds); nboard depth=N"
    ),
}

#: Player settings beside SearchConfig's and Budget's fields; ``plain`` starts
#: from :meth:`SearchConfig.plain` (classic UCT) instead of the defaults.
_MCTS_SETTINGS: dict[str, Any] = {"engine": str, "workers": int, "plain": bool}
_NAIVE_OPTIONS: dict[str, Any] = {"simulations": int, "c": float}
_OPENSPIEL_OPTIONS: dict[str, Any] = {
    "iterations": int,
    "seconds": float,
    "c": float,
    "solve": bool,
    "memory_mb": int,
}
#: External-engine protocols and their player classes in mctslab.protocols.
PROTOCOLS: dict[str, str] = {
    "gomocup": "GomocupEnginePlayer",
    "gtp": "GTPEnginePlayer",
    "nboard": "NBoardEnginePlayer",
}
#: What an external engine of each protocol can be told, written before ``PROTOCOL=COMMAND``.
_ENGINE_OPTIONS: dict[str, dict[str, Any]] = {
    "gomocup": {"seconds": float, "match_seconds": float, "memory_mb": int},
    "gtp": {"seconds": int},
    "nboard": {"depth": int},
}
#: An engine spec's own entries, beside the options it is told.
_ENGINE_KEYS = ("command", "protocol")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def _search_fields() -> dict[str, Any]:
    return typing.get_type_hints(SearchConfig)


def _budget_fields() -> dict[str, Any]:
    return typing.get_type_hints(Budget)


def _describe(annotation: Any) -> str:
    """How a value of type ``annotation`` is written, for error messages."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(arg) for arg in args)
    if origin is Literal:
        return "one of " + ", ".join(repr(arg) for arg in args)
    if annotation is type(None):
        return "none"
    if annotation is bool:
        return "true or false"
    return f"an {annotation.__name__}" if annotation is int else f"a {annotation.__name__}"


def _convert_one(text: str, annotation: Any) -> Any:
    """``text`` as a value of the simple type ``annotation``; ValueError if it is not one."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        for choice in typing.get_args(annotation):
            if text == str(choice):
                return choice
        raise ValueError(text)
    if annotation is type(None):
        if text.lower() == "none":
            return None
        raise ValueError(text)
    if annotation is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(text)
    return annotation(text)  # int, float or str (see _writable)


def _writable(annotation: Any) -> bool:
    """Whether a value of type ``annotation`` can be written as text in a spec."""
    simple = (int, float, str, bool, type(None))
    return annotation in simple or typing.get_origin(annotation) is Literal


def convert(text: str, annotation: Any, key: str, owner: str) -> Any:
    """``text`` converted by ``annotation`` (unions tried in order); a clear ValueError if not."""
    text = text.strip()
    options = (
        typing.get_args(annotation)
        if typing.get_origin(annotation) in (Union, types.UnionType)
        else (annotation,)
    )
    if not all(_writable(option) for option in options):
        raise ValueError(f"The {key!r} option of {owner} cannot be set in a player spec.")
    for option in options:
        try:
            return _convert_one(text, option)
        except ValueError:
            continue
    raise ValueError(
        f"The {key!r} option of {owner} must be {_describe(annotation)}. Got {text!r} instead."
    )


def _format(value: Any) -> str:
    """The canonical text of an option value (the inverse of :func:`convert`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed, checked player specification; :meth:`build` makes the player."""

    kind: str
    #: Typed option values, sorted by key.
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def text(self) -> str:
        """The canonical spec, e.g. ``"mcts:engine=python,iterations=1000"``."""
        if self.kind == "engine":
            values = dict(self.options)
            told = "".join(f"{k}={_format(v)}," for k, v in self.options if k not in _ENGINE_KEYS)
            return f"engine:{told}{values['protocol']}={values['command']}"
        if not self.options:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={_format(v)}" for k, v in self.options)

    def __str__(self) -> str:
        return self.text

    @property
    def interactive(self) -> bool:
        """Whether the player needs this process's terminal (so it cannot run in a worker)."""
        return self.kind == "human"

    @property
    def seeded(self) -> bool:
        """Whether the player takes a seed (an external engine or a person does not)."""
        return self.kind not in ("engine", "human")

    @property
    def base_seed(self) -> int | None:
        """The spec's own ``seed`` option: its per-game seeds derive from it, not the run's."""
        seed = dict(self.options).get("seed")
        return None if seed is None else int(seed)

    def with_option(self, key: str, value: str) -> PlayerSpec:
        """This spec with ``key`` set to ``value`` (checked as any spec is)."""
        raw = {k: _format(v) for k, v in self.options if k not in _ENGINE_KEYS}
        raw[key.strip().replace("-", "_")] = value
        if self.kind == "engine":
            values = dict(self.options)
            protocol, command = str(values["protocol"]), str(values["command"])
            return _checked_engine(protocol, command, raw, f"engine:{key}={value}")
        return _checked(self.kind, raw, f"{self.kind}:{key}={value}")

    def check_game(self, state: State) -> None:
        """Raise ValueError if this player cannot play the game of ``state``."""
        name = state.spec.name
        if self.kind == "naive" and name != "gomoku":
            raise ValueError(f"The naive player plays gomoku only; the game is {name}.")
        if self.kind == "openspiel":
            from mctslab.players.openspiel import game_string, pyspiel

            try:
                pyspiel()
            except ImportError as error:
                raise ValueError(str(error)) from None
            game_string(state.spec)
        if self.kind == "engine":
            protocol = str(dict(self.options)["protocol"])
            games = _protocol_games(protocol)
            if name not in games:
                raise ValueError(
                    f"The {protocol} protocol speaks {', '.join(games)}; the game is {name}."
                )
            if protocol == "gtp":
                from mctslab.protocols.gtp import check_playable

                check_playable(state)

    def build(self, seed: int | None = None) -> Player:
        """A new player; ``seed`` (when given) seeds its searches instead of the spec's own."""
        options = dict(self.options)
        if seed is None:
            seed = self.base_seed
        if self.kind == "mcts":
            return _build_mcts(options, seed)
        if self.kind == "random":
            from mctslab.players.random_player import RandomPlayer

            return RandomPlayer(seed)
        if self.kind == "naive":
            from mctslab.players.naive_gomoku import NaiveGomokuPlayer

            return NaiveGomokuPlayer(**options, seed=seed)
        if self.kind == "human":
            from mctslab.players.human import HumanPlayer

            return HumanPlayer()
        if self.kind == "openspiel":
            from mctslab.players.openspiel import OpenSpielPlayer, pyspiel

            pyspiel()  # a clear message when OpenSpiel is missing
            return OpenSpielPlayer(**options, seed=seed)
        return _build_engine(options)


def _config(options: dict[str, Any], config_options: dict[str, Any]) -> SearchConfig:
    """The search settings of an mcts spec: the defaults, or plain UCT with ``plain=true``."""
    if options.get("plain", False):
        return SearchConfig.plain(**config_options)
    return SearchConfig(**config_options)


def _build_mcts(options: dict[str, Any], seed: int | None) -> Player:
    from mctslab.players.mcts import MCTSPlayer

    budget_keys = _budget_fields()
    budget = Budget(**{k: v for k, v in options.items() if k in budget_keys})
    config_options = {k: v for k, v in options.items() if k in _search_fields()}
    config_options["seed"] = seed
    return MCTSPlayer(
        str(options.get("engine", "compiled")),
        _config(options, config_options),
        budget.effective(),
        workers=int(options.get("workers", 1)),
    )


def _protocol_games(protocol: str) -> tuple[str, ...]:
    """The games an external engine of ``protocol`` can play."""
    if protocol == "gtp":
        from mctslab.protocols.gtp import GAMES

        return GAMES
    return ("gomoku",) if protocol == "gomocup" else ("othello",)


def _build_engine(options: dict[str, Any]) -> Player:
    """The external engine of a spec, with what the spec says it is told."""
    from mctslab import protocols

    protocol, command = str(options["protocol"]), str(options["command"])
    told: dict[str, Any] = {}
    if protocol == "gomocup":
        if "seconds" in options:
            told["timeout_turn_ms"] = round(options["seconds"] * 1000)
        if "match_seconds" in options:
            told["timeout_match_ms"] = round(options["match_seconds"] * 1000)
        if "memory_mb" in options:
            told["max_memory_bytes"] = options["memory_mb"] * 2**20
    elif protocol == "gtp" and "seconds" in options:
        told["seconds_per_move"] = float(options["seconds"])
    elif protocol == "nboard" and "depth" in options:
        told["depth"] = options["depth"]
    player: Player = getattr(protocols, PROTOCOLS[protocol])(command, **told)
    return player


def parse_player(text: str) -> PlayerSpec:
    """The spec ``text`` parsed and checked; ValueError naming the problem otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"A player spec must be a non-empty string. Got {text!r} instead.")
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise ValueError(
            f"Unknown player kind {kind!r} in {text!r}; kinds: {', '.join(KINDS)}. "
            "Write kind:key=value,key=value, e.g. mcts:seconds=0.5."
        )
    if kind == "engine":
        return _engine_spec(text, rest)
    raw: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not equals or not key:
            raise ValueError(f"Player spec {text!r}: {item!r} is not key=value.")
        if key in raw:
            raise ValueError(f"Player spec {text!r} gives {key!r} twice.")
        raw[key] = value
    return _checked(kind, raw, text)


def _engine_spec(text: str, rest: str) -> PlayerSpec:
    """``engine:[KEY=VALUE,...]PROTOCOL=COMMAND``: the command is all that follows the protocol,
    commas included, so the options it is told come first."""
    raw: dict[str, str] = {}
    while True:
        item, comma, after = rest.partition(",")
        key, equals, value = item.partition("=")
        key = key.strip().lower().replace("-", "_")
        if key in PROTOCOLS and equals:
            protocol, command = key, rest.partition("=")[2].strip()
            break
        if not (comma and equals and key):
            raise ValueError(
                f"Player spec {text!r}: write engine:PROTOCOL=COMMAND with PROTOCOL one of "
                f"{', '.join(PROTOCOLS)}, e.g. engine:gomocup=./pbrain-foo, and what the engine "
                "is told before it, e.g. engine:seconds=2,gomocup=./pbrain-foo."
            )
        if key in raw:
            raise ValueError(f"Player spec {text!r} gives {key!r} twice.")
        raw[key], rest = value, after
    if not command:
        raise ValueError(f"Player spec {text!r}: the {protocol} engine's command is missing.")
    return _checked_engine(protocol, command, raw, text)


def _checked_engine(protocol: str, command: str, raw: dict[str, str], text: str) -> PlayerSpec:
    """The spec of an external engine with the raw options it is told converted and validated."""
    owner = f"the {protocol} engine"
    values = _converted(
        raw, _ENGINE_OPTIONS[protocol], owner, owner, text, lambda v: _validate_engine(protocol, v)
    )
    values.update(command=command, protocol=protocol)
    return PlayerSpec("engine", tuple(sorted(values.items())))


def _validate_engine(protocol: str, values: dict[str, Any]) -> None:
    """Raise ValueError if what an external engine of ``protocol`` is told is out of range."""
    owner = f"the {protocol} engine"
    if protocol == "gomocup":
        # Gomocup counts milliseconds, and 0 means "as fast as you can" or "no limit".
        for key in ("seconds", "match_seconds"):
            if key in values:
                check_float(values[key], key, owner, low=0.001, low_inclusive=True)
        if "memory_mb" in values:
            check_int(values["memory_mb"], "memory_mb", owner, low=1)
    elif protocol == "gtp" and "seconds" in values:
        check_int(values["seconds"], "seconds", owner, low=1)
    elif protocol == "nboard" and "depth" in values:
        from mctslab.protocols.nboard import MAX_DEPTH

        check_int(values["depth"], "depth", owner, low=1, high=MAX_DEPTH)


def _accepted(kind: str) -> dict[str, Any]:
    """The options of ``kind`` with their types."""
    if kind == "mcts":
        return {**_search_fields(), **_budget_fields(), **_MCTS_SETTINGS}
    if kind == "naive":
        return _NAIVE_OPTIONS
    if kind == "openspiel":
        return _OPENSPIEL_OPTIONS
    return {}


def _checked(kind: str, raw: dict[str, str], text: str) -> PlayerSpec:
    """The spec of ``kind`` with the raw ``key -> text`` options converted and validated."""
    values = _converted(
        raw, _accepted(kind), f"the {kind} player", kind, text, lambda v: _validate(kind, v)
    )
    return PlayerSpec(kind, tuple(sorted(values.items())))


def _converted(
    raw: dict[str, str],
    accepted: dict[str, Any],
    owner: str,
    taker: str,
    text: str,
    validate: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """``raw``'s options converted by their types in ``accepted`` and checked by ``validate``;
    every error names the spec ``text``."""
    for key in raw:
        if key not in accepted:
            listed = ", ".join(accepted) if accepted else "none"
            raise ValueError(
                f"Player spec {text!r}: unknown option {key!r}; {taker} takes {listed}."
            )
    try:
        values = {key: convert(value, accepted[key], key, owner) for key, value in raw.items()}
        validate(values)
    except (ValueError, TypeError) as error:
        raise ValueError(f"Player spec {text!r}: {error}") from None
    return values


def _validate(kind: str, values: dict[str, Any]) -> None:
    """Raise ValueError if the options of a ``kind`` player are out of range."""
    if kind == "mcts":
        budget_keys, search_keys = _budget_fields(), _search_fields()
        Budget(**{k: v for k, v in values.items() if k in budget_keys})
        _config(values, {k: v for k, v in values.items() if k in search_keys})
        engine = check_choice(values.get("engine", "compiled"), "engine", "mcts", ENGINES)
        workers = check_int(values.get("workers", 1), "workers", "mcts", low=1)
        if engine == "python" and workers != 1:
            raise ValueError("The python engine searches on one thread; use engine=compiled.")
        ignored = [key for key in STRENGTH_OPTIONS if key in values]
        if engine == "python" and ignored:
            raise ValueError(
                f"The python engine runs plain UCT and has no {', '.join(ignored)}; "
                "use engine=compiled."
            )
    elif kind == "naive":
        if "simulations" in values:
            check_int(values["simulations"], "simulations", "naive", low=1)
        if "c" in values:
            check_float(values["c"], "c", "naive", low=0.0, low_inclusive=True)
    elif kind == "openspiel":
        from mctslab.players.openspiel import check_bot_options

        check_bot_options(**{k: v for k, v in values.items() if k != "solve"})
