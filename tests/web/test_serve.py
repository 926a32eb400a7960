"""`mctslab serve` as a command (the browser test runs it for real)."""

from __future__ import annotations

import socket

from typer.testing import CliRunner

from mctslab.cli._app import app

runner = CliRunner()


def test_serve_has_help() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--engine", "--open"):
        assert option in result.output


def test_serve_refuses_an_unknown_engine() -> None:
    result = runner.invoke(app, ["serve", "--engine", "turbo"])
    assert result.exit_code == 2
    assert "Invalid value for '--engine'" in result.output and "'turbo'" in result.output


def test_serve_on_a_taken_port_says_so_before_announcing_the_board() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", "--engine", "python", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "mctslab board at" not in result.output
