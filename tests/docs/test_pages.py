"""The guide's pages and the README hold together: every relative link and picture points at a file of the
repository, every page is reachable from a table of contents, and the shipped example spec is the one shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def targets(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)   # code blocks hold no links
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", [*PAGES, REPO / "README.md", REPO / "scenes" / "README.md",
                                  REPO / "packaging" / "README.md"], ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_and_picture_resolves(page):
    for target in targets(page):
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page.relative_to(REPO)}: {target}"
        assert REPO in path.parents, f"{page.relative_to(REPO)}: {target} leaves the repository"


def test_every_page_is_in_a_table_of_contents():
    listed = {DOCS / "index.md"}
    for page in PAGES:
        for block in re.findall(r"```\{toctree\}\n(.*?)```", page.read_text(), re.S):
            for entry in block.splitlines():
                if entry.strip() and not entry.startswith(":"):
                    listed.add((page.parent / f"{entry.strip()}.md").resolve())
    assert {p.resolve() for p in PAGES} - listed == set()


def test_pictures_are_small_pngs():
    for png in (DOCS / "images").rglob("*.png"):
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", png
        assert len(data) < 200_000, f"{png.relative_to(REPO)}: {len(data) // 1024} KB"


def test_the_readme_is_a_front_door():
    text = (REPO / "README.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 200
    assert lines[0] == "# MIRAN Studio" and "![" in "\n".join(lines[:12])
    for section in ("## Quick start", "## What it can do", "## Documentation", "## Citing", "## License"):
        assert section in text
    assert text.count("![") >= 5          # the top picture, and one per capability
