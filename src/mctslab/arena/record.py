"""The run's record: a JSONL file, a header line then one line per finished game.

Each game is appended the moment it ends and forced to disk (flush and
fsync), so an interrupted run (Ctrl-C, a crash, ``kill -9``) loses at most
the games still being played. The same command run again reads the record
and plays only the missing games: games are keyed by ``(sweep point,
index)`` and a key already recorded is never played or counted again. A
last line cut short by the interruption is dropped (and cut off the file
before anything is appended). A record written by another match (other
players, game, openings, sweep or seed) is refused rather than mixed,
unless it holds no game yet; so is a record another run has open (an
advisory lock, where the system has them). A sweep may be extended: the same
command with values added at the end of ``--sweep`` plays the new points into
the same record.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

import numpy as np

from mctslab import __version__

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

FORMAT = "mctslab-arena"
VERSION = 1


class RecordMismatchError(ValueError):
    """The record belongs to a different match than the command asks for."""


class RecordInUseError(ValueError):
    """Another run holds the record."""


def default_path(game: str, identity: dict[str, Any], seed: int | None) -> Path:
    """``arena-<game>-<digest>.jsonl``: the same command finds its own record again.

    A sweep may gain values at the end of its list and play them into its
    record: where no record of the whole list is there, the record named by
    its longest leading part whose values (perhaps gained since) still lead
    the list is the sweep's. Sweeps of other values get records of their own;
    a sweep shorter than the record named by it is refused by
    :meth:`RunRecord.open` (name another record with ``--out``).
    """
    own = _digest_path(game, identity, seed)
    sweep = identity.get("sweep")
    if sweep is not None and not own.exists():
        values = json.loads(json.dumps(sweep["values"]))  # as a header holds them
        for kept in range(len(values) - 1, 0, -1):
            part = {**sweep, "values": values[:kept]}
            path = _digest_path(game, {**identity, "sweep": part}, seed)
            # The record of a part may have gained other values since: this sweep's only
            # while they lead its own.
            recorded = _recorded_values(path)
            if recorded is not None and values[: len(recorded)] == recorded:
                return path
    return own


def _recorded_values(path: Path) -> list[Any] | None:
    """The sweep values in the header of the record at ``path``; None where there is none."""
    try:
        with path.open("rb") as handle:
            header = json.loads(handle.readline())
        return list(header["match"]["sweep"]["values"])
    except (OSError, ValueError, LookupError, TypeError):
        return None


def _digest_path(game: str, identity: dict[str, Any], seed: int | None) -> Path:
    key = json.dumps({"match": identity, "seed": seed}, sort_keys=True)
    return Path(f"arena-{game}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.jsonl")


def fresh_seed() -> int:
    """A run seed from fresh entropy (recorded in the header, so a resumed run reuses it)."""
    return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


class RunRecord:
    """An open record: the header's seed, the games already played, and appending."""

    def __init__(
        self, path: Path, header: dict[str, Any], games: list[dict[str, Any]], file: IO[str]
    ) -> None:
        self.path = path
        self.header = header
        self._games: dict[tuple[int, int], dict[str, Any]] = {}
        for entry in games:
            self._games.setdefault((int(entry["sweep"]), int(entry["index"])), entry)
        #: Open for appending and locked against other runs until :meth:`close`.
        self._file: IO[str] | None = file

    @classmethod
    def open(cls, path: Path, identity: dict[str, Any], seed: int | None) -> Self:
        """Resume the record at ``path`` for this match, or start it.

        ``seed`` is the seed the command gives (None: the record's, or fresh).
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        file: IO[str] = path.open("a", encoding="utf-8")
        try:
            _lock(file, path)
            if path.stat().st_size > 0:
                header, games = _read(path)
                if games:
                    if _extends_sweep(header, identity, seed):
                        header = {**header, "match": identity}
                        file = _rewrite_header(path, file, header)
                    else:
                        _check_same_match(path, header, identity, seed)
                    return cls(path, header, games, file)
                # A run that failed before its first game (an engine that would not start)
                # left only a header: nothing is lost by starting the record afresh.
                file.truncate(0)
                seed = header["seed"] if seed is None else seed
            header = {
                "type": "header",
                "format": FORMAT,
                "version": VERSION,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
                "match": identity,
                "seed": fresh_seed() if seed is None else seed,
                "mctslab": __version__,
            }
            record = cls(path, header, [], file)
            record._write(header)
            return record
        except BaseException:
            file.close()
            raise

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    def games(self, sweep: int = 0) -> dict[int, dict[str, Any]]:
        """The recorded games of sweep point ``sweep`` by index, in the order they finished."""
        return {index: entry for (point, index), entry in self._games.items() if point == sweep}

    def append(self, entry: dict[str, Any]) -> None:
        """Record a finished game, on disk before this returns; a key seen before is ignored."""
        key = (int(entry["sweep"]), int(entry["index"]))
        if key in self._games:
            return
        self._games[key] = entry
        self._write(entry)

    def _write(self, entry: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError(f"The record {self.path} is closed.")
        self._file.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _lock(file: IO[str], path: Path) -> None:
    """Hold ``path`` for this run: a second run on it would play and record the same games."""
    if fcntl is None:  # Windows: no advisory locks; one run a record is the user's care
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RecordInUseError(
            f"{path} is in use by another arena run; wait for it to end, or give another --out."
        ) from None


def _read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and game entries of ``path``; a cut-short last line is removed from the file.

    A file whose first line is no record header is refused before anything is
    cut from it: ``--out`` may name some other file by mistake.
    """
    data = path.read_bytes()
    header_end = data.find(b"\n")
    try:
        header = json.loads(data[:header_end]) if header_end >= 0 else None
    except ValueError:  # not JSON, or not text at all
        header = None
    if (
        not isinstance(header, dict)
        or header.get("type") != "header"
        or header.get("format") != FORMAT
    ):
        raise ValueError(f"{path} is not an mctslab arena record; choose another --out.")
    if header.get("version") != VERSION:
        raise ValueError(
            f"{path} is an arena record of version {header.get('version')!r}; "
            f"this mctslab writes version {VERSION}."
        )
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        # The last write was cut short (the process was killed mid-line): drop it.
        with path.open("r+b") as handle:
            handle.truncate(len(complete))
    entries = []
    # Line by line, so that a line that is not UTF-8 is named as any other bad line is.
    for number, line in enumerate(complete.splitlines()[1:], start=2):
        if not line.strip():  # an editor's blank line holds no game
            continue
        try:
            entries.append(json.loads(line.decode("utf-8")))
        except UnicodeDecodeError as error:
            raise ValueError(
                f"{path}:{number} is not a JSON line (byte 0x{line[error.start]:02x} is not UTF-8)."
            ) from None
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number} is not a JSON line ({error}).") from None
        if not isinstance(entries[-1], dict):
            raise ValueError(f"{path}:{number} is not a JSON object, as a record's lines are.")
    return header, [entry for entry in entries if entry.get("type") == "game"]


