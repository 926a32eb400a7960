"""The README's examples run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("source", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_python_example_runs(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(source, tmp_path)
    assert capsys.readouterr().out.strip()


def test_nim_example_leaves_a_multiple_of_four(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(next(block for block in BLOCKS if "class Nim" in block), tmp_path)
    assert capsys.readouterr().out.strip() == "2"


def _run(source: str, folder: Path) -> None:
    script = folder / "example.py"
    script.write_text(source)
    runpy.run_path(str(script), run_name="readme_example")
