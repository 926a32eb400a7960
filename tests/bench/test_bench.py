"""`mctslab bench`: the report's structure on quick runs (speed belongs in benchmarks/)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mctslab.benchmark import GAMES, HAND_WRITTEN, Options, _run, goals, markdown, rich_tables
from mctslab.benchmark import _measure as measure
from mctslab.benchmark._startup import cold_and_warm
from mctslab.cli._app import app
from mctslab.core.policies import default_simulation, uniform_playout

runner = CliRunner()
ENGINES = {"compiled", "python", "python_compiled_playouts", "openspiel_cpp", "openspiel_python"}


def bench(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["bench", "--quick", "--repeats", "1", "--json", *args])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def positive(value: Any) -> bool:
    return isinstance(value, int | float) and value > 0


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One quick run of every part but the start-up (a cold start compiles for seconds)."""
    pytest.importorskip("pyspiel")
    out = tmp_path_factory.mktemp("bench") / "results.md"
    found = bench(
        "--games", "tictactoe", "--parts", "speed,profile,workers,memory", "--out", str(out)
    )
    found["markdown"] = out.read_text()
    return found


def test_speed_rows_cover_both_positions_with_every_engine(report: dict[str, Any]) -> None:
    rows = report["speed"]
    assert [(r["game"], r["position"]) for r in rows] == [
        ("tictactoe", "start"),
        ("tictactoe", "midgame"),
    ]
    assert rows[1]["moves"] == GAMES["tictactoe"].midgame
    for row in rows:
        assert set(row["engines"]) == ENGINES  # no naive baseline outside gomoku
        for engine in row["engines"].values():
            assert positive(engine["simulations"]) and positive(engine["per_second"])
            assert len(engine["runs"]) == 1
        assert positive(row["raw_playouts"]["per_second"])
        ratios = row["ratios"]
        assert ratios["compiled_vs_naive"] is None
        for name in (
            "compiled_vs_openspiel_cpp",
            "python_vs_openspiel_python",
            "python_compiled_playouts_vs_openspiel_python",
            "compiled_vs_raw",
        ):
            assert positive(ratios[name])
        tree = row["tree"]
        assert tree["slots_per_node"] >= 1.0
        assert tree["bytes_per_node"] >= tree["bytes_per_slot"] > 0


def test_profile_workers_memory_and_machine(report: dict[str, Any]) -> None:
    for row in report["profile"]:
        steps = row["microseconds_per_simulation"]
        assert set(steps) == {"total", "rollout", "legal_moves", "apply", "rest"}
        assert positive(steps["total"])
        assert sum(steps.values()) == pytest.approx(2 * steps["total"])
    (workers,) = report["workers"]
    assert positive(workers["workers"]["1"]["per_second"]) and positive(workers["ratio"])
    assert positive(workers["raw_processes"]["2"]["per_second"])
    assert positive(workers["machine_ratio"])
    plain, default = report["memory"]
    assert (plain["settings"], default["settings"]) == ("plain", "default")
    for memory in (plain, default):
        assert memory["budget_mb"] == 1.0 and positive(memory["peak_rss_growth_mb"])
    assert plain["stopped_by"] == ["memory"]  # the solver may end the default search earlier
    machine = report["machine"]
    assert machine["cores"] >= 1 and machine["numba"] and machine["python"]
    assert set(report["load"]) == {"speed", "profile", "workers", "memory"}
    assert report["errors"] == {}
    assert report["command"].startswith("mctslab bench --games tictactoe --parts ")


def test_goals_and_markdown_name_every_measured_goal(report: dict[str, Any]) -> None:
    found = goals(report)
    assert {g.goal for g in found} == {
        "compiled vs OpenSpiel C++ MCTSBot",
        "generic engine vs OpenSpiel Python MCTSBot",
        "tree overhead: compiled sims/s vs raw playouts/s",
        "tree memory per node",
        "2 workers vs 1 worker",
        "peak RSS growth vs memory budget",
    }
    assert all(g.met is not None for g in found)
    text = report["markdown"]
    for heading in ("Machine and versions", "Compiled engine vs", "Goals", "Memory budget"):
        assert f"## {heading}" in text
    assert "b2 a1 c3 a3" in text and report["command"] in text
    assert f"growth of its peak RSS ({report['memory'][0]['method']})" in text


