"""`mctslab serve` as a command (the browser test runs it for real)."""

from __future__ import annotations

import socket
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from mctslab.cli._app import app

runner = CliRunner()


def test_serve_has_help() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--engine", "--memory-mb", "--open"):
        assert option in result.output


def test_serve_refuses_an_unknown_engine() -> None:
    result = runner.invoke(app, ["serve", "--engine", "turbo"])
    assert result.exit_code == 2
    assert "Invalid value for '--engine'" in result.output and "'turbo'" in result.output


def test_serve_without_the_web_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: "pip install 'mctslab[web]'", which fails: mctslab is not on PyPI.
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # importing it now fails
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 2
    hint = "install the web extra in the clone of mctslab: .venv/bin/pip install -e '.[web]'"
    assert hint in result.output


def test_serve_on_a_taken_port_says_so_before_announcing_the_board() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", "--engine", "python", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "mctslab board at" not in result.output


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("host", "shown"),
    [
        (None, "127.0.0.1"),
        # Every interface: the board is reached here at the loopback address (a browser
        # may refuse http://0.0.0.0/).
        ("0.0.0.0", "127.0.0.1"),
        pytest.param(
            "::1",
            "[::1]",
            marks=pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here"),
        ),
    ],
)
def test_serve_announces_the_address_it_listens_on(
    monkeypatch: pytest.MonkeyPatch, host: str | None, shown: str
) -> None:
    # Before, 127.0.0.1 was announced as localhost, which can resolve to ::1 first, where
    # nothing listens (and the README says http://127.0.0.1:8000).
    uvicorn = pytest.importorskip("uvicorn")
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.append(options))
    with socket.socket(socket.AF_INET6 if host == "::1" else socket.AF_INET) as probe:
        probe.bind((host or "127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = ["--engine", "python", "--port", str(port)]
    result = runner.invoke(app, ["serve", *options, *(["--host", host] if host else [])])
    assert result.exit_code == 0, result.output
    everywhere = " (listening on every interface: other machines may connect)"
    said = everywhere if host == "0.0.0.0" else ""
    assert f"mctslab board at http://{shown}:{port}/{said}  (Ctrl-C to stop)" in result.output
    assert served == [{"host": host or "127.0.0.1", "port": port, "log_level": "warning"}]


def test_serve_limits_each_game_s_search_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    web = pytest.importorskip("mctslab.web")
    uvicorn = pytest.importorskip("uvicorn")
    from mctslab.web._sessions import MEMORY_MB

    made: list[dict[str, Any]] = []
    monkeypatch.setattr(web, "create_app", lambda engine, **limits: made.append(limits))
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    for more, memory_mb in (([], MEMORY_MB), (["--memory-mb", "64"], 64.0)):
        result = runner.invoke(app, ["serve", "--engine", "python", "--port", port, *more])
        assert result.exit_code == 0, result.output
        assert made.pop() == {"memory_mb": memory_mb}
    result = runner.invoke(app, ["serve", "--memory-mb", "0.5"])
    assert result.exit_code == 2 and "must be a finite number at least 1" in result.output
