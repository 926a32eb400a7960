"""Shared test helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def load_data(name: str) -> Any:
    """A data file from tests/data (each one cites its source)."""
    return json.loads((DATA / name).read_text())
