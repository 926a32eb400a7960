"""Every relative link in the README and docs/ points at a file that exists, and every
``#anchor`` at a heading of that file, as GitHub names headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: ``[text](target)``; images and links alike. Fenced code is removed before matching.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'.

    Markdown is reduced to its text first (code spans keep their text, links their label).
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of ``path``'s headings; a repeated one gains ``-1``, ``-2``, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        anchor = github_anchor(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The relative link targets of ``path`` (web addresses and mail left out)."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return [
        target
        for target in _LINK.findall(text)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)
    ]


def test_github_anchor_follows_githubs_rules() -> None:
    assert github_anchor("A process with numba loaded exits without the collector") == (
        "a-process-with-numba-loaded-exits-without-the-collector"
    )
    assert github_anchor("Arena records (JSONL)") == "arena-records-jsonl"
    assert github_anchor("`mctslab play` — a person against the AI") == (
        "mctslab-play--a-person-against-the-ai"
    )
    assert github_anchor("No GPU: the compiled loop on CPU cores") == (
        "no-gpu-the-compiled-loop-on-cpu-cores"
    )


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_relative_links_and_anchors_resolve(doc: Path) -> None:
    broken = []
    for target in links(doc):
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT)}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with anchor #{anchor} in {linked.name}")
    assert not broken, f"{doc.relative_to(ROOT)}: " + "; ".join(broken)
