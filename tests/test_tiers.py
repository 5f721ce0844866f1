"""The tier lists of tests/tiers.py name tests that exist, and the markers are declared (--strict-markers)."""

from __future__ import annotations

import ast

import pytest
from tiers import HERE, PERF, SLOW


@pytest.mark.parametrize("entry", sorted(PERF | SLOW))
def test_every_tier_entry_names_an_existing_test(entry):
    path, _, name = entry.partition("::")
    f = HERE / path
    assert f.is_file(), f"{entry}: no such test file (renamed? update tests/tiers.py)"
    if name:
        defs = {n.name for n in ast.walk(ast.parse(f.read_text())) if isinstance(n, ast.FunctionDef)}
        assert name in defs, f"{entry}: no such test in {path} (renamed? update tests/tiers.py)"


def test_the_tier_markers_are_declared(pytestconfig):
    declared = {line.split(":", 1)[0].strip() for line in pytestconfig.getini("markers")}
    assert {"slow", "gui", "perf"} <= declared
    assert "--strict-markers" in pytestconfig.getini("addopts")
