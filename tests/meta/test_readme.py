"""The README's examples run as written."""

from __future__ import annotations

import re
import runpy
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mctslab.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
#: The console sessions of the commands quick enough to run here, each as (command, output).
SESSIONS = [
    (command, output)
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), re.S)
    for command, output in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", block, re.M)
    if command.startswith(("mctslab numbers", "mctslab countdown"))
]


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


@pytest.mark.parametrize(("command", "output"), SESSIONS, ids=[command for command, _ in SESSIONS])
def test_console_session_prints_what_the_readme_shows(
    command: str, output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Byte for byte: before, the countdown table showed moves from lost starts that the
    # command no longer plays, and rich padded each table title with trailing spaces.
    if "--tree" in command and not shutil.which("dot"):
        pytest.skip("graphviz's dot is not installed")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    printed = result.output.replace(
        "Compiling the search engine (first run only, cached after)...\n", ""
    )
    assert printed == output
