"""The search tree drawing: what each box says."""

from __future__ import annotations

import shutil
import weakref
from pathlib import Path

import pytest

from mctslab import make
from mctslab.core import Budget, SearchConfig
from mctslab.core.tree_view import TreeView
from mctslab.fast import FastMCTS
from mctslab.players import new_engine
from mctslab.viz.tree import render_tree, tree_to_dot
from tests.conftest import garbage_collector_off


def test_the_root_box_shows_visits_but_no_value() -> None:
    # Values belong to the player who moved into a node; the root has none.
    pytest.importorskip("graphviz")
    child = TreeView(move="+20", visits=7, value=0.875, children=(), expanded=4)
    root = TreeView(move=None, visits=10, value=0.0, children=(child,), expanded=4)
    source = tree_to_dot(root)
    assert 'label="root\\nvisits 10\\n(+3 more)"' in source
    assert 'label="+20\\nvisits 7\\nvalue 0.875\\n(+4 more)"' in source


def test_moves_and_titles_are_drawn_as_they_are() -> None:
    # Before, DOT read their backslashes as escapes: "back\\" swallowed the rest of its box
    # and "x\\ly" ended a line at "x"; a title in angle brackets was taken for HTML (and one
    # ending in a backslash left its quote open); a move named "" was labelled "root".
    pytest.importorskip("graphviz")
    moves = ("back\\", "x\\ly", "")
    children = tuple(TreeView(move=m, visits=1, value=0.5, children=(), expanded=0) for m in moves)
    root = TreeView(move=None, visits=3, value=0.0, children=children, expanded=3)
    source = tree_to_dot(root, title="<C:\\>")
    assert r'label="<C:\\>"' in source
    assert r'label="back\\\nvisits 1\nvalue 0.500"' in source
    assert r'label="x\\ly\nvisits 1\nvalue 0.500"' in source
    assert r'label="\nvisits 1\nvalue 0.500"' in source
    assert source.count(r'"root\n') == 1


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_an_engine_without_a_tree_says_why(engine: str) -> None:
    state = make("tictactoe")
    kept = new_engine(engine, SearchConfig(seed=1))
    with pytest.raises(ValueError, match="There is no search tree for this position; search it"):
        kept.tree_view(state)  # type: ignore[attr-defined]
    kept.search(state, Budget(iterations=200))
    assert kept.tree_view(state).visits == 200  # type: ignore[attr-defined]
    # Before, an engine that keeps no tree also said "search it first", just after a search.
    fresh = new_engine(engine, SearchConfig(seed=1, reuse_tree=False))
    fresh.search(state, Budget(iterations=200))
    with pytest.raises(ValueError, match=r"keeps no search tree \(its config has reuse_tree=False"):
        fresh.tree_view(state)  # type: ignore[attr-defined]


def test_a_drawn_tree_is_freed_as_soon_as_the_engine_lets_it_go() -> None:
    # The snapshot was built by a nested function that called itself: a reference
    # cycle through the closures that read the tree, so a compiled tree (up to
    # DEFAULT_TREE_MB of arrays) stayed until the garbage collector's next full pass.
    state = make("tictactoe")
    engine = FastMCTS(SearchConfig(seed=1))
    with garbage_collector_off():
        engine.search(state, Budget(iterations=200))
        assert engine.tree_view(state, max_depth=2).visits == 200
        tree = engine._tree
        assert tree is not None
        visits = weakref.ref(tree.visits)
        del tree
        engine.reset()
        assert visits() is None


def test_a_picture_that_cannot_be_written_raises_oserror_and_leaves_no_litter(
    tmp_path: Path,
) -> None:
    # Before, graphviz's render() raised its CalledProcessError and left "tree.gv" behind.
    pytest.importorskip("graphviz")
    if not shutil.which("dot"):
        pytest.skip("graphviz's dot is not installed")
    view = TreeView(move=None, visits=1, value=0.0, children=(), expanded=0)
    (tmp_path / "tree.svg").mkdir()
    with pytest.raises(OSError):
        render_tree(view, tmp_path / "tree.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree.dot", "tree.svg"]
    assert render_tree(view, tmp_path / "ok.png") == [tmp_path / "ok.dot", tmp_path / "ok.png"]
    assert (tmp_path / "ok.png").read_bytes().startswith(b"\x89PNG")
