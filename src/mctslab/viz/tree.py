"""Search tree -> DOT source, and SVG/PNG when graphviz's ``dot`` program is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType

from mctslab._extras import install_hint
from mctslab._validation import check_instance
from mctslab.core.tree_view import TreeView


def require_graphviz() -> ModuleType:
    """The graphviz package, which drawing needs; RuntimeError with its install hint if it is
    missing (a caller can check this before the work whose tree it draws)."""
    try:
        import graphviz
    except ImportError as error:
        raise RuntimeError(
            f"Drawing trees needs the graphviz package; {install_hint('viz')}"
        ) from error
    return graphviz


def tree_to_dot(view: TreeView, *, title: str = "") -> str:
    """DOT source for ``view``: one box per position with its visits and mean value.

    Each arrow is labelled with its move, and drawn thicker for more visited
    children; a position with children the snapshot left out says how many
    (``TreeView.left_out``). The root shows no value: values belong to the
    player who moved into a position. A position reached by several move
    orders (the compiled engine's transpositions) is one box, at the depth
    (moves from the root) where the snapshot first found it, with an arrow from
    each of its parents drawn one move above that depth, so the visits below a
    box can add up to more than its own; a parent drawn at another depth has
    no arrow to it, nor counts it as more.
    ``title`` is shown above the tree, a line for each of its lines.
    """
    view = _checked_view(view, "tree_to_dot")
    graphviz = require_graphviz()
    lines = title.splitlines()
    graph = graphviz.Digraph("search_tree", comment=" ".join(lines))
    # Not an HTML label, which DOT makes of a text in angle brackets.
    heading = graphviz.nohtml("\\n".join(map(_dot_text, lines)))
    graph.attr(rankdir="TB", label=heading, labelloc="t", fontname="Helvetica")
    graph.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    graph.attr("edge", fontname="Helvetica", fontsize="10")
    root_visits = max(view.visits, 1)
    names = {id(view): "n0"}
    stack = [view]
    while stack:
        node = stack.pop()
        name = names[id(node)]
        if node is view:
            label = f"root\\nvisits {node.visits}"
        else:
            label = f"visits {node.visits}\\nvalue {node.value:.3f}"
        if node.left_out > 0:
            label += f"\\n(+{node.left_out} more)"
        shade = 95 - int(45 * node.visits / root_visits)
        graph.node(name, label=label, fillcolor=f"0.6 0.35 {shade / 100:.2f}")
        for move, child in node.children:
            if id(child) not in names:
                names[id(child)] = f"n{len(names)}"
                stack.append(child)
            width = 1 + 4 * child.visits / root_visits
            graph.edge(
                name,
                names[id(child)],
                label=graphviz.nohtml(_dot_text(move)),
                penwidth=f"{width:.2f}",
            )
    return str(graph.source)


def _checked_view(view: object, owner: str) -> TreeView:
    """``view``, or ValueError for anything else (the engine's tree itself, say)."""
    return check_instance(view, "view", owner, TreeView, "a TreeView (engine.tree_view(state))")


def _dot_text(text: str) -> str:
    """``text`` to be shown as it is in a DOT label: graphviz reads a backslash as an escape
    (``\\l`` ends a line, a final one swallows the closing quote), so each is doubled."""
    return text.replace("\\", "\\\\")


def draw_dot(source: str, image_format: str) -> bytes | None:
    """DOT ``source`` drawn by graphviz's ``dot`` program in ``image_format`` (svg, png, pdf);
    None when ``dot`` is not installed.

    ``dot`` failing raises RuntimeError with its message, and so does a missing
    graphviz package (with its install hint, see :func:`require_graphviz`).
    """
    if not shutil.which("dot"):
        return None
    graphviz = require_graphviz()
    # Piped, so that graphviz leaves no intermediate source file beside a picture
    # (render() left one where it could not write the picture).
    try:
        picture: bytes = graphviz.Source(source).pipe(format=image_format, quiet=True)
    except subprocess.CalledProcessError as error:
        message = error.stderr.decode(errors="replace") if error.stderr else str(error)
        raise RuntimeError(f"graphviz's dot failed: {message.strip()}") from error
    return picture


def dot_path(target: Path) -> Path:
    """Where :func:`render_tree` writes the DOT source for ``target``: ``target`` itself
    when it names a DOT file (``tree.DOT`` too), else ``target`` with the suffix ``.dot``."""
    return target if target.suffix.lower() == ".dot" else target.with_suffix(".dot")


def render_tree(view: TreeView, path: str | Path, *, title: str = "") -> list[Path]:
    """Write the tree to ``path``; returns the files written.

    The DOT source is always written (to :func:`dot_path` of ``path``); when the
    suffix asks for ``.svg``/``.png``/``.pdf`` and graphviz's ``dot`` program is
    installed, that picture is written too. Without ``dot`` only the DOT file is
    written, and the caller is told by the returned list. A file that cannot be
    written raises OSError; ``dot`` failing raises RuntimeError with its message,
    and so does a picture asked for without the graphviz package (with its
    install hint, see :func:`require_graphviz`).
    """
    target = Path(path)
    source = tree_to_dot(_checked_view(view, "render_tree"), title=title)
    dot_file = dot_path(target)
    dot_file.write_text(source)
    written = [dot_file]
    image_format = target.suffix.lstrip(".").lower()
    picture = draw_dot(source, image_format) if image_format in {"svg", "png", "pdf"} else None
    if picture is not None:
        target.write_bytes(picture)
        written.append(target)
    return written
