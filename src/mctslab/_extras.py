"""What to tell someone who lacks one of mctslab's optional extras."""

from __future__ import annotations


def install_command(extra: str) -> str:
    """The command that installs ``extra`` (``viz``, ``web``, ``compare``, ``plot``, ``ray``)
    as the README does: into the virtualenv that ``scripts/setup.sh`` makes in the clone,
    since mctslab is not on PyPI and ``pip install 'mctslab[viz]'`` finds nothing."""
    return f".venv/bin/pip install -e '.[{extra}]'"


def install_hint(extra: str) -> str:
    """How to install ``extra``, for a message that says what is missing."""
    return f"install the {extra} extra in the clone of mctslab: {install_command(extra)}"
