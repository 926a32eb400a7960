"""The README's examples run as written."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab import Budget, SearchConfig
from mctslab._extras import install_command
from mctslab.cli._app import app
from mctslab.core import MCTS, default_simulation
from mctslab.games import countdown

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
#: Python examples shown with their output (a ```text block right after), as (source, output).
PRINTED = re.findall(
    r"```python\n((?:(?!```).)*)```\n\n```text\n(.*?)```", README.read_text(), re.S
)
#: A Python example that goes on from the one before it, with its names, opens with this.
CONTINUES = "# Continues the example above"
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
    index = BLOCKS.index(source)
    continued = index + 1 < len(BLOCKS) and BLOCKS[index + 1].startswith(CONTINUES)
    # A block of definitions that the next one goes on from shows nothing itself.
    assert capsys.readouterr().out.strip() or continued


def test_nim_example_leaves_a_multiple_of_four(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(next(block for block in BLOCKS if "class Nim:" in block), tmp_path)
    assert capsys.readouterr().out.strip() == "2"


@pytest.mark.parametrize(
    ("source", "output"), PRINTED, ids=[f"printed{i}" for i in range(len(PRINTED))]
)
def test_python_example_prints_what_the_readme_shows(
    source: str, output: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(source, tmp_path)
    assert capsys.readouterr().out == output


def test_the_policies_of_the_study_example_agree_with_the_countdown_solution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Against the exact solution on more starts and seeds than the example shows, with the
    # example's PUCT selection over both its decisive playout and uniformly random ones (from
    # 16, a lost start, 2,000 of those still valued it at 0.51).
    example = _run(next(source for source in BLOCKS if "def select_puct" in source), tmp_path)
    capsys.readouterr()
    exact = countdown.solve(16)
    for seed in (2, 3):
        for simulation in (example["decisive_playout"], default_simulation):
            engine = MCTS(
                SearchConfig(seed=seed), tree_policy=example["select_puct"], simulation=simulation
            )
            for start in range(1, 17):
                state = mctslab.make("countdown", start=start)
                result = engine.search(state, Budget(iterations=2000))
                if exact[start].wins:
                    assert result.best_move in exact[start].winning_moves, (seed, start)
                    assert result.value > 0.5
                elif simulation is not default_simulation:  # random playouts need more
                    assert result.value < 0.5, (seed, start)


def _run(source: str, folder: Path) -> dict[str, Any]:
    """Run an example (after the one it continues, whose output is that one's test's)."""
    names: dict[str, Any] = {}
    if source.startswith(CONTINUES):
        with contextlib.redirect_stdout(io.StringIO()):
            names = _run(BLOCKS[BLOCKS.index(source) - 1], folder)
    script = folder / "example.py"
    script.write_text(source)
    return runpy.run_path(str(script), init_globals=names, run_name="readme_example")


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


def test_the_install_hints_give_the_readme_s_command() -> None:
    # The errors said "pip install 'mctslab[viz]'", which fails: mctslab is not on PyPI.
    assert f"`{install_command('viz')}`" in README.read_text()
