"""Ctrl-C sent at a chosen point inside a call of the compiled search loop."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest


class CtrlCInTheLoop:
    """Wraps the compiled engine's ``search_loop``: the first call made while
    ``trace_now()`` holds counts the Python calls it makes (numba's dispatcher
    works in Python) in ``calls``, and sends SIGINT at the ``send_at``-th."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, trace_now: Callable[[], bool] = lambda: True
    ) -> None:
        from mctslab.fast import _engine

        self._loop = _engine.search_loop
        self._trace_now = trace_now
        self.calls = 0
        self.send_at: int | None = None
        monkeypatch.setattr(_engine, "search_loop", self._traced)

    def again(self, send_at: int | None) -> None:
        """Trace the next call afresh, sending SIGINT at its ``send_at``-th Python call."""
        self.calls, self.send_at = 0, send_at

    def _count(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.calls += 1
            if self.calls == self.send_at:
                os.kill(os.getpid(), signal.SIGINT)

    def _traced(self, *args: Any) -> Any:
        if self.calls or not self._trace_now():  # traced already, or not yet to be
            return self._loop(*args)
        sys.setprofile(self._count)
        try:
            return self._loop(*args)
        finally:
            sys.setprofile(None)