def test_the_generic_engine_plays_out_in_python_like_openspiels_python_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the generic engine compared against OpenSpiel's Python bot (which plays its
    # rollouts move by move in Python) ran only with default_simulation: each playout one
    # compiled call. Now its like-for-like figure uses uniform_playout, a Python loop.
    real = measure.generic
    used = []

    def spy(state: Any, count: int, seed: int, *simulation: Any) -> measure.Timing:
        used.append(simulation)
        return real(state, count, seed, *simulation)

    monkeypatch.setattr(measure, "generic", spy)
    monkeypatch.setattr(measure, "openspiel_available", lambda: False)
    game = GAMES["tictactoe"].quick()
    row = _run._speed(game, game.positions[0], 1, lambda message: None)
    assert set(used) == {(uniform_playout,), (default_simulation,)}
    assert positive(row["engines"]["python"]["per_second"])
    assert positive(row["engines"]["python_compiled_playouts"]["per_second"])


def test_the_settings_and_tables_say_what_each_engine_does(report: dict[str, Any]) -> None:
    text = report["markdown"]
    assert "plays its playouts move by move in Python" in text
    assert "| generic (Python playouts) | OpenSpiel Python | ratio |" in text
    assert "| generic tree + compiled playouts | ratio |" in text
    assert "generic (python)" not in text


