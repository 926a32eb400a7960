"""Shared test helpers."""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

DATA = Path(__file__).parent / "data"
BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
#: An Othello game where White, to move, has no placement and must pass.
OTHELLO_WHITE_MUST_PASS = (
    "e6 d6 c3 f6 c7 f3 g6 d3 c4 c6 c5 b3 c2 b4 a3 c8 b6 c1 d1 e1 d8 a4 e3 d2 g3 h3 g2 f7 g8 "
    "d7 a5 h1 b5 a6 a7 h6 e8 b7 e2 f4 g4 f8 g7 f2 f5 h5 e7 g5 h4 b2 b8 h7 g1 h2 a8 f1 a2"
)


def load_data(name: str) -> Any:
    """A data file from tests/data (each one cites its source)."""
    return json.loads((DATA / name).read_text())


def load_benchmark(name: str) -> ModuleType:
    """A script of benchmarks/ (not a package) imported as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextmanager
def garbage_collector_off() -> Iterator[None]:
    """No cyclic garbage collection inside the block: what is freed there, reference counting
    freed at once (a collection at a chance moment would hide a reference cycle)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
