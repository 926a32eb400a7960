"""Errors in the command line itself, as click finds them (an unknown option, a value of the
wrong type, a missing argument, an unknown command), read as the project's own errors do:
one ``Error:`` line and where the help is, on stderr, with exit status 2."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from mctslab.cli._app import app
from mctslab.cli._options import MAX_WORKERS

runner = CliRunner()
# Rich's box drawing (U+2500-U+257F): the panel Typer draws around click's errors.
BOX_DRAWING = re.compile("[\u2500-\u257f]")


@pytest.mark.parametrize(
    ("args", "error", "command"),
    [
        # An unknown option, with click's guesses at the one meant.
        (
            ["play", "gomoku", "--sise", "8"],
            "No such option: --sise (Possible options: --save, --seed, --size)",
            "mctslab play",
        ),
        (["--bogus"], "No such option: --bogus", "mctslab"),
        # A value that is not of the option's type, or out of its range, worded as the
        # commands' own checks word theirs (Typer's pydantic said "Input should be a valid
        # integer, unable to parse string as an integer", naming neither value nor range).
        (
            ["play", "gomoku", "--size", "abc"],
            "Invalid value for '--size': must be a whole number; got 'abc'.",
            "mctslab play",
        ),
        (
            ["analyze", "gomoku", "--seconds", "x"],
            "Invalid value for '--seconds': must be a number; got 'x'.",
            "mctslab analyze",
        ),
        (
            ["analyze", "gomoku", "--iterations", "0"],
            "Invalid value for '--iterations': must be a whole number at least 1; got 0.",
            "mctslab analyze",
        ),
        (
            ["serve", "--port", "70000"],
            "Invalid value for '--port': must be a whole number at least 1 and at most "
            "65,535; got 70000.",
            "mctslab serve",
        ),
        (
            ["play", "gomoku", "--workers", "1.5"],
            "Invalid value for '--workers': must be a whole number at least 1 and at most "
            f"{MAX_WORKERS:,}; got '1.5'.",
            "mctslab play",
        ),
        # A value a callback refuses: a choice, a bound.
        (
            ["play", "gomoku", "--engine", "gpu"],
            "Invalid value for '--engine': choose compiled or python; got 'gpu'.",
            "mctslab play",
        ),
        # Arguments missing or too many.
        (["gtp"], "Missing argument 'game'.", "mctslab gtp"),
        (["play", "gomoku", "extra"], "Got unexpected extra argument(s) (extra)", "mctslab play"),
        # An option without its value: click's parser raises this one with no context.
        (["countdown", "--max"], "Option '--max' requires an argument.", "mctslab countdown"),
        # An unknown command.
        (["frob"], "No such command 'frob'.", "mctslab"),
    ],
)
def test_a_usage_error_is_one_error_line_and_the_help_to_try(
    args: list[str], error: str, command: str
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert not BOX_DRAWING.search(result.stderr), result.stderr
    first, hint = result.stderr.splitlines()  # soft-wrapped: a long message stays one line
    assert first.startswith(f"Error: {error}")
    assert hint == f"Try '{command} --help'."


@pytest.mark.parametrize(
    ("args", "error", "command"),
    [
        (["play", "chess"], "Unknown game 'chess'", "mctslab play"),
        (["countdown", "--max", "0"], "--max must be from 1 to 1000000", "mctslab countdown"),
        (["arena", "tictactoe", "-p", "random"], "give exactly two --player", "mctslab arena"),
        # The library's message draws the board below; the command line names the moves.
        (
            ["analyze", "gomoku", "--size", "5", "--moves", "c3 c3"],
            "--moves: move 2 ('c3'): 'c3' is not legal for White",
            "mctslab analyze",
        ),
    ],
)
def test_an_error_the_command_finds_also_says_where_the_help_is(
    args: list[str], error: str, command: str
) -> None:
    # README: "then where the help is ... whether the parser found it or the command
    # did". Before, a command's own errors gave the Error: line alone.
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    first, hint = result.stderr.splitlines()
    assert first.startswith(f"Error: {error}")
    assert hint == f"Try '{command} --help'."


def test_a_users_value_is_not_read_as_markup() -> None:
    # Rich would take "[bold]" as a style and print nothing of it.
    result = runner.invoke(app, ["play", "gomoku", "--engine", "[bold]gpu"])
    assert result.exit_code == 2
    assert "got '[bold]gpu'." in result.stderr


def test_the_command_alone_still_shows_the_help() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 2  # click's exit for a command line that asks nothing
    assert "Usage: mctslab [OPTIONS] COMMAND" in result.stdout
    assert "Error" not in result.stderr


def test_a_caller_that_handles_errors_gets_them_as_exceptions() -> None:
    # standalone_mode=False is click's way to run a command from a program: nothing printed.
    with pytest.raises(typer.TyperException) as raised:
        typer.main.get_command(app).main(["frob"], "mctslab", standalone_mode=False)
    assert raised.value.format_message() == "No such command 'frob'."


def test_the_application_is_still_mctslab_cli_app() -> None:
    # For a program that runs the commands (CliRunner, say): the entry point moved the
    # commands to mctslab.cli._app, which mctslab.cli loads when app is asked for.
    from mctslab import cli

    assert cli.app is app
