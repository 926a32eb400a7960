"""Search tree -> DOT source, and SVG/PNG when graphviz's ``dot`` program is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType

from mctslab.core.tree_view import TreeView


def require_graphviz() -> ModuleType:
    """The graphviz package, which drawing needs; RuntimeError with its install hint if it is
    missing (a caller can check this before the work whose tree it draws)."""
    try:
        import graphviz
    except ImportError as error:
        raise RuntimeError(
            "Drawing trees needs the graphviz package: pip install 'mctslab[viz]'"
        ) from error
    return graphviz


def tree_to_dot(view: TreeView, *, title: str = "") -> str:
    """DOT source for ``view``: one box per node with move, visits and mean value.

    Edges are drawn thicker for more visited children; a node whose children
    were cut from the snapshot says how many it has. The root shows no value:
    values belong to the player who moved into a node. A search with
    transpositions keeps one node per position, so a position reached by
    several move orders is drawn under each parent that reaches it, and the
    visits below a node can add up to more than its own.
    """
    graphviz = require_graphviz()
    graph = graphviz.Digraph("search_tree", comment=title)
    # Not an HTML label, which DOT makes of a text in angle brackets.
    graph.attr(
        rankdir="TB", label=graphviz.nohtml(_dot_text(title)), labelloc="t", fontname="Helvetica"
    )
    graph.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    root_visits = max(view.visits, 1)
    stack: list[tuple[str, TreeView]] = [("n0", view)]
    next_id = 1
    while stack:
        name, node = stack.pop()
        label = f"{'root' if node.move is None else _dot_text(node.move)}\\nvisits {node.visits}"
        if node.move is not None:
            label += f"\\nvalue {node.value:.3f}"
        hidden = node.expanded - len(node.children)
        if hidden > 0:
            label += f"\\n(+{hidden} more)"
        shade = 95 - int(45 * node.visits / root_visits)
        graph.node(name, label=label, fillcolor=f"0.6 0.35 {shade / 100:.2f}")
        for child in node.children:
            child_name = f"n{next_id}"
            next_id += 1
            width = 1 + 4 * child.visits / root_visits
            graph.edge(name, child_name, penwidth=f"{width:.2f}")
            stack.append((child_name, child))
    return str(graph.source)


def _dot_text(text: str) -> str:
    """``text`` to be shown as it is in a DOT label: graphviz reads a backslash as an escape
    (``\\l`` ends a line, a final one swallows the closing quote), so each is doubled."""
    return text.replace("\\", "\\\\")


def render_tree(view: TreeView, path: str | Path, *, title: str = "") -> list[Path]:
    """Write the tree to ``path``; returns the files written.

    The DOT source is always written (``path`` with suffix ``.dot``); when the
    suffix asks for ``.svg``/``.png``/``.pdf`` and graphviz's ``dot`` program is
    installed, that picture is written too. Without ``dot`` only the DOT file is
    written, and the caller is told by the returned list. A file that cannot be
    written raises OSError; ``dot`` failing raises RuntimeError with its message,
    and so does a picture asked for without the graphviz package (with its
    install hint, see :func:`require_graphviz`).
    """
    target = Path(path)
    source = tree_to_dot(view, title=title)
    dot_file = target.with_suffix(".dot")
    dot_file.write_text(source)
    written = [dot_file]
    image_format = target.suffix.lstrip(".").lower()
    if image_format in {"svg", "png", "pdf"} and shutil.which("dot"):
        graphviz = require_graphviz()
        # Piped, so that graphviz leaves no intermediate source file beside the picture
        # (render() left one where it could not write the picture).
        try:
            picture = graphviz.Source(source).pipe(format=image_format, quiet=True)
        except subprocess.CalledProcessError as error:
            message = error.stderr.decode(errors="replace") if error.stderr else str(error)
            raise RuntimeError(f"graphviz's dot failed: {message.strip()}") from error
        target.write_bytes(picture)
        written.append(target)
    return written