def _extends_sweep(header: dict[str, Any], identity: dict[str, Any], seed: int | None) -> bool:
    """Whether ``identity`` is the recorded match with values added at the end of its sweep.

    The recorded points keep their place (games are keyed by point), so their
    games stay valid and the new points are played as any missing game is.
    """
    recorded = header.get("match", {})
    old, new = recorded.get("sweep"), identity.get("sweep")
    return (
        _differing(recorded, identity) == ["sweep"]
        and (seed is None or seed == header.get("seed"))
        and isinstance(old, dict)
        and isinstance(new, dict)
        and old.get("key") == new.get("key")
        and len(new["values"]) > len(old["values"])
        and new["values"][: len(old["values"])] == old["values"]
    )


def _rewrite_header(path: Path, file: IO[str], header: dict[str, Any]) -> IO[str]:
    """``path`` with ``header`` as its first line, replaced whole (never half written); the
    record's file open for appending and locked again."""
    data = path.read_bytes()
    staged = path.with_name(path.name + ".new")
    with staged.open("wb") as out:
        out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")
        out.write(data[data.find(b"\n") + 1 :])
        out.flush()
        os.fsync(out.fileno())
    if fcntl is None:  # Windows replaces no file that is open, and has no lock to keep
        file.close()
        os.replace(staged, path)
    else:  # the lock holds the old file until the new one is in its place
        os.replace(staged, path)
        file.close()
    reopened = path.open("a", encoding="utf-8")
    try:
        _lock(reopened, path)
    except BaseException:
        reopened.close()
        raise
    return reopened


def _check_same_match(
    path: Path, header: dict[str, Any], identity: dict[str, Any], seed: int | None
) -> None:
    recorded = header.get("match", {})
    differences = [
        f"{key}: the record has {json.dumps(recorded.get(key))}, "
        f"the command {json.dumps(identity.get(key))}"
        for key in _differing(recorded, identity)
    ]
    if seed is not None and seed != header.get("seed"):
        differences.append(f"seed: the record has {header.get('seed')}, the command {seed}")
    if differences:
        raise RecordMismatchError(
            f"{path} records a different match, so this command cannot resume it "
            f"({'; '.join(differences)}). Run the same command as the record's (a sweep "
            "may gain values at the end of its list), or give another --out."
        )


def _differing(recorded: dict[str, Any], identity: dict[str, Any]) -> list[str]:
    """The keys, sorted, where a record's match and the command's differ."""
    return [
        key
        for key in sorted(set(recorded) | set(identity))
        if recorded.get(key) != identity.get(key)
    ]
