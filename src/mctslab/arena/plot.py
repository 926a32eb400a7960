"""Pictures of a run (``--plot``): score and Elo over the games, or Elo against a swept option.

matplotlib is an optional extra (``plot``) and is imported only here, with its
file-only backend.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mctslab._extras import install_hint
from mctslab.arena.match import FEW_PAIRS, PointResult, Tally
from mctslab.arena.stats import SPRT

#: Elo bounds beyond this are drawn at it (an interval can be unbounded at a score of 0 or 1).
_ELO_CLIP = 1000.0


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise ImportError(f"--plot needs matplotlib; {install_hint('plot')}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _clip(elo: float) -> float:
    return max(-_ELO_CLIP, min(_ELO_CLIP, elo))


def _running(
    result: PointResult, sprt: SPRT | None = None
) -> tuple[list[int], list[float], list[float], list[float], list[float], list[float]]:
    """Games, score, Elo, its interval and the SPRT's LLR (none without one) after each game,
    in the order the games finished."""
    tally = Tally()
    games, scores, elos, lows, highs, llrs = [], [], [], [], [], []
    for pair, score in result.tally.results:
        tally.add(pair, score)
        if sprt is not None:
            llrs.append(sprt.llr(tally.pentanomial()))
        estimate = tally.estimate()
        assert estimate is not None  # there is a game
        games.append(tally.games)
        scores.append(tally.score)
        elos.append(_clip(estimate.elo))
        # As in the table: no interval from too few pairs (a gap in the band).
        lows.append(_clip(estimate.lower) if tally.interval_holds else math.nan)
        highs.append(_clip(estimate.upper) if tally.interval_holds else math.nan)
    return games, scores, elos, lows, highs, llrs


def plot_path(path: Path) -> Path:
    """The file :func:`plot_run` should write for ``path``: ``.png`` added when it has no suffix.

    Checked before a run, so that a missing matplotlib (ImportError) or a
    format it cannot write (ValueError) is said before any game is played.
    """
    _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    if not path.suffix:
        return path.with_suffix(".png")
    formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise ValueError(
            f"--plot cannot write {path.suffix} files. Use one of: {', '.join(sorted(formats))}."
        )
    return path


def plot_run(
    results: Sequence[PointResult],
    path: Path,
    *,
    title: str,
    sweep_key: str | None,
    sprt: SPRT | None = None,
) -> None:
    """Draw the run to ``path`` (any format matplotlib writes: .png, .svg, .pdf); a match
    with an SPRT gets its LLR and bounds too."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    if sweep_key is None:
        rows = 2 if sprt is None else 3
        figure, axes = plt.subplots(rows, 1, sharex=True, figsize=(8, 3 * rows))
        top, bottom = axes[0], axes[1]
        games, scores, elos, lows, highs, llrs = _running(results[0], sprt)
        top.plot(games, scores, color="tab:blue")
        top.axhline(0.5, color="grey", linestyle="--", linewidth=0.8)
        top.set_ylabel("score of A")
        top.set_ylim(-0.03, 1.03)  # a score of 0 or 1 stays in sight
        bottom.fill_between(
            games,
            lows,
            highs,
            color="tab:orange",
            alpha=0.25,
            label=f"95% interval (from {FEW_PAIRS} pairs)",
        )
        bottom.plot(games, elos, color="tab:orange", label="Elo difference")
        bottom.axhline(0, color="grey", linestyle="--", linewidth=0.8)
        bottom.set_ylabel(f"Elo (A - B), within ±{_ELO_CLIP:g}")
        bottom.legend(loc="best")
        if sprt is not None:
            axes[2].plot(games, llrs, color="tab:green")
            for bound, verdict in ((sprt.lower_bound, "H0"), (sprt.upper_bound, "H1")):
                axes[2].axhline(bound, color="grey", linestyle="--", linewidth=0.8)
                axes[2].annotate(
                    verdict,
                    (0, bound),  # x at the panel's left edge, y at the bound
                    xycoords=axes[2].get_yaxis_transform(),
                    xytext=(2, 2),
                    textcoords="offset points",
                )
            axes[2].set_ylabel("log-likelihood ratio")
            axes[2].set_title(f"SPRT {sprt.describe()}", fontsize="small")
        axes[-1].set_xlabel("games")
        # Ticks at whole games (the panels share the axis): a short run was labelled 1.0, 1.2...
        axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        figure, axes = plt.subplots(figsize=(8, 5))
        values = [_number(result.sweep_value) for result in results]
        numeric = all(v is not None for v in values)
        xs: list[Any] = values if numeric else [str(r.sweep_value) for r in results]
        elos, below, above = [], [], []
        for result in results:
            estimate = result.tally.estimate()
            if estimate is None:
                elos.append(math.nan)
                below.append(0.0)
                above.append(0.0)
                continue
            elos.append(_clip(estimate.elo))
            shown = result.tally.interval_holds
            below.append(_clip(estimate.elo) - _clip(estimate.lower) if shown else 0.0)
            above.append(_clip(estimate.upper) - _clip(estimate.elo) if shown else 0.0)
        axes.errorbar(xs, elos, yerr=[below, above], marker="o", capsize=4)
        axes.axhline(0, color="grey", linestyle="--", linewidth=0.8)
        positive = [v for v in values if v is not None and v > 0]
        if numeric and len(positive) == len(values) and max(positive) >= 10 * min(positive):
            axes.set_xscale("log")
        axes.set_xlabel(sweep_key)
        axes.set_ylabel(f"Elo (A - B) within ±{_ELO_CLIP:g}, 95% interval from {FEW_PAIRS} pairs")
    figure.suptitle(title)
    figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None
