"""scripts/setup.sh, run from a copy with stand-ins for the system's programs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SETUP = Path(__file__).resolve().parents[2] / "scripts" / "setup.sh"


def _setup(root: Path, stand_ins: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a copy of setup.sh in ``root``, with ``stand_ins`` (name: shell script) first on
    the PATH."""
    (root / "scripts").mkdir()
    shutil.copy(SETUP, root / "scripts" / "setup.sh")
    programs = root / "bin"
    programs.mkdir()
    for name, script in stand_ins.items():
        (programs / name).write_text(f"#!/bin/sh\n{script}\n")
        (programs / name).chmod(0o755)
    return subprocess.run(
        ["bash", str(root / "scripts" / "setup.sh")],
        env={**os.environ, "PATH": f"{programs}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def _python3(venv: str) -> str:
    """A python3 that runs the shell script ``venv`` for ``python3 -m venv DIR`` (DIR in $3)
    and is this Python for anything else."""
    return f'if [ "$1 $2" = "-m venv" ]; then\n{venv}\nexit\nfi\nexec {sys.executable} "$@"'


def test_a_failing_venv_is_told_with_the_package_to_install(tmp_path: Path) -> None:
    # Before, the script stopped with venv's own error, and a run after installing the
    # package stopped at the missing .venv/bin/pip of the half-made virtualenv.
    debian_without_venv_package = _python3(
        f'mkdir -p "$3/bin" && ln -s {sys.executable} "$3/bin/python"\n'
        'echo "The virtual environment was not created successfully because ensurepip is '
        'not available." >&2\nexit 1'
    )
    not_root = "echo 1000"
    result = _setup(tmp_path, {"python3": debian_without_venv_package, "id": not_root})
    package = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    assert result.returncode == 1
    message = (
        f"error: python3 -m venv failed; on Debian or Ubuntu install {package} "
        f"(sudo apt-get install {package}), then run {tmp_path}/scripts/setup.sh again"
    )
    assert message in result.stderr
    assert not (tmp_path / ".venv").exists()  # the next run makes it anew


def test_a_virtualenv_left_without_pip_is_made_anew(tmp_path: Path) -> None:
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    calls = tmp_path / "pip calls"
    pip_logs_its_arguments = f'#!/bin/sh\\necho "$@" >> "{calls}"\\n'
    venv_with_pip = _python3(
        f'printf \'{pip_logs_its_arguments}\' > "$3/bin/pip" && chmod +x "$3/bin/pip"'
    )
    result = _setup(tmp_path, {"python3": venv_with_pip})
    assert result.returncode == 0, result.stderr
    assert calls.read_text().splitlines() == ["install -q --upgrade pip", "install -q -e ."]


def test_as_root_the_venv_package_is_installed(tmp_path: Path) -> None:
    # As graphviz and chromium are for --dev: Debian's package, then the virtualenv.
    installed = tmp_path / "apt-get calls"
    venv_after_apt_get = _python3(
        f'mkdir -p "$3/bin"\nif [ ! -e "{installed}" ]; then exit 1; fi\n'
        f'printf \'#!/bin/sh\\n\' > "$3/bin/pip" && chmod +x "$3/bin/pip"'
    )
    apt_get = f'echo "$@" >> "{installed}"'
    result = _setup(tmp_path, {"python3": venv_after_apt_get, "id": "echo 0", "apt-get": apt_get})
    assert result.returncode == 0, result.stderr
    package = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    assert installed.read_text().splitlines() == ["update -qq", f"install -y -qq {package}"]


def test_as_root_a_failing_apt_get_is_said(tmp_path: Path) -> None:
    # set -e let the failure of apt-get update, inside an && list, go by: the script went on
    # to a venv that failed again, without a word of why.
    venv_fails = _python3('mkdir -p "$3/bin"\nexit 1')
    result = _setup(tmp_path, {"python3": venv_fails, "id": "echo 0", "apt-get": "exit 100"})
    package = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    assert result.returncode == 1
    assert f"error: apt-get could not install {package}" in result.stderr
