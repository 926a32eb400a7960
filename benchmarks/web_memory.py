r"""The web board's resident memory over many games: does it come back when games end?

    PYTHONPATH=src python benchmarks/web_memory.py --cycles 100 --out /tmp/web-memory.json

Starts ``mctslab serve`` on 127.0.0.1 (a free port) in a process of its own
and drives it through its HTTP API as the page does: each cycle makes a game
with the AI to move, asks the AI for its move (``--seconds`` of search),
waits for it, then deletes the game (``--abandon`` leaves it instead, for
the server to close when it evicts the least recently used of its
:data:`~mctslab.web._sessions.MAX_GAMES` games). After each cycle it reads
the server's resident set (VmRSS in ``/proc/PID/status``, so Linux only) and
prints it at cycles 0, 10, 20, 40, 100, … and at the end; ``--out`` writes
every sample as JSON. Cycle 0 is the server after its start (engine
compiled or loaded from numba's cache) and before any game.

Games rotate through ``--games`` (default: 15x15 Gomoku, Othello and
Connect Four, the engine's defaults for each), so trees of different sizes
and options are made and freed one after another. Everything is bounded:
each request and each wait has a timeout, and the server is stopped at the
end (SIGINT, then SIGKILL after 30 s).

What it found, and the two fixes it led to, are in docs/decisions.md ("Tree
arrays are mapped from the operating system, not taken from malloc").
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

#: Cycles at which the resident set is printed (as well as the last one).
MILESTONES = (0, 10, 20, 40, 100, 200, 400)
#: The longest the server may take to start (a first compile on a busy 2-core machine).
START_SECONDS = 900.0
REQUEST_SECONDS = 30.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=0.5, help="the AI's search a move")
    parser.add_argument(
        "--games",
        default="gomoku:15,othello,connect4",
        help="comma-separated games, each NAME or NAME:SIZE (Gomoku's board)",
    )
    parser.add_argument("--abandon", action="store_true", help="leave games, do not delete")
    parser.add_argument("--out", type=Path, help="write every sample here as JSON")
    args = parser.parse_args()
    games = [_game_body(spec, args.seconds) for spec in args.games.split(",")]

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C here does not reach it before its games are counted
    )
    samples: list[dict[str, Any]] = []
    try:
        _wait_started(base, server)
        samples.append(_sample(server.pid, 0, started=time.monotonic()))
        print(_line(samples[-1]), flush=True)
        first = time.monotonic()
        for cycle in range(1, args.cycles + 1):
            _cycle(base, games[(cycle - 1) % len(games)], delete=not args.abandon)
            samples.append(_sample(server.pid, cycle, started=first))
            if cycle in MILESTONES or cycle == args.cycles:
                print(_line(samples[-1]), flush=True)
    finally:
        _stop(server)
    if args.out is not None:
        settings = {
            "cycles": args.cycles,
            "seconds": args.seconds,
            "games": args.games,
            "abandon": args.abandon,
        }
        args.out.write_text(json.dumps({"settings": settings, "samples": samples}, indent=1))


def _game_body(spec: str, seconds: float) -> dict[str, Any]:
    name, _, size = spec.partition(":")
    params = {"size": int(size)} if size else {}
    # human=1: the person plays second, so the AI is to move at once.
    return {"game": name, "params": params, "human": 1, "seconds": seconds}


def _cycle(base: str, body: dict[str, Any], *, delete: bool) -> None:
    """One game: made, one AI move searched and played, then deleted (or left)."""
    game = _request(base, "POST", "/api/games", body)
    _request(base, "POST", f"/api/games/{game['id']}/ai")
    deadline = time.monotonic() + body["seconds"] + REQUEST_SECONDS
    while _request(base, "GET", f"/api/games/{game['id']}")["searching"]:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the AI's search of game {game['id']} did not end in time")
        time.sleep(0.05)
    if delete:
        _request(base, "DELETE", f"/api/games/{game['id']}")


def _request(base: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
        text = response.read()
    return json.loads(text) if text else None


def _wait_started(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            _request(base, "GET", "/api/catalog")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):  # not up yet, or busy
            time.sleep(0.5)
    raise RuntimeError(f"the server did not answer within {START_SECONDS:g} s")


def _sample(pid: int, cycle: int, *, started: float) -> dict[str, Any]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    kib = {key: int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM", "VmSize")}
    return {
        "cycle": cycle,
        "seconds": round(time.monotonic() - started, 1),
        "rss_mib": round(kib["VmRSS"] / 1024, 1),
        "peak_rss_mib": round(kib["VmHWM"] / 1024, 1),
        "virtual_mib": round(kib["VmSize"] / 1024, 1),
    }


def _line(sample: dict[str, Any]) -> str:
    return (
        f"cycle {sample['cycle']:4d}: RSS {sample['rss_mib']:8.1f} MiB "
        f"(peak {sample['peak_rss_mib']:.1f}, virtual {sample['virtual_mib']:.1f}) "
        f"after {sample['seconds']:.0f} s"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
