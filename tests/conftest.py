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
