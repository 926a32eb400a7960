"""``python -m mctslab``: the same as the ``mctslab`` command."""

from mctslab.cli import main

main()