def test_without_openspiel_its_columns_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measure, "openspiel_available", lambda: False)
    result = runner.invoke(
        app, ["bench", "--quick", "--repeats", "1", "--json", "--games", "gomoku8",
              "--parts", "speed"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "OpenSpiel is not installed" in result.stderr  # says why its columns are empty
    found = json.loads(result.stdout)
    for row in found["speed"]:
        assert set(row["engines"]) == {"compiled", "python", "python_compiled_playouts", "naive"}
        assert row["ratios"]["compiled_vs_openspiel_cpp"] is None
        assert positive(row["ratios"]["compiled_vs_naive"])
    missing = [g for g in goals(found) if g.met is None]
    assert {g.goal for g in missing} == {"generic engine vs OpenSpiel Python MCTSBot"}
    assert "| - |" in markdown(found, found["command"])


def test_goal_verdicts_follow_the_targets() -> None:
    row = {
        "game": "connect4",
        "title": "Connect Four",
        "position": "start",
        "ratios": {
            "compiled_vs_openspiel_cpp": 5.0,
            "compiled_vs_naive": None,
            "python_vs_openspiel_python": 0.9,
            "compiled_vs_raw": 0.69,
        },
        "tree": {"bytes_per_node": 32.0},
    }
    memory = {
        "title": "Connect Four",
        "settings": "plain",
        "budget_mb": 8.0,
        "peak_rss_growth_mb": 8.9,
        "ratio": 1.11,
        "stopped_by": ["memory"],
    }
    workers = {"title": "Connect Four", "ratio": 1.8}
    verdicts = {
        g.goal: g.met for g in goals({"speed": [row], "memory": [memory], "workers": [workers]})
    }
    assert verdicts == {
        "compiled vs OpenSpiel C++ MCTSBot": True,  # >= 5x
        "generic engine vs OpenSpiel Python MCTSBot": False,
        "tree overhead: compiled sims/s vs raw playouts/s": False,  # < 70%
        "tree memory per node": True,  # <= 32 bytes
        "peak RSS growth vs memory budget": False,  # 11% over
        "2 workers vs 1 worker": True,  # >= 1.8x
    }


def test_the_memory_note_names_each_games_default_playout() -> None:
    # Before, it said "decisive playouts (random on Gomoku)"; Gomoku's default is "threats".
    from mctslab.benchmark._report import tables

    games = [_run._game_info(GAMES[key]) for key in ("tictactoe", "gomoku8")]
    row = {
        "title": "Gomoku 8x8",
        "settings": "default",
        "seconds": 2.0,
        "budget_mb": 1.0,
        "peak_rss_growth_mb": 0.9,
        "ratio": 0.9,
        "stopped_by": ["memory"],
        "method": "VmHWM after clear_refs",
    }
    (memory, _) = tables({"options": {"repeats": 1}, "games": games, "memory": [row]})
    assert "Tic-tac-toe decisive; Gomoku 8x8 threats, GRAVE;" in memory.note
    assert "random on Gomoku" not in memory.note


def test_memory_is_not_measured_where_the_peak_cannot_be_reset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Before, the peak read without its reset was the start-up's (imports, compiling): it hid
    # the tree, the growth came out near 0 under "getrusage peak", and the goal was met.
    from mctslab.benchmark import _memory
    from mctslab.benchmark._report import tables

    monkeypatch.setattr(_memory, "_CLEAR_REFS", tmp_path / "missing" / "clear_refs")
    monkeypatch.setattr(
        _run,
        "measure_memory",
        lambda *args: _memory._peak_growth(*args),  # in this process, to see the patch
    )
    row = _run._memory(GAMES["tictactoe"].quick(), "plain", 0.5, 1, lambda message: None)
    assert row["peak_rss_growth_mb"] is None and row["ratio"] is None
    assert row["method"].startswith("not measured:")
    (goal,) = goals({"memory": [row]})
    assert goal.met is None and goal.measured == row["method"]
    report = {"options": {"repeats": 1}, "games": [_run._game_info(GAMES["tictactoe"])]}
    (memory, _) = tables({**report, "memory": [row]})
    assert memory.rows == [("Tic-tac-toe", "plain", "1", "-", "-", ", ".join(row["stopped_by"]))]
    assert f"growth of its peak RSS ({row['method']})" in memory.note


def test_startup_times_a_cold_and_a_warm_run() -> None:
    cold, warm = cold_and_warm([sys.executable, "-c", "pass"])
    assert cold > 0 and warm > 0
    with pytest.raises(RuntimeError, match="exited with status 3"):
        cold_and_warm([sys.executable, "-c", "raise SystemExit(3)"])


def test_a_failing_part_is_reported_and_the_others_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> tuple[float, float]:
        raise RuntimeError("mctslab analyze exited with status 1")

    monkeypatch.setattr(_run, "cold_and_warm", broken)
    result = runner.invoke(
        app, ["bench", "--quick", "--repeats", "1", "--games", "tictactoe",
              "--parts", "speed,startup", "--json"],
    )  # fmt: skip
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["errors"] == {"startup": "RuntimeError: mctslab analyze exited with status 1"}
    assert "startup" not in report and len(report["speed"]) == 2
    assert "the startup measurement failed" in result.stderr
    # Not on a terminal, each step is a line of its own (a log shows the progress).
    assert "start-up of mctslab" in result.stderr


def test_a_quick_startup_table_says_the_one_run_it_made(monkeypatch: pytest.MonkeyPatch) -> None:
    # --quick times one cold start whatever --repeats says; before, without --repeats its
    # table said "median of 5 runs".
    monkeypatch.setattr(_run, "cold_and_warm", lambda: (2.0, 1.0))
    result = runner.invoke(
        app, ["bench", "--quick", "--games", "tictactoe", "--parts", "startup"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Start-up, wall clock (median of 1 run)" in result.stdout


def test_bad_options_are_refused() -> None:
    result = runner.invoke(app, ["bench", "--games", "chess"])
    assert result.exit_code == 2
    assert "The 'games' parameter of the benchmark must be one of" in result.output
    with pytest.raises(ValueError, match="'repeats' parameter"):
        Options(repeats=0)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--games", "", "--parts", "speed"], "games"),
        (["--games", " , ", "--parts", "speed"], "games"),
        (["--games", "tictactoe", "--parts", ""], "parts"),
    ],
)
def test_an_empty_list_of_games_or_parts_is_refused(args: list[str], name: str) -> None:
    # Before, it was taken: empty tables, and "(and a  s limit)", "peak RSS ()" in the text.
    result = runner.invoke(app, ["bench", "--quick", "--repeats", "1", *args])
    assert result.exit_code == 2, result.output
    assert f"The {name!r} parameter of the benchmark must be one or more of" in result.output
    assert "Got () instead." in result.output
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        Options(**{name: ()})


@pytest.mark.parametrize(
    ("args", "name", "got"),
    [
        (["--games", "tictactoe,tictactoe", "--parts", "speed"], "games",
         "('tictactoe', 'tictactoe')"),
        (["--games", "tictactoe", "--parts", "speed", "--parts", "speed"], "parts",
         "('speed', 'speed')"),
    ],
)  # fmt: skip
def test_a_game_or_part_named_twice_is_refused(args: list[str], name: str, got: str) -> None:
    # Before, it was measured twice and reported twice.
    result = runner.invoke(app, ["bench", "--quick", "--repeats", "1", *args])
    assert result.exit_code == 2, result.output
    message = f"The {name!r} parameter of the benchmark must be names each given once."
    assert message in result.output and f"Got {got} instead." in result.output
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        Options(**{name: ("speed", "speed") if name == "parts" else ("gomoku8", "gomoku8")})


def test_the_repeats_help_says_what_a_figure_is_made_of() -> None:
    result = runner.invoke(app, ["bench", "--help"], env={"COLUMNS": "300"})
    assert "the best of them in the profile" in result.output
    assert "figures are medians" not in result.output


def test_an_out_file_that_cannot_be_written_is_refused_before_the_run(tmp_path: Path) -> None:
    # Before, it was found after the run, whose results a traceback then lost.
    result = runner.invoke(
        app, ["bench", "--quick", "--repeats", "1", "--games", "tictactoe", "--parts", "startup",
              "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"cannot write the results {tmp_path}: Is a directory." in result.output
    assert "startup" not in result.output  # no step of the run was reported


def test_counts_shrink_for_quick_runs() -> None:
    quick = GAMES["gomoku15"].counts.quick()
    assert quick.compiled == GAMES["gomoku15"].counts.compiled // 100
    assert quick.naive == 20 and quick.memory_mb == 1.0
    assert GAMES["tictactoe"].counts.quick().naive == 0


def test_markdown_file_is_written(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    result = runner.invoke(
        app, ["bench", "--quick", "--repeats", "1", "--games", "tictactoe", "--parts", "speed",
              "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "simulations per second" in result.output  # the rich tables
    assert out.read_text().startswith("# mctslab benchmark results")


def test_out_keeps_the_hand_written_part_of_an_existing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, --out overwrote the whole file, and RESULTS.md's hand-written section with it.
    from mctslab.cli import bench as bench_command

    assert bench_command._HAND_WRITTEN == HAND_WRITTEN  # the help names the very heading
    monkeypatch.setattr(_run, "cold_and_warm", lambda: (2.0, 1.0))
    hand = f"{HAND_WRITTEN}\n\nWhy the goals are not met, by hand.\n"
    kept, replaced = tmp_path / "kept.md", tmp_path / "replaced.md"
    kept.write_text(f"# stale results\n\n| stale | table |\n\n{hand}")
    replaced.write_text("# old results, nothing by hand\n")
    for out in (kept, replaced):
        result = runner.invoke(
            app, ["bench", "--quick", "--games", "tictactoe", "--parts", "startup",
                  "--out", str(out)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    text = kept.read_text()
    assert text.startswith("# mctslab benchmark results") and "stale" not in text
    assert text.endswith(f"|\n\n{hand}")  # after the last table
    assert text.count(HAND_WRITTEN) == 1
    assert "old results" not in replaced.read_text()
    assert HAND_WRITTEN not in replaced.read_text()


@pytest.mark.parametrize("terminal", [False, True])
def test_the_tables_keep_every_figure_whole(
    report: dict[str, Any], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    # Before, at rich's 80 columns (a pipe's, or a terminal's) the figures were cut to fit:
    # "2,941,1…". A pipe now gets each table at its own width; a narrow terminal folds
    # the cells onto more lines.
    from mctslab.benchmark._report import tables
    from mctslab.cli import _options as opt

    screen = io.StringIO()
    console = Console(file=screen, width=60, force_terminal=terminal, color_system=None)
    monkeypatch.setattr(opt, "console", console)
    for table in rich_tables(report):
        opt.print_whole(table)
    shown = screen.getvalue()
    assert "…" not in shown
    if not terminal:
        cells = {cell for data in tables(report) for row in data.rows for cell in row}
        assert all(cell in shown for cell in cells)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_the_web_memory_script_drives_a_server_through_its_games(tmp_path: Path) -> None:
    # benchmarks/web_memory.py runs the web board's HTTP API as the page does: a change of
    # the API would break it silently between its (long) runs.
    pytest.importorskip("fastapi")
    out = tmp_path / "memory.json"
    script = Path(__file__).parents[2] / "benchmarks" / "web_memory.py"
    args = ["--cycles", "2", "--seconds", "0.05", "--games", "tictactoe,gomoku:7", "--out"]
    done = subprocess.run(
        [sys.executable, str(script), *args, str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    samples = json.loads(out.read_text())["samples"]
    assert [sample["cycle"] for sample in samples] == [0, 1, 2]
    assert all(sample["rss_mib"] > 0 for sample in samples)
    assert "cycle    2: RSS" in done.stdout
