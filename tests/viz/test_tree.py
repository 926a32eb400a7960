"""The search tree drawing: what each box says."""

from __future__ import annotations

import pytest

from mctslab.core.tree_view import TreeView
from mctslab.viz.tree import tree_to_dot


def test_the_root_box_shows_visits_but_no_value() -> None:
    # Values belong to the player who moved into a node; the root has none.
    pytest.importorskip("graphviz")
    child = TreeView(move="+20", visits=7, value=0.875, children=(), expanded=4)
    root = TreeView(move=None, visits=10, value=0.0, children=(child,), expanded=4)
    source = tree_to_dot(root)
    assert 'label="root\\nvisits 10\\n(+3 more)"' in source
    assert 'label="+20\\nvisits 7\\nvalue 0.875\\n(+4 more)"' in source
