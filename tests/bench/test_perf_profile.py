"""benchmarks/perf_profile.py: its arguments, perf's refusals, and the files it leaves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "perf_profile.py"


def profile(
    tmp_path: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the script with its temporary files in ``tmp_path/tmp`` (and ``path`` first on PATH)."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        [sys.executable, str(SCRIPT), "tictactoe", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("option", ["--iterations", "--repeats"])
def test_zero_iterations_or_repeats_are_refused(tmp_path: Path, option: str) -> None:
    # Before, --iterations 0 became the full count, and --repeats 0 profiled nothing.
    done = profile(tmp_path, option, "0")
    assert done.returncode == 2, done.stderr
    assert f"argument {option}: must be >= 1, got 0" in done.stderr
    assert list((tmp_path / "tmp").iterdir()) == []  # its numba cache is removed


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="a perf stand-in as a shell script")
def test_a_refused_perf_says_why_and_leaves_no_files(tmp_path: Path) -> None:
    # Before, perf record's message was hidden (a bare CalledProcessError from perf report
    # followed), and the numba cache and perf.data folders stayed in /tmp.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    perf = bin_dir / "perf"
    perf.write_text(
        "#!/bin/sh\necho 'perf_event_open(..., PERF_FLAG_FD_CLOEXEC) failed: paranoid 4' >&2\n"
        "exit 255\n"
    )
    perf.chmod(0o755)
    done = profile(tmp_path, "--iterations", "10", "--repeats", "1", path=str(bin_dir))
    assert done.returncode == 1, done.stderr
    assert "perf record exited with status 255:" in done.stderr
    assert "paranoid 4" in done.stderr
    assert list((tmp_path / "tmp").iterdir()) == []
