"""The documentation holds together: the README stays a front door, and every relative link resolves."""

from __future__ import annotations

import re

import pytest

from support import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_readme_is_a_front_door():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= 250, f"README.md has {lines} lines: move the detail into docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(page):
    targets = [t for t in LINK.findall(page.read_text()) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    broken = [t for t in targets if t.split("#")[0] and not (page.parent / t.split("#")[0]).exists()]
    assert not broken, broken
