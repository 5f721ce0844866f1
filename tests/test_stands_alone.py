"""The repository stands alone: no file cites a document that is not in it (the design and style notes the project
began from, or the folder of papers beside a checkout). What such a citation pointed at is in docs/ now."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Spelled in pieces so that this file does not cite them itself.
OUTSIDE = re.compile("|".join([r"\bDESIGN" + r"\.md\b", r"\bSTYLE" + r"\.md\b", r"\.\./" + "shared",
                               r"\bshared" + "/papers", "/work/" + "shared"]))
BINARY = {".png", ".gif", ".jpg", ".ico", ".sqlite", ".parquet", ".pbf", ".gpkg", ".shp", ".dbf", ".shx", ".nbi",
          ".nbc"}


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = [REPO / name for name in out.decode().split("\0") if name]
    return [f for f in files if f.suffix.lower() not in BINARY and f.is_file()]


def test_no_file_cites_a_document_outside_the_repository():
    found = []
    for f in tracked_text_files():
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{f.relative_to(REPO)}:{n}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_the_pattern_finds_what_it_looks_for():
    cited = ("see DESIGN" + ".md", "(STYLE" + ".md: lines)", "../" + "shared/" + "papers/x.pdf", "/work/" + "shared")
    for line in cited:
        assert OUTSIDE.search(line), line
    for line in ("docs: Reference, scene format", "a shared/ folder of results", "MY_DESIGN_md"):
        assert not OUTSIDE.search(line), line
