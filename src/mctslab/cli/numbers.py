"""`mctslab numbers`: the 10-turn numeric optimisation game, decided level by level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer
from rich.table import Table

from mctslab.cli import _options as opt
from mctslab.cli._thinking import Thinking
from mctslab.core.config import COINFLIP_C, Budget, TreePolicy
from mctslab.core.result import SearchResult
from mctslab.core.tree_view import MAX_VIEW_NODES

if TYPE_CHECKING:
    from mctslab.games.numbers import NumbersState

#: What ``--tree`` can write: a picture (with graphviz's ``dot``) or the DOT source.
TREE_SUFFIXES = (".svg", ".png", ".pdf", ".dot")


def numbers(
    num_sims: Annotated[
        int,
        typer.Option(help="Simulations for the first level; level L gets num_sims/(L+1).", min=1),
    ] = 100,
    levels: Annotated[
        int, typer.Option(help="Successive decisions to make (at most turns).", min=1)
    ] = 2,
    turns: Annotated[int, typer.Option(help="Turns in the game.")] = 10,
    goal: Annotated[int, typer.Option(help="The value to end near.")] = 0,
    tree: Annotated[
        Path | None,
        typer.Option(
            help="Draw the first level's search tree: FILE.svg/.png/.pdf, or FILE.dot for the "
            "DOT source alone. Needs the viz extra; the .dot source is always written, the "
            "picture where graphviz's dot is installed."
        ),
    ] = None,
    tree_depth: Annotated[int, typer.Option(help="Moves deep to draw the tree.", min=1)] = 3,
    tree_top: Annotated[
        int, typer.Option(help="Most visited children drawn per position.", min=1)
    ] = 4,
    tree_nodes: Annotated[
        int,
        typer.Option(
            help="Most positions drawn in all, the most visited; a position reached by "
            "several move orders is drawn once.",
            min=1,
        ),
    ] = MAX_VIEW_NODES,
    policy: Annotated[
        str,
        typer.Option(
            help="Tree policy: coinflip (the classic example's, which also plays the child of "
            "highest mean reward) or uct (which plays the most visited child).",
            callback=opt.one_of(get_args(TreePolicy)),
        ),
    ] = "coinflip",
    engine: opt.Engine = "compiled",
    seed: opt.Seed = None,
    c: Annotated[
        float | None,
        typer.Option(
            "--c",
            help="UCT exploration constant c, of c sqrt(ln N / n) (default 1 with the coinflip "
            "policy, the classic example's, sqrt(2) with uct).",
            callback=opt.non_negative,
        ),
    ] = None,
    as_json: opt.Json = False,
) -> None:
    """Play the numbers game one decision (level) at a time, printing each level's children.

    Each level searches from the best child of the last, keeping its subtree,
    with a budget of num_sims/(level+1) simulations: the visits of a level's
    children count the earlier levels' too. The bandit is UCB1, the
    classic example's, rather than the UCB1-Tuned of the other commands.
    """
    if tree is not None:
        if tree.suffix.lower() not in TREE_SUFFIXES:
            opt.fail(f"--tree {tree}: the file name must end in {', '.join(TREE_SUFFIXES)}.")
        if not tree.parent.is_dir():
            opt.fail(f"--tree {tree}: there is no folder {tree.parent}.")
        # Checked before the search, which can be long: after it, a traceback lost it.
        from mctslab.viz.tree import dot_path, require_graphviz

        try:
            require_graphviz()
        except RuntimeError as error:
            opt.fail(f"--tree {tree}: {error}")
        for drawn in dict.fromkeys((dot_path(tree), tree)):
            opt.check_writable(drawn, "the search tree")
    state = _new_game(turns, goal)
    if levels > turns:
        opt.fail(f"--levels {levels} is more than the {turns} turns of the game.")
    classic = policy == "coinflip"
    if c is None and classic:
        c = COINFLIP_C
    final_move = "value" if classic else "visits"  # the classic's BESTCHILD(root, 0)
    config = opt.search_config(seed, c, tree_policy=policy, final_move=final_move, bandit="ucb1")
    player = opt.mcts_player(engine, config, Budget(iterations=num_sims), 1)
    report: list[dict[str, Any]] = []
    # Ctrl-C stops the command after the levels already decided (before, it went on to the
    # next level).
    with opt.searches_until_ctrl_c(player) as interrupted:
        for level in range(levels):
            search_budget = Budget(iterations=max(1, num_sims // (level + 1)))
            with Thinking(opt.error_console, f"Level {level}", estimate=_mean) as thinking:
                result = player.engine.search(state, search_budget, progress=thinking)
            if interrupted():
                break
            if level == 0 and tree is not None:
                _draw(
                    player.engine,
                    state,
                    tree,
                    num_sims,
                    depth=tree_depth,
                    top=tree_top,
                    most=tree_nodes,
                )
            report.append(_level(level, state, result, as_json))
            player.observe(result.best_move)
            state.apply(result.best_move)
    if as_json:
        print(json.dumps({"levels": report, "final": _describe(state)}, indent=2))
    if interrupted():
        opt.interrupted(f"Interrupted at level {len(report)}.")


def _new_game(turns: int, goal: int) -> NumbersState:
    from mctslab.games.numbers import make

    try:
        return make(turns=turns, goal=goal)
    except ValueError as error:
        opt.fail(str(error))


def _mean(value: float) -> str:
    return f"mean reward {value:.4f}"


def _describe(state: NumbersState) -> dict[str, Any]:
    return {"value": state.value, "moves": state.played(), "reward": _reward(state)}


def _reward(state: NumbersState) -> float | None:
    return state.returns()[0] if state.is_terminal() else None


def _level(level: int, state: NumbersState, result: SearchResult, quiet: bool) -> dict[str, Any]:
    children = []
    for stats in sorted(result.moves, key=lambda m: m.move):
        child = state.clone()
        child.apply(stats.move)
        children.append(
            {
                **_describe(child),
                "move": stats.notation,
                "visits": stats.visits,
                "mean": stats.value,
            }
        )
    best = state.clone()
    best.apply(result.best_move)
    entry = {
        "level": level,
        "simulations": result.simulations,
        "stopped_by": result.stopped_by,
        "children": children,
        "best": {**_describe(best), "move": result.best_notation},
    }
    if not quiet:
        # A line of its own rather than the table's title, which rich pads with spaces.
        opt.console.print(
            f"level {level}: {opt.counted(len(children), 'child', 'children')}, "
            f"{opt.counted(result.simulations, 'simulation')}"
            # The tree's exact reward sums count up to a cap (docs/decisions.md).
            + (" (stopped at the tree's visit cap)" if result.stopped_by == "visits" else "")
            # Else the children's visits seem to add up to more than were spent.
            + (" (visits include those of earlier levels, kept with the subtree)" if level else ""),
            soft_wrap=True,
        )
        table = Table()
        for column in ("child", "move", "value", "moves", "visits", "mean reward"):
            table.add_column(column, justify="left" if column == "moves" else "right")
        for index, info in enumerate(children):
            table.add_row(
                str(index),
                info["move"],
                str(info["value"]),
                " ".join(f"{amount:+d}" for amount in info["moves"]),
                f"{info['visits']:,}",
                f"{info['mean']:.4f}",
            )
        opt.console.print(table)
        opt.console.print(
            f"Best child: move {result.best_notation}, value {best.value}, "
            f"moves {' '.join(f'{amount:+d}' for amount in best.played())}\n"
        )
    return entry


def _draw(
    engine: Any, state: NumbersState, path: Path, sims: int, *, depth: int, top: int, most: int
) -> None:
    from mctslab.viz.tree import render_tree

    view = engine.tree_view(state, max_depth=depth, top_k=top, max_nodes=most)
    drawn = view.count()
    # Said in the picture too: a drawing cut by --tree-nodes is not the top of the tree.
    cut = f"the {drawn} most visited positions (--tree-nodes)" if view.cut_by_max_nodes else ""
    title = f"numbers game, level 0, {opt.counted(sims, 'simulation')}\n{cut}".strip()
    try:
        written = render_tree(view, path, title=title)
    except (RuntimeError, OSError) as error:
        opt.fail(f"cannot draw the tree to {path}: {error}", mistake=False)
    opt.error_console.print(
        f"Search tree written to {', '.join(map(str, written))}: "
        + (cut or opt.counted(drawn, "position")),
        soft_wrap=True,
    )
    if path.suffix.lower() in {".svg", ".png", ".pdf"} and path not in written:
        opt.error_console.print("(graphviz's `dot` is not installed: only the DOT source.)")
