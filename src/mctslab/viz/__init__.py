"""Drawings of search trees (graphviz)."""

from mctslab.viz.tree import render_tree, tree_to_dot

__all__ = ["render_tree", "tree_to_dot"]
