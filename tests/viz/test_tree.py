"""The search tree drawing: what each box says."""

from __future__ import annotations

import re
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
    # Values belong to the player who moved into a position; the root has none.
    pytest.importorskip("graphviz")
    child = TreeView(visits=7, value=0.875, children=(), left_out=4)
    root = TreeView(visits=10, value=0.0, children=(("+20", child),), left_out=3)
    source = tree_to_dot(root)
    assert 'n0 [label="root\\nvisits 10\\n(+3 more)"' in source
    assert 'n1 [label="visits 7\\nvalue 0.875\\n(+4 more)"' in source
    assert 'n0 -> n1 [label="+20"' in source


def test_a_position_with_several_parents_is_one_box_with_an_arrow_from_each() -> None:
    # Before, it was drawn under each parent, with all it held below: a drawing of the
    # compiled engine's tree grew about fourfold a level.
    pytest.importorskip("graphviz")
    shared = TreeView(visits=5, value=0.5, children=(), left_out=0)
    first = TreeView(visits=6, value=0.5, children=(("-18", shared),), left_out=0)
    second = TreeView(visits=4, value=0.5, children=(("+27", shared),), left_out=0)
    root = TreeView(visits=10, value=0.0, children=(("+20", first), ("-30", second)), left_out=0)
    source = tree_to_dot(root, title="numbers\nthe 4 most visited")
    assert source.count('[label="visits 5\\n') == 1
    into = {move: box for box, move in re.findall(r"-> (n\d+) \[label=\"?([-+\d]+)", source)}
    assert into["-18"] == into["+27"] != into["+20"]
    assert 'label="numbers\\nthe 4 most visited"' in source


def test_moves_and_titles_are_drawn_as_they_are() -> None:
    # Before, DOT read their backslashes as escapes: "back\\" swallowed the rest of its box
    # and "x\\ly" ended a line at "x"; a title in angle brackets was taken for HTML (and one
    # ending in a backslash left its quote open); a move named "" was labelled "root".
    pytest.importorskip("graphviz")
    moves = ("back\\", "x\\ly", "", "<b>")
    leaf = TreeView(visits=1, value=0.5, children=(), left_out=0)
    root = TreeView(visits=4, value=0.0, children=tuple((m, leaf) for m in moves), left_out=0)
    source = tree_to_dot(root, title="<C:\\>")
    assert r'label="<C:\\>"' in source
    for move in (r'"back\\"', r'"x\\ly"', '""', '"<b>"'):
        assert f"n0 -> n1 [label={move} " in source
    assert source.count(r'"root\n') == 1


def test_the_engine_s_tree_itself_is_refused_for_its_snapshot(tmp_path: Path) -> None:
    # engine.tree, the root Node, beside engine.tree_view in the README: drawing it failed
    # with an AttributeError from inside the drawing, after nothing said what to pass.
    engine = new_engine("python", SearchConfig(seed=1))
    engine.search(make("tictactoe"), Budget(iterations=50))
    root = engine.tree  # type: ignore[attr-defined]
    for draw, owner in ((tree_to_dot, "tree_to_dot"), (render_tree, "render_tree")):
        args = (root,) if draw is tree_to_dot else (root, tmp_path / "tree.svg")
        with pytest.raises(ValueError) as raised:
            draw(*args)
        assert str(raised.value) == (
            f"The 'view' parameter of {owner} must be a TreeView (engine.tree_view(state)). "
            f"Got {root!r} instead."
        )
    assert list(tmp_path.iterdir()) == []


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
    view = TreeView(visits=1, value=0.0, children=(), left_out=0)
    (tmp_path / "tree.svg").mkdir()
    with pytest.raises(OSError):
        render_tree(view, tmp_path / "tree.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree.dot", "tree.svg"]
    assert render_tree(view, tmp_path / "ok.png") == [tmp_path / "ok.dot", tmp_path / "ok.png"]
    assert (tmp_path / "ok.png").read_bytes().startswith(b"\x89PNG")


def test_a_dot_file_is_written_under_the_name_given(tmp_path: Path) -> None:
    # Before, tree.DOT was written as tree.dot: another file on a case-sensitive system.
    view = TreeView(visits=1, value=0.0, children=(), left_out=0)
    assert render_tree(view, tmp_path / "tree.DOT") == [tmp_path / "tree.DOT"]
    assert [p.name for p in tmp_path.iterdir()] == ["tree.DOT"]
