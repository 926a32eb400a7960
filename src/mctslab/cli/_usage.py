"""Errors in the command line itself, which the parser finds (an unknown option or command, a
value of the wrong type, a missing argument), shown as the commands show their own: one
``Error:`` line on stderr, then where the help is, and exit status 2.

Typer draws these in a Rich panel under a usage line and offers no setting for that apart
from ``rich_markup_mode=None``, which also gives up the Rich ``--help``. So the group runs
the command line in click's non-standalone mode, where the errors come back as exceptions,
and shows them here; all else is done as standalone mode does it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from mctslab.cli._options import error as print_error
from mctslab.cli._options import error_console, help_hint


@contextlib.contextmanager
def _naming(ctx: Any) -> Iterator[None]:
    """Attach ``ctx`` to a usage error raised without one: click's parser raises a few so
    (an option without its value, a flag given one), and the hint needs the command; and
    word a value Typer refused as the commands word theirs (:func:`_reword`)."""
    try:
        yield
    except typer.TyperException as error:
        # A usage error has a ctx, None where the parser left it out; other errors none.
        if getattr(error, "ctx", False) is None:
            error.ctx = ctx  # type: ignore[attr-defined]
        if isinstance(error, typer.BadParameter):
            _reword(error)
        raise


def _reword(error: typer.BadParameter) -> None:
    """Say a number Typer refused as the commands' own checks do ("must be a whole number
    at least 1 and at most 8; got 9."), naming what was typed and the option's whole range.

    Typer checks a number's type and its ``min``/``max`` with pydantic, whose messages
    name neither the value nor the other bound ("Input should be less than or equal to
    8", "Input should be a valid integer, unable to parse string as an integer").
    """
    errors = getattr(error.__cause__, "errors", None)
    if not callable(errors):
        return
    found = errors(include_url=False)[0]
    kind = found.get("type", "")
    if kind.startswith("int_"):
        number, given = "a whole number", repr(found.get("input"))
    elif kind.startswith("float_"):
        number, given = "a number", repr(found.get("input"))
    elif kind in {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}:
        number, given = "a number", str(found.get("input"))
    else:
        return
    low, high = getattr(error.param, "min", None), getattr(error.param, "max", None)
    if isinstance(low, int) or isinstance(high, int):
        number = "a whole number"
    bounds = [
        f"{word} {bound:,}"
        for word, bound in (("at least", low), ("at most", high))
        if bound is not None
    ]
    error.message = f"must be {' '.join([number, ' and '.join(bounds)]).strip()}; got {given}."


def _flags_take_no_value(params: list[Any]) -> list[Any]:
    """``params`` with the flags' value column left blank in the help: Typer shows
    ``<bool>`` there, as if ``--json true`` were asked for (it is an error)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


def _one_line_a_paragraph(text: str) -> str:
    """``text`` with the line breaks inside its paragraphs made spaces: Typer's Rich help
    keeps a docstring's breaks after its first paragraph, and the terminal's width then
    breaks those lines again ("... plays both sides, or" alone on a line)."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))


class Command(TyperCommand):
    """A command of ``mctslab``: its parse errors name it, and so do its own; the terminal
    wraps its help's paragraphs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help is not None:
            self.help = _one_line_a_paragraph(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_take_no_value(super().get_params(ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        with _naming(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        token = help_hint.set(_hint(ctx))
        try:
            return super().invoke(ctx)
        finally:
            help_hint.reset(token)


class Group(TyperGroup):
    """The ``mctslab`` command: click's errors in the command line as one ``Error:`` line."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_take_no_value(super().get_params(ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        with _naming(ctx):
            return super().parse_args(ctx, args)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        run = super().main
        if not standalone_mode:  # a caller that handles the errors itself
            return run(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            # Returns what the command returned (None), or the status of a typer.Exit.
            status = run(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.TyperException as error:
            _show(error)
        except typer.Abort:  # end of input at a prompt
            error_console.print("Aborted.")
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)


def _show(error: typer.TyperException) -> NoReturn:
    """Print ``error`` as the commands print theirs and exit with its status (2 for a usage
    error)."""
    status = getattr(error, "exit_code", 1)
    # The command line alone with no_args_is_help: the help is the message, and Rich has
    # printed it already (Typer's own formatter checks for it by name too).
    if type(error).__name__ == "NoArgsIsHelpError":
        if error.format_message():
            error_console.print(error.format_message(), soft_wrap=True)
        sys.exit(status)
    print_error(error.format_message())
    ctx = getattr(error, "ctx", None)
    hint = None if ctx is None else _hint(ctx)
    if hint is not None:
        error_console.print(hint, soft_wrap=True)
    sys.exit(status)


def _hint(ctx: Any) -> str | None:
    """Where the help of ``ctx``'s command is, or None if it has no help option."""
    if ctx.command.get_help_option(ctx) is None:
        return None
    # The longest name, "--help" rather than "-h", as click's own hint picks.
    option = max(ctx.command.get_help_option_names(ctx), key=len)
    return f"Try '{ctx.command_path} {option}'."
